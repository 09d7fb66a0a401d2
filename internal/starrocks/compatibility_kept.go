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
*/package starrocks

// When the compatibility pause begins: in the reconcile that writes the
// first StatefulSet of a change, not while another step keeps every
// changed one (issue 50 item 15).

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/srscale/starrocks-operator/internal/resources"
)

// firstPodGoes reports whether this reconcile writes the StatefulSet of a
// change that pauses: one no other step keeps (Kept).
func (in CompatibilityIn) firstPodGoes() bool {
	return slices.ContainsFunc(in.Changes, func(c ImageCheck) bool {
		_, kept := in.Kept[c.Name]
		return c.Verdict.Allowed() && c.Verdict.PauseBalance && !kept
	})
}

// Pending is one component's StatefulSet with an image change, as the
// compatibility pause sees it once every step that decides the writes has
// held what it holds: as it runs, as it is to be written, and why a step
// keeps it whole ("" none).
type Pending struct {
	Name          string
	Live, Desired *appsv1.StatefulSet
	Held          string
}

// NotWritten are the components of ps whose image change this reconcile
// does not write, by why (CompatibilityIn.Kept): a step keeps the
// StatefulSet whole (the rollout order: FE waits for BE, or BE for FE on a
// downgrade; a scale-in while FE decommissions its BEs), or keeps its pod
// template at the live one (a pre-flight hold, the ephemeral-storage
// check), which then carries the live image. The others are written now:
// the write replaces their first pod (a StatefulSet no gate drives), or
// lets their gate replace it (a gated rollout's partition), so the pause
// goes before it.
func NotWritten(ps []Pending) map[string]string {
	out := map[string]string{}
	for _, p := range ps {
		switch {
		case p.Live == nil || p.Desired == nil:
			// Nothing runs yet, or nothing is to be written: no pod goes.
			out[p.Name] = "no StatefulSet to replace a pod of"
		case p.Held != "":
			out[p.Name] = p.Held
		case resources.Image(p.Live) == resources.Image(p.Desired):
			out[p.Name] = "its pod template is kept at the live one"
		}
	}
	return out
}

// notYetWritten stands for the revision of a change whose template is not
// written yet: no pod runs it.
const notYetWritten = "(the change, not written yet)"

// FirstPodWaits is what the first pod of g's rollout would wait for, if
// the change's template were written now, while FE repairs: the gate's
// own checks (Partitioned; LeaderLast for FE) on the pods as they run and
// FE's word (g.Word), every pod taken to run the old revision, when FE
// counts unhealthy tablets or lists a pod of g not Alive (whose replicas
// it repairs). A gated change whose first pod waits so takes no
// compatibility pause yet: the pause would slow the repair the gate waits
// for to one tablet per 20 s round (issue 50 item 15). "" when the first
// pod would go at once (every pod Ready and FE listing it Alive and, for
// BE, counting every tablet healthy; or a pod down, which goes first), or
// waits for no repair (FE's next answer, a pod not Ready yet, FE naming
// its leader): the change is then written as before, its gate waiting.
func FirstPodWaits(g Gate, frontend bool) string {
	if g.Live == nil || !repairing(g) {
		return ""
	}
	live := g.Live.DeepCopy()
	live.Status.ObservedGeneration = live.Generation
	live.Status.UpdateRevision = notYetWritten
	g.Live, g.Changing, g.AllAtOnce = live, false, false
	st := Partitioned(g)
	if frontend {
		st = LeaderLast(g)
	}
	if !st.Waiting {
		return ""
	}
	return st.Message
}

// repairing: FE's word counts unhealthy tablets, or lists a pod of g's
// StatefulSet not Alive.
func repairing(g Gate) bool {
	w := g.Word
	if w == nil || w.Err != nil {
		return false
	}
	if w.Unhealthy > 0 {
		return true
	}
	for i := range int(ptr.Deref(g.Live.Spec.Replicas, 0)) {
		if alive, listed := w.Alive[i]; listed && !alive {
			return true
		}
	}
	return false
}
