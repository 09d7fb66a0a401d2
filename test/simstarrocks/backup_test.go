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

package simstarrocks_test

import (
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// The backup model (backup facts sheet, "backup §N"), on a fake clock.

// Column lists (backup §1.3, §2.4, §3, §4).
var (
	repositoryCols = []string{"RepoId", "RepoName", "CreateTime", "IsReadOnly", "Location", "Broker", "ErrMsg"}
	showBackupCols = []string{"JobId", "SnapshotName", "DbName", "State", "BackupObjs", "CreateTime", "SnapshotFinishedTime",
		"UploadFinishedTime", "FinishedTime", "UnfinishedTasks", "Progress", "TaskErrMsg", "Status", "Timeout"}
	showRestoreCols = []string{"JobId", "Label", "Timestamp", "DbName", "State", "AllowLoad", "ReplicationNum", "RestoreObjs", "CreateTime",
		"MetaPreparedTime", "SnapshotFinishedTime", "DownloadFinishedTime", "FinishedTime", "UnfinishedTasks", "Progress", "TaskErrMsg", "Status", "Timeout"}
)

const bucket = "s3a://bucket/sr"

// backupCluster is a simulation on a fake clock with two BEs and db1.t1
// (4 tablets, one replica each), and repository repo on bucket.
func backupCluster(t *testing.T, opts simstarrocks.Options) (*simstarrocks.StarRocks, *sql.DB, *clocktesting.FakeClock) {
	t.Helper()
	s, db, fc := onFakeClock(t, opts)
	withBackends(t, s, db, 2)
	if err := s.CreateTable("db1", "t1", 1, 4); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE REPOSITORY repo WITH BROKER ON LOCATION '"+bucket+"/' PROPERTIES ('aws.s3.access_key' = 'AK', 'aws.s3.secret_key' = 'SK', 'aws.s3.region' = 'us-east-1')")
	return s, db, fc
}

// jobOf is SHOW BACKUP (or RESTORE) FROM db's one row, nil when there is none.
func jobOf(t *testing.T, db *sql.DB, kind, name string) map[string]string {
	t.Helper()
	cols, rows := mustQuery(t, db, "SHOW "+kind+" FROM "+name)
	if len(rows) == 0 {
		return nil
	}
	return byName(cols, rows[0])
}

// until steps the clock 3 s (one BackupHandler round) at a time, at most
// limit, until SHOW <kind> FROM db shows state.
func until(t *testing.T, db *sql.DB, fc *clocktesting.FakeClock, kind, name, state string, limit time.Duration) map[string]string {
	t.Helper()
	for waited := time.Duration(0); ; waited += 3 * time.Second {
		if j := jobOf(t, db, kind, name); j != nil && j["State"] == state {
			return j
		}
		if waited > limit {
			t.Fatalf("SHOW %s FROM %s: not %s after %s: %v", kind, name, state, limit, jobOf(t, db, kind, name))
		}
		fc.Step(3 * time.Second)
	}
}

func wantErr(t *testing.T, db *sql.DB, stmt, want string) {
	t.Helper()
	_, err := db.Exec(stmt)
	if me := mysqlError(err); me == nil || me.Message != want {
		t.Fatalf("%s: %v, want %q", stmt, err, want)
	}
}

func TestBackupRunsToFinishedAndIsInTheRepository(t *testing.T) {
	_, db, fc := backupCluster(t, simstarrocks.Options{})
	cols, rows := mustQuery(t, db, "SHOW REPOSITORIES")
	if !slices.Equal(cols, repositoryCols) || len(rows) != 1 {
		t.Fatalf("SHOW REPOSITORIES: %v %v", cols, rows)
	}
	repo := byName(cols, rows[0])
	if repo["Location"] != bucket || repo["ErrMsg"] != "NULL" || repo["IsReadOnly"] != "false" {
		t.Fatalf("trailing slash stripped, no error, writable (backup §1.1, §1.3): %v", repo)
	}

	mustExec(t, db, "BACKUP SNAPSHOT db1.snap1 TO repo PROPERTIES ('type' = 'full', 'timeout' = '3600')")
	cols, rows = mustQuery(t, db, "SHOW BACKUP FROM db1")
	if !slices.Equal(cols, showBackupCols) {
		t.Fatalf("SHOW BACKUP columns: %v", cols)
	}
	first := byName(cols, rows[0])
	if first["State"] != "PENDING" || first["Status"] != "[OK]" || first["Timeout"] != "3600" || first["SnapshotName"] != "snap1" {
		t.Fatalf("a new job: %v", first)
	}
	// PENDING takes a new JobId (prepareAndSendSnapshotTask, backup §2.3).
	fc.Step(3 * time.Second)
	if j := jobOf(t, db, "BACKUP", "db1"); j["State"] != "SNAPSHOTING" || j["JobId"] == first["JobId"] {
		t.Fatalf("after one round: %v, first JobId %s", j, first["JobId"])
	}
	done := until(t, db, fc, "BACKUP", "db1", "FINISHED", time.Minute)
	if done["FinishedTime"] == "NULL" || done["UploadFinishedTime"] == "NULL" {
		t.Fatalf("finished: %v", done)
	}

	cols, rows = mustQuery(t, db, "SHOW SNAPSHOT ON repo")
	if !slices.Equal(cols, []string{"Snapshot", "Timestamp", "Status"}) || len(rows) != 1 || rows[0][2] != "OK" {
		t.Fatalf("SHOW SNAPSHOT: %v %v", cols, rows)
	}
	ts := rows[0][1]
	// The timestamp is the job's create time, yyyy-MM-dd-HH-mm-ss-SSS (backup §3).
	if want := epoch.Format("2006-01-02-15-04-05") + "-000"; ts != want {
		t.Fatalf("timestamp %q, want %q", ts, want)
	}
	cols, rows = mustQuery(t, db, "SHOW SNAPSHOT ON repo WHERE SNAPSHOT = 'snap1' AND TIMESTAMP = '"+ts+"'")
	if !slices.Equal(cols, []string{"Snapshot", "Timestamp", "Database", "Details", "Status"}) || rows[0][2] != "db1" || rows[0][4] != "OK" {
		t.Fatalf("SHOW SNAPSHOT ... TIMESTAMP: %v %v", cols, rows)
	}
	// The label is taken in the repository (backup §2.1).
	wantErr(t, db, "BACKUP SNAPSHOT db1.snap1 TO repo", "Snapshot with name 'snap1' already exist in repository")
}

func TestOneJobPerDatabaseAndTheLastJobOnly(t *testing.T) {
	s, db, fc := backupCluster(t, simstarrocks.Options{})
	if err := s.CreateTable("db2", "t2", 1, 2); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "BACKUP SNAPSHOT db1.a TO repo")
	wantErr(t, db, "BACKUP SNAPSHOT db1.b TO repo", "Can only run one backup or restore job of a database at same time")
	// Another database runs at the same time (backup §2.2).
	mustExec(t, db, "BACKUP SNAPSHOT db2.c TO repo")
	until(t, db, fc, "BACKUP", "db1", "FINISHED", time.Minute)
	mustExec(t, db, "BACKUP SNAPSHOT db1.b TO repo")
	if j := jobOf(t, db, "BACKUP", "db1"); j["SnapshotName"] != "b" {
		t.Fatalf("the new job replaces the finished one: %v", j)
	}
	until(t, db, fc, "BACKUP", "db1", "FINISHED", time.Minute)
	// history_job_keep_max_second: 7 days.
	fc.Step(7*24*time.Hour + 10*time.Second)
	// The simulation catches up the 7 days' daemon rounds here, in
	// process: over a client's read timeout on a loaded machine, it read
	// "invalid connection".
	s.BackupJobs()
	if j := jobOf(t, db, "BACKUP", "db1"); j != nil {
		t.Fatalf("a job finished 7 days ago is forgotten: %v", j)
	}
	wantErr(t, db, "SHOW BACKUP FROM nodb", "Unknown database 'nodb'")
	wantErr(t, db, "BACKUP SNAPSHOT nodb.x TO repo", "Unknown database 'nodb'")
	wantErr(t, db, "BACKUP SNAPSHOT db1.x TO norepo", "Repository norepo does not exist")
	wantErr(t, db, "BACKUP SNAPSHOT db1.x TO repo ON (nope)", "Unknown table 'nope'")
	wantErr(t, db, "BACKUP SNAPSHOT db1.x TO repo ON (t1 PARTITION (p9))", "Unknown partition p9 in tablet1")
}

