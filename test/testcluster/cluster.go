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

// Package testcluster starts a real Kubernetes control plane built from Go
// modules: etcd and kube-apiserver (API only), optionally with
// kube-controller-manager, kube-scheduler and kwok (simulated cluster). Tests,
// the benchmark and the demo all start their control plane here.
package testcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	srscheme "github.com/srscale/starrocks-operator/internal/scheme"
)

// Options say what to start. The zero value starts etcd and kube-apiserver with no CRDs.
type Options struct {
	// CRDDirectoryPaths are installed before Start returns.
	CRDDirectoryPaths []string
	// AuditPolicyFile and AuditLogPath turn the API server's audit log on.
	AuditPolicyFile string
	AuditLogPath    string
	// APIServerArgs are extra kube-apiserver flags (name without dashes -> values).
	APIServerArgs map[string][]string
	// Progress receives build progress and start-up messages (nil: discarded).
	Progress io.Writer
	// Output receives the control plane's own logs (nil: discarded; the
	// simulated cluster's components also log to files in Dir).
	Output io.Writer
	// Simulated adds kube-controller-manager, kube-scheduler and kwok with fake
	// nodes, so that StatefulSets get Pods that become Ready.
	Simulated bool
	// Nodes is the number of fake nodes of a simulated cluster (default 1).
	Nodes int
}

// Cluster is a running control plane.
type Cluster struct {
	// Config is an administrator's (system:masters) client configuration.
	Config *rest.Config
	// Client uses Config with Scheme.
	Client client.Client
	// Scheme knows the built-in types and starrocks.com/v1.
	Scheme *runtime.Scheme
	// Dir is a scratch directory removed by Stop.
	Dir string

	env             *envtest.Environment
	procs           []*process
	stopProvisioner context.CancelFunc
}

// Start builds the binaries if needed and starts the control plane.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	assets, err := EnsureBinaries(ctx, opts.Simulated, opts.Progress)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "srscale-testcluster-")
	if err != nil {
		return nil, err
	}
	scheme := srscheme.New()
	env := &envtest.Environment{
		Scheme:            scheme,
		CRDDirectoryPaths: opts.CRDDirectoryPaths,
		// envtest waits 10 s for installed CRDs to be served; a loaded 2-core
		// machine (CI runs test packages in parallel) can take longer.
		CRDInstallOptions:        envtest.CRDInstallOptions{MaxTime: 2 * time.Minute},
		ErrorIfCRDPathMissing:    true,
		BinaryAssetsDirectory:    assets.Dir,
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  60 * time.Second,
	}
	env.ControlPlane.GetAPIServer().Path = assets.Path("kube-apiserver")
	// A certificate directory of our own survives a stop of the API server,
	// so that RestartAPIServer brings it back with the same certificates and port.
	certDir := filepath.Join(dir, "apiserver")
	if err := os.Mkdir(certDir, 0o700); err != nil {
		return nil, err
	}
	env.ControlPlane.GetAPIServer().CertDir = certDir
	env.ControlPlane.Etcd = newEtcd(assets, dir)
	if opts.Output != nil {
		env.ControlPlane.GetAPIServer().Out, env.ControlPlane.GetAPIServer().Err = opts.Output, opts.Output
		env.ControlPlane.Etcd.Out, env.ControlPlane.Etcd.Err = opts.Output, opts.Output
	}
	args := env.ControlPlane.GetAPIServer().Configure()
	// envtest's default /24 holds 256 Services; a benchmark of 1000 clusters needs far more.
	args.Set("service-cluster-ip-range", "10.96.0.0/16")
	if opts.AuditLogPath != "" {
		args.Set("audit-policy-file", opts.AuditPolicyFile)
		args.Set("audit-log-path", opts.AuditLogPath)
		args.Set("audit-log-format", "json")
		args.Set("audit-log-mode", "blocking")
	}
	for k, v := range opts.APIServerArgs {
		args.Set(k, v...)
	}
	started := time.Now()
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop() // a failed CRD install leaves etcd and kube-apiserver running
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting etcd and kube-apiserver from %s: %w", assets.Dir, err)
	}
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "testcluster: API server ready at %s in %s\n", cfg.Host, time.Since(started).Round(time.Millisecond))
	}
	// Test clients talk a lot; client-go's default 5 QPS would make them the bottleneck.
	cfg.QPS, cfg.Burst = 1000, 2000
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = env.Stop()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	cluster := &Cluster{Config: cfg, Client: c, Scheme: scheme, Dir: dir, env: env}
	if opts.Simulated {
		started := time.Now()
		if err := cluster.startSimulated(ctx, assets, opts); err != nil {
			_ = cluster.Stop()
			return nil, fmt.Errorf("starting the simulated cluster: %w", err)
		}
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "testcluster: simulated cluster with %d fake node(s) ready in %s\n", max(opts.Nodes, 1), time.Since(started).Round(time.Millisecond))
		}
	}
	return cluster, nil
}

