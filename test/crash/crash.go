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

// Package crash runs the operator as a process of its own and SIGKILLs it
// at a chosen point: right after the simulated FE answered a statement, or
// when a write of a given object reaches the API server (before it is
// sent on, or once the API server accepted it). A new process is then
// started, as Kubernetes restarts a crashed pod.
//
// The process is test/cmd/simoperator: the shipped main with the simulated
// StarRocks' addresses in place of DNS (docs/testing.md). Its API traffic
// goes through a reverse proxy in the test process, which is where the
// write points are seen; the statement points are seen by the simulated FE
// (simstarrocks.Options.AfterStatement = Operator.Statement).
//
// It is a package of its own rather than part of testcluster: testcluster
// starts the control plane for tests, benchmark and demo; this drives one
// operator process against it, and only tests need it.
package crash

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/test/crash/feaddress"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// Build builds test/cmd/simoperator of the checkout at root and returns
// the binary's path. The binary is kept in the user's cache directory, one
// per checkout, where go build finds it up to date and skips the link when
// nothing changed (the link alone takes about 30 s on a busy 2-core machine).
func Build(ctx context.Context, root string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	bin := filepath.Join(cache, "srscale-simoperator", hex.EncodeToString(sum[:8]), "simoperator")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/simoperator")
	cmd.Dir = filepath.Join(root, "test")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the crash tests' operator (go build ./cmd/simoperator in test/): %w\n%s", err, out)
	}
	return bin, nil
}

// Options configure an Operator.
type Options struct {
	// Binary is the operator to run, from Build.
	Binary string
	// Cluster is the control plane it runs against.
	Cluster *testcluster.Cluster
	// Args are its flags beside --kubeconfig (and the metrics and probe
	// addresses, which are set to 0 unless given here).
	Args []string
	// Env are further environment variables of its processes ("K=V").
	Env []string
}

// Killed says which process a kill point killed, and why.
type Killed struct {
	Pid int
	// What matched: the statement, or the request ("PATCH /apis/...").
	What string
	// At is when SIGKILL was sent.
	At time.Time
	// BySIGKILL is true when the process's exit status says SIGKILL ended it.
	BySIGKILL bool
}

// Operator is the operator of one test across its processes: at most one
// runs at a time.
type Operator struct {
	t          testing.TB
	opts       Options
	kubeconfig string
	proxy      *proxy

	// killing serialises kills: one SIGKILL per process, one Killed.
	killing sync.Mutex

	mu         sync.Mutex
	fe         feaddress.Addresses
	proc       *process
	statements []*statementPoint
}

// New prepares an operator whose API traffic goes through a proxy in the
// test process. Nothing runs until Start.
func New(t testing.TB, opts Options) *Operator {
	t.Helper()
	o := &Operator{t: t, opts: opts, fe: feaddress.Addresses{}}
	o.proxy = startProxy(t, opts.Cluster, o)
	o.kubeconfig = o.proxy.kubeconfig(t)
	return o
}

// SetFE makes the next processes find the FE Service service of namespace
// at query (host:port) and httpURL; processes already running keep what
// they were started with.
func (o *Operator) SetFE(namespace, service, query, httpURL string) {
	o.SetFEHosts(namespace, service, query, httpURL, nil)
}

// SetFEHosts is SetFE with the query ports of the FEs on their own
// addresses, by host as FE lists them (the reads the operator asks of FE's
// leader itself).
func (o *Operator) SetFEHosts(namespace, service, query, httpURL string, hosts map[string]string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.fe[feaddress.Key(namespace, service)] = feaddress.Address{Query: query, HTTP: httpURL, Hosts: hosts}
}

// process is one operator process.
type process struct {
	cmd    *exec.Cmd
	logs   string
	exited chan struct{}
	err    error // Wait's, once exited is closed
}

// Start starts a new operator process; the previous one must have ended.
func (o *Operator) Start() {
	o.t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.proc != nil {
		select {
		case <-o.proc.exited:
		default:
			o.t.Fatalf("crash: operator process %d still runs", o.proc.cmd.Process.Pid)
		}
	}
	args := []string{"--kubeconfig=" + o.kubeconfig}
	for _, f := range []string{"--metrics-bind-address", "--health-probe-bind-address"} {
		if !hasFlag(o.opts.Args, f) {
			args = append(args, f+"=0")
		}
	}
	args = append(args, o.opts.Args...)
	logs := filepath.Join(o.t.TempDir(), "operator.log")
	out, err := os.Create(logs)
	if err != nil {
		o.t.Fatal(err)
	}
	cmd := exec.Command(o.opts.Binary, args...)
	cmd.Env = append(append(os.Environ(), o.opts.Env...), feaddress.Var+"="+o.fe.Encode())
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		o.t.Fatalf("crash: starting %s: %v", o.opts.Binary, err)
	}
	p := &process{cmd: cmd, logs: logs, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		out.Close()
		close(p.exited)
	}()
	o.proc = p
	o.t.Cleanup(func() {
		o.stop(p)
		if o.t.Failed() {
			b, _ := os.ReadFile(logs)
			if len(b) > 8000 {
				b = b[len(b)-8000:]
			}
			o.t.Logf("operator process %d, its output's last 8000 bytes:\n%s", cmd.Process.Pid, b)
		}
	})
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// stop kills p, if it still runs, and waits for it.
func (o *Operator) stop(p *process) {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// Kill SIGKILLs the running process, waits until it is gone, and says so;
// with no process running it returns false.
func (o *Operator) Kill(what string) (Killed, bool) {
	o.killing.Lock()
	defer o.killing.Unlock()
	o.mu.Lock()
	p := o.proc
	o.mu.Unlock()
	if p == nil {
		return Killed{}, false
	}
	select {
	case <-p.exited:
		return Killed{}, false
	default:
	}
	k := Killed{Pid: p.cmd.Process.Pid, What: what, At: time.Now()}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		o.t.Errorf("crash: process %d still runs 10 s after SIGKILL", k.Pid)
		return k, true
	}
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok {
			k.BySIGKILL = ws.Signaled() && ws.Signal() == syscall.SIGKILL
		}
	}
	return k, true
}

// statementPoint kills the process once, after a statement that starts
// with prefix.
type statementPoint struct {
	prefix string
	fired  bool
	killed chan Killed
}

// KillAfterStatement arms a kill point: the first statement the simulated
// FE answers that starts with prefix (case-insensitive, leading spaces
// ignored) while a process runs SIGKILLs it, before the statement's answer
// is complete on the wire (see simstarrocks.Options.AfterStatement). FE does
// not know which client sent a statement: pick a prefix only the operator
// sends. The returned channel receives the kill.
func (o *Operator) KillAfterStatement(prefix string) <-chan Killed {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := &statementPoint{prefix: prefix, killed: make(chan Killed, 1)}
	o.statements = append(o.statements, p)
	return p.killed
}

// Statement is the simulated FE's observer (simstarrocks.Options.AfterStatement):
// it fires the kill points stmt matches.
func (o *Operator) Statement(stmt string) {
	s := strings.TrimSpace(stmt)
	o.mu.Lock()
	var due []*statementPoint
	for _, p := range o.statements {
		if !p.fired && len(s) >= len(p.prefix) && strings.EqualFold(s[:len(p.prefix)], p.prefix) {
			p.fired = true // claimed: a statement answered meanwhile does not fire it again
			due = append(due, p)
		}
	}
	o.mu.Unlock()
	if len(due) == 0 {
		return
	}
	k, ok := o.Kill(stmt)
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range due {
		if !ok {
			p.fired = false // no process to kill: stays armed
			continue
		}
		p.killed <- k
	}
}
