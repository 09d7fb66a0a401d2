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
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/version"
)

// The compatibility pause as a step: what it reads, in how many rounds,
// and that what must survive a SIGKILL (the record) is a write of the same
// step as the statements it records, which the executor makes first.
func TestPlanPause(t *testing.T) {
	minor := ImageCheck{Name: "BE", To: "starrocks/be-ubuntu:3.4.1", Verdict: UpgradePath(version.Reported("3.3.9-abc1234"), version.OfImage("starrocks/be-ubuntu:3.4.1"))}
	steady := &Report{At: time.Now(), Frontends: []fe.Frontend{{Name: "fe0", StartTime: "2026-12-01 10:00:00", Role: "LEADER", Alive: true}},
		Backends: []fe.Backend{{Host: "be-0", Alive: true}}}
	shown := map[string]string{"tablet_sched_max_scheduling_tablets": "2000", "tablet_sched_max_balancing_tablets": "100",
		"disable_balance": "false", "disable_colocate_balance": "true"}
	rec := &PauseRecord{Values: shown}
	unreachable := errors.New("dial tcp: i/o timeout")
	// plan plans as the executor does: each round's needs read, once.
	plan := func(in PauseInput, m Pause, rounds ...Reads) (Step[Pause], Pause, []Needs) {
		var asked []Needs
		var r Reads
		st, next := PlanPause(in, m, r)
		for i := 0; st.Needs.Minus(r.Read).Any(); i++ {
			need := st.Needs.Minus(r.Read)
			asked = append(asked, need)
			given := rounds[i]
			if need.Report {
				r.Read.Report, r.Report, r.Unanswered = true, given.Report, given.Unanswered
			}
			if len(need.Config) > 0 {
				r.Read.Config, r.Config, r.ConfigErr, r.ConfigUnanswered = need.Config, given.Config, given.ConfigErr, given.ConfigUnanswered
			}
			if need.Images {
				r.Read.Images, r.Images = true, given.Images
			}
			st, next = PlanPause(in, next, r)
		}
		return st, next, asked
	}
	changing := PauseInput{CompatibilityIn: CompatibilityIn{Changes: []ImageCheck{minor}, Rolling: []string{"BE"}, Now: time.Now()}, ChangeKey: "BE=" + minor.To, Every: 10 * time.Second}
	recorded := PauseInput{CompatibilityIn: CompatibilityIn{Record: rec, Now: time.Now()}, Every: 10 * time.Second}

	t.Run("no change and no record: FE is not asked, nothing kept", func(t *testing.T) {
		st, m, asked := plan(PauseInput{}, Pause{SetFor: "x", Skipped: "y"})
		if len(asked) > 0 || len(st.Statements) > 0 || m != (Pause{}) {
			t.Errorf("asked %v, step %+v, memory %+v; want nothing", asked, st, m)
		}
	})
	t.Run("a minor change: FE's report and configuration in one read, then the record and the pause in one step", func(t *testing.T) {
		st, m, asked := plan(changing, Pause{}, Reads{Report: steady, Config: shown})
		if len(asked) != 1 || !asked[0].Report || len(asked[0].Config) != 4 {
			t.Fatalf("asked %+v, want FE's report and its four keys at once", asked)
		}
		var got PauseRecord
		if st.Record == nil || st.Record.Annotation != srv1.CompatibilityPauseAnnotation || json.Unmarshal([]byte(st.Record.Value), &got) != nil || got.String() != rec.String() {
			t.Fatalf("record %+v, want FE's values recorded", st.Record)
		}
		if len(st.Statements) != 4 || m.SetFor != Fingerprint(steady) {
			t.Errorf("statements %d, set for %q; want the four pause statements, remembered once sent", len(st.Statements), m.SetFor)
		}
		if f, fm := st.Failed(errors.New("refused")); fm.SetFor != "" || len(f.Holds) != 1 || !f.Holds[0].Template || f.Holds[0].Trouble == nil {
			t.Errorf("failed: %+v, memory %+v; want BE's change held on FE's trouble, nothing remembered set", f, fm)
		}
		if st.Progress == nil || !strings.Contains(st.Progress.Note, "tablet clone and balancing paused") {
			t.Errorf("progress %+v, want the pause told", st.Progress)
		}
	})
	t.Run("FE does not answer its configuration: the change goes on without the pause, said once", func(t *testing.T) {
		st, m, _ := plan(changing, Pause{}, Reads{Report: steady, ConfigErr: unreachable, ConfigUnanswered: true})
		if m.Skipped != changing.ChangeKey || len(st.Events) != 1 || !st.Events[0].Warning || st.Record != nil || len(st.Statements) > 0 {
			t.Fatalf("step %+v, memory %+v; want it skipped, one Warning, nothing written", st, m)
		}
		if again, _, asked := plan(changing, m); len(asked) > 0 || len(again.Events) > 0 {
			t.Errorf("asked again: %v, %+v", asked, again)
		}
	})
	t.Run("FE refuses its configuration: the change is held", func(t *testing.T) {
		st, _, _ := plan(changing, Pause{}, Reads{Report: steady, ConfigErr: errors.New("Access denied")})
		if len(st.Holds) != 1 || st.Holds[0].Trouble == nil || st.Record != nil {
			t.Errorf("step %+v, want BE's change held, nothing recorded", st)
		}
	})
	t.Run("rolled: restored, then the record removed; a record that cannot be removed is retried, not held", func(t *testing.T) {
		st, m, _ := plan(recorded, Pause{SetFor: Fingerprint(steady)}, Reads{Report: steady})
		if st.Record == nil || st.Record.Value != "" || len(st.Statements) != 4 || m.SetFor != "" || len(st.Events) != 1 {
			t.Fatalf("step %+v, memory %+v; want the restore, the record removed, the memory cleared", st, m)
		}
		if f, fm := st.Failed(&RecordError{Err: errors.New("conflict")}); f.Err == nil || len(f.Holds) > 0 || fm.SetFor == "" {
			t.Errorf("record not removed: %+v, memory %+v; want the error retried, the memory kept", f, fm)
		}
	})
	t.Run("an image after FE's change: each FE's image read in a second round", func(t *testing.T) {
		in := recorded
		in.Record = &PauseRecord{Image: "starrocks/fe-ubuntu:3.4.1"}
		_, _, asked := plan(in, Pause{}, Reads{Report: steady}, Reads{Images: map[string]fe.HAInfo{"fe0": {Role: "LEADER", JournalID: 10}}})
		if len(asked) != 2 || !asked[1].Images {
			t.Errorf("asked %+v, want FE's report, then the images", asked)
		}
	})
}
