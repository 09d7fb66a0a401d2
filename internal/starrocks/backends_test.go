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
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

var beNames = PodNames{StatefulSet: "sr-be", HeadlessService: "sr-be-search", Namespace: "ns"}

func be(ord int, decommissioned bool, tablets int) fe.Backend {
	return fe.Backend{Host: fmt.Sprintf("sr-be-%d.sr-be-search.ns.svc.cluster.local", ord), HeartbeatPort: 9050, Alive: true, Decommissioned: decommissioned, TabletNum: tablets}
}

// inDomain is b registered under the cluster domain corp.example.
func inDomain(b fe.Backend) fe.Backend {
	b.Host = strings.Replace(b.Host, ".svc.cluster.local", ".svc.corp.example", 1)
	return b
}

func TestPlanBackendsSortsRemovedAndKeptBEs(t *testing.T) {
	other := fe.Backend{Host: "other-be-5.other-be-search.ns.svc.cluster.local", HeartbeatPort: 9050}
	byIP := fe.Backend{Host: "10.0.0.9", HeartbeatPort: 9050}
	p := planBackends([]fe.Backend{be(0, false, 9), be(1, true, 4), be(2, false, 9), be(3, true, 5), be(4, true, 0), other, byIP}, beNames, 2)
	if want := []string{be(2, false, 0).Address()}; !slices.Equal(p.decommission, want) {
		t.Errorf("decommission %q, want %q", p.decommission, want)
	}
	if want := []string{be(4, false, 0).Address()}; !slices.Equal(p.drop, want) {
		t.Errorf("drop %q, want %q: drained and left listed", p.drop, want)
	}
	if want := []string{be(1, false, 0).Address()}; !slices.Equal(p.cancel, want) {
		t.Errorf("cancel %q, want %q: the spec keeps be-1", p.cancel, want)
	}
	if len(p.draining) != 1 || p.draining["sr-be-3"] != 5 || p.tablets != 5 {
		t.Errorf("draining %v (%d tablets), want sr-be-3 with 5", p.draining, p.tablets)
	}
	if p.gone() {
		t.Error("gone with removed BEs still listed")
	}
	if !planBackends([]fe.Backend{be(0, false, 1), be(1, false, 1), other}, beNames, 2).gone() {
		t.Error("not gone when FE lists no removed BE")
	}
}

func TestMissingBackendsAreKeptOrdinalsFEDoesNotList(t *testing.T) {
	got := missingBackends([]fe.Backend{be(0, false, 0), be(2, false, 0), be(5, false, 0)}, beNames, 3)
	if want := []int{1}; !slices.Equal(got, want) {
		t.Errorf("missing %v, want %v", got, want)
	}
}

// beCase is a BE scale-in as a case states it: the planner's input, what
// the process remembers (Active, Checked, Refusal), and FE's report as
// read (Read false: not read yet).
type beCase struct {
	BackendScaleIn
	Active  bool
	Checked Checked
	Refusal string
	Read    bool
	Report  *Report
}

// scaleIn is a BE scale-in from 3 to 2 replicas, FE ready and read. Every
// pod carries the operator's decommission mark unless a case says otherwise.
func scaleIn(backends ...fe.Backend) beCase {
	return beCase{BackendScaleIn: BackendScaleIn{Exists: true, Names: beNames, From: 3, To: 2, Generation: 2, FEReady: true,
		Every: 10 * time.Second, HeartbeatPort: 9050, Stall: 30 * time.Minute, Now: time.Now(),
		Marked: map[int]bool{0: true, 1: true, 2: true, 3: true}}, Read: true, Report: &Report{At: time.Now(), Backends: backends}}
}

// plan plans a case: the step, and the memory before and after it.
func (c beCase) plan() planned {
	before := ScaleIn{Active: c.Active, Checked: CheckedAt{Known: c.Checked.Known, UID: c.UID, Replicas: c.Checked.Replicas}}
	if c.Refusal != "" {
		before.Refused = &Refusal{Message: c.Refusal}
	}
	r := Reads{Report: c.Report}
	r.Read.Report = c.Read
	st, m := ScaleInBackends(c.BackendScaleIn, before, r)
	return planned{Step: st, m: m, before: before}
}

