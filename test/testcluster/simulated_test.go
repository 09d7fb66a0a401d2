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

package testcluster

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A StatefulSet with a volume claim template gets its pods scheduled and Ready.
func TestSimulatedClusterRunsStatefulSets(t *testing.T) {
	c := ForTest(t, Options{Simulated: true})
	ctx := context.Background()
	labels := map[string]string{"app": "demo"}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "default"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To[int32](3),
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example/none"}}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: mustQuantity("1Gi")}},
				},
			}},
		},
	}
	if err := c.Client.Create(ctx, sts); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(sts), sts); err != nil {
			return false, err
		}
		return sts.Status.ObservedGeneration >= sts.Generation && sts.Status.ReadyReplicas == 3, nil
	})
	if err != nil {
		t.Fatalf("StatefulSet never had 3 ready replicas (status %+v): %v", sts.Status, err)
	}
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }
