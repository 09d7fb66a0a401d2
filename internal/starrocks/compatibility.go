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
	"sort"
	"strings"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// The compatibility pause of an upgrade or downgrade (docs/upgrades.md,
// "Compatibility configuration"): before the first pod of a minor or major
// version change is replaced, tablet clone and balancing go off with ADMIN
// SET FRONTEND CONFIG, and back to what FE had once every component runs
// its new image (a BE FE lists not Alive is told, not waited for). What FE
// had is recorded on the cluster before the first statement (PauseRecord),
// so that an operator that restarts restores it, not the paused values it
// would read then. A value set so lives in each FE's memory only, so the
// pause is set again whenever an FE restarts or the leader moves (FE's
// fingerprint changes). FE sets such a value on the FE that runs the
// statement first, then on every other FE it lists, alive or not, failing
// on one that does not answer (ConfigBase.setConfig): each key is its own
// attempt, and after an error FE's leader, whose tablet scheduler clones
// and balances, decides whether it took (Unconfirmed). The pause (and its
// record) begins only in the reconcile that writes the first StatefulSet
// of the change, the write that replaces its first pod or lets its gate do
// so, once that gate would let it go (FirstPodWaits): not while another
// step keeps every changed StatefulSet (a pre-flight
// hold, the rollout order, a scale-in and its decommission), which would
// slow what they wait for (a decommission drains at one tablet per 20 s
// round under the pause). Nor while FE lists a BE decommission draining:
// the change waits for it.

// PauseRecord is what FE had before the pause, by key (the keys of
// CompatibilityPause), recorded on the cluster, and the metadata image
// still due after FE's change (Image).
type PauseRecord struct {
	// Values is nil when the change takes no pause (a patch version).
	Values map[string]string `json:"values,omitempty"`
	// Assumed are the keys FE did not show (an FE whose LIKE does not
	// match aliases): recorded at the docs' restore value.
	Assumed []string `json:"assumed,omitempty"`
	// Image is FE's new image when FE's image changes: once every FE runs
	// it, ALTER SYSTEM CREATE IMAGE, and the record stays until every FE
	// has the new image.
	Image string `json:"image,omitempty"`
	// ImageBefore: FE's change is a downgrade, and the image is taken on
	// every FE before its first pod too (Downgrade StarRocks, "Downgrade
	// FE" step 1); false once taken.
	ImageBefore bool `json:"imageBefore,omitempty"`
}

// Paused reports whether the record holds a pause to restore.
func (r *PauseRecord) Paused() bool { return r != nil && r.Values != nil }

// documentedRestore is what the pages restore after the change (Upgrade
// and Downgrade StarRocks, 2.5 to Latest-4.1), by CompatibilityPause key.
var documentedRestore = map[string]string{
	"tablet_sched_max_scheduling_tablets": "10000",
	"tablet_sched_max_balancing_tablets":  "500",
	"disable_balance":                     "false",
	"disable_colocate_balance":            "false",
}

// PauseKeys are the keys the pause sets, in the order it sets them.
func PauseKeys() []string {
	out := make([]string, len(CompatibilityPause))
	for i, kv := range CompatibilityPause {
		out[i] = kv.Key
	}
	return out
}

