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
	"strings"
	"time"

	"github.com/srscale/starrocks-operator/internal/fe"
)

// The leader's confirmation of a change of FE's group (issue 50 item 18):
// the change ScaleInFrontends decided on FE's report is made only once
// FE's leader, asked now, gives the same verdict, and neither counts a
// member Alive whose last heartbeat trails the leader's own.

// confirm makes next, decided on FE's report, only once FE's leader, asked
// now, gives the same verdict: a change of FE's group (a DROP, a claim
// deleted, a smaller replica count) decided on a report that may be two
// periods old (DESIGN §10). st is the step before the decision.
func (in FrontendScaleIn) confirm(st, next Step[ScaleIn], m ScaleIn, r Reads, shrinking bool) (Step[ScaleIn], ScaleIn) {
	from := in.From
	change := groupChange(next, from)
	if change == "" {
		return next, m
	}
	if !r.Read.Frontends {
		return Step[ScaleIn]{Needs: Needs{Frontends: true}}, m
	}
	now := r.Frontends
	if now == nil || now.Err != nil {
		why := "it was not asked"
		if now != nil {
			why = fmt.Sprintf("%s did not answer: %v", now.Leader, now.Err)
		}
		f := withHolds(st, in.keep(fmt.Sprintf("confirming with FE's leader before the change of FE's group (%s): %s; FE is read again", change, why)))
		f.After = in.Every
		return f, m
	}
	confirmed, cm := in.decide(st, m, now.Frontends, shrinking)
	if again := groupChange(confirmed, from); again != change {
		before := now.At.Sub(r.Report.At).Round(100 * time.Millisecond)
		f := withHolds(st, in.keep(fmt.Sprintf("FE's leader %s now says otherwise than FE's report read %s before (%s); FE is read again", now.Leader, before, orNothing(again))))
		if again == "" && len(confirmed.Holds) > 0 {
			f.Holds[len(f.Holds)-1].Message = fmt.Sprintf("FE's leader %s now says otherwise than FE's report read %s before: %s", now.Leader,
				before, confirmed.Holds[len(confirmed.Holds)-1].Message)
		}
		f.After = in.Every
		return f, m
	}
	return confirmed, cm
}

// decide is the step FE's group frontends calls for: its leftovers
// dropped, a dropped FE the spec keeps again started afresh, the next FE
// out of FE's group, or nothing left to do (FE remembered clean).
func (in FrontendScaleIn) decide(st Step[ScaleIn], m ScaleIn, frontends []fe.Frontend, shrinking bool) (Step[ScaleIn], ScaleIn) {
	from, to := in.From, in.To
	// A leftover is a member beyond what the spec and the StatefulSet both
	// keep: a StatefulSet scaled down by hand below the spec (kubectl
	// scale) is put back, and its members stay (issue 34 item 19). While
	// FE lists one, the scale-down is not over: FE is read again, and the
	// status says so (issue 50 item 21).
	if left := leftoverFrontends(frontends, in.Names, int(max(from, to))); len(left) > 0 {
		if to <= from {
			m.Active = true
		}
		st.After = in.Every
		return in.dropLeftovers(st, m, frontends, shrinking || to <= from, left), m
	}
	if !shrinking {
		if back := in.rejoin(st, m, frontends); back != nil {
			return *back, m
		}
		if m.Active {
			m = m.ended()
		}
		m.Checked = checkedAt(in.UID, from)
		return st, m
	}
	return in.leave(st, m, frontends), m
}

// groupChange says what of FE's group a step changes: the members it
// drops, the claims and pods it deletes, the replicas it lowers; "" when
// none. Two steps that say the same make the same change.
func groupChange(st Step[ScaleIn], from int32) string {
	var parts []string
	for s := &st; s != nil; s = s.Then {
		for _, stmt := range s.Statements {
			if d, ok := stmt.(fe.DropFrontend); ok {
				parts = append(parts, "DROP "+d.Frontend.Address())
			}
		}
		if len(s.Delete.Claims) > 0 {
			parts = append(parts, fmt.Sprintf("the claims of ordinals %v deleted", s.Delete.Claims))
		}
		if len(s.Delete.Pods) > 0 {
			parts = append(parts, fmt.Sprintf("the pods of ordinals %v deleted", s.Delete.Pods))
		}
		for _, h := range s.Holds {
			if h.Replicas != nil && *h.Replicas < from {
				parts = append(parts, fmt.Sprintf("FE %d → %d", from, *h.Replicas))
			}
		}
	}
	return strings.Join(parts, ", ")
}

