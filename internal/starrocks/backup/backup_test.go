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

package backup

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

var day0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func at(h, m int) time.Time {
	return day0.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
}

func mustSchedule(t *testing.T, expr, zone string) Schedule {
	t.Helper()
	s, err := ParseSchedule(expr, zone)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDue(t *testing.T) {
	nightly := mustSchedule(t, "0 1 * * *", "")
	hour := time.Hour
	cases := []struct {
		name     string
		s        Schedule
		created  time.Time
		last     *time.Time
		now      time.Time
		deadline *time.Duration
		suspend  bool
		start    *time.Time
		skipped  int64
		next     time.Time
	}{
		{name: "before the first run nothing starts", s: nightly, created: at(0, 0), now: at(0, 59), next: at(1, 0)},
		{name: "at the scheduled time the run starts", s: nightly, created: at(0, 0), now: at(1, 0), start: ptr.To(at(1, 0)), next: at(25, 0)},
		{name: "a run already started is not started again", s: nightly, created: at(0, 0), last: ptr.To(at(1, 0)), now: at(1, 5), next: at(25, 0)},
		{name: "after a 10-day outage one run starts, the newest, and nine are skipped", s: nightly, created: at(0, 0), last: ptr.To(at(1, 0)),
			now: at(10*24+2, 0), start: ptr.To(at(10*24+1, 0)), skipped: 9, next: at(11*24+1, 0)},
		{name: "a run later than the starting deadline is skipped", s: nightly, created: at(0, 0), now: at(3, 0), deadline: &hour, skipped: 1, next: at(25, 0)},
		{name: "a run within the starting deadline starts", s: nightly, created: at(0, 0), now: at(1, 30), deadline: &hour, start: ptr.To(at(1, 0)), next: at(25, 0)},
		{name: "a suspended schedule starts nothing", s: nightly, created: at(0, 0), now: at(1, 0), suspend: true, next: at(25, 0)},
		{name: "a schedule created after today's time waits for tomorrow", s: nightly, created: at(2, 0), now: at(3, 0), next: at(25, 0)},
		{name: "the time zone decides the hour", s: mustSchedule(t, "0 1 * * *", "Asia/Tokyo"), created: at(0, 0), now: at(23, 0), next: at(40, 0),
			start: ptr.To(at(16, 0))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Due(c.s, c.created, c.last, c.now, c.deadline, c.suspend)
			if !ptrTimeEqual(got.Start, c.start) || got.Skipped != c.skipped || !got.Next.Equal(c.next) {
				t.Fatalf("got start %v skipped %d next %v; want start %v skipped %d next %v", deref(got.Start), got.Skipped, got.Next, deref(c.start), c.skipped, c.next)
			}
		})
	}
}

func ptrTimeEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func deref(t *time.Time) any {
	if t == nil {
		return "none"
	}
	return *t
}

func TestBadSchedulesAreRefusedWithTheirReason(t *testing.T) {
	cases := []struct{ name, expr, zone, reason string }{
		{"six fields (seconds) are not taken", "0 0 1 * * *", "", srv1.ReasonInvalidSchedule},
		{"a word is no schedule", "nightly", "", srv1.ReasonInvalidSchedule},
		{"a zone in the expression bypasses timeZone", "CRON_TZ=Asia/Tokyo 0 1 * * *", "", srv1.ReasonInvalidSchedule},
		{"an unknown zone", "0 1 * * *", "Mars/Olympus", srv1.ReasonInvalidTimeZone},
		{"a descriptor is a schedule", "@daily", "Europe/Berlin", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := RefuseSchedule(c.expr, c.zone)
			if (r == nil) != (c.reason == "") || r != nil && r.Reason != c.reason {
				t.Fatalf("got %+v, want reason %q", r, c.reason)
			}
		})
	}
}

var labelForm = regexp.MustCompile(`^k8s_[a-z0-9_]+$`)

