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
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
)

const warehouseClusterIndex = "spec.starRocksCluster"

// setupWarehouses registers the StarRocksWarehouse controller when the API
// server serves the kind; without the CRD it logs so and registers nothing.
func setupWarehouses(mgr ctrl.Manager, cfg Config, configs *reconcile.ConfigSource, configMetadata cache.Cache, access frontend.Access) error {
	log := mgr.GetLogger().WithName("starrockswarehouse")
	gk := schema.GroupKind{Group: srv1.GroupVersion.Group, Kind: "StarRocksWarehouse"}
	if _, err := mgr.GetRESTMapper().RESTMapping(gk, srv1.GroupVersion.Version); err != nil {
		if meta.IsNoMatchError(err) {
			log.Info("StarRocksWarehouse CRD not installed: warehouses are not reconciled")
			return nil
		}
		return err
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &srv1.StarRocksWarehouse{}, warehouseClusterIndex, func(o client.Object) []string {
		if wh, ok := o.(*srv1.StarRocksWarehouse); ok && wh.Spec.StarRocksCluster != "" {
			return []string{wh.Spec.StarRocksCluster}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &srv1.StarRocksWarehouse{}, reconcile.ConfigMapIndex, func(o client.Object) []string {
		if wh, ok := o.(*srv1.StarRocksWarehouse); ok && wh.Spec.Template != nil && wh.Spec.Template.ConfigMapInfo.ConfigMapName != "" {
			return []string{wh.Spec.Template.ConfigMapInfo.ConfigMapName}
		}
		return nil
	}); err != nil {
		return err
	}
	r := NewStarRocksWarehouseReconciler(mgr.GetClient(), mgr.GetEventRecorder("starrocks-operator"), configs, access, cfg.DenyList)
	r.Applier.Reader = mgr.GetAPIReader() // adoption needs managedFields, which the cache slims
	cmMeta := &metav1.PartialObjectMetadata{}
	cmMeta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	opts := cfg.Controller
	if opts.ReconciliationTimeout == 0 {
		opts.ReconciliationTimeout = reconcileTimeout
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("starrockswarehouse").
		For(&srv1.StarRocksWarehouse{}, builder.WithPredicates(warehouseEvents(cfg.DenyList))).
		Owns(&appsv1.StatefulSet{}, builder.WithPredicates(reconcile.StatefulSetChanged())).
		Owns(&corev1.Service{}, builder.WithPredicates(reconcile.OwnedObjectChanged())).
		Owns(&autoscalingv2.HorizontalPodAutoscaler{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&policyv1.PodDisruptionBudget{}, builder.WithPredicates(reconcile.SpecOrMetadataChanged())).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(warehouseOfPod), builder.WithPredicates(reconcile.PodChanged())).
		Watches(&srv1.StarRocksCluster{}, handler.EnqueueRequestsFromMapFunc(r.warehousesOfCluster)).
		WatchesRawSource(source.Kind(configMetadata, cmMeta,
			handler.TypedEnqueueRequestsFromMapFunc(r.warehousesUsingConfigMap),
			reconcile.ConfigMapContentChanged())).
		WithOptions(opts).
		Complete(r)
}

// warehouseEvents passes the events of warehouses that need a reconcile:
// those the operator manages and, ignored or in a denied namespace, the
// deletion of one that has our finalizer, which only we remove (finalize).
func warehouseEvents(denyList []string) predicate.Predicate {
	finalizing := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetDeletionTimestamp() != nil && controllerutil.ContainsFinalizer(o, WarehouseFinalizer)
	})
	return predicate.And(predicate.Or(reconcile.Managed(denyList), finalizing), reconcile.SpecOrResync())
}

// warehouseOfPod maps a warehouse pod (instance label "<wh>-warehouse") to its warehouse.
func warehouseOfPod(_ context.Context, o client.Object) []ctrl.Request {
	if o.GetLabels()[resources.ComponentLabel] != string(resources.ComponentCN) {
		return nil
	}
	name, ok := strings.CutSuffix(o.GetLabels()[resources.ClusterLabel], "-warehouse")
	if !ok || name == "" {
		return nil
	}
	return []ctrl.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

// warehousesOfCluster maps a cluster (its FE becoming ready, its spec) to
// the warehouses that join it and, for cluster x-warehouse, to warehouse x,
// whose objects' names it takes (or gives back, once deleted).
func (r *StarRocksWarehouseReconciler) warehousesOfCluster(ctx context.Context, o client.Object) []ctrl.Request {
	var reqs []ctrl.Request
	if name, ok := strings.CutSuffix(o.GetName(), "-warehouse"); ok && name != "" {
		reqs = append(reqs, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}})
	}
	var list srv1.StarRocksWarehouseList
	if err := r.Client.List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{warehouseClusterIndex: o.GetName()}); err != nil {
		return reqs
	}
	for _, wh := range list.Items {
		if req := (ctrl.Request{NamespacedName: types.NamespacedName{Namespace: wh.Namespace, Name: wh.Name}}); !slices.Contains(reqs, req) {
			reqs = append(reqs, req)
		}
	}
	return reqs
}

// warehousesUsingConfigMap maps a ConfigMap to the warehouses that read it:
// as their cn.conf, or as the fe.conf of their cluster (run_mode, ports).
func (r *StarRocksWarehouseReconciler) warehousesUsingConfigMap(ctx context.Context, cm *metav1.PartialObjectMetadata) []ctrl.Request {
	var reqs []ctrl.Request
	var list srv1.StarRocksWarehouseList
	if err := r.Client.List(ctx, &list, client.InNamespace(cm.Namespace), client.MatchingFields{reconcile.ConfigMapIndex: cm.Name}); err == nil {
		for _, wh := range list.Items {
			reqs = append(reqs, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: wh.Namespace, Name: wh.Name}})
		}
	}
	var clusters srv1.StarRocksClusterList
	if err := r.Client.List(ctx, &clusters, client.InNamespace(cm.Namespace), client.MatchingFields{reconcile.ConfigMapIndex: cm.Name}); err == nil {
		for i := range clusters.Items {
			reqs = append(reqs, r.warehousesOfCluster(ctx, &clusters.Items[i])...)
		}
	}
	return reqs
}
