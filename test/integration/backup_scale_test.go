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
	"database/sql"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/backup"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/options"
	"github.com/srscale/starrocks-operator/internal/scheme"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// TestBackupAtScale is the backup measurement of docs/benchmark.md: N
// clusters (SRSCALE_BACKUP_CLUSTERS, default 1000) of 5 databases each,
// one nightly schedule each, and what the night costs: when the last job
// starts, FE statements and API writes per backup, and what the idle
// schedules cost between runs. A measurement (make bench-backup, under the
// exclusive lock): it runs only with SRSCALE_BACKUP_SCALE=1.
//
// It measures the backup controllers alone, with the shipped settings
// (PollEvery 30 s, TalkEvery 10 s, 8 conversations at once, 1 worker per
// controller): on an API-only control plane, the clusters' status written
// running by the test as the cluster reconciler would once their pods run,
// one simulated FE per cluster (its BE a row of FE's, no pod), on a clock
// that runs at the real pace and is moved to the run's time (a daily
// schedule at the minute 40 minutes after the start, standing for 01:00).
func TestBackupAtScale(t *testing.T) {
	if os.Getenv("SRSCALE_BACKUP_SCALE") != "1" {
		t.Skip("a measurement: set SRSCALE_BACKUP_SCALE=1 (make bench-backup)")
	}
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("SRSCALE_BACKUP_CLUSTERS")); err == nil && v > 0 {
		n = v
	}
	const dbs = 5
	c := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: crdPaths(t)})
	ctx := t.Context()
	const ns = "backup-scale"
	testutil.CreateNamespace(t, c.Client, ns)
	// The clock starts at the real time (the API server stamps the schedules
	// with it); the nightly run is at the minute 40 minutes on, and the clock
	// is moved there once the setup and the idle window are over.
	start := time.Now().UTC().Truncate(time.Minute)
	clk := newRunningClockAt(t, start, 1)
	run := start.Add(40 * time.Minute)
	dir := &feDirectory{}
	setup := time.Now()

	// The clusters, running, each with its FE and 5 databases.
	var mu sync.Mutex
	var fes []*simstarrocks.StarRocks
	work := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				name := fmt.Sprintf("c%04d", i)
				f := simstarrocks.Start(t, simstarrocks.Options{Clock: clk.FakeClock, Password: "pw-" + name, ClusterID: i + 1})
				f.BootstrapFrontend(name+"-fe-0", 9010)
				db, err := sql.Open("mysql", fmt.Sprintf("root:pw-%s@tcp(%s)/", name, f.QueryAddress()))
				if err != nil {
					t.Error(err)
					return
				}
				_, err = db.ExecContext(ctx, "ALTER SYSTEM ADD BACKEND '"+name+"-be-0:9050'")
				db.Close()
				if err != nil {
					t.Error(err)
					return
				}
				f.SetAlive(name+"-be-0", true)
				for d := range dbs {
					if err := f.CreateTable(fmt.Sprintf("db%d", d), "t", 1, 2); err != nil {
						t.Error(err)
						return
					}
				}
				dir.set(ns, name, f)
				src := feOnly(ns, name)
				src.Spec.StarRocksFeSpec.FeEnvVars = []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "pw-" + name}}
				if err := c.Client.Create(ctx, src); err != nil {
					t.Error(err)
					return
				}
				src.Status = srv1.StarRocksClusterStatus{ObservedGeneration: src.Generation, Phase: srv1.PhaseRunning}
				if err := c.Client.Status().Update(ctx, src); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				fes = append(fes, f)
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if err := c.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "keys"},
		Data: map[string][]byte{"access_key": []byte("a"), "secret_key": []byte("b")}}); err != nil {
		t.Fatal(err)
	}

	// The backup controllers alone, shipped settings but the clock.
	opts := options.Default()
	opts.Namespace = ns
	opts.MetricsBindAddress, opts.HealthProbeBindAddress = "0", "0"
	cfg := rest.CopyConfig(c.Config)
	opts.ApplyToRESTConfig(cfg)
	log := &requestLog{}
	cfg.Wrap(log.wrap)
	mo := opts.ManagerOptions(scheme.New())
	mo.Controller.SkipNameValidation = ptr.To(true)
	mgr, err := ctrl.NewManager(cfg, mo)
	if err != nil {
		t.Fatal(err)
	}
	door := feaccess.New(mgr.GetAPIReader(), feaccess.Options{Resolve: dir.resolve, Cache: mgr.GetClient()})
	if err := backup.Setup(mgr, backup.Config{Clock: clk.FakeClock}, opts.ControllerOptions(), nil, door); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Log(err)
		}
	})

	for i := range n {
		name := fmt.Sprintf("c%04d", i)
		repo := s3RepositoryObject(ns, name+"-repo", name, "repo")
		repo.Spec.S3.Credentials.SecretRef.Name = "keys"
		sched := &srv1.StarRocksBackupSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: srv1.StarRocksBackupScheduleSpec{
			StarRocksCluster: name, Repository: repo.Name, Databases: []string{"db0", "db1", "db2", "db3", "db4"}, Schedule: fmt.Sprintf("%d %d * * *", run.Minute(), run.Hour()),
			Retention: srv1.BackupRetention{KeepLast: ptr.To(int32(7))}}}
		for _, o := range []client.Object{repo, sched} {
			if err := c.Client.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	ready := func() int {
		list := &srv1.StarRocksBackupRepositoryList{}
		if err := c.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, r := range list.Items {
			for _, cond := range r.Status.Conditions {
				if cond.Type == srv1.ConditionReady && cond.Status == metav1.ConditionTrue {
					k++
				}
			}
		}
		return k
	}
	lastLog := time.Now()
	if err := pollFor(10*time.Minute, func(context.Context) bool {
		k := ready()
		if time.Since(lastLog) > 30*time.Second {
			t.Logf("%d of %d repositories ready after %s", k, n, time.Since(setup).Round(time.Second))
			lastLog = time.Now()
		}
		return k == n
	}); err != nil {
		t.Fatalf("%d of %d repositories ready", ready(), n)
	}
	log.waitQuiet(5*time.Second, 5*time.Minute)
	t.Logf("setup: %d clusters, their FEs, repositories and schedules in %s", n, time.Since(setup).Round(time.Second))

	// Idle: the schedules' next run is hours away.
	backupStatements := func() int {
		k := 0
		for _, f := range fes {
			k += len(backupStatementsOf(f))
		}
		return k
	}
	idleFrom, feIdle := log.mark(), backupStatements()
	const idle = 60 * time.Second
	time.Sleep(idle)
	idleReqs := log.since(idleFrom)
	t.Logf("idle %s between runs (%d schedules): %d FE statements, %d API requests\n%s", idle, n, backupStatements()-feIdle, len(idleReqs), summary(idleReqs))

	// The night: the clock at the run.
	if !clk.Now().Before(run) {
		t.Fatalf("the setup took past the run at %s", run)
	}
	runFrom, feFrom, statsFrom := log.mark(), backupStatements(), map[*simstarrocks.StarRocks]int{}
	for _, f := range fes {
		statsFrom[f] = len(f.Statements())
	}
	t0 := time.Now()
	clk.SetTime(run)
	total := n * dbs
	succeeded := func() ([]srv1.StarRocksBackup, int) {
		list := &srv1.StarRocksBackupList{}
		if err := c.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, b := range list.Items {
			if b.Status.Phase == srv1.BackupSucceeded {
				k++
			}
		}
		return list.Items, k
	}
	var items []srv1.StarRocksBackup
	if err := pollFor(60*time.Minute, func(context.Context) bool {
		var k int
		items, k = succeeded()
		if time.Since(lastLog) > 30*time.Second {
			t.Logf("%d of %d backups succeeded %s after the run", k, total, time.Since(t0).Round(time.Second))
			lastLog = time.Now()
		}
		return k == total
	}); err != nil {
		_, k := succeeded()
		t.Fatalf("%d of %d backups succeeded", k, total)
	}
	wall := time.Since(t0)
	log.waitQuiet(5*time.Second, 2*time.Minute)
	var starts, ends []time.Duration
	for _, b := range items {
		starts = append(starts, b.Status.SubmittedAt.Sub(run))
		ends = append(ends, b.Status.CompletedAt.Sub(run))
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	sort.Slice(ends, func(i, j int) bool { return ends[i] < ends[j] })
	reqs := log.since(runFrom)
	writes := map[string]int{}
	for _, r := range reqs {
		if isWrite(r) {
			writes[r.verb+" "+r.resource]++
		}
	}
	var lines []string
	for _, k := range slices.Sorted(mapKeysOf(writes)) {
		lines = append(lines, fmt.Sprintf("  %-45s %6d  %.2f per backup", k, writes[k], float64(writes[k])/float64(total)))
	}
	allStatements, sets := 0, 0
	for _, f := range fes {
		for _, s := range f.Statements()[statsFrom[f]:] {
			allStatements++
			if strings.HasPrefix(strings.ToUpper(s), "SET ") {
				sets++
			}
		}
	}
	feStmts := backupStatements() - feFrom
	t.Logf("the night: %d backups (%d clusters × %d databases) succeeded %s after the run's time (wall clock); "+
		"first job started %s, median %s, last %s after it (status.submittedAt, to the second); last end %s",
		total, n, dbs, wall.Round(time.Second), starts[0], starts[len(starts)/2], starts[len(starts)-1], ends[len(ends)-1])
	t.Logf("FE statements: %d backup statements (%.2f per backup), %d with the sessions' SET forward_to_leader (%.2f per backup), of %d to the FEs in all",
		feStmts, float64(feStmts)/float64(total), feStmts+sets, float64(feStmts+sets)/float64(total), allStatements)
	t.Logf("API writes: %d in all, %.2f per backup:\n%s", countWrites(reqs), float64(countWrites(reqs))/float64(total), strings.Join(lines, "\n"))
}

func countWrites(rs []request) int {
	k := 0
	for _, r := range rs {
		if isWrite(r) {
			k++
		}
	}
	return k
}

func mapKeysOf(m map[string]int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
