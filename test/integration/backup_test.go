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
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// Backup and restore (docs/backup.md) on the simulated cluster: FE does
// the work, the operator sends one statement per action and keeps the
// books. The simulated FEs and the operator share a clock that runs at the
// real pace and that a test moves on by days at once.

// runningClock is a fake clock that moves on by itself at the real pace
// (FE's heartbeats go on), and that a test steps by hours or days.
type runningClock struct {
	*clocktesting.FakeClock
}

func newRunningClock(t *testing.T, start time.Time) runningClock {
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
				fc.Step(50 * time.Millisecond)
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

// s3Repository is a repository of cluster, keys from Secret <name>-keys.
func s3Repository(t *testing.T, c *testcluster.Cluster, ns, name, cluster string, readOnly bool) *srv1.StarRocksBackupRepository {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-keys"}, Data: map[string][]byte{"access_key": []byte("AKIA" + name), "secret_key": []byte("s3cret-" + name)}}
	if err := c.Client.Create(t.Context(), secret); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	repo := &srv1.StarRocksBackupRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: srv1.StarRocksBackupRepositorySpec{
		StarRocksCluster: cluster, Name: "repo", Location: s3Location, ReadOnly: readOnly,
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
	f := startFE(t, dir, ns, name, opts)
	src := beCluster(ns, name, be)
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
	clk := newRunningClock(t, time.Date(2026, 12, 1, 0, 30, 0, 0, time.UTC))
	const ns = "backup"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 4, fe: dir.resolve, feLookEvery: time.Second, backup: backupConfig(clk)})
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
	_ = slices.Contains[[]string]
	_ = fmt.Sprint
	_ = ptr.To[int]
}
