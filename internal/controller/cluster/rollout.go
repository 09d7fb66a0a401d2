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

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// rolloutOrder holds back the StatefulSets whose image change must wait
// for the other components (see starrocks.Order): on an upgrade BE and CN
// roll before FE, on a downgrade FE rolls first, by the pre-flight's
// verdict, or by the image tags when it has none.
func (r *Reconciler) rolloutOrder(_ context.Context, s *clusterScope) bool {
	ordered := func(c resources.Component) starrocks.Workload {
		w := orderWorkload(s, c)
		for _, chk := range s.want.changes {
			if chk.Name == w.Name {
				w.Direction = chk.Verdict.Direction
			}
		}
		return w
	}
	plan := starrocks.Order(ordered(resources.ComponentFE), ordered(resources.ComponentBE), ordered(resources.ComponentCN))
	s.want.rollout = plan
	for _, c := range statefulSetComponents {
		if sts := s.want.objects.StatefulSet(c); plan.Holds(sts) {
			s.hold(reconcile.Hold{Component: c, Object: sts, Reason: srv1.ReasonOrderedRollout, Message: plan.Waiting(sts), Report: reconcile.Waits})
		}
	}
	return true
}
