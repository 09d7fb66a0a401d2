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
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	warehousectl "github.com/srscale/starrocks-operator/internal/controller/warehouse"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// What a warehouse's status, deletion and name must get right, on a
// simulated cluster (pods become Ready) whose FE is a simulated StarRocks
// with multiple warehouses.
func TestWarehouseCorrectness(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	c, dir := simulatedWithStarRocks(t)
	testutil.CreateNamespace(t, c.Client, "whc")
	startOperator(t, c, "whc", operatorOptions{workers: 4, fe: dir.resolve})
	f := startFE(t, dir, "whc", "cc", simstarrocks.Options{SharedData: true, MultiWarehouse: true})
	sharedDataCluster(t, c, "whc", "cc", feConfShared, nil, passwordOnFE)

	t.Run("Ready is never claimed for a warehouse spec its StatefulSet does not carry yet", func(t *testing.T) {
		testWarehouseReadyOnlyWhenApplied(t, c)
	})
	t.Run("a failed check keeps the selector, replicas and pods of the compute nodes that run", func(t *testing.T) {
		testWarehouseFailedCheckKeepsCN(t, c)
	})
	t.Run("an ignored warehouse is deleted, without DROP WAREHOUSE", func(t *testing.T) {
		testIgnoredWarehouseDeleted(t, c, f)
	})
	t.Run("a warehouse whose namespace was denied since is finalized on deletion", func(t *testing.T) {
		testDeniedWarehouseFinalized(t, c, dir)
	})
	t.Run("the CRD refuses a warehouse name Kubernetes cannot make the objects of", func(t *testing.T) {
		testWarehouseNameRules(t, c)
	})
	t.Run("a warehouse whose objects' names a cluster takes is refused, whichever came first, and its deletion leaves the cluster's", func(t *testing.T) {
		testWarehouseNamesTaken(t, c)
	})
}

// whc is a running warehouse of cluster cc in namespace whc, without autoscaling.
func whc(t *testing.T, c *testcluster.Cluster, name string) *srv1.StarRocksWarehouse {
	t.Helper()
	wh := warehouse("whc", name, "cc", 1)
	wh.Spec.Template.AutoScalingPolicy = nil
	wh.Spec.Template.EnvVars = []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "pw-cc"}} // for its entrypoint
	if err := c.Client.Create(context.Background(), wh); err != nil {
		t.Fatal(err)
	}
	return waitWarehouse(t, c, "whc", name, name+" running with 1 CN", warehouseRunning(1))
}

// kstatus, Flux and Argo CD read Ready with the current observedGeneration
// as "the change is done" (testReadyOnlyWhenApplied, for clusters).
func testWarehouseReadyOnlyWhenApplied(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	wh := whc(t, c, "wh-ready")
	gen := readyAfter(t, c, &srv1.StarRocksWarehouseList{}, "whc", wh.Name, func() int64 {
		mutate(t, c.Client, wh, func(w *srv1.StarRocksWarehouse) {
			w.Spec.Template.EnvVars = append(w.Spec.Template.EnvVars, corev1.EnvVar{Name: "CHANGED", Value: "yes"})
		})
		return wh.Generation
	})
	sts := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "whc", wh.CnStatefulSetName(), sts); err != nil {
		t.Fatal(err)
	}
	if _, ok := envValue(sts, "CHANGED"); !ok {
		t.Fatalf("Ready=True at generation %d while StatefulSet %s lacks the change", gen, sts.Name)
	}
	if !rolledOut(sts) {
		t.Fatalf("Ready=True at generation %d while StatefulSet %s still rolls out: %+v", gen, sts.Name, sts.Status)
	}
}

