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

package controller

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/scheme"
)

// These tests drive the warehouse reconciler with controller-runtime's fake
// client; test/integration runs it against an API server and a stand-in FE.

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
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "wh1", Generation: 1, Finalizers: []string{WarehouseFinalizer}},
		Spec: srv1.StarRocksWarehouseSpec{StarRocksCluster: src.Name, Template: &srv1.WarehouseComponentSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{
			StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/cn-ubuntu:3.3.2",
				StorageVolumes: []srv1.StorageVolume{{Name: "cn-data", StorageSize: "10Gi", MountPath: "/opt/starrocks/cn/storage"}}}}}},
	}
	return src, conf, feSts, wh
}

// newWarehouseReconciler wires a reconciler to a fake client holding objs.
// features, when not nil, is what FE's /api/v2/feature lists, known
// beforehand; nil leaves FE to be asked at an address where nothing listens.
func newWarehouseReconciler(t *testing.T, features []string, writes *int, objs ...client.Object) *StarRocksWarehouseReconciler {
	t.Helper()
	count := func() {
		if writes != nil {
			*writes++
		}
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).
		WithStatusSubresource(&srv1.StarRocksWarehouse{}).
		WithIndex(&srv1.StarRocksWarehouse{}, warehouseClusterIndex, func(o client.Object) []string {
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
	access := newFEAccess(c, func(fe.Target) (string, string) { return addr, "http://" + addr })
	if features != nil {
		for _, src := range objs {
			if cluster, ok := src.(*srv1.StarRocksCluster); ok {
				access.features[string(cluster.UID)+"/"+cluster.Spec.StarRocksFeSpec.Image] = features
			}
		}
	}
	return &StarRocksWarehouseReconciler{
		Client: c, Recorder: events.NewFakeRecorder(100), Applier: newApplier(c), Configs: newConfigSource(c, c), FE: access,
		status:    warehouseStatusPath(c),
		feBackoff: workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute),
	}
}

func reconcileWarehouse(t *testing.T, r *StarRocksWarehouseReconciler) (ctrl.Result, error) {
	t.Helper()
	return r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "wh1"}})
}

func warehouseCondition(t *testing.T, r *StarRocksWarehouseReconciler, condition string) *metav1.Condition {
	t.Helper()
	wh := &srv1.StarRocksWarehouse{}
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "wh1"}, wh); err != nil {
		t.Fatal(err)
	}
	return meta.FindStatusCondition(wh.Status.Conditions, condition)
}

func warnings(r *StarRocksWarehouseReconciler) []string {
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

// runWarehouse reconciles the warehouse, then makes its StatefulSet roll out
// with every pod ready, as the StatefulSet controller and the kubelet would,
// and reconciles again: the warehouse is then Ready.
func runWarehouse(t *testing.T, r *StarRocksWarehouseReconciler, wh *srv1.StarRocksWarehouse) {
	t.Helper()
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	rollOut(t, r, wh)
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if c := warehouseCondition(t, r, srv1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("Ready = %+v once the StatefulSet rolled out; want True", c)
	}
}

// rollOut does what the StatefulSet controller and the kubelet do with the
// warehouse's StatefulSet as it is now: every replica updated, its pods ready.
func rollOut(t *testing.T, r *StarRocksWarehouseReconciler, wh *srv1.StarRocksWarehouse) {
	t.Helper()
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: wh.CnStatefulSetName()}, sts); err != nil {
		t.Fatalf("the warehouse's CN StatefulSet: %v", err)
	}
	n := ptr.Deref(sts.Spec.Replicas, 1)
	sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: n, ReadyReplicas: n, UpdatedReplicas: n, AvailableReplicas: n}
	if err := r.Client.Status().Update(t.Context(), sts); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("%s-%d", sts.Name, i), Labels: sts.Spec.Template.Labels}}
		if err := r.Client.Create(t.Context(), pod); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
		if err := r.Client.Status().Update(t.Context(), pod); err != nil {
			t.Fatal(err)
		}
	}
}

func warehouseStatus(t *testing.T, r *StarRocksWarehouseReconciler) srv1.StarRocksWarehouseStatus {
	t.Helper()
	wh := &srv1.StarRocksWarehouse{}
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "wh1"}, wh); err != nil {
		t.Fatal(err)
	}
	return wh.Status
}

