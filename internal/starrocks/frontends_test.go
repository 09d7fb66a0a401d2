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
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

var feNames = PodNames{StatefulSet: "sr-fe", HeadlessService: "sr-fe-search", Namespace: "ns"}

// member is an FE as FE's leader lists it, heard at the leader's latest
// round (heardAt) when alive.
func member(ord int, role string, alive bool) fe.Frontend {
	f := fe.Frontend{Host: fmt.Sprintf("sr-fe-%d.sr-fe-search.ns.svc.cluster.local", ord), EditLogPort: 9010, Role: role, Alive: alive, LastHeartbeat: heardAt}
	if !alive {
		f.LastHeartbeat = "2026-12-06 15:59:00"
	}
	return f
}

// heardAt is the leader's latest heartbeat round in these cases.
const heardAt = "2026-12-06 16:00:00"

func TestPlanFrontendStepKeepsAMajorityAndALeader(t *testing.T) {
	cases := []struct {
		name    string
		members []fe.Frontend
		from    int
		want    frontendStep
	}{
		{"a follower leaves while its pod runs", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true), member(2, "FOLLOWER", true)}, 3, feDrop},
		{"the leader's pod goes first", []fe.Frontend{member(0, "FOLLOWER", true), member(1, "FOLLOWER", true), member(2, "LEADER", true)}, 3, feShrink},
		{"the leader stays while the others could not elect", []fe.Frontend{member(0, "FOLLOWER", false), member(1, "FOLLOWER", true), member(2, "LEADER", true)}, 3, feWait},
		{"no leader, no step", []fe.Frontend{member(0, "FOLLOWER", true), member(1, "FOLLOWER", true), member(2, "FOLLOWER", true)}, 3, feWait},
		{"dropping would leave no alive majority", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", false), member(2, "FOLLOWER", false), member(3, "FOLLOWER", true)}, 4, feWait},
		{"a dead follower leaves", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true), member(2, "FOLLOWER", false)}, 3, feDrop},
		{"already out of the group", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true)}, 3, feGone},
		{"a report that predates the pods that stay", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true)}, 5, feWait},
		{"observers do not vote: a follower stays when the followers left would be no majority",
			[]fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", false), member(2, "OBSERVER", true), member(3, "OBSERVER", true), member(4, "FOLLOWER", true)}, 5, feWait},
		{"an observer leaves whatever the followers", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", false), member(2, "OBSERVER", true)}, 3, feDrop},
		{"a row that never joined is no member: the leader may go first",
			[]fe.Frontend{member(0, "FOLLOWER", true), member(1, "FOLLOWER", true), unjoined(member(3, "FOLLOWER", false)), unjoined(member(4, "FOLLOWER", false)), member(2, "LEADER", true)}, 3, feShrink},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, _, why := planFrontendStep(tc.members, heartbeatDoubts(tc.members, feNames), feNames, tc.from); got != tc.want {
				t.Errorf("step %d (%s), want %d", got, why, tc.want)
			}
		})
	}
}

func TestLeftoverFrontendsAreMembersAboveReplicas(t *testing.T) {
	got := leftoverFrontends([]fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true), member(3, "FOLLOWER", false), member(2, "FOLLOWER", false)}, feNames, 2)
	if len(got) != 2 || got[0].Host != member(3, "", false).Host || got[1].Host != member(2, "", false).Host {
		t.Errorf("leftovers %+v, want fe-3 then fe-2", got)
	}
}

// scaleDown is an FE scale-down from 3 to 2 replicas, every pod Ready, FE read.
func scaleDown(members ...fe.Frontend) feCase {
	return feCase{FrontendScaleIn: FrontendScaleIn{Exists: true, Names: feNames, From: 3, To: 2, Pods: readyPods(3), Generation: 2,
		FEReady: true, Every: 10 * time.Second}, Active: true, Read: true, Report: &Report{At: time.Now(), Frontends: members}}
}

// feCase is an FE scale-down as a case states it: the planner's input,
// what the process remembers (Active, Checked), and FE's report as read
// (Read false: not read yet).
type feCase struct {
	FrontendScaleIn
	Active  bool
	Checked Checked
	Read    bool
	Report  *Report
	// Leader is what FE's leader answers when a change of FE's group asks
	// it (Needs.Frontends); nil: the report's list, as the leader says the same.
	Leader *FrontendsRead
	// Unconfirmed plans without the leader's answer: the step that asks for it.
	Unconfirmed bool
}

