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
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/faulttable"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/simstarrocks/registrar"
	"github.com/srscale/starrocks-operator/test/testcluster"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// gateLookEvery spaces the operator's FE reads in these tests (10 s in production).
const gateLookEvery = 500 * time.Millisecond

// catchUp is how long a restarted BE's replicas stay unhealthy.
const catchUp = 3 * time.Second

// Rollouts that wait for StarRocks (docs/rollouts.md): on a simulated cluster
// whose pods register with a simulated StarRocks that holds tablet replicas
// on its BEs, and whose restarted BEs take catchUp to catch up.
func TestGatedRollouts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	// The longest tests, each on a control plane of its own, mostly
	// waiting on StarRocks' clocks: integrationParallel at a time, after
	// the others (suite_test.go).
	t.Parallel()
	c, dir := simulatedWithStarRocks(t)
	testutil.CreateNamespace(t, c.Client, "gate")
	startOperator(t, c, "gate", operatorOptions{workers: 4, fe: dir.resolve, feLookEvery: gateLookEvery})

	t.Run("a BE image change keeps every tablet at 2 healthy replicas with the gate, and does not without it", func(t *testing.T) {
		skipKnownFailure(t)
		testGateKeepsReplicas(t, c, dir)
	})
	t.Run("a BE that never becomes Alive stalls the rollout at pod 1 with RolloutStalled, and nothing else rolls", func(t *testing.T) {
		skipKnownFailure(t)
		testStalledRollout(t, c, dir)
	})
	t.Run("a BE down when a BE rollout begins holds it: every tablet keeps a readable replica, and not without the gate", func(t *testing.T) {
		skipKnownFailure(t)
		testDownBEHoldsRollout(t, c, dir)
	})
	t.Run("a BE down below the rollout's next pod gets the new revision first, and no healthy BE restarts while it is down", func(t *testing.T) {
		skipKnownFailure(t)
		testDownBEGetsItsFixFirst(t, c, dir)
	})
	t.Run("a BE restarted on empty storage holds the rollout until FE processed its tablet report: nothing lost, and not without the gate", func(t *testing.T) {
		skipKnownFailure(t)
		testWipedBEWaitsForItsReport(t, c, dir)
	})
	t.Run("an FE rollout replaces the leader last, with the leader at ordinal 0 and at ordinal 2", func(t *testing.T) {
		skipKnownFailure(t)
		testLeaderLast(t, c, dir)
	})
	t.Run("an operator restarted in the middle of a BE rollout takes it up where it was", func(t *testing.T) {
		skipKnownFailure(t)
		testRestartMidRollout(t, c, dir)
	})
	t.Run("a BE downgrade from 3.3 to 3.2.1 is refused and restarts no pod; with the check off it rolls", func(t *testing.T) {
		testRefusedDowngrade(t, c, dir)
	})
	t.Run("a BE rollout on an emptyDir with a single-replica table is refused and restarts no pod; allowed, it loses the tablets", func(t *testing.T) {
		testEphemeralBERollout(t, c, dir)
	})
	t.Run("an upgrade from 2.5 to 3.1 skips 3.0 and is refused: no pod restarts", func(t *testing.T) {
		testRefusedMajorSkip(t, c, dir)
	})
	t.Run("a patch of 2.5 before 2.5.3 takes no metadata image, which its FE lacks, and leaves no record", func(t *testing.T) {
		testNoImageBefore253(t, c, dir)
	})
	t.Run("an fe.conf that turns a shared-nothing cluster shared-data is refused and restarts no pod; with the check off FE rolls", func(t *testing.T) {
		testRefusedRunMode(t, c, dir)
	})
	t.Run("StarRocksHealthy follows a BE pod that stops and returns, and nothing is written while nothing changes", func(t *testing.T) {
		skipKnownFailure(t)
		testStarRocksHealthy(t, c, dir)
	})
}

// gatedCluster is a cluster of fe FE and be BE pods whose root password
// "pw-<name>" is in every pod's MYSQL_PWD, as the upstream chart sets it.
func gatedCluster(ns, name string, feReplicas, beReplicas int32) *srv1.StarRocksCluster {
	src := feOnly(ns, name)
	pw := []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "pw-" + name}}
	src.Spec.StarRocksFeSpec.Replicas = ptr.To(feReplicas)
	src.Spec.StarRocksFeSpec.FeEnvVars = pw
	if beReplicas > 0 {
		src.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{
			StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/be-ubuntu:3.3.2", Replicas: ptr.To(beReplicas)}},
			BeEnvVars:              pw,
		}
	}
	return src
}

