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
	"strings"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// The pre-flight as a step: the version path of each image change
// (CheckImagePaths, the verdict) and the run mode of an fe.conf change
// (RunModeRefusal), checked on FE's report before the first pod of the
// change is replaced. A refused change keeps its pod template; one waiting
// for FE's report keeps it one read at most; one that goes on with a word
// says it in Progressing and, once per new image, in a Warning Event.

// MinLookAgain is the least wait before a step looks for FE's report again.
const MinLookAgain = 50 * time.Millisecond

// PreflightInput is what the pre-flight phase plans from.
type PreflightInput struct {
	// Paths are the components as the rollout order takes them; its
	// Report, Since and Decided come from the reads and the memory.
	Paths PreflightIn
	// Off is true when the cluster's upgrade-path-check is off, or a
	// disaster recovery runs: nothing is checked or remembered.
	Off bool
	// ConfChanging is true when FE's .conf changes (the hash FE's
	// StatefulSet records; not any template change: FE's template changes
	// during an FE scale-in, and the wait would hold it) on a running FE
	// that answers; SharedData is the run mode its fe.conf asks for.
	ConfChanging, SharedData bool
	// Every is how soon FE's report is read again.
	Every time.Duration
	Now   time.Time
}

// PathCheck is the pre-flight's memory of one cluster: the pending image
// change it checks (Key), since when it is seen, and its decision once
// FE's report since then was in (Decided; Waiting until then); and, by
// component, what it said of an image change that goes on with a word.
// The rollout order and the compatibility pause read the decision from it.
type PathCheck struct {
	Key     string
	Since   time.Time
	Decided *Preflight
	Waiting bool
	Notes   map[string]PathNote
}

// PathNote is what the pre-flight said of one component's image change
// that goes on: a warning or a path not checked, for the new image.
type PathNote struct {
	Image, Message string
}

// PlanPreflight decides the pre-flight of the cluster's pending image and
// run-mode changes.
func PlanPreflight(in PreflightInput, m PathCheck, r Reads) (Step[PathCheck], PathCheck) {
	if in.Off {
		return Step[PathCheck]{}, PathCheck{}
	}
	pre := CheckImagePaths(in.Paths) // no report: says whether an image changes at all
	m = m.pending(pre.Key, in.Now)
	if (in.ConfChanging || pre.Key != "" && in.Paths.Unreadable == "") && !r.Read.Report {
		return Step[PathCheck]{Needs: Needs{Report: true}}, m
	}
	lookAgain := max(in.Every/10, MinLookAgain)
	var st Step[PathCheck]
	if in.ConfChanging {
		st.Holds = runModeHolds(in.SharedData, r.Report)
		if r.Report == nil {
			st.After = lookAgain // no recent report (a steady cluster is not read): FE's template waits for the read, one at most
		}
	}
	m.Waiting = false
	if pre.Key != "" {
		paths := in.Paths
		paths.Since, paths.Decided = m.Since, m.Decided
		if paths.Unreadable == "" {
			paths.Report = r.Report
		}
		pre = CheckImagePaths(paths)
		if pre.Read {
			// FE's report since the change was seen is not in yet: the
			// image changes wait for it, one read at most.
			m.Waiting, st.After = true, lookAgain
			for _, name := range pre.Waiting {
				st.Holds = append(st.Holds, Hold{Component: componentTitled(name), Template: true, Waits: true, Reason: srv1.ReasonOrderedRollout,
					Message: "the image change waits for FE's report, to check its version path"})
			}
			return st, m
		}
		m.Decided = &pre
	}
	for _, chk := range pre.Refused() {
		h := Hold{Component: componentTitled(chk.Name), Template: true, Refuses: true, Reason: srv1.ReasonUpgradePathRefused,
			Message: chk.Message() + "; the pod template is kept, no pod restarts (annotate the cluster " +
				srv1.UpgradePathCheckAnnotation + "=" + srv1.UpgradePathCheckOff + " to roll it anyway)"}
		if chk.Verdict.NeedsConf {
			h.Reason, h.Message = srv1.ReasonUpgradeNeedsConf, chk.Message()+"; the pod template is kept, no pod restarts"
		}
		st.Holds = append(st.Holds, h)
	}
	var note string
	m, note, st.Events = m.noted(in.Paths, pre)
	if note != "" {
		st.Progress = &Progress{Note: note}
	}
	return st, m
}

// runModeHolds keep FE's pod template, and the .conf hash it records (so
// that the change stays visible to the next reconcile, which checks it
// again), while FE's report is not in, or when the fe.conf change asks for
// a run mode other than the one FE runs in (RunModeRefusal): StarRocks
// converts neither way. An FE that lists no BE or CN yet lets it go on.
func runModeHolds(sharedData bool, rep *Report) []Hold {
	h := Hold{Component: resources.ComponentFE, Template: true, Waits: true, Reason: srv1.ReasonOrderedRollout,
		Message: "FE's .conf change waits for FE's report, to check its run mode"}
	if rep != nil {
		msg := RunModeRefusal(sharedData, rep)
		if msg == "" {
			return nil
		}
		h = Hold{Component: resources.ComponentFE, Template: true, Refuses: true, Reason: srv1.ReasonUpgradePathRefused,
			Message: msg + "; the pod template is kept, no pod restarts (annotate the cluster " +
				srv1.UpgradePathCheckAnnotation + "=" + srv1.UpgradePathCheckOff + " to roll it anyway)"}
	}
	return []Hold{h, {Component: resources.ComponentFE, ConfigHash: true}}
}

// pending is the memory with the pending change key: a new change is seen
// now (FE is read again); one that is what is left of the last one (BE and
// CN written, FE waiting for its turn) keeps its time and its decision.
func (m PathCheck) pending(key string, now time.Time) PathCheck {
	switch {
	case key == "":
		m.Key, m.Since, m.Decided, m.Waiting = "", time.Time{}, nil, false
	case m.Key == "" || !Covers(m.Key, key):
		m.Key, m.Since, m.Decided = key, now, nil
	default:
		m.Key = key
	}
	return m
}

// noted remembers, per component, what the pre-flight said of the image
// changes that go on with a word, and tells a minor skip's Warning Event
// and what the pages ask of the user (Required), once per new image; the
// note is each remembered word while its component rolls to that image.
func (m PathCheck) noted(paths PreflightIn, pre Preflight) (PathCheck, string, []Event) {
	var warn, ask []Event
	next := map[string]PathNote{}
	for _, chk := range pre.Checks {
		worded := chk.Verdict.Kind == PathMinorSkip || chk.Verdict.Kind == PathUnknown || chk.Required() != ""
		if !chk.Verdict.Allowed() || !worded {
			continue
		}
		old, ok := m.Notes[chk.Name]
		fresh := !ok || old.Image != chk.To
		if fresh && chk.Verdict.Kind == PathMinorSkip {
			warn = append(warn, Event{Reason: srv1.ReasonUpgradePathWarning, Action: "Upgrade", Warning: true, Note: chk.Message()})
		}
		if fresh && chk.Required() != "" {
			ask = append(ask, Event{Reason: srv1.ReasonUpgradeRequires, Action: "Upgrade", Warning: true, Note: chk.Required()})
		}
		msg := chk.Message()
		if req := chk.Required(); req != "" {
			msg += "; " + req
		}
		next[chk.Name] = PathNote{Image: chk.To, Message: msg}
	}
	var msgs []string
	for _, w := range []Workload{paths.FE, paths.BE, paths.CN} {
		n, ok := next[w.Name]
		if old, was := m.Notes[w.Name]; !ok && was && rollingTo(w, old.Image) {
			n, ok = old, true
			next[w.Name] = old
		}
		if ok {
			msgs = append(msgs, "upgrade path of "+n.Message)
		}
	}
	m.Notes = next
	if len(next) == 0 {
		m.Notes = nil
	}
	return m, strings.Join(msgs, "; "), append(warn, ask...)
}

// rollingTo is true while w's StatefulSet carries image and has not rolled
// every pod to it.
func rollingTo(w Workload, img string) bool {
	return w.Live != nil && w.Desired != nil && resources.Image(w.Desired) == img && (resources.Image(w.Live) != img || !status.RolledOut(w.Live))
}

// componentTitled is the StatefulSet component whose Title is name.
func componentTitled(name string) resources.Component {
	for _, c := range []resources.Component{resources.ComponentFE, resources.ComponentBE} {
		if c.Title() == name {
			return c
		}
	}
	return resources.ComponentCN
}
