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
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/srscale/starrocks-operator/internal/fe"
)

var cnNames = PodNames{StatefulSet: "c-cn", HeadlessService: "c-cn-search", Namespace: "ns"}

func cnNode(ord int) fe.ComputeNode {
	return fe.ComputeNode{Host: fmt.Sprintf("c-cn-%d.c-cn-search.ns.svc.cluster.local", ord), HeartbeatPort: 9050}
}

// cleanupCase is a cleanup as a case states it: the input, where FE was
// found clean (the memory) and how long a failed one still waits.
type cleanupCase struct {
	ComputeNodeCleanup
	Checked CheckedAt
	Backoff time.Duration
}

// cleaned is a cleanup planned as the executor plans it: FE's list of
// compute nodes (read now) and the StatefulSet as the API server has it
// are given when the planner asks for them.
type cleaned struct {
	st    Step[Cleanup]
	m     Cleanup
	asked Needs
}

func (c cleanupCase) plan(listed []fe.ComputeNode, live *appsv1.StatefulSet) cleaned {
	r := Reads{Waiting: c.Backoff}
	st, m := CleanUpComputeNodes(c.ComputeNodeCleanup, Cleanup{Checked: c.Checked}, r)
	var asked Needs
	for st.Needs.Minus(asked).Any() {
		asked.ComputeNodes, asked.StatefulSet = asked.ComputeNodes || st.Needs.ComputeNodes, asked.StatefulSet || st.Needs.StatefulSet
		r.Read, r.ComputeNodes, r.StatefulSet = asked, &ComputeNodesRead{At: c.Now, Nodes: listed}, live
		st, m = CleanUpComputeNodes(c.ComputeNodeCleanup, m, r)
	}
	return cleaned{st: st, m: m, asked: asked}
}

// dropped are the ordinals of the nodes the step drops.
func (c cleaned) dropped() []int {
	var out []int
	for _, s := range c.st.Statements {
		if d, ok := s.(fe.DropComputeNode); ok {
			ord, _ := cnNames.Ordinal(d.Node.Host)
			out = append(out, ord)
		}
	}
	return out
}

func TestTheComputeNodeCleanupIsDueOnlyAfterASettledScaleIn(t *testing.T) {
	settledAt := func(replicas int32) cleanupCase {
		return cleanupCase{ComputeNodeCleanup: ComputeNodeCleanup{Names: cnNames, Exists: true, UID: "u", Replicas: replicas, Running: replicas,
			Generation: 2, ObservedGeneration: 2, Every: 10 * time.Second, Now: time.Now()}}
	}
	three := []fe.ComputeNode{cnNode(0), cnNode(1), cnNode(2)}
	cases := []struct {
		name  string
		in    cleanupCase
		clean int32 // -1: not remembered
		drop  int32 // -1: no cleanup
		after time.Duration
	}{
		{"scaled out since FE was found clean: nothing stale", with(settledAt(3), func(in *cleanupCase) { in.Checked = checkedAt("u", 2) }), 3, -1, 0},
		{"never scaled: nothing stale", with(settledAt(3), func(in *cleanupCase) { in.Generation, in.ObservedGeneration = 1, 1 }), 3, -1, 0},
		{"scaled in: the removed nodes are dropped", with(settledAt(1), func(in *cleanupCase) { in.Checked = checkedAt("u", 3) }), -1, 1, 0},
		{"changed before a restart: looked at once", settledAt(1), -1, 1, 0},
		{"the removed pods still run: wait for them to go", with(settledAt(1), func(in *cleanupCase) { in.Running = 3 }), -1, -1, 0},
		{"the StatefulSet controller has not seen the scale-in yet", with(settledAt(1), func(in *cleanupCase) { in.ObservedGeneration = 1 }), -1, -1, 0},
		{"a failed cleanup backs off", with(settledAt(1), func(in *cleanupCase) { in.Backoff = time.Minute }), -1, -1, time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.plan(three, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{UID: "u"}, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(tc.in.Replicas)}})
			wantClean := tc.in.Checked
			if tc.clean >= 0 {
				wantClean = checkedAt("u", tc.clean)
			}
			var want []int
			if tc.drop >= 0 {
				wantClean = checkedAt("u", tc.drop) // once the DROPs went through
				for ord := int(tc.drop); ord < 3; ord++ {
					want = append(want, ord)
				}
			}
			if got.m.Checked != wantClean {
				t.Errorf("clean %+v, want %+v", got.m.Checked, wantClean)
			}
			if !slices.Equal(got.dropped(), want) {
				t.Errorf("dropped %v, want %v", got.dropped(), want)
			}
			if got.st.After != tc.after {
				t.Errorf("after %s, want %s", got.st.After, tc.after)
			}
		})
	}
}

