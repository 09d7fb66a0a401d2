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

package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/backup"
	"github.com/srscale/starrocks-operator/test/faulttable"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// Backup and restore (docs/backup.md) on the simulated cluster: FE does
// the work, the operator sends one statement per action and keeps the
// books. The simulated FEs and the operator share a clock that runs at the
// real pace and that a test moves on by days at once.

// runningClock is a fake clock that moves on by itself, clockPace times
// the real pace (FE's heartbeats go on, its backup rounds every 3 s come
// faster), and that a test steps by hours or days.
type runningClock struct {
	*clocktesting.FakeClock
}

func newRunningClock(t *testing.T, start time.Time) runningClock {
	t.Helper()
	return newRunningClockAt(t, start, clockPace)
}

// newRunningClockAt is a running clock at pace times the real pace.
func newRunningClockAt(t *testing.T, start time.Time, pace int) runningClock {
	t.Helper()
	fc := clocktesting.NewFakeClock(start)
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				fc.Step(time.Duration(pace) * 50 * time.Millisecond)
			}
		}
	}()
	return runningClock{fc}
}

// backupConfig is the operator's backup settings in these tests: the
// shared clock, FE read every second.
func backupConfig(clk runningClock) *backup.Config {
	return &backup.Config{Clock: clk.FakeClock, PollEvery: time.Second, TalkEvery: 500 * time.Millisecond}
}

const s3Location = "s3a://backups/sr"

// clockPace is how much faster than real time the shared clock runs.
const clockPace = 4

// s3Repository is a repository of cluster, keys from Secret <name>-keys,
// named repo in FE at s3Location.
func s3Repository(t *testing.T, c *testcluster.Cluster, ns, name, cluster string, readOnly bool) *srv1.StarRocksBackupRepository {
	t.Helper()
	return s3RepositoryAt(t, c, ns, name, cluster, "repo", s3Location, readOnly)
}

func s3RepositoryAt(t *testing.T, c *testcluster.Cluster, ns, name, cluster, sqlName, location string, readOnly bool) *srv1.StarRocksBackupRepository {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-keys"}, Data: map[string][]byte{"access_key": []byte("AKIA" + name), "secret_key": []byte("s3cret-" + name)}}
	if err := client.IgnoreAlreadyExists(c.Client.Create(t.Context(), secret)); err != nil {
		t.Fatal(err)
	}
	repo := &srv1.StarRocksBackupRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: srv1.StarRocksBackupRepositorySpec{
		StarRocksCluster: cluster, Name: sqlName, Location: location, ReadOnly: readOnly,
		S3: &srv1.S3Repository{Region: "us-east-1", Credentials: srv1.S3Credentials{SecretRef: &srv1.S3SecretRef{Name: secret.Name}}}}}
	if err := c.Client.Create(t.Context(), repo); err != nil {
		t.Fatal(err)
	}
	return repo
}

// backupPhase waits for a backup's phase.
func backupPhase(t *testing.T, c *testcluster.Cluster, ns, name string, want srv1.BackupPhase, timeout time.Duration) *srv1.StarRocksBackup {
	t.Helper()
	b := &srv1.StarRocksBackup{}
	err := pollFor(timeout, func(ctx context.Context) bool {
		return get(ctx, c.Client, ns, name, b) == nil && b.Status.Phase == want
	})
	if err != nil {
		st, _ := json.MarshalIndent(b.Status, "", "  ")
		t.Fatalf("backup %s/%s: not %s after %s; status:\n%s", ns, name, want, timeout, st)
	}
	return b
}

func restorePhase(t *testing.T, c *testcluster.Cluster, ns, name string, want srv1.BackupPhase, timeout time.Duration) *srv1.StarRocksRestore {
	t.Helper()
	r := &srv1.StarRocksRestore{}
	err := pollFor(timeout, func(ctx context.Context) bool {
		return get(ctx, c.Client, ns, name, r) == nil && r.Status.Phase == want
	})
	if err != nil {
		st, _ := json.MarshalIndent(r.Status, "", "  ")
		t.Fatalf("restore %s/%s: not %s after %s; status:\n%s", ns, name, want, timeout, st)
	}
	return r
}

func pollFor(timeout time.Duration, cond func(ctx context.Context) bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		if cond(ctx) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stalledWith waits for obj's Stalled condition with reason.
func stalledWith(t *testing.T, c *testcluster.Cluster, obj client.Object, conds func() []metav1.Condition, reason string) {
	t.Helper()
	if err := pollFor(30*time.Second, func(ctx context.Context) bool {
		if c.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj) != nil {
			return false
		}
		cond := meta.FindStatusCondition(conds(), srv1.ConditionStalled)
		return cond != nil && cond.Status == metav1.ConditionTrue && cond.Reason == reason
	}); err != nil {
		t.Fatalf("%s: no Stalled=%s: %+v", obj.GetName(), reason, conds())
	}
}

// backupStatements are the BACKUP and RESTORE statements f answered
// without an error, and the job labels they started.
func jobsStarted(f *simstarrocks.StarRocks, prefix string) []string {
	var out []string
	for _, a := range f.Answers() {
		if a.Error == "" && strings.HasPrefix(a.Statement, prefix) {
			out = append(out, a.Statement)
		}
	}
	return out
}

// backupCluster is FE 1 and BE be on the simulated cluster, running, with
// its simulated FE on clk and store; FE's data is db1.t1 and db2.t2.
func backupClusterOn(t *testing.T, c *testcluster.Cluster, dir *feDirectory, ns, name string, be int32, opts simstarrocks.Options) *simstarrocks.StarRocks {
	t.Helper()
	return backupClusterWith(t, c, dir, ns, name, 1, be, opts)
}

func backupClusterWith(t *testing.T, c *testcluster.Cluster, dir *feDirectory, ns, name string, fes, be int32, opts simstarrocks.Options) *simstarrocks.StarRocks {
	t.Helper()
	f := startFE(t, dir, ns, name, opts)
	src := beCluster(ns, name, be)
	src.Spec.StarRocksFeSpec.Replicas = ptr.To(fes)
	if err := c.Client.Create(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, ns, name, 2*time.Minute)
	if err := pollFor(time.Minute, func(context.Context) bool { return aliveBEs(f) == int(be) }); err != nil {
		t.Fatalf("%d BEs alive", aliveBEs(f))
	}
	return f
}

func TestBackupAndRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	t.Parallel()
	c, dir := simulatedWithStarRocks(t)
	// The clock starts at the real time: the API server stamps objects
	// with it (a schedule's runs come after its creation).
	clk := newRunningClock(t, time.Now().UTC().Truncate(time.Second))
	const ns = "backup"
	testutil.CreateNamespace(t, c.Client, ns)
	op := startOperator(t, c, ns, operatorOptions{workers: 4, fe: dir.resolve, feLookEvery: time.Second, backup: backupConfig(clk)})
	store := simstarrocks.NewObjectStore()

	t.Run("a backup, then its restore into a second cluster from a read-only repository", func(t *testing.T) {
		ctx := t.Context()
		f := backupClusterOn(t, c, dir, ns, "src", 1, simstarrocks.Options{Clock: clk.FakeClock, Store: store, ClusterID: 1})
		if err := f.CreateTable("sales", "orders", 1, 4); err != nil {
			t.Fatal(err)
		}
		s3Repository(t, c, ns, "src-repo", "src", false)
		b := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "once"}, Spec: srv1.StarRocksBackupSpec{StarRocksCluster: "src", Repository: "src-repo", Database: "sales"}}
		if err := c.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		done := backupPhase(t, c, ns, "once", srv1.BackupSucceeded, time.Minute)
		if n := len(jobsStarted(f, "BACKUP")); n != 1 {
			t.Errorf("%d BACKUP statements taken, want 1", n)
		}
		if !strings.HasPrefix(done.Status.Label, "k8s_once_sales_") || done.Status.Timestamp == "" || done.Status.FEState != "FINISHED" {
			t.Errorf("status: %+v", done.Status)
		}

		g := backupClusterOn(t, c, dir, ns, "dst", 1, simstarrocks.Options{Clock: clk.FakeClock, Store: store, ClusterID: 2, Version: "3.4"})
		s3Repository(t, c, ns, "dst-repo", "dst", true)
		one := int32(1)
		r := &srv1.StarRocksRestore{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "into-dst"}, Spec: srv1.StarRocksRestoreSpec{
			StarRocksCluster: "dst", Repository: "dst-repo", ReplicationNum: &one,
			Source: srv1.RestoreSource{Snapshot: &srv1.RestoreSnapshot{Label: done.Status.Label, Timestamp: done.Status.Timestamp, Database: "sales"}}}}
		if err := c.Client.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		got := restorePhase(t, c, ns, "into-dst", srv1.BackupSucceeded, time.Minute)
		if !got.Status.PastPointOfNoReturn || got.Status.TargetDatabase != "sales" {
			t.Errorf("restore status: %+v", got.Status)
		}
		if from := g.RestoredFrom("sales", "orders"); from != done.Status.Label {
			t.Errorf("dst sales.orders restored from %q, want %q", from, done.Status.Label)
		}
		if n := len(jobsStarted(g, "RESTORE")); n != 1 {
			t.Errorf("%d RESTORE statements taken, want 1", n)
		}
	})

	t.Run("a nightly schedule of two databases across 10 days: one run a night, retention keeps 3 and never the data below 4.2; after an outage of three nights one run", func(t *testing.T) {
		testNightlySchedule(t, c, dir, clk, op, store)
	})
	t.Run("retention by age keeps the newest good backup; without the rule it deletes the last one", func(t *testing.T) {
		testNewestGoodBackupKept(t, c, dir, clk, store)
	})
	// One cluster for the tests that need only a database of their own.
	// Made on the parent test: a subtest's cleanup would stop its FE.
	parent := t
	var work *simstarrocks.StarRocks
	workCluster := func(*testing.T) *simstarrocks.StarRocks {
		if work == nil {
			work = backupClusterOn(parent, c, dir, ns, "work", 1, simstarrocks.Options{Clock: clk.FakeClock, BackupTabletTime: 2 * time.Second})
		}
		return work
	}
	t.Run("on StarRocks 4.2 retention deletes the data with DROP SNAPSHOT, never FORCE", func(t *testing.T) {
		testDropSnapshotOn42(t, c, dir, clk)
	})
	t.Run("a credentials change is DROP and CREATE of the repository, asked for by annotation", func(t *testing.T) {
		testCredentialsRotation(t, c, workCluster(t))
	})
	t.Run("a user's BACKUP holds the database: named in status, then the operator's runs once", func(t *testing.T) {
		testForeignJobHoldsTheSlot(t, c, workCluster(t))
	})
	t.Run("a restore that would overwrite tables is refused; with existingTables: Overwrite it runs", func(t *testing.T) {
		testRefusedOverwrite(t, c, workCluster(t))
	})
	t.Run("a BE stopped mid-upload and an FE leader change mid-upload: the backup waits, then succeeds, one job", func(t *testing.T) {
		testFaultsMidUpload(t, c, dir, clk)
	})
	t.Run("an unreachable repository: nothing fails for good, the backup runs once the store answers", func(t *testing.T) {
		testUnreachableRepository(t, c, workCluster(t))
	})
	t.Run("bad input: one condition, one Event, no statement", func(t *testing.T) {
		testBackupBadInput(t, c, workCluster(t))
	})
	t.Run("the shared-data cluster snapshot setting: on, its state in status, off only with confirmPurge", func(t *testing.T) {
		testClusterSnapshotSetting(t, c, dir, clk)
	})
}

// statusWrites counts the operator's writes of the status of a kind
// ("starrocksbackups/status").
func statusWrites(l *requestLog, since int, resource string) int {
	n := 0
	for _, r := range l.since(since) {
		if isWrite(r) && r.resource == resource {
			n++
		}
	}
	return n
}

