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
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// The compatibility pause as a step: PlanCompatibility decides what FE's
// report, configuration and images allow (CompatibilityPlan, a decision
// made again as each read comes in); PlanPause asks for those reads and
// makes the decision a Step. The record is written before the pause's
// statements, so that an operator SIGKILLed between the two restores what
// FE had, not the paused values it would read then; it is removed only
// after the restore's statements.

// PauseInput is what the compatibility pause is planned from: the
// decision's input (its Report, Shown, SetFor, Images, ImageAfter and
// ImageSince come from the reads and the memory), the pre-flight's key of
// the pending change, and FE's read rate.
type PauseInput struct {
	CompatibilityIn
	ChangeKey string
	Every     time.Duration
}

// Pause is the compatibility pause's memory of one cluster.
type Pause struct {
	// SetFor is the FE fingerprint (Fingerprint) at which this process
	// last set the pause.
	SetFor string
	// Skipped is the change (ChangeKey) that goes on without the pause
	// because FE did not answer: it is not asked again.
	Skipped string
	// Image is the ALTER SYSTEM CREATE IMAGE this process sent.
	Image *ImageSent
	// Unconfirmed is a pause or a restore FE answered with an error: FE's
	// leader is asked whether it holds the values before anything else.
	Unconfirmed *Unconfirmed
	// ImageFor names the record's image step this process began (its
	// image, and whether it comes before FE's downgrade), ImageFrom when;
	// ImageWhy is what last kept it; ImageTold that its Warning was told.
	ImageFor  string
	ImageFrom time.Time
	ImageWhy  string
	ImageTold bool
}

// Unconfirmed is a pause or restore whose statements FE answered with an
// error. ConfigBase.setConfig sets the value on the FE that runs it first,
// then on every other FE it lists, alive or not, and fails on the first
// that does not answer: the leader, whose tablet scheduler is the one that
// clones and balances, may hold the values all the same.
type Unconfirmed struct {
	// Want are the values sent; Restore is true for a restore, whose
	// record goes (Clear) or is rewritten (After) once the leader holds
	// them; SetFor is the FE fingerprint a pause was sent for.
	Want    map[string]string
	Restore bool
	Clear   bool
	After   *PauseRecord
	SetFor  string
	// Err is FE's error.
	Err string
}

// ImageSent is what this process sent ALTER SYSTEM CREATE IMAGE for: the
// record's FE image and step (before FE's downgrade, or after the change),
// the leader's journal id then, and when.
type ImageSent struct {
	Image  string
	Before bool
	After  int64
	At     time.Time
}

// RecordError is a Record's write that failed: a record written before the
// statements stopped them; one removed after them found them done.
type RecordError struct{ Err error }

func (e *RecordError) Error() string { return e.Err.Error() }
func (e *RecordError) Unwrap() error { return e.Err }

