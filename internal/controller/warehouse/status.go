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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// liveCN is the warehouse's CN StatefulSet as the cache shows it; nil when
// there is none, or when the StatefulSet of its name is controlled by
// another object (theirs: a cluster <wh>-warehouse's), which the warehouse
// does not report as its own, nor its pods.
func (r *Reconciler) liveCN(ctx context.Context, wh *srv1.StarRocksWarehouse) (live *appsv1.StatefulSet, theirs bool) {
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.CnStatefulSetName()}, sts); err != nil {
		return nil, false
	}
	if controlledByOther(wh, sts) {
		return nil, true
	}
	return sts, false
}

// controlledByOther reports whether obj, of a name the warehouse's objects
// have, has a controller that is not the warehouse: it is not the
// warehouse's, whatever its name. One without a controller (orphaned, or
// made by hand) is taken for the warehouse's, as before.
func controlledByOther(wh *srv1.StarRocksWarehouse, obj client.Object) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID != wh.UID
}

// observe reads from the cache what the status reports. As the cluster's,
// it runs before the writes: once the objects are built, a StatefulSet that
// does not carry the desired spec yet (its hash annotation is not the
// desired one's) is Outdated, and nothing it reports counts as running that
// spec. Before they are built (a check failed), what runs is reported as it is.
func (r *Reconciler) observe(ctx context.Context, s *scope) status.WarehouseObserved {
	wh := s.wh
	var tmpl srv1.WarehouseComponentSpec
	if wh.Spec.Template != nil {
		tmpl = *wh.Spec.Template
	}
	comp := &status.Component{Name: "CN", ServiceName: wh.CnServiceName(), ResourceNames: []string{wh.CnStatefulSetName()}, Replicas: ptr.Deref(tmpl.Replicas, 1), StatefulSet: s.live}
	if s.want != nil {
		comp.Outdated = s.live == nil || !apply.NewHashes().Written(s.live, s.want.StatefulSet)
	}
	var pods corev1.PodList
	if s.theirs {
		comp.Pods = nil // the pods of the warehouse's labels are the other object's
	} else if err := r.Client.List(ctx, &pods, client.InNamespace(wh.Namespace), client.MatchingLabels(resources.WarehouseSelectorLabels(wh))); err == nil {
		comp.Pods = pods.Items
	}
	obs := status.WarehouseObserved{CN: comp, Selector: labels.Set(resources.WarehouseSelectorLabels(wh)).String()}
	if tmpl.AutoScalingPolicy != nil {
		obs.HPAName = wh.CnAutoscalerName()
	}
	return obs
}

// statusPath is how a warehouse is read, and where its status is (reconcile.StatusPath).
func statusPath(c client.Client, memos *reconcile.Memos) *reconcile.StatusPath[*srv1.StarRocksWarehouse, srv1.StarRocksWarehouseStatus] {
	return reconcile.NewStatusPath(c, reconcile.FieldOwner, "StarRocksWarehouse", func() *srv1.StarRocksWarehouse { return &srv1.StarRocksWarehouse{} },
		func(o *srv1.StarRocksWarehouse) *srv1.StarRocksWarehouseStatus { return &o.Status }, memos)
}