// startGated creates src with its simulated StarRocks, waits until it runs
// and FE lists every node Alive, and creates a table of tablets tablets
// with 3 replicas (none when 0).
func startGated(t *testing.T, c *testcluster.Cluster, dir *feDirectory, src *srv1.StarRocksCluster, opts simstarrocks.Options, tablets int) *simstarrocks.StarRocks {
	t.Helper()
	f := startFE(t, dir, src.Namespace, src.Name, opts)
	// FE-0's process answers with its image's release from its first
	// answer, as the registrar has every later process do. Bootstrapped
	// before the cluster exists, the simulated row would answer the
	// simulation's default release until the registrar starts fe-0's
	// process, and an operator reading FE in between would record a
	// release no pod runs in status.highestVersion (3.1.0 over 2.5.1).
	if rel := registrar.ImageRelease(src.Spec.StarRocksFeSpec.Image); rel != "" {
		fe0 := feHost(src.Namespace, src.Name, 0)
		f.SetRelease(fe0, rel)
		f.BootstrapFrontend(fe0, 9010)
	}
	if err := c.Client.Create(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, src.Namespace, src.Name, 2*time.Minute)
	fes, bes := int(ptr.Deref(src.Spec.StarRocksFeSpec.Replicas, 1)), 0
	if src.Spec.StarRocksBeSpec != nil {
		bes = int(ptr.Deref(src.Spec.StarRocksBeSpec.Replicas, 1))
	}
	eventually(t, time.Minute, "every node Alive in FE", func(context.Context) (bool, error) {
		return aliveFEs(f) == fes && aliveBEs(f) == bes, nil
	})
	if tablets > 0 {
		if err := f.CreateTable("db", "t", 3, tablets); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func aliveBEs(f *simstarrocks.StarRocks) int {
	n := 0
	for _, b := range f.Backends() {
		if b.Alive {
			n++
		}
	}
	return n
}

func aliveFEs(f *simstarrocks.StarRocks) int {
	n := 0
	for _, fe := range f.Frontends() {
		if fe.Alive {
			n++
		}
	}
	return n
}

// beRollout follows one cluster's BE rollout: the most tablets seen with
// fewer than 2 healthy replicas, and how long until every BE pod ran the
// new revision and was Ready.
type beRollout struct {
	src        *srv1.StarRocksCluster
	sim        *simstarrocks.StarRocks
	worst      int
	start, end time.Time
	sawGate    bool // Progressing said RollingOut
}

// rollBE changes the image of every run's BE at once and samples them every
// 50 ms until all rolled out.
func rollBE(t *testing.T, c *testcluster.Cluster, image string, runs ...*beRollout) {
	t.Helper()
	for _, r := range runs {
		mutate(t, c.Client, r.src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec.Image = image })
		r.start = time.Now()
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		pending := 0
		for _, r := range runs {
			if !r.end.IsZero() {
				continue
			}
			r.worst = max(r.worst, r.sim.TabletsBelow(2))
			sts := &appsv1.StatefulSet{}
			if err := get(context.Background(), c.Client, r.src.Namespace, r.src.Name+"-be", sts); err != nil {
				t.Fatal(err)
			}
			cur := &srv1.StarRocksCluster{}
			if err := get(context.Background(), c.Client, r.src.Namespace, r.src.Name, cur); err != nil {
				t.Fatal(err)
			}
			if cond := meta.FindStatusCondition(cur.Status.Conditions, srv1.ConditionProgressing); cond != nil && cond.Reason == srv1.ReasonRollingOut {
				r.sawGate = true
			}
			if stsImage(sts) == image && rolledOut(sts) {
				r.end = time.Now()
				continue
			}
			pending++
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("BE rollouts to %s not done after 3 minutes", image)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func testGateKeepsReplicas(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	bes, tablets, lag := int32(3), 30, catchUp
	if os.Getenv("GATED_ROLLOUT_FULL") != "" {
		bes, tablets, lag = 5, 300, 10*time.Second // the longer variant: about a minute more
	}
	opts := simstarrocks.Options{CatchUp: lag}
	gated := gatedCluster("gate", "gated", 1, bes)
	ungated := gatedCluster("gate", "ungated", 1, bes)
	ungated.Annotations = map[string]string{srv1.RolloutGateAnnotation: srv1.RolloutGateOff}
	with := &beRollout{src: gated, sim: startGated(t, c, dir, gated, opts, tablets)}
	without := &beRollout{src: ungated, sim: startGated(t, c, dir, ungated, opts, tablets)}
	// Both at once: the same cluster, the same load, the same moment.
	rollBE(t, c, "starrocks/be-ubuntu:3.3.3", with, without)
	t.Logf("%d BE, a table of %d tablets with 3 replicas, %s catch-up: with the gate at most %d tablets had fewer than 2 healthy replicas, rolled out in %s; without it %d, in %s",
		bes, tablets, lag, with.worst, with.end.Sub(with.start).Round(100*time.Millisecond), without.worst, without.end.Sub(without.start).Round(100*time.Millisecond))
	if with.worst != 0 {
		t.Errorf("with the gate, %d tablets had fewer than 2 healthy replicas", with.worst)
	}
	if without.worst == 0 {
		t.Errorf("without the gate no tablet fell below 2 healthy replicas: the control case shows nothing")
	}
	if !with.sawGate || without.sawGate {
		t.Errorf("Progressing said RollingOut: gated %t (want true), ungated %t (want false)", with.sawGate, without.sawGate)
	}
	for _, r := range []*beRollout{with, without} {
		got := waitRunning(t, c, "gate", r.src.Name, time.Minute)
		// Every pod is Ready, but FE may list the last one restarted Alive
		// only at a later heartbeat than the read made a second after the pod
		// became Ready: the status tells it at the next health read, within
		// the sync period (2 min here).
		eventually(t, 150*time.Second, r.src.Name+": every BE Alive in status", func(ctx context.Context) (bool, error) {
			if err := get(ctx, c.Client, "gate", r.src.Name, got); err != nil {
				return false, err
			}
			n := got.Status.StarRocksBeStatus.Nodes
			return n != nil && n.Alive == bes && n.Total == bes, nil
		})
		be := &appsv1.StatefulSet{}
		if err := get(context.Background(), c.Client, "gate", r.src.Name+"-be", be); err != nil {
			t.Fatal(err)
		}
		if p := be.Spec.UpdateStrategy.RollingUpdate; p == nil || ptr.Deref(p.Partition, -1) != 0 {
			t.Errorf("%s: BE strategy after the rollout %+v, want the spec's partition 0", r.src.Name, be.Spec.UpdateStrategy)
		}
		if err := c.Client.Delete(context.Background(), r.src); err != nil {
			t.Fatal(err)
		}
	}
}

func podUID(t *testing.T, c *testcluster.Cluster, ns, name string) string {
	t.Helper()
	p := &corev1.Pod{}
	if err := get(context.Background(), c.Client, ns, name, p); err != nil {
		t.Fatal(err)
	}
	return string(p.UID)
}

func progressing(t *testing.T, c *testcluster.Cluster, ns, name string) metav1.Condition {
	t.Helper()
	src := &srv1.StarRocksCluster{}
	if err := get(context.Background(), c.Client, ns, name, src); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionProgressing); cond != nil {
		return *cond
	}
	return metav1.Condition{}
}

func testStalledRollout(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	src := gatedCluster("gate", "stall", 1, 3)
	src.Annotations = map[string]string{srv1.RolloutStallTimeoutAnnotation: "4s"}
	startGated(t, c, dir, src, simstarrocks.Options{}, 0)
	kept := map[string]string{}
	for _, p := range []string{"stall-be-0", "stall-be-1"} {
		kept[p] = podUID(t, c, "gate", p)
	}
	// The new pods' StarRocks never answers FE's heartbeats.
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksBeSpec.Annotations = map[string]string{registrar.NeverAliveAnnotation: "true"}
	})
	var cond metav1.Condition
	eventually(t, time.Minute, "RolloutStalled", func(context.Context) (bool, error) {
		cond = progressing(t, c, "gate", "stall")
		return cond.Reason == srv1.ReasonRolloutStalled, nil
	})
	if cond.Status != metav1.ConditionTrue || !strings.Contains(cond.Message, "1 of 3 pods replaced") || !strings.Contains(cond.Message, "a heartbeat from stall-be-2's new process") {
		t.Errorf("Progressing %s %s: %q", cond.Status, cond.Reason, cond.Message)
	}
	time.Sleep(3 * time.Second) // long enough for the next pod to roll, were the gate open
	for p, uid := range kept {
		if got := podUID(t, c, "gate", p); got != uid {
			t.Errorf("%s replaced although the rollout stalled at pod 1", p)
		}
	}
	be := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "gate", "stall-be", be); err != nil {
		t.Fatal(err)
	}
	if p := be.Spec.UpdateStrategy.RollingUpdate; p == nil || ptr.Deref(p.Partition, -1) != 2 {
		t.Errorf("BE strategy %+v, want partition 2 (pod 2 replaced, the others held)", be.Spec.UpdateStrategy)
	}
	var evs eventsv1.EventList
	if err := c.Client.List(ctx, &evs, client.InNamespace("gate")); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(evs.Items, func(e eventsv1.Event) bool {
		return e.Regarding.Name == "stall" && e.Reason == srv1.ReasonRolloutStalled && e.Type == corev1.EventTypeWarning
	}) {
		t.Error("no Warning Event RolloutStalled")
	}
	if err := c.Client.Delete(ctx, src); err != nil {
		t.Fatal(err)
	}
}

