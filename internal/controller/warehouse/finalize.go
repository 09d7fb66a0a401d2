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
	"errors"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

// finalize releases and deletes the warehouse's objects, waits for its
// compute nodes' pods to be gone, drops their rows and then the warehouse
// from FE, and removes the finalizer. An unreachable FE keeps the finalizer: the
// error is reported in status and retried with back-off.
//
// Neither the ignored annotation nor the deny list may leave a warehouse
// that carries our finalizer undeletable: only this operator removes it.
//   - An ignored warehouse is one the user told us to leave alone, and
//     deleting it does not change that: its finalizer is removed and nothing
//     else is done. FE is not sent DROP WAREHOUSE, its objects are not
//     deleted here and the upstream's finalizer is not released (the
//     objects carry the warehouse's owner reference: the garbage collector
//     deletes them once it is gone). FE keeps the warehouse, without
//     compute nodes, until someone drops it; to have the operator drop it,
//     remove the annotation before deleting. This is also the way out for a
//     warehouse whose FE will never answer again.
//   - In a denied namespace, our finalizer was added before the namespace
//     was denied, or by another instance of the operator that serves it:
//     either way it promises that FE is told before the warehouse goes, and
//     the warehouse is finalized as any other. Every step is idempotent (DROP
//     WAREHOUSE IF EXISTS, deletions of what still exists, the finalizer's
//     removal), so two instances finalizing one warehouse do no harm. A
//     warehouse there without our finalizer is not ours: nothing is touched,
//     not even the upstream's finalizer.
func (r *Reconciler) finalize(ctx context.Context, wh *srv1.StarRocksWarehouse) (ctrl.Result, error) {
	ours := controllerutil.ContainsFinalizer(wh, Finalizer)
	switch {
	case wh.Annotations[srv1.IgnoredAnnotation] == "true":
		if !ours {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, r.removeFinalizer(ctx, wh, func() {
			r.Recorder.Eventf(wh, nil, corev1.EventTypeNormal, "FinalizerRemoved", "Delete",
				"the warehouse is ignored (%s): deleted without DROP WAREHOUSE %s; FE keeps it until it is dropped", srv1.IgnoredAnnotation, fe.WarehouseName(wh.Name))
		})
	case !ours && slices.Contains(r.DenyList, wh.Namespace):
		return ctrl.Result{}, nil
	case !ours:
		return ctrl.Result{}, r.releaseAdopted(ctx, wh) // not ours (or done): only free what upstream left
	}
	// Its objects go first, then FE is told once its compute nodes' pods are
	// gone: their rows dropped FROM WAREHOUSE, then the warehouse. A build
	// that implements warehouses refuses to drop one with alive compute
	// nodes (facts sheet §14), and the rows of nodes whose pods are gone
	// would otherwise stay for ever (issue 34 item 28).
	if err := r.releaseAdopted(ctx, wh); err != nil {
		return ctrl.Result{}, err
	}
	objs, err := r.ownObjects(ctx, wh)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(objs) > 0 {
		results, err := r.Applier.DeleteAll(ctx, objs)
		r.tell(ctx, wh, results, err)
		if err != nil {
			return ctrl.Result{}, err
		}
	}
	if left, err := r.cnPodsLeft(ctx, wh); err != nil || left > 0 {
		return ctrl.Result{RequeueAfter: podsGoneEvery}, err // their deletions bring the reconcile back too
	}
	key := client.ObjectKeyFromObject(wh)
	if m, _ := r.dropped.Get(key); m.UID != wh.UID {
		after, err := r.dropFromFE(ctx, wh)
		if err != nil {
			live, theirs := r.liveCN(ctx, wh)
			obs := r.observe(ctx, &scope{wh: wh, live: live, theirs: theirs})
			obs.ReconcileError = err
			obs.ReconcileErrorReason = feaccess.Classify(err).Reason
			_, statusErr := r.status.Write(ctx, wh, status.ComputeWarehouse(wh, obs))
			r.tell(ctx, wh, nil, err)
			return ctrl.Result{RequeueAfter: r.feBackoff.Next(key.String())}, statusErr
		}
		if m, _ := r.dropped.Get(key); m.UID != wh.UID {
			return ctrl.Result{RequeueAfter: after}, nil // FE is read off the workers: looked at again soon
		}
		r.feBackoff.Forget(key.String())
	}
	return ctrl.Result{}, r.removeFinalizer(ctx, wh, nil)
}

// podsGoneEvery is how often a deleted warehouse looks for its compute
// nodes' pods to be gone.
const podsGoneEvery = 2 * time.Second

// cnPodsLeft counts the pods of the warehouse's CN StatefulSet still
// there; none when a StatefulSet of that name is another object's (a
// cluster <wh>-warehouse): its pods are not the warehouse's.
func (r *Reconciler) cnPodsLeft(ctx context.Context, wh *srv1.StarRocksWarehouse) (int, error) {
	sts := &appsv1.StatefulSet{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.CnStatefulSetName()}, sts)
	if client.IgnoreNotFound(err) != nil {
		return 0, err
	}
	if err == nil && controlledByOther(wh, sts) {
		return 0, nil
	}
	var pods corev1.PodList
	if err := r.Client.List(ctx, &pods, client.InNamespace(wh.Namespace), client.MatchingLabels(resources.WarehouseSelectorLabels(wh))); err != nil {
		return 0, fmt.Errorf("listing the pods of warehouse %s: %w", wh.Name, err)
	}
	live := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: wh.CnStatefulSetName()}}
	return len(starrocks.PodsByOrdinal(live, pods.Items)), nil
}

