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

// The version path of an image change, checked as StarRocks documents its
// upgrades and downgrades (upgrade_rules.go, docs/upgrades.md): allowed,
// allowed with a warning, refused with the documented next step, or not
// checked and why.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/srscale/starrocks-operator/internal/version"
)

// PathKind is what a version change is, on StarRocks' documented paths.
type PathKind int

// The kinds of version change.
const (
	PathUnknown   PathKind = iota // not checked (Why says why); allowed
	PathSame                      // no version change
	PathPatch                     // within one Major.Minor line
	PathMinorStep                 // to the next or the previous minor line
	PathMinorSkip                 // an upgrade across two or more minor lines: allowed with a warning
	PathMajorStep                 // X.last to (X+1).0, or back
	PathRefused                   // the docs forbid it: Rule says which, NextStep what to do
)

// PathVerdict is the pre-flight's answer for one version change.
type PathVerdict struct {
	Kind PathKind
	// Direction is the change's (version.DirectionOf), which the rollout
	// order goes by: set also when the path is not checked but both
	// versions were read.
	Direction version.Direction
	From, To  version.Observed
	// PauseBalance: the compatibility configuration (CompatibilityPause) is
	// needed: a minor or major change, or one that could not be checked.
	PauseBalance bool
	// ImageBeforeFE: ALTER SYSTEM CREATE IMAGE before the first FE downgrades
	// (Downgrade StarRocks, "Downgrade FE" step 1).
	ImageBeforeFE bool
	// ImageAfter: ALTER SYSTEM CREATE IMAGE, and wait for every follower to
	// have it, once the change is done and before the next upgrade.
	ImageAfter bool
	// Rule is the rule that decided: the refusal, the warning or the path.
	Rule Rule
	// NextStep is the documented way forward of a refusal.
	NextStep string
	// Warning is set when the docs allow the change but recommend against it.
	Warning string
	// Why is set when the path could not be checked.
	Why string
	// Requires lists the per-version items the pages ask for this change.
	Requires []Rule
	// NeedsConf is true when the refusal is a hold until the fe.conf the
	// operator holds carries what the pages ask before FE's change
	// (feAsks); Why says what it lacks.
	NeedsConf bool
}

// Allowed reports whether the change may start.
func (p PathVerdict) Allowed() bool { return p.Kind != PathRefused }

// Message tells the verdict in one line, for a condition or an Event.
func (p PathVerdict) Message() string {
	head := fmt.Sprintf("%s to %s", describe(p.From), describe(p.To))
	switch p.Kind {
	case PathRefused:
		if p.Why != "" {
			head += " (" + p.Why + ")"
		}
		return fmt.Sprintf("%s refused: %s [%s] Next: %s", head, p.Rule.Text, p.Rule.Source, p.NextStep)
	case PathUnknown:
		return fmt.Sprintf("%s not checked: %s", head, p.Why)
	case PathMinorSkip:
		return fmt.Sprintf("%s allowed with a warning: %s [%s]", head, p.Warning, p.Rule.Source)
	}
	return fmt.Sprintf("%s allowed: %s", head, p.Rule.Text)
}

func describe(o version.Observed) string {
	if !o.Known() && !o.Read {
		return "an unknown version"
	}
	return o.Version.String()
}

// UpgradePath checks one version change against the documented paths.
func UpgradePath(from, to version.Observed) PathVerdict {
	return UpgradePathAfter(from, to, version.Observed{})
}