// kstatus, Flux and Argo CD read Ready at the current observedGeneration as
// "the change is done": a warehouse must not say so while its StatefulSet
// lacks the change (as testReadyOnlyWhenApplied for clusters).
func TestAWarehouseSpecChangeIsNotReadyBeforeItsStatefulSetCarriesIt(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	r := newWarehouseReconciler(t, []string{fe.FeatureMultiWarehouse}, nil, src, conf, feSts, wh)
	runWarehouse(t, r, wh)
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(wh), wh); err != nil {
		t.Fatal(err)
	}
	wh.Spec.Template.EnvVars = append(wh.Spec.Template.EnvVars, corev1.EnvVar{Name: "CHANGED", Value: "yes"})
	wh.Generation++
	if err := r.Client.Update(t.Context(), wh); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	st := warehouseStatus(t, r)
	ready := meta.FindStatusCondition(st.Conditions, srv1.ConditionReady)
	if st.ObservedGeneration == wh.Generation && (ready == nil || ready.Status != metav1.ConditionFalse || st.Phase != srv1.PhaseReconciling) {
		t.Errorf("at generation %d, written to the StatefulSet this reconcile: phase %q, Ready %+v; want reconciling, Ready=False until the StatefulSet rolled it out",
			st.ObservedGeneration, st.Phase, ready)
	}
	if !meta.IsStatusConditionTrue(st.Conditions, srv1.ConditionProgressing) {
		t.Errorf("Progressing %+v; want True while the change rolls out", meta.FindStatusCondition(st.Conditions, srv1.ConditionProgressing))
	}
	// Once the StatefulSet carries and rolled out the change, Ready again.
	rollOut(t, r, wh)
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if c := warehouseCondition(t, r, srv1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %+v once the StatefulSet rolled the change out; want True", c)
	}
}

// The HPA reads status.selector and status.replicas through the scale
// subresource: a failed check (FE rolling under waitForFullRollout, say)
// must not blank them, nor hide the compute nodes that still run.
func TestAWarehouseWhoseCheckFailsStillReportsItsComputeNodes(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	r := newWarehouseReconciler(t, []string{fe.FeatureMultiWarehouse}, nil, src, conf, feSts, wh)
	runWarehouse(t, r, wh)
	running := warehouseStatus(t, r)
	if running.Selector == "" || running.Replicas != 1 || len(running.RunningInstances) != 1 {
		t.Fatalf("running warehouse: selector %q, replicas %d, running %v", running.Selector, running.Replicas, running.RunningInstances)
	}
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(feSts), feSts); err != nil {
		t.Fatal(err)
	}
	feSts.Status.ReadyReplicas = 0 // FE rolls
	if err := r.Client.Status().Update(t.Context(), feSts); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	st := warehouseStatus(t, r)
	if c := meta.FindStatusCondition(st.Conditions, srv1.ConditionReconcileError); c == nil || c.Status != metav1.ConditionTrue || c.Reason != srv1.ReasonFENotReady {
		t.Errorf("ReconcileError = %+v; want True, %s: it says which check failed", c, srv1.ReasonFENotReady)
	}
	if st.Selector != running.Selector || st.Replicas != running.Replicas || !slices.Equal(st.RunningInstances, running.RunningInstances) ||
		!slices.Equal(st.ResourceNames, running.ResourceNames) || st.ServiceName != running.ServiceName {
		t.Errorf("after the check failed: selector %q, replicas %d, running %v, resources %v, service %q; want what runs still reported (%q, %d, %v, %v, %q)",
			st.Selector, st.Replicas, st.RunningInstances, st.ResourceNames, st.ServiceName,
			running.Selector, running.Replicas, running.RunningInstances, running.ResourceNames, running.ServiceName)
	}
}

// deleting marks wh deleted by the user: the API server keeps it, with a
// deletion timestamp, for as long as it has finalizers.
func deleting(wh *srv1.StarRocksWarehouse) *srv1.StarRocksWarehouse {
	wh.DeletionTimestamp = ptr.To(metav1.Now())
	return wh
}

// ownedCN is a warehouse's CN StatefulSet as the upstream operator left it:
// owned by the warehouse, with the upstream's finalizer.
func ownedCN(wh *srv1.StarRocksWarehouse) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: wh.Namespace, Name: wh.CnStatefulSetName(),
		Finalizers:      []string{UpstreamWarehouseFinalizer},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: srv1.GroupVersion.String(), Kind: "StarRocksWarehouse", Name: wh.Name, UID: wh.UID, Controller: ptr.To(true)}}}}
}