// plan plans as the executor does: with the leader's answer when the step
// asks for it (the memory the first plan kept then stands).
func (c feCase) plan() planned {
	before := ScaleIn{Active: c.Active, Checked: CheckedAt{Known: c.Checked.Known, UID: c.UID, Replicas: c.Checked.Replicas}}
	r := Reads{Report: c.Report}
	r.Read.Report = c.Read
	st, m := ScaleInFrontends(c.FrontendScaleIn, before, r)
	if st.Needs.Frontends && !c.Unconfirmed {
		r.Read.Frontends, r.Frontends = true, c.Leader
		if r.Frontends == nil {
			r.Frontends = &FrontendsRead{At: c.Report.At.Add(15 * time.Second), Leader: leaderOf(c.Report.Frontends), Frontends: c.Report.Frontends}
		}
		st, m = ScaleInFrontends(c.FrontendScaleIn, m, r)
	}
	return planned{Step: st, m: m, before: before}
}

func leaderOf(fs []fe.Frontend) string {
	for _, f := range fs {
		if f.Leader() {
			return f.Host
		}
	}
	return ""
}

// afterScaleDown is an FE StatefulSet of 2 the spec keeps, after a scale-down this process did not see through.
func afterScaleDown(members ...fe.Frontend) feCase {
	in := scaleDown(members...)
	in.From, in.Pods, in.Active = 2, readyPods(2), false
	return in
}

// readyPods are n Ready pods, ordinals 0 to n-1.
func readyPods(n int) map[int]bool {
	m := map[int]bool{}
	for i := range n {
		m[i] = true
	}
	return m
}

func replicasHeld(t *testing.T, hs []Hold, want int32, msg string) {
	t.Helper()
	if len(hs) == 0 || hs[len(hs)-1].Replicas == nil || *hs[len(hs)-1].Replicas != want || !strings.Contains(hs[len(hs)-1].Message, msg) {
		t.Errorf("holds %+v, want replicas held at %d saying %q", hs, want, msg)
	}
}

