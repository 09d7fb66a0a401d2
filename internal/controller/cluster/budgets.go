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
	"context"
	"slices"

	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// budgets gives each of FE, BE and CN the disruption budget of the pods its
// StatefulSet keeps once the phases before have decided their holds. The
// builders made it for the spec's replicas, but a BE scale-in keeps every
// BE running until FE has decommissioned the removed ones, FE leaves one
// pod at a time (scalein.go), and FE is never shrunk to one (KeepFEQuorum):
// until they go, those pods must not lose their budget.
func (r *Reconciler) budgets(_ context.Context, s *clusterScope) bool {
	for _, c := range statefulSetComponents {
		set := s.want.objects.Workload(c)
		if set == nil || set.StatefulSet == nil {
			continue
		}
		replicas := ptr.Deref(set.StatefulSet.Spec.Replicas, 1) // a field hold set it to what runs
		if live := s.in.live[c]; live != nil && live.Spec.Replicas != nil && s.holds.Keeps(c, set.StatefulSet) {
			replicas = *live.Spec.Replicas // held whole, as it runs
		}
		set.DisruptionBudget = resources.DisruptionBudget(s.src, c, replicas)
		if live := s.in.live[c]; c == resources.ComponentFE && live != nil && live.Spec.Replicas != nil && set.DisruptionBudget != nil && leavingFEGroup(s) {
			set.DisruptionBudget = resources.FEStepDisruptionBudget(s.src, *live.Spec.Replicas-1) // issue 34 item 15
		}
		if c == resources.ComponentBE && set.DisruptionBudget != nil && s.gates.tabletsAtRisk {
			set.DisruptionBudget = resources.BERolloutDisruptionBudget(s.src) // issue 34 item 26
		}
	}
	return true
}

// leavingFEGroup is true while an FE scale-down step runs: a member is
// being dropped, or its pod goes.
func leavingFEGroup(s *clusterScope) bool {
	return slices.ContainsFunc(s.holds, func(h reconcile.Hold) bool {
		return h.Component == resources.ComponentFE && h.Reason == srv1.ReasonLeavingFEGroup
	})
}