func TestRestoreIntoASecondClusterFromAReadOnlyRepository(t *testing.T) {
	store := simstarrocks.NewObjectStore()
	_, db, fc := backupCluster(t, simstarrocks.Options{Store: store, ClusterID: 1})
	mustExec(t, db, "BACKUP SNAPSHOT db1.snap1 TO repo")
	until(t, db, fc, "BACKUP", "db1", "FINISHED", time.Minute)
	_, rows := mustQuery(t, db, "SHOW SNAPSHOT ON repo")
	ts := rows[0][1]

	s2, db2, fc2 := onFakeClock(t, simstarrocks.Options{Store: store, ClusterID: 2, Version: "3.4"})
	withBackends(t, s2, db2, 1)
	mustExec(t, db2, "CREATE READ ONLY REPOSITORY repo WITH BROKER ON LOCATION '"+bucket+"'")
	_, rows = mustQuery(t, db2, "SHOW SNAPSHOT ON repo")
	if len(rows) != 1 || rows[0][0] != "snap1" || rows[0][2] != "OK" {
		t.Fatalf("the second cluster sees the first one's snapshot: %v", rows)
	}
	wantErr(t, db2, "BACKUP SNAPSHOT db1.x TO repo", "Unknown database 'db1'")
	mustExec(t, db2, "CREATE DATABASE db1")
	wantErr(t, db2, "BACKUP SNAPSHOT db1.x TO repo", "Repository repo is read only")
	wantErr(t, db2, "RESTORE SNAPSHOT db1.snap1 FROM repo PROPERTIES ('backup_timestamp' = '2026-01-01-00-00-00-000')",
		"Failed to get info of snapshot 'snap1' because: Expected one file with path: "+bucket+"/__starrocks_repository_repo/__ss_snap1/__info_2026-01-01-00-00-00-000. get: 0. Maybe specified wrong backup timestamp")
	// The 3.4 form, into another name; replication_num 1 for a 1-BE cluster (backup §4).
	mustExec(t, db2, "RESTORE SNAPSHOT snap1 FROM repo DATABASE db1 AS copy PROPERTIES ('backup_timestamp' = '"+ts+"', 'replication_num' = '1')")
	cols, _ := mustQuery(t, db2, "SHOW RESTORE FROM copy")
	if !slices.Equal(cols, showRestoreCols) {
		t.Fatalf("SHOW RESTORE columns: %v", cols)
	}
	until(t, db2, fc2, "RESTORE", "copy", "FINISHED", time.Minute)
	if got := s2.RestoredFrom("copy", "t1"); got != "snap1" {
		t.Fatalf("copy.t1 restored from %q", got)
	}
}