// rollFE changes FE's image and returns the FE pods in the order they were
// deleted, checking that each went only while every other FE pod was Ready.
func rollFE(t *testing.T, c *testcluster.Cluster, src *srv1.StarRocksCluster, image string) []string {
	t.Helper()
	wc, err := client.NewWithWatch(c.Config, client.Options{Scheme: c.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(context.Background(), &corev1.PodList{}, client.InNamespace(src.Namespace))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksFeSpec.Image = image })
	prefix := src.Name + "-fe-"
	ready := map[string]bool{}
	deleting := map[podKey]bool{}
	var order []string
	timeout := time.After(2 * time.Minute)
	for len(order) < 3 {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("watch closed")
			}
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || !strings.HasPrefix(p.Name, prefix) {
				continue
			}
			key := podKey{p.Name, string(p.UID)}
			if p.DeletionTimestamp != nil && !deleting[key] && p.Spec.Containers[0].Image != image {
				deleting[key] = true
				for other, r := range ready {
					if other != p.Name && !r {
						t.Errorf("%s deleted while %s was not Ready", p.Name, other)
					}
				}
				order = append(order, p.Name)
			}
			ready[p.Name] = p.DeletionTimestamp == nil && podIsReady(p)
		case <-timeout:
			cur := &srv1.StarRocksCluster{}
			_ = get(context.Background(), c.Client, src.Namespace, src.Name, cur)
			t.Fatalf("FE pods deleted so far: %v; the cluster's conditions: %+v", order, cur.Status.Conditions)
		}
	}
	waitRunning(t, c, src.Namespace, src.Name, 2*time.Minute)
	return order
}

