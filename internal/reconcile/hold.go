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
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// A Hold keeps part of what the spec asks for at its live value, and says
// why: a component whose .conf cannot be read, a StatefulSet whose edit
// Kubernetes cannot make, a StatefulSet that waits for its turn in an
// ordered rollout, the components a disaster recovery sets aside, a
// removed component that still holds data. Holds are decided while the
// desired state is built and by the phases; sync honours them and the
// status reports them, each in one place.
type Hold struct {
	// Component is whose objects are held. Without Object, every object of
	// the component is held: none is written, none deleted.
	Component resources.Component
	// Object, when set, is the one desired object held.
	Object client.Object
	// Field, when set, is the one field of Object held (spec.replicas,
	// say) at Value, or at its live value when Value is nil; the rest of
	// Object is written. A field hold is taken through a scope's hold,
	// the one place a built object changes after it is built (SetField,
	// KeepFields).
	Field []string
	Value any
	// Reason is the condition reason; Message says what is held and why.
	Reason, Message string
	// Report is how the status tells it.
	Report Report
	// Backoff is set for a hold whose cause may pass by itself (FE not
	// answering): the reconcile comes back on the reconciler's own
	// back-off, not on a watch event, and the retries are not logged.
	Backoff bool
}

// Report is how a hold shows in status.
type Report int

const (
	// Waits says the component waits for something of the operator's own
	// (its turn in an ordered rollout, a disaster recovery); its phase says
	// what.
	Waits Report = iota
	// Steps is a StarRocks-aware step in progress (a decommission, an FE
	// leaving FE's group, a gated rollout): it waits as Waits does, and
	// Progressing tells it with the hold's own reason.
	Steps
	// Warns says the component runs on as it is; ConfigUnavailable says why, and a Warning Event when it starts.
	Warns
	// Refuses says a change of the spec is refused; ReconcileError says why
	// (a user error, not retried), and a Warning Event when it starts.
	Refuses
	// AwaitsConsent says a removed component is kept until the user agrees to
	// delete its data; Progressing says how.
	AwaitsConsent
	// Quiet is a field kept for the sake of another hold of the component,
	// which is the one the status tells.
	Quiet
)

// Holds are a reconcile's holds, in the order they were decided.
type Holds []Hold

// Whole reports whether every object of c is held.
func (hs Holds) Whole(c resources.Component) bool {
	return slices.ContainsFunc(hs, func(h Hold) bool { return h.Component == c && h.Object == nil })
}

// Keeps reports whether obj, a desired object of c, must not be written whole.
func (hs Holds) Keeps(c resources.Component, obj client.Object) bool {
	_, ok := hs.Keeping(c, obj)
	return ok
}

// Keeping is the message of the first hold that keeps obj of component c
// whole (see Keeps); ok is false when none does.
func (hs Holds) Keeping(c resources.Component, obj client.Object) (message string, ok bool) {
	i := slices.IndexFunc(hs, func(h Hold) bool {
		return h.Component == c && (h.Object == nil || (h.Object == obj && len(h.Field) == 0))
	})
	if i < 0 {
		return "", false
	}
	return hs[i].Message, true
}

// Fields returns the fields of obj held (at a value of their own or at
// their live one).
func (hs Holds) Fields(obj client.Object) [][]string {
	var out [][]string
	for _, h := range hs {
		if h.Object == obj && len(h.Field) > 0 {
			out = append(out, h.Field)
		}
	}
	return out
}

// Of returns the holds reported as report.
func (hs Holds) Of(report Report) Holds {
	return slices.DeleteFunc(slices.Clone(hs), func(h Hold) bool { return h.Report != report })
}

// Waiting is why c waits; empty when it does not.
func (hs Holds) Waiting(c resources.Component) string {
	for _, h := range hs {
		if h.Component == c && (h.Report == Waits || h.Report == Steps) {
			return h.Message
		}
	}
	return ""
}

// Err is the refusals as one user error; nil when there is none.
func (hs Holds) Err() error {
	refused := hs.Of(Refuses)
	if len(refused) == 0 {
		return nil
	}
	msgs := make([]string, len(refused))
	for i, h := range refused {
		msgs[i] = h.Message
	}
	return &UserError{Reason: refused[0].Reason, Message: strings.Join(msgs, "; ")}
}

