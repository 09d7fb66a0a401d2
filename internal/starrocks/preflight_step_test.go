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
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// The pre-flight as a step: what it reads, holds and tells, planned as the
// executor plans it (FE's report given when asked for).
func TestPlanPreflight(t *testing.T) {
	t0 := time.Now()
	beChange := func(from, to string) PreflightInput {
		return PreflightInput{Paths: PreflightIn{BE: Workload{Name: "BE", Live: stsWith("sr-be", from, true), Desired: stsWith("sr-be", to, false)}, BENames: beNames},
			Every: 10 * time.Second, Now: t0}
	}
	backends := func(version string, shared bool) *Report {
		return &Report{At: t0, Backends: []fe.Backend{{Host: "sr-be-0.sr-be-search.ns.svc.cluster.local", Version: version, SharedData: shared}}}
	}
	plan := func(in PreflightInput, m PathCheck, rep *Report) (Step[PathCheck], PathCheck, bool) {
		st, m := PlanPreflight(in, m, Reads{})
		asked := st.Needs.Report
		if asked {
			r := Reads{Report: rep}
			r.Read.Report = true
			st, m = PlanPreflight(in, m, r)
		}
		return st, m, asked
	}
	holds := func(st Step[PathCheck]) string {
		var out []string
		for _, h := range st.Holds {
			what := "whole"
			switch {
			case h.Template:
				what = "template"
			case h.ConfigHash:
				what = "confhash"
			}
			out = append(out, string(h.Component)+" "+what+" "+h.Reason)
		}
		return strings.Join(out, ", ")
	}
	cases := []struct {
		name   string
		in     PreflightInput
		memo   PathCheck
		rep    *Report
		asked  bool
		holds  string
		events []string
		check  func(t *testing.T, st Step[PathCheck], m PathCheck)
	}{
		{name: "no change: FE is not read, nothing remembered", in: beChange("starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.3.2"),
			check: func(t *testing.T, _ Step[PathCheck], m PathCheck) {
				if m.Key != "" || m.Decided != nil || m.Notes != nil {
					t.Errorf("memory %+v, want none", m)
				}
			}},
		{name: "the user's off: nothing checked, everything forgotten", in: with(beChange("starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.2.2"), func(in *PreflightInput) { in.Off = true }),
			memo: PathCheck{Key: "BE=x", Notes: map[string]PathNote{"BE": {Image: "x"}}},
			check: func(t *testing.T, _ Step[PathCheck], m PathCheck) {
				if m.Key != "" || m.Notes != nil {
					t.Errorf("memory %+v, want none", m)
				}
			}},
		{name: "a change FE has not reported on since it was seen waits one read, its template kept", in: beChange("starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.2.2"),
			rep: nil, asked: true, holds: "be template " + srv1.ReasonOrderedRollout,
			check: func(t *testing.T, st Step[PathCheck], m PathCheck) {
				if !m.Waiting || m.Decided != nil || st.After != time.Second {
					t.Errorf("waiting %v, decided %v, after %s; want a wait of a tenth of FE's read rate", m.Waiting, m.Decided, st.After)
				}
			}},
		{name: "a downgrade the docs refuse keeps the template, refused", in: beChange("starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.1.2"),
			rep: backends("3.3.2-abc1234", false), asked: true, holds: "be template " + srv1.ReasonUpgradePathRefused,
			check: func(t *testing.T, st Step[PathCheck], m PathCheck) {
				if m.Decided == nil || len(m.Decided.Refused()) != 1 || !st.Holds[0].Refuses {
					t.Errorf("decided %+v, holds %+v; want the refusal decided and held", m.Decided, st.Holds)
				}
			}},
		{name: "a minor skip goes on, told once per new image", in: beChange("starrocks/be-ubuntu:3.1.2", "starrocks/be-ubuntu:3.3.2"),
			rep: backends("3.1.2-abc1234", false), asked: true, events: []string{srv1.ReasonUpgradePathWarning},
			check: func(t *testing.T, st Step[PathCheck], m PathCheck) {
				if st.Progress == nil || !strings.Contains(st.Progress.Note, "upgrade path of BE image starrocks/be-ubuntu:3.3.2") {
					t.Errorf("progress %+v, want the warning", st.Progress)
				}
				again, _, _ := plan(beChange("starrocks/be-ubuntu:3.1.2", "starrocks/be-ubuntu:3.3.2"), m, backends("3.1.2-abc1234", false))
				if len(again.Events) > 0 {
					t.Errorf("told again: %+v", again.Events)
				}
			}},
		{name: "FE cannot be asked: the change goes on, not checked, FE not read", in: with(beChange("starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.2.2"), func(in *PreflightInput) { in.Paths.Unreadable = "no FE pod is Ready" }),
			check: func(t *testing.T, st Step[PathCheck], m PathCheck) {
				if m.Decided == nil || len(m.Decided.Unchecked()) != 1 || st.Progress == nil || !strings.Contains(st.Progress.Note, "no FE pod is Ready") {
					t.Errorf("decided %+v, progress %+v; want it unchecked, said", m.Decided, st.Progress)
				}
			}},
		{name: "an fe.conf change waits for FE's report, template and .conf hash kept", in: PreflightInput{ConfChanging: true, Every: 10 * time.Second, Now: t0},
			asked: true, holds: "fe template " + srv1.ReasonOrderedRollout + ", fe confhash "},
		{name: "an fe.conf change to shared-data on a shared-nothing FE is refused", in: PreflightInput{ConfChanging: true, SharedData: true, Now: t0},
			rep: backends("3.3.2-abc1234", false), asked: true, holds: "fe template " + srv1.ReasonUpgradePathRefused + ", fe confhash "},
		{name: "an fe.conf change in FE's own mode goes on", in: PreflightInput{ConfChanging: true, SharedData: true, Now: t0},
			rep: backends("3.3.2-abc1234", true), asked: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, m, asked := plan(tc.in, tc.memo, tc.rep)
			if asked != tc.asked {
				t.Errorf("FE read %v, want %v", asked, tc.asked)
			}
			if got := holds(st); got != tc.holds {
				t.Errorf("holds %q, want %q", got, tc.holds)
			}
			var events []string
			for _, e := range st.Events {
				events = append(events, e.Reason)
			}
			if strings.Join(events, ",") != strings.Join(tc.events, ",") {
				t.Errorf("events %v, want %v", events, tc.events)
			}
			if tc.check != nil {
				tc.check(t, st, m)
			}
		})
	}
	if c := componentTitled("CN"); c != resources.ComponentCN {
		t.Errorf("CN titled %s", c)
	}
}