type podKey struct{ name, uid string }

func podIsReady(p *corev1.Pod) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

func testLeaderLast(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	src := gatedCluster("gate", "lead", 3, 0)
	// Two FE changes in a row: the second waits for FE's metadata image
	// after the first, at the simulated FE's shortened checkpoint round.
	f := startGated(t, c, dir, src, simstarrocks.Options{CheckpointInterval: checkpointEvery}, 0)
	if got := f.Leader(); got != feHost("gate", "lead", 0) {
		t.Fatalf("leader %q, want FE 0", got)
	}
	order := rollFE(t, c, src, "starrocks/fe-ubuntu:3.3.3")
	t.Logf("leader at ordinal 0: FE pods replaced in order %v", order)
	if len(order) != 3 || order[2] != "lead-fe-0" {
		t.Errorf("leader at ordinal 0: FE pods replaced in order %v, want the leader lead-fe-0 last", order)
	}
	eventually(t, time.Minute, "every FE Alive again", func(context.Context) (bool, error) { return aliveFEs(f) == 3, nil })
	if !f.ElectLeader(feHost("gate", "lead", 2)) {
		t.Fatal("FE 2 could not lead")
	}
	order = rollFE(t, c, src, "starrocks/fe-ubuntu:3.3.4")
	t.Logf("leader at ordinal 2: FE pods replaced in order %v", order)
	if len(order) != 3 || order[2] != "lead-fe-2" {
		t.Errorf("leader at ordinal 2: FE pods replaced in order %v, want the leader lead-fe-2 last", order)
	}
	fe := &appsv1.StatefulSet{}
	if err := get(context.Background(), c.Client, "gate", "lead-fe", fe); err != nil {
		t.Fatal(err)
	}
	if fe.Spec.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType || !rolledOut(fe) {
		t.Errorf("FE after its rollouts: strategy %+v, status %+v; want the spec's RollingUpdate, rolled out", fe.Spec.UpdateStrategy, fe.Status)
	}
	if err := c.Client.Delete(context.Background(), src); err != nil {
		t.Fatal(err)
	}
}

func testRestartMidRollout(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, "gate-restart")
	op := startOperator(t, c, "gate-restart", operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src := gatedCluster("gate-restart", "rs", 1, 3)
	f := startGated(t, c, dir, src, simstarrocks.Options{CatchUp: catchUp}, 30)
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:3.3.3" })
	worst := 0
	be := &appsv1.StatefulSet{}
	// Stop the operator while pod 2 runs the new image and catches up.
	eventually(t, time.Minute, "pod 2 replaced", func(ctx context.Context) (bool, error) {
		worst = max(worst, f.TabletsBelow(2))
		if err := get(ctx, c.Client, "gate-restart", "rs-be", be); err != nil {
			return false, err
		}
		p := &corev1.Pod{}
		if err := get(ctx, c.Client, "gate-restart", "rs-be-2", p); err != nil {
			return false, nil
		}
		rolling := stsImage(be) == "starrocks/be-ubuntu:3.3.3" && be.Status.ObservedGeneration == be.Generation && be.Status.UpdateRevision != be.Status.CurrentRevision
		return rolling && p.Labels[appsv1.StatefulSetRevisionLabel] == be.Status.UpdateRevision && podIsReady(p), nil
	})
	op.stop()
	replaced := podUID(t, c, "gate-restart", "rs-be-2")
	partition := ptr.Deref(be.Spec.UpdateStrategy.RollingUpdate.Partition, -1)
	for range 40 { // 2 s without an operator: nothing moves
		worst = max(worst, f.TabletsBelow(2))
		time.Sleep(50 * time.Millisecond)
	}
	if err := get(ctx, c.Client, "gate-restart", "rs-be", be); err != nil {
		t.Fatal(err)
	}
	if p := ptr.Deref(be.Spec.UpdateStrategy.RollingUpdate.Partition, -1); p != partition || partition != 2 {
		t.Errorf("partition %d at the stop, %d after, want 2 both", partition, p)
	}
	startOperator(t, c, "gate-restart", operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	run := &beRollout{src: src, sim: f, worst: worst}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		run.worst = max(run.worst, f.TabletsBelow(2))
		if err := get(ctx, c.Client, "gate-restart", "rs-be", be); err != nil {
			t.Fatal(err)
		}
		if rolledOut(be) && stsImage(be) == "starrocks/be-ubuntu:3.3.3" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rollout did not finish after the restart: %+v", be.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if run.worst != 0 {
		t.Errorf("%d tablets had fewer than 2 healthy replicas across the restart", run.worst)
	}
	if got := podUID(t, c, "gate-restart", "rs-be-2"); got != replaced {
		t.Error("the restarted operator replaced pod 2 again")
	}
	waitRunning(t, c, "gate-restart", "rs", time.Minute)
}