func TestLeaderChangeSendsASnapshotingJobBackToPendingWithANewJobId(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	s := simstarrocks.Start(t, simstarrocks.Options{Clock: clk})
	s.BootstrapFrontend("fe-0", 9010)
	leader := connectTo(t, s.AddressOf("fe-0"))
	for _, h := range []string{"fe-1", "fe-2"} {
		mustExec(t, leader, `ALTER SYSTEM ADD FOLLOWER "`+h+`:9010"`)
		if err := s.StartFrontend(h, 9010); err != nil {
			t.Fatal(err)
		}
	}
	withBackends(t, s, leader, 2)
	if err := s.CreateTable("db1", "t1", 1, 4); err != nil {
		t.Fatal(err)
	}
	mustExec(t, leader, "CREATE REPOSITORY repo WITH BROKER ON LOCATION '"+bucket+"'")
	// be-1 stops: its snapshot tasks wait, the job stays in SNAPSHOTING.
	s.StopProcess("be-1", false)
	mustExec(t, leader, "BACKUP SNAPSHOT db1.snap1 TO repo")
	clk.Step(3 * time.Second)
	before := jobOf(t, leader, "BACKUP", "db1")
	if before["State"] != "SNAPSHOTING" {
		t.Fatalf("before: %v", before)
	}
	follower := connectTo(t, s.AddressOf("fe-1"))
	clk.Step(2 * time.Second)
	if j := jobOf(t, follower, "BACKUP", "db1"); j["State"] != "PENDING" {
		t.Fatalf("a follower never shows SNAPSHOTING (not logged, backup §7): %v", j)
	}
	s.StopFrontend("fe-0")
	s.StartProcess("be-1")
	if !s.ElectLeader("fe-1") {
		t.Fatal("fe-1 not elected")
	}
	clk.Step(3 * time.Second)
	newLeader := connectTo(t, s.AddressOf("fe-1"))
	after := jobOf(t, newLeader, "BACKUP", "db1")
	if after["State"] != "SNAPSHOTING" || after["JobId"] == before["JobId"] {
		t.Fatalf("the new leader ran PENDING again with a new JobId: before %v, after %v", before, after)
	}
	until(t, newLeader, clk, "BACKUP", "db1", "FINISHED", time.Minute)
}

