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
)

func TestTheComputeNodeCleanupIsDueOnlyAfterASettledScaleIn(t *testing.T) {
	settledAt := func(replicas int32) ComputeNodeCleanup {
		return ComputeNodeCleanup{Replicas: replicas, Running: replicas, Generation: 2, ObservedGeneration: 2}
	}
	cases := []struct {
		name  string
		in    ComputeNodeCleanup
		clean int32 // -1: not remembered
		drop  int32 // -1: no cleanup
		after time.Duration
	}{
		{"scaled out since FE was found clean: nothing stale", with(settledAt(3), func(in *ComputeNodeCleanup) { in.Checked = Checked{Replicas: 2, Known: true} }), 3, -1, 0},
		{"never scaled: nothing stale", with(settledAt(3), func(in *ComputeNodeCleanup) { in.Generation, in.ObservedGeneration = 1, 1 }), 3, -1, 0},
		{"scaled in: the removed nodes are dropped", with(settledAt(1), func(in *ComputeNodeCleanup) { in.Checked = Checked{Replicas: 3, Known: true} }), -1, 1, 0},
		{"changed before a restart: looked at once", settledAt(1), -1, 1, 0},
		{"the removed pods still run: wait for them to go", with(settledAt(1), func(in *ComputeNodeCleanup) { in.Running = 3 }), -1, -1, 0},
		{"the StatefulSet controller has not seen the scale-in yet", with(settledAt(1), func(in *ComputeNodeCleanup) { in.ObservedGeneration = 1 }), -1, -1, 0},
		{"a failed cleanup backs off", with(settledAt(1), func(in *ComputeNodeCleanup) { in.Backoff = time.Minute }), -1, -1, time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := CleanUpComputeNodes(tc.in)
			if (st.Clean == nil) != (tc.clean < 0) || (st.Clean != nil && *st.Clean != tc.clean) {
				t.Errorf("clean %v, want %d", st.Clean, tc.clean)
			}
			if (st.DropComputeNodesFrom == nil) != (tc.drop < 0) || (st.DropComputeNodesFrom != nil && *st.DropComputeNodesFrom != tc.drop) {
				t.Errorf("drop %v, want a drop from %d", st.DropComputeNodesFrom, tc.drop)
			}
			if st.After != tc.after {
				t.Errorf("after %s, want %s", st.After, tc.after)
			}
		})
	}
}

func TestARemovedCNsNodesAreDroppedOnceItsPodsAreGone(t *testing.T) {
	if st := CleanUpRemovedComputeNodes(Checked{}, 0, 0); st.DropComputeNodesFrom == nil || *st.DropComputeNodesFrom != 0 {
		t.Errorf("pods gone: %+v, want every node dropped", st)
	}
	if st := CleanUpRemovedComputeNodes(Checked{}, 1, 0); st.DropComputeNodesFrom != nil {
		t.Errorf("a pod left: %+v, want nothing yet", st)
	}
	if st := CleanUpRemovedComputeNodes(Checked{Replicas: 0, Known: true}, 0, 0); st.DropComputeNodesFrom != nil {
		t.Errorf("dropped already: %+v", st)
	}
	if st := CleanUpRemovedComputeNodes(Checked{}, 0, time.Minute); st.DropComputeNodesFrom != nil || st.After != time.Minute {
		t.Errorf("backing off: %+v", st)
	}
}
