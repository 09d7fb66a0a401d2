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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
)

var cluster = types.NamespacedName{Namespace: "ns", Name: "c"}

func TestTheDrainIsShownAtMostEvery30s(t *testing.T) {
	m := newScaleIns(nil)
	t0 := time.Now()
	steps := []struct {
		after time.Duration
		msg   string
		want  string
	}{
		{0, "10 left", "10 left"},
		{time.Second, "9 left", "10 left"},
		{29 * time.Second, "2 left", "10 left"},
		{30 * time.Second, "2 left", "2 left"},
		{31 * time.Second, "1 left", "2 left"},
	}
	for _, s := range steps {
		if got := m.show(cluster, resources.ComponentBE, s.msg, t0.Add(s.after)); got != s.want {
			t.Errorf("at +%s with %q the status shows %q, want %q", s.after, s.msg, got, s.want)
		}
	}
}

func TestADrainStallsWhenItsTabletCountStopsFalling(t *testing.T) {
	m := newScaleIns(nil)
	t0 := time.Now()
	if since := m.drained(cluster, resources.ComponentBE, 10, t0); !since.Equal(t0) {
		t.Errorf("first count dated %s, want %s", since, t0)
	}
	if since := m.drained(cluster, resources.ComponentBE, 10, t0.Add(time.Minute)); !since.Equal(t0) {
		t.Errorf("an unchanged count restarted the clock: %s", since)
	}
	if since := m.drained(cluster, resources.ComponentBE, 12, t0.Add(2*time.Minute)); !since.Equal(t0) {
		t.Errorf("a rising count restarted the clock: %s", since)
	}
	if since := m.drained(cluster, resources.ComponentBE, 9, t0.Add(3*time.Minute)); !since.Equal(t0.Add(3 * time.Minute)) {
		t.Errorf("a falling count did not restart the clock: %s", since)
	}
}

// FE's refusal of a BE scale-in holds until the BE spec changes: a change
// elsewhere in the cluster (a CN autoscaler's step, a Service annotation)
// bumps the generation but asks nothing new of FE.
func TestARefusalHoldsForTheComponentsSpec(t *testing.T) {
	m := newScaleIns(nil)
	src := beCluster("starrocks/be-ubuntu:3.3.2")
	src.Spec.StarRocksBeSpec.Replicas = new(int32(2))
	m.refuse(cluster, resources.ComponentBE, specKey(src, resources.ComponentBE), "needs 3 BEs")

	elsewhere := src.DeepCopy()
	elsewhere.Generation++
	elsewhere.Spec.StarRocksFeSpec.Service = &srv1.StarRocksService{Annotations: map[string]string{"a": "b"}}
	if msg, same := m.refusedAt(cluster, resources.ComponentBE, elsewhere); !same || msg != "needs 3 BEs" {
		t.Errorf("after a change to FE's Service: refusal %q for this spec %v; want it kept", msg, same)
	}
	be := src.DeepCopy()
	be.Spec.StarRocksBeSpec.Replicas = new(int32(3))
	if _, same := m.refusedAt(cluster, resources.ComponentBE, be); same {
		t.Error("after a BE spec change the refusal still holds: the scale-in is never asked again")
	}
}
