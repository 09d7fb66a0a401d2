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
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;patch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get

// immutableCheck is what a desired StatefulSet would change of the live one
// that Kubernetes does not allow to change in place.
type immutableCheck struct {
	// held explains, naming the field, why the StatefulSet keeps its live
	// spec; empty when it may be applied.
	held string
	// grow lists the claims whose size grows: expandable, by patching the
	// claims and recreating the StatefulSet around its running pods.
	grow []claimGrowth
}

type claimGrowth struct {
	template         string // claim template name
	from, to         resource.Quantity
	storageClassName *string
}

// checkImmutable compares desired with live. Fields that cannot change and
// that desired only words differently (serviceName, podManagementPolicy,
// selector, claim template metadata) take the live value in desired, so
// that a StatefulSet made by another version or operator is kept, not
// failed on forever. What the user really changed is held or grown.
func checkImmutable(live, desired *appsv1.StatefulSet, field string) immutableCheck {
	if live == nil || desired == nil {
		return immutableCheck{}
	}
	var notes []string
	if desired.Spec.ServiceName != live.Spec.ServiceName {
		desired.Spec.ServiceName = live.Spec.ServiceName
	}
	if desired.Spec.Selector == nil || !apiequality.Semantic.DeepEqual(desired.Spec.Selector, live.Spec.Selector) {
		desired.Spec.Selector = live.Spec.Selector.DeepCopy()
	}
	if policy := desired.Spec.PodManagementPolicy; policy != "" && policy != live.Spec.PodManagementPolicy {
		notes = append(notes, fmt.Sprintf("%s.podManagementPolicy: %s cannot replace %s on a running StatefulSet", field, policy, live.Spec.PodManagementPolicy))
	}

	grow, claimNotes := compareClaims(live, desired, field)
	notes = append(notes, claimNotes...)
	if len(notes) > 0 {
		return immutableCheck{held: strings.Join(notes, "; ") + fmt.Sprintf("; StatefulSet %s keeps its current spec", live.Name)}
	}
	if len(grow) == 0 && !sameClaimMetadata(live.Spec.VolumeClaimTemplates, desired.Spec.VolumeClaimTemplates) {
		// The same claims worded otherwise (made by another operator or
		// version): send the live templates, which the server accepts.
		desired.Spec.VolumeClaimTemplates = live.Spec.VolumeClaimTemplates
	}
	return immutableCheck{grow: grow}
}

// compareClaims compares desired's claim templates with live's: the claims
// to grow, and what Kubernetes cannot change (a class, a smaller size, a
// claim added or removed). A class left unset takes the live one.
func compareClaims(live, desired *appsv1.StatefulSet, field string) ([]claimGrowth, []string) {
	var grow []claimGrowth
	var notes []string
	liveClaims := map[string]corev1.PersistentVolumeClaim{}
	for _, c := range live.Spec.VolumeClaimTemplates {
		liveClaims[c.Name] = c
	}
	var added, removed []string
	for i := range desired.Spec.VolumeClaimTemplates {
		want := &desired.Spec.VolumeClaimTemplates[i]
		have, ok := liveClaims[want.Name]
		if !ok {
			added = append(added, want.Name)
			continue
		}
		delete(liveClaims, want.Name)
		if want.Spec.StorageClassName == nil && have.Spec.StorageClassName != nil {
			// Unset asks for nothing in particular: the class the claims were
			// made with stays (it cannot change). A live "" (no class, from an
			// earlier chart of ours) is reported as ClaimsUnbound while Pending.
			want.Spec.StorageClassName = ptr.To(*have.Spec.StorageClassName)
		}
		if cls := want.Spec.StorageClassName; cls != nil && ptr.Deref(have.Spec.StorageClassName, "") != *cls {
			notes = append(notes, fmt.Sprintf("%s.storageVolumes[%s].storageClassName: %s cannot replace %s", field, want.Name, *cls, ptr.Deref(have.Spec.StorageClassName, "the default class")))
		}
		from, to := have.Spec.Resources.Requests[corev1.ResourceStorage], want.Spec.Resources.Requests[corev1.ResourceStorage]
		switch to.Cmp(from) {
		case 1:
			grow = append(grow, claimGrowth{template: want.Name, from: from, to: to, storageClassName: have.Spec.StorageClassName})
		case -1:
			notes = append(notes, fmt.Sprintf("%s.storageVolumes[%s].storageSize: %s is smaller than %s; volumes cannot shrink", field, want.Name, to.String(), from.String()))
		}
	}
	for name := range liveClaims {
		removed = append(removed, name)
	}
	if len(added) > 0 || len(removed) > 0 {
		slices.Sort(added)
		slices.Sort(removed)
		notes = append(notes, fmt.Sprintf("%s.storageVolumes: claims cannot be added to or removed from a running StatefulSet (added %v, removed %v)", field, added, removed))
	}
	return grow, notes
}

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
func (r *StarRocksClusterReconciler) expandClaims(ctx context.Context, live *appsv1.StatefulSet, grow []claimGrowth) error {
	for _, g := range grow {
		if err := r.checkExpandable(ctx, g.storageClassName); err != nil {
			return &reconcile.UserError{Reason: srv1.ReasonStorageNotExpandable, Message: fmt.Sprintf("storageVolumes[%s].storageSize: cannot grow from %s to %s: %v", g.template, g.from.String(), g.to.String(), err)}
		}
	}
	replicas := ptr.Deref(live.Spec.Replicas, 1)
	for _, g := range grow {
		for i := range replicas {
			name := fmt.Sprintf("%s-%s-%d", g.template, live.Name, i)
			patch := fmt.Sprintf(`{"spec":{"resources":{"requests":{"storage":%q}}}}`, g.to.String())
			pvc := &corev1.PersistentVolumeClaim{}
			pvc.Namespace, pvc.Name = live.Namespace, name
			err := r.Client.Patch(ctx, pvc, client.RawPatch(types.MergePatchType, []byte(patch)), client.FieldOwner(FieldOwner))
			if client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("growing claim %s to %s: %w", name, g.to.String(), err)
			}
		}
	}
	grown := live.DeepCopy()
	for i, t := range grown.Spec.VolumeClaimTemplates {
		for _, g := range grow {
			if t.Name == g.template {
				grown.Spec.VolumeClaimTemplates[i].Spec.Resources.Requests[corev1.ResourceStorage] = g.to
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

func (r *StarRocksClusterReconciler) checkExpandable(ctx context.Context, className *string) error {
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
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

// sameClaimMetadata is true when the claim templates carry the same labels
// and annotations, in the same order: then what we send is what we sent.
func sameClaimMetadata(live, desired []corev1.PersistentVolumeClaim) bool {
	if len(live) != len(desired) {
		return false
	}
	for i := range live {
		if live[i].Name != desired[i].Name || !apiequality.Semantic.DeepEqual(live[i].Labels, desired[i].Labels) ||
			!apiequality.Semantic.DeepEqual(live[i].Annotations, desired[i].Annotations) {
			return false
		}
	}
	return true
}
