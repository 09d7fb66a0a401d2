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

// The rollout order: image changes across FE, BE and CN go in the order
// StarRocks requires; live and desired StatefulSets in, a plan out.

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
	"github.com/srscale/starrocks-operator/internal/version"
)

// Workload is one component's StatefulSet as it runs and as the spec wants it;
// Live is nil before it exists, Desired nil when the component goes away.
type Workload struct {
	Name          string // FE, BE or CN, for messages
	Live, Desired *appsv1.StatefulSet
	// Applied is true when Live carries Desired as the operator last wrote it.
	// Its image then counts as the desired one even when it reads otherwise
	// (an admission webhook that rewrites registries): no change is pending.
	Applied bool
	// Gated is true while a rollout gate holds Live's strategy (OnDelete,
	// or a partition above 0, which the spec did not ask for): its rollout
	// is not over, even when the StatefulSet controller says so (it marks
	// an OnDelete rollout complete once every pod is Ready at the update
	// revision; a parallel rollout still waits for StarRocks' word).
	Gated bool
	// Direction is the pre-flight's verdict on the image change
	// (PathVerdict.Direction, from the versions FE reports): the order goes
	// by it, and by the image tags only when the verdict has none.
	Direction version.Direction
	// Kept is true when an earlier step keeps the pod template the spec
	// asks for (a refusal, or a wait on FE's word): Desired then reads
	// unchanged, yet the change is still to roll, and FE's upgrade waits
	// for it as for one rolling.
	Kept bool
}

// Plan holds back StatefulSets whose image change must wait: on an upgrade BE
// and CN roll before FE, on a downgrade FE rolls first (StarRocks requires FE
// metadata to stay readable by the older of the two).
type Plan struct {
	// Held maps a held StatefulSet's name to why it waits.
	Held map[string]string
	// Message explains the ordered rollout in progress; empty when none.
	Message string
}

// Holds reports whether the StatefulSet must keep its live spec for now.
func (p Plan) Holds(sts *appsv1.StatefulSet) bool {
	if sts == nil {
		return false
	}
	_, held := p.Held[sts.Name]
	return held
}

// Waiting is why the StatefulSet waits; empty when it does not.
func (p Plan) Waiting(sts *appsv1.StatefulSet) string {
	if sts == nil {
		return ""
	}
	return p.Held[sts.Name]
}

type change struct {
	Workload
	changing  bool // the image differs from the live one
	downgrade bool
}

// Order decides which of FE, BE and CN may roll now.
func Order(fe, be, cn Workload) Plan {
	feC := classify(fe)
	others := []change{classify(be), classify(cn)}
	plan := Plan{Held: map[string]string{}}
	var busy, downgrading []string
	for _, o := range others {
		if o.Live != nil && o.Desired != nil && (o.changing || o.Kept || !status.RolledOut(o.Live) || o.Gated) {
			busy = append(busy, o.Name)
		}
	}
	// Upgrade (or a version we cannot compare): FE waits for BE and CN.
	if feC.changing && !feC.downgrade && len(busy) > 0 {
		plan.Held[feC.Desired.Name] = fmt.Sprintf("upgrade: waiting for %s to finish rolling out before FE", strings.Join(busy, " and "))
		plan.Message = fmt.Sprintf("upgrading to %s: %s roll first, FE waits", resources.Image(feC.Desired), strings.Join(busy, " and "))
	}
	// Downgrade: BE and CN wait for FE.
	feBusy := feC.Live != nil && feC.Desired != nil && (feC.changing || !status.RolledOut(feC.Live) || feC.Gated)
	for _, o := range others {
		if o.changing && o.downgrade && feBusy {
			plan.Held[o.Desired.Name] = "downgrade: waiting for FE to finish rolling out first"
			downgrading = append(downgrading, o.Name)
		}
	}
	if len(downgrading) > 0 {
		plan.Message = fmt.Sprintf("downgrading: FE rolls first, %s wait", strings.Join(downgrading, " and "))
	}
	return plan
}

// classify reads a workload's change: whether its image changes, and
// whether that is a downgrade, by the pre-flight's verdict or, when it has
// none, by the image tags (version.DirectionOf): the one direction the
// pre-flight would give them.
func classify(w Workload) change {
	c := change{Workload: w}
	if w.Live == nil || w.Desired == nil {
		return c
	}
	from, to := resources.Image(w.Live), resources.Image(w.Desired)
	c.changing = from != to && !w.Applied
	dir := w.Direction
	if dir == version.DirectionUnknown {
		dir = version.DirectionOf(version.OfImage(from), version.OfImage(to))
	}
	c.downgrade = dir == version.Downgrade
	return c
}
