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

package cluster

import (
	"context"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// OfPod maps a pod to its cluster through the owner label
// (<cluster>-<component>): pod templates carry the upstream's labels only, so
// that adopting an upstream cluster changes no template.
func OfPod(_ context.Context, o client.Object) []ctrl.Request {
	l := o.GetLabels()
	name, ok := strings.CutSuffix(l[resources.OwnerLabel], "-"+l[resources.ComponentLabel])
	if !ok || name == "" {
		return nil
	}
	return []ctrl.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

// ConfigMapsOf are the ConfigMaps a cluster reads its .conf files from
// (the reconcile.ConfigMapIndex of clusters).
func ConfigMapsOf(o client.Object) []string {
	src, ok := o.(*srv1.StarRocksCluster)
	if !ok {
		return nil
	}
	var names []string
	for _, c := range resources.Components {
		if c == resources.ComponentFEProxy {
			continue // the proxy reads no .conf of its own
		}
		if from, ok := resources.ConfSourceOf(c, resources.ComponentSpec(src, c)); ok && !slices.Contains(names, from.ConfigMap) {
			names = append(names, from.ConfigMap)
		}
	}
	return names
}

// UsingConfigMap maps a ConfigMap to the clusters that read it.
func (r *Reconciler) UsingConfigMap(ctx context.Context, cm *metav1.PartialObjectMetadata) []ctrl.Request {
	var list srv1.StarRocksClusterList
	if err := r.Client.List(ctx, &list, client.InNamespace(cm.Namespace), client.MatchingFields{reconcile.ConfigMapIndex: cm.Name}); err != nil {
		return nil
	}
	reqs := make([]ctrl.Request, 0, len(list.Items))
	for _, src := range list.Items {
		reqs = append(reqs, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: src.Namespace, Name: src.Name}})
	}
	return reqs
}
