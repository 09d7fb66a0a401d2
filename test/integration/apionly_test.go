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
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// On the API-only control plane (no kubelet, no controllers): what the
// operator writes, and that it writes nothing it need not.
func TestOnAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	// The longest tests, each on a control plane of its own, mostly
	// waiting on StarRocks' clocks: integrationParallel at a time, after
	// the others (suite_test.go).
	t.Parallel()
	c := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: crdPaths(t)})
	t.Run("a new FE-only cluster costs at most 4 writes and a resync none", func(t *testing.T) { testQuiet(t, c, "quiet", 1) })
	t.Run("with several workers too, its FE StatefulSet created first", func(t *testing.T) { testQuiet(t, c, "quiet4", 4) })
	t.Run("drift on the FE StatefulSet and Service is corrected", func(t *testing.T) { testDrift(t, c) })
	t.Run("a missing ConfigMap is reported without blocking other clusters", func(t *testing.T) { testInvalidSpec(t, c) })
	t.Run("removed BE spec deletes BE objects only with consent", func(t *testing.T) { testRemovedComponent(t, c) })
	t.Run("fields another manager wrote with Update are taken over and removed", func(t *testing.T) { testAdoption(t, c) })
	t.Run("a copy at the resourceVersion of our own write is not compared again", func(t *testing.T) { testOwnWriteTrusted(t, c) })
	t.Run("a field removed from the spec leaves an object the operator created", func(t *testing.T) { testCreatedThenApplied(t, c) })
	t.Run("immutable fields of a live StatefulSet are kept when only worded otherwise, reported when changed", func(t *testing.T) { testImmutable(t, c) })
	t.Run("a name taken by someone else's object is reported and backed off; one of ours out of the cache's sight is taken back", func(t *testing.T) { testNameTaken(t, c) })
	t.Run("disruption budgets follow the replicas and the opt-out annotation", func(t *testing.T) { testBudgetsFollowTheSpec(t, c) })
	t.Run("a budget is never written before its StatefulSet", func(t *testing.T) { testNoBudgetBeforeItsStatefulSet(t, c) })
	t.Run("a claim growth makes the StatefulSet again as it ran, once the old one is gone", func(t *testing.T) { testClaimsGrowWhileTheOldStatefulSetGoes(t, c) })
	t.Run("a grace period that cuts FE's graceful exit short is told until taken back", func(t *testing.T) { testGracefulExitCutShort(t, c) })
	t.Run("creates go as protobuf and store what a JSON create stored: an upgraded operator rewrites nothing", func(t *testing.T) { testProtobufCreates(t, c) })
}

// The operator's cache sees only objects with its owner label. A child it
// cannot see made the create fail with AlreadyExists, and the reconcile
// looked again every 5 s, forever, with no condition.
func testNameTaken(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns = "taken"
	testutil.CreateNamespace(t, c.Client, ns)
	op := startOperator(t, c, ns, operatorOptions{})
	// Someone else's Service holds the name of t1's client Service.
	foreign := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "t1-fe-service"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	if err := c.Client.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	taken := feOnly(ns, "t1")
	if err := c.Client.Create(ctx, taken); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "AlreadyExists reported, naming the Service", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "t1", taken); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(taken.Status.Conditions, srv1.ConditionReconcileError)
		return cond != nil && cond.Status == metav1.ConditionTrue && cond.Reason == srv1.ReasonAlreadyExists &&
			strings.Contains(cond.Message, "t1-fe-service"), nil
	})
	mark := op.log.mark()
	time.Sleep(6 * time.Second)
	creates := 0
	for _, r := range op.log.since(mark) {
		if r.verb == "create" && r.resource == "services" {
			creates++
		}
	}
	// Looked at again at 1 s, doubling: at most 3 tries in 6 s (the loop made one every 5 s with no report, or more).
	if creates > 3 {
		t.Errorf("%d Service creates in 6 s while the name is taken; want a back-off", creates)
	}
	if err := get(ctx, c.Client, ns, "t1-fe", &appsv1.StatefulSet{}); err != nil {
		t.Errorf("t1's FE StatefulSet was not written beside the taken name: %v", err)
	}
	if err := get(ctx, c.Client, ns, "t1-fe-service", foreign); err != nil || len(foreign.OwnerReferences) != 0 || foreign.Spec.Ports[0].Port != 80 {
		t.Errorf("someone else's Service was taken over: %+v (%v)", foreign, err)
	}
	// Its owner deletes it: the next look makes ours.
	if err := c.Client.Delete(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "t1's client Service made once the name is free", func(ctx context.Context) (bool, error) {
		svc := &corev1.Service{}
		if err := get(ctx, c.Client, ns, "t1-fe-service", svc); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return metav1.IsControlledBy(svc, taken), nil
	})

	// One of ours whose owner label someone removed leaves the cache's sight.
	mine := &corev1.Service{}
	if err := get(ctx, c.Client, ns, "t1-fe-search", mine); err != nil {
		t.Fatal(err)
	}
	mutate(t, c.Client, mine, func(s *corev1.Service) { delete(s.Labels, resources.OwnerLabel) })
	eventually(t, 30*time.Second, "the owner label back on t1-fe-search", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "t1-fe-search", mine); err != nil {
			return false, err
		}
		return mine.Labels[resources.OwnerLabel] != "", nil
	})
}

