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
	"errors"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// sync writes what the spec asks for, less what is held: FE first; BE, CN
// and the FE proxy once FE is ready. Objects of removed components, or
// removed from one (the CN autoscaler), are deleted whatever FE's state. A
// failed write of one component does not hold back the others: BE, CN and
// the proxy depend on FE being ready, not on FE's last write having
// succeeded. The status is written beside the writes (see writeStatusBeside).
func (r *Reconciler) sync(ctx context.Context, s *clusterScope) bool {
	s.obs = r.observe(ctx, s)
	r.writeStatusBeside(ctx, s, func() error { return r.write(ctx, s) })
	return true
}

// write makes the writes of sync and records them in s.
func (r *Reconciler) write(ctx context.Context, s *clusterScope) error {
	feReady := status.FEReady(s.src, s.in.live[resources.ComponentFE])
	var growErrs []error
	for _, c := range statefulSetComponents {
		if grow, ok := s.want.grow[c]; ok && (c == resources.ComponentFE || feReady) {
			if err := r.expandClaims(ctx, s.in.live[c], grow); err != nil {
				growErrs = append(growErrs, err)
			}
		}
	}
	fe := slices.DeleteFunc(s.applicable(resources.ComponentFE), func(o client.Object) bool { return slices.Contains(s.written, o) })
	applier := r.Applier.With(s.want.hashes) // the StatefulSets, converted for the rollout order already
	results, feErr := applier.ApplyAll(ctx, append(fe, s.recreate(resources.ComponentFE)...))
	named := resources.Named(s.src)
	var toApply, toDelete []client.Object
	for _, c := range resources.Components {
		if c != resources.ComponentFE && feReady {
			toApply = append(toApply, s.applicable(c)...)
			toApply = append(toApply, s.recreate(c)...)
		}
		if !s.holds.Whole(c) {
			toDelete = append(toDelete, reconcile.Unwanted(named.Of(c), s.want.objects.Of(c))...)
		}
	}
	// BE, CN and the proxy don't depend on each other: one parallel round.
	applied, applyErr := applier.ApplyAll(ctx, toApply)
	deleted, deleteErr := applier.DeleteAll(ctx, toDelete)
	s.results = slices.Concat(s.results, results, applied, deleted)
	err := errors.Join(append([]error{feErr, applyErr, deleteErr}, growErrs...)...)
	s.err = errors.Join(s.err, err)
	return err
}

// applicable is what to write of a component now: its objects less those
// held, less a StatefulSet whose claims grow (expandClaims deletes it) or
// whose deleted copy is still going (it is made again once that is gone),
// and less a disruption budget whose StatefulSet the cache does not show
// yet: a budget never exists without its StatefulSet, even when the
// StatefulSet's create, sent beside it, fails.
func (s *clusterScope) applicable(c resources.Component) []client.Object {
	var sts, budget client.Object
	if set := s.want.objects.Workload(c); set != nil {
		sts, budget = set.StatefulSet, set.DisruptionBudget
	}
	_, growing := s.want.grow[c]
	waits := growing || slices.Contains(s.in.leaving, c)
	return slices.DeleteFunc(s.want.objects.Of(c), func(o client.Object) bool {
		return s.holds.Keeps(c, o) || (waits && o == sts) || (s.in.live[c] == nil && o == budget)
	})
}

// recreate is, for a component whose StatefulSet expandClaims deleted and
// whose spec is held, that StatefulSet made again as it ran (its claims
// grown): a held spec is kept, not left without a StatefulSet.
func (s *clusterScope) recreate(c resources.Component) []client.Object {
	want := s.want.objects.StatefulSet(c)
	if !slices.Contains(s.in.regrown, c) || slices.Contains(s.in.leaving, c) || want == nil || !s.holds.Keeps(c, want) {
		return nil
	}
	return []client.Object{recreated(s.in.live[c])}
}