// CompatibilityIn is what the pause is decided from.
type CompatibilityIn struct {
	// Changes are the pre-flight's verdicts on the image changes still to
	// be written (none refused: a refused change keeps its template).
	Changes []ImageCheck
	// Rolling names the components whose pods do not all run their
	// StatefulSet's image yet, or whose image change is still to be
	// written; Unsettled only the former (a held change does not count).
	Rolling, Unsettled []string
	// Kept are the components whose image change this reconcile does not
	// write, by why (NotWritten): another step keeps their StatefulSet
	// whole, or their pod template at the live one. No pod of theirs goes
	// now, so their change takes no pause yet. nil: none is kept.
	Kept map[string]string
	// Undecided: an image change is pending whose pre-flight waits for
	// FE's report, so Changes does not list it yet and its templates are
	// held at their live values: nothing may be taken as finished.
	Undecided bool
	// Record is the pause recorded on the cluster; nil when none.
	Record *PauseRecord
	// Shown is FE's configuration as read for the record; nil until read.
	Shown map[string]string
	// Report is FE's last report; nil when there is none.
	Report *Report
	// FEChanged is when an FE pod was last created or changed readiness
	// (zero when none is known): a report from before may not show the FE
	// process that started since, whose memory is fe.conf's again.
	FEChanged time.Time
	// SetFor is the FE fingerprint (Fingerprint) at which this process last
	// set the pause; "" when it has not.
	SetFor string
	// Images is each FE's own word on its image, by FE name (read when a
	// plan asks ReadImages); nil until read.
	Images map[string]fe.HAInfo
	// ImageAfter is the leader's journal id when this process sent ALTER
	// SYSTEM CREATE IMAGE for the record's step (Record.ImageBefore, or
	// the image after the change); 0 when it has not. ImageSince is when.
	ImageAfter int64
	ImageSince time.Time
	// ImageFrom is when this process began the record's image step (the
	// image before FE's downgrade, or the one after the change); zero when
	// it has not. ImageLimit bounds that step (0: ImageWaitLimit), and
	// ImageWhy is what last kept it from being confirmed (FE's HTTP port
	// not answering SHOW_HA, ALTER SYSTEM CREATE IMAGE refused); nil none.
	ImageFrom  time.Time
	ImageLimit time.Duration
	ImageWhy   error
	// ImageTold: the Warning of an image before FE's downgrade that could
	// not be confirmed within the limit was told.
	ImageTold bool
	// FENames names FE's pods, and FENotReady the ordinals of those that
	// are not Ready: an FE whose pod is not Ready is not waited for.
	FENames    PodNames
	FENotReady map[int]bool
	// Now is the time of this plan.
	Now time.Time
}

// imageLimit is the bound of one image step.
func (in CompatibilityIn) imageLimit() time.Duration {
	if in.ImageLimit > 0 {
		return in.ImageLimit
	}
	return ImageWaitLimit
}

// CompatibilityPlan is what to do now, in this order: read FE's
// configuration (ReadConfig, then plan again with Shown); write Record on
// the cluster; send Statements; remember SetFor; clear the record (Clear).
// Wait keeps the image changes not written yet back, with Message; so does
// any of the steps failing (Message says what was being done).
type CompatibilityPlan struct {
	ReadConfig bool
	// ReadImages: read each FE's image (Images), then plan again.
	ReadImages bool
	Record     *PauseRecord
	Statements []fe.Statement
	// Want are the values Statements set (the pause's or the restore's):
	// sent each as its own attempt, and when one fails, FE's leader is
	// asked whether it holds them (ConfigBase.setConfig sets its own value
	// first, then fails on the first FE that does not answer).
	Want   map[string]string
	SetFor string
	// After is a record written once Statements went through (the image
	// step bounded: the values restored first, the record rewritten after).
	After *PauseRecord
	// ImageStep: the plan waits on, or works at, the record's image step,
	// bounded from its first plan.
	ImageStep bool
	// ImageTold: the Warning of an image before FE's downgrade not
	// confirmed within the limit is told now.
	ImageTold bool
	// ImageAfter is what to remember as CompatibilityIn.ImageAfter once
	// Statements (ALTER SYSTEM CREATE IMAGE) are sent; 0 none.
	ImageAfter int64
	Clear      bool
	Wait       bool
	Message    string
	// Events tell the pause taken or lifted and the image taken, in order.
	Events []*Event
}

// PlanCompatibility decides the pause and the image after the change.
func PlanCompatibility(in CompatibilityIn) CompatibilityPlan {
	pause := slices.ContainsFunc(in.Changes, func(c ImageCheck) bool { return c.Verdict.Allowed() && c.Verdict.PauseBalance })
	image := feImageChange(in.Changes)
	fp := Fingerprint(in.Report)
	rec := in.Record
	if rec == nil {
		if pause && !in.firstPodGoes() {
			// No StatefulSet of the change is written now: no pod of it
			// goes, and what keeps it (the order, a scale-in draining, a
			// pre-flight hold) says so. The pause, its record and the
			// image's wait for the reconcile that writes the first one.
			return CompatibilityPlan{}
		}
		return planRecord(in, pause, image, fp)
	}
	if rec.ImageBefore && image == rec.Image {
		// A downgrade of FE: the image first, FE's change (and the
		// others, after it) held meanwhile.
		// The pause is not set yet (planRecord): an image that takes
		// long keeps only the change waiting.
		img, done := planImage(in)
		if !done {
			img.Wait = true
			return img
		}
		next := *rec
		next.ImageBefore = false
		img.Record, img.Wait = &next, true
		img.Message = "FE's metadata image is on every FE; FE's downgrade goes on"
		return img
	}
	if rec.Paused() && (fp == "" || Settling(in.FEChanged, in.Report) || feRestarting(in)) {
		// Which FE processes run is not known since an FE pod changed: one
		// that started since runs at fe.conf's values. What is not written
		// yet waits for FE's report, to set the pause again first. An FE
		// pod not Ready right after a pod change is one being replaced:
		// FE lists its ended process Alive for about 20 s
		// (Frontend.handleHbResponse), and ADMIN SET FRONTEND CONFIG fails
		// on it (ConfigBase.setConfig); it runs at fe.conf's values once
		// back, and the pause is set then.
		return CompatibilityPlan{Wait: true,
			Message: "waiting for FE's report since its pods changed, to keep the compatibility pause on every FE"}
	}
	if rec.Image != "" && image != "" && image != rec.Image {
		// The docs ask for an image between two changes: FE's next change
		// waits while the last one's finishes (its image, its restore).
		msg := "waiting for FE's metadata image after the change to " + rec.Image + " before FE changes again"
		if len(in.Unsettled) > 0 || !reported(in.Report) {
			return CompatibilityPlan{Wait: true, Message: msg}
		}
		plan := finishChange(in, fp)
		plan.Wait = true
		if plan.Message == "" {
			plan.Message = msg
		}
		return plan
	}
	if !pause && image == "" && !in.Undecided && len(in.Rolling) == 0 && reported(in.Report) {
		// Every component runs its image: the pause ends whatever FE says
		// of a BE that is not Alive (a BE lost meanwhile, a stale row).
		// Kept on, it would leave repair at one tablet per 20 s round and
		// colocate replicas short for good; a dead BE is told instead.
		return finishChange(in, fp)
	}
	if rec.Paused() && fp != in.SetFor {
		// An FE restarted (back at fe.conf's values), the leader moved, or
		// this process has not set it yet: set it again on every FE.
		return CompatibilityPlan{Statements: pauseStatements(), Want: PausedValues(), SetFor: fp,
			Message: "setting the compatibility pause again on every FE (an FE restarted or the leader moved)"}
	}
	return CompatibilityPlan{}
}

// finishChange is the end of a change once everything rolled and every BE
// is Alive: the image after it, then the restore and the record cleared.
func finishChange(in CompatibilityIn, fp string) CompatibilityPlan {
	rec := in.Record
	plan := CompatibilityPlan{Clear: true}
	if rec.Image != "" {
		img, done := planImage(in)
		if !done {
			if rec.Paused() && fp != in.SetFor && img.After == nil {
				// The pause first, on its own: an FE that does not answer
				// yet (one just replaced, which FE lists Alive for about
				// 20 s) fails it, and FE's leader is asked; the image
				// follows once the pause holds, so that a failed pause
				// never sends CREATE IMAGE twice.
				return CompatibilityPlan{Statements: pauseStatements(), Want: PausedValues(), SetFor: fp, ImageStep: img.ImageStep, Wait: img.Wait,
					Message: "setting the compatibility pause again on every FE before FE's metadata image"}
			}
			return img
		}
		plan.Events = img.Events
	}
	if rec.Paused() {
		plan.Statements, plan.Want = restoreStatements(rec), restoreValues(rec)
		note := "tablet clone and balancing restored to " + rec.String()
		if dead := deadBackends(in.Report); len(dead) > 0 {
			note += "; FE lists BE " + strings.Join(dead, ", ") + " not Alive: its replicas are repaired now that clone and balancing run"
		}
		plan.Events = append(plan.Events, &Event{Reason: srv1.ReasonCompatibilityRestored, Action: "Upgrade", Note: note})
	}
	return plan
}

