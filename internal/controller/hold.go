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

package controller

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// A hold keeps part of what the spec asks for at its live value, and says
// why: a component whose .conf cannot be read, a StatefulSet whose edit
// Kubernetes cannot make, a StatefulSet that waits for its turn in an
// ordered rollout, the components a disaster recovery sets aside, a
// removed component that still holds data. Holds are decided while the
// desired state is built and by the phases; sync honours them and the
// status reports them, each in one place.
type hold struct {
	// component is whose objects are held. Without object, every object of
	// the component is held: none is written, none deleted.
	component resources.Component
	// object, when set, is the one desired object held.
	object client.Object
	// field, when set, is the one field of object held (spec.replicas,
	// say) at value, or at its live value when value is nil; the rest of
	// object is written. A field hold is taken through holdField, the one
	// place a built object changes after it is built.
	field []string
	value any
	// reason is the condition reason; message says what is held and why.
	reason, message string
	// report is how the status tells it.
	report holdReport
	// backoff is set for a hold whose cause may pass by itself (FE not
	// answering): the reconcile comes back on the reconciler's own
	// back-off, not on a watch event, and the retries are not logged.
	backoff bool
}

// holdReport is how a hold shows in status.
type holdReport int

const (
	// waits: a step in progress; the component's phase says what it waits for.
	waits holdReport = iota
	// warns: the component runs on as it is; ConfigUnavailable says why, and a Warning Event when it starts.
	warns
	// refuses: a change of the spec is refused; ReconcileError says why
	// (a user error, not retried), and a Warning Event when it starts.
	refuses
	// awaitsConsent: a removed component is kept until the user agrees to
	// delete its data; Progressing says how.
	awaitsConsent
	// quiet: a field kept for the sake of another hold of the component,
	// which is the one the status tells.
	quiet
)

// holds are a reconcile's holds, in the order they were decided.
type holds []hold

// whole reports whether every object of c is held.
func (hs holds) whole(c resources.Component) bool {
	return slices.ContainsFunc(hs, func(h hold) bool { return h.component == c && h.object == nil })
}

// keeps reports whether obj, a desired object of c, must not be written whole.
func (hs holds) keeps(c resources.Component, obj client.Object) bool {
	return slices.ContainsFunc(hs, func(h hold) bool {
		return h.component == c && (h.object == nil || (h.object == obj && len(h.field) == 0))
	})
}

// fields returns the fields of obj held at their live value.
func (hs holds) fields(obj client.Object) [][]string {
	var out [][]string
	for _, h := range hs {
		if h.object == obj && len(h.field) > 0 {
			out = append(out, h.field)
		}
	}
	return out
}

// of returns the holds reported as report.
func (hs holds) of(report holdReport) holds {
	return slices.DeleteFunc(slices.Clone(hs), func(h hold) bool { return h.report != report })
}

// waiting is why c waits; empty when it does not.
func (hs holds) waiting(c resources.Component) string {
	for _, h := range hs {
		if h.component == c && h.report == waits {
			return h.message
		}
	}
	return ""
}

// err is the refusals as one user error; nil when there is none.
func (hs holds) err() error {
	refused := hs.of(refuses)
	if len(refused) == 0 {
		return nil
	}
	msgs := make([]string, len(refused))
	for i, h := range refused {
		msgs[i] = h.message
	}
	return &reconcile.UserError{Reason: refused[0].reason, Message: strings.Join(msgs, "; ")}
}

// warning is the first warning as an error, for the ConfigUnavailable condition; nil when none.
func (hs holds) warning() *reconcile.UserError {
	if w := hs.of(warns); len(w) > 0 {
		return &reconcile.UserError{Reason: w[0].reason, Message: w[0].message}
	}
	return nil
}

// observe writes into obs what the holds tell beside the components' own
// waits: the refusals as the reconcile error, the first warning, and the
// removals that wait for consent.
func (hs holds) observe(obs *status.Observed) {
	if err := hs.err(); err != nil {
		obs.ReconcileError, obs.ReconcileErrorReason = err, reconcile.Reason(err)
	}
	if w := hs.warning(); w != nil {
		obs.ConfigWarning, obs.ConfigWarningReason = w, w.Reason
	}
	var removed []string
	for _, h := range hs.of(awaitsConsent) {
		if h.message != "" {
			removed = append(removed, h.message)
		}
	}
	var steps []string
	for _, h := range hs.of(waits) {
		if slices.Contains(stepReasons, h.reason) {
			if obs.StepReason == "" || (stalled(h.reason) && !stalled(obs.StepReason)) {
				obs.StepReason = h.reason // a stall is what to see first
			}
			steps = append(steps, h.component.Title()+": "+h.message)
		}
	}
	obs.Step = strings.Join(steps, "; ")
	if len(removed) > 0 {
		obs.RemovalHeld = fmt.Sprintf("%s removed from the spec but kept with their data; annotate the cluster %s=true to delete them",
			strings.Join(removed, " and "), srv1.DeleteRemovedComponentsAnnotation)
	}
}

// stepReasons are the waits that are StarRocks-aware steps, reported in
// Progressing with their own reason.
var stepReasons = []string{srv1.ReasonDecommissioning, srv1.ReasonDecommissionStalled, srv1.ReasonLeavingFEGroup, srv1.ReasonFEUnreachable,
	srv1.ReasonFETLSFailed, srv1.ReasonFEInsecureTransport,
	srv1.ReasonFECredentialsMissing, srv1.ReasonFECredentialsRejected, srv1.ReasonFEPermissionDenied,
	srv1.ReasonRollingOut, srv1.ReasonRolloutStalled}

func stalled(reason string) bool {
	return reason == srv1.ReasonDecommissionStalled || reason == srv1.ReasonRolloutStalled
}

// setField sets field of obj to value, a typed Go value (an int32, a
// struct of the API), through its JSON form.
func setField(obj client.Object, field []string, value any) error {
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

// keepFields copies the held fields of live into desired, which is written
// with the rest of its spec.
func keepFields(desired, live client.Object, fields [][]string) error {
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
