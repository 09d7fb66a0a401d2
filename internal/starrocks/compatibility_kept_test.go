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
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"
)

// TestFirstPodWaits (issue 50 item 15): what the first pod of a gated
// change would wait for, were its template written now, from the pods as
// they run (all at the live revision, the StatefulSet not rolling) and
// FE's word, as the gate itself decides it.
func TestFirstPodWaits(t *testing.T) {
	later := t0.Add(5 * time.Second)
	// settled is a StatefulSet of n pods not rolling: every pod runs its
	// current revision, the spec's own strategy (partition 0).
	settled := func(n int32, name string) *appsv1.StatefulSet {
		s := rolling(n, ptr.To[int32](0))
		s.Name = name
		s.Status.UpdateRevision = "old"
		return s
	}
	led := func(w *Word, leader int) *Word { w.Leader = leader; return w }
	tests := []struct {
		name     string
		frontend bool
		gate     func() Gate
		waits    string // part of what it waits for; "" when the first pod goes at once
	}{
		{"every BE up and every tablet healthy: the first pod goes", false, func() Gate {
			s := settled(3, "c-be")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, ""},
		{"tablets catching up after a BE came back: the first pod waits for them", false, func() Gate {
			s := settled(3, "c-be")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 40)}
		}, "pod 1 of 3 (c-be-2) waits for FE to report every tablet healthy"},
		{"FE did not count its tablets: no repair known, the change is written and its gate waits", false, func() Gate {
			s := settled(3, "c-be")
			w := word(later, alive(3), 0)
			w.TabletsErr = errors.New("SHOW PROC '/statistic': i/o timeout")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: w}
		}, ""},
		{"a BE pod not Ready that FE lists Alive: no repair, the change is written and its gate waits", false, func() Gate {
			s := settled(3, "c-be")
			ps := pods(s, "old", "old", "old")
			ps[1] = pod(s, 1, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, ""},
		{"a BE FE lists not Alive while its pod is Ready (a process that died): the first pod waits", false, func() Gate {
			s := settled(3, "c-be")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: word(later, alive(3, 0), 0)}
		}, "FE to list c-be-0 Alive again"},
		{"a BE that is down goes first, whatever the tablets: its fix rolls", false, func() Gate {
			s := settled(3, "c-be")
			ps := pods(s, "old", "old", "old")
			ps[0] = pod(s, 0, "old", time.Time{})
			return Gate{Live: s, Pods: ps, Replicas: 3, Tablets: true, Word: word(later, alive(3, 0), 12)}
		}, ""},
		{"a CN waits for no tablet count", false, func() Gate {
			s := settled(3, "c-cn")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Word: word(later, alive(3), 12)}
		}, ""},
		{"a StatefulSet whose controller has not seen its last spec is previewed as seen", false, func() Gate {
			s := settled(3, "c-be")
			s.Generation = 3
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, ""},
		{"FE not answering: nothing known of a repair, the change is written as before", false, func() Gate {
			s := settled(3, "c-be")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true, Word: &Word{At: later, Err: errors.New("connection refused")}}
		}, ""},
		{"every FE up, the leader named: the first follower goes", true, func() Gate {
			s := settled(3, "c-fe")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Word: led(word(later, alive(3), 9), 0)}
		}, ""},
		{"FE names no leader: no repair, the change is written and its gate waits", true, func() Gate {
			s := settled(3, "c-fe")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Word: word(later, alive(3), 0)}
		}, ""},
		{"FE names no leader while it counts unhealthy tablets: no FE pod goes, the pause waits", true, func() Gate {
			s := settled(3, "c-fe")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Word: word(later, alive(3), 5)}
		}, "FE to name its leader"},
		{"an FE FE lists not Alive: no FE pod goes", true, func() Gate {
			s := settled(3, "c-fe")
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Word: led(word(later, alive(3, 1), 0), 0)}
		}, "FE to list c-fe-1 Alive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.gate()
			before := g.Live.DeepCopy()
			got := FirstPodWaits(g, tt.frontend)
			switch {
			case tt.waits == "" && got != "":
				t.Errorf("FirstPodWaits = %q, want the first pod to go at once", got)
			case tt.waits != "" && !strings.Contains(got, tt.waits):
				t.Errorf("FirstPodWaits = %q, want it to wait for %q", got, tt.waits)
			}
			if !equality.Semantic.DeepEqual(g.Live, before) {
				t.Errorf("FirstPodWaits changed the live StatefulSet: %+v, was %+v", g.Live.Status, before.Status)
			}
		})
	}
}
