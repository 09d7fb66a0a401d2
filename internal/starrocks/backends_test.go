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

// scaleIn is a BE scale-in from 3 to 2 replicas, FE ready and read. Every
// pod carries the operator's decommission mark unless a case says otherwise.
func scaleIn(backends ...fe.Backend) BackendScaleIn {
	return BackendScaleIn{Exists: true, Names: beNames, From: 3, To: 2, Generation: 2, FEReady: true, Read: true,
		Report: &Report{At: time.Now(), Backends: backends}, Every: 10 * time.Second, HeartbeatPort: 9050, Stall: 30 * time.Minute,
		Marked: map[int]bool{0: true, 1: true, 2: true, 3: true}}
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
func kept(backends ...fe.Backend) BackendScaleIn {
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
		in    BackendScaleIn
		check func(t *testing.T, st Step)
	}{
		// Issue 34 item 1: "FE does not list it under my name" is not "FE let it go".
		{"FE lists its BEs by address: nothing shrinks, and the refusal names FE's rows", scaleIn(byIP(0), byIP(1), byIP(2)), func(t *testing.T, st Step) {
			wantHold(t, st, srv1.ReasonScaleInRefused, "FE does not list sr-be-0, sr-be-1 under their pods' names (FE lists 10.0.0.10, 10.0.0.11, 10.0.0.12)")
			if st.End || len(st.Statements) > 0 || st.Refusal != "" || st.After == 0 {
				t.Errorf("step %+v, want BE held, nothing sent, nothing remembered as FE's refusal, FE read again", st)
			}
		}},
		{"a kept BE FE does not list holds the shrink too", scaleIn(be(0, false, 9)), func(t *testing.T, st Step) {
			wantHold(t, st, srv1.ReasonScaleInRefused, "FE does not list sr-be-1 under their pods' names (FE lists no other BE)")
		}},
		// Issue 34 item 1: a custom cluster DNS domain (the kubelet's
		// --cluster-domain, the operator's --dns-domain-suffix) is matched:
		// any suffix after <service>.<namespace>.svc.
		{"BEs FE lists under a custom cluster domain: the removed one is decommissioned", scaleIn(inDomain(be(0, false, 9)), inDomain(be(1, false, 9)), inDomain(be(2, false, 9))), func(t *testing.T, st Step) {
			if len(st.Statements) != 1 || !strings.Contains(fmt.Sprint(st.Statements[0]), "sr-be-2.sr-be-search.ns.svc.corp.example") {
				t.Errorf("statements %+v, want the DECOMMISSION of sr-be-2 under corp.example", st.Statements)
			}
		}},
		{"every kept BE listed under a custom cluster domain, no removed one: BE shrinks", scaleIn(inDomain(be(0, false, 9)), inDomain(be(1, false, 9))), func(t *testing.T, st Step) {
			wantOnly(t, st, st.End, "End")
		}},
		{"every kept BE listed, no removed one, a BE of another StatefulSet beside: BE shrinks", scaleIn(be(0, false, 9), be(1, false, 9), fe.Backend{Host: "other-be-0.other-be-search.ns.svc.cluster.local", HeartbeatPort: 9050}), func(t *testing.T, st Step) {
			wantOnly(t, st, st.End, "End")
		}},
		// Issue 34 items 5 and 6: shared-data is FE's word, and FE keeps a
		// removed shared-data BE's row for ever unless it is dropped.
		{"FE says shared-data: BE shrinks at once, no DECOMMISSION", scaleIn(shared(three)...), func(t *testing.T, st Step) {
			if !st.End || len(st.Statements) > 0 || len(st.Holds) > 0 {
				t.Errorf("step %+v, want End, nothing sent, nothing held", st)
			}
		}},
		{"FE's rows carry no shared-data column (fe.conf may say so): the removed BE is decommissioned", scaleIn(three...), func(t *testing.T, st Step) {
			if len(st.Statements) != 1 || st.End {
				t.Errorf("step %+v, want DECOMMISSION of sr-be-2", st)
			}
		}},
		{"after a shared-data scale-in, the removed BE's row is dropped once its pod is gone", with(kept(shared(three)...), func(in *BackendScaleIn) {
			in.From, in.To, in.Pods = 2, 2, map[int]bool{0: true, 1: true}
		}), func(t *testing.T, st Step) {
			if len(st.Statements) != 1 || st.Statements[0] != (fe.DropBackend{Backend: be(2, false, 0).Address()}) || st.Event == nil {
				t.Errorf("step %+v, want DROP BACKEND sr-be-2 told", st)
			}
		}},
		{"after a shared-data scale-in, a removed BE whose pod still goes waits", with(kept(shared(three)...), func(in *BackendScaleIn) {
			in.From, in.To, in.Pods = 2, 2, map[int]bool{0: true, 1: true, 2: false}
		}), func(t *testing.T, st Step) {
			if len(st.Statements) > 0 || st.After == 0 || st.Clean != nil {
				t.Errorf("step %+v, want nothing sent, a look again, not clean", st)
			}
		}},
		{"the skip annotation shrinks BE at once", with(scaleIn(three...), func(in *BackendScaleIn) { in.Skip = true }), func(t *testing.T, st Step) {
			wantOnly(t, st, st.End, "End")
		}},
		{"a disaster recovery holds BE: nothing asked of FE, nothing ended", with(scaleIn(three...), func(in *BackendScaleIn) { in.Recovering, in.Read = true, false }), func(t *testing.T, st Step) {
			wantNothing(t, st)
		}},
		{"no BE StatefulSet: nothing to decommission", BackendScaleIn{}, func(t *testing.T, st Step) {
			wantOnly(t, st, st.End, "End")
		}},
		{"a BE StatefulSet unchanged since FE was found clean is not looked at", with(kept(), func(in *BackendScaleIn) { in.Active, in.Checked = false, Checked{Replicas: 3, Known: true} }), func(t *testing.T, st Step) {
			wantOnly(t, st, st.Clean != nil && *st.Clean == 3, "Clean at 3")
		}},
		{"a BE StatefulSet never scaled is not looked at after a restart", with(kept(), func(in *BackendScaleIn) { in.Active, in.Generation = false, 1 }), func(t *testing.T, st Step) {
			wantOnly(t, st, st.Clean != nil && *st.Clean == 3, "Clean at 3")
		}},
		{"a BE StatefulSet changed before a restart is looked at once", with(kept(), func(in *BackendScaleIn) { in.Active, in.Read = false, false }), func(t *testing.T, st Step) {
			wantOnly(t, st, st.Read && !st.Begin, "Read")
		}},
		{"a scale-in begins by reading FE afresh", with(scaleIn(), func(in *BackendScaleIn) { in.Read = false }), func(t *testing.T, st Step) {
			wantOnly(t, st, st.Begin && st.Read, "Begin and Read")
		}},
		{"a scale-in FE refused waits for the spec to change", with(scaleIn(three...), func(in *BackendScaleIn) { in.Refusal = "FE refused" }), func(t *testing.T, st Step) {
			wantHold(t, st, srv1.ReasonScaleInRefused, "FE refused")
			if !st.Holds[0].Refuses || len(st.Statements) > 0 {
				t.Errorf("step %+v, want a refusal and no statement", st)
			}
		}},
		{"BE keeps its replicas until FE's pods are ready", with(scaleIn(three...), func(in *BackendScaleIn) { in.FEReady = false }), func(t *testing.T, st Step) {
			wantHold(t, st, srv1.ReasonDecommissioning, "waiting for FE's pods to be ready to decommission sr-be-2; BE keeps 3 replicas")
		}},
		{"without FE's report BE keeps its replicas and looks again", with(scaleIn(), func(in *BackendScaleIn) { in.Report = nil }), func(t *testing.T, st Step) {
			wantHold(t, st, srv1.ReasonDecommissioning, "reading FE's backends")
			if st.After != 10*time.Second {
				t.Errorf("after %s, want FE's read rate", st.After)
			}
		}},
		{"FE not answering holds BE and names the way out", with(scaleIn(), func(in *BackendScaleIn) { in.Report.Err = errors.New("dial timeout") }), func(t *testing.T, st Step) {
			if len(st.Holds) != 1 || st.Holds[0].Trouble == nil || !strings.Contains(st.Holds[0].Message, "dial timeout") || !strings.Contains(st.Holds[0].Message, srv1.SkipDecommissionAnnotation+"=true") {
				t.Errorf("holds %+v, want FE's trouble and the skip annotation", st.Holds)
			}
		}},
		{"the removed BEs FE runs as usual are decommissioned in one statement", scaleIn(three...), func(t *testing.T, st Step) {
			if len(st.Statements) != 1 || !reflect.DeepEqual(st.Statements[0], fe.Statement(fe.DecommissionBackends{Backends: []string{be(2, false, 0).Address()}})) {
				t.Errorf("statements %+v, want DECOMMISSION of sr-be-2", st.Statements)
			}
			wantHold(t, st, srv1.ReasonDecommissioning, "FE decommissions sr-be-2; BE keeps 3 replicas")
			if st.Event == nil || st.Event.Reason != srv1.ReasonDecommissioning || st.End {
				t.Errorf("event %+v, end %v", st.Event, st.End)
			}
		}},
		{"a BE FE does not list is not decommissioned: the StatefulSet shrinks", scaleIn(be(0, false, 9), be(1, false, 9)), func(t *testing.T, st Step) {
			if !st.End || len(st.Statements) > 0 || len(st.Holds) > 0 {
				t.Errorf("step %+v, want the scale-in over", st)
			}
		}},
		{"FE's refusal to decommission refuses the spec and is remembered", scaleIn(three...), func(t *testing.T, st Step) {
			f := st.Failed(refusedByFE())
			if f.Refusal == "" || len(f.Holds) != 1 || !f.Holds[0].Refuses || !strings.Contains(f.Holds[0].Message, "insufficient BE number") || len(f.Statements) > 0 {
				t.Errorf("failed step %+v, want FE's refusal remembered and held", f)
			}
		}},
		// Only a capacity refusal is the spec's (issue 34 item 3): FE's other
		// errors are tried again, and the scale-in never stays refused for them.
		{"FE's other errors on DECOMMISSION are not remembered as a refusal", scaleIn(three...), func(t *testing.T, st Step) {
			for _, err := range []error{
				&mysql.MySQLError{Number: 1064, Message: "Backend does not exist[sr-be-2.sr-be-search.ns.svc.cluster.local:9050]"},
				&mysql.MySQLError{Number: 1064, Message: "Internal error processing forward"},
			} {
				if f := st.Failed(err); f.Refusal != "" || len(f.Holds) != 1 || f.Holds[0].Refuses || f.Holds[0].Trouble == nil {
					t.Errorf("%v: failed step %+v, want FE's trouble held, unremembered", err, f)
				}
			}
		}},
		{"a decommission FE did not take holds BE on FE's trouble, unremembered", scaleIn(three...), func(t *testing.T, st Step) {
			f := st.Failed(errors.New("read timeout"))
			if f.Refusal != "" || len(f.Holds) != 1 || f.Holds[0].Trouble == nil || !strings.HasPrefix(f.Holds[0].Message, ": FE did not take the decommission of sr-be-2") {
				t.Errorf("failed step %+v, want FE's trouble held", f)
			}
		}},
		{"drained BEs FE keeps listed are dropped, and the drain told", scaleIn(be(0, false, 9), be(1, false, 9), be(2, true, 0), be(3, true, 4)), func(t *testing.T, st Step) {
			if len(st.Statements) != 1 || st.Statements[0] != fe.Statement(fe.DropBackend{Backend: be(2, false, 0).Address()}) {
				t.Errorf("statements %+v, want DROP of sr-be-2", st.Statements)
			}
			if st.Drain == nil || st.Drain.Tablets != 4 || st.Tablets == nil || *st.Tablets != 4 {
				t.Errorf("drain %+v, want 4 tablets", st.Drain)
			}
			if f := st.Failed(errors.New("x")); len(f.Holds) != 1 || f.Holds[0].Trouble == nil || f.Drain != nil {
				t.Errorf("failed drop %+v, want FE's trouble and no drain", f)
			}
		}},
		{"raised replicas cancel the decommission of BEs the spec keeps", kept(be(0, false, 9), be(1, false, 9), be(2, true, 5)), func(t *testing.T, st Step) {
			if len(st.Statements) != 1 || !isCancel(st.Statements[0]) || len(st.Holds) > 0 || st.Event == nil || !slices.Equal(st.Unmark, []int{2}) {
				t.Errorf("step %+v, want CANCEL DECOMMISSION told, nothing held, sr-be-2's mark cleared", st)
			}
			if f := st.Failed(errors.New("x")); f.Log == nil || len(f.Holds) > 0 {
				t.Errorf("failed step %+v, want it logged only", f)
			}
		}},
		{"a kept BE FE dropped is registered again under FE's DNS domain", kept(
			fe.Backend{Host: "sr-be-0.sr-be-search.ns.svc.example.org", HeartbeatPort: 9050}, fe.Backend{Host: "sr-be-1.sr-be-search.ns.svc.example.org", HeartbeatPort: 9050}),
			func(t *testing.T, st Step) {
				if len(st.Statements) != 1 || st.Statements[0] != fe.Statement(fe.AddBackend{Backend: "sr-be-2.sr-be-search.ns.svc.example.org:9050"}) {
					t.Errorf("statements %+v, want ADD BACKEND of sr-be-2 in example.org", st.Statements)
				}
			}},
		// Issue 34 item 8: only what this operator decided is taken back.
		{"a kept BE a DBA decommissioned by hand (no mark) is left to the DBA", with(kept(be(0, true, 9), be(1, false, 9), be(2, false, 9)), func(in *BackendScaleIn) { in.Marked = map[int]bool{2: true} }),
			func(t *testing.T, st Step) {
				if len(st.Statements) > 0 || !st.End {
					t.Errorf("step %+v, want nothing sent (no CANCEL of sr-be-0) and the scale-in over", st)
				}
			}},
		{"a kept BE a DBA dropped (no mark) is not added back", with(kept(be(0, false, 9), be(1, false, 9)), func(in *BackendScaleIn) { in.Marked = nil }),
			func(t *testing.T, st Step) {
				if len(st.Statements) > 0 {
					t.Errorf("statements %+v, want no ADD BACKEND of sr-be-2", st.Statements)
				}
			}},
		{"the operator marks the pods it decommissions, before the DECOMMISSION", with(scaleIn(be(0, false, 9), be(1, false, 9), be(2, false, 9), be(3, false, 9)), func(in *BackendScaleIn) { in.From, in.To, in.Marked = 4, 2, nil }),
			func(t *testing.T, st Step) {
				if len(st.Statements) != 1 || !slices.Equal(st.MarkDecommissioned, []int{2, 3}) {
					t.Errorf("step %+v, want DECOMMISSION of sr-be-2 and sr-be-3, their pods marked first", st)
				}
			}},
		{"with no BE of the StatefulSet listed there is no domain to register BEs under", kept(), func(t *testing.T, st Step) {
			if len(st.Statements) > 0 || !st.End || st.Clean == nil {
				t.Errorf("step %+v, want the scale-in over", st)
			}
		}},
		{"nothing to take back ends the scale-in and remembers FE clean", kept(three...), func(t *testing.T, st Step) {
			if len(st.Statements) > 0 || !st.End || st.Clean == nil || *st.Clean != 3 || st.After != 10*time.Second {
				t.Errorf("step %+v, want the scale-in over, clean at 3", st)
			}
		}},
		{"a lowered scale-in takes kept BEs back, then drains the rest", with(scaleIn(be(0, false, 9), be(1, false, 9), be(2, true, 5), be(3, true, 7)), func(in *BackendScaleIn) { in.From, in.To = 4, 3 }),
			func(t *testing.T, st Step) {
				if len(st.Statements) != 1 || !isCancel(st.Statements[0]) || st.Then == nil || st.Then.Drain == nil || st.Then.Drain.Tablets != 7 {
					t.Errorf("step %+v, want CANCEL then the drain of sr-be-3", st)
				}
				if f := st.Failed(errors.New("x")); f.Then == nil || f.Then.Drain == nil {
					t.Errorf("failed step %+v, want the drain told all the same", f)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, ScaleInBackends(tc.in)) })
	}
}

