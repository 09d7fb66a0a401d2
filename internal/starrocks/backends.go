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
	"regexp"
	"slices"
	"strings"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// BackendScaleIn is what the BE decommission is decided on: the BE
// StatefulSet, FE's word, and what the operator remembers.
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
	// Generation is the live StatefulSet's.
	Generation int64
	// Active is true while a scale-in this process saw is in progress or
	// just reversed; Checked is where FE was last found clean.
	Active  bool
	Checked Checked
	// Refusal is FE's refusal of this BE spec; "" when none.
	Refusal string
	// FEReady is true when FE's pods are ready to be asked.
	FEReady bool
	// Read is true once FE's report was asked for; Report is nil when
	// there is none yet.
	Read   bool
	Report *Report
	// Every is how soon FE's report is read again.
	Every time.Duration
	// HeartbeatPort is be.conf's heartbeat_service_port.
	HeartbeatPort int
	// Stall is how long a decommission may move no tablet.
	Stall time.Duration
}

// ScaleInBackends decides the BE decommission: the BEs a scale-in removes
// are decommissioned while the BE StatefulSet is held whole (its replicas,
// and any template change, which must not restart a BE FE drains) until FE
// lists none of them; BEs the spec keeps again are taken back.
func ScaleInBackends(in BackendScaleIn) Step {
	if in.Recovering {
		return Step{}
	}
	if !in.Exists || in.Skip {
		return Step{End: true}
	}
	from, to := in.From, in.To
	shrinking := to < from
	if !shrinking && !in.Active && in.Checked.Covers(from, in.Generation) {
		// Look at FE only after a scale-in this process did not see
		// through: once per BE StatefulSet ever changed, when the operator
		// starts, for a decommission to take back.
		return Step{Clean: &from}
	}
	removed := podRange(in.Names, to, from)
	st, done := in.beforeRead(shrinking, removed)
	if done {
		return st
	}
	rep := in.Report
	if rep == nil || shrinking || in.Active {
		st.After = in.Every
	} // else a failed read is tried again on the resync
	switch {
	case rep == nil:
		st.Holds = waitIf(shrinking, decommissioning("reading FE's backends to decommission %s; BE keeps %d replicas", removed, from))
		return st
	case rep.Err != nil:
		st.Holds = waitIf(shrinking, Hold{Trouble: rep.Err, Message: fmt.Sprintf(" (%v): BE keeps %d replicas until FE decommissions %s; annotate the cluster %s=true to shrink without", rep.Err, from, removed, srv1.SkipDecommissionAnnotation)})
		return st
	}
	plan := planBackends(rep.Backends, in.Names, int(to))
	if slices.ContainsFunc(rep.Backends, func(b fe.Backend) bool { return b.SharedData }) {
		return in.sharedData(st, shrinking)
	}
	if !shrinking {
		// The spec keeps BEs FE drains (raised replicas): cancel, or, when
		// FE dropped them already, register them again as their entrypoint would.
		back := in.takeBack(st, plan)
		if len(back.Statements) == 0 {
			back.End, back.Clean = true, &from
		}
		return back
	}
	if len(plan.cancel) == 0 {
		return in.decommission(st, plan, removed)
	}
	// A scale-in lowered: the BEs kept again are taken back, then the rest goes on.
	rest := in.decommission(Step{}, plan, removed)
	back := in.takeBack(st, plan)
	back.Then = &rest
	failed := back.Failed
	back.Failed = func(err error) Step {
		f := failed(err)
		f.Then = &rest
		return f
	}
	return back
}

// sharedData decides a shared-data BE scale-in, on FE's word that FE runs
// so: the removed BEs hold no data of their own (their tablets live in
// object storage), and the StatefulSet shrinks at once. FE keeps their
// rows, Alive=false, for ever (facts sheet §14: only DROP removes a
// StarOS worker), so once their pods are gone they are dropped, as the
// compute nodes of a CN scale-in are (issue 34 item 6).
func (in BackendScaleIn) sharedData(st Step, shrinking bool) Step {
	if shrinking {
		st.End, st.After = true, in.Every
		return st
	}
	var stale []string
	for _, b := range in.Report.Backends {
		if ord, ok := in.Names.Ordinal(b.Host); ok && ord >= int(in.From) {
			if _, there := in.Pods[ord]; there {
				st.After = in.Every // its pod still goes: dropped once it is gone
				return st
			}
			stale = append(stale, b.Address())
		}
	}
	if len(stale) == 0 {
		st.End, st.Clean = true, &in.From
		return st
	}
	slices.Sort(stale)
	for _, a := range stale {
		st.Statements = append(st.Statements, fe.DropBackend{Backend: a})
	}
	st.Log = &Log{Message: "dropped the shared-data BEs a scale-in removed", KeysAndValues: []any{"backends", strings.Join(stale, ", ")}}
	st.Event = &Event{Reason: "BackendDropped", Action: "DropBackend", Note: "dropped from FE the shared-data BEs whose pods a scale-in removed: " + strings.Join(stale, ", ")}
	after := in.Every
	st.Failed = func(err error) Step {
		return Step{After: after, Log: &Log{Message: "could not drop the shared-data BEs a scale-in removed", KeysAndValues: []any{"backends", strings.Join(stale, ", "), "error", err.Error()}}}
	}
	return st
}

