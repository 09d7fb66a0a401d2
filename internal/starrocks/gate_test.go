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
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/srscale/starrocks-operator/internal/resources"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// rolling is a StatefulSet of n pods whose controller has seen its spec,
// rolling from revision "old" to "new" with partition p (nil: OnDelete).
func rolling(n int32, p *int32) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "c-be", UID: "u1", Generation: 2},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(n), UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}},
		Status:     appsv1.StatefulSetStatus{ObservedGeneration: 2, CurrentRevision: "old", UpdateRevision: "new"},
	}
	if p != nil {
		s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: p}}
	}
	return s
}

// pod is pod i of s at revision rev, Ready since readyAt (zero: not Ready).
func pod(s *appsv1.StatefulSet, i int, rev string, readyAt time.Time) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", s.Name, i), Labels: map[string]string{appsv1.StatefulSetRevisionLabel: rev},
		CreationTimestamp: metav1.NewTime(readyAt.Add(-time.Second))}}
	status := corev1.ConditionFalse
	if !readyAt.IsZero() {
		status = corev1.ConditionTrue
	} else {
		p.CreationTimestamp = metav1.NewTime(t0)
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.NewTime(readyAt)}}
	return p
}

// pods makes pods 0..len(revs)-1 Ready at t0 with the revisions given.
func pods(s *appsv1.StatefulSet, revs ...string) []corev1.Pod {
	out := make([]corev1.Pod, len(revs))
	for i, r := range revs {
		out[i] = pod(s, i, r, t0)
	}
	return out
}

func alive(n int, except ...int) map[int]bool {
	m := map[int]bool{}
	for i := range n {
		m[i] = true
	}
	for _, e := range except {
		m[e] = false
	}
	return m
}

// word is FE's answer read at at; FE heard from every node it lists, and
// processed its tablet report, at "12:00:05", later than the baselines of
// heardBefore.
func word(at time.Time, a map[int]bool, unhealthy int) *Word {
	heard := map[int]Heard{}
	for i := range a {
		heard[i] = Heard{Heartbeat: "2026-01-01 12:00:05", Tablets: "2026-01-01 12:00:05", Reports: true}
	}
	return &Word{At: at, Alive: a, Leader: -1, Unhealthy: unhealthy, Heard: heard}
}

// heardBefore is what FE had heard of n pods in its first answer after each became Ready.
func heardBefore(n int) map[int]Heard {
	m := map[int]Heard{}
	for i := range n {
		m[i] = Heard{Heartbeat: "2026-01-01 12:00:01", Tablets: "2026-01-01 11:59:30", Reports: true}
	}
	return m
}