func testNightlySchedule(t *testing.T, c *testcluster.Cluster, dir *feDirectory, clk runningClock, op *operator, store *simstarrocks.ObjectStore) {
	ctx := t.Context()
	const ns = "backup"
	f := backupClusterOn(t, c, dir, ns, "nightly", 1, simstarrocks.Options{Clock: clk.FakeClock, Store: store, ClusterID: 3})
	for _, db := range []string{"db1", "db2"} {
		if err := f.CreateTable(db, "t", 1, 2); err != nil {
			t.Fatal(err)
		}
	}
	repo := s3Repository(t, c, ns, "nightly-repo", "nightly", false)
	repo.Spec.Name = "nightly_repo"
	mark := op.log.mark()
	sched := &srv1.StarRocksBackupSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly"}, Spec: srv1.StarRocksBackupScheduleSpec{
		StarRocksCluster: "nightly", Repository: "nightly-repo", Databases: []string{"db1", "db2"}, Schedule: "0 1 * * *", TimeZone: "UTC",
		Retention: srv1.BackupRetention{KeepLast: ptr.To(int32(3)), DeleteData: true}}}
	if err := c.Client.Create(ctx, sched); err != nil {
		t.Fatal(err)
	}
	owned := func() map[string][]srv1.StarRocksBackup {
		list := &srv1.StarRocksBackupList{}
		if err := c.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{backup.LabelSchedule: "nightly"}); err != nil {
			t.Fatal(err)
		}
		out := map[string][]srv1.StarRocksBackup{}
		for _, b := range list.Items {
			out[b.Spec.Database] = append(out[b.Spec.Database], b)
		}
		return out
	}
	// The first 01:00 UTC after now.
	start := clk.Now().UTC().Truncate(24 * time.Hour).Add(time.Hour)
	if !start.After(clk.Now()) {
		start = start.AddDate(0, 0, 1)
	}
	for day := range 10 {
		run := start.AddDate(0, 0, day)
		// The operator's cache shows the last night's backups ended: a run
		// skips a database whose previous backup still runs.
		op.log.waitQuiet(time.Second, 10*time.Second)
		clk.SetTime(run.Add(time.Second))
		for _, db := range []string{"db1", "db2"} {
			backupPhase(t, c, ns, fmt.Sprintf("nightly-%s-%s", db, run.Format("200601021504")), srv1.BackupSucceeded, time.Minute)
		}
		// Between runs: the schedule costs no FE statement and no API request.
		if day == 2 {
			op.log.waitQuiet(2*time.Second, 20*time.Second)
			before, feBefore := op.log.mark(), len(backupStatementsOf(f))
			clk.SetTime(run.Add(20 * time.Hour))
			time.Sleep(3 * time.Second)
			var backupRequests []request
			for _, r := range op.log.since(before) {
				if strings.HasPrefix(r.resource, "starrocksbackup") || strings.HasPrefix(r.resource, "starrocksrestore") {
					backupRequests = append(backupRequests, r)
				}
			}
			if n := len(backupStatementsOf(f)) - feBefore; n != 0 || len(backupRequests) != 0 {
				t.Errorf("20 idle hours of a schedule: %d backup statements to FE, %d API requests of the backup kinds, want 0 and 0:\n%s", n, len(backupRequests), summary(backupRequests))
			}
		}
	}
	// An outage: the operator sees no clock for three nights (the clock
	// jumps past them). One missed run starts, the newest; two are skipped.
	skippedBefore := func() int64 {
		s := &srv1.StarRocksBackupSchedule{}
		if err := get(ctx, c.Client, ns, "nightly", s); err != nil {
			t.Fatal(err)
		}
		return s.Status.SkippedRuns
	}()
	op.log.waitQuiet(time.Second, 10*time.Second)
	outage := start.AddDate(0, 0, 12)
	clk.SetTime(outage.Add(2 * time.Hour))
	for _, db := range []string{"db1", "db2"} {
		backupPhase(t, c, ns, fmt.Sprintf("nightly-%s-%s", db, outage.Format("200601021504")), srv1.BackupSucceeded, time.Minute)
		for _, missed := range []time.Time{start.AddDate(0, 0, 10), start.AddDate(0, 0, 11)} {
			if err := get(ctx, c.Client, ns, fmt.Sprintf("nightly-%s-%s", db, missed.Format("200601021504")), &srv1.StarRocksBackup{}); err == nil {
				t.Errorf("%s: the run of %s missed in the outage started too", db, missed.Format(time.DateOnly))
			}
		}
	}
	if err := pollFor(10*time.Second, func(ctx context.Context) bool {
		s := &srv1.StarRocksBackupSchedule{}
		return get(ctx, c.Client, ns, "nightly", s) == nil && s.Status.SkippedRuns == skippedBefore+2
	}); err != nil {
		t.Errorf("skippedRuns: not %d after three missed nights", skippedBefore+2)
	}
	got := owned()
	for _, db := range []string{"db1", "db2"} {
		var succeeded []string
		for _, b := range got[db] {
			if b.Status.Phase == srv1.BackupSucceeded {
				succeeded = append(succeeded, b.Name)
			}
		}
		// keepLast: 3, pruned as each new one succeeded.
		if err := pollFor(10*time.Second, func(context.Context) bool { return len(owned()[db]) == 3 }); err != nil || len(succeeded) < 3 {
			t.Errorf("%s: %d backups (%d succeeded), want 3: %v", db, len(owned()[db]), len(succeeded), succeeded)
		}
		newest := fmt.Sprintf("nightly-%s-%s", db, outage.Format("200601021504"))
		if !slices.Contains(succeeded, newest) {
			t.Errorf("%s: the newest backup %s is not kept: %v", db, newest, succeeded)
		}
	}
	// Below 4.2 the data stays, every night's, and the schedule says where to expire it.
	if snaps := store.Snapshots(s3Location, "repo"); len(snaps) < 22 {
		t.Errorf("%d snapshots in the repository, want the 11 nights' (none deleted below 4.2)", len(snaps))
	}
	s := &srv1.StarRocksBackupSchedule{}
	if err := get(ctx, c.Client, ns, "nightly", s); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(s.Status.Conditions, srv1.ConditionRetentionDataNotDeleted); cond == nil || cond.Status != metav1.ConditionTrue ||
		!strings.Contains(cond.Message, s3Location+"/__starrocks_repository_repo/__ss_") {
		t.Errorf("RetentionDataNotDeleted: %+v", cond)
	}
	if n := len(jobsStarted(f, "BACKUP")); n != 22 {
		t.Errorf("%d BACKUP statements taken for 11 nights of 2 databases, want 22", n)
	}
	// At most 4 status writes per backup that succeeded.
	if n := statusWrites(op.log, mark, "starrocksbackups/status"); n > 4*22 {
		t.Errorf("%d status writes for 22 backups, want at most 88", n)
	} else {
		t.Logf("%d status writes of starrocksbackups for 22 backups", n)
	}
}