// A StatefulSet another operator made may word immutable fields otherwise
// (its serviceName) or hold another value (podManagementPolicy). The
// controller's one gate (checkImmutable) keeps the first and writes the
// rest, and holds the second, reported, without fighting the API server.
func testImmutable(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns = "immutable"
	testutil.CreateNamespace(t, c.Client, ns)
	legacy := func(src *srv1.StarRocksCluster, change func(*appsv1.StatefulSet)) {
		sts := resources.Build(src, resources.Configs{}).StatefulSet(resources.ComponentFE)
		sts.Spec.ServiceName, sts.OwnerReferences = "legacy-search", nil // made before the cluster: no owner yet
		change(sts)
		if err := c.Client.Create(ctx, sts, client.FieldOwner(reconcile.UpstreamFieldManager)); err != nil {
			t.Fatal(err)
		}
	}
	reworded, changed := feOnly(ns, "i1"), feOnly(ns, "i2")
	legacy(reworded, func(sts *appsv1.StatefulSet) { sts.Spec.Template.Annotations = map[string]string{"legacy": "yes"} })
	legacy(changed, func(sts *appsv1.StatefulSet) { sts.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement })
	op := startOperator(t, c, ns, operatorOptions{})
	for _, src := range []*srv1.StarRocksCluster{reworded, changed} {
		if err := c.Client.Create(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 30*time.Second, "i1's FE StatefulSet written, with its live serviceName", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "i1-fe", sts); err != nil {
			return false, err
		}
		return sts.Spec.Template.Annotations["legacy"] == "" && sts.Spec.ServiceName == "legacy-search", nil
	})
	eventually(t, 30*time.Second, "i2's podManagementPolicy change reported", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "i2", changed); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(changed.Status.Conditions, srv1.ConditionReconcileError)
		return cond != nil && cond.Status == metav1.ConditionTrue && cond.Reason == srv1.ReasonImmutableFieldChanged &&
			strings.Contains(cond.Message, "podManagementPolicy"), nil
	})
	if err := get(ctx, c.Client, ns, "i2-fe", sts); err != nil || sts.Spec.PodManagementPolicy != appsv1.OrderedReadyPodManagement || sts.Spec.ServiceName != "legacy-search" {
		t.Errorf("i2's StatefulSet was changed: policy %q, serviceName %q (%v)", sts.Spec.PodManagementPolicy, sts.Spec.ServiceName, err)
	}
	if err := get(ctx, c.Client, ns, changed.FeServiceName(), &corev1.Service{}); err != nil {
		t.Errorf("i2's other objects were not written beside the held StatefulSet: %v", err)
	}
	// Held, not fought: once reported, nothing more is written.
	op.log.waitQuiet(2*time.Second, 20*time.Second)
	mark := op.log.mark()
	time.Sleep(3 * time.Second)
	for _, r := range op.log.since(mark) {
		if isWrite(r) {
			t.Errorf("a write while the change is held: %+v", r)
		}
	}
}