func TestABEStoppedMidUploadStallsTheJobUntilItReturnsOrTimesOut(t *testing.T) {
	s, db, fc := backupCluster(t, simstarrocks.Options{BackupTabletTime: time.Minute})
	mustExec(t, db, "BACKUP SNAPSHOT db1.slow TO repo PROPERTIES ('timeout' = '3600')")
	until(t, db, fc, "BACKUP", "db1", "UPLOADING", 30*time.Second)
	s.StopProcess("be-0", false)
	fc.Step(10 * time.Minute)
	if j := jobOf(t, db, "BACKUP", "db1"); j["State"] != "UPLOADING" || !strings.Contains(j["UnfinishedTasks"], "=") {
		t.Fatalf("the job waits for be-0: %v", j)
	}
	s.StartProcess("be-0")
	until(t, db, fc, "BACKUP", "db1", "FINISHED", 10*time.Minute)

	// A BE that does not come back: the job times out, from its create time (backup §2.3).
	mustExec(t, db, "BACKUP SNAPSHOT db1.never TO repo PROPERTIES ('timeout' = '3600')")
	until(t, db, fc, "BACKUP", "db1", "UPLOADING", 30*time.Second)
	s.StopProcess("be-1", false)
	j := until(t, db, fc, "BACKUP", "db1", "CANCELLED", 2*time.Hour)
	if j["Status"] != "[TIMEOUT, msg: ]" {
		t.Fatalf("timed out: %v", j)
	}
	_, rows := mustQuery(t, db, "SHOW SNAPSHOT ON repo WHERE SNAPSHOT = 'never'")
	if rows[0][2] != "ERROR: no snapshot" {
		t.Fatalf("the leftover of a cancelled upload (backup §7): %v", rows)
	}
	wantErr(t, db, "BACKUP SNAPSHOT db1.never TO repo", "Snapshot with name 'never' already exist in repository")
}

