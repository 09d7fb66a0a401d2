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

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/status"
)

// check verifies that the warehouse can run: its name differs from the
// cluster's, is short enough and makes no object of another cluster's name,
// the cluster exists, runs shared-data, and its FE is ready.
// What fails is a user error: the cluster and warehouse watches bring the
// reconcile back once it changes.
func (r *Reconciler) check(ctx context.Context, s *scope) bool {
	wh, name := s.wh, s.wh.Spec.StarRocksCluster
	refuse := func(reason, format string, args ...any) bool {
		s.err = &reconcile.UserError{Reason: reason, Message: fmt.Sprintf(format, args...)}
		return false
	}
	if wh.Spec.Template == nil {
		return refuse(srv1.ReasonTemplateMissing, "spec.template is required: it describes the warehouse's compute nodes")
	}
	if wh.Name == name {
		return refuse(srv1.ReasonNameConflict, "the warehouse has the name of its cluster %q; its objects would collide with the cluster's: rename the warehouse", name)
	}
	if n := len(wh.Name); n > srv1.MaxWarehouseNameLength {
		return refuse(srv1.ReasonNameTooLong, "metadata.name: %q is too long: %d characters, and a warehouse's may have %d (StatefulSet %s could not create its pods); nothing was created: make the warehouse again under a shorter name",
			wh.Name, n, srv1.MaxWarehouseNameLength, wh.CnStatefulSetName())
	}
	// Warehouse x and cluster x-warehouse make objects of the same names
	// (StatefulSet x-warehouse-cn, its Services and HPA) and pods of the same
	// labels. The warehouse is refused, whether the cluster came first or
	// after (its watch brings the warehouse back, OfCluster): a
	// cluster holds data and cannot be renamed, a warehouse can be made
	// again under another name. Nothing of the warehouse is deleted, and
	// its deletion leaves the cluster's objects alone (ownObjects).
	taken := &srv1.StarRocksCluster{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.WarehouseComponentName()}, taken); err == nil {
		return refuse(srv1.ReasonObjectNamesTaken,
			"StarRocksCluster %q in this namespace makes objects of the names this warehouse's would have (StatefulSet %s, Services %s and %s): rename the warehouse; nothing of it is written meanwhile",
			taken.Name, wh.CnStatefulSetName(), wh.CnServiceName(), wh.CnSearchServiceName())
	} else if !apierrors.IsNotFound(err) {
		s.err = err
		return false
	}
	src := &srv1.StarRocksCluster{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: name}, src); err != nil {
		if apierrors.IsNotFound(err) {
			return refuse(srv1.ReasonClusterNotFound, "spec.starRocksCluster: StarRocksCluster %q not found in namespace %q", name, wh.Namespace)
		}
		s.err = err
		return false
	}
	if src.Spec.StarRocksFeSpec == nil {
		return refuse(srv1.ReasonFENotReady, "StarRocksCluster %q has no FE", name)
	}
	feConf, err := r.clusterFEConf(ctx, src)
	if err != nil {
		s.err = err
		return false
	}
	if !fe.SharedData(feConf) {
		return refuse(srv1.ReasonNotSharedData, "StarRocksCluster %q does not run in shared-data mode (run_mode = shared_data in fe.conf): warehouses need it", name)
	}
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: src.Namespace, Name: src.FeStatefulSetName()}, sts); err != nil || !status.FEReady(src, sts) {
		return refuse(srv1.ReasonFENotReady, "waiting for FE of StarRocksCluster %q to become ready", name)
	}
	s.src, s.feConf = src, feConf
	return true
}

func (r *Reconciler) clusterFEConf(ctx context.Context, src *srv1.StarRocksCluster) (string, error) {
	info := src.Spec.StarRocksFeSpec.ConfigMapInfo
	if info.ConfigMapName == "" {
		return "", nil
	}
	return r.Configs.Content(ctx, src.Namespace, info.ConfigMapName, info.ResolveKey, "StarRocksCluster "+src.Name+" spec.starRocksFeSpec.configMapInfo")
}
