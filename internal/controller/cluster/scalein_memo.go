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
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/srscale/starrocks-operator/internal/resources"
)

// scaleIns is what the process remembers between reconciles of scale-ins in
// progress. None of it is truth: FE's answers are. It only spares FE
// repeated statements (a refusal waits for a spec change), measures
// progress for the stall report, and paces the status.
type scaleIns struct {
	mu sync.Mutex
	// active clusters have a BE scale-in in progress or just reversed:
	// FE is read for them even when the StatefulSet is not shrinking.
	active map[string]bool
	// refused holds FE's refusal per cluster, with the generation refused.
	refused map[string]refusal
	// progress is, per cluster, the lowest tablet count seen and since when.
	progress map[string]tabletCount
	// shown is what the status shows of the drain, and since when.
	shown map[string]shownDrain
	// checked is, per StatefulSet (cluster key and component), the
	// StatefulSet's UID and the replicas at which FE was last found with
	// nothing left to do for it: no member of a removed ordinal in FE's
	// group, no kept BE draining or missing.
	checked map[string]checkedAt
}

type checkedAt struct {
	statefulSet types.UID
	replicas    int32
}

type refusal struct {
	generation int64
	message    string
}

type tabletCount struct {
	tablets int
	at      time.Time
}

func newScaleIns() *scaleIns {
	return &scaleIns{active: map[string]bool{}, refused: map[string]refusal{}, progress: map[string]tabletCount{}, shown: map[string]shownDrain{}, checked: map[string]checkedAt{}}
}

func (m *scaleIns) isActive(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.active[key]
}

func (m *scaleIns) activate(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.active[key] = true
}

// done forgets a BE scale-in that ended.
func (m *scaleIns) done(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.active, key)
	delete(m.refused, key)
	delete(m.progress, key)
	delete(m.shown, key)
}

// forget drops what is kept of a cluster that is gone.
func (m *scaleIns) forget(key string) {
	m.done(key)
	m.done(key + "/fe")
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range []resources.Component{resources.ComponentFE, resources.ComponentBE} {
		delete(m.checked, key+"/"+string(c))
	}
}

func (m *scaleIns) refusedAt(key string, generation int64) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.refused[key]
	return r.message, ok && r.generation == generation
}

func (m *scaleIns) refuse(key string, generation int64, message string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refused[key] = refusal{generation: generation, message: message}
}

// drained records FE's tablet count and returns since when it has not fallen.
func (m *scaleIns) drained(key string, tablets int, now time.Time) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.progress[key]
	if !ok || tablets < p.tablets {
		p = tabletCount{tablets: tablets, at: now}
		m.progress[key] = p
	}
	return p.at
}

// shownDrain is the drain as the status last told it.
type shownDrain struct {
	message string
	at      time.Time
}

// show returns what the status says of the drain: a new message (the
// tablets left on each BE) at most once per decommissionReportEvery.
func (m *scaleIns) show(key, message string, now time.Time) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.shown[key]
	if !ok || (p.message != message && now.Sub(p.at) >= decommissionReportEvery) {
		p = shownDrain{message: message, at: now}
		m.shown[key] = p
	}
	return p.message
}

func (m *scaleIns) clean(key string, sts *appsv1.StatefulSet) (int32, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.checked[key+"/"+sts.Labels[resources.ComponentLabel]]
	return c.replicas, ok && c.statefulSet == sts.UID
}

func (m *scaleIns) setClean(key string, sts *appsv1.StatefulSet, replicas int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checked[key+"/"+sts.Labels[resources.ComponentLabel]] = checkedAt{statefulSet: sts.UID, replicas: replicas}
}