// Warning is the first warning as an error, for the ConfigUnavailable condition; nil when none.
func (hs Holds) Warning() *UserError {
	if w := hs.Of(Warns); len(w) > 0 {
		return &UserError{Reason: w[0].Reason, Message: w[0].Message}
	}
	return nil
}

// Observe writes into obs what the holds tell beside the components' own
// waits: the refusals as the reconcile error, the first warning, and the
// removals that wait for consent.
func (hs Holds) Observe(obs *status.Observed) {
	if err := hs.Err(); err != nil {
		obs.ReconcileError, obs.ReconcileErrorReason = err, Reason(err)
	}
	if w := hs.Warning(); w != nil {
		obs.ConfigWarning, obs.ConfigWarningReason = w, w.Reason
	}
	var removed []string
	for _, h := range hs.Of(AwaitsConsent) {
		if h.Message != "" {
			removed = append(removed, h.Message)
		}
	}
	var steps []string
	for _, h := range hs.Of(Steps) {
		if obs.StepReason == "" || (stalled(h.Reason) && !stalled(obs.StepReason)) {
			obs.StepReason = h.Reason // a stall is what to see first
		}
		steps = append(steps, h.Component.Title()+": "+h.Message)
	}
	obs.Step = strings.Join(steps, "; ")
	if len(removed) > 0 {
		obs.RemovalHeld = fmt.Sprintf("%s removed from the spec but kept with their data; annotate the cluster %s=true to delete them",
			strings.Join(removed, " and "), srv1.DeleteRemovedComponentsAnnotation)
	}
}

// stalled reports whether a step's reason says it made no progress for too long.
func stalled(reason string) bool {
	return reason == srv1.ReasonDecommissionStalled || reason == srv1.ReasonRolloutStalled
}

// SetField sets field of obj to value, a typed Go value (an int32, a
// struct of the API). The fields the operator holds on every reconcile of
// a step (a StatefulSet's replicas and update strategy) are set directly;
// any other goes through its JSON form.
func SetField(obj client.Object, field []string, value any) error {
	if setStatefulSetField(obj, field, value) {
		return nil
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	if err := unstructured.SetNestedField(m, integers(v), field...); err != nil {
		return fmt.Errorf("holding %s of %s: %w", strings.Join(field, "."), obj.GetName(), err)
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(m, obj)
}

// setStatefulSetField sets the StatefulSet fields held most often without
// converting the object, and reports whether it did.
func setStatefulSetField(obj client.Object, field []string, value any) bool {
	sts, ok := obj.(*appsv1.StatefulSet)
	if !ok || len(field) != 2 || field[0] != "spec" {
		return false
	}
	switch v := value.(type) {
	case int32:
		if field[1] == "replicas" {
			sts.Spec.Replicas = &v
			return true
		}
	case appsv1.StatefulSetUpdateStrategy:
		if field[1] == "updateStrategy" {
			sts.Spec.UpdateStrategy = *v.DeepCopy()
			return true
		}
	}
	return false
}

// integers turns JSON's whole float64 numbers into the int64 an
// unstructured object holds.
func integers(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = integers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = integers(e)
		}
	}
	return v
}

// KeepFields copies the held fields of live into desired, which is written
// with the rest of its spec.
func KeepFields(desired, live client.Object, fields [][]string) error {
	if len(fields) == 0 || live == nil {
		return nil
	}
	want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(desired)
	if err != nil {
		return err
	}
	have, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
	if err != nil {
		return err
	}
	for _, f := range fields {
		v, found, err := unstructured.NestedFieldNoCopy(have, f...)
		if err != nil {
			return fmt.Errorf("holding %s of %s: %w", strings.Join(f, "."), live.GetName(), err)
		}
		if !found {
			unstructured.RemoveNestedField(want, f...)
			continue
		}
		if err := unstructured.SetNestedField(want, runtime.DeepCopyJSONValue(v), f...); err != nil {
			return fmt.Errorf("holding %s of %s: %w", strings.Join(f, "."), live.GetName(), err)
		}
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(want, desired)
}
