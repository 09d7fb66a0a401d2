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
	"fmt"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// Issue 50 items 19 and 22: a claim growth deletes the StatefulSet and makes
// it again from the spec, without the gate's partition, and with its
// currentRevision set to the update revision. Mid gated rollout it waits
// until every pod runs the update revision; the gate's partition is not a
// hold, and the growth's stand-in lives in memory, gone after a SIGKILL.
func TestClaimGrowthWaitsForAGatedRollout(t *testing.T) {
	be := resources.ComponentBE
	tests := []struct {
		name      string
		partition int32
		current   string
		revs      []string
		annotate  map[string]string
		deferred  bool
	}{
		{"the gate's partition is set, 1 of 3 replaced", 2, "old", []string{"old", "old", "new"}, nil, true},
		{"made again once already: currentRevision is the update revision, pods are not", 0, "new", []string{"old", "old", "new"}, nil, true},
		{"control: every pod runs the update revision", 0, "new", []string{"new", "new", "new"}, nil, false},
		{"control: the gate is off, the rollout is the StatefulSet controller's", 0, "old", []string{"old", "old", "new"}, map[string]string{srv1.RolloutGateAnnotation: srv1.RolloutGateOff}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := beCluster("be:2")
			src.Annotations = tc.annotate
			live := running(src, be, 3)
			live.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To(tc.partition)}}
			live.Status = appsv1.StatefulSetStatus{ObservedGeneration: live.Generation, CurrentRevision: tc.current, UpdateRevision: "new", Replicas: 3, ReadyReplicas: 3}
			s := scopeOf(t, src, map[resources.Component]*appsv1.StatefulSet{be: live})
			s.want.grow = map[resources.Component][]reconcile.ClaimGrowth{be: {{Template: "be-storage"}}}
			var ps []corev1.Pod
			for i, rev := range tc.revs {
				ps = append(ps, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("%s-%d", live.Name, i),
					Labels: map[string]string{appsv1.StatefulSetRevisionLabel: rev}}})
			}
			s.pods = map[resources.Component][]corev1.Pod{be: ps}
			(&Reconciler{}).deferGrowth(t.Context(), s, be)
			_, grows := s.want.grow[be]
			if grows == tc.deferred {
				t.Fatalf("claims grow now = %v, want %v", grows, !tc.deferred)
			}
			held := slices.ContainsFunc(s.holds, func(h reconcile.Hold) bool {
				return h.Component == be && slices.Equal(h.Field, claimTemplatesField)
			})
			if held != tc.deferred {
				t.Errorf("claim templates held = %v, want %v", held, tc.deferred)
			}
		})
	}
}
