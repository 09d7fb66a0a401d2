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
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

func TestBadFlagsFailBeforeStartingAnythingAndNameTheFlag(t *testing.T) {
	tests := []struct {
		args []string
		flag string
	}{
		{[]string{"--max-concurrent-reconciles=0"}, "--max-concurrent-reconciles"},
		{[]string{"--sync-period=0s"}, "--sync-period"},
		{[]string{"--sync-period=soon"}, "-sync-period"},
		{[]string{"--kube-api-qps=-3"}, "--kube-api-qps"},
		{[]string{"--kube-api-burst=-1"}, "--kube-api-burst"},
		{[]string{"--clusters=0"}, "--clusters"},
		{[]string{"--timeout=0s"}, "--timeout"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
		{[]string{"stray"}, "stray"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			start := time.Now()
			if code := run(context.Background(), tt.args, &stdout, &stderr); code != exitUsage {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.flag) {
				t.Errorf("stderr does not name %s:\n%s", tt.flag, stderr.String())
			}
			if stdout.Len() > 0 || time.Since(start) > 5*time.Second {
				t.Errorf("the demo started before rejecting the flag (%s):\n%s", time.Since(start), stdout.String())
			}
		})
	}
}

func TestKnobsGivenOnTheCommandLineAreForwardedAsGiven(t *testing.T) {
	cfg, err := parseFlags([]string{"--clusters=2", "--sync-period=30m", "--kube-api-qps=-1", "--once"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--kube-api-qps=-1", "--sync-period=30m0s"}
	if strings.Join(cfg.operatorArgs, " ") != strings.Join(want, " ") {
		t.Errorf("operator args %q, want %q", cfg.operatorArgs, want)
	}
	cfg, err = parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.operatorArgs) != 0 || cfg.knobs.MaxConcurrentReconciles != 1 || cfg.knobs.SyncPeriod != 2*time.Minute {
		t.Errorf("defaults are not the operator's: args %q, knobs %+v", cfg.operatorArgs, cfg.knobs)
	}
}

func TestASecondDemoIsRefusedNamingTheFirstOnesPID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "srdemo.lock")
	release, err := acquireLock(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = acquireLock(path)
	if err == nil || !strings.Contains(err.Error(), "already running (PID "+strconv.Itoa(os.Getpid())+",") {
		t.Fatalf("second lock: %v, want a message naming PID %d", err, os.Getpid())
	}
	release()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("lock file left behind: %v", err)
	}
	release, err = acquireLock(path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	release()
}

func TestMetricsAreReadFromTheTextFormat(t *testing.T) {
	text := `# HELP starrocks_operator_api_requests_total Requests sent.
# TYPE starrocks_operator_api_requests_total counter
starrocks_operator_api_requests_total{resource="statefulsets",verb="patch"} 9
starrocks_operator_api_requests_total{resource="services",verb="patch"} 18
starrocks_operator_api_requests_total{resource="starrocksclusters/status",verb="patch"} 4
starrocks_operator_api_requests_total{resource="statefulsets",verb="watch"} 1
starrocks_operator_api_requests_total{resource="starrocksclusters",verb="list"} 1
starrocks_operator_api_requests_total{resource="odd,\"name\"",verb="create"} 2
starrocks_operator_object_writes_total{action="create",kind="StatefulSet"} 9
starrocks_operator_object_writes_total{action="update",kind="StatefulSet"} 1
starrocks_operator_cluster_time_to_ready_seconds_bucket{le="+Inf"} 2
starrocks_operator_cluster_time_to_ready_seconds_sum 7
starrocks_operator_cluster_time_to_ready_seconds_count 2
go_goroutines 42
`
	got := summariseMetrics(parseMetrics(text))
	if got.writes != 33 || got.reads != 2 {
		t.Errorf("writes %g reads %g, want 33 and 2", got.writes, got.reads)
	}
	if b := breakdown(got.writesByVerb); b != "patch 31, create 2" {
		t.Errorf("writes by verb %q", b)
	}
	if b := breakdown(got.objectWritesByKind); b != "StatefulSet 10" {
		t.Errorf("object writes by kind %q", b)
	}
	if got.readyCount != 2 || got.readySum != 7 {
		t.Errorf("time to ready count %g sum %g, want 2 and 7", got.readyCount, got.readySum)
	}
}

