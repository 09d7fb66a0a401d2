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
	"errors"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

func TestAJoinedErrorIsTransientIfAnyPartIs(t *testing.T) {
	user := &reconcile.UserError{Reason: srv1.ReasonStorageNotExpandable, Message: "cannot grow"}
	write := errors.New("applying Service sr-fe-service: connection refused")
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"a user error", user, false},
		{"a wrapped user error", fmt.Errorf("reading: %w", user), false},
		{"two user errors", errors.Join(user, &reconcile.UserError{Reason: srv1.ReasonConfigMapNotFound, Message: "gone"}), false},
		{"a failed write", write, true},
		{"a user error beside a failed write", errors.Join(user, write), true},
		{"a wrapped join with a failed write", fmt.Errorf("sync: %w", errors.Join(user, write)), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := reconcile.Transient(tt.err); got != tt.want {
				t.Errorf("reconcile.Transient(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
	if got := reconcile.Reason(errors.Join(write, user)); got != srv1.ReasonStorageNotExpandable {
		t.Errorf("errorReason of a joined error = %q; want the user error's reason", got)
	}
}

func TestHoldsKeepWhatTheySay(t *testing.T) {
	sts, svc := &appsv1.StatefulSet{}, &corev1.Service{}
	hs := reconcile.Holds{
		{Component: resources.ComponentBE, Reason: srv1.ReasonDisasterRecovery, Message: "held while disaster recovery runs", Report: reconcile.Waits},
		{Component: resources.ComponentFE, Object: sts, Reason: srv1.ReasonImmutableFieldChanged, Message: "podManagementPolicy", Report: reconcile.Refuses},
		{Component: resources.ComponentCN, Object: sts, Field: []string{"spec", "replicas"}, Reason: "Decommissioning", Report: reconcile.Waits},
	}
	for _, tt := range []struct {
		name string
		got  bool
		want bool
	}{
		{"a whole component is held, written and deleted alike", hs.Whole(resources.ComponentBE), true},
		{"an object hold holds no whole component", hs.Whole(resources.ComponentFE), false},
		{"every object of a whole-held component is kept", hs.Keeps(resources.ComponentBE, svc), true},
		{"the held object is kept", hs.Keeps(resources.ComponentFE, sts), true},
		{"the component's other objects are written", hs.Keeps(resources.ComponentFE, svc), false},
		{"a field hold writes the rest of the object", hs.Keeps(resources.ComponentCN, sts), false},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if f := hs.Fields(sts); len(f) != 1 || f[0][1] != "replicas" {
		t.Errorf("fields = %v; want spec.replicas", f)
	}
	obs := &status.Observed{}
	hs.Observe(obs)
	if obs.ReconcileError == nil || obs.ReconcileErrorReason != srv1.ReasonImmutableFieldChanged || reconcile.Transient(obs.ReconcileError) {
		t.Errorf("a refusal is reported as a user error: %v (%s)", obs.ReconcileError, obs.ReconcileErrorReason)
	}
	if hs.Waiting(resources.ComponentBE) != "held while disaster recovery runs" || hs.Waiting(resources.ComponentFE) != "" {
		t.Errorf("waiting: BE %q, FE %q", hs.Waiting(resources.ComponentBE), hs.Waiting(resources.ComponentFE))
	}
}

func TestAFieldHoldKeepsTheLiveValueAndWritesTheRest(t *testing.T) {
	live := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "sr-be"}, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3),
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "be", Image: "be:3.3.1"}}}}}}
	want := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "sr-be", Labels: map[string]string{"a": "b"}}, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](2),
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "be", Image: "be:3.3.2"}}}}}}
	s := &clusterScope{in: &clusterInputs{live: map[resources.Component]*appsv1.StatefulSet{resources.ComponentBE: live}}}
	s.hold(reconcile.Hold{Component: resources.ComponentBE, Object: want, Field: []string{"spec", "replicas"}, Report: reconcile.Waits})
	if s.err != nil {
		t.Fatal(s.err)
	}
	if got := ptr.Deref(want.Spec.Replicas, 0); got != 3 {
		t.Errorf("replicas = %d; want the live 3", got)
	}
	if want.Spec.Template.Spec.Containers[0].Image != "be:3.3.2" || want.Labels["a"] != "b" {
		t.Errorf("the rest of the object changed: %+v", want)
	}
	// A field the live object lacks is dropped from the desired one.
	unset := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "sr-be"}}
	want.Spec.MinReadySeconds = 10
	if err := reconcile.KeepFields(want, unset, [][]string{{"spec", "minReadySeconds"}}); err != nil {
		t.Fatal(err)
	}
	if want.Spec.MinReadySeconds != 0 || ptr.Deref(want.Spec.Replicas, 0) != 3 {
		t.Errorf("minReadySeconds %d, replicas %v; want 0 and 3", want.Spec.MinReadySeconds, want.Spec.Replicas)
	}
	if s.live(resources.ComponentBE, &corev1.Service{}) != nil {
		t.Error("a Service has no live workload")
	}
}

// A field held at a value of its own is set at once, and a hash taken of
// the object before is dropped: what is compared and written after is the
// held object.
func TestAFieldHeldAtAValueIsSetAndRehashed(t *testing.T) {
	live := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "sr-be"}, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3)}}
	want := live.DeepCopy()
	s := &clusterScope{in: &clusterInputs{live: map[resources.Component]*appsv1.StatefulSet{resources.ComponentBE: live}},
		want: &desired{hashes: apply.NewHashes()}}
	s.want.hashes.Written(live, want) // hashed before the hold, as the rollout order does
	strategy := appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}}
	s.hold(reconcile.Hold{Component: resources.ComponentBE, Object: want, Field: updateStrategyField, Value: strategy, Report: reconcile.Waits})
	if s.err != nil {
		t.Fatal(s.err)
	}
	if got := want.Spec.UpdateStrategy; got.RollingUpdate == nil || ptr.Deref(got.RollingUpdate.Partition, -1) != 2 || got.Type != strategy.Type {
		t.Errorf("strategy %+v; want partition 2", got)
	}
	if ptr.Deref(want.Spec.Replicas, 0) != 3 {
		t.Errorf("replicas %v changed", want.Spec.Replicas)
	}
	live.Annotations = map[string]string{apply.HashAnnotation: mustHash(t, want)}
	if !s.want.hashes.Written(live, want) {
		t.Error("the hash taken before the hold is still used: the held object is compared as the built one")
	}
	if len(s.holds) != 1 || s.holds[0].Reason != "" || len(s.holds.Fields(want)) != 1 {
		t.Errorf("holds %+v; want the one field hold", s.holds)
	}
}

func mustHash(t *testing.T, obj client.Object) string {
	t.Helper()
	_, sum, err := apply.Desired(obj)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}
