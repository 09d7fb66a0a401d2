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

package reconcile

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// ImmutableCheck is what a desired StatefulSet would change of the live one
// that Kubernetes does not allow to change in place.
type ImmutableCheck struct {
	// Held explains, naming the field, why the StatefulSet keeps its live
	// spec; empty when it may be applied.
	Held string
	// Grow lists the claims whose size grows: expandable, by patching the
	// claims and recreating the StatefulSet around its running pods.
	Grow []ClaimGrowth
}

// ClaimGrowth is one claim template whose size grows.
type ClaimGrowth struct {
	Template         string // claim template name
	From, To         resource.Quantity
	StorageClassName *string
}

// CheckImmutable compares desired with live. Fields that cannot change and
// that desired only words differently (serviceName, podManagementPolicy,
// selector, claim template metadata) take the live value in desired, so
// that a StatefulSet made by another version or operator is kept, not
// failed on forever. What the user really changed is held or grown.
func CheckImmutable(live, desired *appsv1.StatefulSet, field string) ImmutableCheck {
	if live == nil || desired == nil {
		return ImmutableCheck{}
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
		return ImmutableCheck{Held: strings.Join(notes, "; ") + fmt.Sprintf("; StatefulSet %s keeps its current spec", live.Name)}
	}
	if len(grow) == 0 && !sameClaimMetadata(live.Spec.VolumeClaimTemplates, desired.Spec.VolumeClaimTemplates) {
		// The same claims worded otherwise (made by another operator or
		// version): send the live templates, which the server accepts.
		desired.Spec.VolumeClaimTemplates = live.Spec.VolumeClaimTemplates
	}
	return ImmutableCheck{Grow: grow}
}

// compareClaims compares desired's claim templates with live's: the claims
// to grow, and what Kubernetes cannot change (a class, a smaller size, a
// claim added or removed). A class left unset takes the live one.
func compareClaims(live, desired *appsv1.StatefulSet, field string) ([]ClaimGrowth, []string) {
	var grow []ClaimGrowth
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
			grow = append(grow, ClaimGrowth{Template: want.Name, From: from, To: to, StorageClassName: have.Spec.StorageClassName})
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
