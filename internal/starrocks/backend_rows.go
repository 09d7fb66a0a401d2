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

package starrocks

import (
	"slices"
	"strings"

	"github.com/srscale/starrocks-operator/internal/fe"
)

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
	// cancel are kept BEs FE is decommissioning: the spec kept them after
	// all; cancelOrd their ordinals, in the same order.
	cancel    []string
	cancelOrd []int
	// decommissionOrd are the ordinals of decommission, in the same order.
	decommissionOrd []int
	// tablets is what FE still counts on the removed BEs.
	tablets int
	// listed are the kept ordinals FE lists; strays the hosts of the rows
	// that match no pod of the StatefulSet.
	listed map[int]bool
	strays []string
}

// unlisted are the ordinals below keep FE does not list.
func (p backendPlan) unlisted(keep int) []int {
	var out []int
	for ord := range keep {
		if !p.listed[ord] {
			out = append(out, ord)
		}
	}
	return out
}

// gone is true when FE lists none of the removed BEs any more: the
// StatefulSet may shrink.
func (p backendPlan) gone() bool {
	return len(p.decommission) == 0 && len(p.drop) == 0 && len(p.draining) == 0
}

// planBackends sorts FE's BEs of one StatefulSet: ordinals at or above keep
// leave (the StatefulSet is to shrink to keep), the others stay.
func planBackends(backends []fe.Backend, names PodNames, keep int) backendPlan {
	p := backendPlan{draining: map[string]int{}, listed: map[int]bool{}}
	ordered := slices.SortedFunc(slices.Values(backends), func(a, b fe.Backend) int { return strings.Compare(a.Address(), b.Address()) })
	for _, b := range ordered {
		ord, ok := names.Ordinal(b.Host)
		if !ok {
			p.strays = append(p.strays, b.Host)
			continue
		}
		switch {
		case ord < keep && b.Decommissioned:
			p.cancel, p.cancelOrd = append(p.cancel, b.Address()), append(p.cancelOrd, ord)
			p.listed[ord] = true
		case ord < keep:
			p.listed[ord] = true
		case !b.Decommissioned:
			p.decommission, p.decommissionOrd = append(p.decommission, b.Address()), append(p.decommissionOrd, ord)
		case b.Drained():
			p.drop = append(p.drop, b.Address())
		default:
			p.draining[names.Pod(ord)] = b.TabletNum
			p.tablets += b.TabletNum
		}
	}
	return p
}

// missingBackends are the kept ordinals FE does not list: BEs a cancelled
// decommission came too late for (FE dropped them at 0 tablets, facts sheet
// §5), whose pods run but are registered nowhere, since a BE registers only
// when its container starts (§1).
func missingBackends(backends []fe.Backend, names PodNames, keep int) []int {
	listed := map[int]bool{}
	for _, b := range backends {
		if ord, ok := names.Ordinal(b.Host); ok {
			listed[ord] = true
		}
	}
	var out []int
	for ord := range keep {
		if !listed[ord] {
			out = append(out, ord)
		}
	}
	return out
}

// hostSuffix is what follows the pod name in the hosts FE lists for the
// StatefulSet's pods (<headless service>.<namespace>.svc.<domain>), taken
// from FE's own rows: the cluster's DNS domain is FE's to tell.
func hostSuffix(backends []fe.Backend, names PodNames) string {
	for _, b := range backends {
		if _, ok := names.Ordinal(b.Host); ok {
			_, rest, _ := strings.Cut(b.Host, ".")
			return rest
		}
	}
	return ""
}

// strayList names FE's rows that match no pod; "no other BE" when none.
func strayList(hosts []string) string {
	if len(hosts) == 0 {
		return "no other BE"
	}
	return strings.Join(slices.Sorted(slices.Values(hosts)), ", ")
}

func addedNote(added []string) string {
	if len(added) == 0 {
		return ""
	}
	return "; registered again (FE had dropped them): " + strings.Join(added, ", ")
}
