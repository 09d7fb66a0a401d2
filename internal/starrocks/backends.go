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
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// BackendScaleIn is what the BE decommission is decided on: the BE
// StatefulSet and the spec (FE's word and the memory come beside it).
type BackendScaleIn struct {
	// Exists is true when the BE StatefulSet runs and the spec builds one.
	Exists bool
	// Recovering is true during a disaster recovery, which holds BE whole:
	// nothing is asked of FE, which restores a snapshot, until it is done.
	Recovering bool
	// Skip is the skip-decommission annotation: BE shrinks at once.
	// Shared-data BEs hold no data of their own and shrink at once too,
	// but that is FE's word (fe.Backend.SharedData), not fe.conf's: a
	// mistaken run_mode edit made with a scale-in must not skip the
	// decommission (issue 34 item 5).
	Skip  bool
	Names PodNames
	// Pods are the StatefulSet's pods by ordinal (PodsByOrdinal).
	Pods map[int]bool
	// Marked are the ordinals of the pods this operator asked FE to
	// decommission (srv1.DecommissionedByOperatorAnnotation): only their
	// decommission is taken back when the spec keeps them again.
	Marked map[int]bool
	// From is the replicas the StatefulSet runs, To those the spec asks for.
	From, To int32
	// Generation and UID are the live StatefulSet's.
	Generation int64
	UID        types.UID
	// SpecKey names the BE spec, for a refusal remembered of it.
	SpecKey func() string
	// FEReady is true when FE's pods are ready to be asked.
	FEReady bool
	// Every is how soon FE's report is read again.
	Every time.Duration
	// HeartbeatPort is be.conf's heartbeat_service_port.
	HeartbeatPort int
	// Stall is how long a decommission may move no tablet.
	Stall time.Duration
	Now   time.Time
}

// ScaleInBackends decides the BE decommission: the BEs a scale-in removes
// are decommissioned while the BE StatefulSet is held whole (its replicas,
// and any template change, which must not restart a BE FE drains) until FE
// lists none of them; BEs the spec keeps again are taken back.
func ScaleInBackends(in BackendScaleIn, m ScaleIn, r Reads) (Step[ScaleIn], ScaleIn) {
	if in.Recovering {
		return Step[ScaleIn]{}, m
	}
	if !in.Exists || in.Skip {
		return ended(), m.ended()
	}
	from, to := in.From, in.To
	shrinking := to < from
	if !shrinking && !m.Active && m.Checked.Of(in.UID).Covers(from, in.Generation) {
		// Look at FE only after a scale-in this process did not see
		// through: once per BE StatefulSet ever changed, when the operator
		// starts, for a decommission to take back.
		m.Checked = checkedAt(in.UID, from)
		return Step[ScaleIn]{}, m
	}
	removed := podRange(in.Names, to, from)
	st, m, done := in.beforeRead(shrinking, removed, m, r)
	if done {
		return st, m
	}
	rep := r.Report
	if rep == nil || shrinking || m.Active {
		st.After = in.Every
	} // else a failed read is tried again on the resync
	switch {
	case rep == nil:
		st.Holds = waitIf(shrinking, decommissioning("reading FE's backends to decommission %s; BE keeps %d replicas", removed, from))
		return st, m
	case rep.Err != nil:
		st.Holds = waitIf(shrinking, Hold{Trouble: rep.Err, Message: fmt.Sprintf(" (%v): BE keeps %d replicas until FE decommissions %s; annotate the cluster %s=true to shrink without", rep.Err, from, removed, srv1.SkipDecommissionAnnotation)})
		return st, m
	}
	plan := planBackends(rep.Backends, in.Names, int(to))
	if slices.ContainsFunc(rep.Backends, func(b fe.Backend) bool { return b.SharedData }) {
		return in.sharedData(st, m, rep, shrinking)
	}
	if !shrinking {
		// The spec keeps BEs FE drains (raised replicas): cancel, or, when
		// FE dropped them already, register them again as their entrypoint would.
		back := in.takeBack(st, m, rep, plan)
		if len(back.Statements) == 0 {
			back.Progress = &Progress{Done: true}
			m = m.ended()
			m.Checked = checkedAt(in.UID, from)
		}
		return back, m
	}
	if len(plan.cancel) == 0 {
		return in.decommission(st, m, rep, plan, removed)
	}
	// A scale-in lowered: the BEs kept again are taken back, then the rest goes on.
	rest, next := in.decommission(Step[ScaleIn]{}, m, rep, plan, removed)
	back := in.takeBack(st, next, rep, plan)
	back.Then = &rest
	failed := back.Failed
	back.Failed = func(err error) (Step[ScaleIn], ScaleIn) {
		f, fm := failed(err)
		f.Then = &rest
		return f, fm
	}
	return back, next
}

