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
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

func deleting(wh *srv1.StarRocksWarehouse) *srv1.StarRocksWarehouse {
	wh.DeletionTimestamp = ptr.To(metav1.Now())
	return wh
}

// ownedCN is a warehouse's CN StatefulSet as the upstream operator left it:
// owned by the warehouse, with the upstream's finalizer.
func ownedCN(wh *srv1.StarRocksWarehouse) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: wh.Namespace, Name: wh.CnStatefulSetName(),
		Finalizers:      []string{UpstreamFinalizer},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: srv1.GroupVersion.String(), Kind: "StarRocksWarehouse", Name: wh.Name, UID: wh.UID, Controller: ptr.To(true)}}}}
}

func TestAnIgnoredWarehouseCanBeDeletedWithoutFE(t *testing.T) {
	src, conf, feSts, wh := warehouseWorld()
	wh.UID = "wh-uid"
	wh.Annotations = map[string]string{srv1.IgnoredAnnotation: "true"}
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
	ignored.Annotations = map[string]string{srv1.IgnoredAnnotation: "true"}
	pred := Events([]string{"denied"})
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
	refused := func(t *testing.T, r *Reconciler, sts *appsv1.StatefulSet) {
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
		if reqs := r.OfCluster(t.Context(), other); !slices.Contains(reqs, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(wh)}) {
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
	sts.Finalizers = []string{UpstreamFinalizer}
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