func testNewestGoodBackupKept(t *testing.T, c *testcluster.Cluster, dir *feDirectory, clk runningClock, store *simstarrocks.ObjectStore) {
	ctx := t.Context()
	const control = "backup-control"
	testutil.CreateNamespace(t, c.Client, control)
	unsafe := backupConfig(clk)
	unsafe.Safety.RetentionMayDeleteNewest = true
	startOperator(t, c, control, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: time.Second, backup: unsafe})
	for _, ns := range []string{"backup", control} {
		f := backupClusterOn(t, c, dir, ns, "aged", 1, simstarrocks.Options{Clock: clk.FakeClock, Store: store})
		if err := f.CreateTable("ops", "t", 1, 2); err != nil {
			t.Fatal(err)
		}
		s3Repository(t, c, ns, "aged-repo", "aged", false)
		repoReady(t, c, ns, "aged-repo")
		sched := &srv1.StarRocksBackupSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "aged"}, Spec: srv1.StarRocksBackupScheduleSpec{
			StarRocksCluster: "aged", Repository: "aged-repo", Databases: []string{"ops"}, Schedule: "0 13 * * *", StartingDeadlineSeconds: ptr.To(int64(600)),
			Retention: srv1.BackupRetention{MaxAge: &metav1.Duration{Duration: 2 * time.Hour}}}}
		if err := c.Client.Create(ctx, sched); err != nil {
			t.Fatal(err)
		}
	}
	count := func(ns string) []string {
		list := &srv1.StarRocksBackupList{}
		if err := c.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{backup.LabelSchedule: "aged"}); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, b := range list.Items {
			if b.DeletionTimestamp == nil {
				out = append(out, b.Name)
			}
		}
		return out
	}
	// The shared clock runs days ahead of the API server's timestamps (the
	// nightly test stepped it): the schedule's catch-up run at creation is
	// past its deadline. Its first run is the next 13:00 UTC.
	start := clk.Now().UTC().Truncate(24 * time.Hour).Add(13 * time.Hour)
	if !start.After(clk.Now()) {
		start = start.AddDate(0, 0, 1)
	}
	for day := range 2 {
		run := start.AddDate(0, 0, day)
		clk.SetTime(run.Add(time.Second))
		for _, ns := range []string{"backup", control} {
			if err := pollFor(30*time.Second, func(ctx context.Context) bool {
				return get(ctx, c.Client, ns, "aged-ops-"+run.Format("200601021504"), &srv1.StarRocksBackup{}) == nil
			}); err != nil {
				s := &srv1.StarRocksBackupSchedule{}
				_ = get(ctx, c.Client, ns, "aged", s)
				st, _ := json.MarshalIndent(s.Status, "", "  ")
				t.Fatalf("%s: the run of %s made no backup; the schedule (now %s):\n%s", ns, run, clk.Now(), st)
			}
			backupPhase(t, c, ns, "aged-ops-"+run.Format("200601021504"), srv1.BackupSucceeded, time.Minute)
		}
		// Three hours on, every backup is older than maxAge.
		clk.SetTime(run.Add(3 * time.Hour))
		if err := pollFor(20*time.Second, func(context.Context) bool { return len(count("backup")) == 1 && len(count(control)) == 0 }); err != nil {
			t.Fatalf("day %d, 3 h after the run: kept %v with the rule, want the newest; %v without it, want none", day+1, count("backup"), count(control))
		}
		if got := count("backup"); got[0] != "aged-ops-"+run.Format("200601021504") {
			t.Fatalf("kept %v, want the newest", got)
		}
	}
	recordFault(t, faulttable.Row{Fault: "retention by age past a database's last good backup",
		Injected:  "a daily schedule with maxAge 2h; the clock moved 3 h past each of two runs",
		Converged: "the older backup pruned, the newest kept, each day",
		Lost:      "0: one good backup of the database kept",
		Control:   "0 backups left 3 h after each run (the newest-good rule off)"})
}

func testDropSnapshotOn42(t *testing.T, c *testcluster.Cluster, dir *feDirectory, clk runningClock) {
	ctx := t.Context()
	const ns = "backup"
	f := startFE(t, dir, ns, "v42", simstarrocks.Options{Clock: clk.FakeClock, Version: "4.2"})
	src := beCluster(ns, "v42", 1)
	// FE reports its pod's release (the registrar): 4.2.0.
	src.Spec.StarRocksFeSpec.Image, src.Spec.StarRocksBeSpec.Image = "starrocks/fe-ubuntu:4.2.0", "starrocks/be-ubuntu:4.2.0"
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, ns, "v42", 2*time.Minute)
	if err := pollFor(time.Minute, func(context.Context) bool { return aliveBEs(f) == 1 }); err != nil {
		t.Fatal("BE not alive")
	}
	if err := f.CreateTable("ops", "t", 1, 2); err != nil {
		t.Fatal(err)
	}
	s3RepositoryAt(t, c, ns, "v42-repo", "v42", "v42_repo", "s3a://v42/sr", false)
	repoReady(t, c, ns, "v42-repo")
	sched := &srv1.StarRocksBackupSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "v42"}, Spec: srv1.StarRocksBackupScheduleSpec{
		StarRocksCluster: "v42", Repository: "v42-repo", Databases: []string{"ops"}, Schedule: "0 7 * * *", StartingDeadlineSeconds: ptr.To(int64(600)),
		Retention: srv1.BackupRetention{KeepLast: ptr.To(int32(1)), DeleteData: true}}}
	if err := c.Client.Create(ctx, sched); err != nil {
		t.Fatal(err)
	}
	start := clk.Now().UTC().Truncate(24 * time.Hour).Add(7 * time.Hour)
	if !start.After(clk.Now()) {
		start = start.AddDate(0, 0, 1)
	}
	var first srv1.StarRocksBackup
	for day := range 2 {
		run := start.AddDate(0, 0, day)
		clk.SetTime(run.Add(time.Second))
		b := backupPhase(t, c, ns, "v42-ops-"+run.Format("200601021504"), srv1.BackupSucceeded, time.Minute)
		if day == 0 {
			first = *b
		}
	}
	// keepLast 1: the first night's backup goes, its snapshot with it.
	if err := pollFor(30*time.Second, func(context.Context) bool {
		_, there := f.Store().Snapshots("s3a://v42/sr", "v42_repo")[first.Status.Label]
		return !there && get(ctx, c.Client, ns, first.Name, &srv1.StarRocksBackup{}) != nil
	}); err != nil {
		t.Fatalf("the first backup %s or its snapshot is still there: %v", first.Name, f.Store().Snapshots("s3a://v42/sr", "v42_repo"))
	}
	drops := f.StatementsLike("DROP SNAPSHOT")
	if len(drops) != 1 || strings.Contains(strings.ToUpper(drops[0]), "FORCE") || !strings.Contains(drops[0], first.Status.Label) {
		t.Errorf("DROP SNAPSHOT statements %q, want one of %s without FORCE", drops, first.Status.Label)
	}
	s := &srv1.StarRocksBackupSchedule{}
	if err := get(ctx, c.Client, ns, "v42", s); err != nil {
		t.Fatal(err)
	}
	if meta.FindStatusCondition(s.Status.Conditions, srv1.ConditionRetentionDataNotDeleted) != nil {
		t.Errorf("RetentionDataNotDeleted on 4.2 with deleteData: %+v", s.Status.Conditions)
	}
}