func TestScaleInFrontendsKeepsALeaderAndDropsWhatIsLeft(t *testing.T) {
	group := []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true), member(2, "FOLLOWER", true)}
	cases := []struct {
		name  string
		in    feCase
		check func(t *testing.T, st planned)
	}{
		// The desired StatefulSet keeps FE's replicas when 0 or 1 is asked (resources.keepFEQuorum).
		{"one FE asked for while FE runs 3 is refused", with(scaleDown(group...), func(in *feCase) { in.Asked, in.To = ptr.To(int32(1)), 3 }), func(t *testing.T, st planned) {
			if len(st.Holds) != 1 || !st.Holds[0].Refuses || *st.Holds[0].Replicas != 3 || !strings.Contains(st.Holds[0].Message, "no majority") {
				t.Errorf("holds %+v, want the refusal, FE kept at 3", st.Holds)
			}
		}},
		{"no FE asked for while FE runs 3 is refused as one is, FE kept", with(scaleDown(group...), func(in *feCase) { in.Asked, in.To = ptr.To(int32(0)), 3 }), func(t *testing.T, st planned) {
			if len(st.Holds) != 1 || !st.Holds[0].Refuses || *st.Holds[0].Replicas != 3 || !strings.Contains(st.Holds[0].Message, "replicas: 0 is refused") {
				t.Errorf("holds %+v, want the refusal of 0, FE kept at 3", st.Holds)
			}
		}},
		{"no FE StatefulSet: nothing", feCase{}, func(t *testing.T, st planned) { wantOnly(t, st, true, "nothing") }},
		// Issue 34 item 18: a restore's metadata names its own members.
		{"a disaster recovery: the scale-in stands aside, no DROP, no claim deleted", with(afterScaleDown(group...), func(in *feCase) { in.Recovering = true }), func(t *testing.T, st planned) {
			wantNothing(t, st)
		}},
		{"a disaster recovery during a scale-down: nothing read, nothing sent", with(scaleDown(group...), func(in *feCase) { in.Recovering, in.Read = true, false }), func(t *testing.T, st planned) {
			wantNothing(t, st)
		}},
		{"a scale-down begins by reading FE afresh", with(scaleDown(group...), func(in *feCase) { in.Active, in.Read = false, false }), func(t *testing.T, st planned) {
			wantOnly(t, st, st.Needs.Fresh && st.Needs.Report, "Begin and Read")
		}},
		// Issue 50 item 21: FE is read until it lists no removed member.
		{"a scale-down over or reversed is read through before it is forgotten", with(afterScaleDown(group[:2]...), func(in *feCase) { in.Active, in.Read = true, false }), func(t *testing.T, st planned) {
			wantOnly(t, st, !st.ended() && st.Needs.Report, "Read")
		}},
		{"a scale-down over, FE clean: forgotten", with(afterScaleDown(group[:2]...), func(in *feCase) { in.Active = true }), func(t *testing.T, st planned) {
			if !st.ended() || st.clean() == nil || *st.clean() != 2 || len(st.Holds) > 0 {
				t.Errorf("step %+v, want the scale-down forgotten, FE clean at 2, nothing held", st)
			}
		}},
		{"an FE StatefulSet found clean is not looked at", with(afterScaleDown(), func(in *feCase) { in.Checked, in.Read = Checked{Replicas: 2, Known: true}, false }), func(t *testing.T, st planned) {
			wantOnly(t, st, st.clean() != nil && *st.clean() == 2 && !st.Needs.Report, "Clean at 2")
		}},
		{"FE keeps its replicas until FE's pods are ready", with(scaleDown(group...), func(in *feCase) { in.FEReady = false }), func(t *testing.T, st planned) {
			replicasHeld(t, st.Holds, 3, "waiting for FE's pods to be ready to take sr-fe-2 out")
		}},
		{"FE not answering keeps FE's replicas", with(scaleDown(), func(in *feCase) { in.Report.Err = errors.New("dial timeout") }), func(t *testing.T, st planned) {
			replicasHeld(t, st.Holds, 3, " (dial timeout): FE keeps 3 replicas")
			if st.Holds[0].Trouble == nil {
				t.Error("the hold does not carry FE's trouble: it is reported LeavingFEGroup, not as FE's trouble")
			}
		}},
		{"FE keeps its replicas while an FE that stays is not Ready", with(scaleDown(group...), func(in *feCase) { in.Pods[1] = false }), func(t *testing.T, st planned) {
			replicasHeld(t, st.Holds, 3, "waiting for sr-fe-1 to be ready before sr-fe-2 leaves")
			if len(st.Statements) > 0 {
				t.Errorf("statements %+v, want none", st.Statements)
			}
		}},
		// Issue 34 item 9: only the FEs that stay must be Ready, and once
		// FE no longer lists the leaving one, its pod goes whatever they do.
		{"a leaving FE that is not Ready still leaves FE's group", with(scaleDown(group...), func(in *feCase) { in.Pods[2] = false }), func(t *testing.T, st planned) {
			if len(st.Statements) != 1 || dropped(st.Statements[0]) != group[2].Host {
				t.Errorf("step %+v, want DROP FOLLOWER sr-fe-2", st)
			}
		}},
		{"a leaving FE that never started and FE never listed goes", with(scaleDown(group[:2]...), func(in *feCase) { in.Pods[2] = false }), func(t *testing.T, st planned) {
			replicasHeld(t, st.Holds, 2, "left FE's group; its pod goes")
		}},
		{"an FE FE no longer lists goes while another is not Ready", with(scaleDown(group[:2]...), func(in *feCase) { in.Pods[0] = false }), func(t *testing.T, st planned) {
			replicasHeld(t, st.Holds, 2, "left FE's group; its pod goes")
		}},
		// Issue 34 item 9: no DROP while the FE StatefulSet cannot shrink after.
		{"the FE StatefulSet held: no FE leaves FE's group", with(scaleDown(group...), func(in *feCase) { in.Held = "held: spec.volumeClaimTemplates changed" }), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 || len(st.Delete.Claims) > 0 || st.Needs.Report {
				t.Errorf("step %+v, want nothing sent, no claim deleted", st)
			}
			replicasHeld(t, st.Holds, 3, "the FE StatefulSet is held: spec.volumeClaimTemplates changed; no FE leaves")
		}},
		{"a drift of spec.replicas with no pod beyond and no FE to ask goes back at once", with(scaleDown(group...), func(in *feCase) { in.Pods, in.FEReady, in.Read = map[int]bool{}, false, false }), func(t *testing.T, st planned) {
			if len(st.Holds) > 0 || st.Needs.Report || len(st.Statements) > 0 {
				t.Errorf("step %+v, want nothing held: the spec's replicas are written", st)
			}
		}},
		// Issue 34 item 30: the leaving FE's pod briefly gone reads as a
		// StatefulSet of 2 in its status; FE still lists it.
		{"the leaving FE's pod briefly gone: it still leaves FE's group before FE shrinks", with(scaleDown(group...), func(in *feCase) { delete(in.Pods, 2) }), func(t *testing.T, st planned) {
			if len(st.Statements) != 1 || dropped(st.Statements[0]) != group[2].Host {
				t.Errorf("step %+v, want DROP FOLLOWER sr-fe-2", st)
			}
			replicasHeld(t, st.Holds, 3, "its pod goes next")
		}},
		{"a follower leaves FE's group while its pod runs", scaleDown(group...), func(t *testing.T, st planned) {
			if len(st.Statements) != 1 || dropped(st.Statements[0]) != group[2].Host || st.event() == nil {
				t.Errorf("step %+v, want DROP FOLLOWER sr-fe-2 told", st)
			}
			if !slices.Equal(st.marks(false), []int{2}) || st.Marks[0].Annotation != srv1.DroppedFromFEGroupAnnotation {
				t.Errorf("marks %v, want sr-fe-2's pod marked before its DROP", st.Marks)
			}
			replicasHeld(t, st.Holds, 3, "its pod goes next")
			replicasHeld(t, st.failed(errors.New("x")).Holds, 3, "FE did not drop")
		}},
		// Issue 34, a node drain during an FE step: the budget in the API is
		// lowered before the group changes, or a drain between the DROP
		// and the budget's write takes one of the FEs that stay.
		{"FE's budget not lowered yet: no DROP, FE kept, looked at again", with(scaleDown(group...), func(in *feCase) { in.BudgetNotLowered = true }), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 || len(st.Marks) > 0 || len(st.Delete.Claims) > 0 {
				t.Errorf("step %+v, want no DROP, no mark, no claim deleted", st)
			}
			if st.After == 0 {
				t.Errorf("no look again: the DROP would wait for the resync")
			}
			replicasHeld(t, st.Holds, 3, "lowering FE's disruption budget before sr-fe-2 leaves")
		}},
		{"FE's budget not lowered yet: the leader's pod does not go either", with(scaleDown(member(0, "FOLLOWER", true), member(1, "FOLLOWER", true), member(2, "LEADER", true)), func(in *feCase) { in.BudgetNotLowered = true }), func(t *testing.T, st planned) {
			replicasHeld(t, st.Holds, 3, "lowering FE's disruption budget before sr-fe-2 leaves")
		}},
		{"FE's budget not lowered: a member FE no longer lists still goes (the budget is lowered with the shrink)", with(scaleDown(group[:2]...), func(in *feCase) { in.BudgetNotLowered = true }), func(t *testing.T, st planned) {
			replicasHeld(t, st.Holds, 2, "left FE's group; its pod goes")
		}},
		{"the leader's pod goes first", scaleDown(member(0, "FOLLOWER", true), member(1, "FOLLOWER", true), member(2, "LEADER", true)), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 {
				t.Errorf("statements %+v, want none: FE refuses to drop its leader", st.Statements)
			}
			replicasHeld(t, st.Holds, 2, "leads FE's group")
		}},
		{"an FE out of FE's group loses its claims, then its pod", scaleDown(group[:2]...), func(t *testing.T, st planned) {
			if !slices.Equal(st.Delete.Claims, []int{2}) {
				t.Errorf("claims of %v deleted, want of 2", st.Delete.Claims)
			}
			replicasHeld(t, st.Holds, 2, "left FE's group; its pod goes")
			replicasHeld(t, st.failed(errors.New("x")).Holds, 3, "claims could not be deleted")
		}},
		{"no step while the group has no majority to spare", scaleDown(member(0, "LEADER", true), member(1, "FOLLOWER", false), member(2, "FOLLOWER", true)), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 {
				t.Errorf("statements %+v, want none", st.Statements)
			}
			replicasHeld(t, st.Holds, 3, "waits to leave FE's group")
		}},
		// Issue 34 item 17: the claims first; a DROP first and a stop before
		// the claims left them for ever.
		{"a member left over loses its claims once its pod is gone and another FE leads, then is dropped", afterScaleDown(group...), func(t *testing.T, st planned) {
			if len(st.Statements) != 0 || !slices.Equal(st.Delete.Claims, []int{2}) || st.Then == nil || len(st.Then.Statements) != 1 || dropped(st.Then.Statements[0]) != group[2].Host || len(st.Then.Events) != 1 {
				t.Errorf("step %+v, want the claims of sr-fe-2, then its DROP", st)
			}
			// Issue 50 item 21: not done while FE lists it, and the status says so.
			replicasHeld(t, st.Then.Holds, 2, "dropped sr-fe-2.sr-fe-search.ns.svc.cluster.local:9010 from FE's group")
			if st.Then.After == 0 || !st.m.Active {
				t.Errorf("step %+v, memory %+v: want FE read again until it no longer lists sr-fe-2", st, st.m)
			}
		}},
		{"a member left over that leads waits for another leader", afterScaleDown(member(0, "FOLLOWER", true), member(1, "FOLLOWER", true), member(2, "LEADER", false)), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 || st.After != 10*time.Second {
				t.Errorf("step %+v, want nothing sent and a look again", st)
			}
		}},
		{"a StatefulSet scaled down by hand below the spec drops no member: it is put back", with(afterScaleDown(group...), func(in *feCase) { in.To = 3 }), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 || (st.Then != nil && len(st.Then.Delete.Claims) > 0) {
				t.Errorf("step %+v: a member of the spec dropped, or its claims deleted", st)
			}
		}},
		// Issue 34 item 10: a scale-down reverted between the DROP and the
		// pod's removal leaves sr-fe-2 running outside FE's group.
		{"a dropped FE the spec keeps again is started afresh: its claims, then its pod", with(afterScaleDown(group[:2]...), func(in *feCase) {
			in.From, in.To, in.Pods, in.Marked, in.Active = 3, 3, readyPods(3), map[int]bool{2: true}, true
			in.Checked = Checked{Replicas: 3, Known: true}
		}), func(t *testing.T, st planned) {
			if !slices.Equal(st.Delete.Claims, []int{2}) || !slices.Equal(st.Delete.Pods, []int{2}) || st.event() == nil || st.m.Checked != st.before.Checked {
				t.Errorf("step %+v, want sr-fe-2's claims and pod deleted, told, not clean", st)
			}
		}},
		{"a marked FE that FE still lists is left alone", with(afterScaleDown(group...), func(in *feCase) {
			in.From, in.To, in.Pods, in.Marked = 3, 3, readyPods(3), map[int]bool{2: true}
		}), func(t *testing.T, st planned) {
			if len(st.Delete.Claims) > 0 || len(st.Delete.Pods) > 0 {
				t.Errorf("step %+v, want nothing restarted", st)
			}
		}},
		// Issue 50 item 18: a report may be two periods old; FE's leader,
		// asked right before, must give the same verdict.
		{"a DROP decided on FE's report first asks FE's leader", with(scaleDown(group...), func(in *feCase) { in.Unconfirmed = true }), func(t *testing.T, st planned) {
			wantOnly(t, st, st.Needs.Frontends && len(st.Statements) == 0 && len(st.Marks) == 0, "Ask the leader")
		}},
		{"FE's leader now lists a follower that stays dead: no DROP, FE kept, read again", with(scaleDown(group...), func(in *feCase) {
			in.Leader = &FrontendsRead{Leader: group[0].Host, Frontends: []fe.Frontend{group[0], member(1, "FOLLOWER", false), group[2]}}
		}), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 || len(st.Marks) > 0 || st.After == 0 {
				t.Errorf("step %+v, want no DROP, no mark, a look again", st)
			}
			replicasHeld(t, st.Holds, 3, "now says otherwise than FE's report")
			replicasHeld(t, st.Holds, 3, "only 1 of the 2 FEs left after sr-fe-2 would be alive")
		}},
		{"FE's leader does not answer: no DROP, FE kept, read again", with(scaleDown(group...), func(in *feCase) {
			in.Leader = &FrontendsRead{Leader: group[0].Host, Err: errors.New("i/o timeout")}
		}), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 || st.After == 0 {
				t.Errorf("step %+v, want no DROP and a look again", st)
			}
			replicasHeld(t, st.Holds, 3, "did not answer: i/o timeout")
		}},
		{"the leader's pod going first waits for FE's leader too: a follower that stays died since", with(scaleDown(member(0, "FOLLOWER", true), member(1, "FOLLOWER", true), member(2, "LEADER", true)), func(in *feCase) {
			in.Leader = &FrontendsRead{Leader: group[2].Host, Frontends: []fe.Frontend{member(0, "FOLLOWER", false), member(1, "FOLLOWER", true), member(2, "LEADER", true)}}
		}), func(t *testing.T, st planned) {
			replicasHeld(t, st.Holds, 3, "stopping it now would leave no majority")
		}},
		{"an FE out of FE's group: its claims and pod wait for FE's leader", with(scaleDown(group[:2]...), func(in *feCase) { in.Unconfirmed = true }), func(t *testing.T, st planned) {
			wantOnly(t, st, st.Needs.Frontends && len(st.Delete.Claims) == 0, "Ask the leader")
		}},
		{"a member left over: its claims and DROP wait for FE's leader", with(afterScaleDown(group...), func(in *feCase) { in.Unconfirmed = true }), func(t *testing.T, st planned) {
			wantOnly(t, st, st.Needs.Frontends && len(st.Delete.Claims) == 0 && st.Then == nil, "Ask the leader")
		}},
		{"FE's leader lists no leftover any more: nothing dropped", with(afterScaleDown(group...), func(in *feCase) {
			in.Leader = &FrontendsRead{Leader: group[0].Host, Frontends: group[:2]}
		}), func(t *testing.T, st planned) {
			if len(st.Delete.Claims) > 0 || st.Then != nil || st.After == 0 {
				t.Errorf("step %+v, want nothing deleted or dropped, a look again", st)
			}
		}},
		// Issue 50 item 21: right after FE elects a leader, a follower that
		// still forwards to the old one fails the read; that is no reason
		// to stop reading, nor to call the scale-down done.
		{"a failed read after a scale-down this process saw: FE read again, not done", with(afterScaleDown(), func(in *feCase) {
			in.Active, in.Report.Err = true, errors.New("FE forwarded to a leader that no longer leads")
		}), func(t *testing.T, st planned) {
			if st.After == 0 || st.ended() {
				t.Errorf("step %+v, want a look again and the scale-down kept in memory", st)
			}
			replicasHeld(t, st.Holds, 2, "FE is read again until it lists no member of a pod the scale-down removed")
		}},
		{"a failed read with nothing in progress holds nothing", with(afterScaleDown(), func(in *feCase) { in.Report.Err = errors.New("dial timeout") }), func(t *testing.T, st planned) {
			if len(st.Holds) > 0 {
				t.Errorf("holds %+v, want none", st.Holds)
			}
		}},
		{"a failed read during a scale-up after a scale-down holds nothing", with(afterScaleDown(), func(in *feCase) {
			in.Active, in.To, in.Report.Err = true, 3, errors.New("dial timeout")
		}), func(t *testing.T, st planned) {
			if len(st.Holds) > 0 {
				t.Errorf("holds %+v, want none: the scale-up goes on", st.Holds)
			}
		}},
		{"nothing left over: FE is remembered clean", afterScaleDown(group[:2]...), func(t *testing.T, st planned) {
			wantOnly(t, st, st.clean() != nil && *st.clean() == 2, "Clean at 2")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, tc.in.plan()) })
	}
}

// wantNothing fails unless the step does nothing at all: no statement,
// claim, hold, read, memory or next step.
func wantNothing(t *testing.T, st planned) {
	t.Helper()
	if len(st.Statements) > 0 || len(st.Delete.Claims) > 0 || len(st.Holds) > 0 || st.Needs.Any() || st.ended() || st.Progress != nil ||
		st.m.Checked != st.before.Checked || st.Then != nil || st.refusal() != "" {
		t.Errorf("step %+v, want nothing", st)
	}
}

// dropped is the host a DropFrontend drops; "" for another statement.
func dropped(s fe.Statement) string {
	if d, ok := s.(fe.DropFrontend); ok {
		return d.Frontend.Host
	}
	return ""
}

// unjoined is f as FE lists a member that is not in its group (Join false).
func unjoined(f fe.Frontend) fe.Frontend {
	f.Unjoined = true
	return f
}