func starRocksHealthy(t *testing.T, c *testcluster.Cluster, ns, name string) (metav1.Condition, *srv1.StarRocksCluster) {
	t.Helper()
	src := &srv1.StarRocksCluster{}
	if err := get(context.Background(), c.Client, ns, name, src); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionStarRocksHealthy); cond != nil {
		return *cond, src
	}
	return metav1.Condition{}, src
}

// setReady makes a running pod's readiness what the kubelet would report
// when its probe fails or passes again; kwok leaves a running pod's
// conditions alone.
func setReady(t *testing.T, c *testcluster.Cluster, ns, name string, ready bool) {
	t.Helper()
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p := &corev1.Pod{}
	if err := get(context.Background(), c.Client, ns, name, p); err != nil {
		t.Fatal(err)
	}
	for i, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady || cond.Type == corev1.ContainersReady {
			p.Status.Conditions[i].Status, p.Status.Conditions[i].LastTransitionTime = st, metav1.Now()
		}
	}
	if err := c.Client.Status().Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

func testStarRocksHealthy(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	testutil.CreateNamespace(t, c.Client, "gate-health")
	// Outside rollouts FE is read once per sync period: a short one here.
	op := startOperator(t, c, "gate-health", operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery, syncPeriod: 3 * time.Second})
	src := gatedCluster("gate-health", "hl", 1, 3)
	// Heartbeats every 500 ms instead of 5 s: this test is about what the
	// status says once FE has marked hl-be-1 dead, which at the real
	// default takes about 20 s (more than 3 failed heartbeats, sheet §14).
	f := startGated(t, c, dir, src, simstarrocks.Options{CatchUp: 2 * time.Second, HeartbeatInterval: 500 * time.Millisecond}, 10)
	wait := func(what, reason, contains string) {
		t.Helper()
		eventually(t, time.Minute, what, func(context.Context) (bool, error) {
			cond, _ := starRocksHealthy(t, c, "gate-health", "hl")
			return cond.Reason == reason && strings.Contains(cond.Message, contains), nil
		})
	}
	wait("StarRocksHealthy", srv1.ReasonStarRocksHealthy, "")
	// kubectl starrocks reads what the operator wrote: the versions FE
	// reports (nodes.versions) and StarRocks' word, both ways.
	admin, err := c.WriteKubeconfig("plugin-gate-health", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	if l := pluginLine(t, admin, "gate-health", "hl"); l.State != "healthy" || l.Healthy != "yes" || l.FE.String() != "1/1" || l.BE.String() != "3/3" || strings.HasPrefix(l.Version, "?") {
		t.Errorf("kubectl starrocks status of the healthy cluster: %+v", l)
	}
	setReady(t, c, "gate-health", "hl-be-1", false)
	wait("NodesNotAlive for hl-be-1", srv1.ReasonNodesNotAlive, "hl-be-1")
	// FE lists hl-be-1 not Alive and no rollout replaces it: a person
	// must look, though its pod not being Ready makes Progressing True.
	if l := pluginLine(t, admin, "gate-health", "hl"); l.State != "attention" || l.Healthy != "no: NodesNotAlive" || !strings.Contains(l.Doing, "BE hl-be-1 (its pod not Ready)") {
		t.Errorf("kubectl starrocks status with hl-be-1 down: %+v", l)
	}
	cond, got := starRocksHealthy(t, c, "gate-health", "hl")
	if n := got.Status.StarRocksBeStatus.Nodes; cond.Status != metav1.ConditionFalse || n == nil || n.Alive != 2 || n.Total != 3 {
		t.Errorf("StarRocksHealthy %s, BE nodes %+v; want False, 2 of 3 Alive", cond.Status, n)
	}
	setReady(t, c, "gate-health", "hl-be-1", true)
	wait("StarRocksHealthy again", srv1.ReasonStarRocksHealthy, "")

	// Nothing changes: a few sync periods read FE and write nothing. The
	// writes that told the return (status, Event) are done first.
	op.log.waitQuiet(2*time.Second, 20*time.Second)
	mark, reads := op.log.mark(), len(f.StatementsLike("SHOW BACKENDS"))
	time.Sleep(10 * time.Second)
	var writes []request
	for _, r := range op.log.since(mark) {
		if isWrite(r) && !isLease(r) {
			writes = append(writes, r)
		}
	}
	if len(writes) != 0 {
		t.Errorf("%d writes while nothing changed:\n%s", len(writes), summary(writes))
	}
	if n := len(f.StatementsLike("SHOW BACKENDS")) - reads; n < 2 || n > 5 {
		t.Errorf("FE read %d times in 10 s with a 3 s sync period, want about once per period", n)
	}
}