func testCredentialsRotation(t *testing.T, c *testcluster.Cluster, f *simstarrocks.StarRocks) {
	ctx := t.Context()
	const ns = "backup"
	repo := s3RepositoryAt(t, c, ns, "rotated", "work", "rotated_repo", "s3a://rotated/sr", false)
	repoReady(t, c, ns, repo.Name)
	before := len(f.StatementsLike("CREATE REPOSITORY `rotated_repo`"))
	secret := &corev1.Secret{}
	if err := get(ctx, c.Client, ns, "rotated-keys", secret); err != nil {
		t.Fatal(err)
	}
	secret.Data["secret_key"] = []byte("rotated-secret")
	if err := c.Client.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	mutate(t, c.Client, repo, func(r *srv1.StarRocksBackupRepository) {
		r.Annotations = map[string]string{backup.CredentialsVersionAnnotation: "2"}
	})
	if err := pollFor(30*time.Second, func(context.Context) bool {
		return len(f.StatementsLike("DROP REPOSITORY `rotated_repo`")) == 1 && len(f.StatementsLike("CREATE REPOSITORY `rotated_repo`")) == before+1
	}); err != nil {
		t.Fatalf("no DROP then CREATE: %q %q", f.StatementsLike("DROP REPOSITORY"), f.StatementsLike("CREATE REPOSITORY `rotated_repo`"))
	}
	for _, stmt := range f.Statements() {
		if strings.Contains(stmt, "rotated-secret") {
			return // sent to FE, as it must be
		}
	}
	t.Error("the new secret key never reached FE")
}

// backupStatementsOf are the statements of the backup feature f received.
func backupStatementsOf(f *simstarrocks.StarRocks) []string {
	var out []string
	for _, s := range f.Statements() {
		u := strings.ToUpper(s)
		for _, p := range []string{"BACKUP", "RESTORE", "SHOW BACKUP", "SHOW RESTORE", "SHOW SNAPSHOT", "SHOW REPOSITORIES", "CREATE REPOSITORY", "CREATE READ ONLY", "DROP REPOSITORY", "DROP SNAPSHOT", "CANCEL", "SHOW DATABASES", "SHOW TABLES", "ADMIN SET AUTOMATED", "SELECT"} {
			if strings.HasPrefix(u, p) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

func testForeignJobHoldsTheSlot(t *testing.T, c *testcluster.Cluster, f *simstarrocks.StarRocks) {
	ctx := t.Context()
	const ns = "backup"
	if err := f.CreateTable("helddb", "orders", 1, 4); err != nil {
		t.Fatal(err)
	}
	s3RepositoryAt(t, c, ns, "held-repo", "work", "held_repo", s3Location, false)
	repoReady(t, c, ns, "held-repo")
	execFE(t, f, "pw-work", "BACKUP SNAPSHOT helddb.manual_1 TO held_repo")
	b := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "after-manual"}, Spec: srv1.StarRocksBackupSpec{StarRocksCluster: "work", Repository: "held-repo", Database: "helddb"}}
	if err := c.Client.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := pollFor(30*time.Second, func(ctx context.Context) bool {
		return get(ctx, c.Client, ns, b.Name, b) == nil && b.Status.Phase == srv1.BackupPending && strings.Contains(b.Status.HeldBy, "manual_1")
	}); err != nil {
		t.Fatalf("not held by the user's job: %+v", b.Status)
	}
	done := backupPhase(t, c, ns, b.Name, srv1.BackupSucceeded, 2*time.Minute)
	if n := len(jobsStarted(f, "BACKUP SNAPSHOT `helddb`")); n != 1 {
		t.Errorf("%d operator BACKUPs taken, want 1 (%s)", n, done.Status.Label)
	}
	recordFault(t, faulttable.Row{Fault: "a user's own backup job on the database",
		Injected:  "a user's BACKUP SNAPSHOT helddb.manual_1 running when the operator's backup of helddb is created",
		Converged: "the backup waited Pending, heldBy naming manual_1, then ran once the user's job ended; one operator BACKUP, the user's job untouched",
		Lost:      "0", Control: "–"})
}

func repoReady(t *testing.T, c *testcluster.Cluster, ns, name string) {
	t.Helper()
	r := &srv1.StarRocksBackupRepository{}
	if err := pollFor(30*time.Second, func(ctx context.Context) bool {
		return get(ctx, c.Client, ns, name, r) == nil && meta.IsStatusConditionTrue(r.Status.Conditions, srv1.ConditionReady)
	}); err != nil {
		t.Fatalf("repository %s not ready: %+v", name, r.Status)
	}
}

func testRefusedOverwrite(t *testing.T, c *testcluster.Cluster, f *simstarrocks.StarRocks) {
	ctx := t.Context()
	const ns = "backup"
	if err := f.CreateTable("overdb", "orders", 1, 2); err != nil {
		t.Fatal(err)
	}
	s3RepositoryAt(t, c, ns, "over-repo", "work", "over_repo", s3Location, false)
	b := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "over-once"}, Spec: srv1.StarRocksBackupSpec{StarRocksCluster: "work", Repository: "over-repo", Database: "overdb"}}
	if err := c.Client.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	backupPhase(t, c, ns, b.Name, srv1.BackupSucceeded, time.Minute)
	one := int32(1)
	r := &srv1.StarRocksRestore{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "over-in-place"}, Spec: srv1.StarRocksRestoreSpec{
		StarRocksCluster: "work", Repository: "over-repo", ReplicationNum: &one, Source: srv1.RestoreSource{Backup: b.Name}}}
	if err := c.Client.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	stalledWith(t, c, r, func() []metav1.Condition { return r.Status.Conditions }, srv1.ReasonTargetExists)
	time.Sleep(2 * time.Second)
	if n := len(f.StatementsLike("RESTORE SNAPSHOT `overdb`")); n != 0 {
		t.Errorf("%d RESTORE statements sent for a refused overwrite", n)
	}
	if n := warningsIn(ctx, t, c, ns, r.Name, srv1.ReasonTargetExists); n != 1 {
		t.Errorf("%d Warning Events TargetExists, want 1", n)
	}
	r2 := r.DeepCopy()
	r2.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: "over-asked"}
	r2.Spec.ExistingTables = srv1.ExistingTablesOverwrite
	if err := c.Client.Create(ctx, r2); err != nil {
		t.Fatal(err)
	}
	// The refused one still holds its place in the queue: delete it.
	if err := c.Client.Delete(ctx, r); err != nil {
		t.Fatal(err)
	}
	done := restorePhase(t, c, ns, r2.Name, srv1.BackupSucceeded, time.Minute)
	if !done.Status.PastPointOfNoReturn || f.CancelledPastCommit() != 0 {
		t.Errorf("status %+v, cancelled past COMMIT %d", done.Status, f.CancelledPastCommit())
	}
}

