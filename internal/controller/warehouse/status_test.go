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
	"fmt"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// runWarehouse reconciles the warehouse, then makes its StatefulSet roll out
// with every pod ready, as the StatefulSet controller and the kubelet would,
// and reconciles again: the warehouse is then Ready.
func runWarehouse(t *testing.T, r *Reconciler, wh *srv1.StarRocksWarehouse) {
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
func rollOut(t *testing.T, r *Reconciler, wh *srv1.StarRocksWarehouse) {
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

func warehouseStatus(t *testing.T, r *Reconciler) srv1.StarRocksWarehouseStatus {
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
