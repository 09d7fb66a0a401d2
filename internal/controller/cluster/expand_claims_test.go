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
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/srscale/starrocks-operator/internal/reconcile"
)

func claim(name, size string) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}}}
}

func withClaims(policy appsv1.PodManagementPolicyType, claims ...corev1.PersistentVolumeClaim) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "c-be"}, Spec: appsv1.StatefulSetSpec{
		ServiceName: "c-be-search", PodManagementPolicy: policy, VolumeClaimTemplates: claims,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "be"}}}}
}

// The StatefulSet expandClaims deleted stands in until the cache shows the
// one made again: another UID, not being deleted. The deleted one, still
// cached while the garbage collector orphans its pods, is not it.
func TestTheStandInLastsUntilTheNewStatefulSet(t *testing.T) {
	key := types.NamespacedName{Namespace: "ns", Name: "c-be"}
	deleted := withClaims("Parallel", claim("data", "20Gi"))
	deleted.Namespace, deleted.UID = "ns", "old"
	cached := func(uid types.UID, deleting bool) *appsv1.StatefulSet {
		sts := withClaims("Parallel", claim("data", "10Gi"))
		sts.Namespace, sts.UID = "ns", uid
		if deleting {
			sts.DeletionTimestamp = ptr.To(metav1.Now())
		}
		return sts
	}
	tests := []struct {
		name   string
		cached *appsv1.StatefulSet
		stands bool
	}{
		{name: "the deleted one, not yet seen deleting", cached: cached("old", false), stands: true},
		{name: "the deleted one, deleting", cached: cached("old", true), stands: true},
		{name: "none", cached: nil, stands: true},
		{name: "a new one being deleted already", cached: cached("new", true), stands: true},
		{name: "the new one", cached: cached("new", false), stands: false},
	}
	g := reconcile.NewMemo[*appsv1.StatefulSet](nil)
	g.Put(key, deleted)
	for _, tt := range tests {
		got := standIn(g, key, tt.cached)
		if (got != nil) != tt.stands || (got != nil && got != deleted) {
			t.Errorf("%s: stand-in %v, want it: %v", tt.name, got != nil, tt.stands)
		}
	}
	if got := standIn(g, key, nil); got != nil {
		t.Errorf("the stand-in is back once the new one was seen: %+v", got)
	}
	if got := standIn(reconcile.NewMemo[*appsv1.StatefulSet](nil), key, nil); got != nil {
		t.Errorf("a stand-in for a StatefulSet no claim growth deleted: %+v", got)
	}
}
