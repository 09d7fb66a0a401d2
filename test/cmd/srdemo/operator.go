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
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/srscale/starrocks-operator/test/internal/testutil"
)

// operator is the operator binary running as a child process, as users run it.
type operator struct {
	cmd        *exec.Cmd
	logPath    string
	metricsURL string
	readyzURL  string
	// exited is closed when the process ends; err is its exit status then.
	exited chan struct{}
	err    error
}

func startOperator(bin, kubeconfig, logPath string, knobArgs []string) (*operator, error) {
	metricsAddr, err := testutil.FreeAddr()
	if err != nil {
		return nil, err
	}
	probeAddr, err := testutil.FreeAddr()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--metrics-bind-address=" + metricsAddr,
		"--metrics-secure=false", // the demo prints the URL for curl
		"--health-probe-bind-address=" + probeAddr,
	}, knobArgs...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group: Ctrl-C reaches the demo only, which stops the operator in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting the operator: %w", err)
	}
	o := &operator{
		cmd:        cmd,
		logPath:    logPath,
		metricsURL: "http://" + metricsAddr + "/metrics",
		readyzURL:  "http://" + probeAddr + "/readyz",
		exited:     make(chan struct{}),
	}
	go func() {
		o.err = cmd.Wait()
		logFile.Close()
		close(o.exited)
	}()
	return o, nil
}

// waitReady waits for /readyz, and fails at once if the operator exits, for
// example because it rejected a flag.
func (o *operator) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := testutil.WaitHTTP(ctx, o.readyzURL, testutil.HTTPWait{Interval: 100 * time.Millisecond, Abort: func() error {
		select {
		case <-o.exited:
			return o.exitError()
		default:
			return nil
		}
	}})
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return fmt.Errorf("the operator did not answer %s within %s", o.readyzURL, timeout)
	}
	return err
}

// exitError describes the operator's exit for a user; call it after exited is closed.
func (o *operator) exitError() error {
	return fmt.Errorf("the operator exited (%w); its log is below", o.err)
}

// stop sends SIGTERM, as Kubernetes would, and SIGKILL if it does not stop in 20 s.
func (o *operator) stop() error {
	select {
	case <-o.exited:
		return nil // already reported where it happened
	default:
	}
	_ = syscall.Kill(-o.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-o.exited:
		if o.err != nil {
			return fmt.Errorf("the operator exited with %w after SIGTERM", o.err)
		}
		return nil
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-o.cmd.Process.Pid, syscall.SIGKILL)
		<-o.exited
		return errors.New("the operator did not stop within 20s of SIGTERM; killed it")
	}
}

// printLog shows why the operator failed: the end of its log if it exited,
// otherwise its last errors. The log goes away with the demo's files.
func (o *operator) printLog(w io.Writer) {
	data, err := os.ReadFile(o.logPath)
	if err != nil {
		return
	}
	text, _, _ := strings.Cut(string(data), "Usage of ") // a flag error is followed by every flag's help
	lines := strings.Split(strings.TrimSpace(text), "\n")
	what := "last lines"
	select {
	case <-o.exited:
	default:
		what = "last errors"
		lines = slices.DeleteFunc(lines, func(l string) bool { return !strings.Contains(l, `"level":"error"`) })
	}
	if len(lines) == 0 || lines[0] == "" {
		return
	}
	lines = lines[max(0, len(lines)-15):]
	fmt.Fprintf(w, "--- %s of the operator's log ---\n%s\n---\n", what, strings.Join(lines, "\n"))
}
