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

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/warehouse"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

// setupWarehouses registers the StarRocksWarehouse controller when the API
// server serves the kind; without the CRD it logs so and registers nothing.
func setupWarehouses(mgr ctrl.Manager, cfg Config, configs *reconcile.ConfigSource, configMetadata cache.Cache, door feaccess.Door) error {
	log := mgr.GetLogger().WithName("starrockswarehouse")
	gk := schema.GroupKind{Group: srv1.GroupVersion.Group, Kind: "StarRocksWarehouse"}
	if _, err := mgr.GetRESTMapper().RESTMapping(gk, srv1.GroupVersion.Version); err != nil {
		if meta.IsNoMatchError(err) {
			log.Info("StarRocksWarehouse CRD not installed: warehouses are not reconciled")
			return nil
		}
		return err
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &srv1.StarRocksWarehouse{}, warehouse.ClusterIndex, func(o client.Object) []string {
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
	r := warehouse.NewReconciler(mgr.GetClient(), mgr.GetEventRecorder("starrocks-operator"), configs, door, cfg.DenyList)
	r.Applier.Reader = mgr.GetAPIReader() // adoption needs managedFields, which the cache slims
	cmMeta := &metav1.PartialObjectMetadata{}
	cmMeta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	opts := cfg.Controller
	if opts.ReconciliationTimeout == 0 {
		opts.ReconciliationTimeout = reconcileTimeout
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("starrockswarehouse").
		For(&srv1.StarRocksWarehouse{}, builder.WithPredicates(warehouse.Events(cfg.DenyList))).
		Owns(&appsv1.StatefulSet{}, builder.WithPredicates(reconcile.StatefulSetChanged())).
		Owns(&corev1.Service{}, builder.WithPredicates(reconcile.OwnedObjectChanged())).
		Owns(&autoscalingv2.HorizontalPodAutoscaler{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&policyv1.PodDisruptionBudget{}, builder.WithPredicates(reconcile.SpecOrMetadataChanged())).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(warehouse.OfPod), builder.WithPredicates(reconcile.PodChanged())).
		Watches(&srv1.StarRocksCluster{}, handler.EnqueueRequestsFromMapFunc(r.OfCluster)).
		WatchesRawSource(source.Kind(configMetadata, cmMeta,
			handler.TypedEnqueueRequestsFromMapFunc(r.UsingConfigMap),
			reconcile.ConfigMapContentChanged())).
		WithOptions(opts).
		Complete(r)
}
