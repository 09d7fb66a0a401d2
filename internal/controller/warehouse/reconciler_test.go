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

package warehouse

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/scheme"
)

// These tests drive the warehouse reconciler with controller-runtime's fake
// client; test/integration runs it against an API server and a stand-in FE.

// feCluster is a cluster of one FE.
func feCluster() *srv1.StarRocksCluster {
	return &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sr", Generation: 1},
		Spec: srv1.StarRocksClusterSpec{
			StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/fe-ubuntu:3.3.2"}}},
		},
	}
}

// warehouseWorld is a shared-data cluster whose FE is ready, and a warehouse of it.
func warehouseWorld() (*srv1.StarRocksCluster, *corev1.ConfigMap, *appsv1.StatefulSet, *srv1.StarRocksWarehouse) {
	src := feCluster()
	src.UID = "cluster-uid"
	src.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "fe-conf", ResolveKey: "fe.conf"}
	conf := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fe-conf"}, Data: map[string]string{"fe.conf": "run_mode = shared_data\n"}}
	// FE runs the spec's image on every pod: the feature list is known per image.
	feSts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: src.FeStatefulSetName(), Generation: 1},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(int32(1)), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "fe", Image: src.Spec.StarRocksFeSpec.Image}}}}},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1, CurrentRevision: "r1", UpdateRevision: "r1"}}
	wh := &srv1.StarRocksWarehouse{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "wh1", Generation: 1, Finalizers: []string{Finalizer},
			// Whose FE warehouse it is was recorded (owner.go): these tests
			// have FE's HTTP port, not its MySQL one.
			Annotations: map[string]string{srv1.FEWarehouseOwnerAnnotation: "existed"}},
		Spec: srv1.StarRocksWarehouseSpec{StarRocksCluster: src.Name, Template: &srv1.WarehouseComponentSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{
			StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/cn-ubuntu:3.3.2",
				StorageVolumes: []srv1.StorageVolume{{Name: "cn-data", StorageSize: "10Gi", MountPath: "/opt/starrocks/cn/storage"}}}}}},
	}
	return src, conf, feSts, wh
}

// newWarehouseReconciler wires a reconciler to a fake client holding objs.
// features, when not nil, is what FE's /api/v2/feature lists, known
// beforehand; nil leaves FE to be asked at an address where nothing listens.
func newWarehouseReconciler(t *testing.T, features []string, writes *int, objs ...client.Object) *Reconciler {
	t.Helper()
	var mu sync.Mutex // ApplyAll writes in parallel
	count := func() {
		mu.Lock()
		defer mu.Unlock()
		if writes != nil {
			*writes++
		}
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).
		WithStatusSubresource(&srv1.StarRocksWarehouse{}).
		WithIndex(&srv1.StarRocksWarehouse{}, ClusterIndex, func(o client.Object) []string {
			return []string{o.(*srv1.StarRocksWarehouse).Spec.StarRocksCluster}
		}).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				count()
				return c.Create(ctx, obj, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				count()
				return c.Patch(ctx, obj, patch, opts...)
			},
			Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
				count()
				return c.Apply(ctx, obj, opts...)
			},
			SubResourceApply: func(ctx context.Context, c client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
				count()
				return c.SubResource(sub).Apply(ctx, obj, opts...)
			},
		}).Build()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := closed.Addr().String()
	_ = closed.Close() // nothing listens there any more: FE does not answer
	featuresURL := "http://" + addr
	if features != nil {
		featuresURL = featureServer(t, features)
	}
	door := feaccess.New(c, feaccess.Options{Resolve: func(fe.Target) (string, string) { return addr, featuresURL }, TLS: fe.TLS{}})
	return NewReconciler(c, events.NewFakeRecorder(100), reconcile.NewConfigSource(c, c), door, nil)
}