// The operator makes a missing object with a plain create, cheaper for the
// API server than an apply, so its fields first belong to an Update entry of
// our manager. Apply must take them over before its first write: a field
// then removed from the spec must disappear, not stay owned by that entry.
func testCreatedThenApplied(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns = "created"
	testutil.CreateNamespace(t, c.Client, ns)
	op := startOperator(t, c, ns, operatorOptions{})
	src := feOnly(ns, "c1")
	src.Spec.StarRocksFeSpec.FeEnvVars = []corev1.EnvVar{{Name: "KEEP", Value: "1"}, {Name: "DROP", Value: "2"}}
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 30*time.Second, "FE StatefulSet", func(ctx context.Context) (bool, error) {
		return get(ctx, c.Client, ns, "c1-fe", sts) == nil, nil
	})
	if !ownedBy(sts, reconcile.FieldOwner, metav1.ManagedFieldsOperationUpdate) {
		t.Errorf("the FE StatefulSet was not made by a plain create; managers: %s", managers(sts))
	}
	op.log.waitQuiet(2*time.Second, 20*time.Second)
	mark := op.log.mark()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksFeSpec.FeEnvVars = s.Spec.StarRocksFeSpec.FeEnvVars[:1]
	})
	eventually(t, 30*time.Second, "DROP removed from the FE container", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "c1-fe", sts); err != nil {
			return false, err
		}
		for _, e := range sts.Spec.Template.Spec.Containers[0].Env {
			if e.Name == "DROP" {
				return false, nil
			}
		}
		return true, nil
	})
	if ownedBy(sts, reconcile.FieldOwner, metav1.ManagedFieldsOperationUpdate) || !ownedBy(sts, reconcile.FieldOwner, metav1.ManagedFieldsOperationApply) {
		t.Errorf("after the first apply our fields should belong to the Apply entry only; managers: %s", managers(sts))
	}
	op.log.waitQuiet(2*time.Second, 20*time.Second)
	var stsWrites int
	for _, r := range op.log.since(mark) {
		if isWrite(r) && r.resource == "statefulsets" {
			stsWrites++
		}
	}
	// One hand-over patch (csaupgrade) and one apply; nothing after.
	if stsWrites > 2 {
		t.Errorf("the spec change cost %d StatefulSet writes, want at most 2:\n%s", stsWrites, summary(op.log.since(mark)))
	}
}

func ownedBy(o client.Object, manager string, op metav1.ManagedFieldsOperationType) bool {
	for _, f := range o.GetManagedFields() {
		if f.Manager == manager && f.Operation == op && f.Subresource == "" {
			return true
		}
	}
	return false
}

func managers(o client.Object) string {
	var out []string
	for _, f := range o.GetManagedFields() {
		out = append(out, f.Manager+"/"+string(f.Operation)+"/"+f.Subresource)
	}
	return strings.Join(out, ", ")
}

// A single new cluster costs the same writes and one Event with any number
// of workers. With more than one, workers are to spare, so its first
// reconcile writes every FE object at once: the Services go once the
// StatefulSet's create is on the wire, never ahead of it.
func testQuiet(t *testing.T, c *testcluster.Cluster, ns string, workers int) {
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, ns)
	op := startOperator(t, c, ns, operatorOptions{workers: workers})
	op.log.waitQuiet(2*time.Second, 20*time.Second) // caches synced, nothing to do
	start := op.log.mark()
	src := feOnly(ns, "q1")
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "FE StatefulSet and status", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "q1", src); err != nil {
			return false, err
		}
		return src.Status.Phase != "" && get(ctx, c.Client, ns, "q1-fe", &appsv1.StatefulSet{}) == nil, nil
	})
	op.log.waitQuiet(7*time.Second, 30*time.Second)
	reqs := op.log.since(start)
	var writes, events, conflicts, leases int
	for _, r := range reqs {
		switch {
		case r.code == 409:
			conflicts++
		case isEvent(r) && isWrite(r):
			events++
		case isLease(r):
			leases++
		case isWrite(r):
			writes++
		}
	}
	t.Logf("requests for one new FE-only cluster:\n%s", summary(reqs))
	if writes > 4 || events > 1 || conflicts > 0 {
		t.Errorf("new cluster cost %d writes (want ≤ 4), %d events (want ≤ 1), %d conflicts (want 0)", writes, events, conflicts)
	}
	if src.Status.ObservedGeneration != src.Generation || meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReady) == nil {
		t.Errorf("status lacks observedGeneration or conditions: %+v", src.Status)
	}
	// Only the order is asserted: whether a Service is sent before the
	// StatefulSet's answer comes depends on the machine's load (the
	// benchmark measures that).
	if ahead, inItsTrip := servicesAroundStatefulSet(reqs); ahead > 0 {
		t.Errorf("with %d workers, %d Service creates started before the FE StatefulSet's (%d while it was in flight); none may go ahead of it", workers, ahead, inItsTrip)
	}
	if workers > 1 {
		return // the restart below is the same with any number of workers
	}

	// A restart and 20 resyncs of an unchanged cluster: no writes, no uncached reads.
	op.stop()
	op = startOperator(t, c, ns, operatorOptions{syncPeriod: 300 * time.Millisecond})
	eventually(t, 30*time.Second, "first reconcile after restart", func(context.Context) (bool, error) {
		return op.log.mark() > 0 && reconciles() > 0, nil
	})
	op.log.waitQuiet(2*time.Second, 20*time.Second) // the start's lists and watches sent
	start, before := op.log.mark(), reconciles()
	eventually(t, 60*time.Second, "20 resync reconciles", func(context.Context) (bool, error) { return reconciles()-before >= 20, nil })
	reqs = op.log.since(start)
	t.Logf("requests during %v resync reconciles:\n%s", reconciles()-before, summary(reqs))
	for _, r := range reqs {
		if r.verb != "watch" && !isLease(r) {
			t.Errorf("resync of an unchanged cluster sent %s %s (%s)", r.verb, r.resource, r.path)
		}
	}
	startAll := 0
	for _, r := range op.log.since(startAll) {
		if isWrite(r) && !isLease(r) {
			t.Errorf("restarted operator wrote %s %s (%s) to an unchanged cluster", r.verb, r.resource, r.path)
		}
	}
}

