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
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/crash"
	"github.com/srscale/starrocks-operator/test/faulttable"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// backupEnv is the crash operator's backup settings: FE read every second.
const backupEnv = `SIMOPERATOR_BACKUP={"pollEvery":"1s","talkEvery":"500ms"}`

// TestBackupAcrossSIGKILL SIGKILLs the operator binary at each phase of a
// backup and of a restore; the next process finishes each with exactly
// one FE job. The control case labels a backup from the moment it is sent
// (backup.Safety.LabelFromWallClock): the restarted process starts a
// second job.
func TestBackupAcrossSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster and operator processes")
	}
	t.Parallel()
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := crash.Build(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	c, dir := simulatedWithStarRocks(t)
	const ns = "backup-crash"
	testutil.CreateNamespace(t, c.Client, ns)
	op := crash.New(t, crash.Options{Binary: bin, Cluster: c, Args: []string{"--namespace=" + ns, "--enable-backup"}, Env: []string{backupEnv}})
	store := simstarrocks.NewObjectStore()
	after := func(stmt string) { op.Statement(stmt) }
	f := startFE(t, dir, ns, "src", simstarrocks.Options{Store: store, ClusterID: 1, BackupTabletTime: 500 * time.Millisecond, AfterStatement: after})
	g := startFE(t, dir, ns, "dst", simstarrocks.Options{Store: store, ClusterID: 2, RestoreTabletTime: 500 * time.Millisecond, AfterStatement: after})
	for name, fe := range map[string]*simstarrocks.StarRocks{"src": f, "dst": g} {
		op.SetFE(ns, name+"-fe-service", fe.QueryAddress(), fe.HTTPURL())
	}
	op.Start()
	for _, name := range []string{"src", "dst"} {
		if err := c.Client.Create(t.Context(), beCluster(ns, name, 1)); err != nil {
			t.Fatal(err)
		}
	}
	for name, fe := range map[string]*simstarrocks.StarRocks{"src": f, "dst": g} {
		waitRunning(t, c, ns, name, 2*time.Minute)
		if err := pollFor(time.Minute, func(context.Context) bool { return aliveBEs(fe) == 1 }); err != nil {
			t.Fatal("BE not alive")
		}
	}
	if err := f.CreateTable("sales", "orders", 1, 6); err != nil {
		t.Fatal(err)
	}
	s3Repository(t, c, ns, "src-repo", "src", false)
	s3Repository(t, c, ns, "dst-repo", "dst", true)
	repoReady(t, c, ns, "src-repo")
	repoReady(t, c, ns, "dst-repo")

	// jobs counts the BACKUP (or RESTORE) statements of label FE took.
	jobs := func(fe *simstarrocks.StarRocks, prefix, label string) int {
		n := 0
		for _, s := range jobsStarted(fe, prefix) {
			if strings.Contains(s, label) {
				n++
			}
		}
		return n
	}
	jobState := func(fe *simstarrocks.StarRocks, db, state string) bool {
		for _, j := range fe.BackupJobs() {
			if j.DB == db && j.State == state {
				return true
			}
		}
		return false
	}
	killed := func(t *testing.T, ch <-chan crash.Killed) {
		t.Helper()
		select {
		case k := <-ch:
			if !k.BySIGKILL {
				t.Fatalf("process %d not ended by SIGKILL", k.Pid)
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("the kill point was not reached")
		}
		op.Start()
	}
	var last *srv1.StarRocksBackup
	var backupKilled, restoreKilled []string
	backupKills := []struct {
		name string
		arm  func(b string) <-chan crash.Killed
		// wait, when set, is what the kill point waits for before it is armed.
		wait func() bool
	}{
		{name: "right after FE took the BACKUP", arm: func(string) <-chan crash.Killed { return op.KillAfterStatement("BACKUP SNAPSHOT `sales`") }},
		{name: "right after the status said Running", arm: func(b string) <-chan crash.Killed {
			return op.KillOnWrite(crash.Write{Resource: "starrocksbackups", Namespace: ns, Name: b, Subresource: "status", When: crash.AfterAccepted})
		}},
		{name: "mid-upload, after a read of the job", wait: func() bool { return jobState(f, "sales", "UPLOADING") },
			arm: func(string) <-chan crash.Killed { return op.KillAfterStatement("SHOW BACKUP FROM `sales`") }},
		{name: "after FE said FINISHED, before the status did", wait: func() bool { return jobState(f, "sales", "FINISHED") },
			arm: func(string) <-chan crash.Killed { return op.KillAfterStatement("SHOW SNAPSHOT ON `repo`") }},
	}
	for i, k := range backupKills {
		t.Run("backup SIGKILLed "+k.name+": one FE job", func(t *testing.T) {
			name := fmt.Sprintf("crash-%d", i)
			var ch <-chan crash.Killed
			if k.wait == nil {
				ch = k.arm(name)
			}
			b := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: srv1.StarRocksBackupSpec{StarRocksCluster: "src", Repository: "src-repo", Database: "sales"}}
			if err := c.Client.Create(t.Context(), b); err != nil {
				t.Fatal(err)
			}
			if k.wait != nil {
				if err := pollFor(time.Minute, func(context.Context) bool { return k.wait() }); err != nil {
					t.Fatal("the phase was not reached")
				}
				ch = k.arm(name)
			}
			killed(t, ch)
			last = backupPhase(t, c, ns, name, srv1.BackupSucceeded, 2*time.Minute)
			if n := jobs(f, "BACKUP SNAPSHOT", last.Status.Label); n != 1 {
				t.Errorf("%d BACKUP jobs FE took for %s, want 1", n, last.Status.Label)
			} else {
				backupKilled = append(backupKilled, k.name)
			}
		})
	}

	restoreKills := []struct {
		name string
		arm  func(r string) <-chan crash.Killed
		wait func() bool
	}{
		{name: "right after the submission was recorded", arm: func(r string) <-chan crash.Killed {
			return op.KillOnWrite(crash.Write{Resource: "starrocksrestores", Namespace: ns, Name: r, Subresource: "status", When: crash.AfterAccepted})
		}},
		{name: "right after FE took the RESTORE", arm: func(string) <-chan crash.Killed { return op.KillAfterStatement("RESTORE SNAPSHOT") }},
		{name: "past FE's COMMIT", wait: func() bool { return jobState(g, "sales", "COMMITTING") || jobState(g, "sales", "COMMIT") },
			arm: func(string) <-chan crash.Killed { return op.KillAfterStatement("SHOW RESTORE FROM `sales`") }},
	}
	for i, k := range restoreKills {
		t.Run("restore SIGKILLed "+k.name+": one FE job", func(t *testing.T) {
			if last == nil {
				t.Skip("no backup succeeded")
			}
			before := len(jobsStarted(g, "RESTORE SNAPSHOT"))
			name := fmt.Sprintf("crash-restore-%d", i)
			var ch <-chan crash.Killed
			if k.wait == nil {
				ch = k.arm(name)
			}
			one := int32(1)
			r := &srv1.StarRocksRestore{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: srv1.StarRocksRestoreSpec{
				StarRocksCluster: "dst", Repository: "dst-repo", ReplicationNum: &one, ExistingTables: srv1.ExistingTablesOverwrite,
				Source: srv1.RestoreSource{Snapshot: &srv1.RestoreSnapshot{Label: last.Status.Label, Timestamp: last.Status.Timestamp, Database: "sales"}}}}
			if err := c.Client.Create(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			if k.wait != nil {
				if err := pollFor(time.Minute, func(context.Context) bool { return k.wait() }); err != nil {
					t.Fatal("the phase was not reached")
				}
				ch = k.arm(name)
			}
			killed(t, ch)
			restorePhase(t, c, ns, name, srv1.BackupSucceeded, 2*time.Minute)
			if n := len(jobsStarted(g, "RESTORE SNAPSHOT")) - before; n != 1 {
				t.Errorf("%d RESTORE jobs FE took, want 1", n)
			} else {
				restoreKilled = append(restoreKilled, k.name)
			}
			if g.CancelledPastCommit() != 0 {
				t.Error("a restore was cancelled past COMMIT")
			}
		})
	}

	t.Run("control: a label from the moment of sending, and the restarted process starts a second job", func(t *testing.T) {
		op.Kill("the control's operator takes over")
		unsafe := crash.New(t, crash.Options{Binary: bin, Cluster: c, Args: []string{"--namespace=" + ns, "--enable-backup"},
			Env: []string{`SIMOPERATOR_BACKUP={"pollEvery":"1s","talkEvery":"500ms","labelFromWallClock":true}`}})
		op = unsafe
		for name, fe := range map[string]*simstarrocks.StarRocks{"src": f, "dst": g} {
			unsafe.SetFE(ns, name+"-fe-service", fe.QueryAddress(), fe.HTTPURL())
		}
		ch := unsafe.KillAfterStatement("BACKUP SNAPSHOT `sales`")
		unsafe.Start()
		before := len(jobsStarted(f, "BACKUP SNAPSHOT `sales`"))
		b := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "control"}, Spec: srv1.StarRocksBackupSpec{StarRocksCluster: "src", Repository: "src-repo", Database: "sales"}}
		if err := c.Client.Create(t.Context(), b); err != nil {
			t.Fatal(err)
		}
		killed(t, ch)
		backupPhase(t, c, ns, "control", srv1.BackupSucceeded, 2*time.Minute)
		n := len(jobsStarted(f, "BACKUP SNAPSHOT `sales`")) - before
		if n != 2 {
			t.Errorf("control: %d BACKUP jobs FE took for one StarRocksBackup, want 2 (the label rule off)", n)
			return
		}
		t.Logf("control: without the label rule the restarted operator started a second job: %d BACKUP jobs for one StarRocksBackup", n)
		if len(backupKilled) == len(backupKills) {
			recordFault(t, faulttable.Row{Fault: "operator SIGKILL at each phase of a backup",
				Injected:  "the operator binary SIGKILLed, one backup each: " + strings.Join(backupKilled, "; ") + "; restarted",
				Converged: "each backup Succeeded under the next process, found again by its label",
				Lost:      fmt.Sprintf("0: one FE BACKUP job per backup (%d backups)", len(backupKilled)),
				Control:   fmt.Sprintf("%d FE jobs for one backup (labelled from the moment of sending, killed right after FE took it)", n)})
		}
		if len(restoreKilled) == len(restoreKills) {
			recordFault(t, faulttable.Row{Fault: "operator SIGKILL at each phase of a restore",
				Injected:  "the operator binary SIGKILLed, one restore each: " + strings.Join(restoreKilled, "; ") + "; restarted",
				Converged: "each restore Succeeded under the next process; none cancelled past COMMIT",
				Lost:      fmt.Sprintf("0: one FE RESTORE job per restore (%d restores)", len(restoreKilled)),
				Control:   "–"})
		}
	})
}
