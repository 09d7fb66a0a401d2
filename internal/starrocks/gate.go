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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/srscale/starrocks-operator/internal/resources"
)

// Gated rollouts: a pod template change replaces one pod at a time, and the
// next only once StarRocks says the last one is back. Kubernetes' own
// readiness says nothing of that: a BE that is Ready may still be catching up
// on its tablets, and restarting the next one then leaves tablets with too
// few healthy replicas.
//
// Everything here is decided from what the API server and FE show now (the
// StatefulSet's revisions and partition, the pods' revision labels and
// readiness, FE's answer): an operator restarted in the middle of a
// rollout takes it up where it is.

// Word is FE's answer as a gate reads it, for the pods of one StatefulSet.
type Word struct {
	// At is when the read started. An answer counts for a pod only when it
	// was read after the pod became Ready: one read before says nothing of
	// the new process.
	At time.Time
	// Err is why FE did not answer; the rest is then empty.
	Err error
	// Alive is FE's Alive column by pod ordinal, for the rows whose host
	// is one of the StatefulSet's pods; a pod FE does not list is absent.
	Alive map[int]bool
	// Leader is the ordinal of the FE pod that leads (Role=LEADER); -1 when
	// no row of these pods leads.
	Leader int
	// Unhealthy is UnhealthyTabletNum of the Total row of SHOW PROC '/statistic'.
	Unhealthy int
	// TabletsErr is why FE did not count its tablets; Unhealthy is then 0
	// and says nothing.
	TabletsErr error
	// Heard is what FE last heard of each BE or CN row, by pod ordinal.
	Heard map[int]Heard
}

// Heard is what FE last heard of one BE or CN: times as strings to the
// second in FE's zone (facts sheet §3), compared only with FE's own
// earlier values, never with the kubelet's clock.
type Heard struct {
	// Heartbeat is LastHeartbeat: FE's last good heartbeat to the node.
	Heartbeat string
	// Tablets is lastSuccessReportTabletsTime (BE): when FE last processed
	// the BE's tablet report. Until a restarted BE's first report, FE
	// believes it holds every replica it held before, even on empty
	// storage (report_tablet_interval_seconds, 60 s; facts sheet §14).
	// Reports is false when FE shows no such field.
	Tablets string
	Reports bool
}

// Gate is one StatefulSet whose pod template changes roll one pod at a time.
type Gate struct {
	Live *appsv1.StatefulSet
	// Pods are Live's pods, in any order; pods of other names are ignored.
	Pods []corev1.Pod
	// Changing is true when the write about to be made changes the pod
	// template: it is written so that no pod rolls yet.
	Changing bool
	// Replicas is the desired number of pods.
	Replicas int32
	// Word is FE's latest answer newer than the operator's last change of
	// FE's topology; nil when there is none yet.
	Word *Word
	// Tablets gates each step on FE counting no unhealthy tablet too (BE,
	// HoldsTablets). Without it the gate is the pod's node Alive.
	Tablets bool
	// Heard is, by ordinal, FE's LastHeartbeat of the pod now at that
	// ordinal in FE's first answer read after it became Ready (BE, CN;
	// Baselines records them). A replaced pod counts only once FE's
	// LastHeartbeat has moved on from it: a good heartbeat after the pod
	// was Ready, which only its new process can have answered. FE lists a
	// dead BE Alive for about 20 s (facts sheet §14), so Alive alone may be
	// the old process's. With Tablets, FE must have processed a tablet
	// report of the new process too (its lastSuccessReportTabletsTime
	// moved on): until then a BE restarted on empty storage counts healthy
	// replicas it no longer has. HeardSince keeps them.
	Heard map[int]Heard
	// AllAtOnce replaces every pod at once (a parallel rollout the user
	// confirmed, ChooseParallel) instead of one at a time.
	AllAtOnce bool
}

