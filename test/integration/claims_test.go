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

package integration_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// A claim growth deletes the StatefulSet with orphaned pods and makes it
// again from the deleted one (expandClaims' stand-in). No garbage collector
// runs on the API server alone, so the deleted StatefulSets stay, being
// deleted, until the test takes their orphan finalizer off as the
// collector would: first FE's, whose new StatefulSet is not ready at once,
// then BE's while FE is still not ready. The stand-in was forgotten as
// soon as the cache showed the old, terminating StatefulSet, and BE was
// then made from the spec alone, with another pod template: every BE pod
// restarted (the simulated cluster's "pods replaced by the expansion").
func testClaimsGrowWhileTheOldStatefulSetGoes(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns = "regrow"
	testutil.CreateNamespace(t, c.Client, ns)
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "regrow-expandable"}, Provisioner: "example.com/none", AllowVolumeExpansion: ptr.To(true)}
	if err := c.Client.Create(ctx, class); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Client.Delete(context.Background(), class) })
	refused := func(fe.Target) (string, string) { return "127.0.0.1:1", "http://127.0.0.1:1" }
	op := startOperator(t, c, ns, operatorOptions{fe: refused, feLookEvery: time.Second})
	src := beWithStorage(ns, "rg", class.Name, "10Gi")
	// No StarRocks answers here: the be.conf change rolls without FE's word.
	src.Annotations = map[string]string{srv1.RolloutGateAnnotation: srv1.RolloutGateOff}
	beConf := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "rg-be-conf"}, Data: map[string]string{"be.conf": "sys_log_level = INFO\n"}}
	if err := c.Client.Create(ctx, beConf); err != nil {
		t.Fatal(err)
	}
	src.Spec.StarRocksBeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: beConf.Name, ResolveKey: "be.conf"}
	src.Spec.StarRocksFeSpec.StorageVolumes = []srv1.StorageVolume{{Name: "fe-meta", StorageClassName: ptr.To(class.Name), StorageSize: "10Gi", MountPath: "/opt/starrocks/fe/meta"}}
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	oldFE := statefulSetWhen(t, c, ns, "rg-fe", "FE made", func(*appsv1.StatefulSet) bool { return true })
	markReady(t, c, oldFE)
	statefulSetWhen(t, c, ns, "rg-be", "BE made once FE is ready", func(*appsv1.StatefulSet) bool { return true })
	// be.conf changed since creation: the BE pod template carries its hash,
	// which a BE made from the spec alone does not.
	mutate(t, c.Client, beConf, func(cm *corev1.ConfigMap) { cm.Data["be.conf"] = "sys_log_level = WARN\n" })
	oldBE := statefulSetWhen(t, c, ns, "rg-be", "be.conf's hash on the BE pod template", func(sts *appsv1.StatefulSet) bool {
		return sts.Spec.Template.Annotations[resources.ConfigHashAnnotation] != ""
	})
	oldFE = statefulSetWhen(t, c, ns, "rg-fe", "FE as it runs", func(*appsv1.StatefulSet) bool { return true })

	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksBeSpec.StorageVolumes[0].StorageSize = "20Gi"
		s.Spec.StarRocksFeSpec.StorageVolumes[0].StorageSize = "20Gi"
	})
	deleting := func(sts *appsv1.StatefulSet) bool { return sts.DeletionTimestamp != nil }
	statefulSetWhen(t, c, ns, "rg-fe", "FE deleted, its pods orphaned, to grow its claims", deleting)
	statefulSetWhen(t, c, ns, "rg-be", "BE deleted, its pods orphaned, to grow its claims", deleting)
	op.log.waitQuiet(2*time.Second, 20*time.Second) // looked at both while they go

	orphaned(t, c, oldFE)
	newFE := statefulSetWhen(t, c, ns, "rg-fe", "FE made again, not ready yet", func(sts *appsv1.StatefulSet) bool { return sts.UID != oldFE.UID })
	op.log.waitQuiet(2*time.Second, 20*time.Second) // looked at the new FE, not ready, and the old BE, going
	be := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, ns, "rg-be", be); err != nil || be.UID != oldBE.UID {
		t.Fatalf("BE written in place of the one going: %v, UID %s, want %s", err, be.UID, oldBE.UID)
	}
	orphaned(t, c, oldBE)
	eventually(t, 30*time.Second, "the old BE gone", func(ctx context.Context) (bool, error) {
		err := get(ctx, c.Client, ns, "rg-be", be)
		return apierrors.IsNotFound(err) || (err == nil && be.UID != oldBE.UID), client.IgnoreNotFound(err)
	})
	op.log.waitQuiet(2*time.Second, 20*time.Second) // looked at the cluster without BE, FE not ready
	markReady(t, c, newFE)
	newBE := statefulSetWhen(t, c, ns, "rg-be", "BE made again with 20Gi claims", func(sts *appsv1.StatefulSet) bool {
		q := sts.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage]
		return sts.UID != oldBE.UID && q.String() == "20Gi"
	})
	if !apiequality.Semantic.DeepEqual(newBE.Spec.Template, oldBE.Spec.Template) {
		t.Errorf("BE made again with another pod template: every BE pod restarts; config hash %q, want %q as it ran",
			newBE.Spec.Template.Annotations[resources.ConfigHashAnnotation], oldBE.Spec.Template.Annotations[resources.ConfigHashAnnotation])
	}
	if !apiequality.Semantic.DeepEqual(newFE.Spec.Template, oldFE.Spec.Template) {
		t.Errorf("FE made again with another pod template: every FE pod restarts")
	}
}

// statefulSetWhen waits until the StatefulSet called name exists and ok holds for it.
func statefulSetWhen(t *testing.T, c *testcluster.Cluster, ns, name, what string, ok func(*appsv1.StatefulSet) bool) *appsv1.StatefulSet {
	t.Helper()
	sts := &appsv1.StatefulSet{}
	eventually(t, 30*time.Second, name+": "+what, func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, name, sts); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return ok(sts), nil
	})
	return sts
}

// markReady gives a StatefulSet the status the StatefulSet controller would
// once all its pods are ready: none runs on the API server alone.
func markReady(t *testing.T, c *testcluster.Cluster, sts *appsv1.StatefulSet) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		if err := c.Client.Get(context.Background(), client.ObjectKeyFromObject(sts), sts); err != nil {
			return err
		}
		n := ptr.Deref(sts.Spec.Replicas, 1)
		sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: n, ReadyReplicas: n, AvailableReplicas: n, UpdatedReplicas: n, CurrentReplicas: n}
		return c.Client.Status().Update(context.Background(), sts)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// orphaned does the garbage collector's part of an orphaning delete: it
// takes the orphan finalizer off (there are no pods to orphan here).
func orphaned(t *testing.T, c *testcluster.Cluster, sts *appsv1.StatefulSet) {
	t.Helper()
	mutate(t, c.Client, sts.DeepCopy(), func(s *appsv1.StatefulSet) {
		if s.UID != sts.UID {
			t.Fatalf("%s: another StatefulSet of its name already", sts.Name)
		}
		s.Finalizers = nil
	})
}