// ended is the step of a scale-in that is over: its tablet count goes.
func ended() Step[ScaleIn] {
	return Step[ScaleIn]{Progress: &Progress{Done: true}}
}

// sharedData decides a shared-data BE scale-in, on FE's word that FE runs
// so: the removed BEs hold no data of their own (their tablets live in
// object storage), and the StatefulSet shrinks at once. FE keeps their
// rows, Alive=false, for ever (facts sheet §14: only DROP removes a
// StarOS worker), so once their pods are gone they are dropped, as the
// compute nodes of a CN scale-in are (issue 34 item 6).
func (in BackendScaleIn) sharedData(st Step[ScaleIn], m ScaleIn, rep *Report, shrinking bool) (Step[ScaleIn], ScaleIn) {
	if shrinking {
		st.Progress, st.After = &Progress{Done: true}, in.Every
		return st, m.ended()
	}
	var stale []string
	for _, b := range rep.Backends {
		if ord, ok := in.Names.Ordinal(b.Host); ok && ord >= int(in.From) {
			if _, there := in.Pods[ord]; there {
				st.After = in.Every // its pod still goes: dropped once it is gone
				return st, m
			}
			stale = append(stale, b.Address())
		}
	}
	if len(stale) == 0 {
		st.Progress = &Progress{Done: true}
		m = m.ended()
		m.Checked = checkedAt(in.UID, in.From)
		return st, m
	}
	slices.Sort(stale)
	for _, a := range stale {
		st.Statements = append(st.Statements, fe.DropBackend{Backend: a})
	}
	st.Log = &Log{Message: "dropped the shared-data BEs a scale-in removed", KeysAndValues: []any{"backends", strings.Join(stale, ", ")}}
	st.Events = []Event{{Reason: "BackendDropped", Action: "DropBackend", Note: "dropped from FE the shared-data BEs whose pods a scale-in removed: " + strings.Join(stale, ", ")}}
	after := in.Every
	st.Failed = func(err error) (Step[ScaleIn], ScaleIn) {
		return Step[ScaleIn]{After: after, Log: &Log{Message: "could not drop the shared-data BEs a scale-in removed", KeysAndValues: []any{"backends", strings.Join(stale, ", "), "error", err.Error()}}}, m
	}
	return st, m
}

// beforeRead decides what comes before FE's report is read: a scale-in
// begins (FE's report read before no longer counts), FE refused it
// already, or FE's pods are not ready. done is false when the step goes on
// with the report.
func (in BackendScaleIn) beforeRead(shrinking bool, removed string, m ScaleIn, r Reads) (st Step[ScaleIn], next ScaleIn, done bool) {
	if shrinking {
		// Decide on FE's word read after the scale-in began: the health and
		// rollout reads keep reports fresh, and one read before the BEs
		// registered lists none of them, which would read as "gone".
		if !m.Active && !r.Read.Report {
			m.Active, st.Needs.Fresh = true, true
		}
		if msg := m.refusal(in.SpecKey); msg != "" { // FE refused this spec: nothing more is asked until it changes
			st.Holds = []Hold{{Reason: srv1.ReasonScaleInRefused, Message: msg, Refuses: true}}
			return st, m, true
		}
	}
	if !in.FEReady {
		st.Holds = waitIf(shrinking, decommissioning("waiting for FE's pods to be ready to decommission %s; BE keeps %d replicas", removed, in.From))
		return st, m, true
	}
	st.Needs.Report = !r.Read.Report
	return st, m, st.Needs.Report
}