// beforeRead decides what comes before FE's report is read: a scale-in
// begins, FE refused it already, or FE's pods are not ready. done is false
// when the step goes on with the report.
func (in BackendScaleIn) beforeRead(shrinking bool, removed string) (st Step, done bool) {
	if shrinking {
		// Decide on FE's word read after the scale-in began: the health and
		// rollout reads keep reports fresh, and one read before the BEs
		// registered lists none of them, which would read as "gone".
		st.Begin = !in.Active && !in.Read
		if in.Refusal != "" { // FE refused this spec: nothing more is asked until it changes
			st.Holds = []Hold{{Reason: srv1.ReasonScaleInRefused, Message: in.Refusal, Refuses: true}}
			return st, true
		}
	}
	if !in.FEReady {
		st.Holds = waitIf(shrinking, decommissioning("waiting for FE's pods to be ready to decommission %s; BE keeps %d replicas", removed, in.From))
		return st, true
	}
	st.Read = !in.Read
	return st, st.Read
}

// waitIf is the hold h while BE shrinks; nothing is held otherwise.
func waitIf(shrinking bool, h Hold) []Hold {
	if shrinking {
		return []Hold{h}
	}
	return nil
}

// takeBack cancels the decommission of BEs the spec keeps, and registers
// again those FE dropped; st carries what is decided already. Only what
// this operator decided is taken back: the BEs whose pods carry its mark
// (Marked). A decommission or a DROP a DBA made by hand is the DBA's
// (issue 34 item 8).
func (in BackendScaleIn) takeBack(st Step, plan backendPlan) Step {
	var cancel []string
	for i, a := range plan.cancel {
		if in.Marked[plan.cancelOrd[i]] {
			cancel = append(cancel, a)
			st.Unmark = append(st.Unmark, plan.cancelOrd[i])
		}
	}
	suffix := hostSuffix(in.Report.Backends, in.Names)
	var missing []string
	if suffix != "" { // else no BE of this StatefulSet is listed to tell the DNS domain from: nothing to add by name
		for _, ord := range missingBackends(in.Report.Backends, in.Names, int(min(in.From, in.To))) {
			if in.Marked[ord] {
				missing = append(missing, fe.Backend{Host: fmt.Sprintf("%s.%s", in.Names.Pod(ord), suffix), HeartbeatPort: in.HeartbeatPort}.Address())
				st.Unmark = append(st.Unmark, ord)
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
	st.Event = &Event{Reason: "DecommissionCancelled", Action: "CancelDecommission",
		Note: fmt.Sprintf("the spec keeps BEs FE was decommissioning: cancelled %s%s", strings.Join(cancel, ", "), addedNote(missing))}
	after := st.After
	st.Failed = func(err error) Step {
		return Step{After: after, Log: &Log{Message: "could not take back the decommission of BEs the spec keeps",
			KeysAndValues: []any{"backends", strings.Join(append(slices.Clone(cancel), missing...), ", "), "error", err.Error()}}}
	}
	return st
}

// decommission asks FE to decommission the removed BEs it runs as usual,
// drops those it drained, and tells the drain; st carries what is decided
// already.
func (in BackendScaleIn) decommission(st Step, plan backendPlan, removed string) Step {
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
			return st
		}
		st.End = true
		return st // FE let every removed BE go, and lists every kept one: the StatefulSet shrinks now
	}
	st.Tablets = &plan.tablets
	base := st
	failed := func(h Hold) Step {
		f := base
		f.Holds = []Hold{h}
		return f
	}
	if len(plan.decommission) > 0 {
		st.Statements = []fe.Statement{fe.DecommissionBackends{Backends: plan.decommission}}
		st.MarkDecommissioned = plan.decommissionOrd // before the DECOMMISSION: what this operator decided outlives it
		st.Failed = func(err error) Step {
			if msg, refused := fe.CapacityRefusal(err); refused {
				text := fmt.Sprintf("spec.starRocksBeSpec.replicas: FE refused to decommission %s, so BE keeps %d replicas: %s%s", removed, from, msg, statisticsHint(msg, from, to))
				f := failed(Hold{Reason: srv1.ReasonScaleInRefused, Message: text, Refuses: true})
				f.Refusal = text
				return f
			}
			return failed(Hold{Trouble: err, Message: fmt.Sprintf(": FE did not take the decommission of %s (%v): BE keeps %d replicas; annotate the cluster %s=true to shrink without", removed, err, from, srv1.SkipDecommissionAnnotation)})
		}
		st.Log = &Log{Message: "asked FE to decommission the BEs a scale-in removes", KeysAndValues: []any{"backends", strings.Join(plan.decommission, ", ")}}
		st.Event = &Event{Reason: srv1.ReasonDecommissioning, Action: "DecommissionBackend",
			Note: fmt.Sprintf("asked FE to decommission %s before BE shrinks from %d to %d replicas", strings.Join(plan.decommission, ", "), from, to)}
		st.Holds = []Hold{decommissioning("FE decommissions %s; BE keeps %d replicas until FE let them go", removed, from)}
		return st
	}
	if len(plan.drop) > 0 {
		for _, a := range plan.drop {
			st.Statements = append(st.Statements, fe.DropBackend{Backend: a})
		}
		st.Failed = func(err error) Step {
			return failed(Hold{Trouble: err, Message: fmt.Sprintf(": FE drained %s but did not drop them (%v): BE keeps %d replicas", strings.Join(plan.drop, ", "), err, from)})
		}
		st.Log = &Log{Message: "dropped drained BEs from FE", KeysAndValues: []any{"backends", strings.Join(plan.drop, ", ")}}
	}
	draining := drainingMessage(plan.draining)
	st.Drain = &Drain{Tablets: plan.tablets, Message: fmt.Sprintf("FE decommissions %s: %d tablets left (%s)", removed, plan.tablets, draining),
		draining: draining, from: from, stall: in.Stall, most: slices.Max(slices.Collect(maps.Values(plan.draining)))}
	if in.Report.StatisticErr == nil {
		st.Drain.statistic = &in.Report.Statistic
	}
	return st
}

func decommissioning(format string, args ...any) Hold {
	return Hold{Reason: srv1.ReasonDecommissioning, Message: fmt.Sprintf(format, args...)}
}

// Drain is a BE decommission in progress. The memory records its tablet
// count and paces what the status says of it; Hold then says whether it
// stalled.
type Drain struct {
	// Tablets is what FE still counts on the BEs it drains.
	Tablets int
	// Message is what the status would say now (the tablets left on each BE).
	Message  string
	draining string
	from     int32
	stall    time.Duration
	// most is the largest TabletNum of one draining BE.
	most int
	// statistic is FE's '/statistic' Total row read with the drain; nil
	// when FE did not give it.
	statistic *fe.Statistic
}

// MaxCloneTime is tablet_sched_max_clone_task_timeout_sec (2 h, facts
// sheet §14): the longest one clone may run before FE gives it up. FE's
// tablet count falls only when a clone ends, so a drain that copies one
// large tablet moves no count for up to this long.
const MaxCloneTime = 2 * time.Hour

// Hold is the drain's hold: shown is what the status shows of it, since
// when its tablet count last fell. A drain whose count has not fallen for
// the stall timeout is stalled, unless FE still copies tablets (a large
// tablet's clone: until MaxCloneTime more). A stalled drain names its
// likely cause, from FE's counts (issue 34 item 7): tablets of dropped
// tables in FE's recycle bin, or BEs that cannot take the copies.
func (d Drain) Hold(shown string, since, now time.Time) Hold {
	quiet := now.Sub(since)
	if quiet < d.stall {
		return decommissioning("%s; BE keeps %d replicas until FE let them go", shown, d.from)
	}
	if d.statistic != nil && d.statistic.CloningTablets > 0 && quiet < d.stall+MaxCloneTime {
		return decommissioning("%s; no count fell for %s, but FE still copies %d tablets (CloningTabletNum of SHOW PROC '/statistic'): a large tablet's copy runs as long as its data takes, up to tablet_sched_max_clone_task_timeout_sec (2 h by default), and FE's count falls only when it ends; BE keeps %d replicas until FE let them go",
			shown, quiet.Round(time.Second), d.statistic.CloningTablets, d.from)
	}
	stalled := fmt.Sprintf("FE moved no tablet off %s for %s (%d tablets left, per FE's TabletNum)", d.draining, d.stall, d.Tablets)
	var cause string
	if binned := d.binned(); binned > 0 {
		// '/statistic' walks the tables that exist; TabletNum counts FE's
		// inverted index, which keeps the tablets of dropped tables and
		// partitions in the recycle bin, never relocated (facts sheet §14).
		cause = fmt.Sprintf("at least %d of them belong to no table that exists (FE counts %d unhealthy tablets in all, and a BE it drains holds %d): tables or partitions dropped within catalog_trash_expire_second (1 day by default) stay in FE's recycle bin, and FE neither moves their tablets nor lets the BE go. On StarRocks 4.0 and later SELECT * FROM information_schema.recyclebin_catalogs lists them. RECOVER what you want back (FE then moves it), and let FE erase the rest sooner: ADMIN SET FRONTEND CONFIG (\"catalog_trash_expire_second\" = \"600\"); DROP TABLE ... FORCE skips the bin next time",
			binned, d.statistic.UnhealthyTablets, d.most)
	} else {
		cause = "check that the other BEs are alive and have room"
	}
	return Hold{Reason: srv1.ReasonDecommissionStalled, Message: fmt.Sprintf("%s: %s; BE keeps %d replicas; annotate the cluster %s=true to shrink anyway, losing what only they hold",
		stalled, cause, d.from, srv1.SkipDecommissionAnnotation)}
}

// binned is how many of the tablets on the fullest draining BE FE's
// '/statistic' cannot count, at least: each tablet of a table that exists
// with a replica on a draining BE is unhealthy while it drains (REPLICA_
// RELOCATING or FORCE_REDUNDANT, facts sheet §14), once per tablet; the
// rest of the BE's TabletNum is in the recycle bin. 0 when FE gave no count.
func (d Drain) binned() int {
	if d.statistic == nil {
		return 0
	}
	return max(0, d.most-d.statistic.UnhealthyTablets)
}

// Checked is where FE was last found with nothing left to do for a
// StatefulSet: no member of a removed ordinal, no kept BE draining or
// missing, no stale compute node.
type Checked struct {
	// Replicas are the StatefulSet's replicas then; Known is false when
	// this process never found it so.
	Replicas int32
	Known    bool
}

// Covers reports whether FE has nothing to do for a StatefulSet at
// replicas and generation: scaled out or unchanged since it was found
// clean, or never scaled (the spec of a StatefulSet at generation 1 was
// never changed).
func (c Checked) Covers(replicas int32, generation int64) bool {
	return (c.Known && replicas >= c.Replicas) || (!c.Known && generation <= 1)
}

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

// podList names the pods of ordinals, e.g. "be-0, be-1".
func podList(names PodNames, ordinals []int) string {
	pods := make([]string, len(ordinals))
	for i, o := range ordinals {
		pods[i] = names.Pod(o)
	}
	return strings.Join(pods, ", ")
}

// strayList names FE's rows that match no pod; "no other BE" when none.
func strayList(hosts []string) string {
	if len(hosts) == 0 {
		return "no other BE"
	}
	return strings.Join(slices.Sorted(slices.Values(hosts)), ", ")
}

// drainingMessage says which BEs FE drains and what is left on them.
func drainingMessage(draining map[string]int) string {
	pods := slices.Sorted(maps.Keys(draining))
	parts := make([]string, len(pods))
	for i, p := range pods {
		parts[i] = fmt.Sprintf("%s (%d tablets)", p, draining[p])
	}
	return strings.Join(parts, ", ")
}

// podRange names the pods of ordinals [from, to), e.g. "be-2 and be-3".
func podRange(names PodNames, from, to int32) string {
	var pods []string
	for i := from; i < to; i++ {
		pods = append(pods, names.Pod(int(i)))
	}
	switch len(pods) {
	case 0:
		return "no BE"
	case 1:
		return pods[0]
	default:
		return strings.Join(pods[:len(pods)-1], ", ") + " and " + pods[len(pods)-1]
	}
}

func addedNote(added []string) string {
	if len(added) == 0 {
		return ""
	}
	return "; registered again (FE had dropped them): " + strings.Join(added, ", ")
}

// statisticsTable finds the table of StarRocks' own statistics database an
// FE refusal names ("... because the table _statistics_.<tbl> requires 3
// replicas.").
var statisticsTable = regexp.MustCompile(`the table (_statistics_\.[A-Za-z0-9_]+) requires`)

// statisticsHint is what to run when FE refused a decommission for one of
// its own statistics tables: shared-nothing FEs create them with
// replication_num = min(3, BEs), and older FEs count them in the
// decommission check (newer ones skip them; facts sheet §14). StarRocks
// itself lowers them with ALTER TABLE ... SET ('replication_num' = ...)
// where it does (StatisticUtils.alterSystemTableReplicationNumIfNecessary).
func statisticsHint(refusal string, from, to int32) string {
	m := statisticsTable.FindStringSubmatch(refusal)
	if m == nil {
		return ""
	}
	return fmt.Sprintf(" %s is StarRocks' own statistics table, made with as many replicas as BEs, up to 3, and this FE counts it before it lets BEs go. Lower it to the BEs that stay: ALTER TABLE %s SET (\"replication_num\" = \"%d\"); then set spec.starRocksBeSpec.replicas to %d and back to %d: FE is asked again when the BE spec changes",
		m[1], m[1], min(3, max(1, to)), from, to)
}