func TestLabelsAreDerivedFromTheScheduledTime(t *testing.T) {
	run := time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC)
	cases := []struct{ name, got, want string }{
		{"a schedule's run", ScheduledLabel("nightly", "sales", run), "k8s_nightly_sales_20261206t0100z"},
		{"the same run made again is the same label", ScheduledLabel("nightly", "sales", run.Add(0)), "k8s_nightly_sales_20261206t0100z"},
		{"a run in another zone is labelled in UTC", ScheduledLabel("nightly", "sales", run.In(time.FixedZone("x", 9*3600))), "k8s_nightly_sales_20261206t0100z"},
		{"dashes and dots become underscores", ScheduledLabel("my-nightly", "Sales.EU", run), "k8s_my_nightly_sales_eu_20261206t0100z"},
		{"an ad-hoc backup from its creation", AdHocLabel("before-upgrade", "ops", run), "k8s_before_upgrade_ops_20261206t0100z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Fatalf("got %s, want %s", c.got, c.want)
			}
		})
	}
	long := ScheduledLabel(strings.Repeat("s", 50), strings.Repeat("d", 40), run)
	if len(long) != MaxLabel || !labelForm.MatchString(long) || long == ScheduledLabel(strings.Repeat("s", 50), strings.Repeat("d", 41), run) {
		t.Fatalf("a long label is cut with a hash of the whole: %s (%d)", long, len(long))
	}
	if a, b := ObjectName("nightly", "a_b", run), ObjectName("nightly", "a-b", run); a == b || a != "nightly-a-b-"+a[len("nightly-a-b-"):] {
		t.Fatalf("two databases, two names: %s %s", a, b)
	}
	if got := ObjectName("nightly", "sales", run); got != "nightly-sales-202612060100" {
		t.Fatalf("a clean database keeps its name: %s", got)
	}
}

