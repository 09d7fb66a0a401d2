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

package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

func beCluster(image string) *srv1.StarRocksCluster {
	src := feCluster()
	src.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: image, Replicas: ptr.To[int32](3)}}}
	return src
}

func desiredBE(t *testing.T, src *srv1.StarRocksCluster) *appsv1.StatefulSet {
	t.Helper()
	return resources.Build(src, resources.Configs{}).StatefulSet(resources.ComponentBE)
}

// written is sts as the API server holds it after the operator wrote it.
func written(t *testing.T, sts *appsv1.StatefulSet) *appsv1.StatefulSet {
	t.Helper()
	_, hash, err := apply.Desired(sts)
	if err != nil {
		t.Fatal(err)
	}
	live := sts.DeepCopy()
	if live.Annotations == nil {
		live.Annotations = map[string]string{}
	}
	live.Annotations[apply.HashAnnotation] = hash
	return live
}

func TestTemplateChangingIsAboutThePodTemplateOnly(t *testing.T) {
	src := beCluster("starrocks/be-ubuntu:3.3.2")
	base := desiredBE(t, src)
	gated := base.DeepCopy()
	gated.Spec.UpdateStrategy = starrocks.WithPartition(gated.Spec.UpdateStrategy, 1)
	adopted := base.DeepCopy() // the upstream's: same template, no hash of ours
	scaled := beCluster("starrocks/be-ubuntu:3.3.2")
	scaled.Spec.StarRocksBeSpec.Replicas = ptr.To[int32](5)
	for _, tc := range []struct {
		name     string
		live     *appsv1.StatefulSet
		want     *appsv1.StatefulSet
		changing bool
	}{
		{"the StatefulSet as last written", written(t, base), desiredBE(t, src), false},
		{"a gate's partition is no template change", written(t, gated), desiredBE(t, src), false},
		{"an adopted StatefulSet with the same template", adopted, desiredBE(t, src), false},
		{"a scale-out is no template change", written(t, base), desiredBE(t, scaled), false},
		{"a new image is", written(t, gated), desiredBE(t, beCluster("starrocks/be-ubuntu:3.3.3")), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := templateChanging(apply.NewHashes(), tc.live, tc.want); got != tc.changing {
				t.Errorf("templateChanging = %t, want %t", got, tc.changing)
			}
		})
	}
}

func beHost(i string) string { return "sr-be-" + i + ".sr-be-search.default.svc.cluster.local" }

func report(backends []fe.Backend, unhealthy int) *feReport {
	return &feReport{Report: starrocks.Report{
		At:        time.Now(),
		Frontends: []fe.Frontend{{Host: "sr-fe-0.sr-fe-search.default.svc.cluster.local", Role: "LEADER", Alive: true}},
		Backends:  backends,
		// A warehouse's compute node is the warehouse's, not the cluster's.
		ComputeNodes: []fe.ComputeNode{{Host: "wh-warehouse-cn-0.wh-warehouse-cn-search.default.svc.cluster.local", Alive: false}},
		Statistic:    fe.Statistic{UnhealthyTablets: unhealthy},
	}}
}

