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
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Variation is how a run differs from the article's setup (a burst created
// as fast as the benchmark can, latency on the connection, an idle API
// server), as the API servers of the operator's users differ from it.
type Variation struct {
	// Pace, if positive, creates the clusters at this many per second
	// instead of all at once.
	Pace float64 `json:"pace,omitempty"`
	// LatencyMode is where the added latency sits: LatencyConnection
	// (default) or LatencyRequest.
	LatencyMode string `json:"latencyMode,omitempty"`
	// Busy is a steady load beside the API server from before the first
	// create to the end of the steady window: BusyChurn or BusyHog.
	Busy string `json:"busy,omitempty"`
	// ChurnRate is BusyChurn's writes per second (0: DefaultChurnRate).
	ChurnRate float64 `json:"churnRate,omitempty"`
}

const (
	// LatencyConnection delays every byte of each TCP connection between
	// the operator and the API server (toxiproxy), as a network path does.
	LatencyConnection = "connection"
	// LatencyRequest delays each HTTP request and its answer, as an L7
	// load balancer in front of the API server does (requestProxy).
	LatencyRequest = "request"
	// BusyChurn is another tenant's churn on the same API server: ClusterIP
	// Services created and deleted at a steady rate (they take its
	// allocation lock, as the operator's client Services do) and a
	// ConfigMap rewritten, from another user.
	BusyChurn = "churn"
	// BusyHog is a process spinning on CPU 0 beside the API server: half
	// of a 2-core machine.
	BusyHog = "hog"
	// DefaultChurnRate is BusyChurn's writes per second: on the 2-core
	// machine of docs/benchmark.md it keeps kube-apiserver and etcd about
	// one core busy, half of the machine (the run reports what it took).
	DefaultChurnRate = 150
)

// Name is the variation in a word or a few, "burst" for none.
func (v Variation) Name() string {
	var parts []string
	if v.Pace > 0 {
		parts = append(parts, fmt.Sprintf("paced %g/s", v.Pace))
	} else {
		parts = append(parts, "burst")
	}
	if v.LatencyMode == LatencyRequest {
		parts = append(parts, "latency per request")
	}
	switch v.Busy {
	case BusyChurn:
		parts = append(parts, fmt.Sprintf("busy: churn %g/s", v.churnRate()))
	case BusyHog:
		parts = append(parts, "busy: CPU hog")
	}
	return strings.Join(parts, ", ")
}

func (v Variation) churnRate() float64 {
	if v.ChurnRate > 0 {
		return v.ChurnRate
	}
	return DefaultChurnRate
}

// Validate says what is wrong with v.
func (v Variation) Validate() error {
	var errs []error
	if v.Pace < 0 {
		errs = append(errs, fmt.Errorf("pace %g: must not be negative", v.Pace))
	}
	switch v.LatencyMode {
	case "", LatencyConnection, LatencyRequest:
	default:
		errs = append(errs, fmt.Errorf("latency mode %q: want %s or %s", v.LatencyMode, LatencyConnection, LatencyRequest))
	}
	switch v.Busy {
	case "", BusyChurn, BusyHog:
	default:
		errs = append(errs, fmt.Errorf("busy %q: want %s or %s", v.Busy, BusyChurn, BusyHog))
	}
	return errors.Join(errs...)
}

// startBusy starts v's load and returns its stop.
func startBusy(ctx context.Context, v Variation, c client.Client) (func(), error) {
	switch v.Busy {
	case BusyChurn:
		return startChurn(ctx, c, v.churnRate())
	case BusyHog:
		return startHog()
	}
	return func() {}, nil
}

// tenantNamespace is where the churn's objects live.
const tenantNamespace = "tenant"

// startChurn writes rate times a second from c, at most 32 writes at once:
// in turn, a ClusterIP Service created, the Service created 20 turns
// earlier deleted, and a ConfigMap rewritten.
func startChurn(ctx context.Context, c client.Client, rate float64) (func(), error) {
	if err := client.IgnoreAlreadyExists(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenantNamespace}})); err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace, Name: "churn"}, Data: map[string]string{"n": "0"}}
	if err := client.IgnoreAlreadyExists(c.Create(ctx, cm)); err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(ctx)
	slots := make(chan struct{}, 32)
	var wg sync.WaitGroup
	var turn atomic.Int64
	svc := func(i int64) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace, Name: fmt.Sprintf("churn-%d", i)},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}, Selector: map[string]string{"app": "churn"}}}
	}
	write := func(i int64) {
		switch i % 3 {
		case 0:
			_ = c.Create(cctx, svc(i))
		case 1:
			_ = c.Delete(cctx, svc(i-1-60))
		default:
			patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"data":{"n":"%d"}}`, i))
			_ = c.Patch(cctx, cm.DeepCopy(), patch)
		}
	}
	wg.Go(func() {
		tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
		defer tick.Stop()
		for {
			select {
			case <-cctx.Done():
				return
			case <-tick.C:
			}
			select {
			case slots <- struct{}{}:
			default:
				continue // 32 in flight: the tenant waits, as a rate-limited client would
			}
			i := turn.Add(1)
			wg.Go(func() {
				defer func() { <-slots }()
				write(i)
			})
		}
	})
	return func() { cancel(); wg.Wait() }, nil
}

// hogEnv tells a process started by startHog to be the hog.
const hogEnv = "SRBENCH_HOG"

// MaybeHog makes this process the CPU hog when startHog started it, and
// never returns then; otherwise it returns at once. srbench calls it first.
func MaybeHog() {
	if os.Getenv(hogEnv) == "" {
		return
	}
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread()
	var cpu0 unix.CPUSet
	cpu0.Set(0)
	_ = unix.SchedSetaffinity(0, &cpu0)
	for x := uint64(1); ; x = x*6364136223846793005 + 1442695040888963407 {
		if x == 0 {
			fmt.Fprintln(os.Stderr)
		}
	}
}

// startHog runs this program again as the hog (MaybeHog), pinned to CPU 0.
func startHog() (func(), error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), hogEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the CPU hog: %w", err)
	}
	return func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}, nil
}

// pacedSlot waits until the i-th create's turn at pace per second after
// start (at once for pace 0).
func pacedSlot(ctx context.Context, start time.Time, i int, pace float64) error {
	if pace <= 0 {
		return nil
	}
	at := start.Add(time.Duration(float64(i) / pace * float64(time.Second)))
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