func orNothing(change string) string {
	if change == "" {
		return "no change now"
	}
	return "now: " + change
}

// heartbeatRound is heartbeat_timeout_second at FE's default, 5 s: the
// leader's HeartbeatMgr runs a round this often (a LeaderDaemon of that
// interval; system/HeartbeatMgr.java @000defc9), and FE marks a member
// dead only after more than heartbeatRetries failed rounds
// (heartbeat_retry_times, 3; system/Frontend.java @01037dd6
// handleHbResponse): about 20 s during which FE lists a dead member Alive.
const (
	heartbeatRound   = 5 * time.Second
	heartbeatRetries = 3
)

// heartbeatDoubts are, by host, the voters FE lists Alive whose Alive is
// not taken for a live vote, and why (issue 50 item 18). Every
// LastHeartbeat is the leader's clock: its HeartbeatMgr stamps each answer
// it gets, and its own row each round. So the leader's own row is the
// measure, never the operator's clock (clock skew cannot matter). A member
// that answered the leader's latest round trails that row by less than a
// round (the leader stamps itself at once, the others as they answer); one
// that missed a round trails it by a whole round or more (the daemon
// sleeps a whole interval between rounds), to the second FE prints. So a
// member a round or more behind has missed a round at least, and is
// counted dead while FE still lists it Alive. A member as far ahead, or a
// time that does not read (NULL, garbage), or the leader's own when it
// does not read, cannot be weighed: counted dead too, so the change waits
// unless the quorum holds without it.
func heartbeatDoubts(frontends []fe.Frontend, names PodNames) map[string]string {
	var leader *fe.Frontend
	for i := range frontends {
		if frontends[i].Leader() {
			leader = &frontends[i]
		}
	}
	if leader == nil {
		return nil // no leader: planFrontendStep waits anyway
	}
	out := map[string]string{}
	lead, leadOK := leader.Heard()
	for _, f := range frontends {
		if f.Leader() || !f.Voter() || !f.Alive {
			continue
		}
		name := memberName(f, names)
		heard, ok := f.Heard()
		switch behind := lead.Sub(heard); {
		case !leadOK:
			out[f.Host] = fmt.Sprintf("%s counted not alive: the leader's own LastHeartbeat %s does not read, so FE's Alive for it cannot be weighed", name, shown(leader.LastHeartbeat))
		case !ok:
			out[f.Host] = fmt.Sprintf("%s counted not alive: FE lists it Alive, but its LastHeartbeat %s does not read", name, shown(f.LastHeartbeat))
		case behind >= heartbeatRound:
			out[f.Host] = fmt.Sprintf("%s counted not alive: FE lists it Alive, but its last heartbeat is %s behind the leader's own; it missed a heartbeat round, and FE marks an FE dead only after more than %d missed rounds of %s",
				name, behind, heartbeatRetries, heartbeatRound)
		case -behind >= heartbeatRound:
			out[f.Host] = fmt.Sprintf("%s counted not alive: its last heartbeat is %s ahead of the leader's own, which one leader's clock never shows", name, -behind)
		}
	}
	return out
}

// doubted is what the quorum check leaves out, for its reason.
func doubted(doubts map[string]string) string {
	if len(doubts) == 0 {
		return ""
	}
	var out []string
	for _, d := range doubts {
		out = append(out, d)
	}
	slices.Sort(out)
	return " (" + strings.Join(out, "; ") + ")"
}

func memberName(f fe.Frontend, names PodNames) string {
	if ord, ok := names.Ordinal(f.Host); ok {
		return names.Pod(ord)
	}
	return f.Host
}

func shown(s string) string {
	if s == "" {
		return "NULL"
	}
	return fmt.Sprintf("%q", s)
}
