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

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// finalize drops the warehouse from FE, releases and deletes its objects,
// then removes the finalizer. An unreachable FE keeps the finalizer: the
// error is reported in status and retried with back-off.
func (r *StarRocksWarehouseReconciler) finalize(ctx context.Context, wh *srv1.StarRocksWarehouse) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(wh, WarehouseFinalizer) {
		return ctrl.Result{}, r.releaseAdopted(ctx, wh) // not ours (or done): only free what upstream left
	}
	if _, done := r.dropped.Load(wh.UID); !done {
		if err := r.dropFromFE(ctx, wh); err != nil {
			obs := r.observe(ctx, &warehouseScope{wh: wh, live: r.liveCN(ctx, wh)})
			obs.ReconcileError, obs.ReconcileErrorReason = err, srv1.ReasonFEUnreachable
			_, statusErr := r.status.write(ctx, wh, status.ComputeWarehouse(wh, obs))
			r.tell(ctx, wh, nil, err)
			return ctrl.Result{RequeueAfter: r.feBackoff.When(client.ObjectKeyFromObject(wh).String())}, statusErr
		}
		r.feBackoff.Forget(client.ObjectKeyFromObject(wh).String())
		r.dropped.Store(wh.UID, true)
	}
	if err := r.releaseAdopted(ctx, wh); err != nil {
		return ctrl.Result{}, err
	}
	results, err := r.Applier.DeleteAll(ctx, resources.WarehouseNamed(wh).Objects())
	r.tell(ctx, wh, results, err)
	if err != nil {
		return ctrl.Result{}, err
	}
	patch := client.MergeFromWithOptions(wh.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(wh, WarehouseFinalizer)
	if err := r.Client.Patch(ctx, wh, patch); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("removing finalizer of warehouse %s: %w", wh.Name, err)
	}
	return ctrl.Result{}, nil
}

// dropFromFE sends DROP WAREHOUSE to the cluster's FE. Without the cluster
// (or while it is being deleted) there is no FE to tell.
func (r *StarRocksWarehouseReconciler) dropFromFE(ctx context.Context, wh *srv1.StarRocksWarehouse) error {
	src := &srv1.StarRocksCluster{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.Spec.StarRocksCluster}, src)
	if apierrors.IsNotFound(err) || (err == nil && (src.DeletionTimestamp != nil || src.Spec.StarRocksFeSpec == nil)) || wh.Name == wh.Spec.StarRocksCluster {
		return nil
	}
	if err != nil {
		return err
	}
	feConf, err := r.clusterFEConf(ctx, src)
	if err != nil {
		return fmt.Errorf("reading fe.conf of cluster %s to reach FE: %w", src.Name, err)
	}
	if !fe.SharedData(feConf) {
		return nil // a shared-nothing FE never had the warehouse
	}
	c, err := r.FE.sql(ctx, src, feConf)
	if err != nil {
		return err
	}
	if err := c.DropWarehouse(ctx, fe.WarehouseName(wh.Name)); err != nil {
		return err
	}
	logf.FromContext(ctx).Info("dropped warehouse from FE", "warehouse", fe.WarehouseName(wh.Name), "cluster", src.Name)
	return nil
}

// releaseAdopted removes the upstream operator's finalizer from the
// warehouse's StatefulSet, which would otherwise never go away.
func (r *StarRocksWarehouseReconciler) releaseAdopted(ctx context.Context, wh *srv1.StarRocksWarehouse) error {
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.CnStatefulSetName()}, sts); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !controllerutil.ContainsFinalizer(sts, UpstreamWarehouseFinalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(sts.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(sts, UpstreamWarehouseFinalizer)
	if err := r.Client.Patch(ctx, sts, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("releasing StatefulSet %s from the upstream finalizer: %w", sts.Name, err)
	}
	return nil
}