// PlanPause plans the compatibility pause of a minor or major version
// change: FE is asked nothing for a cluster with no record and nothing that
// needs one; otherwise its report (and, before the record, its
// configuration; for the image, each FE's own word) is read, and the
// decision made into a Step.
func PlanPause(in PauseInput, m Pause, r Reads) (Step[Pause], Pause) {
	ci, rec := in.CompatibilityIn, in.Record
	if m.Unconfirmed != nil {
		return in.confirm(m, r)
	}
	if key := imageKey(rec); key != m.ImageFor {
		m.ImageFor, m.ImageFrom, m.ImageWhy, m.ImageTold = "", time.Time{}, "", false
	}
	ci.ImageFrom, ci.ImageTold = m.ImageFrom, m.ImageTold
	if m.ImageWhy != "" {
		ci.ImageWhy = errors.New(m.ImageWhy)
	}
	first := PlanCompatibility(ci)
	if rec == nil && !first.ReadConfig && first.Record == nil {
		// No record and nothing that needs one: FE is not asked. A change
		// that went on without the pause stays skipped while it lasts: a
		// reconcile in which no pod of it goes (FE kept behind BE by the
		// order) does not make its next write ask FE, and warn, again.
		if m.Skipped != "" && Covers(m.Skipped, in.ChangeKey) {
			return Step[Pause]{}, Pause{Skipped: m.Skipped}
		}
		return Step[Pause]{}, Pause{}
	}
	if rec == nil && m.Skipped != "" && Covers(m.Skipped, in.ChangeKey) {
		return Step[Pause]{}, m // this change goes on without the pause (FE did not answer): not asked again
	}
	if !r.Read.Report {
		need := Needs{Report: true}
		if first.ReadConfig {
			need.Config = PauseKeys()
		}
		return Step[Pause]{Needs: need}, m
	}
	ci.Report, ci.SetFor = r.Report, m.SetFor
	if sent := m.Image; sent != nil && rec != nil && sent.Image == rec.Image && sent.Before == rec.ImageBefore {
		ci.ImageAfter, ci.ImageSince = sent.After, sent.At
	}
	plan := PlanCompatibility(ci)
	if plan.Record != nil && !plan.Record.Paused() && r.Unanswered {
		// As the pause is skipped with an FE that does not answer: the
		// change goes on, without the image after it; said once.
		return in.skip(m, "FE's metadata image will not be taken after the change of "+ChangeNames(ci.Changes), reportErr(r.Report))
	}
	if plan.ReadConfig {
		switch {
		case len(r.Read.Config) == 0:
			return Step[Pause]{Needs: Needs{Config: PauseKeys()}}, m
		case r.ConfigUnanswered:
			// As the pre-flight does with an FE that does not answer: the
			// change goes on, unchecked, and without the pause; said once.
			return in.skip(m, "tablet clone and balancing not paused for the version change of "+ChangeNames(ci.Changes), r.ConfigErr)
		case r.ConfigErr != nil:
			return in.held(plan.Message, r.ConfigErr), m
		}
		ci.Shown = r.Config
		plan = PlanCompatibility(ci)
	}
	if plan.ReadImages {
		if !r.Read.Images {
			return Step[Pause]{Needs: Needs{Images: true}}, m
		}
		// An FE that does not answer is left out: the plan waits for it.
		ci.Images = r.Images
		if r.ImagesErr != nil {
			m.ImageWhy = r.ImagesErr.Error()
			ci.ImageWhy = r.ImagesErr
		}
		plan = PlanCompatibility(ci)
	}
	return in.step(plan, m)
}

// imageKey names the record's image step: its image and whether it comes
// before FE's downgrade; "" when the record has none.
func imageKey(rec *PauseRecord) string {
	if rec == nil || rec.Image == "" {
		return ""
	}
	return fmt.Sprintf("%s/before=%t", rec.Image, rec.ImageBefore)
}

