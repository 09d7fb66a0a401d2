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
	"slices"
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
				r.Read.Images, r.Images, r.ImagesErr = true, given.Images, given.ImagesErr
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
	t.Run("a skipped change whose next write waits behind the order (FE kept behind BE): still skipped when FE's write comes, no second Warning", func(t *testing.T) {
		feMinor := ImageCheck{Name: "FE", To: "starrocks/fe-ubuntu:3.4.1", Verdict: minor.Verdict}
		both := PauseInput{CompatibilityIn: CompatibilityIn{Changes: []ImageCheck{feMinor, minor}, Rolling: []string{"BE", "FE"}, Now: time.Now(),
			Kept: map[string]string{"FE": "FE waits for BE"}}, ChangeKey: "BE=" + minor.To + ";FE=" + feMinor.To, Every: 10 * time.Second}
		_, m, _ := plan(both, Pause{}, Reads{Report: steady, ConfigErr: unreachable, ConfigUnanswered: true})
		// BE written and rolling: FE's change alone, still kept by the order.
		kept := PauseInput{CompatibilityIn: CompatibilityIn{Changes: []ImageCheck{feMinor}, Rolling: []string{"BE", "FE"}, Now: time.Now(),
			Kept: map[string]string{"FE": "FE waits for BE"}}, ChangeKey: "FE=" + feMinor.To, Every: 10 * time.Second}
		_, m, _ = plan(kept, m)
		// BE done: FE's StatefulSet is written now.
		written := kept
		written.Kept = nil
		if st, _, asked := plan(written, m, Reads{Report: steady, ConfigErr: unreachable, ConfigUnanswered: true}); len(asked) > 0 || len(st.Events) > 0 {
			t.Errorf("FE's write after the kept reconcile: asked %v, events %+v; want the skip remembered, no second Warning", asked, st.Events)
		}
		// The change over: the memory goes.
		if _, m, _ = plan(PauseInput{}, m); m != (Pause{}) {
			t.Errorf("memory %+v after the change, want nothing", m)
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
	setConfigFailed := errors.New("Error 1064 (HY000): Set config failed: set config for fe[fe-2] failed: Read timed out")
	t.Run("pause and restore statements go each as their own attempt", func(t *testing.T) {
		st, _, _ := plan(changing, Pause{}, Reads{Report: steady, Config: shown})
		restore, _, _ := plan(recorded, Pause{SetFor: Fingerprint(steady)}, Reads{Report: steady})
		if !st.Independent || !restore.Independent {
			t.Errorf("pause independent %v, restore independent %v; want both", st.Independent, restore.Independent)
		}
	})
	t.Run("the pause fails on an FE that does not answer, FE's leader holds it: the change goes on, the FE named in a Warning", func(t *testing.T) {
		st, _, _ := plan(changing, Pause{}, Reads{Report: steady, Config: shown})
		f, m := st.Failed(setConfigFailed)
		if m.Unconfirmed == nil || m.Unconfirmed.Restore || m.SetFor != "" || len(f.Holds) != 1 || f.Err != nil {
			t.Fatalf("failed: %+v, memory %+v; want the change held, the pause to confirm on the leader", f, m)
		}
		paused := map[string]string{}
		for k, v := range PausedValues() {
			paused[k] = v
		}
		next, m2, asked := plan(PauseInput{CompatibilityIn: CompatibilityIn{Changes: changing.Changes, Rolling: changing.Rolling, Record: rec, Now: time.Now()}, ChangeKey: changing.ChangeKey, Every: 10 * time.Second},
			m, Reads{Report: steady, Config: paused})
		if len(asked) != 1 || !asked[0].Leader || len(asked[0].Config) != 4 {
			t.Fatalf("asked %+v, want FE's report and the leader's four keys", asked)
		}
		if m2.Unconfirmed != nil || m2.SetFor != Fingerprint(steady) || len(next.Holds) > 0 || len(next.Events) != 1 || !next.Events[0].Warning || !strings.Contains(next.Events[0].Note, "fe[fe-2]") {
			t.Errorf("step %+v, memory %+v; want the pause in force, the change free, one Warning naming fe-2", next, m2)
		}
	})
	t.Run("the pause fails on an FE pod being replaced (FE lists it Alive about 20 s after its process ended), or one that restarted since: the leader holds it, nothing told; a running FE that did not answer is told", func(t *testing.T) {
		names := PodNames{StatefulSet: "c-fe", HeadlessService: "c-fe-search", Namespace: "ns"}
		host := "c-fe-2.c-fe-search.ns.svc.cluster.local"
		failed := "Error 1064 (HY000): Set config failed: set config for fe[" + host + "] failed: Read timed out"
		row := func(start string) fe.Frontend {
			return fe.Frontend{Name: "fe2", Host: host, StartTime: start, Role: "FOLLOWER", Alive: true}
		}
		before := &Report{At: time.Now(), Frontends: []fe.Frontend{steady.Frontends[0], row("2026-12-01 10:00:00")}, Backends: steady.Backends}
		after := &Report{At: time.Now(), Frontends: []fe.Frontend{steady.Frontends[0], row("2026-12-01 10:09:00")}, Backends: steady.Backends}
		paused := PausedValues()
		for _, tc := range []struct {
			name     string
			notReady map[int]bool
			report   *Report
			told     bool
		}{
			{"its pod not Ready", map[int]bool{2: true}, before, false},
			{"restarted since the pause was sent", map[int]bool{}, after, false},
			{"control: Ready and the same process", map[int]bool{}, before, true},
		} {
			m := Pause{Unconfirmed: &Unconfirmed{Want: paused, SetFor: Fingerprint(before), Err: failed}}
			in := PauseInput{CompatibilityIn: CompatibilityIn{Changes: changing.Changes, Rolling: changing.Rolling, Record: rec, Now: time.Now(),
				FENames: names, FENotReady: tc.notReady}, ChangeKey: changing.ChangeKey, Every: 10 * time.Second}
			next, m2, _ := plan(in, m, Reads{Report: tc.report, Config: paused})
			if m2.Unconfirmed != nil || len(next.Holds) > 0 || (len(next.Events) == 1) != tc.told {
				t.Errorf("%s: step %+v, memory %+v; want the pause in force, told %v", tc.name, next, m2, tc.told)
			}
		}
		if got := silentFEs("Set config failed: set config for fe[a] failed: x;set config for fe[b] failed: y"); !slices.Equal(got, []string{"a", "b"}) {
			t.Errorf("silentFEs = %q, want [a b]", got)
		}
	})
	t.Run("control: the leader does not hold the pause: the change stays held, the pause sent again after the back-off", func(t *testing.T) {
		m := Pause{Unconfirmed: &Unconfirmed{Want: PausedValues(), SetFor: Fingerprint(steady), Err: setConfigFailed.Error()}}
		next, m2, _ := plan(PauseInput{CompatibilityIn: CompatibilityIn{Changes: changing.Changes, Rolling: changing.Rolling, Record: rec, Now: time.Now()}, ChangeKey: changing.ChangeKey, Every: 10 * time.Second},
			m, Reads{Report: steady, Config: shown})
		if m2.Unconfirmed != nil || m2.SetFor != "" || len(next.Holds) != 1 || !next.BackOff {
			t.Errorf("step %+v, memory %+v; want the change held and the pause tried again", next, m2)
		}
	})
	t.Run("the restore fails on an FE that does not answer, FE's leader holds the values: the record removed, the FE named", func(t *testing.T) {
		st, _, _ := plan(recorded, Pause{SetFor: Fingerprint(steady)}, Reads{Report: steady})
		_, m := st.Failed(setConfigFailed)
		if m.Unconfirmed == nil || !m.Unconfirmed.Restore || !m.Unconfirmed.Clear {
			t.Fatalf("memory %+v, want the restore to confirm", m)
		}
		next, m2, _ := plan(recorded, m, Reads{Report: steady, Config: shown})
		if next.Record == nil || next.Record.Value != "" || m2.Unconfirmed != nil || len(next.Events) != 2 {
			t.Errorf("step %+v, memory %+v; want the record removed, the restore and the FE told", next, m2)
		}
	})
	t.Run("the image step past its limit: the values restored before the record loses them, each key its own attempt", func(t *testing.T) {
		in := recorded
		in.Record = &PauseRecord{Values: shown, Image: "starrocks/fe-ubuntu:3.4.1"}
		in.Now = time.Now()
		m := Pause{SetFor: Fingerprint(steady), ImageFor: imageKey(in.Record), ImageFrom: in.Now.Add(-ImageWaitLimit - time.Second), ImageWhy: "GET /api/show_meta_info?action=SHOW_HA: HTTP 401"}
		st, _, _ := plan(in, m, Reads{Report: steady}, Reads{Images: map[string]fe.HAInfo{}, ImagesErr: errors.New("FE fe0: HTTP 401")})
		if st.Record != nil || len(st.Statements) != 4 || !st.Independent || st.Then == nil || st.Then.Record == nil {
			t.Fatalf("step %+v; want the restore's statements first, no record before them, the record rewritten after", st)
		}
		var after PauseRecord
		if err := json.Unmarshal([]byte(st.Then.Record.Value), &after); err != nil || after.Paused() || after.Image != in.Record.Image {
			t.Errorf("record after %q, want the image still due, no values", st.Then.Record.Value)
		}
		if len(st.Events) != 1 || !st.Events[0].Warning || !strings.Contains(st.Events[0].Note, "HTTP 401") || st.Progress == nil || !strings.Contains(st.Progress.Note, "not confirmed") {
			t.Errorf("events %+v, progress %+v; want why told in one Warning and the status", st.Events, st.Progress)
		}
		_, fm := st.Failed(setConfigFailed)
		if fm.Unconfirmed == nil || fm.Unconfirmed.After == nil || fm.Unconfirmed.Clear {
			t.Errorf("failed memory %+v; want the rewrite to wait for the leader's word", fm)
		}
	})
	t.Run("ALTER SYSTEM CREATE IMAGE refused: the step's start kept, so the limit still ends it", func(t *testing.T) {
		in := recorded
		in.Record = &PauseRecord{Values: shown, Image: "starrocks/fe-ubuntu:3.4.1"}
		in.Now = time.Now()
		st, m, _ := plan(in, Pause{SetFor: Fingerprint(steady)}, Reads{Report: steady}, Reads{Images: map[string]fe.HAInfo{"fe0": {Role: "LEADER", JournalID: 10}}})
		if len(st.Statements) != 1 || m.ImageFrom.IsZero() {
			t.Fatalf("step %+v, memory %+v; want CREATE IMAGE, the step's start remembered", st, m)
		}
		_, fm := st.Failed(errors.New("Access denied; you need (at least one of) the NODE privilege(s)"))
		if fm.ImageFrom != m.ImageFrom || !strings.Contains(fm.ImageWhy, "NODE") {
			t.Errorf("memory after the refusal %+v, want the start and FE's refusal kept", fm)
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

// After FE answered a pause with an error, the leader's word is waited for
// while FE's report is not in, and a leader that cannot be read sends the
// pause again on the step's back-off: no wait without an end.
func TestConfirmOnTheLeaderIsBounded(t *testing.T) {
	minor := ImageCheck{Name: "BE", To: "starrocks/be-ubuntu:3.4.1", Verdict: UpgradePath(version.Reported("3.3.9-abc1234"), version.OfImage("starrocks/be-ubuntu:3.4.1"))}
	in := PauseInput{CompatibilityIn: CompatibilityIn{Changes: []ImageCheck{minor}, Rolling: []string{"BE"}, Record: &PauseRecord{Values: map[string]string{}}, Now: time.Now()}, Every: 10 * time.Second}
	m := Pause{Unconfirmed: &Unconfirmed{Want: PausedValues(), SetFor: "fp", Err: "Set config failed"}}
	read := Reads{Read: Needs{Report: true, Config: PauseKeys(), Leader: true}}
	st, next := PlanPause(in, m, read)
	if next.Unconfirmed == nil || len(st.Holds) != 1 || st.After == 0 {
		t.Errorf("no report: step %+v, memory %+v; want the change held while FE's report is waited for", st, next)
	}
	read.Report, read.ConfigErr = &Report{Frontends: []fe.Frontend{{Name: "fe0", Role: "LEADER", Alive: true}}}, errors.New("dial tcp: connection refused")
	st, next = PlanPause(in, m, read)
	if next.Unconfirmed != nil || !st.BackOff || len(st.Holds) != 1 {
		t.Errorf("leader unreadable: step %+v, memory %+v; want the pause sent again on the back-off", st, next)
	}
}
