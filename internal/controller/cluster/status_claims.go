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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// unboundClaims names the Pending claims of the cluster's StatefulSets whose
// claim templates ask for storageClassName "": Kubernetes binds such a claim
// only to a pre-made PersistentVolume without a class, never to the default
// StorageClass, so their pods never start (an earlier chart of ours rendered
// "" for an unset class). Claim templates are immutable: the status names
// the claims, and docs/helm-migration.md says how to bind or replace them.
// Claims are not cached: they are listed only for a StatefulSet with such a
// template whose pods are not all ready, never for a healthy cluster.
func (r *Reconciler) unboundClaims(ctx context.Context, s *clusterScope) []string {
	reader := r.APIReader
	var out []string
	for _, c := range statefulSetComponents {
		sts := s.in.live[c]
		if sts == nil || sts.Spec.Selector == nil || sts.Status.ReadyReplicas >= ptr.Deref(sts.Spec.Replicas, 1) {
			continue
		}
		var noClass []string
		for _, t := range sts.Spec.VolumeClaimTemplates {
			if t.Spec.StorageClassName != nil && *t.Spec.StorageClassName == "" {
				noClass = append(noClass, t.Name+"-"+sts.Name+"-")
			}
		}
		if len(noClass) == 0 {
			continue
		}
		// The StatefulSet controller labels its claims with the selector's labels.
		var claims corev1.PersistentVolumeClaimList
		if err := reader.List(ctx, &claims, client.InNamespace(sts.Namespace), client.MatchingLabels(sts.Spec.Selector.MatchLabels)); err != nil {
			continue // reported once it can be read
		}
		for _, pvc := range claims.Items {
			if pvc.Status.Phase == corev1.ClaimPending && ptr.Deref(pvc.Spec.StorageClassName, "-") == "" &&
				slices.ContainsFunc(noClass, func(prefix string) bool { return strings.HasPrefix(pvc.Name, prefix) }) {
				out = append(out, "PersistentVolumeClaim "+pvc.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}
