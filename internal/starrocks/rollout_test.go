/*
Copyright 2026 The srscale authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package starrocks

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/srscale/starrocks-operator/internal/version"
)

func stsWith(name, image string, rolled bool) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](1), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: image}}}}},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1},
	}
	if !rolled {
		s.Status.UpdatedReplicas = 0
	}
	return s
}

func TestOrder(t *testing.T) {
	desired := func(name, tag string) *appsv1.StatefulSet {
		return stsWith(name, "starrocks/x:"+tag, false)
	}
	tests := []struct {
		name             string
		fe, be, cn       *appsv1.StatefulSet
		toFE, toBE, toCN string
		heldFE, heldBE   bool
		keptBE           bool // an earlier step keeps BE's template (desired reads as live)
	}{
		{name: "an upgrade of all three holds FE",
			fe: stsWith("c-fe", "starrocks/x:3.2.0", true), be: stsWith("c-be", "starrocks/x:3.2.0", true), cn: stsWith("c-cn", "starrocks/x:3.2.0", true),
			toFE: "3.3.0", toBE: "3.3.0", toCN: "3.3.0", heldFE: true},
		{name: "FE is released once BE and CN rolled out",
			fe: stsWith("c-fe", "starrocks/x:3.2.0", true), be: stsWith("c-be", "starrocks/x:3.3.0", true), cn: stsWith("c-cn", "starrocks/x:3.3.0", true),
			toFE: "3.3.0", toBE: "3.3.0", toCN: "3.3.0"},
		{name: "FE waits while BE is still rolling",
			fe: stsWith("c-fe", "starrocks/x:3.2.0", true), be: stsWith("c-be", "starrocks/x:3.3.0", false), cn: stsWith("c-cn", "starrocks/x:3.3.0", true),
			toFE: "3.3.0", toBE: "3.3.0", toCN: "3.3.0", heldFE: true},
		{name: "a downgrade holds BE and CN",
			fe: stsWith("c-fe", "starrocks/x:3.3.0", true), be: stsWith("c-be", "starrocks/x:3.3.0", true), cn: stsWith("c-cn", "starrocks/x:3.3.0", true),
			toFE: "3.2.0", toBE: "3.2.0", toCN: "3.2.0", heldBE: true},
		{name: "BE is released once FE rolled out the downgrade",
			fe: stsWith("c-fe", "starrocks/x:3.2.0", true), be: stsWith("c-be", "starrocks/x:3.3.0", true), cn: stsWith("c-cn", "starrocks/x:3.3.0", true),
			toFE: "3.2.0", toBE: "3.2.0", toCN: "3.2.0"},
		{name: "an FE-only upgrade waits for nothing",
			fe: stsWith("c-fe", "starrocks/x:3.2.0", true), be: stsWith("c-be", "starrocks/x:3.3.0", true), cn: stsWith("c-cn", "starrocks/x:3.3.0", true),
			toFE: "3.3.0", toBE: "3.3.0", toCN: "3.3.0"},
		{name: "a new cluster holds nothing",
			toFE: "3.3.0", toBE: "3.3.0", toCN: "3.3.0"},
		// An earlier step (a refusal, a wait on FE's word) keeps BE's
		// template: desired reads as live, and FE's upgrade still waits.
		{name: "FE waits while an earlier step keeps BE's change",
			fe: stsWith("c-fe", "starrocks/x:3.2.0", true), be: stsWith("c-be", "starrocks/x:3.2.0", true), cn: stsWith("c-cn", "starrocks/x:3.3.0", true),
			toFE: "3.3.0", toBE: "3.2.0", toCN: "3.3.0", keptBE: true, heldFE: true},
		{name: "an earlier step keeping BE does not hold FE's downgrade",
			fe: stsWith("c-fe", "starrocks/x:3.3.0", true), be: stsWith("c-be", "starrocks/x:3.3.0", true), cn: stsWith("c-cn", "starrocks/x:3.2.0", true),
			toFE: "3.2.0", toBE: "3.3.0", toCN: "3.2.0", keptBE: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe, be, cn := desired("c-fe", tt.toFE), desired("c-be", tt.toBE), desired("c-cn", tt.toCN)
			p := Order(Workload{Name: "FE", Live: tt.fe, Desired: fe, Applied: false}, Workload{Name: "BE", Live: tt.be, Desired: be, Applied: false, Kept: tt.keptBE}, Workload{Name: "CN", Live: tt.cn, Desired: cn, Applied: false})
			if p.Holds(fe) != tt.heldFE || p.Holds(be) != tt.heldBE {
				t.Errorf("held FE %v BE %v, want FE %v BE %v (%v)", p.Holds(fe), p.Holds(be), tt.heldFE, tt.heldBE, p.Held)
			}
			if (p.Message != "") != (tt.heldFE || tt.heldBE) {
				t.Errorf("message %q does not match the holds", p.Message)
			}
			if p.Holds(fe) && p.Waiting(fe) == "" {
				t.Error("a held StatefulSet says nothing of why it waits")
			}
		})
	}
}

// An admission webhook that rewrites images (a registry mirror) must not hold
// FE forever: what the operator applied is the desired image, whatever it reads.
func TestARewrittenImageIsNotAChange(t *testing.T) {
	liveBE := stsWith("c-be", "mirror.example/starrocks/x:3.3.0", true)
	desiredBE := stsWith("c-be", "starrocks/x:3.3.0", false)
	fe := Workload{Name: "FE", Live: stsWith("c-fe", "mirror.example/starrocks/x:3.2.0", true), Desired: stsWith("c-fe", "starrocks/x:3.3.0", false), Applied: false}
	if p := Order(fe, Workload{Name: "BE", Live: liveBE, Desired: desiredBE, Applied: true}, Workload{Name: "CN"}); p.Holds(fe.Desired) {
		t.Fatalf("FE held behind a BE that runs what was applied: %v", p.Held)
	}
	if p := Order(fe, Workload{Name: "BE", Live: liveBE, Desired: desiredBE, Applied: false}, Workload{Name: "CN"}); !p.Holds(fe.Desired) {
		t.Fatal("FE not held behind a BE whose image change is not applied yet")
	}
}

// The gate between components: a BE StatefulSet the StatefulSet
// controller calls rolled out, but whose gate still holds it (a parallel
// rollout waiting for StarRocks' word), keeps an upgrade's FE waiting.
func TestFEWaitsForBEsGate(t *testing.T) {
	fe := Workload{Name: "FE", Live: stsWith("c-fe", "starrocks/x:3.3.0", true), Desired: stsWith("c-fe", "starrocks/x:3.3.1", false)}
	be := Workload{Name: "BE", Live: stsWith("c-be", "starrocks/x:3.3.1", true), Desired: stsWith("c-be", "starrocks/x:3.3.1", false), Applied: true, Gated: true}
	if p := Order(fe, be, Workload{Name: "CN"}); !p.Holds(fe.Desired) {
		t.Fatal("FE not held behind a BE its gate still holds")
	}
	be.Gated = false
	if p := Order(fe, be, Workload{Name: "CN"}); p.Holds(fe.Desired) {
		t.Fatalf("FE held behind a BE rolled out and released: %v", p.Held)
	}
}

// One direction: the rollout order and the pre-flight read an image's
// version with the one reader (internal/version) and agree on every pair
// of tags, whatever their form; the pre-flight's verdict, from what FE
// reports, decides when it has a direction.
func TestTheOrderAndThePreflightAgreeOnTheDirection(t *testing.T) {
	tags := []string{
		"3.3.9", "3.3.10", "3.3.0", "3.4.1", "v3.3.9", // releases
		"3.3.0-rc01", "3.3.0-rc02", // candidates
		"latest", "3.3-latest", "4.1-latest", // floating
		"@sha256:0123456789abcdef", "3.3.2@sha256:0123456789abcdef", // a digest, a tag beside a digest
		"3.3.5-ubuntu", "3.3.10-ubuntu", "3.2.11-ubuntu", // suffixes StarRocks does not publish
	}
	ref := func(registry, tag string) string {
		if strings.HasPrefix(tag, "@") {
			return registry + "starrocks/x" + tag
		}
		return registry + "starrocks/x:" + tag
	}
	for _, from := range tags {
		for _, to := range tags {
			for _, registry := range []string{"", "registry.local:5000/"} {
				if from == to {
					continue
				}
				f, tt := ref(registry, from), ref("", to)
				verdict := UpgradePath(version.OfImage(f), version.OfImage(tt))
				if d := version.DirectionOf(version.OfImage(f), version.OfImage(tt)); d != verdict.Direction {
					t.Errorf("%s -> %s: the pre-flight says %d, the tags %d", f, tt, verdict.Direction, d)
				}
				fe, be := Workload{Name: "FE", Live: stsWith("c-fe", f, true), Desired: stsWith("c-fe", tt, false)},
					Workload{Name: "BE", Live: stsWith("c-be", f, true), Desired: stsWith("c-be", tt, false)}
				p := Order(fe, be, Workload{Name: "CN"})
				down := verdict.Direction == version.Downgrade
				if p.Holds(be.Desired) != down || p.Holds(fe.Desired) == down {
					t.Errorf("%s -> %s (%d): FE held %v, BE held %v; want FE first only on a downgrade", f, tt, verdict.Direction, p.Holds(fe.Desired), p.Holds(be.Desired))
				}
				// FE reports the version the running tag names: its verdict agrees with the tags.
				if o := version.OfImage(f); o.Known() && o.Version.PatchKnown {
					if cp := ClusterPath([]string{o.Version.String() + "-abc1234"}, version.OfImage(tt)); cp.Direction != verdict.Direction {
						t.Errorf("%s -> %s: FE's report says %d, the tags %d", f, tt, cp.Direction, verdict.Direction)
					}
				}
			}
		}
	}
	// 3.3.0 to its own release candidate is a downgrade: FE first (issue 49).
	rc := Order(Workload{Name: "FE", Live: stsWith("c-fe", "x:3.3.0", true), Desired: stsWith("c-fe", "x:3.3.0-rc01", false)},
		Workload{Name: "BE", Live: stsWith("c-be", "x:3.3.0", true), Desired: stsWith("c-be", "x:3.3.0-rc01", false)}, Workload{Name: "CN"})
	if !rc.Holds(stsWith("c-be", "", false)) {
		t.Errorf("3.3.0 -> 3.3.0-rc01 held %v: want BE held behind FE", rc.Held)
	}
	// The running tag names no version, FE reports 3.4.2: the verdict's
	// downgrade decides, FE first (issue 50 item 1).
	verdict := ClusterPath([]string{"3.4.2-abc1234"}, version.OfImage("x:3.3.9"))
	fe := Workload{Name: "FE", Live: stsWith("c-fe", "x:latest", true), Desired: stsWith("c-fe", "x:3.3.9", false), Direction: verdict.Direction}
	be := Workload{Name: "BE", Live: stsWith("c-be", "x:latest", true), Desired: stsWith("c-be", "x:3.3.9", false), Direction: verdict.Direction}
	if p := Order(fe, be, Workload{Name: "CN"}); verdict.Direction != version.Downgrade || !p.Holds(be.Desired) || p.Holds(fe.Desired) {
		t.Errorf("latest -> 3.3.9 with FE at 3.4.2 (%d): held %v; want BE held behind FE", verdict.Direction, p.Held)
	}
}