// UpgradePathAfter checks one version change against the documented paths,
// knowing the highest version the cluster has run (ran: the cluster's
// status.highestVersion, not known when none is recorded). The downgrade
// floors hold from it as from the running version, since the notes speak
// of what the cluster has run ("After upgrading StarRocks to v4.1, DO NOT
// downgrade to any v4.0 version below v4.0.6"): 4.1 -> 4.0.6 -> 4.0.5 is
// refused at its second hop, and so is any change to a target below a
// floor while FE reports no running version.
func UpgradePathAfter(from, to, ran version.Observed) PathVerdict {
	p := PathVerdict{From: from, To: to, PauseBalance: true, ImageAfter: true, Direction: version.DirectionOf(from, to)}
	if !to.Known() {
		if to.Read {
			// A version read from a tag StarRocks does not publish
			// ("3.3.5-ubuntu"), or beside a digest: checked for a refusal,
			// not checked otherwise.
			as := to
			as.Unknown = ""
			if v := UpgradePathAfter(from, as, ran); v.Kind == PathRefused {
				v.To, v.Why = to, "the version is read from the image's tag: "+to.Unknown
				return v
			}
		}
		return withImages(notChecked(p, "the new image: "+to.Unknown))
	}
	t := to.Version
	if t.Major < firstFQDN.Major || t.Major == firstFQDN.Major && t.Minor < firstFQDN.Minor {
		return refuse(p, ruleFQDN, "use 2.4 or later")
	}
	if t == ver(4, 1, 0) && (!from.Known() || from.Version != t) {
		// Whatever the starting version, FE's report or not.
		return refuse(p, ruleContainer410, "use v4.1.1 or later")
	}
	if !from.Known() {
		if ran.Known() {
			if fl, ok := violatedFloor(t, ran.Version); ok {
				return refuse(p, fl.Rule, fmt.Sprintf("downgrade to %s or a later %s (the cluster ran %s)",
					fl.min, fl.min.Line(), ran.Version))
			}
		}
		return withImages(notChecked(p, "the running version: "+from.Unknown))
	}
	f := from.Version
	p.ImageBeforeFE = p.Direction == version.Downgrade
	p = shape(p, f, t)
	if p.Kind == PathRefused {
		return p
	}
	if t.Major == 4 && t.Minor == 1 && f != t && !t.PatchKnown {
		return withImages(notChecked(p, fmt.Sprintf("the image names no patch of 4.1, and v4.1.0 is refused: %s [%s]",
			ruleContainer410.Text, ruleContainer410.Source)))
	}
	froms := []version.Version{f}
	if ran.Known() && below(f, ran.Version) {
		froms = append(froms, ran.Version)
	}
	if fl, ok := violatedFloor(t, froms...); ok {
		next := fmt.Sprintf("downgrade to %s or a later %s", fl.min, fl.min.Line())
		if len(froms) > 1 && len(floorsFor(f, t)) == 0 {
			next += fmt.Sprintf(" (the cluster ran %s)", ran.Version)
		}
		return refuse(p, fl.Rule, next)
	}
	if fl, ok := uncheckedFloor(t, froms...); ok {
		return withImages(notChecked(p, fmt.Sprintf("the image names no patch of %s, and the docs forbid %s below %s: %s [%s]",
			t.Line(), t.Line(), fl.min, fl.Text, fl.Source)))
	}
	lines := p.Kind != PathSame && p.Kind != PathPatch
	for _, r := range requirements {
		if r.applies(f, t, lines) {
			p.Requires = append(p.Requires, r.Rule)
		}
	}
	return withImages(p)
}

// withImages leaves out the metadata image a version before 2.5.3 cannot
// take: ALTER SYSTEM CREATE IMAGE "is only supported in from v2.5.3 and
// later" (Downgrade StarRocks, "Downgrade FE" step 1), and FE's parser
// before it has no such clause (StarRocks.g4's alterClause): the statement
// would be refused for good, and the pause it belongs to would never be
// lifted. The image before a downgrade is sent to the running FE, the one
// after the change to the new one; one whose version may be before 2.5.3
// (a line tag, 2.5-latest) takes none.
func withImages(p PathVerdict) PathVerdict {
	if p.From.Known() && maybeBelow(p.From.Version, imageStatement) {
		p.ImageBeforeFE = false
	}
	if p.To.Read && maybeBelow(p.To.Version, imageStatement) {
		p.ImageAfter = false
	}
	return p
}

func notChecked(p PathVerdict, why string) PathVerdict {
	p.Kind, p.Why = PathUnknown, why
	return p
}

// refuse: nothing of the change is done, so it needs no pause and no image.
func refuse(p PathVerdict, r Rule, next string) PathVerdict {
	p.Kind, p.Rule, p.NextStep = PathRefused, r, next
	p.PauseBalance, p.ImageBeforeFE, p.ImageAfter = false, false, false
	return p
}

// shape decides the kind of change from the two lines alone.
func shape(p PathVerdict, f, t version.Version) PathVerdict {
	switch {
	case f.Major == t.Major && f.Minor == t.Minor:
		p.Kind, p.Rule, p.PauseBalance = PathPatch, rulePatch, false
		if p.Direction == version.NoChange {
			p.Kind, p.ImageAfter = PathSame, false
		}
		return p
	case p.Direction == version.Upgrade:
		return upgradeShape(p, f, t)
	}
	return downgradeShape(p, f, t)
}