func TestClusterStateCountsReadyPodsPerComponent(t *testing.T) {
	src, err := sampleCluster(namespace, "demo-1")
	if err != nil {
		t.Fatal(err)
	}
	if src.Spec.StarRocksFeSpec == nil || src.Spec.StarRocksBeSpec == nil || src.Spec.StarRocksCnSpec == nil || src.Spec.StarRocksFeProxySpec == nil {
		t.Fatal("the sample lacks a component; the demo promises FE, BE, CN and the FE proxy")
	}
	if st := stateOf(src); st.phase != "pending" || st.running || st.row() != "pending      FE 0/1    BE 0/3    CN 0/1    proxy 0/1" {
		t.Errorf("fresh cluster shows %q (running %v)", st.row(), st.running)
	}
	src.Generation = 2
	src.Status = srv1.StarRocksClusterStatus{
		ObservedGeneration:     2,
		Phase:                  srv1.PhaseRunning,
		StarRocksFeStatus:      &srv1.StarRocksComponentStatus{Phase: srv1.PhaseRunning, RunningInstances: []string{"demo-1-fe-0"}},
		StarRocksBeStatus:      &srv1.StarRocksComponentStatus{Phase: srv1.PhaseRunning, RunningInstances: []string{"b0", "b1", "b2"}},
		StarRocksCnStatus:      &srv1.StarRocksCnStatus{StarRocksComponentStatus: srv1.StarRocksComponentStatus{Phase: srv1.PhaseRunning, RunningInstances: []string{"c0"}}},
		StarRocksFeProxyStatus: &srv1.StarRocksComponentStatus{Phase: srv1.PhaseRunning, RunningInstances: []string{"p0"}},
	}
	if st := stateOf(src); !st.running {
		t.Errorf("running cluster not counted as running: %q", st.row())
	}
	src.Spec.StarRocksBeSpec.Replicas = ptr.To[int32](5)
	if st := stateOf(src); st.running {
		t.Errorf("BE 3/5 counted as running: %q", st.row())
	}
	src.Spec.StarRocksBeSpec.Replicas = ptr.To[int32](3)
	src.Generation = 3
	if st := stateOf(src); st.running {
		t.Error("a status of an older generation counted as running")
	}
}

func TestATerminalSeesOneTableRedrawnInPlace(t *testing.T) {
	var out bytes.Buffer
	d := &redrawDisplay{w: &out}
	states := make([]clusterState, maxRows+5)
	for i, name := range clusterNames(len(states)) {
		src, err := sampleCluster(namespace, name)
		if err != nil {
			t.Fatal(err)
		}
		states[i] = stateOf(src)
	}
	d.update(states, time.Second, false)
	d.update(states, 1100*time.Millisecond, false) // within 500 ms: not drawn
	d.update(states, 2*time.Second, true)
	text := out.String()
	lines := 1 + maxRows + 1 // header, rows, "... and 5 more"
	if got := strings.Count(text, "\n"); got != 2*lines {
		t.Errorf("%d lines written, want the table (%d lines) twice:\n%s", got, lines, text)
	}
	if strings.Count(text, "\x1b[") != 2*lines+1 || !strings.Contains(text, "\x1b["+strconv.Itoa(lines)+"A") {
		t.Errorf("the second drawing does not move up %d lines and clear each:\n%q", lines, text)
	}
	if !strings.Contains(text, "... and 5 more") || strings.Contains(text, "demo-21 ") {
		t.Errorf("more than %d rows drawn:\n%s", maxRows, text)
	}
}

// The README's command, end to end, as CI runs it: a simulated cluster, the
// operator as a process, two clusters, the summary, exit 0, nothing left behind.
func TestOnceRunsTwoClustersToRunningAndCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster and the operator")
	}
	bin := buildDemo(t)
	tmp := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--clusters", "2", "--once", "--timeout", "90s", "--backup=false")
	// A TMPDIR of its own: files left behind show up, and a demo a developer runs meanwhile does not hold the lock.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Logf("output:\n%s%s", stdout.String(), stderr.String())
	if err != nil {
		t.Fatalf("srdemo --clusters 2 --once: %v", err)
	}
	out := stdout.String()
	if !strings.Contains(out, "2 of 2 clusters running.") {
		t.Error("the summary does not say 2 of 2 clusters running")
	}
	for _, name := range []string{"demo-1", "demo-2"} {
		if !regexp.MustCompile(`(?m)^\s+` + name + `\s+running\s+1/1\s+3/3\s+1/1\s+1/1\s+\d+\.\ds$`).MatchString(out) {
			t.Errorf("the summary has no running row for %s with every pod ready", name)
		}
	}
	if !regexp.MustCompile(`Operator API requests so far \(http://127\.0\.0\.1:\d+/metrics\): [1-9]\d* writes`).MatchString(out) {
		t.Error("the summary lacks the operator's API writes from /metrics")
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("terminal escape codes written to a pipe")
	}
	assertEmpty(t, tmp)
}

