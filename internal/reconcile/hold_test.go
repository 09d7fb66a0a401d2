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
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// Progressing tells the StarRocks-aware steps with their own reason, a
// stall first; the operator's own waits (an ordered rollout) only say what
// the component waits for. A new step needs no list to be told.
func TestProgressingTellsTheStepsAStallFirst(t *testing.T) {
	hs := Holds{
		{Component: resources.ComponentFE, Reason: srv1.ReasonOrderedRollout, Message: "after BE", Report: Waits},
		{Component: resources.ComponentBE, Reason: srv1.ReasonDecommissioning, Message: "FE decommissions sr-be-3", Report: Steps},
		{Component: resources.ComponentCN, Reason: srv1.ReasonRolloutStalled, Message: "sr-cn-1 not Alive", Report: Steps},
		{Component: resources.ComponentCN, Reason: "AnyNewStep", Message: "a step of tomorrow", Report: Steps},
	}
	obs := &status.Observed{}
	hs.Observe(obs)
	if obs.StepReason != srv1.ReasonRolloutStalled {
		t.Errorf("step reason %q, want the stall's", obs.StepReason)
	}
	want := "BE: FE decommissions sr-be-3; CN: sr-cn-1 not Alive; CN: a step of tomorrow"
	if obs.Step != want {
		t.Errorf("step %q, want %q", obs.Step, want)
	}
	if got := hs.Waiting(resources.ComponentFE); got != "after BE" {
		t.Errorf("FE waits for %q, want its ordered rollout", got)
	}
	if got := hs.Waiting(resources.ComponentBE); got != "FE decommissions sr-be-3" {
		t.Errorf("BE waits for %q, want its decommission", got)
	}
}

// A held field set directly is the same object as one set through its JSON
// form, and only the held field changes.
func TestSetFieldSetsHeldFieldsAsTheirJSONFormWould(t *testing.T) {
	base := func() *appsv1.StatefulSet {
		return &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: "sr-be"},
			Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](4), ServiceName: "sr-be-search",
				UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}},
		}
	}
	viaJSON := func(obj *appsv1.StatefulSet, field []string, value any) {
		t.Helper()
		raw, _ := json.Marshal(value)
		var v any
		_ = json.Unmarshal(raw, &v)
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(m, integers(v), field...); err != nil {
			t.Fatal(err)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, obj); err != nil {
			t.Fatal(err)
		}
	}
	partition := appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}}
	for _, tt := range []struct {
		name  string
		field []string
		value any
	}{
		{"replicas", []string{"spec", "replicas"}, int32(3)},
		{"a partition", []string{"spec", "updateStrategy"}, partition},
		{"OnDelete", []string{"spec", "updateStrategy"}, appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}},
		{"a field held through JSON", []string{"spec", "minReadySeconds"}, int32(5)},
	} {
		got, want := base(), base()
		if err := SetField(got, tt.field, tt.value); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		viaJSON(want, tt.field, tt.value)
		if !equality.Semantic.DeepEqual(got, want) || equality.Semantic.DeepEqual(got, base()) {
			t.Errorf("%s: set to %+v, want %+v (and not the object unchanged)", tt.name, got.Spec, want.Spec)
		}
	}
	// The value held is a copy: changing it after does not change the object.
	got := base()
	v := *partition.DeepCopy()
	_ = SetField(got, []string{"spec", "updateStrategy"}, v)
	*v.RollingUpdate.Partition = 0
	if *got.Spec.UpdateStrategy.RollingUpdate.Partition != 2 {
		t.Error("the held strategy shares its partition with the caller's value")
	}
}