func testDrift(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, "drift")
	startOperator(t, c, "drift", operatorOptions{})
	src := feOnly("drift", "d1")
	src.Spec.StarRocksFeSpec.Replicas = ptr.To[int32](3)
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 30*time.Second, "FE StatefulSet", func(ctx context.Context) (bool, error) {
		return get(ctx, c.Client, "drift", "d1-fe", sts) == nil, nil
	})
	mutate(t, c.Client, sts, func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](5) })
	eventually(t, 10*time.Second, "FE replicas restored to 3", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, "drift", "d1-fe", sts); err != nil {
			return false, err
		}
		return *sts.Spec.Replicas == 3, nil
	})

	svc := &corev1.Service{}
	if err := get(ctx, c.Client, "drift", "d1-fe-service", svc); err != nil {
		t.Fatal(err)
	}
	oldUID := svc.UID
	if err := c.Client.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "FE Service recreated", func(ctx context.Context) (bool, error) {
		err := get(ctx, c.Client, "drift", "d1-fe-service", svc)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && svc.UID != oldUID, err
	})
}

func testInvalidSpec(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, "invalid")
	startOperator(t, c, "invalid", operatorOptions{})
	bad := feOnly("invalid", "bad")
	bad.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "missing-fe-conf", ResolveKey: "fe.conf"}
	good := feOnly("invalid", "good")
	for _, o := range []client.Object{bad, good} {
		if err := c.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 30*time.Second, "ReconcileError on the bad cluster", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, "invalid", "bad", bad); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(bad.Status.Conditions, srv1.ConditionReconcileError)
		return cond != nil && cond.Status == metav1.ConditionTrue, nil
	})
	cond := meta.FindStatusCondition(bad.Status.Conditions, srv1.ConditionReconcileError)
	if cond.Reason != "ConfigMapNotFound" || !strings.Contains(cond.Message, `ConfigMap "missing-fe-conf" not found`) {
		t.Errorf("ReconcileError = %s: %q, want ConfigMapNotFound naming the ConfigMap", cond.Reason, cond.Message)
	}
	if bad.Status.Phase != srv1.PhaseFailed {
		t.Errorf("phase = %q, want failed", bad.Status.Phase)
	}
	eventually(t, 30*time.Second, "the good cluster's FE StatefulSet", func(ctx context.Context) (bool, error) {
		return get(ctx, c.Client, "invalid", "good-fe", &appsv1.StatefulSet{}) == nil, nil
	})
	time.Sleep(2 * time.Second) // let any repeated reconcile of the bad cluster happen
	var evs eventsv1.EventList
	if err := c.Client.List(ctx, &evs, client.InNamespace("invalid")); err != nil {
		t.Fatal(err)
	}
	warnings := map[string]int{}
	for _, e := range evs.Items {
		if e.Regarding.Name == "bad" && e.Type == corev1.EventTypeWarning {
			warnings[e.Reason]++
			if !strings.Contains(e.Note, "missing-fe-conf") {
				t.Errorf("warning event %q does not name the ConfigMap", e.Note)
			}
		}
	}
	// Ours once, and the upstream's reason beside it for alerts written for the upstream.
	if len(warnings) != 2 || warnings[srv1.ReasonConfigMapNotFound] != 1 || warnings["SyncFeFailed"] != 1 {
		t.Errorf("warning events for the bad cluster by reason %v, want one ConfigMapNotFound and one SyncFeFailed", warnings)
	}
	if err := get(ctx, c.Client, "invalid", "bad-fe", &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
		t.Errorf("bad cluster got an FE StatefulSet (err %v)", err)
	}

	// The fix arrives: the ConfigMap watch brings the cluster back.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "invalid", Name: "missing-fe-conf"}, Data: map[string]string{"fe.conf": "http_port = 8031\n"}}
	if err := c.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 30*time.Second, "FE StatefulSet once the ConfigMap exists", func(ctx context.Context) (bool, error) {
		return get(ctx, c.Client, "invalid", "bad-fe", sts) == nil, nil
	})
	eventually(t, 30*time.Second, "ReconcileError cleared", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, "invalid", "bad", bad); err != nil {
			return false, err
		}
		return meta.IsStatusConditionFalse(bad.Status.Conditions, srv1.ConditionReconcileError), nil
	})
	if !hasPort(sts, 8031) {
		t.Errorf("FE container ports %v lack http_port 8031 from fe.conf", sts.Spec.Template.Spec.Containers[0].Ports)
	}
}

