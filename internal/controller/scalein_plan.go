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
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/srscale/starrocks-operator/internal/fe"
)

// podNames names nodes of a StatefulSet by their pod: FE lists them under
// the pod's DNS name (HOST_TYPE=FQDN, facts sheet §1).
type podNames struct {
	statefulSet, headlessService, namespace string
}

// ordinal is the pod ordinal of a node FE lists under host; ok is false for
// a node of another StatefulSet or registered by address.
func (p podNames) ordinal(host string) (int, bool) {
	return fe.Ordinal(host, p.statefulSet, p.headlessService, p.namespace)
}

func (p podNames) pod(ordinal int) string { return fmt.Sprintf("%s-%d", p.statefulSet, ordinal) }

// backendPlan is what a BE StatefulSet's scale-in, or its reversal, asks of
// FE now, decided from FE's SHOW BACKENDS alone.
type backendPlan struct {
	// decommission are the removed BEs FE still runs as usual.
	decommission []string
	// drop are removed BEs FE drained but keeps listed
	// (drop_backend_after_decommission off, facts sheet §5).
	drop []string
	// draining are removed BEs FE is decommissioning, by pod, with their tablets.
	draining map[string]int
	// cancel are kept BEs FE is decommissioning: the spec kept them after all.
	cancel []string
	// tablets is what FE still counts on the removed BEs.
	tablets int
}

// gone is true when FE lists none of the removed BEs any more: the
// StatefulSet may shrink.
func (p backendPlan) gone() bool {
	return len(p.decommission) == 0 && len(p.drop) == 0 && len(p.draining) == 0
}

// planBackends sorts FE's BEs of one StatefulSet: ordinals at or above keep
// leave (the StatefulSet is to shrink to keep), the others stay.
func planBackends(backends []fe.Backend, names podNames, keep int) backendPlan {
	p := backendPlan{draining: map[string]int{}}
	for _, b := range backends {
		ord, ok := names.ordinal(b.Host)
		if !ok {
			continue
		}
		switch {
		case ord < keep && b.Decommissioned:
			p.cancel = append(p.cancel, b.Address())
		case ord < keep:
		case !b.Decommissioned:
			p.decommission = append(p.decommission, b.Address())
		case b.Drained():
			p.drop = append(p.drop, b.Address())
		default:
			p.draining[names.pod(ord)] = b.TabletNum
			p.tablets += b.TabletNum
		}
	}
	slices.Sort(p.decommission)
	slices.Sort(p.drop)
	slices.Sort(p.cancel)
	return p
}

// missingBackends are the kept ordinals FE does not list: BEs a cancelled
// decommission came too late for (FE dropped them at 0 tablets, facts sheet
// §5), whose pods run but are registered nowhere, since a BE registers only
// when its container starts (§1).
func missingBackends(backends []fe.Backend, names podNames, keep int, heartbeatPort int, host func(ordinal int) string) []string {
	listed := map[int]bool{}
	for _, b := range backends {
		if ord, ok := names.ordinal(b.Host); ok {
			listed[ord] = true
		}
	}
	var out []string
	for ord := range keep {
		if !listed[ord] {
			out = append(out, fe.Backend{Host: host(ord), HeartbeatPort: heartbeatPort}.Address())
		}
	}
	return out
}

// drainingMessage says which BEs FE drains and what is left on them.
func drainingMessage(draining map[string]int) string {
	pods := slices.Sorted(maps.Keys(draining))
	parts := make([]string, len(pods))
	for i, p := range pods {
		parts[i] = fmt.Sprintf("%s (%d tablets)", p, draining[p])
	}
	return strings.Join(parts, ", ")
}

// frontendStep is the next move of an FE scale-down: one FE at a time,
// highest ordinal first.
type frontendStep int

const (
	// feWait: FE's word does not allow a step now (no leader, a member not
	// alive); wait for the next report.
	feWait frontendStep = iota
	// feDrop: take the FE out of FE's group while its pod still runs; the
	// group keeps every other member.
	feDrop
	// feShrink: remove the pod first. The FE to remove leads, and FE
	// refuses to drop its leader ("can not drop current master node",
	// facts sheet §7): once its pod stops, the others elect a new one, and
	// the FE is dropped after (a leftover, see leftoverFrontends).
	feShrink
	// feGone: FE's group no longer has it; the pod may go.
	feGone
)

// planFrontendStep decides how FE of ordinal from-1 leaves a group of from
// pods. The group must keep a majority of its members alive throughout.
func planFrontendStep(frontends []fe.Frontend, names podNames, from int) (frontendStep, fe.Frontend, string) {
	var target *fe.Frontend
	var leader bool
	alive := 0
	for i := range frontends {
		f := &frontends[i]
		if f.Leader() {
			leader = true
		}
		if f.Alive {
			alive++
		}
		if ord, ok := names.ordinal(f.Host); ok && ord == from-1 {
			target = f
		}
	}
	switch {
	case target == nil:
		// Gone, or not yet seen: the report must list every FE that stays.
		for ord := range from - 1 {
			if !slices.ContainsFunc(frontends, func(f fe.Frontend) bool { o, ok := names.ordinal(f.Host); return ok && o == ord }) {
				return feWait, fe.Frontend{}, fmt.Sprintf("FE's group does not list %s", names.pod(ord))
			}
		}
		return feGone, fe.Frontend{}, ""
	case !leader:
		return feWait, *target, "FE's group has no leader"
	}
	members := len(frontends)
	if target.Leader() {
		// Until a new leader is elected, members-1 alive ones must be a majority of members.
		if alive-1 < members/2+1 {
			return feWait, *target, fmt.Sprintf("%s leads and only %d of %d FEs are alive: stopping it now would leave no majority to elect another", names.pod(from-1), alive, members)
		}
		return feShrink, *target, ""
	}
	left := alive
	if target.Alive {
		left--
	}
	if left < (members-1)/2+1 {
		return feWait, *target, fmt.Sprintf("only %d of the %d FEs left after %s would be alive: not a majority", left, members-1, names.pod(from-1))
	}
	return feDrop, *target, ""
}

// leftoverFrontends are members of FE's group whose pod the StatefulSet no
// longer has (ordinal at or above replicas): FE removed by a scale-down
// whose drop came after the pod (feShrink), or was interrupted.
func leftoverFrontends(frontends []fe.Frontend, names podNames, replicas int) []fe.Frontend {
	var out []fe.Frontend
	for _, f := range frontends {
		if ord, ok := names.ordinal(f.Host); ok && ord >= replicas {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b fe.Frontend) int { return strings.Compare(b.Host, a.Host) })
	return out
}
