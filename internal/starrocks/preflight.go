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

// The pre-flight of an image change (issue 36, docs/upgrades.md): before the
// first pod of an FE, BE or CN image change is replaced, the version path
// from what FE reports the component's nodes run to the version the new
// image names is checked (ClusterPath). Only the image counts: a .conf, env
// or resource change is no upgrade.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/version"
)

// PreflightIn is what the pre-flight decides from.
type PreflightIn struct {
	// FE, BE and CN are the components as Order takes them (Name "FE",
	// "BE", "CN"); a component that is not there has no Live or Desired.
	FE, BE, CN Workload
	// Names name each component's pods in FE's report: only its own nodes
	// count (SHOW COMPUTE NODES also lists the warehouses' CNs).
	FENames, BENames, CNNames PodNames
	// Report is FE's report; nil when there is none. Only a report whose
	// read started at or after Since is decided on: one read before the
	// change was seen may list nodes not yet heard from (Version NULL), or
	// none at all, and the change would go on unchecked.
	Report *Report
	// Since is when the glue first saw this change (Preflight.Key).
	Since time.Time
	// Decided is the decision on this change from an earlier report; it
	// stands while no newer report is in, so that a refusal does not turn
	// into a wait, and back, each time FE's last report ages.
	Decided *Preflight
	// Unreadable, when set, says why FE's report cannot be had (no FE pod
	// is Ready, the operator reaches no FE): the change is then checked
	// only against Ran and the rules of the new version alone, and goes on
	// unless they refuse it.
	Unreadable string
	// Ran is the highest version the cluster has run (its
	// status.highestVersion); not known when none is recorded. The
	// downgrade floors hold from it as from what runs (UpgradePathAfter).
	Ran version.Observed
	// FEConf is the fe.conf the spec asks for, and Confirmed the steps the
	// user confirmed (starrocks.com/upgrade-path-confirm): what FE's change
	// is held for until the pages' asks are met (feAsks).
	FEConf    string
	Confirmed []string
}

// ImageCheck is the verdict on one component's image change.
type ImageCheck struct {
	Name     string // FE, BE or CN
	From, To string // the live image and the new one
	Verdict  PathVerdict
	// ByBackends is true when FE's verdict is stricter from the BEs'
	// versions than from FE's own: FE's new version is checked from both,
	// since BE and CN go before FE on an upgrade and after it on a
	// downgrade (docs/upgrades.md, "Order").
	ByBackends bool
}

// Preflight is the pre-flight's decision.
type Preflight struct {
	// Key names the change: each changing component and its new image
	// ("BE=starrocks/be-ubuntu:3.2.2"); empty when no image changes.
	Key string
	// Read is true when an image changes and FE's report is not in yet:
	// the changes of Waiting wait for it (Checks is then empty).
	Read    bool
	Waiting []string
	// Checks are the verdicts of the components whose image changes, in
	// the order FE, BE, CN.
	Checks []ImageCheck
}

// CheckImagePaths decides the pre-flight of the image changes in `in`.
func CheckImagePaths(in PreflightIn) Preflight {
	type comp struct {
		w     Workload
		cells func(*Report) []string
	}
	comps := []comp{
		{in.FE, func(r *Report) []string {
			return slices.Concat(frontendVersions(r, in.FENames), backendVersions(r, in.BENames), computeNodeVersions(r, in.CNNames))
		}},
		{in.BE, func(r *Report) []string { return backendVersions(r, in.BENames) }},
		{in.CN, func(r *Report) []string { return computeNodeVersions(r, in.CNNames) }},
	}
	var out Preflight
	var keys []string
	rep := in.Report
	if rep != nil && rep.At.Before(in.Since) {
		rep = nil
	}
	for _, c := range comps {
		from, to, ok := imageChange(c.w)
		if !ok {
			continue
		}
		target := version.OfImage(to)
		check := ImageCheck{Name: c.w.Name, From: from, To: to}
		keys = append(keys, c.w.Name+"="+to)
		switch {
		case !target.Read:
			// Nothing to check it against: no wait for FE.
			check.Verdict = notChecked(PathVerdict{From: version.NotKnown("not read"), To: target, PauseBalance: true, ImageAfter: true},
				"the new image: "+target.Unknown)
		case in.Unreadable != "":
			check.Verdict = UpgradePathAfter(version.NotKnown("FE's report cannot be read: "+in.Unreadable), target, in.Ran)
		case rep == nil:
			out.Read, out.Waiting = true, append(out.Waiting, c.w.Name)
			continue
		case rep.Err != nil:
			check.Verdict = UpgradePathAfter(version.NotKnown("FE did not answer: "+rep.Err.Error()), target, in.Ran)
		default:
			check.Verdict = ClusterPathAfter(c.cells(rep), target, in.Ran)
			if c.w.Name == in.FE.Name {
				own := ClusterPathAfter(frontendVersions(rep, in.FENames), target, in.Ran)
				check.ByBackends = severity(check.Verdict) > severity(own)
			}
		}
		out.Checks = append(out.Checks, check)
	}
	out.Key = strings.Join(keys, ";")
	if !out.Read {
		feAsks(out.Checks, in.FEConf, in.Confirmed)
	}
	if !out.Read && rep != nil && rep.Err == nil && in.Unreadable == "" {
		lineOrder(out.Checks, in, rep)
	}
	if out.Read {
		if d := in.Decided; d != nil && !d.Read && Covers(d.Key, out.Key) {
			return d.narrowed(out.Key)
		}
		out.Checks = nil
	}
	return out
}