// planned is a scale-in planner's answer, as the cases read it.
type planned struct {
	Step[ScaleIn]
	m, before ScaleIn
}

// end: the scale-in is over (its tablet count goes, nothing is active).
func (p planned) end() bool {
	return !p.m.Active && p.Progress != nil && p.Progress.Done
}

// ended: the memory of a scale-in in progress is let go.
func (p planned) ended() bool { return p.before.Active && !p.m.Active }

// clean is where FE is remembered clean; nil when it is not.
func (p planned) clean() *int32 {
	if !p.m.Checked.Known {
		return nil
	}
	return &p.m.Checked.Replicas
}

// refusal is FE's refusal remembered.
func (p planned) refusal() string {
	if p.m.Refused == nil {
		return ""
	}
	return p.m.Refused.Message
}

func (p planned) failed(err error) planned {
	f, m := p.Failed(err)
	return planned{Step: f, m: m, before: p.before}
}

func (p planned) then() *planned {
	if p.Then == nil {
		return nil
	}
	return &planned{Step: *p.Then, m: p.m, before: p.before}
}

// event is the step's one Event; nil when none.
func (p planned) event() *Event {
	if len(p.Events) != 1 {
		return nil
	}
	return &p.Events[0]
}

// marks are the ordinals of the pods the step marks (set) or clears.
func (p planned) marks(cleared bool) []int {
	var out []int
	for _, m := range p.Marks {
		if m.Clear == cleared {
			out = append(out, m.Pod)
		}
	}
	return out
}

// drained is the tablets a drain counts, told in the progress and held; -1 when there is no drain.
func (p planned) drained() int {
	if p.Progress == nil || p.Progress.Tablets == nil || !slices.ContainsFunc(p.Holds, func(h Hold) bool { return strings.Contains(h.Message, "tablets left") }) {
		return -1
	}
	return *p.Progress.Tablets
}

// shared are the rows as FE shows them in shared-data mode (StarletPort).
func shared(bs []fe.Backend) []fe.Backend {
	out := slices.Clone(bs)
	for i := range out {
		out[i].SharedData = true
	}
	return out
}

// kept is a BE StatefulSet at 3 replicas the spec keeps, after a scale-in this process saw.
func kept(backends ...fe.Backend) beCase {
	in := scaleIn(backends...)
	in.To, in.Active = 3, true
	return in
}

func refusedByFE() error {
	return &mysql.MySQLError{Number: 1064, Message: "It will cause insufficient BE number"}
}