func TestAnIgnoredWarehouseCanBeDeletedWithoutFE(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	wh.UID = "wh-uid"
	wh.Annotations = map[string]string{IgnoredAnnotation: "true"}
	sts := ownedCN(wh)
	r := newWarehouseReconciler(t, nil, nil, src, conf, feSts, deleting(wh), sts) // FE does not answer
	res, err := reconcileWarehouse(t, r)
	if err != nil || res.RequeueAfter != 0 {
		t.Errorf("Reconcile = %+v, %v; an ignored warehouse's deletion waits for nothing", res, err)
	}
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(wh), &srv1.StarRocksWarehouse{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the ignored warehouse is still there (%v): it could never be deleted", err)
	}
	// Left alone otherwise: its objects go by garbage collection (they are
	// owned by the warehouse), the upstream's finalizer is the upstream's.
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(sts), sts); err != nil || sts.DeletionTimestamp != nil || len(sts.Finalizers) != 1 {
		t.Errorf("StatefulSet of an ignored warehouse: %v, deleted %v, finalizers %v; want it untouched", err, sts.DeletionTimestamp, sts.Finalizers)
	}
}

func TestAWarehouseInADeniedNamespaceIsStillFinalized(t *testing.T) {
	_, _, _, wh := warehouseWorld() // its cluster is gone: no FE to tell
	wh.UID = "wh-uid"
	sts := ownedCN(wh)
	r := newWarehouseReconciler(t, nil, nil, deleting(wh), sts)
	r.DenyList = []string{"ns"}
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(wh), &srv1.StarRocksWarehouse{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the warehouse is still there (%v): our finalizer in a denied namespace was never honoured", err)
	}
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(sts), sts); !apierrors.IsNotFound(err) {
		t.Errorf("its StatefulSet: %v, finalizers %v; want it released and deleted as for any warehouse", err, sts.Finalizers)
	}
}

func TestADeniedNamespaceWarehouseWithoutOurFinalizerIsLeftAlone(t *testing.T) {
	_, _, _, wh := warehouseWorld()
	wh.UID = "wh-uid"
	wh.Finalizers = []string{"someone-else"}
	sts := ownedCN(wh)
	r := newWarehouseReconciler(t, nil, nil, deleting(wh), sts)
	r.DenyList = []string{"ns"}
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(sts), sts); err != nil || len(sts.Finalizers) != 1 {
		t.Errorf("StatefulSet: %v, finalizers %v; a warehouse that is not ours, in a denied namespace, is not touched", err, sts.Finalizers)
	}
}

func TestTheDeletionOfAnIgnoredOrDeniedWarehouseReachesTheReconciler(t *testing.T) {
	_, _, _, wh := warehouseWorld()
	ignored := wh.DeepCopy()
	ignored.Annotations = map[string]string{IgnoredAnnotation: "true"}
	pred := warehouseEvents([]string{"denied"})
	for _, tt := range []struct {
		name string
		old  *srv1.StarRocksWarehouse
		want bool
	}{
		{"an ignored warehouse deleted", ignored, true},
		{"a warehouse of a denied namespace deleted", func() *srv1.StarRocksWarehouse { w := wh.DeepCopy(); w.Namespace = "denied"; return w }(), true},
		{"an ignored warehouse deleted without our finalizer", func() *srv1.StarRocksWarehouse { w := ignored.DeepCopy(); w.Finalizers = nil; return w }(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := deleting(tt.old.DeepCopy())
			n.ResourceVersion = "2"
			if got := pred.Update(event.UpdateEvent{ObjectOld: tt.old, ObjectNew: n}); got != tt.want {
				t.Errorf("the deletion passes: %v, want %v", got, tt.want)
			}
		})
	}
	if pred.Update(event.UpdateEvent{ObjectOld: ignored, ObjectNew: func() *srv1.StarRocksWarehouse { w := ignored.DeepCopy(); w.Generation++; return w }()}) {
		t.Error("a spec change of an ignored warehouse passes; want it left alone")
	}
}

// theirCN is cluster <wh>-warehouse's CN StatefulSet and client Service,
// named as the warehouse's would be.
func theirCN(wh *srv1.StarRocksWarehouse) (*srv1.StarRocksCluster, *appsv1.StatefulSet, *corev1.Service) {
	other := feCluster()
	other.Name, other.UID = wh.Name+"-warehouse", "other-uid"
	other.Spec.StarRocksCnSpec = &srv1.StarRocksCnSpec{}
	owner := []metav1.OwnerReference{{APIVersion: srv1.GroupVersion.String(), Kind: "StarRocksCluster", Name: other.Name, UID: other.UID, Controller: ptr.To(true)}}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: other.CnStatefulSetName(), OwnerReferences: owner}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: other.CnServiceName(), OwnerReferences: owner}}
	return other, sts, svc
}