func TestTheSlot(t *testing.T) {
	self := SlotJob{Kind: "StarRocksBackup", Name: "b", Created: at(1, 0), Phase: srv1.BackupPending, Label: "k8s_b"}
	cases := []struct {
		name   string
		others []SlotJob
		fe     []*FEJob
		want   Slot
	}{
		{name: "a free slot is taken", want: Slot{Start: true}},
		{name: "a running job of ours is never displaced", others: []SlotJob{{Kind: "StarRocksBackup", Name: "z", Created: at(2, 0), Phase: srv1.BackupRunning}},
			want: Slot{Reason: srv1.ReasonSlotBusy, HeldBy: "StarRocksBackup z"}},
		{name: "a restore of the same database holds it too", others: []SlotJob{{Kind: "StarRocksRestore", Name: "r", Created: at(0, 0), Phase: srv1.BackupRunning}},
			want: Slot{Reason: srv1.ReasonSlotBusy, HeldBy: "StarRocksRestore r"}},
		{name: "first come first served", others: []SlotJob{{Kind: "StarRocksBackup", Name: "a", Created: at(0, 30), Phase: srv1.BackupPending}},
			want: Slot{Reason: srv1.ReasonSlotBusy, HeldBy: "StarRocksBackup a"}},
		{name: "at the same time, by name", others: []SlotJob{{Kind: "StarRocksBackup", Name: "a", Created: at(1, 0), Phase: srv1.BackupPending}},
			want: Slot{Reason: srv1.ReasonSlotBusy, HeldBy: "StarRocksBackup a"}},
		{name: "one that came later waits behind", others: []SlotJob{{Kind: "StarRocksBackup", Name: "c", Created: at(1, 30), Phase: srv1.BackupPending}}, want: Slot{Start: true}},
		{name: "ended ones do not count", others: []SlotJob{{Kind: "StarRocksBackup", Name: "a", Created: at(0, 0), Phase: srv1.BackupSucceeded}}, want: Slot{Start: true}},
		{name: "a user's job holds the slot, named", fe: []*FEJob{{Label: "manual_1"}},
			want: Slot{Reason: srv1.ReasonHeldByForeignJob, HeldBy: "FE job manual_1 (not the operator's)"}},
		{name: "a finished user's job does not", fe: []*FEJob{{Label: "manual_1", Done: true}}, want: Slot{Start: true}},
		{name: "its own job found in FE is no holder (a resend after a restart)", fe: []*FEJob{{Label: "k8s_b"}}, want: Slot{Start: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := TakeSlot(self, c.others, c.fe); got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestRetention(t *testing.T) {
	now := at(30*24, 0)
	good := func(name, db string, daysAgo int) Kept {
		done := now.Add(-time.Duration(daysAgo) * 24 * time.Hour)
		return Kept{Name: name, Database: db, Label: "k8s_" + name, Phase: srv1.BackupSucceeded, Created: done.Add(-time.Minute), Completed: done}
	}
	failed := func(name, db string, daysAgo int) Kept {
		k := good(name, db, daysAgo)
		k.Phase = srv1.BackupFailed
		return k
	}
	week := 7 * 24 * time.Hour
	names := func(ps []Prune) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		slices.Sort(out)
		return out
	}
	cases := []struct {
		name    string
		backups []Kept
		policy  Policy
		canDrop bool
		unsafe  bool
		prune   []string
		drops   bool
		kept    bool
	}{
		{name: "keepLast keeps the newest n per database", backups: []Kept{good("a1", "a", 3), good("a2", "a", 2), good("a3", "a", 1), good("b1", "b", 3)},
			policy: Policy{KeepLast: ptr.To(int32(2))}, prune: []string{"a1"}, kept: true},
		{name: "maxAge deletes what is older", backups: []Kept{good("a1", "a", 10), good("a2", "a", 1)}, policy: Policy{MaxAge: &week}, prune: []string{"a1"}, kept: true},
		{name: "both limits must allow a deletion", backups: []Kept{good("a1", "a", 10), good("a2", "a", 9), good("a3", "a", 1)},
			policy: Policy{KeepLast: ptr.To(int32(3)), MaxAge: &week}},
		{name: "the newest good backup stays however old", backups: []Kept{good("a1", "a", 20), good("a2", "a", 10), failed("f1", "a", 1)},
			policy: Policy{MaxAge: &week, KeepFailed: 1}, prune: []string{"a1"}, kept: true},
		{name: "control: without the rule the last good backup goes", backups: []Kept{good("a1", "a", 20), good("a2", "a", 10), failed("f1", "a", 1)},
			policy: Policy{MaxAge: &week, KeepFailed: 1}, unsafe: true, prune: []string{"a1", "a2"}, kept: true},
		{name: "running and pending backups are never pruned", backups: []Kept{{Name: "r", Database: "a", Phase: srv1.BackupRunning}, {Name: "p", Database: "a", Phase: srv1.BackupPending}},
			policy: Policy{KeepLast: ptr.To(int32(1)), MaxAge: &week}},
		{name: "failed ones beyond keepFailed go, without their data", backups: []Kept{failed("f1", "a", 3), failed("f2", "a", 2), failed("f3", "a", 1)},
			policy: Policy{KeepFailed: 2, DeleteData: true}, canDrop: true, prune: []string{"f1"}},
		{name: "on 4.2 with deleteData the snapshot is dropped", backups: []Kept{good("a1", "a", 3), good("a2", "a", 1)},
			policy: Policy{KeepLast: ptr.To(int32(1)), DeleteData: true}, canDrop: true, prune: []string{"a1"}, drops: true},
		{name: "below 4.2 only the object goes, and the schedule says so", backups: []Kept{good("a1", "a", 3), good("a2", "a", 1)},
			policy: Policy{KeepLast: ptr.To(int32(1)), DeleteData: true}, prune: []string{"a1"}, kept: true},
		{name: "no limits keep everything", backups: []Kept{good("a1", "a", 300), good("a2", "a", 1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Retain(c.backups, c.policy, now, c.canDrop, c.unsafe)
			if !slices.Equal(names(got.Prune), c.prune) || got.DataKept != c.kept {
				t.Fatalf("pruned %v (data kept %v), want %v (%v)", names(got.Prune), got.DataKept, c.prune, c.kept)
			}
			for _, p := range got.Prune {
				if p.DropSnapshot != c.drops {
					t.Fatalf("%s: drop %v, want %v", p.Name, p.DropSnapshot, c.drops)
				}
			}
		})
	}
	if got := LifecyclePrefix("s3a://b/sr/", "nightly_s3"); got != "s3a://b/sr/__starrocks_repository_nightly_s3/__ss_" {
		t.Fatalf("prefix %s", got)
	}
}

func TestFEStatesAndThePhaseThatNeverGoesBack(t *testing.T) {
	cases := []struct {
		name, state, status string
		restore             bool
		want                Outcome
	}{
		{"a new backup prepares", "PENDING", "[OK]", false, Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonPreparing}},
		{"uploading", "UPLOADING", "[OK]", false, Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonUploading}},
		{"a finished backup is verified in the repository first", "FINISHED", "[OK]", false, Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonUploading, Verify: true}},
		{"a timeout", "CANCELLED", "[TIMEOUT, msg: ]", false, Outcome{Phase: srv1.BackupFailed, Reason: srv1.ReasonJobTimeout}},
		{"a cancel", "CANCELLED", "[COMMON_ERROR, msg: user cancelled]", false, Outcome{Phase: srv1.BackupFailed, Reason: srv1.ReasonFECancelled}},
		{"an unknown state runs on", "MERGING", "[OK]", false, Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonSubmitted}},
		{"a restore commits", "COMMITTING", "[OK]", true, Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonCommitting}},
		{"a restore finishes", "FINISHED", "[OK]", true, Outcome{Phase: srv1.BackupSucceeded, Reason: srv1.ReasonBackupComplete}},
		{"a restore times out", "CANCELLED", "[TIMEOUT, msg: restore job with label: l  timeout.]", true, Outcome{Phase: srv1.BackupFailed, Reason: srv1.ReasonJobTimeout}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ReadBackup(c.state, c.status)
			if c.restore {
				got = ReadRestore(c.state, c.status)
			}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
	if Advance(srv1.BackupRunning, srv1.BackupPending) != srv1.BackupRunning || Advance(srv1.BackupSucceeded, srv1.BackupRunning) != srv1.BackupSucceeded ||
		Advance(srv1.BackupPending, srv1.BackupRunning) != srv1.BackupRunning {
		t.Fatal("a phase never goes back")
	}
	for state, may := range map[string]bool{"PENDING": true, "DOWNLOADING": true, "COMMIT": false, "COMMITTING": false, "FINISHED": false} {
		if MayCancelRestore(state, false) != may {
			t.Errorf("cancel in %s: %v", state, !may)
		}
	}
	if MayCancelRestore("DOWNLOADING", true) {
		t.Error("a restore seen past COMMIT once is never cancelled, whatever a stale answer says")
	}
}

func TestVersionGates(t *testing.T) {
	cases := []struct {
		name     string
		versions []string
		want     Features
	}{
		{"3.3 has the old forms only", []string{"3.3.10-227b0b3"}, Features{Known: true, Version: "3.3.10"}},
		{"3.4.1 renames on restore", []string{"3.4.1-abc1234"}, Features{Known: true, Version: "3.4.1", RenameOnRestore: true, CreatesRestoreDatabase: true}},
		{"3.4.2 has the cluster snapshot", []string{"3.4.2-abc1234"}, Features{Known: true, Version: "3.4.2", RenameOnRestore: true, CreatesRestoreDatabase: true, ClusterSnapshot: true}},
		{"4.2 drops snapshots", []string{"4.2.0-abc1234"}, Features{Known: true, Version: "4.2.0", RenameOnRestore: true, CreatesRestoreDatabase: true, ClusterSnapshot: true, DropSnapshot: true, TTL: true}},
		{"a rollout half way takes the lower", []string{"4.2.0-abc1234", "4.1.3-abc1234"}, Features{Known: true, Version: "4.1.3", RenameOnRestore: true, CreatesRestoreDatabase: true, ClusterSnapshot: true}},
		{"no version, no gate open", []string{"NULL"}, Features{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := FeaturesOf(c.versions); got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	v33 := FeaturesOf([]string{"3.3.10-227b0b3"})
	cases := []struct {
		name   string
		got    *Refusal
		reason string
	}{
		{"ttl below 4.2", RefuseTTL("7 DAY", v33), srv1.ReasonTTLUnsupported},
		{"ttl on 4.2", RefuseTTL("7 DAY", FeaturesOf([]string{"4.2.0-a1b2c3d"})), ""},
		{"a database FE does not list", RefuseDatabase("nope", []string{"sales"}), srv1.ReasonDatabaseNotFound},
		{"a database FE lists", RefuseDatabase("sales", []string{"sales"}), ""},
		{"an overwrite not asked for", RefuseOverwrite(srv1.ExistingTablesRefuse, "sales", []string{"orders"}, []string{"orders", "x"}), srv1.ReasonTargetExists},
		{"an overwrite asked for", RefuseOverwrite(srv1.ExistingTablesOverwrite, "sales", []string{"orders"}, []string{"orders"}), ""},
		{"no table in the way", RefuseOverwrite("", "sales", []string{"orders"}, nil), ""},
		{"a repository name FE has elsewhere", RefuseRepositoryName("r", "s3a://a", "s3a://b"), srv1.ReasonRepositoryNameTaken},
		{"the same place, a trailing slash apart", RefuseRepositoryName("r", "s3a://a/", "s3a://a"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if (c.got == nil) != (c.reason == "") || c.got != nil && c.got.Reason != c.reason {
				t.Fatalf("got %+v, want %q", c.got, c.reason)
			}
		})
	}
}
