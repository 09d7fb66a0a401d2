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

	"github.com/srscale/starrocks-operator/internal/resources"
)

// What a gate checks of the pods and of FE's word before the next pod rolls.

// settled checks the pods of ordinals: each exists and is Ready (at the
// update revision unless any is allowed), and FE, in an answer read after
// the last of them became Ready, lists each Alive. It returns what is
// still awaited, and the latest creation of those pods.
func settled(live *appsv1.StatefulSet, pods map[int]*corev1.Pod, ordinals []int, update string, w *Word, anyRevision bool) (string, time.Time, bool) {
	var since, readyAt time.Time
	for _, i := range ordinals {
		p := pods[i]
		switch {
		case p == nil || p.DeletionTimestamp != nil:
			return podName(live, i) + " to be replaced", since, false
		case !anyRevision && revision(p) != update:
			return podName(live, i) + " to run the new revision", since, false
		}
		since = later(since, p.CreationTimestamp.Time)
		if !resources.PodReady(p) {
			return podName(live, i) + " to become Ready", since, false
		}
		readyAt = later(readyAt, resources.PodReadySince(p))
	}
	switch {
	case w == nil:
		return "FE's next answer", since, false
	case w.Err != nil:
		return "FE, which did not answer: " + w.Err.Error(), since, false
	case !readyAt.IsZero() && w.At.Before(readyAt.Add(time.Second)):
		// Ready times are kept to the second: an answer must start a full second after.
		return "FE's answer after the last pod became Ready", since, false
	}
	for _, i := range ordinals {
		if !w.Alive[i] {
			return "FE to list " + podName(live, i) + " Alive", since, false
		}
	}
	return "", since, true
}

// isDown reports whether pod p, at ordinal i, is down: not Ready, and FE
// lists it not Alive (FE lists a dead BE Alive for about 20 s, facts sheet
// §14, so a pod not Ready that FE still lists Alive may be coming back).
func isDown(p *corev1.Pod, w *Word, i int) bool {
	return p != nil && p.DeletionTimestamp == nil && !resources.PodReady(p) && !w.Alive[i]
}

// downBelow is the highest ordinal below next whose pod is down and runs
// an older revision.
func downBelow(pods map[int]*corev1.Pod, next int, update string, w *Word) (int, bool) {
	for i := next - 1; i >= 0; i-- {
		if p := pods[i]; isDown(p, w, i) && revision(p) != update {
			return i, true
		}
	}
	return 0, false
}

// fixingBelow keeps a StatefulSet OnDelete while a pod below next that it
// replaces first is gone or going: under the partition it would come back
// at the old revision.
func fixingBelow(live *appsv1.StatefulSet, pods map[int]*corev1.Pod, next int, step GateStep) (GateStep, bool) {
	if !onDelete(live) {
		return step, false
	}
	for i := range next {
		if p := pods[i]; p == nil || p.DeletionTimestamp != nil {
			step.OnDelete, step.Waiting = true, true
			step.Message = fmt.Sprintf("%s, which was down, to come back at the new revision before the next pod rolls", podName(live, i))
			return step, true
		}
	}
	return step, false
}

func onDelete(s *appsv1.StatefulSet) bool {
	return s.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType
}

// othersUp checks the pods below next: each exists, is Ready, and FE lists
// it Alive. One that is down and runs the old revision is replaced first
// (downBelow); one not Ready that FE still lists Alive may be coming back,
// and holds the rollout until it is.
func othersUp(live *appsv1.StatefulSet, pods map[int]*corev1.Pod, next int, w *Word) (string, bool) {
	for i := range next {
		p := pods[i]
		switch {
		case p == nil || p.DeletionTimestamp != nil:
			return podName(live, i) + " to come back: no healthy pod restarts while another is down", false
		case !resources.PodReady(p):
			return podName(live, i) + ", which is not Ready, to come back: no healthy pod restarts while another is down", false
		case !w.Alive[i]:
			return "FE to list " + podName(live, i) + " Alive again: no healthy pod restarts while another is down", false
		}
	}
	return "", true
}

// heardSince checks that FE's LastHeartbeat of each pod of ordinals moved
// on from its value when the pod had just become Ready (heard): FE heard
// from the pod's own process after it started. With tablets (BE) FE's
// lastSuccessReportTabletsTime must have moved on too: FE processed a
// tablet report of the new process, so what FE counts of its replicas is
// what the new process holds (issue 34 item 23).
func heardSince(live *appsv1.StatefulSet, ordinals []int, w *Word, heard map[int]Heard, tablets bool) (string, bool) {
	for _, i := range ordinals {
		before, ok := heard[i]
		if !ok {
			return "FE's first answer after " + podName(live, i) + " became Ready", false
		}
		now, listed := w.Heard[i]
		switch {
		case !listed || now.Heartbeat == before.Heartbeat:
			return "a heartbeat from " + podName(live, i) + "'s new process", false
		case tablets && before.Reports && now.Tablets == before.Tablets:
			return "FE to process a tablet report of " + podName(live, i) + "'s new process (every report_tablet_interval_seconds, 60 s by default): until then FE counts the replicas it held before, even on empty storage", false
		}
	}
	return "", true
}