// featureServer answers FE's /api/v2/feature with features.
func featureServer(t *testing.T, features []string) string {
	t.Helper()
	list := make([]string, len(features))
	for i, f := range features {
		list[i] = fmt.Sprintf(`{"name":%q}`, f)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"version":"3.3.2","features":[%s],"status":"OK"}`, strings.Join(list, ","))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func reconcileWarehouse(t *testing.T, r *Reconciler) (ctrl.Result, error) {
	t.Helper()
	return r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "wh1"}})
}

func warehouseCondition(t *testing.T, r *Reconciler, condition string) *metav1.Condition {
	t.Helper()
	wh := &srv1.StarRocksWarehouse{}
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "wh1"}, wh); err != nil {
		t.Fatal(err)
	}
	return meta.FindStatusCondition(wh.Status.Conditions, condition)
}

func warnings(r *Reconciler) []string {
	rec := r.Recorder.(*events.FakeRecorder)
	var out []string
	for {
		select {
		case e := <-rec.Events:
			if strings.HasPrefix(e, "Warning") {
				out = append(out, e)
			}
		default:
			return out
		}
	}
}

func TestAWarehouseRunsItsComputeNodesAndThenCostsNothing(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	writes := 0
	r := newWarehouseReconciler(t, []string{fe.FeatureMultiWarehouse}, &writes, src, conf, feSts, wh)
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: wh.CnStatefulSetName()}, sts); err != nil {
		t.Fatalf("the warehouse's CN StatefulSet: %v", err)
	}
	if c := warehouseCondition(t, r, srv1.ConditionReconcileError); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("ReconcileError = %+v; want False", c)
	}
	before := writes
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("second Reconcile: %v", err)
	}
	if writes != before {
		t.Errorf("an unchanged warehouse cost %d writes; want 0", writes-before)
	}
}

func TestAWarehouseStorageSizeEditIsReportedNotDropped(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	r := newWarehouseReconciler(t, []string{fe.FeatureMultiWarehouse}, nil, src, conf, feSts, wh)
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	warnings(r)
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(wh), wh); err != nil {
		t.Fatal(err)
	}
	wh.Spec.Template.StorageVolumes[0].StorageSize = "20Gi"
	wh.Generation++
	if err := r.Client.Update(t.Context(), wh); err != nil {
		t.Fatal(err)
	}
	res, err := reconcileWarehouse(t, r)
	if err != nil || res.RequeueAfter != 0 {
		t.Fatalf("Reconcile = %+v, %v; a refused edit waits for the user", res, err)
	}
	c := warehouseCondition(t, r, srv1.ConditionReconcileError)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != srv1.ReasonImmutableFieldChanged || !strings.Contains(c.Message, "storageSize") {
		t.Errorf("ReconcileError = %+v; want True, %s, naming storageSize", c, srv1.ReasonImmutableFieldChanged)
	}
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: wh.CnStatefulSetName()}, sts); err != nil {
		t.Fatal(err)
	}
	if got := sts.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage]; got.String() != "10Gi" {
		t.Errorf("claim template %s; want the live 10Gi kept", got.String())
	}
	if w := warnings(r); len(w) != 1 || !strings.Contains(w[0], srv1.ReasonImmutableFieldChanged) {
		t.Errorf("warnings %q; want one %s", w, srv1.ReasonImmutableFieldChanged)
	}
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatal(err)
	}
	if w := warnings(r); len(w) != 0 {
		t.Errorf("warnings %q on the next reconcile; want none, the error is not new", w)
	}
}

func TestAWarehouseWaitsForWhatItNeeds(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	notReady := feSts.DeepCopy()
	notReady.Status.ReadyReplicas = 0
	sharedNothing := conf.DeepCopy()
	sharedNothing.Data["fe.conf"] = ""
	for _, tt := range []struct {
		name   string
		objs   []client.Object
		reason string
	}{
		{"its cluster does not exist", []client.Object{wh.DeepCopy()}, srv1.ReasonClusterNotFound},
		{"its cluster runs shared-nothing", []client.Object{src.DeepCopy(), sharedNothing, feSts.DeepCopy(), wh.DeepCopy()}, srv1.ReasonNotSharedData},
		{"its cluster's FE is not ready", []client.Object{src.DeepCopy(), conf.DeepCopy(), notReady, wh.DeepCopy()}, srv1.ReasonFENotReady},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newWarehouseReconciler(t, []string{fe.FeatureMultiWarehouse}, nil, tt.objs...)
			res, err := reconcileWarehouse(t, r)
			if err != nil || res.RequeueAfter != 0 {
				t.Errorf("Reconcile = %+v, %v; want neither: a watch brings it back", res, err)
			}
			if c := warehouseCondition(t, r, srv1.ConditionReconcileError); c == nil || c.Status != metav1.ConditionTrue || c.Reason != tt.reason {
				t.Errorf("ReconcileError = %+v; want True, %s", c, tt.reason)
			}
		})
	}
}

func TestAWarehouseWhoseFEDoesNotAnswerIsRetriedOnItsOwnBackOff(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	r := newWarehouseReconciler(t, nil, nil, src, conf, feSts, wh)
	var afters []time.Duration
	for range 3 {
		res, err := reconcileWarehouse(t, r)
		if err != nil {
			t.Fatalf("Reconcile: %v; FE not answering is reported, not returned", err)
		}
		afters = append(afters, res.RequeueAfter)
	}
	if afters[0] != time.Second || afters[1] <= afters[0] || afters[2] <= afters[1] {
		t.Errorf("requeues %v; want 1 s, doubling", afters)
	}
	if c := warehouseCondition(t, r, srv1.ConditionReconcileError); c == nil || c.Reason != srv1.ReasonFEUnreachable {
		t.Errorf("ReconcileError = %+v; want %s", c, srv1.ReasonFEUnreachable)
	}
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: wh.CnStatefulSetName()}, &appsv1.StatefulSet{}); err == nil {
		t.Error("a CN StatefulSet was made without FE's word on multiple warehouses")
	}
}

func TestAWarehouseIsRefusedByAnFEWithoutMultipleWarehouses(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	r := newWarehouseReconciler(t, []string{"RBAC"}, nil, src, conf, feSts, wh) // what an open-source FE lists
	res, err := reconcileWarehouse(t, r)
	if err != nil || res.RequeueAfter != 0 {
		t.Errorf("Reconcile = %+v, %v; a refusal waits for the user", res, err)
	}
	if c := warehouseCondition(t, r, srv1.ConditionReconcileError); c == nil || c.Status != metav1.ConditionTrue || c.Reason != srv1.ReasonMultiWarehouseUnsupported {
		t.Errorf("ReconcileError = %+v; want True, %s", c, srv1.ReasonMultiWarehouseUnsupported)
	}
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: wh.CnStatefulSetName()}, &appsv1.StatefulSet{}); err == nil {
		t.Error("compute nodes deployed that would join default_warehouse")
	}
}

// A warehouse's budget waits for its StatefulSet, as a cluster's does: the
// first reconcile creates the StatefulSet without it, the next one, with
// the StatefulSet seen, the budget.
func TestAWarehouseBudgetWaitsForItsStatefulSet(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	wh.Spec.Template.Replicas = ptr.To[int32](3)
	r := newWarehouseReconciler(t, []string{fe.FeatureMultiWarehouse}, nil, src, conf, feSts, wh)
	budget := func() error {
		return r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: wh.CnDisruptionBudgetName()}, &policyv1.PodDisruptionBudget{})
	}
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if err := budget(); !apierrors.IsNotFound(err) {
		t.Errorf("the budget written beside the StatefulSet's create: %v, want NotFound", err)
	}
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("second Reconcile: %v", err)
	}
	if err := budget(); err != nil {
		t.Errorf("3 CN running, no budget: %v", err)
	}
}
