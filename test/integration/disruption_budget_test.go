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
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// feAndBE is a cluster of frontends FE and backends BE.
func feAndBE(ns, name string, frontends, backends int32) *srv1.StarRocksCluster {
	src := feOnly(ns, name)
	src.Spec.StarRocksFeSpec.Replicas = ptr.To(frontends)
	src.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{
		Image: "starrocks/be-ubuntu:3.3.2", Replicas: ptr.To(backends),
	}}}
	return src
}

// waitBudget waits until the budget called name exists and ok holds for it.
func waitBudget(t *testing.T, c *testcluster.Cluster, ns, name, what string, ok func(*policyv1.PodDisruptionBudget) bool) *policyv1.PodDisruptionBudget {
	t.Helper()
	pdb := &policyv1.PodDisruptionBudget{}
	eventually(t, 30*time.Second, name+": "+what, func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, name, pdb); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return ok(pdb), nil
	})
	return pdb
}

func waitNoBudget(t *testing.T, c *testcluster.Cluster, ns, name, why string) {
	t.Helper()
	eventually(t, 30*time.Second, name+" deleted: "+why, func(ctx context.Context) (bool, error) {
		return apierrors.IsNotFound(get(ctx, c.Client, ns, name, &policyv1.PodDisruptionBudget{})), nil
	})
}

func allows(n string) func(*policyv1.PodDisruptionBudget) bool {
	return func(pdb *policyv1.PodDisruptionBudget) bool {
		return pdb.Spec.MaxUnavailable != nil && pdb.Spec.MaxUnavailable.String() == n
	}
}

