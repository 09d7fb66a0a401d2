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
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// remade is a StatefulSet of n pods made again (a claim growth's orphaning
// delete, a user's delete, an adoption) from a spec with partition 0: the
// StatefulSet controller found no currentRevision and set it to the update
// revision, "new", while the pods keep the revisions they had.
func remade(n int32, name string) *appsv1.StatefulSet {
	s := rolling(n, ptr.To[int32](0))
	s.Name = name
	s.Status.CurrentRevision = "new"
	return s
}

// Issue 50 item 22: "every pod runs the update revision" is read from the
// pods' revision labels, not from status.currentRevision.
func TestGatesReadRevisionsFromPods(t *testing.T) {
	later := t0.Add(5 * time.Second)
	leader0 := func() *Word { w := word(later, alive(3), 0); w.Leader = 0; return w }
	tests := []struct {
		name    string
		step    func() GateStep
		rolling bool
	}{
		{"BE made again mid-rollout, one pod replaced: still rolling", func() GateStep {
			s := remade(3, "c-be")
			return Partitioned(Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)})
		}, true},
		{"BE made again before any pod rolled: still rolling", func() GateStep {
			s := remade(3, "c-be")
			return Partitioned(Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)})
		}, true},
		{"control: BE whose pods all run the update revision is done", func() GateStep {
			s := remade(3, "c-be")
			return Partitioned(Gate{Live: s, Pods: pods(s, "new", "new", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)})
		}, false},
		{"control: a pod above the replicas (scaled in, going) does not count", func() GateStep {
			s := remade(2, "c-be")
			return Partitioned(Gate{Live: s, Pods: pods(s, "new", "new", "old"), Replicas: 2, Tablets: true, Word: word(later, alive(3), 0)})
		}, false},
		{"FE made again under the spec's RollingUpdate mid-rollout: still rolling", func() GateStep {
			s := remade(3, "c-fe")
			return LeaderLast(Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Word: leader0()})
		}, true},
		{"parallel rollout made again: still rolling", func() GateStep {
			s := remade(3, "c-be")
			return AllAtOnce(Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, AllAtOnce: true}, false)
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.step()
			if st.Rolling != tc.rolling {
				t.Fatalf("rolling = %v, want %v (%+v)", st.Rolling, tc.rolling, st)
			}
			if tc.rolling && !st.OnDelete && st.Partition == 0 && st.Delete == nil {
				t.Errorf("partition 0 written: the StatefulSet controller replaces the rest on readiness alone (%+v)", st)
			}
		})
	}
}

// Issues 50 items 19 and 22: a claim growth waits while a gate's rollout
// is under way, its partition not a hold.
func TestGateRolls(t *testing.T) {
	s := func(p *int32, current string) *appsv1.StatefulSet {
		st := rolling(3, p)
		st.Status.CurrentRevision = current
		return st
	}
	tests := []struct {
		name      string
		live      *appsv1.StatefulSet
		revs      []string
		own, off  bool
		gateRolls bool
	}{
		{"a gate's partition is set", s(ptr.To[int32](2), "old"), []string{"old", "old", "new"}, false, false, true},
		{"FE OnDelete while its leader goes last", s(nil, "old"), []string{"old", "new", "new"}, false, false, true},
		{"made again: currentRevision is the update revision, pods are not", s(ptr.To[int32](0), "new"), []string{"old", "old", "new"}, false, false, true},
		{"control: every pod runs the update revision", s(ptr.To[int32](0), "new"), []string{"new", "new", "new"}, false, false, false},
		{"control: the user's own partition is no gate's", s(ptr.To[int32](2), "old"), []string{"old", "old", "new"}, true, false, false},
		{"control: the gate is off", s(ptr.To[int32](0), "old"), []string{"old", "old", "new"}, false, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ps []corev1.Pod
			if tc.revs != nil {
				ps = pods(tc.live, tc.revs...)
			}
			if got := GateRolls(tc.live, ps, tc.own, tc.off); got != tc.gateRolls {
				t.Errorf("GateRolls = %v, want %v", got, tc.gateRolls)
			}
		})
	}
}
