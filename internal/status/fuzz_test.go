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
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/plugin"
)

// FuzzCompute: whatever the cache shows, Compute returns one status, the same
// for the same input, with sorted conditions that the API server accepts.
func FuzzCompute(f *testing.F) {
	f.Add(int32(3), int32(3), int32(3), int64(1), int64(1), "", "", false, 3, "")
	f.Add(int32(3), int32(1), int32(0), int64(2), int64(1), "CrashLoopBackOff", "waiting for FE", true, 1, "boom")
	f.Add(int32(-1), int32(99), int32(-5), int64(0), int64(7), "ImagePullBackOff", "", true, 0, strings.Repeat("x", 40000))
	f.Fuzz(func(t *testing.T, replicas, ready, updated int32, generation, observed int64, waitingReason, waiting string, outdated bool, pods int, errText string) {
		if pods < 0 || pods > 50 {
			t.Skip()
		}
		sts := &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: "c-fe", Generation: generation},
			Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)},
			Status:     appsv1.StatefulSetStatus{ObservedGeneration: observed, Replicas: replicas, ReadyReplicas: ready, UpdatedReplicas: updated},
		}
		var list []corev1.Pod
		for i := range pods {
			list = append(list, pod("c-fe-"+string(rune('a'+i%26)), i%2 == 0, waitingReason))
		}
		obs := Observed{FE: &Component{Name: "FE", StatefulSet: sts, Replicas: replicas, Pods: list, Waiting: waiting, Outdated: outdated},
			BE: &Component{Name: "BE", Waiting: waiting}}
		if errText != "" {
			obs.ReconcileError, obs.ReconcileErrorReason = errors.New(errText), srv1.ReasonApplyFailed
		}
		src := cluster()
		st, again := Compute(src, obs), Compute(src, obs)
		for i := range st.Conditions { // new conditions are stamped with the time of the call
			st.Conditions[i].LastTransitionTime, again.Conditions[i].LastTransitionTime = metav1.Time{}, metav1.Time{}
		}
		// and so is the summary's time, from them: summarized again without it.
		st.Summary, again.Summary = summarized(src, st), summarized(src, again)
		if !equality.Semantic.DeepEqual(st, again) {
			t.Fatal("two computations of the same input differ")
		}
		if !slices.IsSortedFunc(st.Conditions, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) }) {
			t.Fatal("conditions not sorted")
		}
		for _, c := range st.Conditions {
			if c.Reason == "" || len(c.Message) > MaxConditionMessage || c.ObservedGeneration != src.Generation {
				t.Fatalf("condition the API server would reject or that lies: %+v", c)
			}
		}
		if st.Phase == srv1.PhaseRunning && (outdated || waiting != "" || obs.ReconcileError != nil) {
			t.Fatalf("running although outdated=%v waiting=%q error=%v", outdated, waiting, obs.ReconcileError)
		}
	})
}

// summarized is the summary of src with status st.
func summarized(src *srv1.StarRocksCluster, st srv1.StarRocksClusterStatus) *srv1.StarRocksClusterSummary {
	shown := *src
	shown.Status = st
	return plugin.Summarize(&shown)
}
