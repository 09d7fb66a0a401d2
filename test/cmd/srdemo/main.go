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

// Command srdemo is the one-command demo: it starts a simulated Kubernetes
// cluster on this machine (no cluster or container runtime needed), runs the
// operator against it, creates sample StarRocks clusters and shows them being
// reconciled until every one is running.
//
//	cd test && go run ./cmd/srdemo [--clusters N] [--once] [--timeout 5m] [operator knobs]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/options"
	"github.com/srscale/starrocks-operator/internal/plugin/cli"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// Exit codes: 0 when every cluster ran (and, without --once, after Ctrl-C),
// 1 when the demo failed, 2 for bad flags, 130 when interrupted before the clusters ran.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// knobs are the operator flags the demo accepts and forwards unchanged.
var knobs = []string{"max-concurrent-reconciles", "sync-period", "kube-api-qps", "kube-api-burst"}

const (
	namespace = "starrocks-demo"
	fakeNodes = 3
	// operatorUser is the operator's identity, bound to the generated ClusterRole
	// rather than system:masters, so the demo also proves the RBAC is enough.
	operatorUser = "starrocks-operator"
	adminUser    = "demo-admin"
)

func main() {
	// A closed stdout (make demo | head) must not kill the demo before it stops its children.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		// A second Ctrl-C while stopping kills the demo at once, the Go default.
		stop()
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// errReported stands for a flag error the flag package has printed already, with the usage.
var errReported = errors.New("bad flags")

type config struct {
	clusters int
	once     bool
	// backup runs the backup scene (backup.go) after the clusters ran.
	backup  bool
	timeout time.Duration
	knobs   options.Options
	// operatorArgs are the knob flags given on the command line, as the operator takes them.
	operatorArgs []string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	cfg := config{knobs: options.Default()}
	fs := flag.NewFlagSet("srdemo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.clusters, "clusters", 1, "Number of sample StarRocksClusters to create (demo-1..N in namespace "+namespace+").")
	fs.BoolVar(&cfg.once, "once", false, "Exit after the summary: 0 if every cluster reached running, 1 otherwise.")
	fs.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "How long the clusters may take to reach running before the demo gives up.")
	fs.BoolVar(&cfg.backup, "backup", true, "Then show backup: a schedule's backup of a cluster and its restore into a second cluster, on simulated FEs (namespace "+backupNamespace+").")
	// The operator's own flag definitions, so that defaults, help and parsing are the operator's.
	operatorFlags := flag.NewFlagSet("starrocks-operator", flag.ContinueOnError)
	cfg.knobs.BindFlags(operatorFlags)
	for _, name := range knobs {
		f := operatorFlags.Lookup(name)
		fs.Var(f.Value, name, "Operator knob, passed through: "+f.Usage)
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: make demo ARGS=\"[flags]\"   or   (cd test && go run ./cmd/srdemo [flags])\n\n"+
			"Starts a simulated Kubernetes cluster (etcd, kube-apiserver, kube-controller-manager,\n"+
			"kube-scheduler, kwok) on loopback ports, runs the operator against it, creates sample\n"+
			"StarRocks clusters and shows them being reconciled. Ctrl-C stops everything.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, errReported
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var errs []error
	if cfg.clusters < 1 {
		errs = append(errs, fmt.Errorf("--clusters must be at least 1, got %d", cfg.clusters))
	}
	if cfg.timeout <= 0 {
		errs = append(errs, fmt.Errorf("--timeout must be a positive duration such as 5m, got %s", cfg.timeout))
	}
	// The operator validates its flags too, but only after the control plane is up;
	// its own rules, run here, fail in a second instead.
	warnings, err := cfg.knobs.Validate()
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return cfg, fmt.Errorf("invalid flags:\n%w", err)
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "srdemo: warning:", w)
	}
	fs.Visit(func(f *flag.Flag) {
		for _, k := range knobs {
			if f.Name == k {
				cfg.operatorArgs = append(cfg.operatorArgs, "--"+k+"="+f.Value.String())
			}
		}
	})
	return cfg, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		if !errors.Is(err, errReported) {
			fmt.Fprintln(stderr, "srdemo:", err)
		}
		return exitUsage
	}
	// The demo's own clients log nothing worth a newcomer's attention.
	ctrl.SetLogger(logr.Discard())

	release, err := acquireLock(lockPath())
	if err != nil {
		fmt.Fprintln(stderr, "srdemo:", err)
		return exitFailed
	}
	defer release()

	d := &demo{cfg: cfg, out: stdout, started: time.Now()}
	code := d.run(ctx)
	if err := d.cleanup(); err != nil {
		fmt.Fprintln(stderr, "srdemo: cleaning up:", err)
		if code == exitOK {
			code = exitFailed
		}
		return code
	}
	d.step("stopped the operator and the control plane, removed the temporary files")
	return code
}