// HeardSince keeps, per pod (by UID), FE's LastHeartbeat of it in FE's
// first answer read a full second after the pod became Ready: what a
// replaced pod's new process must move FE's LastHeartbeat on from (Gate's
// Heard). known is what was kept before; keep is the new memory (pods no
// longer there are dropped), and byOrdinal the values of the pods there
// now. It decides nothing on the kubelet's clock beyond the Ready time,
// kept to the second, and compares FE's strings only with FE's own.
func HeardSince(live *appsv1.StatefulSet, pods []corev1.Pod, w *Word, known map[types.UID]Heard) (keep map[types.UID]Heard, byOrd map[int]Heard) {
	keep, byOrd = map[types.UID]Heard{}, map[int]Heard{}
	for ord, p := range byOrdinal(live, pods) {
		heard, ok := known[p.UID]
		if !ok && w != nil && w.Err == nil && p.DeletionTimestamp == nil && resources.PodReady(p) && !w.At.Before(resources.PodReadySince(p).Add(time.Second)) {
			heard, ok = w.Heard[ord]
		}
		if ok {
			keep[p.UID], byOrd[ord] = heard, heard
		}
	}
	return keep, byOrd
}

// GateStep is what a gate decides for now.
type GateStep struct {
	// Rolling is true while a gated rollout runs: the StatefulSet is
	// written with Partition (BE, CN) or OnDelete (FE). False leaves the
	// strategy the spec builds, which restarts no pod: every pod already
	// runs the update revision, or none is to roll.
	Rolling bool
	// Partition is the lowest ordinal that may run the update revision
	// (BE, CN).
	Partition int32
	// OnDelete is true when a BE or CN StatefulSet goes OnDelete for a
	// while (FE's always does while it rolls): a pod down below the next
	// one is replaced first, and only OnDelete brings it back at the
	// update revision. Partition is then the one to go back to.
	OnDelete bool
	// Delete is the pod to delete now, so that it comes back at the
	// update revision; nil when none.
	Delete *corev1.Pod
	// Replace are the pods deleted now, all at once (AllAtOnce): each
	// comes back at the update revision.
	Replace []*corev1.Pod
	// Waiting is true when the next step waits for something; Message says what.
	Waiting bool
	// Message says where the rollout is: which pod of how many, and what it waits for.
	Message string
	// Since is when the step waited on began, as far as the pods tell (the
	// last replaced pod's creation); zero when they do not.
	Since time.Time
	// Key names the step waited on, for the caller to remember since when
	// it waits where the pods cannot tell.
	Key string
}

// HoldsTablets reports whether component c's pods hold tablet replicas, so
// that its rollout also waits for FE to count every tablet healthy: BE
// only. A CN holds none, in either run mode (shared-nothing CNs compute
// only; shared-data tablets live in object storage), and a BE
// decommission keeps UnhealthyTabletNum above 0 for its whole length
// (facts sheet §14): a CN rollout waiting on it would wait as long.
func HoldsTablets(c resources.Component) bool { return c == resources.ComponentBE }