func TestScaleInBackendsDecidesOnFEsWord(t *testing.T) {
	three := []fe.Backend{be(0, false, 9), be(1, false, 9), be(2, false, 9)}
	byIP := func(ord int) fe.Backend {
		return fe.Backend{Host: fmt.Sprintf("10.0.0.%d", 10+ord), HeartbeatPort: 9050, Alive: true, TabletNum: 9}
	}
	cases := []struct {
		name  string
		in    beCase
		check func(t *testing.T, st planned)
	}{
		// Issue 34 item 1: "FE does not list it under my name" is not "FE let it go".
		{"FE lists its BEs by address: nothing shrinks, and the refusal names FE's rows", scaleIn(byIP(0), byIP(1), byIP(2)), func(t *testing.T, st planned) {
			wantHold(t, st, srv1.ReasonScaleInRefused, "FE does not list sr-be-0, sr-be-1 under their pods' names (FE lists 10.0.0.10, 10.0.0.11, 10.0.0.12)")
			if st.end() || len(st.Statements) > 0 || st.refusal() != "" || st.After == 0 {
				t.Errorf("step %+v, want BE held, nothing sent, nothing remembered as FE's refusal, FE read again", st)
			}
		}},
		{"a kept BE FE does not list holds the shrink too", scaleIn(be(0, false, 9)), func(t *testing.T, st planned) {
			wantHold(t, st, srv1.ReasonScaleInRefused, "FE does not list sr-be-1 under their pods' names (FE lists no other BE)")
		}},
		// Issue 34 item 1: a custom cluster DNS domain (the kubelet's
		// --cluster-domain, the operator's --dns-domain-suffix) is matched:
		// any suffix after <service>.<namespace>.svc.
		{"BEs FE lists under a custom cluster domain: the removed one is decommissioned", scaleIn(inDomain(be(0, false, 9)), inDomain(be(1, false, 9)), inDomain(be(2, false, 9))), func(t *testing.T, st planned) {
			if len(st.Statements) != 1 || !strings.Contains(fmt.Sprint(st.Statements[0]), "sr-be-2.sr-be-search.ns.svc.corp.example") {
				t.Errorf("statements %+v, want the DECOMMISSION of sr-be-2 under corp.example", st.Statements)
			}
		}},
		{"every kept BE listed under a custom cluster domain, no removed one: BE shrinks", scaleIn(inDomain(be(0, false, 9)), inDomain(be(1, false, 9))), func(t *testing.T, st planned) {
			wantOnly(t, st, st.end(), "End")
		}},
		{"every kept BE listed, no removed one, a BE of another StatefulSet beside: BE shrinks", scaleIn(be(0, false, 9), be(1, false, 9), fe.Backend{Host: "other-be-0.other-be-search.ns.svc.cluster.local", HeartbeatPort: 9050}), func(t *testing.T, st planned) {
			wantOnly(t, st, st.end(), "End")
		}},
		// Issue 34 items 5 and 6: shared-data is FE's word, and FE keeps a
		// removed shared-data BE's row for ever unless it is dropped.
		{"FE says shared-data: BE shrinks at once, no DECOMMISSION", scaleIn(shared(three)...), func(t *testing.T, st planned) {
			if !st.end() || len(st.Statements) > 0 || len(st.Holds) > 0 {
				t.Errorf("step %+v, want End, nothing sent, nothing held", st)
			}
		}},
		{"FE's rows carry no shared-data column (fe.conf may say so): the removed BE is decommissioned", scaleIn(three...), func(t *testing.T, st planned) {
			if len(st.Statements) != 1 || st.end() {
				t.Errorf("step %+v, want DECOMMISSION of sr-be-2", st)
			}
		}},
		{"after a shared-data scale-in, the removed BE's row is dropped once its pod is gone", with(kept(shared(three)...), func(in *beCase) {
			in.From, in.To, in.Pods = 2, 2, map[int]bool{0: true, 1: true}
		}), func(t *testing.T, st planned) {
			if len(st.Statements) != 1 || st.Statements[0] != (fe.DropBackend{Backend: be(2, false, 0).Address()}) || st.event() == nil {
				t.Errorf("step %+v, want DROP BACKEND sr-be-2 told", st)
			}
		}},
		{"after a shared-data scale-in, a removed BE whose pod still goes waits", with(kept(shared(three)...), func(in *beCase) {
			in.From, in.To, in.Pods = 2, 2, map[int]bool{0: true, 1: true, 2: false}
		}), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 || st.After == 0 || st.clean() != nil {
				t.Errorf("step %+v, want nothing sent, a look again, not clean", st)
			}
		}},
		{"the skip annotation shrinks BE at once", with(scaleIn(three...), func(in *beCase) { in.Skip = true }), func(t *testing.T, st planned) {
			wantOnly(t, st, st.end(), "End")
		}},
		{"a disaster recovery holds BE: nothing asked of FE, nothing ended", with(scaleIn(three...), func(in *beCase) { in.Recovering, in.Read = true, false }), func(t *testing.T, st planned) {
			wantNothing(t, st)
		}},
		{"no BE StatefulSet: nothing to decommission", beCase{}, func(t *testing.T, st planned) {
			wantOnly(t, st, st.end(), "End")
		}},
		{"a BE StatefulSet unchanged since FE was found clean is not looked at", with(kept(), func(in *beCase) { in.Active, in.Checked = false, Checked{Replicas: 3, Known: true} }), func(t *testing.T, st planned) {
			wantOnly(t, st, st.clean() != nil && *st.clean() == 3, "Clean at 3")
		}},
		{"a BE StatefulSet never scaled is not looked at after a restart", with(kept(), func(in *beCase) { in.Active, in.Generation = false, 1 }), func(t *testing.T, st planned) {
			wantOnly(t, st, st.clean() != nil && *st.clean() == 3, "Clean at 3")
		}},
		{"a BE StatefulSet changed before a restart is looked at once", with(kept(), func(in *beCase) { in.Active, in.Read = false, false }), func(t *testing.T, st planned) {
			wantOnly(t, st, st.Needs.Report && !st.Needs.Fresh, "Read")
		}},
		{"a scale-in begins by reading FE afresh", with(scaleIn(), func(in *beCase) { in.Read = false }), func(t *testing.T, st planned) {
			wantOnly(t, st, st.Needs.Fresh && st.Needs.Report, "Begin and Read")
		}},
		{"a scale-in FE refused waits for the spec to change", with(scaleIn(three...), func(in *beCase) { in.Refusal = "FE refused" }), func(t *testing.T, st planned) {
			wantHold(t, st, srv1.ReasonScaleInRefused, "FE refused")
			if !st.Holds[0].Refuses || len(st.Statements) > 0 {
				t.Errorf("step %+v, want a refusal and no statement", st)
			}
		}},
		{"BE keeps its replicas until FE's pods are ready", with(scaleIn(three...), func(in *beCase) { in.FEReady = false }), func(t *testing.T, st planned) {
			wantHold(t, st, srv1.ReasonDecommissioning, "waiting for FE's pods to be ready to decommission sr-be-2; BE keeps 3 replicas")
		}},
		{"without FE's report BE keeps its replicas and looks again", with(scaleIn(), func(in *beCase) { in.Report = nil }), func(t *testing.T, st planned) {
			wantHold(t, st, srv1.ReasonDecommissioning, "reading FE's backends")
			if st.After != 10*time.Second {
				t.Errorf("after %s, want FE's read rate", st.After)
			}
		}},
		{"FE not answering holds BE and names the way out", with(scaleIn(), func(in *beCase) { in.Report.Err = errors.New("dial timeout") }), func(t *testing.T, st planned) {
			if len(st.Holds) != 1 || st.Holds[0].Trouble == nil || !strings.Contains(st.Holds[0].Message, "dial timeout") || !strings.Contains(st.Holds[0].Message, srv1.SkipDecommissionAnnotation+"=true") {
				t.Errorf("holds %+v, want FE's trouble and the skip annotation", st.Holds)
			}
		}},
		{"the removed BEs FE runs as usual are decommissioned in one statement", scaleIn(three...), func(t *testing.T, st planned) {
			if len(st.Statements) != 1 || !reflect.DeepEqual(st.Statements[0], fe.Statement(fe.DecommissionBackends{Backends: []string{be(2, false, 0).Address()}})) {
				t.Errorf("statements %+v, want DECOMMISSION of sr-be-2", st.Statements)
			}
			wantHold(t, st, srv1.ReasonDecommissioning, "FE decommissions sr-be-2; BE keeps 3 replicas")
			if st.event() == nil || st.event().Reason != srv1.ReasonDecommissioning || st.end() {
				t.Errorf("event %+v, end %v", st.event(), st.end())
			}
		}},
		{"a BE FE does not list is not decommissioned: the StatefulSet shrinks", scaleIn(be(0, false, 9), be(1, false, 9)), func(t *testing.T, st planned) {
			if !st.end() || len(st.Statements) > 0 || len(st.Holds) > 0 {
				t.Errorf("step %+v, want the scale-in over", st)
			}
		}},
		{"FE's refusal to decommission refuses the spec and is remembered", scaleIn(three...), func(t *testing.T, st planned) {
			f := st.failed(refusedByFE())
			if f.refusal() == "" || len(f.Holds) != 1 || !f.Holds[0].Refuses || !strings.Contains(f.Holds[0].Message, "insufficient BE number") || len(f.Statements) > 0 {
				t.Errorf("failed step %+v, want FE's refusal remembered and held", f)
			}
		}},
		// Only a capacity refusal is the spec's (issue 34 item 3): FE's other
		// errors are tried again, and the scale-in never stays refused for them.
		{"FE's other errors on DECOMMISSION are not remembered as a refusal", scaleIn(three...), func(t *testing.T, st planned) {
			for _, err := range []error{
				&mysql.MySQLError{Number: 1064, Message: "Backend does not exist[sr-be-2.sr-be-search.ns.svc.cluster.local:9050]"},
				&mysql.MySQLError{Number: 1064, Message: "Internal error processing forward"},
			} {
				if f := st.failed(err); f.refusal() != "" || len(f.Holds) != 1 || f.Holds[0].Refuses || f.Holds[0].Trouble == nil {
					t.Errorf("%v: failed step %+v, want FE's trouble held, unremembered", err, f)
				}
			}
		}},
		{"a decommission FE did not take holds BE on FE's trouble, unremembered", scaleIn(three...), func(t *testing.T, st planned) {
			f := st.failed(errors.New("read timeout"))
			if f.refusal() != "" || len(f.Holds) != 1 || f.Holds[0].Trouble == nil || !strings.HasPrefix(f.Holds[0].Message, ": FE did not take the decommission of sr-be-2") {
				t.Errorf("failed step %+v, want FE's trouble held", f)
			}
		}},
		{"drained BEs FE keeps listed are dropped, and the drain told", scaleIn(be(0, false, 9), be(1, false, 9), be(2, true, 0), be(3, true, 4)), func(t *testing.T, st planned) {
			if len(st.Statements) != 1 || st.Statements[0] != fe.Statement(fe.DropBackend{Backend: be(2, false, 0).Address()}) {
				t.Errorf("statements %+v, want DROP of sr-be-2", st.Statements)
			}
			if st.drained() != 4 {
				t.Errorf("drain %+v, want 4 tablets", st.Holds)
			}
			if f := st.failed(errors.New("x")); len(f.Holds) != 1 || f.Holds[0].Trouble == nil || f.drained() != -1 {
				t.Errorf("failed drop %+v, want FE's trouble and no drain", f)
			}
		}},
		{"raised replicas cancel the decommission of BEs the spec keeps", kept(be(0, false, 9), be(1, false, 9), be(2, true, 5)), func(t *testing.T, st planned) {
			if len(st.Statements) != 1 || !isCancel(st.Statements[0]) || len(st.Holds) > 0 || st.event() == nil || !slices.Equal(st.marks(true), []int{2}) {
				t.Errorf("step %+v, want CANCEL DECOMMISSION told, nothing held, sr-be-2's mark cleared", st)
			}
			if f := st.failed(errors.New("x")); f.Log == nil || len(f.Holds) > 0 {
				t.Errorf("failed step %+v, want it logged only", f)
			}
		}},
		{"a kept BE FE dropped is registered again under FE's DNS domain", kept(
			fe.Backend{Host: "sr-be-0.sr-be-search.ns.svc.example.org", HeartbeatPort: 9050}, fe.Backend{Host: "sr-be-1.sr-be-search.ns.svc.example.org", HeartbeatPort: 9050}),
			func(t *testing.T, st planned) {
				if len(st.Statements) != 1 || st.Statements[0] != fe.Statement(fe.AddBackend{Backend: "sr-be-2.sr-be-search.ns.svc.example.org:9050"}) {
					t.Errorf("statements %+v, want ADD BACKEND of sr-be-2 in example.org", st.Statements)
				}
			}},
		// Issue 34 item 8: only what this operator decided is taken back.
		{"a kept BE a DBA decommissioned by hand (no mark) is left to the DBA", with(kept(be(0, true, 9), be(1, false, 9), be(2, false, 9)), func(in *beCase) { in.Marked = map[int]bool{2: true} }),
			func(t *testing.T, st planned) {
				if len(st.Statements) > 0 || !st.end() {
					t.Errorf("step %+v, want nothing sent (no CANCEL of sr-be-0) and the scale-in over", st)
				}
			}},
		{"a kept BE a DBA dropped (no mark) is not added back", with(kept(be(0, false, 9), be(1, false, 9)), func(in *beCase) { in.Marked = nil }),
			func(t *testing.T, st planned) {
				if len(st.Statements) > 0 {
					t.Errorf("statements %+v, want no ADD BACKEND of sr-be-2", st.Statements)
				}
			}},
		{"the operator marks the pods it decommissions, before the DECOMMISSION", with(scaleIn(be(0, false, 9), be(1, false, 9), be(2, false, 9), be(3, false, 9)), func(in *beCase) { in.From, in.To, in.Marked = 4, 2, nil }),
			func(t *testing.T, st planned) {
				if len(st.Statements) != 1 || !slices.Equal(st.marks(false), []int{2, 3}) {
					t.Errorf("step %+v, want DECOMMISSION of sr-be-2 and sr-be-3, their pods marked first", st)
				}
			}},
		{"with no BE of the StatefulSet listed there is no domain to register BEs under", kept(), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 || !st.end() || st.clean() == nil {
				t.Errorf("step %+v, want the scale-in over", st)
			}
		}},
		{"nothing to take back ends the scale-in and remembers FE clean", kept(three...), func(t *testing.T, st planned) {
			if len(st.Statements) > 0 || !st.end() || st.clean() == nil || *st.clean() != 3 || st.After != 10*time.Second {
				t.Errorf("step %+v, want the scale-in over, clean at 3", st)
			}
		}},
		{"a lowered scale-in takes kept BEs back, then drains the rest", with(scaleIn(be(0, false, 9), be(1, false, 9), be(2, true, 5), be(3, true, 7)), func(in *beCase) { in.From, in.To = 4, 3 }),
			func(t *testing.T, st planned) {
				if len(st.Statements) != 1 || !isCancel(st.Statements[0]) || st.then() == nil || st.then().drained() != 7 {
					t.Errorf("step %+v, want CANCEL then the drain of sr-be-3", st)
				}
				if f := st.failed(errors.New("x")); f.then() == nil || f.then().drained() != 7 {
					t.Errorf("failed step %+v, want the drain told all the same", f)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, tc.in.plan()) })
	}
}