func TestPartitioned(t *testing.T) {
	later := t0.Add(5 * time.Second)
	tests := []struct {
		name      string
		gate      func() Gate
		rolling   bool
		partition int32
		waiting   string // part of the message when waiting; "" when the step moves
	}{
		{"a template change is written with partition = replicas: no pod rolls yet", func() Gate {
			s := rolling(3, ptr.To[int32](0))
			s.Status.UpdateRevision = "old"
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Changing: true, Replicas: 3, Tablets: true}
		}, true, 3, "pod 1 of 3 (c-be-2) rolls once StarRocks allows"},
		{"a template change with a scale-out lets the new pods start at the new revision", func() Gate {
			s := rolling(3, ptr.To[int32](0))
			return Gate{Live: s, Changing: true, Replicas: 5, Tablets: true}
		}, true, 3, "pod 1 of 3"},
		{"the first pod waits for FE's first answer", func() Gate {
			s := rolling(3, ptr.To[int32](3))
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true}
		}, true, 3, "pod 1 of 3 (c-be-2) waits for FE's next answer"},
		{"the first pod waits for every tablet healthy", func() Gate {
			s := rolling(3, ptr.To[int32](3))
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 4)}
		}, true, 3, "every tablet healthy"},
		// Issue 34 item 25: a slow '/statistic' leaves FE's nodes read and
		// the count missing; 0 then says nothing.
		{"the first pod waits when FE listed its nodes but did not count its tablets", func() Gate {
			s := rolling(3, ptr.To[int32](3))
			w := word(later, alive(3), 0)
			w.TabletsErr = errors.New("SHOW PROC '/statistic': i/o timeout")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: w}
		}, true, 3, "FE's count of unhealthy tablets, which FE did not give: SHOW PROC '/statistic': i/o timeout"},
		{"the first pod rolls, highest ordinal first, when every tablet is healthy", func() Gate {
			s := rolling(3, ptr.To[int32](3))
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, true, 2, ""},
		{"a replaced pod that is not Ready holds the next", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			ps := pods(s, "old", "old", "new")
			ps[2] = pod(s, 2, "new", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, true, 2, "c-be-2 to become Ready"},
		{"a replaced pod still terminating holds the next", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			ps := pods(s, "old", "old", "old")
			ps[2].DeletionTimestamp = ptr.To(metav1.NewTime(t0))
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, true, 2, "c-be-2 to be replaced"},
		{"an answer read before the replaced pod became Ready counts for nothing", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(t0.Add(500*time.Millisecond), alive(3), 0)}
		}, true, 2, "FE's answer after the last pod became Ready"},
		{"the replaced BE must be Alive in FE", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3, 2), 0)}
		}, true, 2, "FE to list c-be-2 Alive"},
		{"FE not answering holds the next pod", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: &Word{At: later, Err: errors.New("connection refused")}}
		}, true, 2, "did not answer: connection refused"},
		{"tablets catching up hold the next BE", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 7)}
		}, true, 2, "2 (c-be-1) waits for FE to report every tablet healthy"},
		{"a CN without the tablet gate moves on Alive alone", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			s.Name = "c-cn"
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Word: word(later, alive(3), 7)}
		}, true, 1, ""},
		{"the next BE moves when Alive and every tablet is healthy", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, true, 1, ""},
		{"a next pod that is down already rolls despite its unhealthy tablets", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			ps := pods(s, "old", "old", "new")
			ps[1] = pod(s, 1, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3, 1), 7)}
		}, true, 1, ""},
		// Issue 34 item 20: FE counts a dead BE's replicas healthy for 900 s
		// and lists it Alive for about 20 s (facts sheet §14).
		{"a lower pod that crashed holds the next even while FE counts every tablet healthy and lists it Alive", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			ps := pods(s, "old", "old", "new")
			ps[0] = pod(s, 0, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, true, 2, "c-be-0, which is not Ready, to come back"},
		{"a lower pod FE lists dead holds the next even while Ready and every tablet healthy", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3, 0), 0)}
		}, true, 2, "FE to list c-be-0 Alive again"},
		{"a lower pod being replaced holds the next", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			ps := pods(s, "old", "old", "new")
			ps[0].DeletionTimestamp = ptr.To(metav1.NewTime(t0))
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, true, 2, "c-be-0 to come back"},
		{"a lower CN down holds the next CN too", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			s.Name = "c-cn"
			ps := pods(s, "old", "old", "new")
			ps[0] = pod(s, 0, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: word(later, alive(3), 0)}
		}, true, 2, "c-cn-0, which is not Ready"},
		{"a next pod down rolls even while a lower one is down: it can lose nothing more", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			ps := pods(s, "old", "old", "new")
			ps[0] = pod(s, 0, "old", time.Time{})
			ps[1] = pod(s, 1, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3, 0, 1), 7)}
		}, true, 1, ""},
		{"a controller rolling on its own (partition 0) is caught where it is", func() Gate {
			s := rolling(3, ptr.To[int32](0))
			ps := pods(s, "old", "old", "new")
			ps[2] = pod(s, 2, "new", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, true, 2, "c-be-2 to become Ready"},
		{"revisions the controller has not updated yet never lower the partition", func() Gate {
			s := rolling(3, ptr.To[int32](3))
			s.Status.ObservedGeneration = 1
			s.Status.UpdateRevision = "old"
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, true, 3, "StatefulSet controller"},
		{"the last pod replaced: the spec's partition 0, the controller finishes", func() Gate {
			s := rolling(3, ptr.To[int32](0))
			return Gate{Live: s, Pods: pods(s, "new", "new", "new"), Replicas: 3, Tablets: true}
		}, true, 0, ""},
		{"a finished rollout is no rollout: the spec's strategy", func() Gate {
			s := rolling(3, ptr.To[int32](0))
			s.Status.CurrentRevision = "new"
			return Gate{Live: s, Pods: pods(s, "new", "new", "new"), Replicas: 3, Tablets: true}
		}, false, 0, ""},
		// FE lists a dead BE Alive for about 20 s (facts sheet §14): Alive in
		// an answer after the new pod became Ready may be the old process's.
		{"a replaced pod FE lists Alive but has not heard from since it became Ready holds the next", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			w := word(later, alive(3), 0)
			heard := heardBefore(3)
			heard[2] = w.Heard[2] // FE's LastHeartbeat of c-be-2 has not moved since
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: w, Heard: heard}
		}, true, 2, "a heartbeat from c-be-2's new process"},
		// Issue 34 item 23: a BE restarted on empty storage is believed to
		// hold its replicas until FE processes its next tablet report
		// (facts sheet §14): a heartbeat is not enough.
		{"a replaced BE FE heard from but whose tablet report FE has not processed since it became Ready holds the next", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			w := word(later, alive(3), 0)
			heard := heardBefore(3)
			h := w.Heard[2]
			h.Tablets = heard[2].Tablets // lastSuccessReportTabletsTime of c-be-2 has not moved since
			w.Heard[2] = h
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: w, Heard: heard}
		}, true, 2, "FE to process a tablet report of c-be-2's new process"},
		{"a CN (no tablets) goes on the heartbeat alone", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			w := word(later, alive(3), 0)
			heard := heardBefore(3)
			h := w.Heard[2]
			h.Tablets = heard[2].Tablets
			w.Heard[2] = h
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Word: w, Heard: heard}
		}, true, 1, ""},
		{"an FE that shows no tablet report time: the heartbeat alone, as before", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			w := word(later, alive(3), 0)
			heard := heardBefore(3)
			heard[2] = Heard{Heartbeat: heard[2].Heartbeat}
			w.Heard[2] = Heard{Heartbeat: w.Heard[2].Heartbeat}
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: w, Heard: heard}
		}, true, 1, ""},
		{"a replaced pod with no answer yet since it became Ready holds the next", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			heard := heardBefore(3)
			delete(heard, 2)
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0), Heard: heard}
		}, true, 2, "FE's first answer after c-be-2 became Ready"},
		{"a replaced pod FE no longer lists holds the next", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			w := word(later, alive(3), 0)
			delete(w.Heard, 2)
			return Gate{Live: s, Pods: pods(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: w, Heard: heardBefore(3)}
		}, true, 2, "a heartbeat from c-be-2's new process"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.gate()
			if g.Heard == nil {
				// Cases not about it: FE heard from every pod since it was Ready.
				g.Heard = heardBefore(3)
			}
			got := Partitioned(g)
			if got.Rolling != tc.rolling || got.Partition != tc.partition {
				t.Errorf("rolling %t partition %d, want %t %d (%s)", got.Rolling, got.Partition, tc.rolling, tc.partition, got.Message)
			}
			if tc.waiting == "" && got.Waiting {
				t.Errorf("waits: %s", got.Message)
			}
			if tc.waiting != "" && (!got.Waiting || !strings.Contains(got.Message, tc.waiting)) {
				t.Errorf("message %q (waiting %t), want it to wait for %q", got.Message, got.Waiting, tc.waiting)
			}
		})
	}
}

