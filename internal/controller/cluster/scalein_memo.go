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

package cluster

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// scaleIns is what the process remembers between reconciles of a
// cluster's scale-ins in progress, one reconcile.Memo entry per cluster,
// forgotten with it. None of it is truth: FE's answers are. It only spares
// FE repeated statements (a refusal waits for a spec change), measures
// progress for the stall report, and paces the status.
type scaleIns struct {
	m *reconcile.Memo[scaleInState]
}

// scaleInState is one cluster's scale-ins: the BE decommission and the FE
// step down, and per StatefulSet (by component) the StatefulSet's UID and
// the replicas at which FE was last found with nothing left to do for it:
// no member of a removed ordinal in FE's group, no kept BE draining or
// missing.
type scaleInState struct {
	steps   map[resources.Component]scaleInStep
	checked map[resources.Component]checkedAt
}

// scaleInStep is one component's scale-in in progress. An active one (a BE
// scale-in in progress or just reversed) has FE read for it even when the
// StatefulSet is not shrinking.
type scaleInStep struct {
	active bool
	// refused is FE's refusal, with the component's spec refused.
	refused *refusal
	// progress is the lowest tablet count seen and since when.
	progress *tabletCount
	// shown is what the status shows of the drain, and since when.
	shown *shownDrain
}

type checkedAt struct {
	statefulSet types.UID
	replicas    int32
}

type refusal struct {
	spec    string // specKey of the component's spec refused
	message string
}

type tabletCount struct {
	tablets int
	at      time.Time
}

// shownDrain is the drain as the status last told it.
type shownDrain struct {
	message string
	at      time.Time
}

func newScaleIns(memos *reconcile.Memos) *scaleIns {
	return &scaleIns{m: reconcile.NewMemo[scaleInState](memos)}
}

// step changes c's scale-in of cluster key with f; a step left inactive
// and empty is dropped.
func (m *scaleIns) step(key types.NamespacedName, c resources.Component, f func(*scaleInStep)) {
	m.m.Update(key, func(st scaleInState, _ bool) (scaleInState, bool) {
		steps := map[resources.Component]scaleInStep{}
		for k, v := range st.steps {
			steps[k] = v
		}
		s := steps[c]
		f(&s)
		if s == (scaleInStep{}) {
			delete(steps, c)
		} else {
			steps[c] = s
		}
		st.steps = steps
		return st, len(st.steps) > 0 || len(st.checked) > 0
	})
}

func (m *scaleIns) get(key types.NamespacedName, c resources.Component) scaleInStep {
	st, _ := m.m.Get(key)
	return st.steps[c]
}

func (m *scaleIns) isActive(key types.NamespacedName, c resources.Component) bool {
	return m.get(key, c).active
}

func (m *scaleIns) activate(key types.NamespacedName, c resources.Component) {
	m.step(key, c, func(s *scaleInStep) { s.active = true })
}

// done forgets a scale-in that ended.
func (m *scaleIns) done(key types.NamespacedName, c resources.Component) {
	m.step(key, c, func(s *scaleInStep) { *s = scaleInStep{} })
}

// refusedAt returns FE's refusal of c's scale-in, and whether it was of
// c's spec in src now: of another, the scale-in is asked again. The spec
// is hashed only when a refusal is remembered, not on every reconcile.
func (m *scaleIns) refusedAt(key types.NamespacedName, c resources.Component, src *srv1.StarRocksCluster) (string, bool) {
	r := m.get(key, c).refused
	if r == nil {
		return "", false
	}
	return r.message, r.spec == specKey(src, c)
}

func (m *scaleIns) refuse(key types.NamespacedName, c resources.Component, spec, message string) {
	m.step(key, c, func(s *scaleInStep) { s.refused = &refusal{spec: spec, message: message} })
}

// specKey names component c's spec in src. A refusal is remembered for it,
// not for the cluster's generation: a change elsewhere in the cluster (a
// CN autoscaler's step, a Service annotation) asks nothing new of FE, and
// must not send the refused statement and its Warning again.
func specKey(src *srv1.StarRocksCluster, c resources.Component) string {
	var spec any
	switch c {
	case resources.ComponentFE:
		spec = src.Spec.StarRocksFeSpec
	case resources.ComponentBE:
		spec = src.Spec.StarRocksBeSpec
	case resources.ComponentCN:
		spec = src.Spec.StarRocksCnSpec
	}
	raw, _ := json.Marshal(spec)
	h := fnv.New64a()
	_, _ = h.Write(raw)
	return strconv.FormatUint(h.Sum64(), 16)
}

// drained records FE's tablet count of c's drain and returns since when it
// has not fallen.
func (m *scaleIns) drained(key types.NamespacedName, c resources.Component, tablets int, now time.Time) time.Time {
	var since time.Time
	m.step(key, c, func(s *scaleInStep) {
		if s.progress == nil || tablets < s.progress.tablets {
			s.progress = &tabletCount{tablets: tablets, at: now}
		}
		since = s.progress.at
	})
	return since
}

// show returns what the status says of c's drain: a new message (the
// tablets left on each BE) at most once per decommissionReportEvery.
func (m *scaleIns) show(key types.NamespacedName, c resources.Component, message string, now time.Time) string {
	var shown string
	m.step(key, c, func(s *scaleInStep) {
		if s.shown == nil || (s.shown.message != message && now.Sub(s.shown.at) >= decommissionReportEvery) {
			s.shown = &shownDrain{message: message, at: now}
		}
		shown = s.shown.message
	})
	return shown
}

// clean is the replicas at which FE was last found with nothing left to do
// for sts, and whether that is known for this StatefulSet (by UID).
func (m *scaleIns) clean(key types.NamespacedName, sts *appsv1.StatefulSet) (int32, bool) {
	st, _ := m.m.Get(key)
	c, ok := st.checked[resources.Component(sts.Labels[resources.ComponentLabel])]
	return c.replicas, ok && c.statefulSet == sts.UID
}

func (m *scaleIns) setClean(key types.NamespacedName, sts *appsv1.StatefulSet, replicas int32) {
	m.m.Update(key, func(st scaleInState, _ bool) (scaleInState, bool) {
		checked := map[resources.Component]checkedAt{}
		for k, v := range st.checked {
			checked[k] = v
		}
		checked[resources.Component(sts.Labels[resources.ComponentLabel])] = checkedAt{statefulSet: sts.UID, replicas: replicas}
		st.checked = checked
		return st, true
	})
}
