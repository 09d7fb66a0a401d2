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
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// ClusterIndex is the field index of warehouses by the cluster they join.
const ClusterIndex = "spec.starRocksCluster"

// Events passes the events of warehouses that need a reconcile:
// those the operator manages and, ignored or in a denied namespace, the
// deletion of one that has our finalizer, which only we remove (finalize).
func Events(denyList []string) predicate.Predicate {
	finalizing := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetDeletionTimestamp() != nil && controllerutil.ContainsFinalizer(o, Finalizer)
	})
	return predicate.And(predicate.Or(reconcile.Managed(denyList), finalizing), reconcile.SpecOrResync())
}

// OfPod maps a warehouse pod (instance label "<wh>-warehouse") to its warehouse.
func OfPod(_ context.Context, o client.Object) []ctrl.Request {
	if o.GetLabels()[resources.ComponentLabel] != string(resources.ComponentCN) {
		return nil
	}
	name, ok := strings.CutSuffix(o.GetLabels()[resources.ClusterLabel], "-warehouse")
	if !ok || name == "" {
		return nil
	}
	return []ctrl.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

// OfCluster maps a cluster (its FE becoming ready, its spec) to
// the warehouses that join it and, for cluster x-warehouse, to warehouse x,
// whose objects' names it takes (or gives back, once deleted).
func (r *Reconciler) OfCluster(ctx context.Context, o client.Object) []ctrl.Request {
	var reqs []ctrl.Request
	if name, ok := strings.CutSuffix(o.GetName(), "-warehouse"); ok && name != "" {
		reqs = append(reqs, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}})
	}
	var list srv1.StarRocksWarehouseList
	if err := r.Client.List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{ClusterIndex: o.GetName()}); err != nil {
		return reqs
	}
	for _, wh := range list.Items {
		if req := (ctrl.Request{NamespacedName: types.NamespacedName{Namespace: wh.Namespace, Name: wh.Name}}); !slices.Contains(reqs, req) {
			reqs = append(reqs, req)
		}
	}
	return reqs
}

// UsingConfigMap maps a ConfigMap to the warehouses that read it:
// as their cn.conf, or as the fe.conf of their cluster (run_mode, ports).
func (r *Reconciler) UsingConfigMap(ctx context.Context, cm *metav1.PartialObjectMetadata) []ctrl.Request {
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
			reqs = append(reqs, r.OfCluster(ctx, &clusters.Items[i])...)
		}
	}
	return reqs
}
