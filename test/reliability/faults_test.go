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

package reliability_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/test/internal/testutil"
)

// Faults between the operator and kube-apiserver, while clusters are being
// created and changed: afterwards every cluster converges to its latest spec,
// with no child created twice, deleted or orphaned.
func TestAPIFaults(t *testing.T) {
	needCluster(t)
	w := size.window
	t.Run("latency", func(t *testing.T) {
		testAPIFault(t, "latency", "2 s latency",
			fmt.Sprintf("+1 s each way on every connection (2 s per round trip) for %s", w), w,
			func(t *testing.T, p *apiProxy) {
				p.addToxic(t, "latency", `{"latency":1000}`)
				time.Sleep(w)
				p.removeToxic(t, "latency")
			})
	})
	t.Run("reset", func(t *testing.T) {
		testAPIFault(t, "reset", "connection resets",
			fmt.Sprintf("`reset_peer`: every connection, open or new, is reset (TCP RST) 700 ms after it starts, for %s", w), w,
			func(t *testing.T, p *apiProxy) {
				p.addToxic(t, "reset_peer", `{"timeout":700}`)
				time.Sleep(w)
				p.removeToxic(t, "reset_peer")
			})
	})
	t.Run("stall", func(t *testing.T) {
		if size == short {
			t.Skip("like reset, but slower: full run only (RELIABILITY_FULL=1)")
		}
		testAPIFault(t, "stall", "stalled connections",
			fmt.Sprintf("`timeout`: no byte passes, each connection is closed after 2 s, for %s", w), w,
			func(t *testing.T, p *apiProxy) {
				p.addToxic(t, "timeout", `{"timeout":2000}`)
				time.Sleep(w)
				p.removeToxic(t, "timeout")
			})
	})
	t.Run("blackout", func(t *testing.T) {
		b := size.blackout
		testAPIFault(t, "blackout", fmt.Sprintf("%s blackout", b),
			fmt.Sprintf("proxy disabled for %s: open connections closed, new ones refused", b), b,
			func(t *testing.T, p *apiProxy) {
				p.Stop()
				time.Sleep(b)
				if err := p.Start(); err != nil {
					t.Fatalf("re-enabling the proxy: %v", err)
				}
			})
	})
	t.Run("apiserver-restart", func(t *testing.T) {
		var took time.Duration
		var killed bool
		testAPIFault(t, "apiserver-restart", "kube-apiserver restart",
			"kube-apiserver stopped (SIGTERM, SIGKILL after 10 s) and started again on the same etcd, port and certificates", 3*time.Second,
			func(t *testing.T, p *apiProxy) {
				time.Sleep(time.Second) // let the first creations and changes start
				start := time.Now()
				k, err := cluster.RestartAPIServer(10 * time.Second)
				if err != nil {
					t.Fatal(err)
				}
				took, killed = time.Since(start), k
			})
		how := "stopped on SIGTERM"
		if killed {
			how = "did not stop within 10 s of SIGTERM and was killed (SIGKILL)"
		}
		report.note("The API server restart took %s from SIGTERM until the new process answered /healthz; the old process %s.", seconds(took), how)
	})
}

// testAPIFault creates size.changed clusters and waits until they converge;
// then, while fault runs, creates size.created clusters and changes each of
// the first ones twice, spread over window; then measures how long the
// namespace takes to converge once the fault and the writes are over.
func testAPIFault(t *testing.T, slug, fault, injected string, window time.Duration, inject func(*testing.T, *apiProxy)) {
	ns := "fault-" + slug
	testutil.CreateNamespace(t, cluster.Client, ns)
	l := startLedger(t, cluster, ns)
	p := startProxy(t, apiServerAddr(t, cluster))
	op := startOperator(t, kubeconfig(t, cluster, p.Listen), "--namespace="+ns)
	total := size.created + size.changed
	clusters := fmt.Sprintf("%d created + %d changed twice", size.created, size.changed)
	recorded := false
	defer func() {
		if !recorded {
			report.add(row{fault, injected, clusters, "**FAILED** (see the test log)", "-", "see the test log"})
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), size.converge+2*window)
	defer cancel()
	for i := range size.changed {
		if err := createUntil(ctx, cluster, feOnly(ns, fmt.Sprintf("old-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	waitConverged(t, cluster, ns, size.changed, size.converge)

	// Creations over the whole window; the two rounds of changes in its two halves.
	creates := spread(size.created, window, func(i int) error {
		return createUntil(ctx, cluster, feOnly(ns, fmt.Sprintf("new-%d", i)))
	})
	changes := spread(2*size.changed, window, func(i int) error {
		round := i / size.changed
		return changeSpec(ctx, cluster, ns, fmt.Sprintf("old-%d", i%size.changed), int32(2+round), fmt.Sprintf("%s-%d", slug, round+1))
	})
	began := time.Now()
	inject(t, p)
	faultEnded := time.Now()
	if err := creates(); err != nil {
		t.Fatalf("creating clusters during the fault: %v", err)
	}
	if err := changes(); err != nil {
		t.Fatalf("changing clusters during the fault: %v", err)
	}
	after := time.Since(faultEnded)
	took := waitConverged(t, cluster, ns, total, size.converge)
	if exited, err := op.wait(0); exited {
		t.Fatalf("the operator exited during the fault: %v", err)
	}
	if again := l.recreated(); len(again) > 0 {
		t.Fatalf("children deleted or created twice:\n%s", strings.Join(again, "\n"))
	}
	if n, want := l.objectsBy(3*total, 30*time.Second), 3*total; n != want {
		t.Fatalf("%d children ever seen, want %d", n, want)
	}
	t.Logf("%s: fault of %s; writes done %s after its end; converged %s later", fault, faultEnded.Sub(began).Round(time.Millisecond), after.Round(time.Millisecond), took.Round(time.Millisecond))
	recorded = true
	report.add(row{fault, injected, clusters,
		fmt.Sprintf("all %d converged to their latest spec; %d children, each created once, none orphaned", total, 3*total),
		seconds(took + after), "nothing"})
}