func TestADrainIsStalledOnceNoTabletMovedForTheTimeout(t *testing.T) {
	in := scaleIn(be(0, false, 9), be(1, false, 9), be(2, true, 4))
	in.Report.Statistic.UnhealthyTablets = 4 // the 4 left are of tables that exist: FE still moves them
	d := drainOf(in)
	now := time.Now()
	if h := d.Hold("shown", now.Add(-29*time.Minute), now); h.Reason != srv1.ReasonDecommissioning || h.Message != "shown; BE keeps 3 replicas until FE let them go" {
		t.Errorf("within the timeout: %+v", h)
	}
	if h := d.Hold("shown", now.Add(-30*time.Minute), now); h.Reason != srv1.ReasonDecommissionStalled || !strings.Contains(h.Message, "sr-be-2 (4 tablets)") {
		t.Errorf("at the timeout: %+v", h)
	}
}

// Issue 34 item 7: what a decommission that seems stalled waits on, named
// from FE's own counts: a clone of a large tablet still running (not
// stalled, up to FE's clone timeout), tablets of dropped tables in FE's
// recycle bin (TabletNum counts them, '/statistic' does not), or neither.
func TestAStalledDrainNamesWhatItWaitsOn(t *testing.T) {
	now := time.Now()
	drain := func(stat *fe.Statistic, statErr error) Drain {
		in := scaleIn(be(0, false, 9), be(1, false, 9), be(2, true, 4))
		if stat != nil {
			in.Report.Statistic = *stat
		}
		in.Report.StatisticErr = statErr
		return drainOf(in)
	}
	cases := []struct {
		name   string
		d      Drain
		quiet  time.Duration
		reason string
		says   []string
	}{
		{"FE copies a tablet: not stalled at the timeout", drain(&fe.Statistic{UnhealthyTablets: 4, CloningTablets: 1}, nil), 31 * time.Minute,
			srv1.ReasonDecommissioning, []string{"FE still copies 1 tablets", "up to tablet_sched_max_clone_task_timeout_sec (2 h by default)"}},
		{"FE copies a tablet for longer than its clone timeout: stalled", drain(&fe.Statistic{UnhealthyTablets: 4, CloningTablets: 1}, nil), 30*time.Minute + MaxCloneTime,
			srv1.ReasonDecommissionStalled, []string{"check that the other BEs are alive and have room"}},
		{"FE counts none of the 4 tablets left unhealthy: all in the recycle bin", drain(&fe.Statistic{}, nil), 30 * time.Minute,
			srv1.ReasonDecommissionStalled, []string{"at least 4 of them belong to no table that exists", "information_schema.recyclebin_catalogs", `ADMIN SET FRONTEND CONFIG ("catalog_trash_expire_second" = "600")`, "RECOVER"}},
		{"FE counts 1 of 4 unhealthy: at least 3 in the bin", drain(&fe.Statistic{UnhealthyTablets: 1}, nil), 30 * time.Minute,
			srv1.ReasonDecommissionStalled, []string{"at least 3 of them"}},
		{"every tablet left is unhealthy: the other BEs", drain(&fe.Statistic{UnhealthyTablets: 4}, nil), 30 * time.Minute,
			srv1.ReasonDecommissionStalled, []string{"check that the other BEs are alive and have room"}},
		{"FE gave no count: nothing guessed", drain(nil, errors.New("slow")), 30 * time.Minute,
			srv1.ReasonDecommissionStalled, []string{"check that the other BEs are alive and have room"}},
	}
	for _, tc := range cases {
		h := tc.d.Hold("shown", now.Add(-tc.quiet), now)
		if h.Reason != tc.reason {
			t.Errorf("%s: %s %q, want %s", tc.name, h.Reason, h.Message, tc.reason)
		}
		for _, want := range tc.says {
			if !strings.Contains(h.Message, want) {
				t.Errorf("%s: %q does not say %q", tc.name, h.Message, want)
			}
		}
		if tc.reason == srv1.ReasonDecommissionStalled && strings.Contains(h.Message, "recycle bin") != strings.Contains(tc.name, "bin") {
			t.Errorf("%s: %q names the recycle bin wrongly", tc.name, h.Message)
		}
	}
}