// On the API server alone: the budgets follow the replicas the StatefulSets
// keep (a BE scale-in held for FE keeps them), a scale to one and the
// opt-out annotation delete them, one edited by hand is restored, and an
// unchanged budget costs no write.
func testBudgetsFollowTheSpec(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns = "budgets"
	testutil.CreateNamespace(t, c.Client, ns)
	// No FE runs here: its address refuses at once (not a DNS name that may
	// hang), and it is asked every second, so that a held scale-in shows soon.
	refused := func(fe.Target) (string, string) { return "127.0.0.1:1", "http://127.0.0.1:1" }
	op := startOperator(t, c, ns, operatorOptions{fe: refused, feLookEvery: time.Second})
	src := feAndBE(ns, "b1", 3, 3)
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	pdb := waitBudget(t, c, ns, "b1-fe-pdb", "one of 3 FE may go", allows("1"))
	feSts := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, ns, "b1-fe", feSts); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pdb.Spec.Selector, feSts.Spec.Selector) || !metav1.IsControlledBy(pdb, src) ||
		ptr.Deref(pdb.Spec.UnhealthyPodEvictionPolicy, "") != policyv1.AlwaysAllow || pdb.Labels[resources.OwnerLabel] == "" {
		t.Errorf("FE budget %+v: want FE's selector, the cluster as controller, AlwaysAllow and our labels", pdb)
	}
	// No kubelet here: FE is made ready by hand, and BE follows.
	feSts.Status = appsv1.StatefulSetStatus{ObservedGeneration: feSts.Generation, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, UpdatedReplicas: 3, CurrentReplicas: 3}
	if err := c.Client.Status().Update(ctx, feSts); err != nil {
		t.Fatal(err)
	}
	be := waitBudget(t, c, ns, "b1-be-pdb", "one of 3 BE may go", allows("1"))

	op.log.waitQuiet(2*time.Second, 20*time.Second)
	mark := op.log.mark()
	time.Sleep(2 * time.Second)
	for _, r := range op.log.since(mark) {
		if isWrite(r) {
			t.Errorf("a write to an unchanged cluster with budgets: %+v", r)
		}
	}

	// Someone's edit comes back through the budget watch (nothing else is queued now).
	mutate(t, c.Client, be, func(p *policyv1.PodDisruptionBudget) { p.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(3)) })
	waitBudget(t, c, ns, "b1-be-pdb", "restored after someone edited it", allows("1"))
	// No FE answers here: the scale-in keeps 3 BE running, and their budget.
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec.Replicas = ptr.To[int32](1) })
	eventually(t, 30*time.Second, "BE's scale-in held", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "b1", src); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionProgressing)
		return src.Status.ObservedGeneration == src.Generation && cond != nil && cond.Reason == srv1.ReasonFEUnreachable, nil
	})
	waitBudget(t, c, ns, "b1-be-pdb", "kept for the 3 BE that still run", allows("1"))
	annotate(t, c, src, srv1.SkipDecommissionAnnotation, "true")
	waitNoBudget(t, c, ns, "b1-be-pdb", "BE went down to one pod")

	// skip-decommission shrinks BE only: FE, which does not answer here,
	// keeps its 3 pods and its budget (issue 34 item 13).
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksFeSpec.Replicas = ptr.To[int32](2) })
	var held *metav1.Condition
	defer func() {
		if t.Failed() && held != nil {
			t.Logf("Progressing at the end: %s %q", held.Reason, held.Message)
		}
	}()
	eventually(t, 30*time.Second, "FE's scale-in held without FE", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "b1", src); err != nil {
			return false, err
		}
		held = meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionProgressing)
		return src.Status.ObservedGeneration == src.Generation && held != nil && held.Reason == srv1.ReasonFEUnreachable && strings.Contains(held.Message, "FE keeps 3 replicas"), nil
	})
	waitBudget(t, c, ns, "b1-fe-pdb", "kept for the 3 FE that still run", allows("1"))

	// FE's quorum condition, on a cluster of 2 FE and then 5.
	two := feAndBE(ns, "b2", 2, 0)
	two.Spec.StarRocksBeSpec = nil
	if err := c.Client.Create(ctx, two); err != nil {
		t.Fatal(err)
	}
	quorum := func(want metav1.ConditionStatus, reason string) *metav1.Condition {
		t.Helper()
		var cond *metav1.Condition
		eventually(t, 30*time.Second, "FEQuorumUnprotected "+string(want), func(ctx context.Context) (bool, error) {
			if err := get(ctx, c.Client, ns, "b2", two); err != nil {
				return false, err
			}
			cond = meta.FindStatusCondition(two.Status.Conditions, srv1.ConditionFEQuorumUnprotected)
			return two.Status.ObservedGeneration == two.Generation && cond != nil && cond.Status == want && cond.Reason == reason, nil
		})
		return cond
	}
	if cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionFEQuorumUnprotected); cond != nil {
		t.Errorf("3 FE reported %+v", cond)
	}
	if cond := quorum(metav1.ConditionTrue, srv1.ReasonTwoFrontends); !strings.Contains(cond.Message, "b2-fe-pdb") {
		t.Errorf("2 FE: the condition does not name the budget: %q", cond.Message)
	}
	waitBudget(t, c, ns, "b2-fe-pdb", "one of 2 FE may go: a drain is never blocked for ever", allows("1"))
	mutate(t, c.Client, two, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksFeSpec.Replicas = ptr.To[int32](5) })
	waitBudget(t, c, ns, "b2-fe-pdb", "two of 5 FE may go", allows("2"))
	quorum(metav1.ConditionFalse, srv1.ReasonNotTwoFrontends)

	annotate(t, c, two, srv1.ComponentDisruptionBudgetAnnotation(string(resources.ComponentFE)), "false")
	waitNoBudget(t, c, ns, "b2-fe-pdb", "turned off by annotation")
}

// The FE StatefulSet's create is refused (a ResourceQuota that allows none
// stands for a webhook or a quota that says no): FE's budget, whose create
// went beside it, must not be left behind without it. Once the quota goes,
// the StatefulSet and then its budget are made (the control: the budget is
// looked for where it would be).
func testNoBudgetBeforeItsStatefulSet(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns = "budget-first"
	testutil.CreateNamespace(t, c.Client, ns)
	count := corev1.ResourceName("count/statefulsets.apps")
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-statefulsets"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{count: resource.MustParse("0")}}}
	if err := c.Client.Create(ctx, quota); err != nil {
		t.Fatal(err)
	}
	// No quota controller runs here: give the quota the usage it would count.
	quota.Status = corev1.ResourceQuotaStatus{Hard: quota.Spec.Hard, Used: corev1.ResourceList{count: resource.MustParse("0")}}
	if err := c.Client.Status().Update(ctx, quota); err != nil {
		t.Fatal(err)
	}
	op := startOperator(t, c, ns, operatorOptions{})
	src := feOnly(ns, "bf")
	src.Spec.StarRocksFeSpec.Replicas = ptr.To[int32](3)
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the refused StatefulSet reported", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "bf", src); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError)
		return cond != nil && cond.Status == metav1.ConditionTrue && strings.Contains(cond.Message, "bf-fe"), nil
	})
	op.log.waitQuiet(2*time.Second, 20*time.Second)
	if err := get(ctx, c.Client, ns, "bf-fe-pdb", &policyv1.PodDisruptionBudget{}); !apierrors.IsNotFound(err) {
		t.Errorf("FE's budget without its StatefulSet: %v, want NotFound", err)
	}
	if err := c.Client.Delete(ctx, quota); err != nil {
		t.Fatal(err)
	}
	waitBudget(t, c, ns, "bf-fe-pdb", "made once its StatefulSet is", allows("1"))
	if err := get(ctx, c.Client, ns, "bf-fe", &appsv1.StatefulSet{}); err != nil {
		t.Errorf("FE's budget is there, its StatefulSet not: %v", err)
	}
}