// Issue 34 item 21: a pod down below the next one (not Ready, and FE lists
// it dead) holds every healthy pod, and a partition cannot roll it alone: a
// pod deleted below the partition comes back at the old revision. The
// StatefulSet goes OnDelete, the down pod is deleted and comes back at the
// update revision (which may be its fix), then the partition is back.
func TestPartitionedGivesAPodDownBelowTheNextItsFixFirst(t *testing.T) {
	later := t0.Add(5 * time.Second)
	downAt0 := func(s *appsv1.StatefulSet, revs ...string) []corev1.Pod {
		ps := pods(s, revs...)
		ps[0] = pod(s, 0, revs[0], time.Time{})
		return ps
	}
	tests := []struct {
		name      string
		gate      func() Gate
		onDelete  bool
		partition int32
		deletes   string // the pod deleted; "" when none
		waiting   string // part of the message when waiting; "" when the step moves
	}{
		{"a pod down below the next, FE listing it dead: the StatefulSet goes OnDelete first, no pod deleted yet", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			return Gate{Live: s, Pods: downAt0(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3, 0), 7)}
		}, true, 2, "", ""},
		{"the same before any pod rolled: the down pod still goes first", func() Gate {
			s := rolling(3, ptr.To[int32](3))
			return Gate{Live: s, Pods: downAt0(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: word(later, alive(3, 0), 0)}
		}, true, 3, "", ""},
		{"OnDelete seen by the controller: the down pod is deleted, and only it", func() Gate {
			s := rolling(3, nil)
			return Gate{Live: s, Pods: downAt0(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3, 0), 7)}
		}, true, 2, "c-be-0", ""},
		{"OnDelete not yet seen by the controller: it stays, nothing deleted", func() Gate {
			s := rolling(3, nil)
			s.Status.ObservedGeneration = 1
			return Gate{Live: s, Pods: downAt0(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3, 0), 7)}
		}, true, 0, "", "StatefulSet controller"},
		{"the down pod gone and not back yet: OnDelete stays, or it would come back at the old revision", func() Gate {
			s := rolling(3, nil)
			ps := pods(s, "old", "old", "new")[1:]
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3, 0), 7)}
		}, true, 2, "", "c-be-0, which was down, to come back at the new revision"},
		{"the down pod terminating: OnDelete stays", func() Gate {
			s := rolling(3, nil)
			ps := downAt0(s, "old", "old", "new")
			ps[0].DeletionTimestamp = ptr.To(metav1.NewTime(t0))
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3, 0), 7)}
		}, true, 2, "", "c-be-0, which was down"},
		{"the down pod back at the new revision and not Ready yet: the partition is back, the next waits for it", func() Gate {
			s := rolling(3, nil)
			return Gate{Live: s, Pods: downAt0(s, "new", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3, 0), 7)}
		}, false, 2, "", "c-be-0 to become Ready"},
		{"the down pod back, Ready and Alive, every tablet healthy: the next rolls under the partition", func() Gate {
			s := rolling(3, nil)
			return Gate{Live: s, Pods: pods(s, "new", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, false, 1, "", ""},
		{"the pod fixed first must show FE a tablet report of its new process before the next rolls", func() Gate {
			s := rolling(3, nil)
			w := word(later, alive(3), 0)
			heard := heardBefore(3)
			h := w.Heard[0]
			h.Tablets = heard[0].Tablets
			w.Heard[0] = h
			return Gate{Live: s, Pods: pods(s, "new", "old", "new"), Replicas: 3, Tablets: true, Word: w, Heard: heard}
		}, false, 2, "", "FE to process a tablet report of c-be-0's new process"},
		{"a pod not Ready that FE still lists Alive is not down yet: it holds the next, nothing deleted", func() Gate {
			s := rolling(3, ptr.To[int32](2))
			return Gate{Live: s, Pods: downAt0(s, "old", "old", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, false, 2, "", "c-be-0, which is not Ready, to come back"},
		{"a CN down below the next goes first too", func() Gate {
			s := rolling(3, nil)
			s.Name = "c-cn"
			return Gate{Live: s, Pods: downAt0(s, "old", "old", "new"), Replicas: 3, Word: word(later, alive(3, 0), 0)}
		}, true, 2, "c-cn-0", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.gate()
			if g.Heard == nil {
				g.Heard = heardBefore(3)
			}
			got := Partitioned(g)
			if !got.Rolling || got.OnDelete != tc.onDelete || got.Partition != tc.partition {
				t.Errorf("rolling %t onDelete %t partition %d, want true %t %d (%s)", got.Rolling, got.OnDelete, got.Partition, tc.onDelete, tc.partition, got.Message)
			}
			deleted := ""
			if got.Delete != nil {
				deleted = got.Delete.Name
			}
			if deleted != tc.deletes {
				t.Errorf("deletes %q, want %q (%s)", deleted, tc.deletes, got.Message)
			}
			if tc.waiting == "" && got.Waiting {
				t.Errorf("waits: %s", got.Message)
			}
			if tc.waiting != "" && (!got.Waiting || !strings.Contains(got.Message, tc.waiting)) {
				t.Errorf("message %q (waiting %t), want it to wait for %q", got.Message, got.Waiting, tc.waiting)
			}
		})
	}
}

// A BE rollout of 3 pods, simulated step by step: each pod rolls only once
// the one before is Ready, Alive and its tablets healthy.
// Only BE pods hold tablets: a CN rollout, in either run mode, never waits
// for FE's tablet count, which a BE decommission keeps above 0.
func TestOnlyBEsHoldTablets(t *testing.T) {
	for c, want := range map[resources.Component]bool{resources.ComponentBE: true, resources.ComponentCN: false, resources.ComponentFE: false} {
		if got := HoldsTablets(c); got != want {
			t.Errorf("HoldsTablets(%s) = %v, want %v", c, got, want)
		}
	}
}

func TestPartitionedRollsOnePodAtATime(t *testing.T) {
	s := rolling(3, ptr.To[int32](3))
	revs := []string{"old", "old", "old"}
	var order []int
	now := t0
	for range 20 {
		now = now.Add(10 * time.Second)
		ps := make([]corev1.Pod, 3)
		for i, r := range revs {
			ps[i] = pod(s, i, r, now.Add(-5*time.Second))
		}
		step := Partitioned(Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(now, alive(3), 0), Heard: heardBefore(3)})
		if !step.Rolling {
			break
		}
		s.Spec.UpdateStrategy = WithPartition(s.Spec.UpdateStrategy, step.Partition)
		// The controller replaces the highest pod below the old partition at once.
		for i := 2; i >= int(step.Partition); i-- {
			if revs[i] != "new" {
				revs[i] = "new"
				order = append(order, i)
				break
			}
		}
		if step.Partition == 0 && revs[0] == "new" {
			s.Status.CurrentRevision = "new"
		}
	}
	if fmt.Sprint(order) != "[2 1 0]" {
		t.Errorf("pods replaced in order %v, want [2 1 0]", order)
	}
}

// FE's LastHeartbeat of a pod is kept from an answer read a full second
// after the pod became Ready, once per pod: what it was already stays, and
// a pod gone is forgotten.
func TestHeardSinceKeepsFEsFirstWordAfterReady(t *testing.T) {
	s := rolling(3, ptr.To[int32](2))
	ps := pods(s, "old", "old", "new")
	ps[2] = pod(s, 2, "new", t0.Add(10*time.Second)) // Ready at 12:00:10
	for i := range ps {
		ps[i].UID = types.UID(fmt.Sprint("uid-", i))
	}
	known := map[types.UID]Heard{"uid-1": {Heartbeat: "kept"}, "uid-9": {Heartbeat: "a pod gone"}}
	keep, byOrd := HeardSince(s, ps, word(t0.Add(10500*time.Millisecond), alive(3), 0), known)
	if fmt.Sprint(keep) != "map[uid-0:{2026-01-01 12:00:05 2026-01-01 12:00:05 true} uid-1:{kept  false}]" || fmt.Sprint(byOrd) != "map[0:{2026-01-01 12:00:05 2026-01-01 12:00:05 true} 1:{kept  false}]" {
		t.Errorf("half a second after c-be-2 became Ready: kept %v, by ordinal %v; want uid-0 from the answer, uid-1 as it was, not uid-2 (too early) nor uid-9 (gone)", keep, byOrd)
	}
	if keep, _ := HeardSince(s, ps, word(t0.Add(11*time.Second), alive(3), 0), keep); keep["uid-2"].Heartbeat != "2026-01-01 12:00:05" {
		t.Errorf("kept %v, want c-be-2's LastHeartbeat from the answer a second after it became Ready", keep)
	}
	if keep, _ := HeardSince(s, ps, &Word{At: t0.Add(time.Minute), Err: errors.New("no answer")}, nil); len(keep) != 0 {
		t.Errorf("kept from no answer: %v", keep)
	}
}

func TestLeaderLast(t *testing.T) {
	later := t0.Add(5 * time.Second)
	fe := func(revs ...string) (*appsv1.StatefulSet, []corev1.Pod) {
		s := rolling(int32(len(revs)), nil)
		s.Name = "c-fe"
		return s, pods(s, revs...)
	}
	leaderAt := func(i int) *Word { w := word(later, alive(3), 0); w.Leader = i; return w }
	tests := []struct {
		name    string
		gate    func() Gate
		rolling bool
		deletes string
		waiting string
	}{
		{"a template change is written OnDelete: no pod rolls yet", func() Gate {
			s, ps := fe("old", "old", "old")
			s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}
			return Gate{Live: s, Pods: ps, Changing: true, Replicas: 3}
		}, true, "", "the leader last"},
		{"leader at 0: the highest follower first", func() Gate {
			s, ps := fe("old", "old", "old")
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: leaderAt(0)}
		}, true, "c-fe-2", ""},
		{"leader at 0: then the other follower", func() Gate {
			s, ps := fe("old", "old", "new")
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: leaderAt(0)}
		}, true, "c-fe-1", ""},
		{"leader at 0: the leader last", func() Gate {
			s, ps := fe("old", "new", "new")
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: leaderAt(0)}
		}, true, "c-fe-0", ""},
		{"leader at 2: the followers 1 and 0 before it", func() Gate {
			s, ps := fe("old", "old", "old")
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: leaderAt(2)}
		}, true, "c-fe-1", ""},
		{"leader at 2: it goes once the followers are replaced", func() Gate {
			s, ps := fe("new", "new", "old")
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: leaderAt(2)}
		}, true, "c-fe-2", ""},
		{"a pod being replaced holds the next", func() Gate {
			s, ps := fe("old", "old")
			return Gate{Live: rolling3(s), Pods: ps, Replicas: 3, Word: leaderAt(0)}
		}, true, "", "c-fe-2) being replaced"},
		{"a replaced pod not Ready holds the next", func() Gate {
			s, ps := fe("old", "old", "new")
			ps[2] = pod(s, 2, "new", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: leaderAt(0)}
		}, true, "", "c-fe-2 to become Ready"},
		{"an FE that FE lists not Alive holds the next", func() Gate {
			s, ps := fe("old", "old", "new")
			w := leaderAt(0)
			w.Alive[2] = false
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: w}
		}, true, "", "FE to list c-fe-2 Alive"},
		{"an old pod that is not Ready goes first, once the others are Ready and Alive and FE names a leader", func() Gate {
			s, ps := fe("old", "old", "old")
			ps[0] = pod(s, 0, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: leaderAt(1)}
		}, true, "c-fe-0", ""},
		// Issue 34 item 12: not without FE's word, not while the pod just
		// replaced is not Ready, not the leader while FE names none.
		{"an old pod that is not Ready waits for FE's word", func() Gate {
			s, ps := fe("old", "old", "old")
			ps[0] = pod(s, 0, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3}
		}, true, "", "c-fe-0, which is not Ready, goes next, once the others allow: waiting for FE's next answer"},
		{"an old leader that is not Ready waits while the pod just replaced is not Ready", func() Gate {
			s, ps := fe("old", "old", "new")
			ps[0] = pod(s, 0, "old", time.Time{})
			ps[2] = pod(s, 2, "new", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: leaderAt(0)}
		}, true, "", "waiting for c-fe-2 to become Ready"},
		{"an old pod that is not Ready waits while FE lists another not Alive", func() Gate {
			s, ps := fe("old", "old", "new")
			ps[0] = pod(s, 0, "old", time.Time{})
			w := leaderAt(1)
			w.Alive[2] = false
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: w}
		}, true, "", "waiting for FE to list c-fe-2 Alive"},
		{"an old pod that is not Ready waits while FE names no leader", func() Gate {
			s, ps := fe("old", "old", "new")
			ps[0] = pod(s, 0, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: word(later, alive(3), 0)}
		}, true, "", "waiting for FE to name its leader"},
		{"the leader not Ready goes once the others are Ready and Alive: they elect another", func() Gate {
			s, ps := fe("old", "new", "new")
			ps[0] = pod(s, 0, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: leaderAt(0)}
		}, true, "c-fe-0", ""},
		{"a lone FE that is not Ready goes without FE's word", func() Gate {
			s, ps := fe("old")
			ps[0] = pod(s, 0, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 1}
		}, true, "c-fe-0", ""},
		{"no leader named: no pod is deleted", func() Gate {
			s, ps := fe("old", "old", "old")
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: word(later, alive(3), 0)}
		}, true, "", "FE to name its leader"},
		{"every pod at the update revision: back to the spec's strategy", func() Gate {
			s, ps := fe("new", "new", "new")
			return Gate{Live: s, Pods: ps, Replicas: 3, Word: leaderAt(0)}
		}, false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := LeaderLast(tc.gate())
			deleted := ""
			if got.Delete != nil {
				deleted = got.Delete.Name
			}
			if got.Rolling != tc.rolling || deleted != tc.deletes {
				t.Errorf("rolling %t deletes %q, want %t %q (%s)", got.Rolling, deleted, tc.rolling, tc.deletes, got.Message)
			}
			if tc.waiting != "" && (!got.Waiting || !strings.Contains(got.Message, tc.waiting)) {
				t.Errorf("message %q (waiting %t), want it to wait for %q", got.Message, got.Waiting, tc.waiting)
			}
		})
	}
}

func rolling3(s *appsv1.StatefulSet) *appsv1.StatefulSet {
	s.Spec.Replicas = ptr.To[int32](3)
	return s
}

func TestUserStrategy(t *testing.T) {
	for _, tc := range []struct {
		s    *appsv1.StatefulSetUpdateStrategy
		user bool
	}{
		{nil, false},
		{&appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}, false},
		{&appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](0)}}, false},
		{&appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}}, true},
		{&appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}, true},
	} {
		if got := UserStrategy(tc.s); got != tc.user {
			t.Errorf("UserStrategy(%+v) = %t, want %t", tc.s, got, tc.user)
		}
	}
}

func TestStalled(t *testing.T) {
	if Stalled(time.Time{}, t0, time.Minute) {
		t.Error("a step of unknown start stalled")
	}
	if Stalled(t0, t0.Add(time.Minute), time.Minute) {
		t.Error("stalled at the timeout, not after it")
	}
	if !Stalled(t0, t0.Add(time.Minute+time.Second), time.Minute) {
		t.Error("not stalled after the timeout")
	}
}