func TestAnUnreachableRepository(t *testing.T) {
	s, db, fc := backupCluster(t, simstarrocks.Options{BackupTabletTime: 10 * time.Second})
	s.Store().SetUnreachable(bucket, true)
	wantErr(t, db, "BACKUP SNAPSHOT db1.a TO repo", "simstarrocks: the object store at "+bucket+" is unreachable")
	fc.Step(3 * time.Second)
	_, rows := mustQuery(t, db, "SHOW REPOSITORIES")
	if !strings.HasSuffix(rows[0][6], ": simstarrocks: the object store at "+bucket+" is unreachable") {
		t.Fatalf("ErrMsg of the ping (backup §1.3): %q", rows[0][6])
	}
	s.Store().SetUnreachable(bucket, false)
	mustExec(t, db, "BACKUP SNAPSHOT db1.a TO repo")
	until(t, db, fc, "BACKUP", "db1", "UPLOADING", 30*time.Second)
	s.Store().SetUnreachable(bucket, true)
	fc.Step(30 * time.Second)
	j := jobOf(t, db, "BACKUP", "db1")
	if j["State"] != "UPLOADING" || !strings.Contains(j["TaskErrMsg"], "unreachable") {
		t.Fatalf("uploads fail into TaskErrMsg and the job waits (backup §7): %v", j)
	}
	s.Store().SetUnreachable(bucket, false)
	until(t, db, fc, "BACKUP", "db1", "FINISHED", 5*time.Minute)
}

func TestAStatementWhoseAnswerIsLostStillStartedItsJob(t *testing.T) {
	var lose bool
	s, _, fc := backupCluster(t, simstarrocks.Options{LoseAnswer: func(stmt string) bool { return lose && strings.HasPrefix(stmt, "BACKUP") }})
	db := connect(t, s, "", 5*time.Second)
	lose = true
	if _, err := db.Exec("BACKUP SNAPSHOT db1.lost TO repo"); err == nil {
		t.Fatal("the client saw no error")
	}
	lose = false
	if j := jobOf(t, db, "BACKUP", "db1"); j == nil || j["SnapshotName"] != "lost" {
		t.Fatalf("the job exists: %v", j)
	}
	wantErr(t, db, "BACKUP SNAPSHOT db1.lost TO repo", "Can only run one backup or restore job of a database at same time")
	until(t, db, fc, "BACKUP", "db1", "FINISHED", time.Minute)
	wantErr(t, db, "BACKUP SNAPSHOT db1.lost TO repo", "Snapshot with name 'lost' already exist in repository")
}

func TestTheSubmitLockAndCancel(t *testing.T) {
	s, db, fc := backupCluster(t, simstarrocks.Options{BackupTabletTime: time.Minute})
	s.HoldSubmitLock(true)
	wantErr(t, db, "BACKUP SNAPSHOT db1.a TO repo", "Another backup or restore job is being submitted. Please wait and try again")
	s.HoldSubmitLock(false)
	wantErr(t, db, "CANCEL BACKUP FROM db1", "No backup job is currently running")
	wantErr(t, db, "CANCEL RESTORE FROM db1", "No restore is currently running")
	mustExec(t, db, "BACKUP SNAPSHOT db1.a TO repo")
	fc.Step(3 * time.Second)
	mustExec(t, db, "CANCEL BACKUP FROM db1")
	j := jobOf(t, db, "BACKUP", "db1")
	if j["State"] != "CANCELLED" || j["Status"] != "[COMMON_ERROR, msg: user cancelled]" {
		t.Fatalf("cancelled: %v", j)
	}
	wantErr(t, db, "CANCEL BACKUP FROM db1", "Failed to cancel job: Job with label a can not be cancelled. state: CANCELLED")
	wantErr(t, db, "DROP REPOSITORY nope", "Repository does not exist")
}