func upgradeShape(p PathVerdict, f, t version.Version) PathVerdict {
	if f.Major == t.Major {
		p.Kind, p.Rule = PathMinorStep, ruleMinorStep
		if t.Minor-f.Minor > 1 {
			p.Kind, p.Rule = PathMinorSkip, ruleMinorSkip
			p.Warning = fmt.Sprintf("%s skips %d minor versions; the docs strongly recommend one at a time (%s)",
				t.Line(), t.Minor-f.Minor-1, lineSteps(f, t))
		}
		return p
	}
	rule := ruleMajorInto3
	if t.Major != 3 && t.Major != 2 {
		rule = ruleMajorOther
	}
	last, ok := lastLine[f.Major]
	switch {
	case !ok:
		return notChecked(p, fmt.Sprintf("no page names the last minor version of %d.x, so no path into %d.0 is known",
			f.Major, f.Major+1))
	case rule == ruleMajorOther && t.Major == f.Major+1 && (f.Minor != last || t.Minor != 0):
		// No page gates this way in: a warning, as a minor skip is.
		p.Kind, p.Rule = PathMinorSkip, rule
		p.Warning = fmt.Sprintf("no page gates the way into %d.x; the operator recommends the pages' rule for 3.0: "+
			"%d.%d, then %d.0, then one minor version at a time", t.Major, f.Major, last, t.Major)
		return p
	case f.Minor != last:
		return refuse(p, rule, fmt.Sprintf("upgrade to %d.%d first, one minor version at a time", f.Major, last))
	case t.Major > f.Major+1 || t.Minor != 0:
		return refuse(p, rule, fmt.Sprintf("upgrade to %d.0 first", f.Major+1))
	}
	p.Kind, p.Rule = PathMajorStep, rule
	return p
}

func downgradeShape(p PathVerdict, f, t version.Version) PathVerdict {
	if f.Major == t.Major {
		if f.Minor-t.Minor > 1 {
			return refuse(p, ruleDowngradeSkip, fmt.Sprintf("downgrade to %d.%d first", f.Major, f.Minor-1))
		}
		p.Kind, p.Rule = PathMinorStep, ruleMinorStep
		return p
	}
	last, ok := lastLine[t.Major]
	prev, prevOK := lastLine[f.Major-1]
	switch {
	case f.Minor != 0:
		return refuse(p, ruleMajorDown, fmt.Sprintf("downgrade to %d.%d first, one minor version at a time",
			f.Major, f.Minor-1))
	case !ok || !prevOK:
		return notChecked(p, fmt.Sprintf("no page names the last minor version of %d.x", f.Major-1))
	case f.Major > t.Major+1:
		return refuse(p, ruleMajorDown, fmt.Sprintf("downgrade to %d.%d first", f.Major-1, prev))
	case t.Minor != last:
		return refuse(p, ruleMajorDown, fmt.Sprintf("downgrade to %d.%d first", t.Major, last))
	}
	p.Kind, p.Rule = PathMajorStep, ruleMajorDown
	return p
}

// lineSteps spells the consecutive lines of an upgrade: "3.2 -> 3.3 -> 3.4".
func lineSteps(f, t version.Version) string {
	var s []string
	for m := f.Minor; m <= t.Minor; m++ {
		s = append(s, fmt.Sprintf("%d.%d", f.Major, m))
	}
	return strings.Join(s, " -> ")
}

// ClusterPath checks a change to `to` from every version FE reports for the
// nodes it covers (the Version cells of SHOW FRONTENDS, BACKENDS or COMPUTE
// NODES; NULL rows skipped) and returns the strictest verdict: a refusal from
// any one, else a path not checked, else the largest step, the lowest version
// first. Nodes on both sides of `to` are refused: no documented order fits an
// upgrade and a downgrade at once.
func ClusterPath(cells []string, to version.Observed) PathVerdict {
	return ClusterPathAfter(cells, to, version.Observed{})
}

// ClusterPathAfter is ClusterPath knowing the highest version the cluster
// has run (UpgradePathAfter).
func ClusterPathAfter(cells []string, to, ran version.Observed) PathVerdict {
	var froms []version.Observed
	seen := map[string]bool{}
	for _, c := range cells {
		if version.Null(c) || seen[strings.TrimSpace(c)] {
			continue
		}
		seen[strings.TrimSpace(c)] = true
		froms = append(froms, version.Reported(c))
	}
	if len(froms) == 0 {
		return UpgradePathAfter(version.NotKnown("FE reports no version for any node"), to, ran)
	}
	sort.SliceStable(froms, func(i, j int) bool { return below(froms[i].Version, froms[j].Version) })
	var best PathVerdict
	dirs := map[version.Direction]bool{}
	for i, from := range froms {
		p := UpgradePathAfter(from, to, ran)
		if p.Kind != PathUnknown {
			dirs[p.Direction] = true // a path not checked refuses nothing
		}
		if i == 0 || severity(p) > severity(best) {
			best = p
		}
	}
	if dirs[version.Upgrade] && dirs[version.Downgrade] && best.Kind != PathRefused {
		best = refuse(best, Rule{"Upgrade BE and CN before FE; downgrade FE before BE and CN.",
			srcUpgrade + "; " + srcDowngrade}, "bring every node to one version first")
	}
	return best
}

func severity(p PathVerdict) int {
	return map[PathKind]int{PathSame: 0, PathPatch: 1, PathMinorStep: 2, PathMajorStep: 2,
		PathMinorSkip: 3, PathUnknown: 4, PathRefused: 5}[p.Kind]
}
