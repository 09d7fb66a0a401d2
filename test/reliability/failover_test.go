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
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/srscale/starrocks-operator/test/internal/testutil"
)

// The client-go leader elector a standby runs retries every RetryPeriod (2 s
// in controller-runtime) with a jitter of up to 1.2 times that. It dates
// the Lease by when it saw the last renewal change (its observedTime), which
// can be one such retry after the renewal, and notices the expiry at the
// retry after LeaseDuration from then: up to two retries after the lease
// duration. (One retry was the bound before; a run on 2026-12-01 took over
// 19.56 s after the kill against 19.4 s.)
const retryBound = 2 * time.Second * 22 / 10

// takeoverBound is the most a standby may take after a SIGKILL of the
// leader, whose Lease expires LeaseDuration after its last renewal.
func takeoverBound(leaseDuration time.Duration) time.Duration { return leaseDuration + 2*retryBound }

// Two operator replicas with leader election: kill the leader, the standby
// takes over and reconciles a cluster created during the handover. SIGKILL
// leaves the Lease held until it expires; SIGTERM releases it.
func TestLeaderFailover(t *testing.T) {
	needCluster(t)
	const ns, leaseName = "failover", "starrocks-operator-failover"
	testutil.CreateNamespace(t, cluster.Client, ns)
	kc := kubeconfig(t, cluster, "")
	args := []string{"--namespace=" + ns, "--leader-elect", "--leader-election-namespace=" + ns, "--leader-election-id=" + leaseName}

	a := startOperator(t, kc, args...)
	holderA, _ := waitHolder(t, ns, leaseName, "", time.Minute)
	b := startOperator(t, kc, args...)
	if err := cluster.Client.Create(context.Background(), feOnly(ns, "before")); err != nil {
		t.Fatal(err)
	}
	waitConverged(t, cluster, ns, 1, time.Minute)
	time.Sleep(3 * time.Second) // b has started and found the Lease held
	if h, _ := holder(t, ns, leaseName); h != holderA {
		t.Fatalf("the Lease moved from %s to %s without a failure", holderA, h)
	}

	// SIGKILL: the Lease stays held until it expires.
	var lease coordinationv1.Lease
	if err := cluster.Client.Get(context.Background(), keyOf(ns, leaseName), &lease); err != nil {
		t.Fatal(err)
	}
	leaseDuration := time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second
	a.kill()
	killed := time.Now()
	if err := cluster.Client.Create(context.Background(), feOnly(ns, "during-kill")); err != nil {
		t.Fatal(err)
	}
	holderB, takeover := waitHolder(t, ns, leaseName, holderA, leaseDuration+time.Minute)
	waitConverged(t, cluster, ns, 2, time.Minute)
	converged := time.Since(killed)
	t.Logf("SIGKILL: %s took over %s after the kill (lease duration %s); the cluster created during the handover converged %s after the kill",
		holderB, takeover.Sub(killed).Round(time.Millisecond), leaseDuration, converged.Round(time.Millisecond))
	if limit := takeoverBound(leaseDuration); takeover.Sub(killed) > limit {
		t.Errorf("takeover after SIGKILL took %s, want within the lease duration %s plus two jittered retry periods (%s)", takeover.Sub(killed), leaseDuration, limit)
	}
	if !t.Failed() {
		report.add(row{"leader failover, SIGKILL", "SIGKILL of the leader of two replicas (`--leader-elect`); a cluster created right after",
			"1 existing + 1 created during the handover",
			fmt.Sprintf("the standby took the Lease %s after the kill (lease duration %s); the new cluster converged", seconds(takeover.Sub(killed)), leaseDuration),
			seconds(converged) + " after the kill", "nothing"})
	}

	// SIGTERM: the leader releases the Lease as it stops, the standby takes it at its next retry.
	c := startOperator(t, kc, args...)
	time.Sleep(3 * time.Second) // c has started and found the Lease held
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	termed := time.Now()
	if err := cluster.Client.Create(context.Background(), feOnly(ns, "during-term")); err != nil {
		t.Fatal(err)
	}
	holderC, takeover := waitHolder(t, ns, leaseName, holderB, leaseDuration+time.Minute)
	waitConverged(t, cluster, ns, 3, time.Minute)
	converged = time.Since(termed)
	if exited, err := b.wait(30 * time.Second); !exited || err != nil {
		t.Errorf("the leader did not exit cleanly within 30 s of SIGTERM: exited %v, %v", exited, err)
	}
	t.Logf("SIGTERM: %s took over %s after SIGTERM; the cluster created during the handover converged %s after it",
		holderC, takeover.Sub(termed).Round(time.Millisecond), converged.Round(time.Millisecond))
	// Released, the Lease is free at the standby's next retry; held, it would
	// wait the whole lease duration. Typically 3 to 5 s here (stopping the
	// workers, then a retry period); the bound keeps a loaded CI from flaking.
	if took := takeover.Sub(termed); took >= leaseDuration {
		t.Errorf("takeover after SIGTERM took %s, not less than the lease duration %s: the leader did not release its Lease", took, leaseDuration)
	}
	if exited, err := c.wait(0); exited {
		t.Fatalf("the new leader exited: %v", err)
	}
	if !t.Failed() {
		report.add(row{"leader failover, SIGTERM", "SIGTERM of the leader of two replicas; a cluster created right after",
			"2 existing + 1 created during the handover",
			fmt.Sprintf("the leader released the Lease and exited 0; the standby took it %s after SIGTERM; the new cluster converged", seconds(takeover.Sub(termed))),
			seconds(converged) + " after SIGTERM", "nothing"})
	}
}

// holder returns the Lease's holder and when it was acquired ("" if the Lease does not exist yet).
func holder(t *testing.T, ns, name string) (string, time.Time) {
	t.Helper()
	var lease coordinationv1.Lease
	err := cluster.Client.Get(context.Background(), keyOf(ns, name), &lease)
	if apierrors.IsNotFound(err) {
		return "", time.Time{}
	}
	if err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil {
		return "", time.Time{}
	}
	var acquired time.Time
	if lease.Spec.AcquireTime != nil {
		acquired = lease.Spec.AcquireTime.Time
	}
	return *lease.Spec.HolderIdentity, acquired
}

// waitHolder polls every 50 ms until the Lease has a holder other than
// previous, and returns it and the time the poll saw it.
func waitHolder(t *testing.T, ns, name, previous string, timeout time.Duration) (string, time.Time) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if h, _ := holder(t, ns, name); h != "" && h != previous {
			return h, time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no new holder of Lease %s/%s (previous %q) within %s", ns, name, previous, timeout)
	return "", time.Time{}
}
