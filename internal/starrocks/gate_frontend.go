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
	"time"

	"k8s.io/utils/ptr"

	"github.com/srscale/starrocks-operator/internal/resources"
)

// LeaderLast decides an FE rollout: the StatefulSet goes OnDelete when its
// template changes, and the operator deletes one pod at a time, each
// coming back at the update revision. A partition could not do this: the
// leader may have any ordinal, and a pod deleted below the partition comes
// back at the old revision. Pods that are not Ready go first (they serve
// nothing), once every other pod is Ready, FE lists it Alive and names a
// leader; then the followers and observers, highest ordinal first, each
// once every FE pod is Ready and FE lists them all Alive; the leader last.
func LeaderLast(g Gate) GateStep {
	live := g.Live
	if g.Changing {
		return GateStep{Rolling: true, Waiting: true,
			Message: "pod template changed; followers roll first, one at a time, the leader last"}
	}
	ownStrategy := onDelete(live)
	if live.Status.ObservedGeneration < live.Generation {
		if ownStrategy {
			return GateStep{Rolling: true, Waiting: true, Message: "waiting for the StatefulSet controller to see the last change"}
		}
		return GateStep{}
	}
	update := live.Status.UpdateRevision
	n := int(ptr.Deref(live.Spec.Replicas, 0))
	pods := byOrdinal(live, g.Pods)
	var outdated, all []int
	for i := range n {
		all = append(all, i)
		if p := pods[i]; p != nil && p.DeletionTimestamp == nil && revision(p) != update {
			outdated = append(outdated, i)
		}
	}
	if update == "" || (update == live.Status.CurrentRevision && !ownStrategy && len(outdated) == 0) {
		return GateStep{}
	}
	step := GateStep{Rolling: true, Key: fmt.Sprintf("%s/%s/%d", live.UID, update, len(outdated))}
	done := n - len(outdated)
	for _, i := range all {
		if p := pods[i]; p == nil || p.DeletionTimestamp != nil {
			step.Waiting = true
			step.Message = fmt.Sprintf("pod %d of %d (%s) being replaced", min(done+1, n), n, podName(live, i))
			return step
		}
	}
	if len(outdated) == 0 {
		// Every pod runs the update revision: back to the spec's strategy, which restarts none.
		return GateStep{}
	}
	newest := time.Time{}
	for _, i := range all {
		if revision(pods[i]) == update {
			newest = later(newest, pods[i].CreationTimestamp.Time)
		}
	}
	step.Since = newest
	slices.Reverse(outdated) // highest ordinal first
	deleting := func(i int) GateStep {
		step.Delete = pods[i]
		step.Message = fmt.Sprintf("replacing pod %d of %d (%s)", done+1, n, podName(live, i))
		return step
	}
	for _, i := range outdated {
		if resources.PodReady(pods[i]) {
			continue
		}
		// A pod that is not Ready serves nothing and goes first, but only
		// while the others keep FE's group: each Ready and Alive in FE's
		// answer, and FE names a leader (it may be this pod: the others
		// then elect one). A pod just replaced and not Ready yet, or a
		// leader FE does not name, holds it (issue 34 item 12).
		others := slices.DeleteFunc(slices.Clone(all), func(o int) bool { return o == i })
		if len(others) == 0 {
			return deleting(i) // a lone FE that is down has no group to keep
		}
		what, _, ok := settled(live, pods, others, update, g.Word, true)
		if ok && g.Word.Leader < 0 {
			what, ok = "FE to name its leader", false
		}
		if !ok {
			step.Waiting = true
			step.Message = fmt.Sprintf("%d of %d pods replaced; %s, which is not Ready, goes next, once the others allow: waiting for %s", done, n, podName(live, i), what)
			return step
		}
		return deleting(i)
	}
	if what, _, ok := settled(live, pods, all, update, g.Word, true); !ok {
		step.Waiting = true
		step.Message = fmt.Sprintf("%d of %d pods replaced; the next waits for %s", done, n, what)
		return step
	}
	if g.Word.Leader < 0 {
		// Without the leader's name any pod could be it: delete none.
		step.Waiting = true
		step.Message = fmt.Sprintf("%d of %d pods replaced; the next waits for FE to name its leader", done, n)
		return step
	}
	for _, i := range outdated {
		if i != g.Word.Leader {
			return deleting(i)
		}
	}
	return deleting(outdated[0])
}
