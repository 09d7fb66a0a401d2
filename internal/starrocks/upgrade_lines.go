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
	"fmt"
	"slices"

	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/version"
)

// FE never on a newer line than a BE or CN (issue 50 item 2): "By design,
// BEs and CNs are backward compatible with the FEs. Therefore, you need to
// upgrade BEs and CNs first and then FEs ... Upgrading them in an inverted
// order may lead to incompatibility between FEs and BEs/CNs, and thereby
// cause the service to crash" (Upgrade StarRocks); "Downgrading them in the
// wrong order may lead to incompatibility between FEs and BEs/CNs"
// (Downgrade StarRocks). Each component's own path does not see it: FE
// 3.3.2 -> 3.4.1 with the BEs kept at 3.3.2 is a minor step, and so is BE
// 3.4.1 -> 3.3.9 under FE 3.4.1.

var ruleFEFirstLine = Rule{"By design, BEs and CNs are backward compatible with the FEs: upgrade BEs and CNs first and " +
	"then FEs; downgrade FEs first and then BEs and CNs. Upgrading them in an inverted order may lead to " +
	"incompatibility between FEs and BEs/CNs, and thereby cause the service to crash.", srcUpgrade + "; " + srcDowngrade}

// sideOf is one component's versions in the line check: where it runs
// (FE's report: the highest FE, the lowest BE or CN) and where the spec
// takes it (its new image, read also from a tag StarRocks does not publish).
type sideOf struct {
	name     string
	now, end version.Observed
	changing bool
}

// lineOrder refuses, among checks, a change that leaves FE on a newer minor
// or major line than a BE or CN FE reports, unless the change that brings
// that BE or CN along is in the same update (and not refused itself), or
// is written already (its StatefulSet's image). A change that does not move
// its component's line (a patch) is not refused for a state it did not
// make; a version not known on either side checks nothing.
func lineOrder(checks []ImageCheck, in PreflightIn, rep *Report) {
	side := func(w Workload, cells []string, highest bool) (sideOf, bool) {
		if w.Live == nil || w.Desired == nil {
			return sideOf{}, false
		}
		s := sideOf{name: w.Name, now: version.Lowest(cells)}
		if highest {
			s.now = highestOf(cells)
		}
		_, to, changing := imageChange(w)
		refused := false
		if i := slices.IndexFunc(checks, func(c ImageCheck) bool { return c.Name == w.Name }); i >= 0 && !checks[i].Verdict.Allowed() {
			changing, refused = false, true // a refused change leaves its component where it runs
		}
		s.end, s.changing = s.now, changing
		kept := version.OfImage(resources.Image(w.Desired)) // no change pending: the image the operator wrote
		if refused {
			kept = version.OfImage(resources.Image(w.Live))
		}
		switch {
		case changing:
			s.end = version.OfImage(to)
		case !refused && kept.Read, !s.now.Known():
			// A change already written goes where its StatefulSet says,
			// whatever FE's report (read off the reconcile, up to a look
			// old) still lists: its pods roll, or rolled before FE's next
			// report. Taken from the report, BE's written upgrade would
			// refuse FE's turn until FE reports every BE on the new line:
			// FE's change would leave the compatibility pause's changes,
			// its template held, and the pause be lifted before FE's pods
			// and taken again after.
			s.end = kept
		}
		return s, s.end.Read
	}
	fe, ok := side(in.FE, frontendVersions(rep, in.FENames), true)
	if !ok {
		return
	}
	for _, o := range []struct {
		w     Workload
		cells []string
	}{{in.BE, backendVersions(rep, in.BENames)}, {in.CN, computeNodeVersions(rep, in.CNNames)}} {
		x, ok := side(o.w, o.cells, false)
		if !ok || !lineAbove(fe.end.Version, x.end.Version) {
			continue
		}
		if fe.changing && (!fe.now.Known() || lineAbove(fe.end.Version, fe.now.Version)) {
			refuseCheck(checks, fe.name, fmt.Sprintf("FE would run %s while %s runs %s", fe.end.Version.Line(), x.name, x.end.Version.Line()),
				fmt.Sprintf("bring %s to %s in the same update, or before FE", x.name, fe.end.Version.Line()))
		}
		if x.changing && (!x.now.Known() || lineAbove(x.now.Version, x.end.Version)) {
			refuseCheck(checks, x.name, fmt.Sprintf("%s would run %s while FE runs %s", x.name, x.end.Version.Line(), fe.end.Version.Line()),
				fmt.Sprintf("downgrade FE to %s first, or in the same update", x.end.Version.Line()))
		}
	}
}

// lineAbove reports whether v is on a newer minor or major line than w.
func lineAbove(v, w version.Version) bool {
	return v.Major > w.Major || v.Major == w.Major && v.Minor > w.Minor
}

// highestOf is the highest version among Version cells; not known when
// none reads.
func highestOf(cells []string) version.Observed {
	var out version.Observed
	for _, c := range cells {
		o := version.Reported(c)
		if !o.Known() {
			continue
		}
		if !out.Known() || !out.Read || below(out.Version, o.Version) {
			out = o
		}
	}
	if !out.Read {
		return version.NotKnown("FE reports no version for any node")
	}
	return out
}

// refuseCheck turns the allowed check of component name into a refusal.
func refuseCheck(checks []ImageCheck, name, why, next string) {
	for i := range checks {
		if c := &checks[i]; c.Name == name && c.Verdict.Allowed() {
			c.Verdict = refuse(c.Verdict, ruleFEFirstLine, next)
			c.Verdict.Why = why
		}
	}
}

// HighestRun is what the cluster's status.highestVersion should say: the
// highest release among the one recorded and every Version FE reports for
// its frontends, backends and compute nodes (issue 50 item 3); the record
// as it is when the report has none higher, or there is no report. A
// record that does not read is replaced by the report's.
func HighestRun(recorded string, rep *Report) string {
	best := version.Reported(recorded)
	if recorded == "" {
		best = version.NotKnown("none recorded")
	}
	if rep == nil || rep.Err != nil {
		return recorded
	}
	var cells []string
	for _, f := range rep.Frontends {
		cells = append(cells, f.Version)
	}
	for _, b := range rep.Backends {
		cells = append(cells, b.Version)
	}
	for _, n := range rep.ComputeNodes {
		cells = append(cells, n.Version)
	}
	top := highestOf(cells)
	if !top.Known() || best.Known() && !below(best.Version, top.Version) {
		return recorded
	}
	return top.Version.String()
}
