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
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/status"
)

// actionReport says how each kind of write is counted and told in an Event.
type actionReport struct {
	reason, action, verb string
}

// actionReports is keyed by what apply did; actions missing here (unchanged)
// are neither counted nor told.
var actionReports = map[apply.Action]actionReport{
	apply.Created:  {reason: "Created", action: "Create", verb: "created"},
	apply.Updated:  {reason: "Updated", action: "Update", verb: "updated"},
	apply.Restored: {reason: "DriftCorrected", action: "Update", verb: "restored (changed by someone else)"},
	apply.Deleted:  {reason: "Deleted", action: "Delete", verb: "deleted"},
}

// Told reports whether a result is a write to tell: one that was made.
func Told(res apply.Result) bool {
	_, ok := actionReports[res.Action]
	return ok && !res.Pending
}

// CountWrites counts the writes among results in the operator's metrics.
func CountWrites(results []apply.Result) {
	for _, res := range results {
		if Told(res) {
			metrics.ObjectWrites.WithLabelValues(res.Kind, string(res.Action)).Inc()
		}
	}
}

// TellWrites emits one Event per kind of write among results, never one per
// object or per reconcile.
func TellWrites(recorder events.EventRecorder, obj runtime.Object, results []apply.Result) {
	byAction := map[apply.Action][]string{}
	for _, res := range results {
		if Told(res) {
			byAction[res.Action] = append(byAction[res.Action], res.Kind+" "+res.Name)
		}
	}
	for _, action := range slices.Sorted(maps.Keys(byAction)) {
		rep, objs := actionReports[action], byAction[action]
		slices.Sort(objs)
		recorder.Eventf(obj, nil, corev1.EventTypeNormal, rep.reason, rep.action, "%s", status.Truncate(rep.verb+" "+strings.Join(objs, ", "), status.MaxEventNote))
	}
}

// NewWarning reports whether err is not yet what the condition of type
// condition says (True, with err's message, or for a prefix, starting
// with it): a Warning Event is due once per new error, not per retry.
func NewWarning(conditions []metav1.Condition, condition string, err error, prefix bool) bool {
	old := meta.FindStatusCondition(conditions, condition)
	if old == nil || old.Status != metav1.ConditionTrue {
		return true
	}
	if prefix {
		return !strings.HasPrefix(old.Message, err.Error())
	}
	return old.Message != status.Truncate(err.Error(), status.MaxConditionMessage)
}

// Warn emits a Warning Event with reason and, when also is set, a second
// one with that reason beside it (the upstream operator's, for alerts
// written for it).
func Warn(recorder events.EventRecorder, obj runtime.Object, reason, also string, err error) {
	note := status.Truncate(err.Error(), status.MaxEventNote)
	recorder.Eventf(obj, nil, corev1.EventTypeWarning, reason, "Reconcile", "%s", note)
	if also != "" {
		recorder.Eventf(obj, nil, corev1.EventTypeWarning, also, "Reconcile", "%s", note)
	}
}