// confirm decides on FE's leader's answer after a pause or a restore FE
// answered with an error: the leader holds the values, and it is done (a
// pause in force for this FE fingerprint, a restore's record removed or
// rewritten), the FE that did not answer named in a Warning; it does not,
// and it is sent again, after the step's back-off.
func (in PauseInput) confirm(m Pause, r Reads) (Step[Pause], Pause) {
	u := m.Unconfirmed
	if !r.Read.Report || len(r.Read.Config) == 0 {
		return Step[Pause]{Needs: Needs{Report: true, Config: PauseKeys(), Leader: true}}, m
	}
	what := "the compatibility pause"
	if u.Restore {
		what = "the restore of tablet clone and balancing"
	}
	next := m
	next.Unconfirmed = nil
	switch {
	case r.Report == nil || r.Report.Err != nil:
		// FE's report names the leader: waited for, as every step waits for it.
		st := Step[Pause]{After: in.lookAgain()}
		st = withHolds(st, in.waits("waiting for FE's report, to ask FE's leader whether it holds "+what+" FE answered with an error")...)
		return st, m
	case r.ConfigErr != nil:
		// The leader not read: sent again on the step's back-off.
		st := in.held("asking FE's leader whether it holds "+what+" FE answered with an error ("+u.Err+")", r.ConfigErr)
		st.After, st.BackOff = 0, true
		return st, next
	}
	var differ []string
	for _, k := range PauseKeys() {
		if want, ok := u.Want[k]; ok && r.Config[k] != want {
			differ = append(differ, fmt.Sprintf("%s=%s (want %s)", k, r.Config[k], want))
		}
	}
	if len(differ) > 0 {
		st := in.held("FE's leader does not hold "+what+" ("+strings.Join(differ, ", ")+") after FE answered with an error ("+u.Err+"): sent again", errors.New(u.Err))
		st.After, st.BackOff = 0, true
		return st, next
	}
	warn := Event{Reason: srv1.ReasonCompatibilityPause, Action: "Upgrade", Warning: true,
		Note: what + " holds on FE's leader, which schedules clone and balancing; FE did not set it on every FE it lists: " + u.Err}
	if !u.Restore {
		next.SetFor = u.SetFor
		if in.replacedOnly(silentFEs(u.Err), u.SetFor, r.Report) {
			// Every FE that did not answer is a pod being replaced, which
			// FE lists Alive for about 20 s after its process ended
			// (Frontend.handleHbResponse), or has restarted since: it
			// starts at fe.conf's values and gets the pause when it runs
			// (FE's fingerprint changes). Nothing to tell.
			return Step[Pause]{After: in.lookAgain()}, next
		}
		return Step[Pause]{Events: []Event{warn}, After: in.lookAgain()}, next
	}
	warn.Reason = srv1.ReasonCompatibilityRestored
	st := Step[Pause]{Events: []Event{warn}}
	switch {
	case u.Clear:
		st.Record = &Record{Annotation: srv1.CompatibilityPauseAnnotation}
		st.Events = append(st.Events, Event{Reason: srv1.ReasonCompatibilityRestored, Action: "Upgrade", Note: "tablet clone and balancing restored on FE's leader"})
		next.SetFor, next.Image = "", nil
	case u.After != nil:
		value, err := json.Marshal(u.After)
		if err != nil {
			return Step[Pause]{Err: err}, m
		}
		st.Record = &Record{Annotation: srv1.CompatibilityPauseAnnotation, Value: string(value)}
	}
	st.Failed = func(err error) (Step[Pause], Pause) { return Step[Pause]{Err: err}, m }
	return st, next
}

// step is the decision as a Step: the record, then the statements, then
// (for a clear) the record removed; the memory of what was set and sent;
// the wait; the Events; and what Progressing says while a record stands.
func (in PauseInput) step(plan CompatibilityPlan, m Pause) (Step[Pause], Pause) {
	var st Step[Pause]
	next := m
	if plan.Record != nil {
		value, err := json.Marshal(plan.Record)
		if err != nil {
			return Step[Pause]{Err: err}, m
		}
		st.Record = &Record{Annotation: srv1.CompatibilityPauseAnnotation, Value: string(value)}
	}
	st.Statements = plan.Statements
	st.Independent = plan.Want != nil
	if plan.SetFor != "" {
		next.SetFor = plan.SetFor
	}
	if plan.ImageStep && next.ImageFrom.IsZero() {
		next.ImageFor, next.ImageFrom = imageKey(in.Record), in.Now
	}
	if plan.ImageTold {
		next.ImageTold = true
	}
	if plan.After != nil {
		value, err := json.Marshal(plan.After)
		if err != nil {
			return Step[Pause]{Err: err}, m
		}
		st.Then = &Step[Pause]{Record: &Record{Annotation: srv1.CompatibilityPauseAnnotation, Value: string(value)}}
	}
	if plan.ImageAfter != 0 {
		next.Image = &ImageSent{Image: in.Record.Image, Before: in.Record.ImageBefore, After: plan.ImageAfter, At: in.Now}
	}
	if plan.Clear {
		st.Record = &Record{Annotation: srv1.CompatibilityPauseAnnotation}
		next.SetFor, next.Image = "", nil
	}
	st.Failed = func(err error) (Step[Pause], Pause) {
		var record *RecordError
		if plan.Clear && errors.As(err, &record) {
			return Step[Pause]{Err: err}, m // restored already; the record goes on the next reconcile
		}
		kept := m
		kept.ImageFor, kept.ImageFrom, kept.ImageTold = next.ImageFor, next.ImageFrom, next.ImageTold
		if plan.ImageStep {
			kept.ImageWhy = err.Error() // ALTER SYSTEM CREATE IMAGE refused: the bound still runs
		}
		if plan.Want != nil && !errors.As(err, &record) {
			// FE answered the pause's or the restore's statements with an
			// error: its leader decides (confirm), before anything else.
			kept.Unconfirmed = &Unconfirmed{Want: plan.Want, Restore: plan.SetFor == "", Clear: plan.Clear, After: plan.After, SetFor: plan.SetFor, Err: err.Error()}
			st := in.held(plan.Message, err)
			st.After, st.Err = in.lookAgain(), nil
			return st, kept
		}
		return in.held(plan.Message, err), kept
	}
	if plan.Wait {
		st = withHolds(st, in.waits(plan.Message)...)
		st.After = in.lookAgain()
	}
	var notes []string
	for _, e := range plan.Events {
		st.Events = append(st.Events, *e)
		notes = append(notes, e.Note)
	}
	if len(notes) > 0 {
		st.Log = &Log{Message: strings.Join(notes, "; ")}
	}
	shown := in.Record
	if shown == nil {
		shown = plan.Record
	}
	if shown != nil && !plan.Clear {
		// The restore and the image wait for FE's word, which no watch brings.
		st.Progress = &Progress{Note: pauseNote(shown, plan)}
		if st.After == 0 || in.Every < st.After {
			st.After = in.Every
		}
	}
	return st, next
}