// Partitioned decides a BE or CN rollout through the StatefulSet's
// partition: set to the number of pods when the template changes, so that
// none rolls, then lowered one ordinal at a time, highest first, each time
// the pods above it run the new revision, are Ready, and FE lists them
// Alive (and, with Tablets, counts no unhealthy tablet).
func Partitioned(g Gate) GateStep {
	live := g.Live
	replicas := min(ptr.Deref(live.Spec.Replicas, 0), g.Replicas)
	if g.Changing {
		return GateStep{Rolling: true, Partition: replicas, Waiting: true,
			Message: fmt.Sprintf("pod template changed; pod 1 of %d (%s) rolls once StarRocks allows", replicas, podName(live, int(replicas)-1))}
	}
	if live.Status.ObservedGeneration < live.Generation {
		// The revisions are the previous spec's: never lower the partition on them.
		if p := partition(live); p > 0 || onDelete(live) {
			return GateStep{Rolling: true, Partition: p, OnDelete: onDelete(live), Waiting: true, Message: "waiting for the StatefulSet controller to see the last change"}
		}
		return GateStep{}
	}
	update := live.Status.UpdateRevision
	if update == "" || (update == live.Status.CurrentRevision && !PodsBehind(live, g.Pods)) {
		return GateStep{}
	}
	n := int(ptr.Deref(live.Spec.Replicas, 0))
	pods := byOrdinal(live, g.Pods)
	// The pods at and above cursor run the update revision or are being
	// replaced. It is the live partition, or lower when the controller rolls
	// on its own (a partition of 0 written before the operator took over).
	cursor := n
	for cursor > 0 {
		p := pods[cursor-1]
		if p != nil && p.DeletionTimestamp == nil && revision(p) != update {
			break
		}
		cursor--
	}
	cursor = min(max(cursor, int(partition(live))), n)
	step := GateStep{Rolling: true, Partition: int32(cursor), Key: fmt.Sprintf("%s/%s/%d", live.UID, update, cursor)}
	if cursor == 0 {
		// Every pod runs the update revision or is on its way: the controller finishes.
		step.Message = fmt.Sprintf("pod %d of %d (%s) replaced last", n, n, podName(live, 0))
		return step
	}
	next := cursor - 1
	waitFor := func(what string) GateStep {
		step.Waiting = true
		if cursor == n {
			step.Message = fmt.Sprintf("pod 1 of %d (%s) waits for %s", n, podName(live, next), what)
		} else {
			step.Message = fmt.Sprintf("%d of %d pods replaced; pod %d (%s) waits for %s", n-cursor, n, n-cursor+1, podName(live, next), what)
		}
		return step
	}
	if st, ok := fixingBelow(live, pods, next, step); ok {
		return st
	}
	// The pods replaced: those at and above the cursor, and any below
	// that got the update revision first (fixingBelow).
	replaced := make([]int, 0, n-cursor)
	for i := range n {
		if p := pods[i]; i >= cursor || (p != nil && revision(p) == update) {
			replaced = append(replaced, i)
		}
	}
	what, since, ok := settled(live, pods, replaced, update, g.Word, false)
	step.Since = since
	if !ok {
		return waitFor(what)
	}
	if what, ok := heardSince(live, replaced, g.Word, g.Heard, g.Tablets); !ok {
		return waitFor(what)
	}
	// A next pod that is down already can lose no replica more: its own
	// replicas are the unhealthy ones, and waiting on them would keep the
	// fix of a crashing pod from ever rolling.
	down := isDown(pods[next], g.Word, next)
	if !down {
		if i, ok := downBelow(pods, next, update, g.Word); ok {
			// A pod below the next is down, and a partition cannot roll it
			// alone: the StatefulSet goes OnDelete, the pod is deleted and
			// comes back at the update revision, which may carry its fix.
			// It can lose nothing more, and no healthy pod restarts
			// meanwhile (issue 34 item 21).
			step.OnDelete = true
			if !onDelete(live) {
				step.Message = fmt.Sprintf("%s is down: it gets the new revision first (the StatefulSet goes OnDelete meanwhile); no healthy pod restarts while it is down", podName(live, i))
				return step
			}
			step.Delete = pods[i]
			step.Message = fmt.Sprintf("replacing %s first, which is down; no healthy pod restarts while it is down", podName(live, i))
			return step
		}
		// No healthy pod restarts while another is down. FE counts a dead
		// BE's replicas healthy for 900 s and lists it Alive for about 20 s
		// (facts sheet §14): its tablet count says nothing of a BE that
		// just crashed, so the pods below must be Ready and Alive too.
		if what, ok := othersUp(live, pods, next, g.Word); !ok {
			return waitFor(what)
		}
	}
	if g.Tablets && !down {
		switch {
		case g.Word.TabletsErr != nil:
			return waitFor("FE's count of unhealthy tablets, which FE did not give: " + g.Word.TabletsErr.Error())
		case g.Word.Unhealthy > 0:
			return waitFor("FE to report every tablet healthy")
		}
	}
	step.Partition = int32(next)
	step.Message = fmt.Sprintf("replacing pod %d of %d (%s)", n-next, n, podName(live, next))
	return step
}

