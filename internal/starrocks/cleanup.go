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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/srscale/starrocks-operator/internal/fe"
)

// ComputeNodeCleanup is what the cleanup of one CN StatefulSet's compute
// nodes is decided on: FE would otherwise keep the nodes a scale-in
// removed registered for ever, where queries still try them now and then
// (upstream issue #775), in either mode: CN holds no data.
type ComputeNodeCleanup struct {
	// Names names the StatefulSet's pods as FE lists them.
	Names PodNames
	// Exists is true while the CN StatefulSet is there; UID, Replicas
	// (spec.replicas), Running (status.replicas), Generation and
	// ObservedGeneration are its. Without it, UID names the CN the spec
	// removed.
	Exists                         bool
	UID                            types.UID
	Replicas, Running              int32
	Generation, ObservedGeneration int64
	// Removed is true when the spec has no CN any more; Held while its
	// removal waits for the user's consent. Once its pods are gone
	// (PodsLeft counts those still there), none of its nodes may stay
	// registered.
	Removed, Held bool
	PodsLeft      int
	// Listed is true when FE's last word lists a compute node under the
	// name of one of the StatefulSet's pods.
	Listed bool
	// Every is how soon FE's report is read again.
	Every time.Duration
	Now   time.Time
}

// Cleanup is the compute-node cleanup's memory of one cluster or warehouse.
type Cleanup struct {
	// Checked is where FE was last found with no stale compute node.
	Checked CheckedAt
	// Removing is the CN StatefulSet (by UID) of a removed CN spec whose
	// nodes FE may still list; "" when none.
	Removing types.UID
	// Due is since when a cleanup is due: only FE's report read after
	// counts, one read before may not list the nodes to drop.
	Due time.Time
}

// CleanUpComputeNodes decides the cleanup of the compute nodes a scale-in
// removed: only after a scale-in (Checked), once the removed pods are gone
// (their StatefulSet's status change brings the reconcile back), and not
// while a failed one backs off. A CN spec removed has every node dropped
// once its pods are gone. FE's list of compute nodes is read off the
// reconcile workers, and the StatefulSet from the API server, right before
// the DROPs.
func CleanUpComputeNodes(in ComputeNodeCleanup, m Cleanup, r Reads) (Step[Cleanup], Cleanup) {
	if in.Removed {
		return in.removed(m, r)
	}
	m.Removing = ""
	if !in.Exists {
		return Step[Cleanup]{}, m
	}
	want := in.Replicas
	switch {
	case m.Checked.Of(in.UID).Covers(want, in.Generation):
		m.Checked, m.Due = checkedAt(in.UID, want), time.Time{}
		return Step[Cleanup]{}, m // scaled out, unchanged, or never scaled: nothing can be stale
	case in.ObservedGeneration < in.Generation || in.Running != want:
		return Step[Cleanup]{}, m
	case r.Waiting > 0:
		return Step[Cleanup]{After: r.Waiting}, m
	}
	return in.drop(m, in.UID, want, r)
}

// removed decides the cleanup of the compute nodes of a CN StatefulSet
// whose spec was removed: all of them, once its pods are gone. The
// StatefulSet is remembered as it last ran while the user's consent lets
// it go; one gone before this process started is found on FE's word.
func (in ComputeNodeCleanup) removed(m Cleanup, r Reads) (Step[Cleanup], Cleanup) {
	switch {
	case in.Exists && !in.Held:
		m.Removing = in.UID
	case !in.Exists && m.Removing == "" && in.Listed && in.PodsLeft == 0:
		// FE lists compute nodes of a CN this cluster no longer runs: a
		// removal an earlier operator process saw through but did not
		// clean up (issue 34 item 29).
		m.Removing = in.UID
	}
	switch {
	case m.Removing == "", in.PodsLeft > 0:
		return Step[Cleanup]{}, m // their deletions bring the reconcile back
	case r.Waiting > 0:
		return Step[Cleanup]{After: r.Waiting}, m
	}
	return in.drop(m, m.Removing, 0, r)
}

// drop drops the nodes FE lists at or above ordinal want, on FE's list of
// compute nodes read since the cleanup became due, once the API server confirms that the
// StatefulSet still runs at most want replicas under the same UID (or, for
// want 0, is gone or going): an HPA may have scaled it up since the cache
// showed it, and the new pods register under the ordinals about to be
// dropped (issue 34 item 29). Then the cleanup leaves off, and the next
// reconcile decides again.
func (in ComputeNodeCleanup) drop(m Cleanup, uid types.UID, want int32, r Reads) (Step[Cleanup], Cleanup) {
	if m.Due.IsZero() {
		m.Due = in.Now
	}
	if !r.Read.ComputeNodes {
		return Step[Cleanup]{Needs: Needs{ComputeNodes: true, Since: m.Due}}, m
	}
	nodes, failed := r.ComputeNodes, m
	failed.Due = time.Time{} // the next try reads FE again
	switch {
	case nodes == nil:
		return Step[Cleanup]{After: max(in.Every/10, MinLookAgain)}, m // FE is read off the workers: look again soon
	case nodes.Err != nil:
		return Step[Cleanup]{BackOff: true, Log: &Log{Message: "CN cleanup failed; will retry", KeysAndValues: []any{"error", nodes.Err.Error()}}}, failed
	case !r.Read.StatefulSet:
		return Step[Cleanup]{Needs: Needs{StatefulSet: true}}, m
	case r.StatefulSetErr != nil:
		return Step[Cleanup]{BackOff: true, Log: &Log{Message: "CN cleanup failed; will retry", KeysAndValues: []any{"error", r.StatefulSetErr.Error()}}}, failed
	case superseded(r.StatefulSet, uid, want):
		return Step[Cleanup]{Log: &Log{Message: "CN cleanup left off: the StatefulSet changed since it was decided", KeysAndValues: []any{"replicas", want}}}, failed
	}
	done := failed
	if want == 0 {
		done.Removing = ""
	} else {
		done.Checked = checkedAt(uid, want)
	}
	stale := in.Names.StaleComputeNodes(nodes.Nodes, want)
	if len(stale) == 0 {
		return Step[Cleanup]{}, done
	}
	hosts := make([]string, len(stale))
	st := Step[Cleanup]{}
	for i, n := range stale {
		st.Statements = append(st.Statements, fe.DropComputeNode{Node: n})
		hosts[i] = n.Host
	}
	st.Log = &Log{Message: "dropped compute nodes removed by scale-in from FE", KeysAndValues: []any{"nodes", strings.Join(hosts, ", ")}}
	st.Events = []Event{{Reason: "ComputeNodesDropped", Action: "DropComputeNode", Note: "dropped from FE the compute nodes removed by scale-in: " + strings.Join(hosts, ", ")}}
	st.Failed = func(err error) (Step[Cleanup], Cleanup) {
		return Step[Cleanup]{BackOff: true, Log: &Log{Message: "CN cleanup failed; will retry", KeysAndValues: []any{"error", err.Error()}}}, failed
	}
	return st, done
}

// superseded is true when live, the StatefulSet as the API server has it
// now (nil: gone), is no longer what a cleanup of uid at want replicas was
// decided on: made again, scaled up since, or, for a removed CN (want 0),
// still running.
func superseded(live *appsv1.StatefulSet, uid types.UID, want int32) bool {
	if live == nil {
		return want > 0
	}
	return live.UID != uid || ptr.Deref(live.Spec.Replicas, 1) > want && (want > 0 || live.DeletionTimestamp == nil)
}
