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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

// The cluster-wide ConfigMap metadata cache keeps names and resourceVersions
// only: a kubectl last-applied annotation holds a whole copy of the ConfigMap.
func TestConfigMapMetadataCacheDropsAnnotationsAndManagedFields(t *testing.T) {
	big := strings.Repeat("x", 256<<10)
	cm := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "fe-conf", ResourceVersion: "42",
		Annotations:   map[string]string{"kubectl.kubernetes.io/last-applied-configuration": big},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", FieldsV1: metav1.NewFieldsV1(big)}},
	}}
	out, err := slimMetadata(cm)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*metav1.PartialObjectMetadata)
	if got.Annotations != nil || got.ManagedFields != nil {
		t.Errorf("kept %d annotations and %d managedFields entries", len(got.Annotations), len(got.ManagedFields))
	}
	if got.Name != "fe-conf" || got.Namespace != "ns" || got.ResourceVersion != "42" {
		t.Errorf("lost what the operator reads: %s/%s@%s", got.Namespace, got.Name, got.ResourceVersion)
	}
}

// Cached objects keep who wrote them and how, without the field sets: enough
// for apply to know when to hand a create's fields over, at a fraction of the size.
func TestCachedObjectsKeepManagersWithoutFieldSets(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", ManagedFields: []metav1.ManagedFieldsEntry{
		{Manager: reconcile.FieldOwner, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &metav1.Time{}, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{}}`)},
		{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", FieldsV1: metav1.NewFieldsV1(`{}`)},
	}}}
	out, err := slimManagedFields(svc)
	if err != nil {
		t.Fatal(err)
	}
	mf := out.(*corev1.Service).ManagedFields
	want := []metav1.ManagedFieldsEntry{
		{Manager: reconcile.FieldOwner, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1"},
		{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status"},
	}
	if len(mf) != len(want) {
		t.Fatalf("managedFields %+v, want %+v", mf, want)
	}
	for i := range want {
		if mf[i].Manager != want[i].Manager || mf[i].Operation != want[i].Operation || mf[i].Subresource != want[i].Subresource ||
			mf[i].APIVersion != want[i].APIVersion || mf[i].FieldsV1 != nil || mf[i].Time != nil {
			t.Errorf("entry %d is %+v, want %+v", i, mf[i], want[i])
		}
	}
}

// The FE pods the operator dropped from FE's group keep that mark in the
// cache (issue 34 item 10); every other annotation goes.
func TestPodCacheKeepsOnlyTheDroppedFromFEGroupMark(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sr-fe-2", Annotations: map[string]string{
		srv1.DroppedFromFEGroupAnnotation: "true", "kubectl.kubernetes.io/last-applied-configuration": "{}",
	}}}
	got, err := slimPod(p)
	if err != nil {
		t.Fatal(err)
	}
	if a := got.(*corev1.Pod).Annotations; len(a) != 1 || a[srv1.DroppedFromFEGroupAnnotation] != "true" {
		t.Errorf("annotations kept %v, want only the mark", a)
	}
	got, _ = slimPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"a": "b"}}})
	if a := got.(*corev1.Pod).Annotations; a != nil {
		t.Errorf("annotations kept %v, want none", a)
	}
}