// The HPA reads the warehouse's scale subresource: status.selector and
// status.replicas must outlast a failed check.
func testWarehouseFailedCheckKeepsCN(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	wh := whc(t, c, "wh-check")
	running := wh.Status
	mutate(t, c.Client, wh, func(w *srv1.StarRocksWarehouse) { w.Spec.StarRocksCluster = "no-such-cluster" })
	got := waitWarehouse(t, c, "whc", wh.Name, "the check fails with ClusterNotFound", func(w *srv1.StarRocksWarehouse) bool {
		cond := meta.FindStatusCondition(w.Status.Conditions, srv1.ConditionReconcileError)
		return w.Status.ObservedGeneration == w.Generation && cond != nil && cond.Status == metav1.ConditionTrue && cond.Reason == srv1.ReasonClusterNotFound
	})
	if st := got.Status; st.Selector != running.Selector || st.Replicas != 1 || !slices.Equal(st.RunningInstances, running.RunningInstances) {
		js, _ := json.MarshalIndent(st, "", "  ")
		t.Errorf("after the check failed, want selector %q, replicas 1, running %v still reported; status:\n%s", running.Selector, running.RunningInstances, js)
	}
	scale := &autoscalingv1.Scale{}
	if err := c.Client.SubResource("scale").Get(ctx, got, scale); err != nil {
		t.Fatal(err)
	}
	if scale.Status.Selector != running.Selector || scale.Status.Replicas != 1 {
		t.Errorf("the scale subresource reads %+v; want selector %q, replicas 1: an HPA stops on an empty selector", scale.Status, running.Selector)
	}
	mutate(t, c.Client, got, func(w *srv1.StarRocksWarehouse) { w.Spec.StarRocksCluster = "cc" })
	waitWarehouse(t, c, "whc", wh.Name, "running again once the check passes", warehouseRunning(1))
}

func testIgnoredWarehouseDeleted(t *testing.T, c *testcluster.Cluster, f *simstarrocks.StarRocks) {
	ctx := context.Background()
	wh := whc(t, c, "wh-ignored")
	if !slices.Contains(wh.Finalizers, warehousectl.Finalizer) {
		t.Fatalf("finalizers %v lack %s", wh.Finalizers, warehousectl.Finalizer)
	}
	mutate(t, c.Client, wh, func(w *srv1.StarRocksWarehouse) {
		w.Annotations = map[string]string{srv1.IgnoredAnnotation: "true"}
	})
	if err := c.Client.Delete(ctx, wh); err != nil {
		t.Fatal(err)
	}
	// Its objects carry its owner reference: the garbage collector takes them.
	gone(t, c, "the ignored warehouse and its objects", &srv1.StarRocksWarehouse{ObjectMeta: wh.ObjectMeta},
		&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "whc", Name: wh.CnStatefulSetName()}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "whc", Name: wh.CnServiceName()}})
	if got := f.StatementsLike("DROP WAREHOUSE IF EXISTS `wh_ignored`"); len(got) != 0 {
		t.Errorf("DROP WAREHOUSE sent for an ignored warehouse: %q", got)
	}
}

// The warehouse got our finalizer while its namespace was served; the
// operator restarts with the namespace denied; the warehouse is deleted.
func testDeniedWarehouseFinalized(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, "whd")
	served := startOperator(t, c, "whd", operatorOptions{fe: dir.resolve})
	f := startFE(t, dir, "whd", "dc", simstarrocks.Options{SharedData: true, MultiWarehouse: true})
	sharedDataCluster(t, c, "whd", "dc", feConfShared, nil, passwordOnFE)
	wh := warehouse("whd", "wh-denied", "dc", 1)
	wh.Spec.Template.AutoScalingPolicy = nil
	wh.Spec.Template.EnvVars = []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "pw-dc"}}
	if err := c.Client.Create(ctx, wh); err != nil {
		t.Fatal(err)
	}
	wh = waitWarehouse(t, c, "whd", wh.Name, "warehouse running with our finalizer", func(w *srv1.StarRocksWarehouse) bool {
		return warehouseRunning(1)(w) && slices.Contains(w.Finalizers, warehousectl.Finalizer)
	})
	served.stop()
	startOperator(t, c, "whd", operatorOptions{fe: dir.resolve, denyList: []string{"whd"}})
	if err := c.Client.Delete(ctx, wh); err != nil {
		t.Fatal(err)
	}
	gone(t, c, "the warehouse of a denied namespace", &srv1.StarRocksWarehouse{ObjectMeta: wh.ObjectMeta},
		&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "whd", Name: wh.CnStatefulSetName()}})
	if got := f.StatementsLike("DROP WAREHOUSE"); !slices.Equal(got, []string{"DROP WAREHOUSE IF EXISTS `wh_denied`"}) {
		t.Errorf("DROP WAREHOUSE statements %q; want the one our finalizer promised", got)
	}
}