func annotate(t *testing.T, c *testcluster.Cluster, src *srv1.StarRocksCluster, key, value string) {
	t.Helper()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[key] = value
	})
}

// On the simulated cluster, with the disruption controller and the real
// eviction API: draining the node evicts one BE and one FE, then refuses a
// second of each while the first is not back, and lets it go once it is;
// with the budgets turned off, it takes two BE at once. The node is
// cordoned first, as kubectl drain does: the evicted pods' replacements
// stay Pending until it is uncordoned.
func testDrainHonoursBudgets(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns = "drain"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{})
	src := feAndBE(ns, "d", 3, 3)
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, ns, "d", 2*time.Minute)
	computed := func(p *policyv1.PodDisruptionBudget) bool {
		st := p.Status
		return st.ObservedGeneration == p.Generation && st.ExpectedPods == 3 && st.CurrentHealthy == 3 && st.DisruptionsAllowed == 1
	}
	waitBudget(t, c, ns, "d-fe-pdb", "computed: 3 healthy, 1 disruption allowed", computed)
	waitBudget(t, c, ns, "d-be-pdb", "computed: 3 healthy, 1 disruption allowed", computed)

	var pod corev1.Pod
	if err := get(ctx, c.Client, ns, "d-be-0", &pod); err != nil {
		t.Fatal(err)
	}
	node := &corev1.Node{}
	if err := get(ctx, c.Client, "", pod.Spec.NodeName, node); err != nil {
		t.Fatal(err)
	}
	cordon := func(on bool) {
		t.Helper()
		mutate(t, c.Client, node, func(n *corev1.Node) { n.Spec.Unschedulable = on })
	}
	cordon(true)
	t.Cleanup(func() { cordon(false) })

	evict := func(name string) error {
		return c.Client.SubResource("eviction").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
			&policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
	}
	for _, sts := range []string{"d-be", "d-fe"} {
		if err := evict(sts + "-0"); err != nil {
			t.Fatalf("evicting %s-0, the first of 3: %v", sts, err)
		}
		err := evict(sts + "-1")
		if !apierrors.IsTooManyRequests(err) {
			t.Errorf("evicting %s-1 while %s-0 is away: %v, want 429 TooManyRequests", sts, sts, err)
		}
		if err := get(ctx, c.Client, ns, sts+"-0", &pod); err == nil && podReady(&pod) {
			t.Errorf("%s-0 is back and Ready already: the refusal proves nothing", sts)
		}
		t.Logf("%s: first eviction allowed, second refused (%v)", sts, err)
	}

	cordon(false)
	waitBudget(t, c, ns, "d-be-pdb", "3 BE healthy again once the node takes pods", computed)
	if err := evict("d-be-1"); err != nil {
		t.Errorf("evicting d-be-1 once d-be-0 is back: %v", err)
	}
	waitRunning(t, c, ns, "d", time.Minute)

	// The control: without budgets, the same drain takes two BE at once.
	annotate(t, c, src, srv1.DisruptionBudgetAnnotation, "false")
	waitNoBudget(t, c, ns, "d-be-pdb", "turned off by annotation")
	waitNoBudget(t, c, ns, "d-fe-pdb", "turned off by annotation")
	cordon(true)
	for _, name := range []string{"d-be-0", "d-be-1"} {
		if err := evict(name); err != nil {
			t.Errorf("evicting %s without budgets: %v", name, err)
		}
	}
	cordon(false)
	waitRunning(t, c, ns, "d", time.Minute)
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil
		}
	}
	return false
}