// PodsBehind reports whether a pod of live (an ordinal below its replicas,
// not being deleted) carries another revision label than live's update
// revision: a rollout is under way, whatever status.currentRevision says.
// A StatefulSet made again (a claim growth, a user's orphaning delete, an
// adoption) starts with no currentRevision, and the StatefulSet controller
// sets it to the update revision at once while the pods still run the old
// one (issue 50 item 22); read alone, it would let the rest roll ungated.
func PodsBehind(live *appsv1.StatefulSet, pods []corev1.Pod) bool {
	update := live.Status.UpdateRevision
	if update == "" {
		return false
	}
	n := int(ptr.Deref(live.Spec.Replicas, 0))
	for i, p := range byOrdinal(live, pods) {
		if i < n && p.DeletionTimestamp == nil && revision(p) != update {
			return true
		}
	}
	return false
}

// GateRolls reports whether a rollout a gate drives is under way on live:
// its strategy is one a gate sets (a partition above 0, or OnDelete), or a
// pod runs another revision than the update revision (PodsBehind). own is
// true when the strategy is the user's (UserStrategy of the spec) and off
// when the cluster's gate is off: neither is a gate's rollout. A claim
// growth deletes and makes again the StatefulSet, which drops the gate's
// partition: it waits while this holds (issue 50 items 19 and 22).
func GateRolls(live *appsv1.StatefulSet, pods []corev1.Pod, own, off bool) bool {
	if live == nil || own || off {
		return false
	}
	u := live.Spec.UpdateStrategy
	if onDelete(live) || (u.RollingUpdate != nil && ptr.Deref(u.RollingUpdate.Partition, 0) > 0) {
		return true
	}
	return PodsBehind(live, pods)
}

// Stalled reports whether a step that began at since has waited longer than after.
func Stalled(since, now time.Time, after time.Duration) bool {
	return after > 0 && !since.IsZero() && now.Sub(since) > after
}

// UserStrategy reports whether a component's updateStrategy is the user's
// own, which the operator leaves alone: OnDelete, or a partition above 0.
// RollingUpdate with no partition or partition 0 is what the operator (and
// the upstream) builds by default, so gating it is no change to what the
// user asked.
func UserStrategy(s *appsv1.StatefulSetUpdateStrategy) bool {
	if s == nil {
		return false
	}
	if s.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return true
	}
	return s.RollingUpdate != nil && ptr.Deref(s.RollingUpdate.Partition, 0) > 0
}

// WithPartition returns the RollingUpdate strategy s with partition p,
// keeping its maxUnavailable.
func WithPartition(s appsv1.StatefulSetUpdateStrategy, p int32) appsv1.StatefulSetUpdateStrategy {
	out := appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To(p)}}
	if s.RollingUpdate != nil {
		out.RollingUpdate.MaxUnavailable = s.RollingUpdate.MaxUnavailable
	}
	return out
}

func partition(s *appsv1.StatefulSet) int32 {
	u := s.Spec.UpdateStrategy
	if u.Type == appsv1.OnDeleteStatefulSetStrategyType || u.RollingUpdate == nil {
		return 0
	}
	return ptr.Deref(u.RollingUpdate.Partition, 0)
}

// byOrdinal indexes the pods of s by ordinal.
func byOrdinal(s *appsv1.StatefulSet, pods []corev1.Pod) map[int]*corev1.Pod {
	out := map[int]*corev1.Pod{}
	for i := range pods {
		if n, ok := resources.PodOrdinal(s.Name, pods[i].Name); ok {
			out[n] = &pods[i]
		}
	}
	return out
}

func podName(s *appsv1.StatefulSet, ordinal int) string { return resources.PodName(s.Name, ordinal) }

func revision(p *corev1.Pod) string { return p.Labels[appsv1.StatefulSetRevisionLabel] }

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