// skip lets the change go on without what FE would have to answer, said
// once per change in a Warning Event.
func (in PauseInput) skip(m Pause, what string, err error) (Step[Pause], Pause) {
	m.Skipped = in.ChangeKey
	why := "FE did not answer"
	if err != nil {
		why += ": " + err.Error()
	}
	return Step[Pause]{Events: []Event{{Reason: srv1.ReasonCompatibilityPauseSkipped, Action: "Upgrade", Warning: true, Note: what + ": " + why}}}, m
}

// held keeps the pending image changes back while the pause cannot be
// taken or set again: FE's error says why. With none pending (a component
// rolls already) the error is the reconcile's, retried.
func (in PauseInput) held(msg string, err error) Step[Pause] {
	st := Step[Pause]{After: in.lookAgain()}
	for _, chk := range in.Changes {
		st.Holds = append(st.Holds, Hold{Component: componentTitled(chk.Name), Template: true, Waits: true, Trouble: err, Message: msg})
	}
	if len(in.Changes) == 0 {
		st.Err = fmt.Errorf("%s: %w", msg, err)
	}
	return st
}

// waits keep the image changes not written yet back while FE's word on its
// processes is not in.
func (in PauseInput) waits(msg string) []Hold {
	var hs []Hold
	for _, chk := range in.Changes {
		hs = append(hs, Hold{Component: componentTitled(chk.Name), Template: true, Waits: true, Reason: srv1.ReasonCompatibilityPause, Message: msg})
	}
	return hs
}

func (in PauseInput) lookAgain() time.Duration { return max(in.Every/10, MinLookAgain) }

func reportErr(r *Report) error {
	if r == nil {
		return nil
	}
	return r.Err
}

// pauseNote is what Progressing says while a record stands.
func pauseNote(rec *PauseRecord, plan CompatibilityPlan) string {
	var parts []string
	if rec.Paused() {
		parts = append(parts, "tablet clone and balancing paused for the version change; restored to "+rec.String()+
			" once every component runs its image")
	}
	if rec.Image != "" {
		note := "FE's metadata image is taken once every FE runs " + rec.Image
		if plan.Message != "" && (plan.ImageAfter != 0 || plan.ReadImages || strings.Contains(plan.Message, "metadata image")) {
			note = plan.Message
		}
		parts = append(parts, note)
	}
	return strings.Join(parts, "; ")
}