func testFaultsMidUpload(t *testing.T, c *testcluster.Cluster, dir *feDirectory, clk runningClock) {
	ctx := t.Context()
	const ns = "backup"
	f := backupClusterWith(t, c, dir, ns, "faulty", 3, 2, simstarrocks.Options{Clock: clk.FakeClock, BackupTabletTime: 3 * time.Second})
	if err := f.CreateTable("sales", "orders", 1, 6); err != nil {
		t.Fatal(err)
	}
	s3Repository(t, c, ns, "faulty-repo", "faulty", false)
	uploading := func(name string) {
		b := &srv1.StarRocksBackup{}
		if err := pollFor(time.Minute, func(ctx context.Context) bool {
			for _, j := range f.BackupJobs() {
				if j.DB == "sales" && j.State == "UPLOADING" {
					return get(ctx, c.Client, ns, name, b) == nil && b.Status.Phase == srv1.BackupRunning
				}
			}
			return false
		}); err != nil {
			t.Fatalf("not uploading: %+v %+v", f.BackupJobs(), b.Status)
		}
	}
	// A BE stopped mid-upload: its tasks wait (backup §7), the job goes on once it is back.
	b := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "be-down"}, Spec: srv1.StarRocksBackupSpec{StarRocksCluster: "faulty", Repository: "faulty-repo", Database: "sales"}}
	if err := c.Client.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	uploading(b.Name)
	be := beHost(ns, "faulty", 1)
	f.StopProcess(be, false)
	time.Sleep(3 * time.Second)
	if j := f.BackupJobs()[0]; j.State != "UPLOADING" {
		t.Errorf("with be-1 down the job is %s, want it waiting in UPLOADING", j.State)
	}
	downFor := time.Now()
	f.StartProcess(be)
	backupPhase(t, c, ns, b.Name, srv1.BackupSucceeded, time.Minute)
	recordFault(t, faulttable.Row{Fault: "a BE crash mid-upload",
		Injected:  "FE 3, BE 2, 6 single-replica tablets at 3 s each; faulty-be-1's process stopped while FE's job was UPLOADING, started again 3 s later",
		Converged: fmt.Sprintf("FE's job waited in UPLOADING, the backup Running; it succeeded %s after the BE was back, one FE job", time.Since(downFor).Round(100*time.Millisecond)),
		Lost:      "0: the snapshot is in the repository", Control: "–"})

	// An FE leader change mid-upload: UPLOADING falls back to UPLOAD_SNAPSHOT
	// on the new leader (backup §7); the phase never goes back.
	b2 := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "leader-change"}, Spec: srv1.StarRocksBackupSpec{StarRocksCluster: "faulty", Repository: "faulty-repo", Database: "sales"}}
	if err := c.Client.Create(ctx, b2); err != nil {
		t.Fatal(err)
	}
	uploading(b2.Name)
	next := feHost(ns, "faulty", 1)
	if f.Leader() == next {
		next = feHost(ns, "faulty", 2)
	}
	if !f.ElectLeader(next) {
		t.Fatalf("%s not elected", next)
	}
	elected := time.Now()
	done := backupPhase(t, c, ns, b2.Name, srv1.BackupSucceeded, time.Minute)
	if n := len(jobsStarted(f, "BACKUP")); n != 2 {
		t.Errorf("%d BACKUPs taken for two backups, want 2 (%s)", n, done.Status.Label)
	}
	recordFault(t, faulttable.Row{Fault: "an FE leader change mid-upload",
		Injected:  "FE 3, BE 2; another FE elected leader while the job was UPLOADING (the new leader resumes it from the edit log: UPLOAD_SNAPSHOT)",
		Converged: fmt.Sprintf("the backup stayed Running (the phase never went back) and succeeded %s after the election, one FE job", time.Since(elected).Round(100*time.Millisecond)),
		Lost:      "0: the snapshot is in the repository", Control: "–"})
}