func TestADrainIsStalledOnceNoTabletMovedForTheTimeout(t *testing.T) {
	d := ScaleInBackends(scaleIn(be(0, false, 9), be(1, false, 9), be(2, true, 4))).Drain
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
		return *ScaleInBackends(in).Drain
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
		st := ScaleInBackends(scaleIn(be(0, false, 9), be(1, false, 9), be(2, false, 9)))
		if st.Failed == nil {
			t.Fatalf("no DECOMMISSION to fail: %+v", st)
		}
		f := st.Failed(tc.err)
		if f.Refusal == "" || !strings.Contains(f.Refusal, tc.says) || (tc.not != "" && strings.Contains(f.Refusal, tc.not)) {
			t.Errorf("refusal %q, want it to say %q and not %q", f.Refusal, tc.says, tc.not)
		}
	}
}

func with[T any](in T, edit func(*T)) T {
	edit(&in)
	return in
}

// wantOnly fails unless ok, and the step sends nothing and holds nothing.
func wantOnly(t *testing.T, st Step, ok bool, what string) {
	t.Helper()
	if !ok || len(st.Statements) > 0 || len(st.Holds) > 0 || len(st.DeleteClaims) > 0 {
		t.Errorf("step %+v, want %s only", st, what)
	}
}

// wantHold fails unless the step holds once, for reason, saying msg.
func wantHold(t *testing.T, st Step, reason, msg string) {
	t.Helper()
	if len(st.Holds) != 1 || st.Holds[0].Reason != reason || !strings.Contains(st.Holds[0].Message, msg) {
		t.Errorf("holds %+v, want one %s saying %q", st.Holds, reason, msg)
	}
}

func isCancel(s fe.Statement) bool {
	_, ok := s.(fe.CancelDecommission)
	return ok
}
