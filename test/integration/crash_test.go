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

package integration_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"

	"github.com/srscale/starrocks-operator/test/crash"
	"github.com/srscale/starrocks-operator/test/faulttable"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// operatorBinary builds the operator from this checkout, for the tests
// that SIGKILL it (test/crash).
func operatorBinary(t *testing.T) string {
	t.Helper()
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := crash.Build(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// A real crash in the middle of a scale-in (issue 32): the operator
// process is SIGKILLed right after FE answered its DECOMMISSION, before it
// could write the smaller BE StatefulSet. The next process finds be-3
// draining in FE, waits for FE to let it go, then shrinks the StatefulSet:
// once, to 3, with no tablet lost and no second DECOMMISSION.
func testDecommissionAcrossSIGKILL(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	built := time.Now()
	bin := operatorBinary(t)
	t.Logf("built the operator in %s", time.Since(built).Round(time.Millisecond))
	const ns, name = "scale-crash", "kd"
	op := crash.New(t, crash.Options{Binary: bin, Cluster: c, Args: []string{"--namespace=" + ns}})
	f := startFE(t, dir, ns, name, simstarrocks.Options{MigrationRate: 2, AfterStatement: op.Statement})
	src := beCluster(ns, name, 4)
	op.SetFEHosts(ns, src.FeServiceName(), f.QueryAddress(), f.HTTPURL(), feHosts(f, ns, name, 1))
	decommissioned := op.KillAfterStatement("ALTER SYSTEM DECOMMISSION BACKEND")
	op.Start()

	runningWithTable(t, c, f, src, 4, 40)
	lost := watchLost(f)
	replicas := stsReplicas(c, ns, src.BeStatefulSetName())

	setBEReplicas(t, c, src, 3)
	var k crash.Killed
	select {
	case k = <-decommissioned:
	case <-time.After(time.Minute):
		t.Fatal("no DECOMMISSION within a minute of the scale-in")
	}
	if !k.BySIGKILL {
		t.Fatalf("process %d did not end by SIGKILL", k.Pid)
	}
	// Where the kill landed: FE drains be-3, the StatefulSet still has 4.
	sts := &appsv1.StatefulSet{}
	if err := get(t.Context(), c.Client, ns, src.BeStatefulSetName(), sts); err != nil || ptr.Deref(sts.Spec.Replicas, 0) != 4 {
		t.Fatalf("BE StatefulSet at the kill: replicas %v, %v; want 4 (killed before its write)", sts.Spec.Replicas, err)
	}
	if !slices.Contains(backendHosts(f), beHost(ns, name, 3)+" (D)") {
		t.Fatalf("FE's BEs at the kill %q, want be-3 decommissioning", backendHosts(f))
	}
	t.Logf("killed process %d after %q", k.Pid, k.What)

	restarted := time.Now()
	op.Start()
	waitStatefulSet(t, c, ns, src.BeStatefulSetName(), "BE shrunk to 3 by the next process", 2*time.Minute, shrunkTo(3))
	t.Logf("the next process shrank the BE StatefulSet %s after it started", time.Since(restarted).Round(100*time.Millisecond))
	if hosts := backendHosts(f); !slices.Equal(hosts, []string{beHost(ns, name, 0), beHost(ns, name, 1), beHost(ns, name, 2)}) {
		t.Errorf("FE lists BEs %q after the scale-in, want be-0 to be-2", hosts)
	}
	took := time.Since(restarted)
	n, seen := shrankOnce(t, f, beHost(ns, name, 3), lost, replicas) // one DECOMMISSION: the next process found be-3 draining
	recordFault(t, faulttable.Row{Fault: "operator SIGKILL between DECOMMISSION and the StatefulSet write",
		Injected:  "BE 4 → 3, 40 single-replica tablets; the operator binary SIGKILLed as FE answered the DECOMMISSION, restarted",
		Converged: fmt.Sprintf("the next process found be-3 draining, sent no second DECOMMISSION, shrank BE to 3 %s after it started; StatefulSet replicas %v", took.Round(100*time.Millisecond), seen),
		Lost:      fmt.Sprintf("%d tablets", n)})
}

// Issue 34 item 17: an FE left over (it led when its pod went first) is
// dropped from FE's group and loses its claims. The operator process is
// SIGKILLed right after FE answered the DROP FOLLOWER: its claims must be
// gone already, since FE no longer lists the member for the next process
// to find, and a claim left would make a later scale-up start that
// ordinal on the dropped member's metadata. The next process then scales
// FE back to 3, and kf-fe-2 joins afresh.
func testFEDropAcrossSIGKILL(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	bin := operatorBinary(t)
	const ns, name = "scale-crash-fe", "kf"
	op := crash.New(t, crash.Options{Binary: bin, Cluster: c, Args: []string{"--namespace=" + ns}})
	f := startFE(t, dir, ns, name, simstarrocks.Options{AfterStatement: op.Statement})
	src := feCluster(ns, name, 3)
	op.SetFEHosts(ns, src.FeServiceName(), f.QueryAddress(), f.HTTPURL(), feHosts(f, ns, name, 3))
	dropped := op.KillAfterStatement("ALTER SYSTEM DROP FOLLOWER")
	op.Start()
	if err := c.Client.Create(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, ns, name, 2*time.Minute)
	eventually(t, time.Minute, "3 FEs in the group", func(context.Context) (bool, error) { return groupOf(f, ns, name, 3), nil })
	if !f.ElectLeader(feHost(ns, name, 2)) {
		t.Fatalf("could not place the leader on kf-fe-2: %q", frontendHosts(f))
	}
	setFEReplicas(t, c, src, 2)
	var k crash.Killed
	select {
	case k = <-dropped:
	case <-time.After(2 * time.Minute):
		t.Fatal("no DROP FOLLOWER within 2 minutes of the scale-down")
	}
	if !k.BySIGKILL {
		t.Fatalf("process %d did not end by SIGKILL", k.Pid)
	}
	t.Logf("killed process %d after %q", k.Pid, k.What)
	claim := "fe-meta-" + name + "-fe-2"
	pvc := &corev1.PersistentVolumeClaim{}
	if err := get(t.Context(), c.Client, ns, claim, pvc); !apierrors.IsNotFound(err) && pvc.DeletionTimestamp == nil {
		t.Errorf("claim %s after the DROP and the kill: %v (finalizers %v), want it deleted before the DROP", claim, err, pvc.Finalizers)
	}
	op.Start()
	setFEReplicas(t, c, src, 3)
	eventually(t, 2*time.Minute, "kf-fe-2 joined FE's group afresh", func(context.Context) (bool, error) { return groupOf(f, ns, name, 3), nil })
	sts := &appsv1.StatefulSet{}
	if err := get(t.Context(), c.Client, ns, src.FeStatefulSetName(), sts); err != nil || ptr.Deref(sts.Spec.Replicas, 0) != 3 {
		t.Errorf("FE StatefulSet: %v, %v; want 3 replicas", sts.Spec.Replicas, err)
	}
	recordFault(t, faulttable.Row{Fault: "operator SIGKILL between DROP FOLLOWER and the claims' deletion",
		Injected:  "FE 3 → 2 with the leader on kf-fe-2 (left over, then dropped); the operator binary SIGKILLed as FE answered the DROP FOLLOWER",
		Converged: "the dropped member's claim was deleted before the DROP; FE scaled back to 3, kf-fe-2 joined afresh, 3 members with a leader",
		Lost:      "0 FE members (no ghost voter, no claim left)"})
}