func testUnreachableRepository(t *testing.T, c *testcluster.Cluster, f *simstarrocks.StarRocks) {
	ctx := t.Context()
	const ns = "backup"
	const dark = "s3a://dark/sr"
	store := f.Store()
	if err := f.CreateTable("darkdb", "orders", 1, 2); err != nil {
		t.Fatal(err)
	}
	s3RepositoryAt(t, c, ns, "dark-repo", "work", "dark_repo", dark, false)
	repoReady(t, c, ns, "dark-repo")
	store.SetUnreachable(dark, true)
	b := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "in-the-dark"}, Spec: srv1.StarRocksBackupSpec{StarRocksCluster: "work", Repository: "dark-repo", Database: "darkdb"}}
	if err := c.Client.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := pollFor(30*time.Second, func(ctx context.Context) bool {
		cond := meta.FindStatusCondition(b.Status.Conditions, srv1.ConditionReconciling)
		return get(ctx, c.Client, ns, b.Name, b) == nil && b.Status.Phase == srv1.BackupPending && cond != nil && strings.Contains(cond.Message, "unreachable")
	}); err != nil {
		t.Fatalf("the store's error in status: %+v", b.Status)
	}
	store.SetUnreachable(dark, false)
	back := time.Now()
	backupPhase(t, c, ns, b.Name, srv1.BackupSucceeded, time.Minute)
	if n := len(jobsStarted(f, "BACKUP SNAPSHOT `darkdb`")); n != 1 {
		t.Errorf("%d BACKUPs taken, want 1", n)
	}
	recordFault(t, faulttable.Row{Fault: "an unreachable backup repository",
		Injected:  "the repository's store cut off (every request fails) before a backup was created, back after its status said so",
		Converged: fmt.Sprintf("the backup waited Pending with the store's error, FE refusing each submission; it succeeded %s after the store answered, one FE job", time.Since(back).Round(100*time.Millisecond)),
		Lost:      "0", Control: "–"})
}

func testBackupBadInput(t *testing.T, c *testcluster.Cluster, f *simstarrocks.StarRocks) {
	ctx := t.Context()
	const ns = "backup"
	if err := f.CreateTable("baddb", "orders", 1, 2); err != nil {
		t.Fatal(err)
	}
	statements := len(backupStatementsOf(f))
	// A repository whose Secret is missing, and one whose key is.
	missing := &srv1.StarRocksBackupRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-secret"}, Spec: srv1.StarRocksBackupRepositorySpec{
		StarRocksCluster: "work", Name: "no_secret", Location: s3Location, S3: &srv1.S3Repository{Credentials: srv1.S3Credentials{SecretRef: &srv1.S3SecretRef{Name: "nope"}}}}}
	noKey := missing.DeepCopy()
	noKey.Name, noKey.Spec.Name, noKey.Spec.S3.Credentials.SecretRef = "no-key", "no_key", &srv1.S3SecretRef{Name: "bad-keys", SecretKeyKey: "nope"}
	if err := c.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad-keys"}, Data: map[string][]byte{"access_key": []byte("a")}}); err != nil {
		t.Fatal(err)
	}
	// A repository name FE has at another location.
	execFE(t, f, "pw-work", "CREATE REPOSITORY taken WITH BROKER ON LOCATION 's3a://elsewhere/x'")
	taken := s3RepositoryObject(ns, "taken-name", "work", "taken")
	good := s3RepositoryObject(ns, "bad-repo", "work", "bad_repo")
	if err := c.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken-name-keys"}, Data: map[string][]byte{"access_key": []byte("a"), "secret_key": []byte("b")}}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{missing, noKey, taken} {
		if err := c.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	s3RepositoryAt(t, c, ns, good.Name, "work", "bad_repo", s3Location, false)
	repoReady(t, c, ns, good.Name)
	// A schedule with a bad cron, one with a bad zone; a backup of a
	// database FE does not have; a ttl below 4.2.
	badCron := &srv1.StarRocksBackupSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad-cron"}, Spec: srv1.StarRocksBackupScheduleSpec{
		StarRocksCluster: "work", Repository: good.Name, Databases: []string{"baddb"}, Schedule: "every night"}}
	badZone := badCron.DeepCopy()
	badZone.Name, badZone.Spec.Schedule, badZone.Spec.TimeZone = "bad-zone", "0 1 * * *", "Mars/Olympus"
	noDB := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-db"}, Spec: srv1.StarRocksBackupSpec{StarRocksCluster: "work", Repository: good.Name, Database: "nope"}}
	ttl := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ttl-33"}, Spec: srv1.StarRocksBackupSpec{StarRocksCluster: "work", Repository: good.Name, Database: "baddb",
		BackupTemplate: srv1.BackupTemplate{TTL: "7 DAY"}}}
	for _, o := range []client.Object{badCron, badZone, noDB, ttl} {
		if err := c.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		obj    client.Object
		conds  func() []metav1.Condition
		reason string
	}{
		{missing, func() []metav1.Condition { return missing.Status.Conditions }, srv1.ReasonCredentialsMissing},
		{noKey, func() []metav1.Condition { return noKey.Status.Conditions }, srv1.ReasonCredentialsMissing},
		{taken, func() []metav1.Condition { return taken.Status.Conditions }, srv1.ReasonRepositoryNameTaken},
		{badCron, func() []metav1.Condition { return badCron.Status.Conditions }, srv1.ReasonInvalidSchedule},
		{badZone, func() []metav1.Condition { return badZone.Status.Conditions }, srv1.ReasonInvalidTimeZone},
		{noDB, func() []metav1.Condition { return noDB.Status.Conditions }, srv1.ReasonDatabaseNotFound},
		{ttl, func() []metav1.Condition { return ttl.Status.Conditions }, srv1.ReasonTTLUnsupported},
	}
	for _, k := range cases {
		stalledWith(t, c, k.obj, k.conds, k.reason)
	}
	time.Sleep(3 * time.Second)
	for _, k := range cases {
		if n := warningsIn(ctx, t, c, ns, k.obj.GetName(), k.reason); n != 1 {
			t.Errorf("%s: %d Warning Events %s, want 1", k.obj.GetName(), n, k.reason)
		}
	}
	var sent []string
	for _, s := range backupStatementsOf(f)[statements:] {
		if !strings.HasPrefix(strings.ToUpper(s), "SHOW") {
			sent = append(sent, s)
		}
	}
	// The one good repository's CREATE, and the test's own.
	if len(sent) != 2 {
		t.Errorf("statements other than reads: %q, want the good repository's CREATE and the test's", sent)
	}

	// Nothing lost: a schedule made before its repository (kubectl apply
	// of a file listing it first) is scheduled once the repository appears.
	early := &srv1.StarRocksBackupSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "before-its-repo"}, Spec: srv1.StarRocksBackupScheduleSpec{
		StarRocksCluster: "work", Repository: "late-repo", Databases: []string{"baddb"}, Schedule: "0 1 * * *"}}
	if err := c.Client.Create(ctx, early); err != nil {
		t.Fatal(err)
	}
	stalledWith(t, c, early, func() []metav1.Condition { return early.Status.Conditions }, srv1.ReasonRepositoryNotFound)
	s3RepositoryAt(t, c, ns, "late-repo", "work", "late_repo", s3Location, false)
	if err := pollFor(30*time.Second, func(ctx context.Context) bool {
		return get(ctx, c.Client, ns, early.Name, early) == nil && meta.IsStatusConditionTrue(early.Status.Conditions, srv1.ConditionReady)
	}); err != nil {
		t.Errorf("a schedule made before its repository: not Ready 30 s after the repository was made: %+v", early.Status.Conditions)
	}
}

