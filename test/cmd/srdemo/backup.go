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

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/crash/feaddress"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/simstarrocks/registrar"
)

// The backup scene (--backup, on by default): in namespace backupNamespace,
// two StarRocks clusters whose FEs are simulated in this process (they
// share one object store, as two clusters share a bucket); a repository of
// each (the second read-only), a schedule that takes a backup of the first
// every minute, and a restore of that backup into the second. The
// operator of the scene is test/cmd/simoperator (the shipped main with the
// simulated FEs' addresses in place of DNS) with --enable-backup, limited
// to the namespace; the demo's own operator leaves it alone (--deny-list).

const backupNamespace = "backup-demo"

// harness stands in for testing.TB where the simulation's constructors
// (simstarrocks.Start, registrar.Start) want one: they use these methods
// only; any other would panic on the nil TB.
type harness struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
}

func (h *harness) Helper()                           {}
func (h *harness) Logf(string, ...any)               {}
func (h *harness) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (h *harness) Cleanup(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cleanups = append(h.cleanups, f)
}

// close runs the cleanups, last first.
func (h *harness) close() {
	h.mu.Lock()
	fs := slices.Clone(h.cleanups)
	h.cleanups = nil
	h.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// backupScene is what the scene started, for cleanup.
type backupScene struct {
	h        *harness
	operator *exec.Cmd
	exited   chan struct{}
	logPath  string
}

func (s *backupScene) stop() {
	if s.operator != nil && s.operator.Process != nil {
		_ = s.operator.Process.Kill()
		<-s.exited
	}
	s.h.close()
}

// runBackupScene shows a schedule's backup and its restore into a second cluster.
func (d *demo) runBackupScene(ctx context.Context, root string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the simulated StarRocks: %v", r)
		}
	}()
	c := d.cluster.Client
	d.step("backup: two clusters in namespace %s with simulated FEs sharing one object store (make demo ARGS=--backup=false skips this)", backupNamespace)
	if err := createNamespace(ctx, c, backupNamespace); err != nil {
		return err
	}
	h := &harness{}
	d.backup = &backupScene{h: h}
	store := simstarrocks.NewObjectStore()
	fes := map[string]*simstarrocks.StarRocks{}
	addrs := feaddress.Addresses{}
	for i, name := range []string{"sales", "sales-copy"} {
		f := simstarrocks.Start(h, simstarrocks.Options{Store: store, ClusterID: i + 1, Password: "demo"})
		f.BootstrapFrontend(fmt.Sprintf("%s-fe-0.%s-fe-search.%s.svc.cluster.local", name, name, backupNamespace), 9010)
		fes[name] = f
		addrs[feaddress.Key(backupNamespace, name+"-fe-service")] = feaddress.Address{Query: f.QueryAddress(), HTTP: f.HTTPURL()}
	}
	registrar.Start(ctx, h, d.cluster.Config, func(ns, cluster string) *simstarrocks.StarRocks {
		if ns != backupNamespace {
			return nil
		}
		return fes[cluster]
	}, registrar.Options{Pod0LeaderTimeout: time.Second})

	bin := filepath.Join(d.workDir, "simoperator")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/simoperator")
	build.Dir = filepath.Join(root, "test")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building test/cmd/simoperator: %w\n%s", err, out)
	}
	kubeconfig, err := d.cluster.WriteKubeconfig(operatorUser)
	if err != nil {
		return err
	}
	d.backup.logPath = filepath.Join(d.workDir, "backup-operator.log")
	logFile, err := os.Create(d.backup.logPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "--kubeconfig="+kubeconfig, "--namespace="+backupNamespace, "--enable-backup",
		"--metrics-bind-address=0", "--health-probe-bind-address=0")
	cmd.Env = append(os.Environ(), feaddress.Var+"="+addrs.Encode(), `SIMOPERATOR_BACKUP={"pollEvery":"2s","talkEvery":"1s"}`)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return err
	}
	d.backup.operator, d.backup.exited = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); logFile.Close(); close(d.backup.exited) }()
	d.step("backup: a second operator process (simulated FE addresses, --enable-backup, --namespace=%s)", backupNamespace)

	pw := []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "demo"}}
	for _, name := range []string{"sales", "sales-copy"} {
		src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: backupNamespace, Name: name}, Spec: srv1.StarRocksClusterSpec{
			StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/fe-ubuntu:3.3.2"}}, FeEnvVars: pw},
			StarRocksBeSpec: &srv1.StarRocksBeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/be-ubuntu:3.3.2", Replicas: ptr.To(int32(1))}}, BeEnvVars: pw},
		}}
		if err := c.Create(ctx, src); err != nil {
			return err
		}
	}
	if err := d.waitFor(ctx, "both clusters running, their BE registered with FE", 3*time.Minute, func() bool {
		for name, f := range fes {
			src := &srv1.StarRocksCluster{}
			if c.Get(ctx, client.ObjectKey{Namespace: backupNamespace, Name: name}, src) != nil || src.Status.Phase != srv1.PhaseRunning {
				return false
			}
			if bs := f.Backends(); len(bs) != 1 || !bs[0].Alive {
				return false
			}
		}
		return true
	}); err != nil {
		return err
	}
	if err := fes["sales"].CreateTable("sales", "orders", 1, 8); err != nil {
		return err
	}
	d.step("backup: FE of cluster sales has database sales (table orders, 8 tablets)")
	for _, o := range []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: backupNamespace, Name: "s3-keys"}, Data: map[string][]byte{"access_key": []byte("AKIADEMO"), "secret_key": []byte("demo-secret")}},
		demoRepository("sales-repo", "sales", false), demoRepository("copy-repo", "sales-copy", true),
		&srv1.StarRocksBackupSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: backupNamespace, Name: "nightly"}, Spec: srv1.StarRocksBackupScheduleSpec{
			StarRocksCluster: "sales", Repository: "sales-repo", Databases: []string{"sales"}, Schedule: "* * * * *",
			Retention: srv1.BackupRetention{KeepLast: ptr.To(int32(3))}}},
	} {
		if err := c.Create(ctx, o); err != nil {
			return err
		}
	}
	d.step("backup: applied StarRocksBackupRepository sales-repo and copy-repo (read-only, same location), StarRocksBackupSchedule nightly (every minute, for the demo)")
	var done *srv1.StarRocksBackup
	if err := d.waitFor(ctx, "the schedule's first backup to succeed", 3*time.Minute, func() bool {
		list := &srv1.StarRocksBackupList{}
		if c.List(ctx, list, client.InNamespace(backupNamespace)) != nil {
			return false
		}
		for i := range list.Items {
			if list.Items[i].Status.Phase == srv1.BackupSucceeded {
				done = &list.Items[i]
				return true
			}
		}
		return false
	}); err != nil {
		return err
	}
	d.step("backup: StarRocksBackup %s succeeded: snapshot %s at %s (FE said %s)", done.Name, done.Status.Label, done.Status.Timestamp, done.Status.FEState)
	// The plugin reads the operator's backup status: LAST BACKUP.
	d.printPluginStatus(backupNamespace)
	r := &srv1.StarRocksRestore{ObjectMeta: metav1.ObjectMeta{Namespace: backupNamespace, Name: "sales-into-copy"}, Spec: srv1.StarRocksRestoreSpec{
		StarRocksCluster: "sales-copy", Repository: "copy-repo", ReplicationNum: ptr.To(int32(1)),
		Source: srv1.RestoreSource{Snapshot: &srv1.RestoreSnapshot{Label: done.Status.Label, Timestamp: done.Status.Timestamp, Database: "sales"}}}}
	if err := c.Create(ctx, r); err != nil {
		return err
	}
	d.step("backup: applied StarRocksRestore sales-into-copy (that snapshot into cluster sales-copy)")
	if err := d.waitFor(ctx, "the restore to succeed", 3*time.Minute, func() bool {
		return c.Get(ctx, client.ObjectKeyFromObject(r), r) == nil && r.Status.Phase == srv1.BackupSucceeded
	}); err != nil {
		return err
	}
	d.step("backup: StarRocksRestore sales-into-copy succeeded (past FE's COMMIT: %v); cluster sales-copy has sales.orders restored from %s",
		r.Status.PastPointOfNoReturn, fes["sales-copy"].RestoredFrom("sales", "orders"))
	return nil
}

func demoRepository(name, cluster string, readOnly bool) *srv1.StarRocksBackupRepository {
	return &srv1.StarRocksBackupRepository{ObjectMeta: metav1.ObjectMeta{Namespace: backupNamespace, Name: name}, Spec: srv1.StarRocksBackupRepositorySpec{
		StarRocksCluster: cluster, Name: "demo_repo", Location: "s3a://demo-bucket/starrocks", ReadOnly: readOnly,
		S3: &srv1.S3Repository{Region: "us-east-1", Credentials: srv1.S3Credentials{SecretRef: &srv1.S3SecretRef{Name: "s3-keys"}}}}}
}

// waitFor polls cond every 500 ms until it holds, or timeout passes.
func (d *demo) waitFor(ctx context.Context, what string, timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("backup scene: waited %s for %s", timeout, what)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return nil
}