func TestARestoreCancelledPastCommitCorruptsWhatItOverwrote(t *testing.T) {
	s, db, fc := backupCluster(t, simstarrocks.Options{})
	mustExec(t, db, "BACKUP SNAPSHOT db1.snap1 TO repo")
	until(t, db, fc, "BACKUP", "db1", "FINISHED", time.Minute)
	_, rows := mustQuery(t, db, "SHOW SNAPSHOT ON repo")
	restore := "RESTORE SNAPSHOT db1.snap1 FROM repo PROPERTIES ('backup_timestamp' = '" + rows[0][1] + "', 'replication_num' = '1')"

	// Before COMMIT: a cancel loses nothing.
	mustExec(t, db, restore)
	until(t, db, fc, "RESTORE", "db1", "DOWNLOADING", time.Minute)
	mustExec(t, db, "CANCEL RESTORE FROM db1")
	if j := jobOf(t, db, "RESTORE", "db1"); j["Status"] != "[COMMON_ERROR, msg: user cancelled, current state: DOWNLOADING]" {
		t.Fatalf("cancelled: %v", j)
	}
	if n := s.CancelledPastCommit(); n != 0 {
		t.Fatalf("%d corrupted", n)
	}
	// At COMMIT FE still cancels (RestoreJob.cancel refuses no state short
	// of done), and what the restore overwrote is lost (backup §4).
	mustExec(t, db, restore)
	until(t, db, fc, "RESTORE", "db1", "COMMIT", time.Minute)
	mustExec(t, db, "CANCEL RESTORE FROM db1")
	if n := s.CancelledPastCommit(); n != 1 {
		t.Fatalf("%d corrupted, want 1", n)
	}
}

func TestVersionSwitches(t *testing.T) {
	t.Run("3.3 takes the old forms only", func(t *testing.T) {
		_, db, _ := backupCluster(t, simstarrocks.Options{Version: "3.3"})
		_, err := db.Exec("BACKUP DATABASE db1 SNAPSHOT x TO repo")
		if me := mysqlError(err); me == nil || !strings.HasPrefix(me.Message, "Getting syntax error at line 1, column 7.") {
			t.Fatalf("BACKUP DATABASE on 3.3: %v", err)
		}
		wantErr(t, db, "BACKUP SNAPSHOT db1.x TO repo PROPERTIES ('ttl' = '7 DAY')", "Getting analyzing error. Detail message: Unknown backup job properties: [ttl].")
		_, err = db.Exec("DROP SNAPSHOT x ON repo")
		if me := mysqlError(err); me == nil || !strings.HasPrefix(me.Message, "Getting syntax error") {
			t.Fatalf("DROP SNAPSHOT on 3.3: %v", err)
		}
	})
	t.Run("3.4 takes BACKUP DATABASE", func(t *testing.T) {
		_, db, fc := backupCluster(t, simstarrocks.Options{Version: "3.4"})
		mustExec(t, db, "BACKUP DATABASE db1 SNAPSHOT x TO repo ON (TABLE t1)")
		until(t, db, fc, "BACKUP", "db1", "FINISHED", time.Minute)
	})
	t.Run("4.2 takes ttl and DROP SNAPSHOT, of its own snapshots only", func(t *testing.T) {
		store := simstarrocks.NewObjectStore()
		s7, db, fc := backupCluster(t, simstarrocks.Options{Version: "4.2", Store: store, ClusterID: 7})
		wantErr(t, db, "BACKUP SNAPSHOT db1.x TO repo PROPERTIES ('ttl' = 'soon')",
			"Getting analyzing error. Detail message: Invalid ttl: 'soon'. Expected a duration such as '7 DAY' or '12 HOUR', or an empty value to keep the snapshot forever.")
		mustExec(t, db, "BACKUP SNAPSHOT db1.x TO repo PROPERTIES ('ttl' = '1 DAY')")
		until(t, db, fc, "BACKUP", "db1", "FINISHED", time.Minute)
		cols, rows := mustQuery(t, db, "SHOW SNAPSHOT ON repo WHERE SNAPSHOT = 'x' AND TIMESTAMP = '"+epoch.Format("2006-01-02-15-04-05")+"-000'")
		if r := byName(cols, rows[0]); r["ClusterId"] != "7" || r["TTL"] != "1 DAY" {
			t.Fatalf("4.2's columns: %v", r)
		}
		mustExec(t, db, "BACKUP SNAPSHOT db1.y TO repo")
		until(t, db, fc, "BACKUP", "db1", "FINISHED", time.Minute)

		_, db2, _ := backupCluster(t, simstarrocks.Options{Version: "4.2", Store: store, ClusterID: 8})
		wantErr(t, db2, "DROP SNAPSHOT y ON repo",
			"Snapshot y in repository repo was created by cluster 7, and this cluster is 8. Use DROP SNAPSHOT ... FORCE to drop it anyway")
		wantErr(t, db, "DROP SNAPSHOT nope ON repo", "Snapshot does not exist in repository repo: nope")
		mustExec(t, db, "DROP SNAPSHOT y ON repo")
		// The ttl cleaner deletes x a day after it finished (backup §5).
		fc.Step(24*time.Hour + 10*time.Second)
		s7.BackupJobs() // the day's rounds, in process (above)
		mustQuery(t, db, "SHOW REPOSITORIES")
		if got := store.Snapshots(bucket, "repo"); len(got) != 0 {
			t.Fatalf("left in the repository: %v", got)
		}
	})
}

