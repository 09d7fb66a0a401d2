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
	"maps"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// notReady names, by ordinal, the FE pods that cannot answer: not Ready,
// terminating, or deleted and not made again while the StatefulSet keeps
// their ordinal. (It was once handed empty pod names, and found none.)
func TestNotReadyFEPods(t *testing.T) {
	names := starrocks.PodNames{StatefulSet: "sr-fe"}
	pod := func(name string, ready, deleting bool) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
		if deleting {
			p.DeletionTimestamp = ptr.To(metav1.Now())
		}
		return p
	}
	sts := &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(int32(5))}}
	got := notReady(names, []corev1.Pod{pod("sr-fe-0", true, false), pod("sr-fe-1", false, false), pod("sr-fe-2", true, true), pod("sr-fe-4", true, false)}, sts)
	if want := []int{1, 2, 3}; !slices.Equal(slices.Sorted(maps.Keys(got)), want) {
		t.Errorf("not Ready %v, want ordinals %v (not Ready, terminating, missing)", slices.Sorted(maps.Keys(got)), want)
	}
}