func s3RepositoryObject(ns, name, cluster, sqlName string) *srv1.StarRocksBackupRepository {
	return &srv1.StarRocksBackupRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: srv1.StarRocksBackupRepositorySpec{
		StarRocksCluster: cluster, Name: sqlName, Location: s3Location,
		S3: &srv1.S3Repository{Region: "us-east-1", Credentials: srv1.S3Credentials{SecretRef: &srv1.S3SecretRef{Name: name + "-keys"}}}}}
}

func testClusterSnapshotSetting(t *testing.T, c *testcluster.Cluster, dir *feDirectory, clk runningClock) {
	ctx := t.Context()
	const ns = "backup"
	f := startFE(t, dir, ns, "lake", simstarrocks.Options{Clock: clk.FakeClock, SharedData: true, Version: "3.5"})
	// FE reports the release of its pod's image (the registrar): 3.5.1 has
	// the automated cluster snapshot (3.4.2+).
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lake-fe-conf"}, Data: map[string]string{"fe.conf": feConfShared}}
	if err := c.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	src := feOnly(ns, "lake")
	src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:3.5.1"
	src.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: cm.Name, ResolveKey: "fe.conf"}
	src.Spec.StarRocksFeSpec.FeEnvVars = []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "pw-lake"}}
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, ns, "lake", 2*time.Minute)
	// A restore into a shared-data cluster is refused, with no statement.
	s3Repository(t, c, ns, "lake-repo", "lake", false)
	r := &srv1.StarRocksRestore{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "into-lake"}, Spec: srv1.StarRocksRestoreSpec{StarRocksCluster: "lake", Repository: "lake-repo",
		Source: srv1.RestoreSource{Snapshot: &srv1.RestoreSnapshot{Label: "l", Timestamp: "t", Database: "d"}}}}
	if err := c.Client.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	stalledWith(t, c, r, func() []metav1.Condition { return r.Status.Conditions }, srv1.ReasonSharedDataUnsupported)
	_ = pollFor(10*time.Second, func(ctx context.Context) bool {
		return warningsIn(ctx, t, c, ns, r.Name, srv1.ReasonSharedDataUnsupported) > 0
	})
	if n := warningsIn(ctx, t, c, ns, r.Name, srv1.ReasonSharedDataUnsupported); n != 1 {
		t.Errorf("%s: %d Warning Events %s, want 1", r.Name, n, srv1.ReasonSharedDataUnsupported)
	}
	if sent := jobsStarted(f, "RESTORE"); len(sent) != 0 {
		t.Errorf("a restore into a shared-data cluster sent %q", sent)
	}

	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.ClusterSnapshot = &srv1.ClusterSnapshotSpec{Enabled: true} })
	if err := pollFor(30*time.Second, func(ctx context.Context) bool {
		return get(ctx, c.Client, ns, "lake", src) == nil && src.Status.ClusterSnapshot != nil && src.Status.ClusterSnapshot.Enabled
	}); err != nil {
		t.Fatalf("not on: %+v", src.Status.ClusterSnapshot)
	}
	if !f.ClusterSnapshotOn() {
		t.Fatal("FE's automated cluster snapshot is off")
	}
	// FE takes one every 600 s; the operator reads it every 10 minutes.
	clk.Step(11 * time.Minute)
	if err := pollFor(30*time.Second, func(ctx context.Context) bool {
		return get(ctx, c.Client, ns, "lake", src) == nil && src.Status.ClusterSnapshot.LastSnapshotName != ""
	}); err != nil {
		t.Fatalf("no snapshot in status: %+v", src.Status.ClusterSnapshot)
	}
	if cs := src.Status.ClusterSnapshot; cs.LastJobState != "FINISHED" || !strings.HasPrefix(cs.LastSnapshotName, "automated_cluster_snapshot_") {
		t.Errorf("status %+v", cs)
	}
	// Off without confirmPurge: the API refuses it.
	err := func() error {
		cp := src.DeepCopy()
		cp.Spec.ClusterSnapshot.Enabled = false
		return c.Client.Update(ctx, cp)
	}()
	if err == nil || !strings.Contains(err.Error(), "confirmPurge") {
		t.Fatalf("off without confirmPurge: %v", err)
	}
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.ClusterSnapshot = &srv1.ClusterSnapshotSpec{Enabled: false, ConfirmPurge: true}
	})
	if err := pollFor(30*time.Second, func(ctx context.Context) bool {
		return get(ctx, c.Client, ns, "lake", src) == nil && !src.Status.ClusterSnapshot.Enabled && !f.ClusterSnapshotOn()
	}); err != nil {
		t.Fatalf("not off: %+v", src.Status.ClusterSnapshot)
	}
}
