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

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"

	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
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
		r.deferGrowth(ctx, s, c)
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

// claimTemplatesField is spec.volumeClaimTemplates, for field holds.
var claimTemplatesField = []string{"spec", "volumeClaimTemplates"}

// deferGrowth keeps c's claims as they are while its StatefulSet is held
// whole (a decommission, an ordered rollout) or at a replica count (an FE
// step, FE's quorum), or while a gated rollout of it is under way
// (starrocks.GateRolls): growing them deletes the StatefulSet, and the one
// made again from the spec would drop the hold or the gate's partition,
// and after an operator restart would be built without it (issue 34 items
// 2 and 31, issue 50 items 19 and 22). The claims grow once nothing holds
// it and every pod runs the update revision.
func (r *Reconciler) deferGrowth(ctx context.Context, s *clusterScope, c resources.Component) {
	want := s.want.objects.StatefulSet(c)
	if _, ok := s.want.grow[c]; !ok || want == nil || slices.Contains(s.in.regrown, c) {
		return
	}
	i := slices.IndexFunc(s.holds, func(h reconcile.Hold) bool {
		return h.Component == c && (h.Object == nil || h.Object == want) && (len(h.Field) == 0 || slices.Equal(h.Field, replicasField))
	})
	reason, msg := "", ""
	switch {
	case i >= 0:
		reason, msg = s.holds[i].Reason, "the claims grow once the StatefulSet is no longer held: "+s.holds[i].Message
	case s.gateRolls(c, r.clusterPods(ctx, s)):
		reason, msg = srv1.ReasonRollingOut, "the claims grow once the rollout under way is done: every pod runs the update revision"
	default:
		return
	}
	delete(s.want.grow, c)
	s.hold(reconcile.Hold{Component: c, Object: want, Field: claimTemplatesField, Reason: reason, Report: reconcile.Quiet, Message: msg})
}

// gateRolls reports whether a gated rollout of c is under way
// (starrocks.GateRolls); true when the pods could not be listed, which
// says nothing of it.
func (s *clusterScope) gateRolls(c resources.Component, pods map[resources.Component][]corev1.Pod) bool {
	if pods == nil {
		return true
	}
	own := starrocks.UserStrategy(resources.ComponentSpec(s.src, c).UpdateStrategy)
	off := s.src.Annotations[srv1.RolloutGateAnnotation] == srv1.RolloutGateOff
	return starrocks.GateRolls(s.in.live[c], pods[c], own, off)
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
