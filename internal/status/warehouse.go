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
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// WarehouseObserved is the input of ComputeWarehouse.
type WarehouseObserved struct {
	// CN is the warehouse's compute nodes, as they run: reported whether or
	// not a check failed, so that status.selector and status.replicas (the
	// scale subresource an HPA reads) never vanish. Outdated is set when the
	// live StatefulSet does not carry the desired spec yet. Nil reports no
	// compute nodes at all.
	CN                *Component
	HPAName, Selector string
	// ReconcileError is a failed check or write, with a stable reason.
	ReconcileError       error
	ReconcileErrorReason string
}

// ComputeWarehouse returns the status a warehouse should have: its CN status
// and the conditions a cluster has.
func ComputeWarehouse(wh *srv1.StarRocksWarehouse, obs WarehouseObserved) srv1.StarRocksWarehouseStatus {
	st := srv1.StarRocksWarehouseStatus{
		ObservedGeneration: wh.Generation,
		Conditions:         slices.Clone(wh.Status.Conditions),
	}
	if cs := componentStatus(obs.CN); cs != nil {
		st.StarRocksComponentStatus = *cs
		st.Selector = obs.Selector
		if obs.CN.StatefulSet != nil {
			st.Replicas = obs.CN.StatefulSet.Status.Replicas
		}
		if obs.HPAName != "" {
			st.HorizontalScaler = srv1.HorizontalScaler{Name: obs.HPAName, Version: srv1.AutoScalerV2}
		}
	}
	gen := wh.Generation
	set := func(t string, s metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg, ObservedGeneration: gen})
	}
	failing := ""
	if len(st.FailedInstances) > 0 {
		failing = "failing pods " + strings.Join(st.FailedInstances, ", ")
	}
	switch {
	case obs.ReconcileError != nil:
		st.Phase, st.Reason = srv1.PhaseFailed, obs.ReconcileError.Error()
		set(srv1.ConditionReconcileError, metav1.ConditionTrue, obs.ReconcileErrorReason, obs.ReconcileError.Error())
		set(srv1.ConditionReady, metav1.ConditionFalse, obs.ReconcileErrorReason, obs.ReconcileError.Error())
	case st.Phase == srv1.PhaseRunning:
		set(srv1.ConditionReconcileError, metav1.ConditionFalse, srv1.ReasonReconciled, "")
		set(srv1.ConditionReady, metav1.ConditionTrue, srv1.ReasonAllComponentsRunning, "")
	case st.Phase == srv1.PhaseFailed:
		set(srv1.ConditionReconcileError, metav1.ConditionFalse, srv1.ReasonReconciled, "")
		set(srv1.ConditionReady, metav1.ConditionFalse, srv1.ReasonComponentsFailed, st.Reason)
	default:
		set(srv1.ConditionReconcileError, metav1.ConditionFalse, srv1.ReasonReconciled, "")
		set(srv1.ConditionReady, metav1.ConditionFalse, srv1.ReasonComponentsNotReady, st.Reason)
	}
	if failing != "" {
		set(srv1.ConditionDegraded, metav1.ConditionTrue, srv1.ReasonPodsFailing, failing)
	} else {
		set(srv1.ConditionDegraded, metav1.ConditionFalse, srv1.ReasonAllPodsHealthy, "")
	}
	if obs.CN != nil && st.Phase == srv1.PhaseReconciling {
		set(srv1.ConditionProgressing, metav1.ConditionTrue, srv1.ReasonComponentsNotReady, st.Reason)
	} else {
		set(srv1.ConditionProgressing, metav1.ConditionFalse, srv1.ReasonStable, "")
	}
	slices.SortFunc(st.Conditions, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	return st
}