// Issue 50 item 23: a decommission whose tablets of tables that exist have
// all left, and whose BE still holds tablets FE's '/statistic' does not
// count (the recycle bin's, facts sheet §14), says so at once, not only
// after the 30-minute stall timeout. A copy just done leaves a REDUNDANT
// (healthy) tablet whose draining replica FE deletes next: a zero read
// while the count still falls names nothing.
func TestADrainLeftWithOnlyRecycleBinTabletsSaysSoAtOnce(t *testing.T) {
	now := time.Now()
	drain := func(stat *fe.Statistic) Drain {
		in := scaleIn(be(0, false, 9), be(1, false, 9), be(2, true, 4))
		if stat != nil {
			in.Report.Statistic = *stat
		} else {
			in.Report.StatisticErr = errors.New("slow")
		}
		return drainOf(in)
	}
	cases := []struct {
		name  string
		d     Drain
		quiet time.Duration
		bin   bool
	}{
		{"no tablet unhealthy, none copied, count still for 1 minute: the bin, named now", drain(&fe.Statistic{}), time.Minute, true},
		{"the same at 29 minutes", drain(&fe.Statistic{}), 29 * time.Minute, true},
		{"control: the count fell just now (a copied tablet's replica about to go)", drain(&fe.Statistic{}), 5 * time.Second, false},
		{"control: FE still moves tablets of tables that exist", drain(&fe.Statistic{UnhealthyTablets: 2}), time.Minute, false},
		{"control: FE still copies one", drain(&fe.Statistic{CloningTablets: 1}), time.Minute, false},
		{"control: FE gave no count", drain(nil), time.Minute, false},
	}
	for _, tc := range cases {
		h := tc.d.Hold("shown", now.Add(-tc.quiet), now)
		if h.Reason != srv1.ReasonDecommissioning {
			t.Errorf("%s: %s, want %s (within the stall timeout)", tc.name, h.Reason, srv1.ReasonDecommissioning)
		}
		says := strings.Contains(h.Message, "recycle bin") && strings.Contains(h.Message, "DROP TABLE ... FORCE") && strings.Contains(h.Message, "the 4 tablets left")
		if says != tc.bin {
			t.Errorf("%s: names the recycle bin = %v, want %v: %q", tc.name, says, tc.bin, h.Message)
		}
	}
}

