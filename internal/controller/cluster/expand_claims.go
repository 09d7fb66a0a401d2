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
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;patch
// Claims without a class use the default one, found by listing them all.
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get;list

// expandClaims grows the claims of a StatefulSet whose storage size grew:
// it checks that each StorageClass allows expansion, patches every existing
// claim, then deletes the StatefulSet with orphaned pods. The next
// reconcile creates it again with the larger claim templates; its pods run on
// untouched (the pod template, and so the revision, is the same). This is how
// the upstream operator and other database operators expand volumes.
//
// Until the cache shows the new StatefulSet, the deleted one, with its
// claims grown, stands in for the live one (see regrowing): the next
// reconcile builds from what ran (the config hash on the template, FE's
// replicas, the rollout order), not as if nothing were live, which would
// restart every pod. The deleted one may stay in the cache a while, being
// deleted (the garbage collector orphans its pods first): it is not the
// new one, and nothing is written in its place until it is gone.
func (r *Reconciler) expandClaims(ctx context.Context, live *appsv1.StatefulSet, grow []reconcile.ClaimGrowth) error {
	for _, g := range grow {
		if err := r.checkExpandable(ctx, g.StorageClassName); err != nil {
			return &reconcile.UserError{Reason: srv1.ReasonStorageNotExpandable, Message: fmt.Sprintf("storageVolumes[%s].storageSize: cannot grow from %s to %s: %v", g.Template, g.From.String(), g.To.String(), err)}
		}
	}
	replicas := ptr.Deref(live.Spec.Replicas, 1)
	for _, g := range grow {
		for i := range replicas {
			name := fmt.Sprintf("%s-%s-%d", g.Template, live.Name, i)
			patch := fmt.Sprintf(`{"spec":{"resources":{"requests":{"storage":%q}}}}`, g.To.String())
			pvc := &corev1.PersistentVolumeClaim{}
			pvc.Namespace, pvc.Name = live.Namespace, name
			err := r.Client.Patch(ctx, pvc, client.RawPatch(types.MergePatchType, []byte(patch)), client.FieldOwner(reconcile.FieldOwner))
			if client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("growing claim %s to %s: %w", name, g.To.String(), err)
			}
		}
	}
	grown := live.DeepCopy()
	for i, t := range grown.Spec.VolumeClaimTemplates {
		for _, g := range grow {
			if t.Name == g.Template {
				grown.Spec.VolumeClaimTemplates[i].Spec.Resources.Requests[corev1.ResourceStorage] = g.To
			}
		}
	}
	uid := live.UID
	err := r.Client.Delete(ctx, live, client.Preconditions{UID: &uid}, client.PropagationPolicy("Orphan"))
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("recreating StatefulSet %s with larger claims: %w", live.Name, err)
	}
	r.regrowing.Put(client.ObjectKeyFromObject(grown), grown)
	return nil
}

// standIn returns the StatefulSet of that name deleted to grow its claims
// (remembered in regrowing) until the cache shows the new one, and then
// forgets it. The new one is told by its UID and by not being deleted: the
// deleted one, still cached (with or without its deletionTimestamp yet), is not it.
func standIn(regrowing *reconcile.Memo[*appsv1.StatefulSet], key types.NamespacedName, cached *appsv1.StatefulSet) *appsv1.StatefulSet {
	var old *appsv1.StatefulSet
	regrowing.Update(key, func(v *appsv1.StatefulSet, ok bool) (*appsv1.StatefulSet, bool) {
		if !ok || (cached != nil && cached.UID != v.UID && cached.DeletionTimestamp == nil) {
			return nil, false
		}
		old = v
		return v, true
	})
	return old
}

// recreated is the StatefulSet to create in place of a deleted one whose
// spec is held: its live spec, with its claims grown.
func recreated(old *appsv1.StatefulSet) *appsv1.StatefulSet {
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: old.Namespace, Name: old.Name,
		Labels: old.Labels, Annotations: old.Annotations, OwnerReferences: old.OwnerReferences}, Spec: *old.Spec.DeepCopy()}
	sts.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("StatefulSet"))
	return sts
}

func (r *Reconciler) checkExpandable(ctx context.Context, className *string) error {
	reader := r.APIReader
	if className == nil || *className == "" {
		var classes storagev1.StorageClassList
		if err := reader.List(ctx, &classes); err != nil {
			return err
		}
		for _, c := range classes.Items {
			if c.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" {
				className = &c.Name
			}
		}
		if className == nil || *className == "" {
			return fmt.Errorf("the claims use the default StorageClass, and there is none")
		}
	}
	class := &storagev1.StorageClass{}
	if err := reader.Get(ctx, client.ObjectKey{Name: *className}, class); err != nil {
		return fmt.Errorf("StorageClass %s: %w", *className, err)
	}
	if !ptr.Deref(class.AllowVolumeExpansion, false) {
		return fmt.Errorf("StorageClass %s does not allow volume expansion", *className)
	}
	return nil
}