func TestSharedDataRefusesBackupAndHasClusterSnapshots(t *testing.T) {
	s, db, fc := onFakeClock(t, simstarrocks.Options{SharedData: true, Version: "3.5"})
	if err := s.CreateTable("db1", "t1", 1, 2); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE REPOSITORY repo WITH BROKER ON LOCATION '"+bucket+"'")
	wantErr(t, db, "BACKUP SNAPSHOT db1.x TO repo", "Shared-data StarRocks clusters do not support data BACKUP and RESTORE")
	wantErr(t, db, "ADMIN SET AUTOMATED CLUSTER SNAPSHOT OFF", "Getting analyzing error. Detail message: Automated snapshot has not been turn on.")
	mustExec(t, db, "ADMIN SET AUTOMATED CLUSTER SNAPSHOT ON")
	wantErr(t, db, "ADMIN SET AUTOMATED CLUSTER SNAPSHOT ON", "Getting analyzing error. Detail message: Automated snapshot has been turn on.")
	fc.Step(603 * time.Second)
	mustQuery(t, db, "SHOW DATABASES")
	fc.Step(3 * time.Second)
	cols, rows := mustQuery(t, db, "SELECT * FROM information_schema.cluster_snapshots")
	if len(rows) != 1 || !strings.HasPrefix(byName(cols, rows[0])["snapshot_name"], "automated_cluster_snapshot_") {
		t.Fatalf("one snapshot after the interval: %v %v", cols, rows)
	}
	_, jobs := mustQuery(t, db, "SELECT * FROM information_schema.cluster_snapshot_jobs")
	if len(jobs) != 1 || jobs[0][4] != "FINISHED" {
		t.Fatalf("jobs: %v", jobs)
	}
	mustExec(t, db, "ADMIN SET AUTOMATED CLUSTER SNAPSHOT OFF")
	if _, rows := mustQuery(t, db, "SELECT * FROM information_schema.cluster_snapshots"); len(rows) != 0 {
		t.Fatalf("OFF purges the snapshot: %v", rows)
	}

	_, nothing, _ := onFakeClock(t, simstarrocks.Options{Version: "3.5"})
	wantErr(t, nothing, "ADMIN SET AUTOMATED CLUSTER SNAPSHOT ON", "Getting analyzing error. Detail message: Automated snapshot only support share data mode.")
}

func TestRepositoryPrivilege(t *testing.T) {
	s, db := started(t, simstarrocks.Options{})
	_ = db
	s.CreateUser(simstarrocks.User{Name: "op", Password: "pw"})
	cfg := connectAs(t, s, "op", "pw")
	_, err := cfg.Exec("CREATE REPOSITORY repo WITH BROKER ON LOCATION '" + bucket + "'")
	if me := mysqlError(err); me == nil || me.Number != 5203 || !strings.Contains(me.Message, "the REPOSITORY privilege(s) on SYSTEM") {
		t.Fatalf("CREATE REPOSITORY without REPOSITORY: %v", err)
	}
	s.CreateUser(simstarrocks.User{Name: "op", Password: "pw", Privileges: []string{"REPOSITORY"}})
	mustExec(t, cfg, "CREATE REPOSITORY repo WITH BROKER ON LOCATION '"+bucket+"'")
}
