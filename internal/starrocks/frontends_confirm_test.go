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
	"testing"

	"github.com/srscale/starrocks-operator/internal/fe"
)

// heard is f with LastHeartbeat at; "" is NULL.
func heard(f fe.Frontend, at string) fe.Frontend {
	f.LastHeartbeat = at
	return f
}

// Issue 50 item 18: FE lists a dead follower Alive for about 20 s, its
// LastHeartbeat stopped at its last good round while the leader's own row
// moves on each round (5 s). Weighed against the leader's own row only.
func TestHeartbeatDoubts(t *testing.T) {
	ldr, f1, f2 := member(0, "LEADER", true), member(1, "FOLLOWER", true), member(2, "FOLLOWER", true)
	cases := []struct {
		name    string
		members []fe.Frontend
		// want is, by ordinal, what the doubt says ("" none).
		want map[int]string
	}{
		{"fresh: heard at the leader's round", []fe.Frontend{ldr, f1, f2}, nil},
		{"less than a round behind: answered the latest round", []fe.Frontend{ldr, heard(f1, "2026-12-06 15:59:56"), f2}, nil},
		{"stale by one round", []fe.Frontend{ldr, heard(f1, "2026-12-06 15:59:55"), f2}, map[int]string{1: "sr-fe-1 counted not alive: FE lists it Alive, but its last heartbeat is 5s behind the leader's own"}},
		{"stale by three rounds", []fe.Frontend{ldr, heard(f1, "2026-12-06 15:59:45"), f2}, map[int]string{1: "15s behind"}},
		{"a round ahead: not one clock", []fe.Frontend{ldr, heard(f1, "2026-12-06 16:00:05"), f2}, map[int]string{1: "5s ahead of the leader's own"}},
		{"NULL", []fe.Frontend{ldr, heard(f1, ""), f2}, map[int]string{1: "its LastHeartbeat NULL does not read"}},
		{"unparsable", []fe.Frontend{ldr, heard(f1, "yesterday"), f2}, map[int]string{1: `its LastHeartbeat "yesterday" does not read`}},
		{"the leader's own row NULL: nobody can be weighed", []fe.Frontend{heard(ldr, ""), f1, f2}, map[int]string{1: "the leader's own LastHeartbeat NULL does not read", 2: "the leader's own LastHeartbeat NULL does not read"}},
		{"the leader's own row unparsable", []fe.Frontend{heard(ldr, "16:00"), f1, f2}, map[int]string{1: `"16:00" does not read`, 2: `"16:00" does not read`}},
		{"a member FE lists dead already is no doubt", []fe.Frontend{ldr, member(1, "FOLLOWER", false), f2}, nil},
		{"an observer does not vote", []fe.Frontend{ldr, heard(member(1, "OBSERVER", true), "2026-12-06 15:59:00"), f2}, nil},
		{"a row that never joined is no member", []fe.Frontend{ldr, unjoined(heard(f1, "")), f2}, nil},
		{"the leader's row missing: no leader, nothing weighed (the step waits for one)", []fe.Frontend{member(0, "FOLLOWER", true), heard(f1, "2026-12-06 15:59:00"), f2}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := heartbeatDoubts(tc.members, feNames)
			if len(got) != len(tc.want) {
				t.Fatalf("doubts %q, want %d", got, len(tc.want))
			}
			for ord, want := range tc.want {
				if d := got[member(ord, "", true).Host]; !strings.Contains(d, want) {
					t.Errorf("sr-fe-%d: %q, want it to say %q", ord, d, want)
				}
			}
		})
	}
}

// The quorum check counts a doubted member dead: FE 3 → 2 right after
// sr-fe-1 died, FE still listing it Alive 10 s behind the leader, waits;
// the control, the same members taken at FE's word, drops sr-fe-2 and
// leaves sr-fe-0 alone of two voters.
func TestScaleInWaitsForAStaleHeartbeat(t *testing.T) {
	stale := []fe.Frontend{member(0, "LEADER", true), heard(member(1, "FOLLOWER", true), "2026-12-06 15:59:50"), member(2, "FOLLOWER", true)}
	t.Run("the report already stale: no DROP, FE kept, the hold names the FE and how far behind", func(t *testing.T) {
		st := scaleDown(stale...).plan()
		if len(st.Statements) > 0 || len(st.Marks) > 0 || st.Needs.Frontends {
			t.Errorf("step %+v, want no DROP, no mark, nothing confirmed", st)
		}
		replicasHeld(t, st.Holds, 3, "only 1 of the 2 FEs left after sr-fe-2 would be alive: not a majority (sr-fe-1 counted not alive: FE lists it Alive, but its last heartbeat is 10s behind the leader's own")
	})
	t.Run("the report fresh, the leader's answer stale: no DROP", func(t *testing.T) {
		st := with(scaleDown(member(0, "LEADER", true), member(1, "FOLLOWER", true), member(2, "FOLLOWER", true)), func(in *feCase) {
			in.Leader = &FrontendsRead{Leader: stale[0].Host, Frontends: stale}
		}).plan()
		if len(st.Statements) > 0 || st.After == 0 {
			t.Errorf("step %+v, want no DROP and a look again", st)
		}
		replicasHeld(t, st.Holds, 3, "now says otherwise than FE's report")
		replicasHeld(t, st.Holds, 3, "sr-fe-1 counted not alive")
	})
	t.Run("the leader's row NULL: no DROP", func(t *testing.T) {
		st := scaleDown(heard(member(0, "LEADER", true), ""), member(1, "FOLLOWER", true), member(2, "FOLLOWER", true)).plan()
		if len(st.Statements) > 0 {
			t.Errorf("step %+v, want no DROP", st)
		}
		replicasHeld(t, st.Holds, 3, "the leader's own LastHeartbeat NULL does not read")
	})
	t.Run("a stale member the quorum does without: FE 5 → 4 drops sr-fe-4", func(t *testing.T) {
		five := []fe.Frontend{member(0, "LEADER", true), heard(member(1, "FOLLOWER", true), "2026-12-06 15:59:50"), member(2, "FOLLOWER", true), member(3, "FOLLOWER", true), member(4, "FOLLOWER", true)}
		in := scaleDown(five...)
		in.From, in.To, in.Pods = 5, 4, readyPods(5)
		st := in.plan()
		if len(st.Statements) != 1 || dropped(st.Statements[0]) != five[4].Host {
			t.Errorf("step %+v, want DROP FOLLOWER sr-fe-4: 3 of the 4 left are alive without sr-fe-1", st)
		}
	})
	t.Run("control: taken at FE's word, the stale member counts, and sr-fe-2 is dropped", func(t *testing.T) {
		step, target, why := planFrontendStep(stale, nil, feNames, 3)
		if step != feDrop || target.Host != stale[2].Host {
			t.Errorf("control: step %d (%s) on %s, want the DROP of sr-fe-2 that leaves sr-fe-0 alone of two voters", step, why, target.Host)
		}
	})
}