// removeFinalizer removes our finalizer from the warehouse, and calls done
// (when set) once it is removed.
func (r *Reconciler) removeFinalizer(ctx context.Context, wh *srv1.StarRocksWarehouse, done func()) error {
	patch := client.MergeFromWithOptions(wh.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(wh, Finalizer)
	if err := r.Client.Patch(ctx, wh, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing finalizer of warehouse %s: %w", wh.Name, err)
	}
	if done != nil {
		done()
	}
	return nil
}

// dropFromFE drops the warehouse from the cluster's FE
// (starrocks.DropWarehouse): its compute nodes' rows, then the warehouse.
// Without the cluster (or while it is being deleted), or with a
// shared-nothing FE, there is nothing to tell. It returns how soon to look
// again while FE is read, and what failed.
func (r *Reconciler) dropFromFE(ctx context.Context, wh *srv1.StarRocksWarehouse) (time.Duration, error) {
	key := client.ObjectKeyFromObject(wh)
	src := &srv1.StarRocksCluster{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.Spec.StarRocksCluster}, src)
	if apierrors.IsNotFound(err) || (err == nil && (src.DeletionTimestamp != nil || src.Spec.StarRocksFeSpec == nil)) || wh.Name == wh.Spec.StarRocksCluster {
		r.dropped.Put(key, starrocks.WarehouseDropped{UID: wh.UID})
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	feConf, err := r.clusterFEConf(ctx, src)
	if err != nil {
		return 0, fmt.Errorf("reading fe.conf of cluster %s to reach FE: %w", src.Name, err)
	}
	if !fe.SharedData(feConf) {
		r.dropped.Put(key, starrocks.WarehouseDropped{UID: wh.UID}) // a shared-nothing FE never had the warehouse
		return 0, nil
	}
	in := starrocks.WarehouseDrop{Names: starrocks.PodNames{StatefulSet: wh.CnStatefulSetName(), HeadlessService: wh.CnSearchServiceName(), Namespace: wh.Namespace},
		Warehouse: fe.WarehouseName(wh.Name), UID: wh.UID, Every: r.FE.Every(), Now: time.Now()}
	if !ownsFEWarehouse(wh) {
		in.Kept = fmt.Sprintf("FE warehouse %s was not made by this object (%s=%s): its compute nodes were dropped, the warehouse is left in FE",
			in.Warehouse, srv1.FEWarehouseOwnerAnnotation, wh.Annotations[srv1.FEWarehouseOwnerAnnotation])
	}
	var after time.Duration
	var failed error
	t := frontend.Target{Cluster: src, FEConf: feConf, On: wh, Hold: func(starrocks.Hold) {}, Note: func(string) {},
		Later: func(d time.Duration) { after = d }, Fail: func(err error) { failed = errors.Join(failed, err) }}
	frontend.Run(ctx, r.steps(), t, r.dropped, key, in, starrocks.DropWarehouse)
	return after, failed
}

// ownObjects are the objects of the warehouse's names that exist and are
// its own: not those another object controls (a cluster <wh>-warehouse
// makes objects of the same names), which its deletion must leave alone.
func (r *Reconciler) ownObjects(ctx context.Context, wh *srv1.StarRocksWarehouse) ([]client.Object, error) {
	var own []client.Object
	for _, o := range resources.WarehouseNamed(wh).Objects() {
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return nil, err
		}
		if !controlledByOther(wh, o) {
			own = append(own, o)
		}
	}
	return own, nil
}

// releaseAdopted removes the upstream operator's finalizer from the
// warehouse's StatefulSet, which would otherwise never go away.
func (r *Reconciler) releaseAdopted(ctx context.Context, wh *srv1.StarRocksWarehouse) error {
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.CnStatefulSetName()}, sts); err != nil {
		return client.IgnoreNotFound(err)
	}
	if controlledByOther(wh, sts) || !controllerutil.ContainsFinalizer(sts, UpstreamFinalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(sts.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(sts, UpstreamFinalizer)
	if err := r.Client.Patch(ctx, sts, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("releasing StatefulSet %s from the upstream finalizer: %w", sts.Name, err)
	}
	return nil
}