func testWarehouseNameRules(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	longest := strings.Repeat("w", srv1.MaxWarehouseNameLength)
	for _, tc := range []struct {
		name, refusal string
	}{
		{longest, ""},
		{"wh-1", ""},
		{longest + "w", "at most 39 characters"},
		{"wh.1", "must not contain '.'"},
	} {
		err := c.Client.Create(ctx, warehouse("whc", tc.name, "cc", 1), client.DryRunAll)
		switch {
		case tc.refusal == "" && err != nil:
			t.Errorf("%q (%d characters) refused: %v", tc.name, len(tc.name), err)
		case tc.refusal != "" && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.refusal)):
			t.Errorf("%q (%d characters): %v; want it refused as invalid, saying %q", tc.name, len(tc.name), err, tc.refusal)
		}
	}
}

func testWarehouseNamesTaken(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	refused := func(name, cluster string) {
		t.Helper()
		waitWarehouse(t, c, "whc", name, name+" refused as "+srv1.ReasonObjectNamesTaken, func(w *srv1.StarRocksWarehouse) bool {
			cond := meta.FindStatusCondition(w.Status.Conditions, srv1.ConditionReconcileError)
			return cond != nil && cond.Status == metav1.ConditionTrue && cond.Reason == srv1.ReasonObjectNamesTaken && strings.Contains(cond.Message, cluster)
		})
	}

	// The cluster came first: it runs CN x-warehouse-cn.
	taker := feOnly("whc", "wx-warehouse")
	taker.Spec.StarRocksCnSpec = &srv1.StarRocksCnSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/cn-ubuntu:3.3.2", Replicas: ptr.To(int32(1))}}}
	if err := c.Client.Create(ctx, taker); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, "whc", taker.Name, 2*time.Minute)
	theirs := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "whc", taker.CnStatefulSetName(), theirs); err != nil {
		t.Fatal(err)
	}
	wx := warehouse("whc", "wx", "cc", 1)
	wx.Spec.Template.AutoScalingPolicy = nil
	if err := c.Client.Create(ctx, wx); err != nil {
		t.Fatal(err)
	}
	refused(wx.Name, taker.Name)
	if err := c.Client.Delete(ctx, wx); err != nil {
		t.Fatal(err)
	}
	gone(t, c, "the refused warehouse", wx)
	time.Sleep(time.Second) // a late deletion would come now
	after := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "whc", theirs.Name, after); err != nil || after.UID != theirs.UID || after.DeletionTimestamp != nil {
		t.Errorf("the cluster's StatefulSet %s after the refused warehouse's deletion: %v, deleted %v; want it untouched", theirs.Name, err, after.DeletionTimestamp)
	}
	for _, svc := range []string{taker.CnServiceName(), taker.CnSearchServiceName()} {
		if err := get(ctx, c.Client, "whc", svc, &corev1.Service{}); err != nil {
			t.Errorf("the cluster's Service %s: %v", svc, err)
		}
	}

	// The warehouse came first: the cluster's creation brings it back, refused.
	wy := whc(t, c, "wy")
	late := feOnly("whc", "wy-warehouse")
	if err := c.Client.Create(ctx, late); err != nil {
		t.Fatal(err)
	}
	refused(wy.Name, late.Name)
	if err := c.Client.Delete(ctx, late); err != nil {
		t.Fatal(err)
	}
	waitWarehouse(t, c, "whc", wy.Name, "running again once the cluster is gone", func(w *srv1.StarRocksWarehouse) bool {
		return warehouseRunning(1)(w) && meta.IsStatusConditionFalse(w.Status.Conditions, srv1.ConditionReconcileError)
	})
}
