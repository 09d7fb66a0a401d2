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

package status

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func readyPod(name string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
}

func TestComputeWarehouse(t *testing.T) {
	wh := &srv1.StarRocksWarehouse{ObjectMeta: metav1.ObjectMeta{Name: "w", Generation: 3}}
	running := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Generation: 1},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(int32(2))},
		Status:     appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 2, UpdatedReplicas: 2},
	}
	cases := []struct {
		name        string
		obs         WarehouseObserved
		phase       srv1.Phase
		readyReason string
		replicas    int32
	}{
		{"all pods ready is running", WarehouseObserved{CN: &Component{Replicas: 2, StatefulSet: running, Pods: []corev1.Pod{readyPod("w-warehouse-cn-0"), readyPod("w-warehouse-cn-1")}}, Selector: "a=b", HPAName: "w-warehouse-cn-autoscaler"},
			srv1.PhaseRunning, srv1.ReasonAllComponentsRunning, 2},
		{"no StatefulSet yet is reconciling", WarehouseObserved{CN: &Component{Replicas: 2}}, srv1.PhaseReconciling, srv1.ReasonComponentsNotReady, 0},
		{"a failed check is failed with its reason", WarehouseObserved{ReconcileError: errors.New("no cluster"), ReconcileErrorReason: srv1.ReasonClusterNotFound}, srv1.PhaseFailed, srv1.ReasonClusterNotFound, 0},
		{"a StatefulSet without the desired spec is reconciling, whatever it reports", WarehouseObserved{CN: &Component{Replicas: 2, StatefulSet: running, Outdated: true, Pods: []corev1.Pod{readyPod("w-warehouse-cn-0"), readyPod("w-warehouse-cn-1")}}, Selector: "a=b"},
			srv1.PhaseReconciling, srv1.ReasonComponentsNotReady, 2},
		{"a failed check keeps the replicas that run", WarehouseObserved{CN: &Component{Replicas: 2, StatefulSet: running, Pods: []corev1.Pod{readyPod("w-warehouse-cn-0"), readyPod("w-warehouse-cn-1")}}, Selector: "a=b",
			ReconcileError: errors.New("FE not ready"), ReconcileErrorReason: srv1.ReasonFENotReady}, srv1.PhaseFailed, srv1.ReasonFENotReady, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := ComputeWarehouse(wh, c.obs)
			ready := meta.FindStatusCondition(st.Conditions, srv1.ConditionReady)
			if st.Phase != c.phase || ready == nil || ready.Reason != c.readyReason || st.Replicas != c.replicas || st.ObservedGeneration != 3 {
				t.Errorf("phase %q, Ready %+v, replicas %d, observedGeneration %d", st.Phase, ready, st.Replicas, st.ObservedGeneration)
			}
			if c.obs.CN != nil && st.Selector != c.obs.Selector {
				t.Errorf("selector %q; want %q whenever the compute nodes are observed", st.Selector, c.obs.Selector)
			}
			again := ComputeWarehouse(&srv1.StarRocksWarehouse{ObjectMeta: wh.ObjectMeta, Status: st}, c.obs)
			if !equalStatus(st, again) {
				t.Errorf("computing from its own result changed the status:\n%+v\n%+v", st, again)
			}
		})
	}
}

func equalStatus(a, b srv1.StarRocksWarehouseStatus) bool {
	if len(a.Conditions) != len(b.Conditions) || a.Phase != b.Phase || a.Reason != b.Reason {
		return false
	}
	for i := range a.Conditions {
		if a.Conditions[i] != b.Conditions[i] {
			return false
		}
	}
	return true
}