// Issue 34 item 7: an older FE refuses a decommission for its own
// '_statistics_' tables (facts sheet §14); the refusal says what to run.
func TestARefusalForAStatisticsTableSaysWhatToRun(t *testing.T) {
	statistics := &mysql.MySQLError{Number: 1064, Message: "Unexpected exception: It will cause insufficient BE number if these BEs are decommissioned because the table _statistics_.column_statistics requires 3 replicas."}
	user := &mysql.MySQLError{Number: 1064, Message: "It will cause insufficient BE number if these BEs are decommissioned because the table db.t requires 3 replicas."}
	for _, tc := range []struct {
		err  error
		says string
		not  string
	}{
		{statistics, `ALTER TABLE _statistics_.column_statistics SET ("replication_num" = "2"); then set spec.starRocksBeSpec.replicas to 3 and back to 2`, ""},
		{user, "the table db.t requires 3 replicas", "ALTER TABLE"},
	} {
		st := scaleIn(be(0, false, 9), be(1, false, 9), be(2, false, 9)).plan()
		if st.Failed == nil {
			t.Fatalf("no DECOMMISSION to fail: %+v", st)
		}
		f := st.failed(tc.err)
		if f.refusal() == "" || !strings.Contains(f.refusal(), tc.says) || (tc.not != "" && strings.Contains(f.refusal(), tc.not)) {
			t.Errorf("refusal %q, want it to say %q and not %q", f.refusal(), tc.says, tc.not)
		}
	}
}