// Issue 34 item 20: FE counts a dead BE's replicas healthy for 900 s and
// lists it Alive for about 20 s (facts sheet §14), so "0 unhealthy tablets"
// says nothing of a BE that just crashed. hl-be-0 crashes (its pod is not
// Ready, its process stops) just before a BE image change; the gate must
// restart no other BE until it is back. Both clusters hold a table whose
// 30 tablets have 2 replicas each: a restart of a BE sharing tablets with
// hl-be-0 leaves some with no readable replica. The BE StatefulSets allow
// 2 pods unavailable (rollingUpdate.maxUnavailable: 2, a user's choice for
// faster rollouts): with 1, the StatefulSet controller of Kubernetes 1.37
// (MaxUnavailableStatefulSet, on by default since) already refuses to
// delete a pod while another is unavailable, and older ones do not. No
// load runs (CatchUp 0): FE then counts every tablet healthy. The control
// is the same cluster with the gate off.
func testDownBEHoldsRollout(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, "gate-down")
	startOperator(t, c, "gate-down", operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	var opts simstarrocks.Options
	gated, ungated := gatedCluster("gate-down", "dn", 1, 3), gatedCluster("gate-down", "dn-off", 1, 3)
	for _, src := range []*srv1.StarRocksCluster{gated, ungated} {
		src.Spec.StarRocksBeSpec.UpdateStrategy = &appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: ptr.To(intstr.FromInt32(2))}}
	}
	ungated.Annotations = map[string]string{srv1.RolloutGateAnnotation: srv1.RolloutGateOff}
	runs := []*beRollout{{src: gated, sim: startGated(t, c, dir, gated, opts, 0)}, {src: ungated, sim: startGated(t, c, dir, ungated, opts, 0)}}
	for _, r := range runs {
		if err := r.sim.CreateTable("db", "t", 2, 30); err != nil {
			t.Fatal(err)
		}
		setReady(t, c, "gate-down", r.src.Name+"-be-0", false)
	}
	// The StatefulSet controller must count be-0 unavailable before the
	// image changes, or the control's rollout may start as if all were up.
	for _, r := range runs {
		waitStatefulSet(t, c, "gate-down", r.src.Name+"-be", r.src.Name+"-be-0 counted not Ready", time.Minute, func(s *appsv1.StatefulSet) bool {
			return s.Status.ReadyReplicas == 2 && s.Status.AvailableReplicas == 2
		})
	}
	for _, r := range runs {
		mutate(t, c.Client, r.src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:3.3.3" })
	}
	// 15 s with hl-be-0 down: within FE's 20 s before it lists it dead.
	lost := map[string]int{} // the most tablets seen with no readable replica
	var held string
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		for _, r := range runs {
			lost[r.src.Name] = max(lost[r.src.Name], r.sim.LostTablets())
		}
		if cond := progressing(t, c, "gate-down", "dn"); cond.Reason == srv1.ReasonRollingOut {
			held = cond.Message
		}
	}
	be := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "gate-down", "dn-be", be); err != nil {
		t.Fatal(err)
	}
	if p := be.Spec.UpdateStrategy.RollingUpdate; p == nil || ptr.Deref(p.Partition, -1) != 3 {
		t.Errorf("with dn-be-0 down the gate let a BE roll: strategy %+v", be.Spec.UpdateStrategy)
	}
	if !strings.Contains(held, "dn-be-0, which is not Ready, to come back") {
		t.Errorf("Progressing said %q, want it to name dn-be-0, which is down", held)
	}
	// hl-be-0 comes back: the gated rollout goes on and finishes.
	for _, r := range runs {
		setReady(t, c, "gate-down", r.src.Name+"-be-0", true)
	}
	for _, r := range runs {
		eventually(t, 3*time.Minute, r.src.Name+" rolled out", func(ctx context.Context) (bool, error) {
			lost[r.src.Name] = max(lost[r.src.Name], r.sim.LostTablets())
			sts := &appsv1.StatefulSet{}
			if err := get(ctx, c.Client, "gate-down", r.src.Name+"-be", sts); err != nil {
				return false, err
			}
			return stsImage(sts) == "starrocks/be-ubuntu:3.3.3" && rolledOut(sts), nil
		})
	}
	t.Logf("dn-be-0 down at the rollout's start, 30 tablets of 2 replicas: at most %d tablets with no readable replica with the gate, %d without it", lost["dn"], lost["dn-off"])
	if lost["dn"] != 0 {
		t.Errorf("with the gate, %d tablets had no readable replica", lost["dn"])
	}
	if lost["dn-off"] == 0 {
		t.Errorf("without the gate no tablet lost its last readable replica: the control case shows nothing")
	}
	recordFault(t, faulttable.Row{Fault: "a BE down when a BE rollout begins",
		Injected:  "3 BEs, 30 tablets × 2 replicas, maxUnavailable 2; dn-be-0 not Ready for 15 s as the image changes",
		Converged: "held at partition 3 naming dn-be-0 while it was down, then rolled out",
		Lost:      fmt.Sprintf("%d tablets with no readable replica", lost["dn"]), Control: fmt.Sprintf("%d (rollout-gate: off)", lost["dn-off"])})
	for _, r := range runs {
		if err := c.Client.Delete(ctx, r.src); err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 34 item 21: a BE that crash-loops (its pod not Ready, FE lists it
// dead) below the rollout's next pod holds every healthy BE, and a
// partition cannot roll it alone: a pod deleted below the partition comes
// back at the old revision. The rollout that may carry its fix must reach
// it first. fx-be-0 is down when the BE image changes; the StatefulSet goes
// OnDelete, fx-be-0 comes back at the new image, then the partition rolls
// fx-be-2 and fx-be-1. 30 tablets of 2 replicas: a healthy BE restarted
// while fx-be-0 is down leaves some with no readable replica.
// FE heartbeats every 500 ms instead of 5 s, so that FE lists fx-be-0
// dead after about 2 s instead of 20 s (sheet §14): the order of events is
// what is tested.
func testDownBEGetsItsFixFirst(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, "gate-fix")
	startOperator(t, c, "gate-fix", operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src := gatedCluster("gate-fix", "fx", 1, 3)
	f := startGated(t, c, dir, src, simstarrocks.Options{HeartbeatInterval: 500 * time.Millisecond}, 0)
	if err := f.CreateTable("db", "t", 2, 30); err != nil {
		t.Fatal(err)
	}
	uids := map[string]string{}
	for _, p := range []string{"fx-be-0", "fx-be-1", "fx-be-2"} {
		uids[p] = podUID(t, c, "gate-fix", p)
	}
	setReady(t, c, "gate-fix", "fx-be-0", false)
	eventually(t, time.Minute, "FE lists fx-be-0 dead", func(context.Context) (bool, error) {
		for _, b := range f.Backends() {
			if strings.HasPrefix(b.Host, "fx-be-0.") {
				return !b.Alive, nil
			}
		}
		return false, nil
	})
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:3.3.3" })
	start := time.Now()
	var lost int
	var order []string            // the pods in the order they came back at the new image
	var restartedWhileDown string // a healthy BE replaced while fx-be-0 was down
	back := map[string]bool{}
	eventually(t, 3*time.Minute, "fx's BE rolled out", func(ctx context.Context) (bool, error) {
		lost = max(lost, f.LostTablets())
		for _, name := range []string{"fx-be-0", "fx-be-1", "fx-be-2"} {
			p := &corev1.Pod{}
			if err := get(ctx, c.Client, "gate-fix", name, p); err != nil {
				if apierrors.IsNotFound(err) {
					if name != "fx-be-0" && !back["fx-be-0"] && restartedWhileDown == "" {
						restartedWhileDown = name
					}
					continue
				}
				return false, err
			}
			replaced := string(p.UID) != uids[name]
			if replaced && name != "fx-be-0" && !back["fx-be-0"] && restartedWhileDown == "" {
				restartedWhileDown = name
			}
			if replaced && !back[name] && podReady(p) && p.Spec.Containers[0].Image == "starrocks/be-ubuntu:3.3.3" {
				back[name] = true
				order = append(order, name)
			}
		}
		sts := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, "gate-fix", "fx-be", sts); err != nil {
			return false, err
		}
		return stsImage(sts) == "starrocks/be-ubuntu:3.3.3" && rolledOut(sts), nil
	})
	took := time.Since(start)
	t.Logf("fx-be-0 down (FE lists it dead) when the BE image changed: pods back at the new image in the order %v, rolled out in %s; at most %d of 30 tablets with no readable replica", order, took.Round(100*time.Millisecond), lost)
	if len(order) == 0 || order[0] != "fx-be-0" {
		t.Errorf("pods back at the new image in the order %v, want fx-be-0, which was down, first", order)
	}
	if restartedWhileDown != "" {
		t.Errorf("%s was replaced while fx-be-0 was still down", restartedWhileDown)
	}
	if lost != 0 {
		t.Errorf("%d tablets had no readable replica", lost)
	}
	recordFault(t, faulttable.Row{Fault: "a BE crash-looping below the rollout's next pod",
		Injected:  "3 BEs, 30 tablets × 2 replicas; fx-be-0 not Ready and listed dead by FE as the BE image changes (the new image is its fix)",
		Converged: fmt.Sprintf("fx-be-0 replaced first (the StatefulSet OnDelete meanwhile), then the others under the partition, in the order %v; rolled out in %s", order, took.Round(100*time.Millisecond)),
		Lost:      fmt.Sprintf("%d tablets", lost), Control: "– (before the fix: held for good, the fix never reached fx-be-0)"})
	if err := c.Client.Delete(ctx, src); err != nil {
		t.Fatal(err)
	}
}

// testWipedBEWaitsForItsReport: a BE restarted on empty storage (an
// emptyDir, a lost disk) is believed by FE to hold every replica it held
// until FE processes its next tablet report (report_tablet_interval_seconds,
// facts sheet §14); Alive and a fresh heartbeat say nothing of its data.
// Issue 34 item 23: the gate waits for lastSuccessReportTabletsTime to move
// on, then sees the missing replicas as unhealthy tablets and holds. The
// report interval is 10 s here instead of 60 s, to keep the test short:
// the order of the events is what it tests. The simulation does not repair
// missing replicas, so the gated rollout stays held after be-2; the test
// ends there.
func testWipedBEWaitsForItsReport(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	opts := simstarrocks.Options{WipeOnRestart: true, TabletReportInterval: 10 * time.Second}
	gated, ungated := gatedCluster("gate", "wp", 1, 3), gatedCluster("gate", "wp-off", 1, 3)
	ungated.Annotations = map[string]string{srv1.RolloutGateAnnotation: srv1.RolloutGateOff}
	runs := []*beRollout{{src: gated, sim: startGated(t, c, dir, gated, opts, 0)}, {src: ungated, sim: startGated(t, c, dir, ungated, opts, 0)}}
	for _, r := range runs {
		if err := r.sim.CreateTable("db", "t", 2, 30); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range runs {
		mutate(t, c.Client, r.src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:3.3.3" })
	}
	// 40 s: be-2's restart, its first report 10 s after, and time for the
	// next BEs to roll if the gate let them.
	lost := map[string]int{}
	for end := time.Now().Add(40 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		for _, r := range runs {
			lost[r.src.Name] = max(lost[r.src.Name], r.sim.LostTablets())
		}
	}
	be := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "gate", "wp-be", be); err != nil {
		t.Fatal(err)
	}
	partition := int32(-1)
	if p := be.Spec.UpdateStrategy.RollingUpdate; p != nil {
		partition = ptr.Deref(p.Partition, -1)
	}
	held := progressing(t, c, "gate", "wp").Message
	t.Logf("30 tablets of 2 replicas, BEs restarted on empty storage: with the gate at most %d tablets lost, partition %d, %q; without it %d lost",
		lost["wp"], partition, held, lost["wp-off"])
	if lost["wp"] != 0 {
		t.Errorf("with the gate, %d tablets lost", lost["wp"])
	}
	if partition != 2 || !strings.Contains(held, "every tablet healthy") {
		t.Errorf("with the gate: partition %d, Progressing %q; want held at 2 once FE counts be-2's missing replicas", partition, held)
	}
	if lost["wp-off"] == 0 {
		t.Errorf("without the gate no tablet was lost: the control case shows nothing")
	}

	// Issue 34 item 26: while the rollout waits on unhealthy tablets, BE's
	// budget lets no BE go: a node drain's eviction of wp-be-0 is refused.
	// Once the rollout is stalled (its timeout is lowered to 5 s here), the
	// usual budget is back, the same eviction goes through, and the
	// tablets whose other replica was on the wiped wp-be-2 are lost: what
	// the refusal kept.
	evict := func(name string) error {
		return c.Client.SubResource("eviction").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "gate", Name: name}},
			&policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: "gate", Name: name}})
	}
	budget := func(maxUnavailable int32) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			pdb := &policyv1.PodDisruptionBudget{}
			if err := get(ctx, c.Client, "gate", gated.BeDisruptionBudgetName(), pdb); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			return pdb.Spec.MaxUnavailable != nil && pdb.Spec.MaxUnavailable.IntValue() == int(maxUnavailable) &&
				pdb.Status.ObservedGeneration == pdb.Generation && (maxUnavailable == 0 || pdb.Status.DisruptionsAllowed > 0), nil
		}
	}
	eventually(t, 30*time.Second, "BE's budget at maxUnavailable 0 while tablets are unhealthy", budget(0))
	if err := evict("wp-be-0"); !apierrors.IsTooManyRequests(err) {
		t.Errorf("evicting wp-be-0 while FE counts unhealthy tablets: %v, want 429 TooManyRequests", err)
	}
	time.Sleep(2 * time.Second)
	if n := gatedRun(runs, "wp").sim.LostTablets(); n != 0 {
		t.Errorf("%d tablets lost after the refused eviction, want 0", n)
	}
	mutate(t, c.Client, gated, func(s *srv1.StarRocksCluster) {
		s.Annotations = map[string]string{srv1.RolloutStallTimeoutAnnotation: "5s"}
	})
	eventually(t, time.Minute, "BE's usual budget back once the rollout is stalled", budget(1))
	if err := evict("wp-be-0"); err != nil {
		t.Fatalf("evicting wp-be-0 with the usual budget: %v", err)
	}
	var drained int
	eventually(t, time.Minute, "wp-be-0's tablets lost", func(context.Context) (bool, error) {
		drained = gatedRun(runs, "wp").sim.LostTablets()
		return drained > 0, nil
	})
	t.Logf("a drain's eviction of wp-be-0 during the held rollout: refused, 0 lost; with the usual budget (rollout stalled), allowed: %d of 30 tablets lost", drained)
	recordFault(t, faulttable.Row{Fault: "a BE restarted on empty storage during a rollout",
		Injected:  "3 BEs, 30 tablets × 2 replicas, every restarted BE loses its data (WipeOnRestart), tablet reports every 10 s; BE image changed",
		Converged: fmt.Sprintf("held at partition %d once FE's tablet report showed wp-be-2's replicas missing (the simulation does not repair them)", partition),
		Lost:      fmt.Sprintf("%d tablets", lost["wp"]), Control: fmt.Sprintf("%d (rollout-gate: off)", lost["wp-off"])})
	recordFault(t, faulttable.Row{Fault: "a node drain during a BE rollout",
		Injected:  "the eviction of wp-be-0 while the rollout above waits for FE to count every tablet healthy",
		Converged: "refused (429): BE's budget is maxUnavailable 0 while tablets are unhealthy; back at 1 once the rollout is stalled",
		Lost:      "0 tablets", Control: fmt.Sprintf("%d (the same eviction with the usual budget)", drained)})
	for _, r := range runs {
		if err := c.Client.Delete(ctx, r.src); err != nil {
			t.Fatal(err)
		}
	}
}

func gatedRun(runs []*beRollout, name string) *beRollout {
	for _, r := range runs {
		if r.src.Name == name {
			return r
		}
	}
	return nil
}