// demo holds what one run started, so that cleanup stops exactly that.
type demo struct {
	cfg     config
	out     io.Writer
	started time.Time

	workDir  string
	cluster  *testcluster.Cluster
	operator *operator
	backup   *backupScene
}

// run is the demo's table of contents; it returns the exit code.
func (d *demo) run(ctx context.Context) int {
	fail := func(err error) int {
		if ctx.Err() != nil {
			fmt.Fprintln(d.out)
			d.step("interrupted; stopping")
			return exitInterrupted
		}
		fmt.Fprintln(d.out, "\nsrdemo: FAILED:", err)
		if d.operator != nil {
			d.operator.printLog(d.out)
		}
		return exitFailed
	}
	d.step("StarRocks operator demo: %d cluster(s) on a simulated Kubernetes cluster; Ctrl-C stops it", d.cfg.clusters)
	root, err := testcluster.RepoRoot()
	if err != nil {
		return fail(err)
	}
	if d.workDir, err = os.MkdirTemp("", "srdemo-"); err != nil {
		return fail(err)
	}
	bin, err := d.startControlPlaneAndBuildOperator(ctx, root)
	if err != nil {
		return fail(err)
	}
	if err := d.prepareCluster(ctx, root); err != nil {
		return fail(err)
	}
	if err := d.startOperator(ctx, bin); err != nil {
		return fail(err)
	}
	d.step("applying %d StarRocksCluster(s) (FE + BE + CN + FE proxy) in namespace %s", d.cfg.clusters, namespace)
	clusters, err := applyClusters(ctx, d.cluster.Client, namespace, d.cfg.clusters)
	if err != nil {
		return fail(err)
	}
	states, waitErr := waitRunning(ctx, d.cluster.Client, clusters, d.cfg.timeout, d.operator.exited, newDisplay(d.out))
	if ctx.Err() != nil {
		return fail(ctx.Err())
	}
	d.step("summary after %s", time.Since(d.started).Round(100*time.Millisecond))
	printSummary(ctx, d.out, states, d.operator.metricsURL)
	d.printPluginStatus(namespace)
	if waitErr != nil {
		return fail(waitErr)
	}
	if d.cfg.backup {
		if err := d.runBackupScene(ctx, root); err != nil {
			return fail(err)
		}
	}
	if d.cfg.once {
		return exitOK
	}
	d.printHowToUse()
	if err := followChanges(ctx, d.cluster.Client, states, d.operator.exited, d.out); err != nil && ctx.Err() == nil {
		return fail(err)
	}
	fmt.Fprintln(d.out)
	d.step("stopping")
	return exitOK
}

// startControlPlaneAndBuildOperator does both at once: the operator's go build
// takes about as long as the control plane's start.
func (d *demo) startControlPlaneAndBuildOperator(ctx context.Context, root string) (string, error) {
	type built struct {
		bin string
		err error
	}
	buildDone := make(chan built, 1)
	go func() {
		bin, err := testcluster.BuildOperator(ctx, root, d.workDir)
		buildDone <- built{bin, err}
	}()
	d.step("control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok (built from Go modules on first use, then cached)")
	cluster, err := testcluster.Start(ctx, testcluster.Options{
		CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")},
		Simulated:         true,
		Nodes:             fakeNodes,
		Progress:          d.out,
	})
	b := <-buildDone
	if err != nil {
		return "", err
	}
	d.cluster = cluster
	if b.err != nil {
		return "", b.err
	}
	return b.bin, nil
}

func (d *demo) prepareCluster(ctx context.Context, root string) error {
	if err := grantOperator(ctx, d.cluster.Client, filepath.Join(root, "config", "rbac", "role.yaml"), operatorUser); err != nil {
		return err
	}
	if err := createNamespace(ctx, d.cluster.Client, namespace); err != nil {
		return err
	}
	// The client discovers the CRD's REST mapping on first use, seconds on a busy
	// machine; doing it now keeps that out of the clusters' time to ready.
	if err := d.cluster.Client.List(ctx, &srv1.StarRocksClusterList{}, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("listing StarRocksClusters: %w", err)
	}
	return nil
}