func hasPort(sts *appsv1.StatefulSet, port int32) bool {
	for _, p := range sts.Spec.Template.Spec.Containers[0].Ports {
		if p.ContainerPort == port {
			return true
		}
	}
	return false
}

// On the API-only plane FE never becomes ready, so a BE is created by making
// the FE StatefulSet's status say so, as kube-controller-manager would.
func testRemovedComponent(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, "removed")
	startOperator(t, c, "removed", operatorOptions{})
	src := feOnly("removed", "r1")
	src.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/be-ubuntu:3.3.2"}}}
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	fe := &appsv1.StatefulSet{}
	eventually(t, 30*time.Second, "FE StatefulSet", func(ctx context.Context) (bool, error) {
		return get(ctx, c.Client, "removed", "r1-fe", fe) == nil, nil
	})
	if err := get(ctx, c.Client, "removed", "r1-be", &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
		t.Fatalf("BE created before FE was ready (err %v)", err)
	}
	fe.Status = appsv1.StatefulSetStatus{ObservedGeneration: fe.Generation, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 1, CurrentReplicas: 1}
	if err := c.Client.Status().Update(ctx, fe); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "BE objects once FE is ready", func(ctx context.Context) (bool, error) {
		return get(ctx, c.Client, "removed", "r1-be", &appsv1.StatefulSet{}) == nil &&
			get(ctx, c.Client, "removed", "r1-be-service", &corev1.Service{}) == nil &&
			get(ctx, c.Client, "removed", "r1-be-search", &corev1.Service{}) == nil, nil
	})
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec = nil })
	// BE holds data: without consent it stays, and the status says so.
	eventually(t, 30*time.Second, "the held removal reported", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, "removed", "r1", src); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionProgressing)
		return src.Status.ObservedGeneration == src.Generation && cond != nil && cond.Reason == srv1.ReasonRemovalHeld, nil
	})
	for _, name := range []string{"r1-be", "r1-be-service", "r1-be-search"} {
		var obj client.Object = &corev1.Service{}
		if name == "r1-be" {
			obj = &appsv1.StatefulSet{}
		}
		if err := get(ctx, c.Client, "removed", name, obj); err != nil || obj.GetDeletionTimestamp() != nil {
			t.Fatalf("%s deleted without consent (err %v)", name, err)
		}
	}
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Annotations = map[string]string{srv1.DeleteRemovedComponentsAnnotation: "true"}
	})
	eventually(t, 30*time.Second, "BE objects deleted", func(ctx context.Context) (bool, error) {
		for _, o := range []struct {
			name string
			obj  client.Object
		}{{"r1-be", &appsv1.StatefulSet{}}, {"r1-be-service", &corev1.Service{}}, {"r1-be-search", &corev1.Service{}}} {
			if err := get(ctx, c.Client, "removed", o.name, o.obj); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
	if err := get(ctx, c.Client, "removed", "r1-fe", &appsv1.StatefulSet{}); err != nil {
		t.Errorf("FE StatefulSet gone with BE: %v", err)
	}
}

// servicesAroundStatefulSet counts the Service creates sent before the
// first StatefulSet create was sent, and those sent while it was in flight.
func servicesAroundStatefulSet(reqs []request) (ahead, inItsTrip int) {
	var sts request
	for _, r := range reqs {
		if r.verb == "create" && r.resource == "statefulsets" && (sts.start.IsZero() || r.start.Before(sts.start)) {
			sts = r
		}
	}
	if sts.start.IsZero() {
		return 0, 0
	}
	for _, r := range reqs {
		switch {
		case r.verb != "create" || r.resource != "services":
		case r.start.Before(sts.start):
			ahead++
		case r.start.Before(sts.end):
			inItsTrip++
		}
	}
	return ahead, inItsTrip
}