// Warehouse x and cluster x-warehouse both make StatefulSet x-warehouse-cn,
// Services x-warehouse-cn-service and -search, HPA x-warehouse-cn-autoscaler
// and pods of the same labels. The warehouse is refused, whichever came first.
func TestAWarehouseIsRefusedWhenAClusterMakesObjectsOfItsNames(t *testing.T) {
	refused := func(t *testing.T, r *StarRocksWarehouseReconciler, sts *appsv1.StatefulSet) {
		t.Helper()
		before := sts.DeepCopy()
		if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(sts), before); err != nil {
			t.Fatal(err)
		}
		res, err := reconcileWarehouse(t, r)
		if err != nil || res.RequeueAfter != 0 {
			t.Errorf("Reconcile = %+v, %v; a refusal waits for the user", res, err)
		}
		c := warehouseCondition(t, r, srv1.ConditionReconcileError)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != srv1.ReasonObjectNamesTaken || !strings.Contains(c.Message, "wh1-warehouse") {
			t.Errorf("ReconcileError = %+v; want True, %s, naming the cluster", c, srv1.ReasonObjectNamesTaken)
		}
		after := &appsv1.StatefulSet{}
		if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(sts), after); err != nil || after.ResourceVersion != before.ResourceVersion {
			t.Errorf("StatefulSet %s written by the refused warehouse: %v, owners %v", sts.Name, err, after.OwnerReferences)
		}
	}
	t.Run("the cluster came first", func(t *testing.T) {
		src, conf, feSts, wh := warehouseWorld()
		other, sts, svc := theirCN(wh)
		r := newWarehouseReconciler(t, []string{fe.FeatureMultiWarehouse}, nil, src, conf, feSts, wh, other, sts, svc)
		refused(t, r, sts)
	})
	t.Run("the warehouse came first", func(t *testing.T) {
		src, conf, feSts, wh := warehouseWorld()
		r := newWarehouseReconciler(t, []string{fe.FeatureMultiWarehouse}, nil, src, conf, feSts, wh)
		runWarehouse(t, r, wh)
		other, _, _ := theirCN(wh)
		if err := r.Client.Create(t.Context(), other); err != nil {
			t.Fatal(err)
		}
		if reqs := r.warehousesOfCluster(t.Context(), other); !slices.Contains(reqs, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(wh)}) {
			t.Errorf("cluster %s brings back %v; want warehouse %s, whose names it takes", other.Name, reqs, wh.Name)
		}
		ours := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: wh.CnStatefulSetName()}}
		refused(t, r, ours) // and the running StatefulSet is kept as it is
	})
}

// Deleting the refused warehouse must not delete what has its names: the cluster's.
func TestDeletingARefusedWarehouseLeavesTheClusterObjectsOfItsNames(t *testing.T) {
	_, _, _, wh := warehouseWorld()
	wh.UID = "wh-uid"
	other, sts, svc := theirCN(wh)
	sts.Finalizers = []string{UpstreamWarehouseFinalizer}
	r := newWarehouseReconciler(t, nil, nil, deleting(wh), other, sts, svc)
	if _, err := reconcileWarehouse(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(wh), &srv1.StarRocksWarehouse{}); !apierrors.IsNotFound(err) {
		t.Errorf("the warehouse is still there: %v", err)
	}
	for _, o := range []client.Object{sts, svc} {
		if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(o), o); err != nil || o.GetDeletionTimestamp() != nil {
			t.Errorf("%s of cluster %s: %v, deleted %v; want it kept", o.GetName(), other.Name, err, o.GetDeletionTimestamp())
		}
	}
	if len(sts.Finalizers) != 1 {
		t.Errorf("finalizers of the cluster's StatefulSet %v; want them kept", sts.Finalizers)
	}
}

func TestAWarehouseWhoseNameIsTooLongIsRefused(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	wh.Name = strings.Repeat("w", srv1.MaxWarehouseNameLength+1)
	r := newWarehouseReconciler(t, []string{fe.FeatureMultiWarehouse}, nil, src, conf, feSts, wh)
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(wh)})
	if err != nil || res.RequeueAfter != 0 {
		t.Errorf("Reconcile = %+v, %v; a refusal waits for the user", res, err)
	}
	got := &srv1.StarRocksWarehouse{}
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(wh), got); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, srv1.ConditionReconcileError); c == nil || c.Status != metav1.ConditionTrue || c.Reason != srv1.ReasonNameTooLong {
		t.Errorf("ReconcileError = %+v; want True, %s", c, srv1.ReasonNameTooLong)
	}
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: wh.CnStatefulSetName()}, &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
		t.Errorf("StatefulSet %s made, whose pods cannot be created: %v", wh.CnStatefulSetName(), err)
	}
}