// Covers reports whether every change of key (component and new image) is
// one of decided's: a decision on FE, BE and CN together still holds for FE
// alone once BE and CN are written.
func Covers(decided, key string) bool {
	if key == "" {
		return false
	}
	have := strings.Split(decided, ";")
	for _, k := range strings.Split(key, ";") {
		if !slices.Contains(have, k) {
			return false
		}
	}
	return true
}

// narrowed is the decision for the changes of key alone.
func (p Preflight) narrowed(key string) Preflight {
	out := Preflight{Key: key}
	for _, c := range p.Checks {
		if slices.Contains(strings.Split(key, ";"), c.Name+"="+c.To) {
			out.Checks = append(out.Checks, c)
		}
	}
	return out
}

// imageChange is the live and the new image of a component whose image
// changes: it runs, stays, and the new image differs from the one it runs
// and from the one the operator last wrote (Applied, as Order reads it).
func imageChange(w Workload) (from, to string, ok bool) {
	if w.Live == nil || w.Desired == nil || w.Applied {
		return "", "", false
	}
	from, to = resources.Image(w.Live), resources.Image(w.Desired)
	return from, to, from != to
}

func frontendVersions(r *Report, names PodNames) []string {
	return versionsOf(r.Frontends, names, func(f fe.Frontend) (string, string) { return f.Host, f.Version })
}

func backendVersions(r *Report, names PodNames) []string {
	return versionsOf(r.Backends, names, func(b fe.Backend) (string, string) { return b.Host, b.Version })
}

func computeNodeVersions(r *Report, names PodNames) []string {
	return versionsOf(r.ComputeNodes, names, func(n fe.ComputeNode) (string, string) { return n.Host, n.Version })
}

// versionsOf is the Version cells of the rows that are names' pods.
func versionsOf[T any](rows []T, names PodNames, hostVersion func(T) (string, string)) []string {
	var cells []string
	for _, row := range rows {
		host, cell := hostVersion(row)
		if _, ok := names.Ordinal(host); ok {
			cells = append(cells, cell)
		}
	}
	return cells
}

// Refused are the checks whose path the docs forbid.
func (p Preflight) Refused() []ImageCheck {
	return p.of(func(c ImageCheck) bool { return !c.Verdict.Allowed() })
}

// Warned are the checks the docs allow but recommend against (a minor skip).
func (p Preflight) Warned() []ImageCheck {
	return p.of(func(c ImageCheck) bool { return c.Verdict.Kind == PathMinorSkip })
}

// Unchecked are the checks that could not be made, and go on.
func (p Preflight) Unchecked() []ImageCheck {
	return p.of(func(c ImageCheck) bool { return c.Verdict.Kind == PathUnknown })
}

func (p Preflight) of(keep func(ImageCheck) bool) []ImageCheck {
	var out []ImageCheck
	for _, c := range p.Checks {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// Message tells one check in a line: the component, the images, the verdict.
func (c ImageCheck) Message() string {
	by := ""
	if c.ByBackends {
		by = " (from the BEs' versions: BE and CN go before FE on an upgrade, after it on a downgrade)"
	}
	return fmt.Sprintf("%s image %s: %s%s", c.Name, c.To, c.Verdict.Message(), by)
}

// Required lists what the pages ask the user to do for this change (a
// .conf edit, a session variable: steps the operator does not take), in
// one line; empty when nothing.
func (c ImageCheck) Required() string {
	if len(c.Verdict.Requires) == 0 {
		return ""
	}
	parts := make([]string, len(c.Verdict.Requires))
	for i, r := range c.Verdict.Requires {
		parts[i] = r.Text + " [" + r.Source + "]"
	}
	return fmt.Sprintf("%s image %s: the docs ask of you: %s", c.Name, c.To, strings.Join(parts, " "))
}

// Note is what the condition says of the changes that go on with a word:
// the warnings and the paths not checked; empty when there is none.
func (p Preflight) Note() string {
	var msgs []string
	for _, c := range append(p.Warned(), p.Unchecked()...) {
		msgs = append(msgs, "upgrade path of "+c.Message())
	}
	return strings.Join(msgs, "; ")
}