// waitIf is the hold h while BE shrinks; nothing is held otherwise.
func waitIf(shrinking bool, h Hold) []Hold {
	if shrinking {
		return []Hold{h}
	}
	return nil
}

// takeBack cancels the decommission of BEs the spec keeps, and registers
// again those FE dropped; st carries what is decided already, m is the
// memory kept whether it succeeds or not. Only what this operator decided
// is taken back: the BEs whose pods carry its mark (Marked). A
// decommission or a DROP a DBA made by hand is the DBA's (issue 34 item 8).
func (in BackendScaleIn) takeBack(st Step[ScaleIn], m ScaleIn, rep *Report, plan backendPlan) Step[ScaleIn] {
	var cancel []string
	for i, a := range plan.cancel {
		if in.Marked[plan.cancelOrd[i]] {
			cancel = append(cancel, a)
			st.Marks = append(st.Marks, unmark(plan.cancelOrd[i]))
		}
	}
	suffix := hostSuffix(rep.Backends, in.Names)
	var missing []string
	if suffix != "" { // else no BE of this StatefulSet is listed to tell the DNS domain from: nothing to add by name
		for _, ord := range missingBackends(rep.Backends, in.Names, int(min(in.From, in.To))) {
			if in.Marked[ord] {
				missing = append(missing, fe.Backend{Host: fmt.Sprintf("%s.%s", in.Names.Pod(ord), suffix), HeartbeatPort: in.HeartbeatPort}.Address())
				st.Marks = append(st.Marks, unmark(ord))
			}
		}
	}
	if len(cancel) > 0 {
		st.Statements = append(st.Statements, fe.CancelDecommission{Backends: cancel})
	}
	for _, a := range missing {
		st.Statements = append(st.Statements, fe.AddBackend{Backend: a})
	}
	if len(st.Statements) == 0 {
		return st
	}
	st.Log = &Log{Message: "took back the decommission of BEs the spec keeps", KeysAndValues: []any{"cancelled", strings.Join(cancel, ", "), "added", strings.Join(missing, ", ")}}
	st.Events = []Event{{Reason: "DecommissionCancelled", Action: "CancelDecommission",
		Note: fmt.Sprintf("the spec keeps BEs FE was decommissioning: cancelled %s%s", strings.Join(cancel, ", "), addedNote(missing))}}
	after := st.After
	st.Failed = func(err error) (Step[ScaleIn], ScaleIn) {
		return Step[ScaleIn]{After: after, Log: &Log{Message: "could not take back the decommission of BEs the spec keeps",
			KeysAndValues: []any{"backends", strings.Join(append(slices.Clone(cancel), missing...), ", "), "error", err.Error()}}}, m
	}
	return st
}

// unmark clears the operator's decommission mark of a BE pod whose
// decommission is taken back.
func unmark(ord int) Mark {
	return Mark{Pod: ord, Annotation: srv1.DecommissionedByOperatorAnnotation, Clear: true, Gone: true}
}

