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
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
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

func TestCheckImmutable(t *testing.T) {
	tests := []struct {
		name          string
		live, desired *appsv1.StatefulSet
		held          string // part of the message; empty: not held
		grow          []string
	}{
		{name: "unchanged claims pass", live: withClaims("Parallel", claim("data", "10Gi")), desired: withClaims("Parallel", claim("data", "10Gi"))},
		{name: "a larger claim grows", live: withClaims("Parallel", claim("data", "10Gi")), desired: withClaims("Parallel", claim("data", "20Gi")), grow: []string{"data"}},
		{name: "a smaller claim is held", live: withClaims("Parallel", claim("data", "10Gi")), desired: withClaims("Parallel", claim("data", "5Gi")),
			held: "spec.starRocksBeSpec.storageVolumes[data].storageSize: 5Gi is smaller than 10Gi"},
		{name: "an added claim is held", live: withClaims("Parallel", claim("data", "10Gi")), desired: withClaims("Parallel", claim("data", "10Gi"), claim("log", "1Gi")),
			held: "claims cannot be added to or removed from a running StatefulSet (added [log], removed [])"},
		{name: "a removed claim is held", live: withClaims("Parallel", claim("data", "10Gi"), claim("log", "1Gi")), desired: withClaims("Parallel", claim("data", "10Gi")),
			held: "removed [log]"},
		{name: "another pod management policy is held", live: withClaims("OrderedReady"), desired: withClaims("Parallel"),
			held: "spec.starRocksBeSpec.podManagementPolicy: Parallel cannot replace OrderedReady"},
		{name: "no policy keeps the live one", live: withClaims("OrderedReady"), desired: withClaims("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckImmutable(tt.live, tt.desired, "spec.starRocksBeSpec")
			if (got.Held != "") != (tt.held != "") || !strings.Contains(got.Held, tt.held) {
				t.Errorf("held %q, want one containing %q", got.Held, tt.held)
			}
			var grew []string
			for _, g := range got.Grow {
				grew = append(grew, g.Template)
			}
			if strings.Join(grew, ",") != strings.Join(tt.grow, ",") {
				t.Errorf("grow %v, want %v", grew, tt.grow)
			}
		})
	}
}

func TestClaimsWordedOtherwiseTakeTheLiveTemplates(t *testing.T) {
	live := withClaims("Parallel", claim("data", "10Gi"))
	live.Spec.VolumeClaimTemplates[0].Labels = map[string]string{"made-by": "another-operator"}
	live.Spec.ServiceName = "legacy-search"
	desired := withClaims("Parallel", claim("data", "10Gi"))
	if got := CheckImmutable(live, desired, "spec.starRocksBeSpec"); got.Held != "" || len(got.Grow) != 0 {
		t.Fatalf("held %q grow %v", got.Held, got.Grow)
	}
	if desired.Spec.VolumeClaimTemplates[0].Labels["made-by"] != "another-operator" || desired.Spec.ServiceName != "legacy-search" {
		t.Fatalf("desired does not keep the live immutable fields: %+v", desired.Spec)
	}
	ours := withClaims("Parallel", claim("data", "10Gi"))
	again := withClaims("Parallel", claim("data", "10Gi"))
	CheckImmutable(ours, again, "spec.starRocksBeSpec")
	if again.Spec.VolumeClaimTemplates[0].Labels != nil || ptr.Deref(again.Spec.Replicas, -1) != -1 {
		t.Fatalf("our own templates were rewritten: %+v", again.Spec)
	}
}

func TestAnUnsetClassKeepsTheClassTheClaimsWereMadeWith(t *testing.T) {
	for _, class := range []string{"", "standard"} {
		live := withClaims("Parallel", claim("be-data", "10Gi"))
		live.Spec.VolumeClaimTemplates[0].Spec.StorageClassName = ptr.To(class)
		desired := withClaims("Parallel", claim("be-data", "10Gi")) // no class: asks for nothing in particular
		if got := CheckImmutable(live, desired, "spec.starRocksBeSpec"); got.Held != "" || len(got.Grow) != 0 {
			t.Errorf("live class %q: %+v; want nothing held (a class cannot change, and none was asked for)", class, got)
		}
		if c := desired.Spec.VolumeClaimTemplates[0].Spec.StorageClassName; c == nil || *c != class {
			t.Errorf("live class %q: desired class %v; want the live one sent, which the API server accepts", class, c)
		}
	}
}