func TestARemovedCNsNodesAreDroppedOnceItsPodsAreGone(t *testing.T) {
	removed := func(edit func(*cleanupCase)) cleanupCase {
		c := cleanupCase{ComputeNodeCleanup: ComputeNodeCleanup{Names: cnNames, Removed: true, UID: "u", Every: 10 * time.Second, Now: time.Now()}}
		edit(&c)
		return c
	}
	two := []fe.ComputeNode{cnNode(0), cnNode(1)}
	if got := removed(func(c *cleanupCase) { c.Exists, c.PodsLeft = true, 2 }).plan(two, nil); got.m.Removing != "u" || len(got.dropped()) > 0 {
		t.Errorf("its StatefulSet going: %+v, want it remembered, nothing dropped while its pods are there", got)
	}
	m := Cleanup{Removing: "u"}
	st, _ := CleanUpComputeNodes(removed(func(c *cleanupCase) {}).ComputeNodeCleanup, m, Reads{})
	if !st.Needs.ComputeNodes {
		t.Errorf("pods gone: %+v, want FE read", st)
	}
	c := removed(func(c *cleanupCase) {})
	r := Reads{ComputeNodes: &ComputeNodesRead{At: c.Now, Nodes: two}}
	r.Read.ComputeNodes, r.Read.StatefulSet = true, true
	if st, done := CleanUpComputeNodes(c.ComputeNodeCleanup, m, r); len(st.Statements) != 2 || done.Removing != "" {
		t.Errorf("pods gone: %+v, want every node dropped and the removal done", st)
	}
	if st, _ := CleanUpComputeNodes(removed(func(c *cleanupCase) { c.PodsLeft = 1 }).ComputeNodeCleanup, m, Reads{}); st.Needs.Any() || len(st.Statements) > 0 {
		t.Errorf("a pod left: %+v, want nothing yet", st)
	}
	if st, _ := CleanUpComputeNodes(c.ComputeNodeCleanup, Cleanup{}, Reads{}); st.Needs.Any() || len(st.Statements) > 0 {
		t.Errorf("dropped already: %+v", st)
	}
	if st, _ := CleanUpComputeNodes(c.ComputeNodeCleanup, m, Reads{Waiting: time.Minute}); len(st.Statements) > 0 || st.After != time.Minute {
		t.Errorf("backing off: %+v", st)
	}
	if got := removed(func(c *cleanupCase) { c.Listed = true }).plan(two, nil); !slices.Equal(got.dropped(), []int{0, 1}) {
		t.Errorf("gone before this process started, FE lists its nodes: dropped %v, want both", got.dropped())
	}
}

// Issue 34 item 29: a cleanup decided at one replica count from the cache
// is checked on the API server right before its DROPs. An HPA that scaled
// the StatefulSet up meanwhile has new pods registering under the
// ordinals about to be dropped: the cleanup leaves off.
func TestACleanupLeavesOffWhenTheStatefulSetChangedSinceItWasDecided(t *testing.T) {
	sts := func(uid string, replicas int32, deleting bool) *appsv1.StatefulSet {
		s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c-cn", UID: types.UID(uid)}, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)}}
		if deleting {
			s.DeletionTimestamp, s.Finalizers = &metav1.Time{Time: time.Now()}, []string{"foregroundDeletion"}
		}
		return s
	}
	for _, tc := range []struct {
		name       string
		live       *appsv1.StatefulSet // nil: not found
		want       int32
		superseded bool
	}{
		{"unchanged", sts("u1", 2, false), 2, false},
		{"scaled up by the HPA since", sts("u1", 3, false), 2, true},
		{"scaled down further since: what is above still goes", sts("u1", 1, false), 2, false},
		{"made again under the same name", sts("u2", 2, false), 2, true},
		{"gone while a scale-in cleanup was due", nil, 2, true},
		{"a removed CN spec: its StatefulSet gone", nil, 0, false},
		{"a removed CN spec: its StatefulSet going", sts("u1", 2, true), 0, false},
		{"a removed CN spec whose StatefulSet still runs", sts("u1", 2, false), 0, true},
	} {
		if got := superseded(tc.live, "u1", tc.want); got != tc.superseded {
			t.Errorf("%s: superseded %v, want %v", tc.name, got, tc.superseded)
		}
	}
	in := cleanupCase{ComputeNodeCleanup: ComputeNodeCleanup{Names: cnNames, Exists: true, UID: "u1", Replicas: 2, Running: 2, Generation: 2, ObservedGeneration: 2, Now: time.Now()}}
	if got := in.plan([]fe.ComputeNode{cnNode(0), cnNode(1), cnNode(2)}, sts("u1", 3, false)); len(got.dropped()) > 0 || got.m.Checked.Known {
		t.Errorf("scaled up since it was decided: %+v, want nothing dropped, nothing remembered clean", got)
	}
}
