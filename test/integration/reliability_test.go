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
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// Defects a production user would hit, each shown on a real API server.
func TestReliabilityOnAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	// The longest tests, each on a control plane of its own, mostly
	// waiting on StarRocks' clocks: integrationParallel at a time, after
	// the others (suite_test.go).
	t.Parallel()
	c := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: crdPaths(t)})
	t.Run("a denied namespace is never written, not even on owned-object events", func(t *testing.T) { testDeniedNamespace(t, c) })
	t.Run("a persistent API error costs only the back-off retries of the failing request", func(t *testing.T) { testPersistentError(t, c) })
	t.Run("drift apply cannot undo is tried once, then reported", func(t *testing.T) { testUnrestorableDrift(t, c) })
}

func testDeniedNamespace(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, "denied")
	src := feOnly("denied", "den")
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	// An owned object exists before the operator starts: its create event
	// reaches the owner's queue at start-up, as after any operator restart.
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "denied", Name: src.FeStatefulSetName(),
			Labels:          map[string]string{resources.OwnerLabel: src.FeStatefulSetName(), resources.ClusterLabel: src.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: srv1.GroupVersion.String(), Kind: "StarRocksCluster", Name: src.Name, UID: src.UID, Controller: ptr.To(true)}}},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "fe", Image: "old"}}}},
		},
	}
	if err := c.Client.Create(ctx, sts); err != nil {
		t.Fatal(err)
	}
	op := startOperator(t, c, "", operatorOptions{denyList: []string{"denied"}})
	op.log.waitQuiet(2*time.Second, 20*time.Second)
	// A change of the owned object, as a StatefulSet's status changes all the time.
	mutate(t, c.Client, sts, func(s *appsv1.StatefulSet) { s.Labels["touched"] = "yes" })
	op.log.waitQuiet(2*time.Second, 20*time.Second)
	for _, r := range op.log.since(0) {
		if isWrite(r) && strings.Contains(r.path, "/namespaces/denied/") {
			t.Errorf("wrote to a denied namespace: %s %s (%s)", r.verb, r.resource, r.path)
		}
	}
}

// A ResourceQuota that allows no Service stands for a full service CIDR, a
// quota or a webhook that says no: the FE Services of 20 clusters fail, and
// keep failing.
func testPersistentError(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns, clusters = "noservices", 20
	testutil.CreateNamespace(t, c.Client, ns)
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-services"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceServices: resource.MustParse("0")}}}
	if err := c.Client.Create(ctx, quota); err != nil {
		t.Fatal(err)
	}
	// No quota controller runs here: give the quota the usage it would count.
	quota.Status = corev1.ResourceQuotaStatus{Hard: quota.Spec.Hard, Used: corev1.ResourceList{corev1.ResourceServices: resource.MustParse("0")}}
	if err := c.Client.Status().Update(ctx, quota); err != nil {
		t.Fatal(err)
	}
	op := startOperator(t, c, ns, operatorOptions{workers: 4})
	for i := range clusters {
		if err := c.Client.Create(ctx, feOnly(ns, fmt.Sprintf("q%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 60*time.Second, "every cluster reports the failing apply", func(ctx context.Context) (bool, error) {
		var list srv1.StarRocksClusterList
		if err := c.Client.List(ctx, &list); err != nil {
			return false, err
		}
		n := 0
		for _, src := range list.Items {
			if cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError); src.Namespace == ns && cond != nil &&
				cond.Status == metav1.ConditionTrue && cond.Reason == srv1.ReasonApplyFailed {
				n++
			}
		}
		return n == clusters, nil
	})
	time.Sleep(2 * time.Second) // let the first round of retries pass
	start := op.log.mark()
	time.Sleep(60 * time.Second)
	reqs := op.log.since(start)
	t.Logf("requests in 60 s of a persistent error on %d clusters:\n%s", clusters, summary(reqs))
	var statusWrites, events, serviceApplies, other int
	for _, r := range reqs {
		switch {
		case !isWrite(r) || isLease(r):
		case r.resource == "starrocksclusters/status":
			statusWrites++
		case isEvent(r):
			events++
		case r.resource == "services":
			serviceApplies++
		default:
			other++
		}
	}
	if statusWrites != 0 {
		t.Errorf("%d status writes while nothing changed, want 0", statusWrites)
	}
	if events > clusters {
		t.Errorf("%d Events, want at most one per cluster (%d)", events, clusters)
	}
	if other != 0 {
		t.Errorf("%d writes other than the failing Service applies, want 0", other)
	}
	// Back-off doubles from 5 ms: in 60 s a cluster is retried at most about 14 times, 2 Services each.
	if limit := clusters * 14 * 2; serviceApplies > limit {
		t.Errorf("%d Service applies, want at most %d (the back-off's retries)", serviceApplies, limit)
	}
}

// kubectl set env adds an entry to a list the operator's apply does not own
// alone: apply cannot remove it. Re-applying on every resync would send the
// same no-op patch, and an Event claiming a restore, forever.
func testUnrestorableDrift(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, "setenv")
	op := startOperator(t, c, "setenv", operatorOptions{syncPeriod: 500 * time.Millisecond})
	src := feOnly("setenv", "se")
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 30*time.Second, "FE StatefulSet", func(ctx context.Context) (bool, error) {
		return get(ctx, c.Client, "setenv", "se-fe", sts) == nil, nil
	})
	op.log.waitQuiet(time.Second, 10*time.Second)
	sts.Spec.Template.Spec.Containers[0].Env = append(sts.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: "EXTRA", Value: "1"})
	if err := c.Client.Update(ctx, sts, client.FieldOwner("kubectl-set")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the unrestorable drift reported", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, "setenv", "se", src); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionDegraded)
		return cond != nil && cond.Reason == srv1.ReasonDriftNotRestored && strings.Contains(cond.Message, "StatefulSet se-fe"), nil
	})
	op.log.waitQuiet(2*time.Second, 20*time.Second) // the Event that told the drift sent
	start := op.log.mark()
	time.Sleep(5 * time.Second) // ten resyncs
	var patches int
	for _, r := range op.log.since(start) {
		if isWrite(r) && !isLease(r) {
			patches++
			t.Errorf("wrote %s %s (%s) while nothing changed", r.verb, r.resource, r.path)
		}
	}
	t.Logf("%d writes in 5 s of resyncs after an unrestorable drift", patches)
}