// decommission asks FE to decommission the removed BEs it runs as usual,
// drops those it drained, and tells the drain; st carries what is decided
// already.
func (in BackendScaleIn) decommission(st Step[ScaleIn], m ScaleIn, rep *Report, plan backendPlan, removed string) (Step[ScaleIn], ScaleIn) {
	from, to := in.From, in.To
	if plan.gone() {
		if missing := plan.unlisted(int(to)); len(missing) > 0 {
			// FE lists none of the removed BEs under their pods' names, but
			// not the kept ones either: FE names its BEs otherwise (by
			// address: HOST_TYPE=IP, an FE without FQDN host type, BEs
			// added by hand), and "not listed" says nothing (issue 34 item 1).
			st.After = in.Every
			st.Holds = []Hold{{Reason: srv1.ReasonScaleInRefused, Refuses: true, Message: fmt.Sprintf(
				"spec.starRocksBeSpec.replicas: FE does not list %s under their pods' names (FE lists %s), so it cannot tell whether it still holds data on %s: BE keeps %d replicas. Register the BEs by their pods' DNS names (HOST_TYPE=FQDN), or decommission %s yourself and annotate the cluster %s=true",
				podList(in.Names, missing), strayList(plan.strays), removed, from, removed, srv1.SkipDecommissionAnnotation)}}
			return st, m
		}
		st.Progress = &Progress{Done: true}
		return st, m.ended() // FE let every removed BE go, and lists every kept one: the StatefulSet shrinks now
	}
	tablets := plan.tablets
	st.Progress = &Progress{Tablets: &tablets}
	base := st
	failed := func(h Hold) Step[ScaleIn] {
		return withHolds(Step[ScaleIn]{Progress: base.Progress, After: base.After}, h)
	}
	if len(plan.decommission) > 0 {
		st.Statements = []fe.Statement{fe.DecommissionBackends{Backends: plan.decommission}}
		for _, ord := range plan.decommissionOrd {
			// Before the DECOMMISSION: what this operator decided outlives
			// it. A pod gone has nothing to record.
			st.Marks = append(st.Marks, Mark{Pod: ord, Annotation: srv1.DecommissionedByOperatorAnnotation, Gone: true})
		}
		st.Failed = func(err error) (Step[ScaleIn], ScaleIn) {
			if msg, refused := fe.CapacityRefusal(err); refused {
				text := fmt.Sprintf("spec.starRocksBeSpec.replicas: FE refused to decommission %s, so BE keeps %d replicas: %s%s", removed, from, msg, statisticsHint(msg, from, to))
				refusedM := m
				refusedM.Refused = &Refusal{Spec: keyOf(in.SpecKey), Message: text}
				return failed(Hold{Reason: srv1.ReasonScaleInRefused, Message: text, Refuses: true}), refusedM
			}
			return failed(Hold{Trouble: err, Message: fmt.Sprintf(": FE did not take the decommission of %s (%v): BE keeps %d replicas; annotate the cluster %s=true to shrink without", removed, err, from, srv1.SkipDecommissionAnnotation)}), m
		}
		st.Log = &Log{Message: "asked FE to decommission the BEs a scale-in removes", KeysAndValues: []any{"backends", strings.Join(plan.decommission, ", ")}}
		st.Events = []Event{{Reason: srv1.ReasonDecommissioning, Action: "DecommissionBackend",
			Note: fmt.Sprintf("asked FE to decommission %s before BE shrinks from %d to %d replicas", strings.Join(plan.decommission, ", "), from, to)}}
		st.Holds = []Hold{decommissioning("FE decommissions %s; BE keeps %d replicas until FE let them go", removed, from)}
		return st, m
	}
	if len(plan.drop) > 0 {
		for _, a := range plan.drop {
			st.Statements = append(st.Statements, fe.DropBackend{Backend: a})
		}
		st.Failed = func(err error) (Step[ScaleIn], ScaleIn) {
			return failed(Hold{Trouble: err, Message: fmt.Sprintf(": FE drained %s but did not drop them (%v): BE keeps %d replicas", strings.Join(plan.drop, ", "), err, from)}), m
		}
		st.Log = &Log{Message: "dropped drained BEs from FE", KeysAndValues: []any{"backends", strings.Join(plan.drop, ", ")}}
	}
	paced, h := m.paced(in.drain(plan, rep, removed), in.Now)
	return withHolds(st, h), paced
}

// drain is the decommission FE runs: what is left on the BEs it drains.
func (in BackendScaleIn) drain(plan backendPlan, rep *Report, removed string) Drain {
	draining := drainingMessage(plan.draining)
	d := Drain{Tablets: plan.tablets, Message: fmt.Sprintf("FE decommissions %s: %d tablets left (%s)", removed, plan.tablets, draining),
		draining: draining, from: in.From, stall: in.Stall, most: slices.Max(slices.Collect(maps.Values(plan.draining)))}
	if rep.StatisticErr == nil {
		d.statistic = &rep.Statistic
	}
	return d
}

func decommissioning(format string, args ...any) Hold {
	return Hold{Reason: srv1.ReasonDecommissioning, Message: fmt.Sprintf(format, args...)}
}