func newEtcd(assets Assets, dir string) *envtest.Etcd {
	e := &envtest.Etcd{Path: assets.Path("etcd"), DataDir: filepath.Join(dir, "etcd")}
	// etcd's fsync dominates write latency on small machines; a test cluster's data is disposable.
	e.Configure().Set("unsafe-no-fsync", "true")
	return e
}

// ForTest starts a control plane for one test (or TestMain with testing.TB of
// your own) and stops it when the test ends.
func ForTest(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if opts.Progress == nil {
		opts.Progress = testWriter{t}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("test control plane: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			c.keepLogs(t)
		}
		if err := c.Stop(); err != nil {
			t.Errorf("stopping test control plane: %v", err)
		}
	})
	return c
}

// keepLogs copies the logs of the simulated cluster's processes
// (kube-controller-manager, kube-scheduler, kwok) out of the directory Stop
// removes, for a test that failed: what the node lifecycle, the StatefulSet
// controller or kwok did is often the question.
func (c *Cluster) keepLogs(t testing.TB) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(c.Dir, "*.log"))
	if len(logs) == 0 {
		return
	}
	dir, err := os.MkdirTemp("", "srscale-testcluster-logs-")
	if err != nil {
		t.Logf("keeping the control plane's logs: %v", err)
		return
	}
	for _, l := range logs {
		if b, err := os.ReadFile(l); err == nil {
			_ = os.WriteFile(filepath.Join(dir, filepath.Base(l)), b, 0o600)
		}
	}
	t.Logf("the simulated cluster's logs are kept in %s", dir)
}

// Stop stops the control plane and removes its files.
func (c *Cluster) Stop() error {
	err := errors.Join(c.stopSimulated(), c.env.Stop())
	if rmErr := os.RemoveAll(c.Dir); err == nil {
		err = rmErr
	}
	return err
}

// RestartAPIServer stops kube-apiserver and starts it again on the same etcd,
// port and certificates, as a rolling control-plane upgrade or a crash does.
// The old process gets SIGTERM, and SIGKILL if it has not exited after grace;
// killed says whether it had to be killed. Clients keep their configuration;
// their connections break. It returns once the new process answers /healthz.
func (c *Cluster) RestartAPIServer(grace time.Duration) (killed bool, err error) {
	s := c.env.ControlPlane.GetAPIServer()
	// envtest's own Stop waits ControlPlaneStopTimeout (a minute) before it
	// kills: find the process by its certificate directory, which is ours alone.
	pid, err := pidWithArg("--cert-dir=" + s.CertDir)
	if err != nil {
		return false, err
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return false, err
	}
	deadline := time.Now().Add(grace)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		killed = true
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if err := s.Stop(); err != nil { // reaps the process, keeps the certificate directory
		return killed, fmt.Errorf("stopping kube-apiserver: %w", err)
	}
	if err := s.Start(); err != nil {
		return killed, fmt.Errorf("starting kube-apiserver again: %w", err)
	}
	return killed, nil
}

// pidWithArg finds the one process whose command line holds arg.
func pidWithArg(arg string) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if slices.Contains(strings.Split(string(cmdline), "\x00"), arg) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no process with %s", arg)
}

// AddUser returns a client configuration for a user authenticated by client
// certificate, for example the operator's own identity (so that audit logs can
// tell its requests apart) or a ServiceAccount name to test RBAC.
func (c *Cluster) AddUser(name string, groups ...string) (*rest.Config, []byte, error) {
	u, err := c.env.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return nil, nil, err
	}
	kubeconfig, err := u.KubeConfig()
	if err != nil {
		return nil, nil, err
	}
	return u.Config(), kubeconfig, nil
}

// WriteKubeconfig writes an administrator kubeconfig into the cluster's directory and returns its path.
func (c *Cluster) WriteKubeconfig(name string, groups ...string) (string, error) {
	_, kubeconfig, err := c.AddUser(name, groups...)
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.Dir, name+".kubeconfig")
	return path, os.WriteFile(path, kubeconfig, 0o600)
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