// deadBackends are the hosts of the BEs FE's report lists not Alive.
func deadBackends(r *Report) []string {
	var out []string
	if r == nil {
		return nil
	}
	for _, b := range r.Backends {
		if !b.Alive {
			out = append(out, b.Host)
		}
	}
	return out
}

// draining are the BEs FE lists decommissioning with tablets still on them.
func draining(r *Report) []string {
	var out []string
	if r == nil || r.Err != nil {
		return nil
	}
	for _, b := range r.Backends {
		if b.Decommissioned && b.TabletNum > 0 {
			out = append(out, fmt.Sprintf("%s (%d tablets)", b.Host, b.TabletNum))
		}
	}
	return out
}

// planRecord is the plan with no record yet: read FE's configuration when
// the change pauses, then record it (and the image due) and pause.
func planRecord(in CompatibilityIn, pause bool, image, fp string) CompatibilityPlan {
	switch {
	case !pause && image == "":
		return CompatibilityPlan{}
	case !pause:
		// A downgrade's change waits for its image (the next plans).
		before := imageBefore(in.Changes)
		return CompatibilityPlan{Record: &PauseRecord{Image: image, ImageBefore: before}, Wait: before,
			Message: "recording that FE's metadata image is due once every FE runs " + image}
	case len(draining(in.Report)) > 0:
		// A BE decommission drains: no pod of the change can go meanwhile
		// (a BE rollout's gate waits for every tablet healthy), and the
		// pause would slow the drain to one tablet per 20 s round. The
		// pause, and the change, wait for the drain, which runs at full
		// speed meanwhile.
		return CompatibilityPlan{Wait: true, Message: "the version change of " + ChangeNames(in.Changes) +
			" and its compatibility pause wait for the BE decommission to drain at full speed: " + strings.Join(draining(in.Report), ", ")}
	case in.Shown == nil:
		return CompatibilityPlan{ReadConfig: true,
			Message: "reading FE's tablet clone and balance configuration, to record it before the compatibility pause"}
	}
	rec := recordOf(in.Shown)
	rec.Image, rec.ImageBefore = image, imageBefore(in.Changes)
	if rec.ImageBefore {
		// A downgrade of FE: its image first, then the pause (set as a
		// record not yet set on these FEs is), then the pods.
		return CompatibilityPlan{Record: rec, Wait: true,
			Message: "recording FE's tablet clone and balance configuration; FE's metadata image comes before the pause and FE's downgrade",
			Events: []*Event{{Reason: srv1.ReasonCompatibilityPause, Action: "Upgrade", Note: "tablet clone and balancing to be paused for the version change of " +
				ChangeNames(in.Changes) + " once FE's metadata image is on every FE; FE had " + rec.String()}}}
	}
	return CompatibilityPlan{Record: rec, Statements: pauseStatements(), Want: PausedValues(), SetFor: fp,
		Message: "pausing tablet clone and balancing before the version change (ADMIN SET FRONTEND CONFIG)",
		Events: []*Event{{Reason: srv1.ReasonCompatibilityPause, Action: "Upgrade", Note: "tablet clone and balancing paused for the version change of " +
			ChangeNames(in.Changes) + "; FE had " + rec.String()}}}
}

// Fingerprint names the FE processes of a report: each FE's name, start
// time and role. A restart (a new StartTime) or a leader change changes
// it; "" when there is no report of FE's nodes.
func Fingerprint(r *Report) string {
	if r == nil || r.Err != nil || len(r.Frontends) == 0 {
		return ""
	}
	parts := make([]string, 0, len(r.Frontends))
	for _, f := range r.Frontends {
		parts = append(parts, f.Name+"@"+f.StartTime+"/"+f.Role)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// reported: FE's report is in. The pages restore "once every BE is Alive";
// the pause is lifted once every component runs its image whatever FE
// says of a BE, since a BE that never comes back would keep it on for
// good (issue 50, item 12), and the dead BE is told.
func reported(r *Report) bool { return r != nil && r.Err == nil }

// ChangeNames names each change's component and new image, in one line.
func ChangeNames(checks []ImageCheck) string {
	var out []string
	for _, c := range checks {
		out = append(out, c.Name+" to "+c.To)
	}
	return strings.Join(out, ", ")
}
