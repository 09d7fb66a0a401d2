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

package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/srscale/starrocks-operator/test/internal/testutil"
)

// operatorProcess is the real operator binary, run as a subprocess.
type operatorProcess struct {
	cmd         *exec.Cmd
	done        chan error
	metricsAddr string
	logPath     string

	mu        sync.Mutex
	throttled int // client-go "client-side throttling" log lines
	started   chan struct{}
	startOnce sync.Once
}

// startOperator runs the operator binary with s's knobs; a non-empty
// pprofAddr also serves its /debug/pprof there.
func startOperator(bin, kubeconfig, logPath string, s Setting, pprofAddr string, extra ...string) (*operatorProcess, error) {
	metricsAddr, err := testutil.FreeAddr()
	if err != nil {
		return nil, err
	}
	probeAddr, err := testutil.FreeAddr()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--metrics-bind-address=" + metricsAddr,
		"--metrics-secure=false",
		"--health-probe-bind-address=" + probeAddr,
	}, s.Args()...)
	if pprofAddr != "" {
		args = append(args, "--pprof-bind-address="+pprofAddr)
	}
	args = append(args, extra...)
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	cmd.Stdout = logFile
	p := &operatorProcess{cmd: cmd, done: make(chan error, 1), metricsAddr: metricsAddr, logPath: logPath, started: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting the operator: %w", err)
	}
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			switch {
			case strings.Contains(line, "client-side throttling"):
				p.mu.Lock()
				p.throttled++
				p.mu.Unlock()
			case strings.Contains(line, "Starting workers") && strings.Contains(line, "starrockscluster"):
				p.startOnce.Do(func() { close(p.started) })
			}
		}
		_, _ = io.Copy(logFile, stderr)
	}()
	go func() {
		<-scanned
		p.done <- cmd.Wait()
		logFile.Close()
	}()
	return p, nil
}

// waitStarted waits until the controller's caches synced and its workers run.
func (p *operatorProcess) waitStarted(ctx context.Context, timeout time.Duration) error {
	select {
	case <-p.started:
		return nil
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("operator exited before starting its workers: %w; log in %s", err, p.logPath)
	case <-time.After(timeout):
		return fmt.Errorf("operator did not start its workers within %s; log in %s", timeout, p.logPath)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *operatorProcess) exited() error {
	select {
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("operator exited: %w; log in %s", err, p.logPath)
	default:
		return nil
	}
}

func (p *operatorProcess) throttleLogLines() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.throttled
}

// stop sends SIGTERM and waits; SIGKILL after 20 s.
func (p *operatorProcess) stop() {
	select {
	case err := <-p.done:
		p.done <- err
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// procStats are the operator's CPU time and peak resident memory, from /proc.
type procStats struct {
	CPUSeconds float64
	PeakRSSMiB float64
}

func (p *operatorProcess) procStats() (procStats, error) {
	pid := p.cmd.Process.Pid
	cpu, err := cpuSeconds(pid)
	if err != nil {
		return procStats{}, err
	}
	st := procStats{CPUSeconds: cpu}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return st, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			st.PeakRSSMiB = kb / 1024
		}
	}
	return st, nil
}

// cpuSeconds is a process's user and system CPU time, from /proc.
func cpuSeconds(pid int) (float64, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %s", pid, stat)
	}
	utime, _ := strconv.ParseFloat(fields[11], 64) // field 14 of stat
	stime, _ := strconv.ParseFloat(fields[12], 64) // field 15
	const clockTicks = 100                         // USER_HZ on Linux
	return (utime + stime) / clockTicks, nil
}

// controlPlaneCPU returns the CPU seconds so far of this process's children
// named kube-apiserver and etcd (envtest starts them), by name, of this
// process ("srbench") and of its children that run this program too
// ("hog", see startHog).
func controlPlaneCPU() map[string]float64 {
	out := map[string]float64{}
	if cpu, err := cpuSeconds(os.Getpid()); err == nil {
		out["srbench"] = cpu
	}
	selfName := ""
	if stat, err := os.ReadFile("/proc/self/stat"); err == nil {
		if open, closing := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')'); open >= 0 && closing > open {
			selfName = string(stat[open+1 : closing])
		}
	}
	dirs, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		open, closing := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || closing < open {
			continue
		}
		name := string(stat[open+1 : closing])
		fields := strings.Fields(string(stat[closing+1:]))
		if len(fields) < 2 || fields[1] != self {
			continue
		}
		if name == selfName {
			name = "hog"
		} else if name != "kube-apiserver" && name != "etcd" {
			continue
		}
		if cpu, err := cpuSeconds(pid); err == nil {
			out[name] += cpu
		}
	}
	return out
}

// heapProfile saves the operator's heap profile (after a GC) into path.
func heapProfile(ctx context.Context, base, path string) error {
	return saveProfile(ctx, http.DefaultClient, base+"/debug/pprof/heap?gc=1", "heap profile", path)
}

// scrape reads the operator's /metrics and returns the sum of each named
// metric over its labels.
func (p *operatorProcess) scrape(ctx context.Context) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.metricsAddr+"/metrics", http.NoBody)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scraping the operator's metrics: %w", err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parsing the operator's metrics: %w", err)
	}
	out := map[string]float64{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			switch {
			case m.Counter != nil:
				out[name] += m.Counter.GetValue()
			case m.Gauge != nil:
				out[name] += m.Gauge.GetValue()
			case m.Histogram != nil:
				// <name>_count, <name>_sum, and <name>_over_5ms: observations above the 5 ms bucket.
				h := m.Histogram
				out[name+"_count"] += float64(h.GetSampleCount())
				out[name+"_sum"] += h.GetSampleSum()
				for _, b := range h.GetBucket() {
					if b.GetUpperBound() == 0.005 {
						out[name+"_over_5ms"] += float64(h.GetSampleCount() - b.GetCumulativeCount())
					}
				}
			}
		}
	}
	return out, nil
}

// cpuProfile records the CPU profile that base serves under /debug/pprof
// for d into path.
func cpuProfile(ctx context.Context, hc *http.Client, base string, d time.Duration, path string) error {
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, max(1, int(d.Seconds())))
	return saveProfile(ctx, hc, url, "CPU profile", path)
}

// saveProfile writes the pprof profile at url into path; what names it in errors.
func saveProfile(ctx context.Context, hc *http.Client, url, what, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s of %s: %s", what, url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