// The backup scene, as make demo shows it: a schedule's backup of one
// cluster, and its restore into a second cluster.
func TestBackupSceneTakesAScheduledBackupAndRestoresIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster and two operators")
	}
	bin := buildDemo(t)
	tmp := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--clusters", "1", "--once", "--timeout", "90s")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Logf("output:\n%s%s", stdout.String(), stderr.String())
	if err != nil {
		t.Fatalf("srdemo --clusters 1 --once: %v", err)
	}
	out := stdout.String()
	for _, want := range []string{"StarRocksBackup nightly-sales-", "succeeded: snapshot k8s_nightly_sales_", "StarRocksRestore sales-into-copy succeeded (past FE's COMMIT: true)", "restored from k8s_nightly_sales_"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q", want)
		}
	}
	// kubectl starrocks status reads the backup the operator took: the
	// sales cluster's LAST BACKUP is an age, sales-copy (never backed up) "-".
	if got := lastBackup(out, "sales"); !strings.HasSuffix(got, " ago") && got != "just now" {
		t.Errorf("kubectl starrocks status: LAST BACKUP of sales %q, want its age", got)
	}
	if got := lastBackup(out, "sales-copy"); got != "-" {
		t.Errorf("kubectl starrocks status: LAST BACKUP of sales-copy %q, want -", got)
	}
	assertEmpty(t, tmp)
}

// Without --once the demo runs until Ctrl-C, refuses a second demo meanwhile,
// then stops everything it started.
func TestRunsUntilInterruptedAndRefusesASecondDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster and the operator")
	}
	bin := buildDemo(t)
	tmp := t.TempDir()
	env := append(os.Environ(), "TMPDIR="+tmp)
	first := exec.Command(bin, "--timeout", "90s", "--backup=false")
	first.Env = env
	pipe, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var firstOut testutil.SyncBuffer
	first.Stderr = &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		s := bufio.NewScanner(pipe)
		once := sync.Once{}
		for s.Scan() {
			_, _ = firstOut.Write([]byte(s.Text() + "\n"))
			if strings.Contains(s.Text(), "get src -A") {
				once.Do(func() { close(ready) })
			}
		}
		exited <- first.Wait()
	}()
	t.Cleanup(func() {
		_ = first.Process.Kill()
		t.Logf("first demo's output:\n%s", firstOut.String())
	})
	select {
	case <-ready:
	case err := <-exited:
		t.Fatalf("the demo exited before printing how to use it: %v", err)
	case <-time.After(90 * time.Second):
		t.Fatal("the demo did not print the kubectl commands within 90s")
	}
	out := firstOut.String()
	if !regexp.MustCompile(`kubectl --kubeconfig \S+\.kubeconfig get src -A`).MatchString(out) {
		t.Error("no kubectl command with the kubeconfig path")
	}

	second := exec.Command(bin, "--once")
	second.Env = env
	secondOut, err := second.CombinedOutput()
	if err == nil {
		t.Fatalf("a second demo ran while the first was running:\n%s", secondOut)
	}
	if want := "already running (PID " + strconv.Itoa(first.Process.Pid) + ","; !strings.Contains(string(secondOut), want) {
		t.Errorf("the second demo's message does not say %q:\n%s", want, secondOut)
	}

	if err := first.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the demo exited with %v after Ctrl-C, want 0", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the demo did not stop within 60s of Ctrl-C")
	}
	assertEmpty(t, tmp)
}

// buildDemo builds the demo and, on a fresh machine, the control-plane
// binaries, so that the 2-minute budget covers the demo alone.
func buildDemo(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if _, err := testcluster.EnsureBinaries(ctx, true, testLog{t}); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "srdemo")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// assertEmpty checks the demo removed every temporary file it and its control plane made.
func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// lastBackup is the LAST BACKUP cell of cluster's line in the output's
// `kubectl starrocks status -n backup-demo` table.
func lastBackup(out, cluster string) string {
	_, table, ok := strings.Cut(out, "kubectl starrocks status -n backup-demo\n")
	if !ok {
		return "(no table)"
	}
	// Columns align in runes (text/tabwriter), and VERSION may hold "→".
	lines := strings.Split(table, "\n")
	header := []rune(lines[0])
	at := strings.Index(lines[0], "LAST BACKUP") // ASCII up to there
	end := at + len("LAST BACKUP")
	for _, l := range lines[1:] {
		r := []rune(l)
		if f := strings.Fields(l); len(f) > 0 && f[0] == cluster && at >= 0 && len(r) > end && len(header) > end {
			cell, _, _ := strings.Cut(strings.TrimSpace(string(r[at:])), "  ")
			return cell
		}
	}
	return "(no line)"
}
