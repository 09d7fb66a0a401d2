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
	"regexp"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/srscale/starrocks-operator/internal/status"
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
	direction int  // >0 upgrade, <0 downgrade, 0 unknown
}

// Order decides which of FE, BE and CN may roll now.
func Order(fe, be, cn Workload) Plan {
	feC := classify(fe)
	others := []change{classify(be), classify(cn)}
	plan := Plan{Held: map[string]string{}}
	var busy, downgrading []string
	for _, o := range others {
		if o.Live != nil && o.Desired != nil && (o.changing || !status.RolledOut(o.Live) || o.Gated) {
			busy = append(busy, o.Name)
		}
	}
	// Upgrade (or a version we cannot compare): FE waits for BE and CN.
	if feC.changing && feC.direction >= 0 && len(busy) > 0 {
		plan.Held[feC.Desired.Name] = fmt.Sprintf("upgrade: waiting for %s to finish rolling out before FE", strings.Join(busy, " and "))
		plan.Message = fmt.Sprintf("upgrading to %s: %s roll first, FE waits", image(feC.Desired), strings.Join(busy, " and "))
	}
	// Downgrade: BE and CN wait for FE.
	feBusy := feC.Live != nil && feC.Desired != nil && (feC.changing || !status.RolledOut(feC.Live) || feC.Gated)
	for _, o := range others {
		if o.changing && o.direction < 0 && feBusy {
			plan.Held[o.Desired.Name] = "downgrade: waiting for FE to finish rolling out first"
			downgrading = append(downgrading, o.Name)
		}
	}
	if len(downgrading) > 0 {
		plan.Message = fmt.Sprintf("downgrading: FE rolls first, %s wait", strings.Join(downgrading, " and "))
	}
	return plan
}

func classify(w Workload) change {
	c := change{Workload: w}
	if w.Live == nil || w.Desired == nil {
		return c
	}
	from, to := image(w.Live), image(w.Desired)
	c.changing = from != to && !w.Applied
	c.direction = compareVersions(tag(to), tag(from))
	return c
}

func image(sts *appsv1.StatefulSet) string {
	if len(sts.Spec.Template.Spec.Containers) == 0 {
		return ""
	}
	return sts.Spec.Template.Spec.Containers[0].Image
}

// tag returns an image reference's tag ("3.3.2" of "starrocks/fe-ubuntu:3.3.2").
func tag(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	if i := strings.LastIndex(ref, ":"); i >= 0 && !strings.Contains(ref[i:], "/") {
		return ref[i+1:]
	}
	return ""
}

var versionPrefix = regexp.MustCompile(`^v?(\d+(?:\.\d+)*)`)

// compareVersions compares the numeric prefixes of two tags ("3.3.2-ubuntu");
// 0 when equal or when either has none.
func compareVersions(a, b string) int {
	ma, mb := versionPrefix.FindStringSubmatch(a), versionPrefix.FindStringSubmatch(b)
	if ma == nil || mb == nil {
		return 0
	}
	pa, pb := strings.Split(ma[1], "."), strings.Split(mb[1], ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			if x > y {
				return 1
			}
			return -1
		}
	}
	return 0
}