// drainOf is the drain a case's report tells.
func drainOf(c beCase) Drain {
	return c.drain(planBackends(c.Report.Backends, c.Names, int(c.To)), c.Report, podRange(c.Names, c.To, c.From))
}

func with[T any](in T, edit func(*T)) T {
	edit(&in)
	return in
}

// wantOnly fails unless ok, and the step sends nothing and holds nothing.
func wantOnly(t *testing.T, st planned, ok bool, what string) {
	t.Helper()
	if !ok || len(st.Statements) > 0 || len(st.Holds) > 0 || len(st.Delete.Claims) > 0 {
		t.Errorf("step %+v, want %s only", st, what)
	}
}

// wantHold fails unless the step holds once, for reason, saying msg.
func wantHold(t *testing.T, st planned, reason, msg string) {
	t.Helper()
	if len(st.Holds) != 1 || st.Holds[0].Reason != reason || !strings.Contains(st.Holds[0].Message, msg) {
		t.Errorf("holds %+v, want one %s saying %q", st.Holds, reason, msg)
	}
}

func isCancel(s fe.Statement) bool {
	_, ok := s.(fe.CancelDecommission)
	return ok
}

func TestTheDrainIsShownAtMostEvery30s(t *testing.T) {
	var m ScaleIn
	t0 := time.Now()
	steps := []struct {
		after time.Duration
		msg   string
		want  string
	}{
		{0, "10 left", "10 left"},
		{time.Second, "9 left", "10 left"},
		{29 * time.Second, "2 left", "10 left"},
		{30 * time.Second, "2 left", "2 left"},
		{31 * time.Second, "1 left", "2 left"},
	}
	for _, s := range steps {
		m, _ = m.paced(Drain{Message: s.msg}, t0.Add(s.after))
		if got := m.Shown.Value; got != s.want {
			t.Errorf("at +%s with %q the status shows %q, want %q", s.after, s.msg, got, s.want)
		}
	}
}

func TestADrainStallsWhenItsTabletCountStopsFalling(t *testing.T) {
	var m ScaleIn
	t0 := time.Now()
	for _, s := range []struct {
		at      time.Duration
		tablets int
		since   time.Duration
		why     string
	}{
		{0, 10, 0, "first count"},
		{time.Minute, 10, 0, "an unchanged count restarted the clock"},
		{2 * time.Minute, 12, 0, "a rising count restarted the clock"},
		{3 * time.Minute, 9, 3 * time.Minute, "a falling count did not restart the clock"},
	} {
		m, _ = m.paced(Drain{Tablets: s.tablets}, t0.Add(s.at))
		if !m.Lowest.At.Equal(t0.Add(s.since)) {
			t.Errorf("%s: dated %s, want %s", s.why, m.Lowest.At, t0.Add(s.since))
		}
	}
}
