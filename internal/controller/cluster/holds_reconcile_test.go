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
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
)

func TestAUserErrorBesideAFailedWriteIsRetried(t *testing.T) {
	src := feCluster()
	src.Spec.StarRocksFeSpec.StorageVolumes = []srv1.StorageVolume{{Name: "fe-meta", StorageSize: "10Gi", MountPath: "/opt/starrocks/fe/meta"}}
	api := &fakeAPI{}
	r := newReconciler(t, api, src)
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatalf("first reconcile: %v", err)
	}
	// The claims grow, which no StorageClass allows here (a user error), and
	// the client Service's new type cannot be written (a failed write).
	if err := r.Client.Get(t.Context(), client.ObjectKeyFromObject(src), src); err != nil {
		t.Fatal(err)
	}
	src.Spec.StarRocksFeSpec.StorageVolumes[0].StorageSize = "20Gi"
	src.Spec.StarRocksFeSpec.Service = &srv1.StarRocksService{Type: corev1.ServiceTypeNodePort}
	src.Generation++
	if err := r.Client.Update(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	api.failApply = "Service"
	_, err := reconcileOnce(t, r)
	if err == nil {
		t.Fatal("Reconcile returned no error; the failed Service write beside the user error must be retried")
	}
	st := api.statusWrites()
	if got := reconcileErrorReason(st[len(st)-1]); got != srv1.ReasonStorageNotExpandable {
		t.Errorf("ReconcileError reason %q; want %s, the user's to fix", got, srv1.ReasonStorageNotExpandable)
	}
}

func TestABrieflyMissingMountedConfKeepsTheRunningComponentsAsTheyRun(t *testing.T) {
	src := feCluster()
	src.Spec.StarRocksFeSpec.ConfigMaps = []srv1.ConfigMapReference{{Name: "fe-conf", MountPath: "/opt/starrocks/fe/conf/fe.conf", SubPath: "fe.conf"}}
	conf := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fe-conf"}, Data: map[string]string{"fe.conf": "query_port = 9031\n"}}
	api := &fakeAPI{}
	r := newReconciler(t, api, src, conf)
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	queryPort := func() int32 {
		svc := &corev1.Service{}
		if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: src.FeServiceName()}, svc); err != nil {
			t.Fatal(err)
		}
		for _, p := range svc.Spec.Ports {
			if p.Name == "query" {
				return p.Port
			}
		}
		return 0
	}
	if got := queryPort(); got != 9031 {
		t.Fatalf("query port %d; want fe.conf's 9031", got)
	}
	// A GitOps tool replaces the ConfigMap: for a moment it is gone.
	if err := r.Client.Delete(t.Context(), conf); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if got := queryPort(); got != 9031 {
		t.Errorf("query port %d while the ConfigMap is gone; want 9031 kept, not the default", got)
	}
	st := api.statusWrites()
	cond := meta.FindStatusCondition(st[len(st)-1].Conditions, srv1.ConditionConfigUnavailable)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != srv1.ReasonConfigMapNotFound {
		t.Errorf("ConfigUnavailable = %+v; want True, %s", cond, srv1.ReasonConfigMapNotFound)
	}
}

func TestARunningComponentWhoseConfCannotBeReadFollowsItsPods(t *testing.T) {
	// An upstream example names a ConfigMap that does not exist; the upstream
	// runs it with an empty fe.conf. Its FE runs, every pod ready.
	src := feCluster()
	src.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "no-such-cm", ResolveKey: "fe.conf"}
	live := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: src.FeStatefulSetName(), Generation: 1},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(int32(1))},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1,
			CurrentRevision: "r1", UpdateRevision: "r1"},
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: src.FeStatefulSetName() + "-0", Labels: map[string]string{
			resources.OwnerLabel: src.FeStatefulSetName(), resources.ComponentLabel: string(resources.ComponentFE)}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
	api := &fakeAPI{}
	r := newReconciler(t, api, src, live, pod)
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	st := api.statusWrites()
	last := st[len(st)-1]
	if last.Phase != srv1.PhaseRunning || !meta.IsStatusConditionTrue(last.Conditions, srv1.ConditionConfigUnavailable) {
		t.Errorf("phase %q (%s), ConfigUnavailable %v; want running with the warning: the phase follows the pods",
			last.Phase, last.Reason, meta.IsStatusConditionTrue(last.Conditions, srv1.ConditionConfigUnavailable))
	}
}

func TestClaimsWithNoStorageClassThatStayPendingAreNamed(t *testing.T) {
	src := feCluster()
	src.Spec.StarRocksFeSpec.StorageVolumes = []srv1.StorageVolume{{Name: "fe-meta", StorageClassName: ptr.To(""), StorageSize: "10Gi", MountPath: "/opt/starrocks/fe/meta"}}
	api := &fakeAPI{}
	r := newReconciler(t, api, src)
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: src.FeStatefulSetName()}, sts); err != nil {
		t.Fatal(err)
	}
	// What the StatefulSet controller makes of the template: a claim per pod, labelled with the selector.
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fe-meta-" + sts.Name + "-0", Labels: sts.Spec.Selector.MatchLabels},
		Spec:       corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("")},
		Status:     corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
	}
	if err := r.Client.Create(t.Context(), pvc); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	st := api.statusWrites()
	cond := meta.FindStatusCondition(st[len(st)-1].Conditions, srv1.ConditionClaimsUnbound)
	if cond == nil || cond.Status != metav1.ConditionTrue || !strings.Contains(cond.Message, pvc.Name) {
		t.Fatalf("ClaimsUnbound = %+v; want True naming %s", cond, pvc.Name)
	}
	// Bound (a PersistentVolume without a class was made for it): the condition clears.
	pvc.Status.Phase = corev1.ClaimBound
	if err := r.Client.Status().Update(t.Context(), pvc); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	st = api.statusWrites()
	if cond := meta.FindStatusCondition(st[len(st)-1].Conditions, srv1.ConditionClaimsUnbound); cond == nil || cond.Status != metav1.ConditionFalse {
		t.Errorf("ClaimsUnbound = %+v once bound; want False", cond)
	}
}

func TestAFailedReadOfTheSnapshotIsRetriedNotReportedMissing(t *testing.T) {
	src := feCluster()
	src.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "fe-conf", ResolveKey: "fe.conf"}
	src.Spec.DisasterRecovery = &srv1.DisasterRecovery{Enabled: true, Generation: 1}
	src.Spec.StarRocksFeSpec.ConfigMaps = []srv1.ConfigMapReference{{Name: "snapshot", MountPath: "/opt/starrocks/fe/conf/cluster_snapshot.yaml", SubPath: "cluster_snapshot.yaml"}}
	conf := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fe-conf"}, Data: map[string]string{"fe.conf": "run_mode = shared_data\n"}}
	snapshot := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "snapshot"}, Data: map[string]string{"cluster_snapshot.yaml": "cluster_snapshot: {}\n"}}
	api := &fakeAPI{failConfigMap: "snapshot"}
	r := newReconciler(t, api, src, conf, snapshot)
	if _, err := reconcileOnce(t, r); err == nil {
		t.Error("Reconcile returned no error; a failed read must be retried")
	}
	for _, st := range api.statusWrites() {
		if reason := reconcileErrorReason(st); reason == srv1.ReasonClusterSnapshotMissing {
			t.Errorf("reported %s for a snapshot that exists but could not be read", reason)
		}
	}
}