func TestStarRocksHealthSaysWhatFESays(t *testing.T) {
	src := beCluster("starrocks/be-ubuntu:3.3.2")
	src.Namespace = "default"
	three := []fe.Backend{{Host: beHost("0"), Alive: true}, {Host: beHost("1"), Alive: true}, {Host: beHost("2"), Alive: true}}
	down := []fe.Backend{{Host: beHost("0"), Alive: true}, {Host: beHost("1"), Alive: false}, {Host: beHost("2"), Alive: true}}
	withCondition := src.DeepCopy()
	withCondition.Status.Conditions = []metav1.Condition{{Type: srv1.ConditionStarRocksHealthy, Status: metav1.ConditionTrue, Reason: srv1.ReasonStarRocksHealthy}}
	for _, tc := range []struct {
		name    string
		src     *srv1.StarRocksCluster
		answers bool
		rep     *feReport
		reason  string // "" for no word
		message string
	}{
		{"before FE ever had a Ready pod: nothing", src, false, nil, "", ""},
		{"FE's pods no longer Ready", withCondition, false, nil, srv1.ReasonFEUnreachable, "no FE pod is Ready"},
		{"no read yet: nothing new", src, true, nil, "", ""},
		{"FE that never answered: nothing", src, true, &feReport{Report: starrocks.Report{At: time.Now(), Err: errors.New("connection refused")}}, "", ""},
		{"FE does not answer any more", withCondition, true, &feReport{Report: starrocks.Report{At: time.Now(), Err: errors.New("connection refused")}}, srv1.ReasonFEUnreachable, "connection refused"},
		{"every node Alive, no unhealthy tablet", src, true, report(three, 0), srv1.ReasonStarRocksHealthy, ""},
		{"a BE not Alive is named by its pod", src, true, report(down, 4), srv1.ReasonNodesNotAlive, "sr-be-1"},
		{"unhealthy tablets", src, true, report(three, 4), srv1.ReasonTabletsUnhealthy, "4 unhealthy tablets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := starRocksWord(tc.src, tc.answers, tc.rep, nil)
			if tc.reason == "" {
				if w != nil {
					t.Errorf("word %+v, want none", w)
				}
				return
			}
			if w == nil || w.Reason != tc.reason || !strings.Contains(w.Message, tc.message) || w.Healthy != (tc.reason == srv1.ReasonStarRocksHealthy) {
				t.Fatalf("word %+v, want reason %s with %q", w, tc.reason, tc.message)
			}
			if tc.rep != nil && tc.rep.Err == nil {
				if w.BE.Total != 3 || w.FE.Leader != "sr-fe-0" || w.CN != nil || ptr.Deref(w.BE.UnhealthyTablets, -1) != int32(tc.rep.Statistic.UnhealthyTablets) {
					t.Errorf("figures FE %+v BE %+v CN %+v", w.FE, w.BE, w.CN)
				}
			}
		})
	}
}

func TestHealthIsReadOncePerSyncPeriodLessItsJitter(t *testing.T) {
	if got := healthEvery(2 * time.Minute); got != 96*time.Second {
		t.Errorf("healthEvery(2m) = %s", got)
	}
	if got := healthEvery(0); got != healthEvery(defaultSyncPeriod) {
		t.Errorf("healthEvery(0) = %s", got)
	}
}

// With rollout-gate if-fe-reachable, one failed read of FE does not open
// the gate: only FE failing every read for the stall timeout does, and an
// answer in between starts the count again (issue 34 item 22).
func TestIfFEReachableOpensOnlyAfterFEFailedForTheStallTimeout(t *testing.T) {
	src := beCluster("starrocks/be-ubuntu:3.3.2")
	src.Annotations = map[string]string{srv1.RolloutGateAnnotation: srv1.RolloutGateIfFEReachable, srv1.RolloutStallTimeoutAnnotation: "20ms"}
	r := newReconciler(t, &fakeAPI{}, src)
	s := &clusterScope{src: src}
	failed := &feReport{Report: starrocks.Report{At: time.Now(), Err: errors.New("connection refused")}}
	answered := &feReport{Report: starrocks.Report{At: time.Now()}}
	if r.unreachableLongEnough(s, failed) {
		t.Fatal("the first failed read opened the gate")
	}
	time.Sleep(30 * time.Millisecond)
	if !r.unreachableLongEnough(s, failed) {
		t.Fatal("FE failing for longer than the stall timeout did not open the gate")
	}
	if r.unreachableLongEnough(s, answered) || r.unreachableLongEnough(s, failed) {
		t.Error("after FE answered, a failed read opened the gate at once")
	}
	delete(src.Annotations, srv1.RolloutGateAnnotation)
	time.Sleep(30 * time.Millisecond)
	if r.unreachableLongEnough(s, failed) {
		t.Error("without the annotation the gate opened")
	}
}
