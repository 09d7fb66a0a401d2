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

	"k8s.io/apimachinery/pkg/types"
)

// ScaleIn is the scale-in planners' memory of one StatefulSet (BE's
// decommission, FE's steps out of FE's group). None of it is truth: FE's
// answers are. It spares FE repeated statements (a refusal waits for a
// spec change), measures a drain's progress for the stall report, and
// paces the status.
type ScaleIn struct {
	// Active is true while a scale-in this process saw is in progress, or
	// just reversed: FE is read for it even when the StatefulSet does not
	// shrink. An FE scale-down stays active until FE lists no member of an
	// ordinal the StatefulSet no longer has.
	Active bool
	// Checked is where FE was last found with nothing left to do.
	Checked CheckedAt
	// Refused is FE's refusal of a BE spec, with the spec refused.
	Refused *Refusal
	// Lowest is the lowest tablet count of a drain, since when it is that
	// low; Shown is what the status shows of the drain, since when.
	Lowest *Since[int]
	Shown  *Since[string]
}

// Refusal is FE's refusal of a spec (by SpecKey), remembered until it changes.
type Refusal struct {
	Spec, Message string
}

// Since is a value and since when it is so.
type Since[T any] struct {
	Value T
	At    time.Time
}

// CheckedAt is where FE was last found with nothing left to do for one
// StatefulSet (by UID): no member of a removed ordinal, no kept BE draining
// or missing, no stale compute node.
type CheckedAt struct {
	Known    bool
	UID      types.UID
	Replicas int32
}

// Of is where FE was found clean for the StatefulSet of that UID.
func (c CheckedAt) Of(uid types.UID) Checked {
	return Checked{Replicas: c.Replicas, Known: c.Known && c.UID == uid}
}

// checkedAt is FE found clean at replicas for the StatefulSet of uid.
func checkedAt(uid types.UID, replicas int32) CheckedAt {
	return CheckedAt{Known: true, UID: uid, Replicas: replicas}
}

// Checked is where FE was last found with nothing left to do for a
// StatefulSet.
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

// ended is the memory once a scale-in is over: only where FE was found clean stays.
func (m ScaleIn) ended() ScaleIn {
	return ScaleIn{Checked: m.Checked}
}

// refusal is FE's refusal of the spec specKey names; "" when none, or of
// another spec (FE is asked again). The spec is named only when a refusal
// is remembered, not on every reconcile.
func (m ScaleIn) refusal(specKey func() string) string {
	if m.Refused == nil || m.Refused.Spec != keyOf(specKey) {
		return ""
	}
	return m.Refused.Message
}

func keyOf(specKey func() string) string {
	if specKey == nil {
		return ""
	}
	return specKey()
}

// podList names the pods of ordinals, e.g. "be-0, be-1".
func podList(names PodNames, ordinals []int) string {
	pods := make([]string, len(ordinals))
	for i, o := range ordinals {
		pods[i] = names.Pod(o)
	}
	return strings.Join(pods, ", ")
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