func (d *demo) startOperator(ctx context.Context, bin string) error {
	kubeconfig, err := d.cluster.WriteKubeconfig(operatorUser)
	if err != nil {
		return fmt.Errorf("writing the operator's kubeconfig: %w", err)
	}
	qps, burst := d.cfg.knobs.EffectiveRateLimit()
	d.step("operator: %d worker(s), sync period %s, client QPS %s, burst %d (as user %q with the generated ClusterRole)",
		d.cfg.knobs.MaxConcurrentReconciles, d.cfg.knobs.SyncPeriod, formatQPS(qps), burst, operatorUser)
	args := d.cfg.operatorArgs
	if d.cfg.backup {
		// The backup scene's namespace is its own operator's.
		args = append(slices.Clone(args), "--deny-list="+backupNamespace)
	}
	if d.operator, err = startOperator(bin, kubeconfig, filepath.Join(d.workDir, "operator.log"), args); err != nil {
		return err
	}
	return d.operator.waitReady(ctx, time.Minute)
}

func formatQPS(qps float32) string {
	if qps == options.QPSUnlimited {
		return "unlimited"
	}
	return fmt.Sprint(qps)
}

// printPluginStatus shows the clusters of ns as `kubectl starrocks
// status` shows them (the plugin, cmd/kubectl-starrocks, run in-process
// on an administrator's kubeconfig).
func (d *demo) printPluginStatus(ns string) {
	kubeconfig, err := d.cluster.WriteKubeconfig(adminUser, "system:masters")
	if err != nil {
		fmt.Fprintln(d.out, "srdemo: writing an admin kubeconfig:", err)
		return
	}
	d.step("kubectl starrocks status -n %s", ns)
	var out bytes.Buffer
	cmd := cli.NewCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})
	cmd.SetArgs([]string{"--kubeconfig", kubeconfig, "--color", "never", "status", "-n", ns})
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(&out, "error:", err)
	}
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		fmt.Fprintln(d.out, "    "+line)
	}
}

func (d *demo) printHowToUse() {
	kubeconfig, err := d.cluster.WriteKubeconfig(adminUser, "system:masters")
	if err != nil {
		fmt.Fprintln(d.out, "srdemo: writing an admin kubeconfig:", err)
		return
	}
	d.step("the demo keeps running until Ctrl-C; use it from another terminal (the kubeconfig works while it runs):")
	fmt.Fprintf(d.out, `
  kubectl --kubeconfig %[1]s get src -A
  # the plugin (make build puts it in bin/; kubectl finds kubectl-starrocks on the PATH):
  PATH=$PWD/bin:$PATH kubectl starrocks --kubeconfig %[1]s status -A
  bin/kubectl-starrocks --kubeconfig %[1]s describe -n %[2]s demo-1

  export KUBECONFIG=%[1]s
  kubectl -n %[2]s get pods -w
  # scale the BE of demo-1 from 3 to 5 pods (this terminal shows the status change):
  kubectl -n %[2]s patch src demo-1 --type merge -p '{"spec":{"starRocksBeSpec":{"replicas":5}}}'
  # change the images and watch the StatefulSets roll (on an upgrade BE and CN go first, then FE):
  kubectl -n %[2]s patch src demo-1 --type merge -p '{"spec":{"starRocksFeSpec":{"image":"starrocks/fe-ubuntu:3.4-latest"},"starRocksBeSpec":{"image":"starrocks/be-ubuntu:3.4-latest"},"starRocksCnSpec":{"image":"starrocks/cn-ubuntu:3.4-latest"}}}'
  kubectl -n %[2]s edit src demo-1
  # backup (with --backup): the schedule, its backups and the restore
  kubectl -n backup-demo get srbs,srb,srr

  operator log:     %[3]s
  operator metrics: %[4]s
`, kubeconfig, namespace, d.operator.logPath, d.operator.metricsURL)
	if _, err := exec.LookPath("kubectl"); err != nil {
		fmt.Fprintln(d.out, "\n  kubectl is not installed here: get it from https://kubernetes.io/docs/tasks/tools/ (any\n  Kubernetes client works with the kubeconfig above).")
	}
	fmt.Fprintln(d.out, "\nChanges to StarRocksClusters are shown below as they happen.")
}

// cleanup stops what run started, the operator first so that it does not log
// errors about a vanishing API server, and removes the demo's files.
func (d *demo) cleanup() error {
	var errs []error
	if d.backup != nil {
		d.backup.stop()
	}
	if d.operator != nil {
		errs = append(errs, d.operator.stop())
	}
	if d.cluster != nil {
		errs = append(errs, d.cluster.Stop())
	}
	if d.workDir != "" {
		errs = append(errs, os.RemoveAll(d.workDir))
	}
	return errors.Join(errs...)
}

// step prints one stage of the demo with the time since it began.
func (d *demo) step(format string, args ...any) {
	fmt.Fprintf(d.out, "==> [%6s] %s\n", formatSeconds(time.Since(d.started)), fmt.Sprintf(format, args...))
}

func formatSeconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }
