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
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

func TestFEIsReadAgainUntilItsHeartbeatsCaughtUp(t *testing.T) {
	changed := time.Now()
	up := &Report{At: changed.Add(2 * time.Second), Backends: []fe.Backend{{Alive: true}}}
	down := &Report{At: changed.Add(2 * time.Second), Backends: []fe.Backend{{Alive: false}}}
	cases := []struct {
		name    string
		changed time.Time
		last    *Report
		want    bool
	}{
		{"no pod change: nothing to settle", time.Time{}, nil, false},
		{"no read since the change", changed, nil, true},
		{"a read within the second of the change says nothing of it", changed, &Report{At: changed.Add(500 * time.Millisecond)}, true},
		{"a read after the change listing every node Alive", changed, up, false},
		{"a read soon after the change listing a node down is taken again", changed, down, true},
		{"a node still down after the heartbeats settled is FE's word", changed, &Report{At: changed.Add(HeartbeatSettle), Backends: down.Backends}, false},
		{"a read FE did not answer lists no node down", changed, &Report{At: changed.Add(2 * time.Second), Err: errors.New("x"), Backends: down.Backends}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Settling(tc.changed, tc.last); got != tc.want {
				t.Errorf("settling %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFEsRowsAreMappedToPodsByHost(t *testing.T) {
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "sr", Namespace: "ns"}}
	names := NamesOf(src, resources.ComponentFE)
	rep := &Report{At: time.Now(), Frontends: []fe.Frontend{
		{Host: "sr-fe-0.sr-fe-search.ns.svc.example.org", Role: "FOLLOWER", Alive: true},
		{Host: "sr-fe-1.sr-fe-search.ns", Role: "LEADER", Alive: true},
		{Host: "sr-fe-2.sr-fe-search.ns.svc.cluster.local", Role: "FOLLOWER"},
		{Host: "10.0.0.3", Role: "FOLLOWER", Alive: true},
		{Host: "sr-fe-3.sr-fe-search.other.svc.cluster.local", Role: "FOLLOWER", Alive: true},
	}}
	alive, leader := NodesOf(rep, names, resources.ComponentFE)
	if len(alive) != 3 || !alive[0] || !alive[1] || alive[2] || leader != 1 {
		t.Errorf("alive %v, leader %d: want pods 0 and 1 alive, 2 down, 1 leading, any cluster domain", alive, leader)
	}
	if w := GateWord(rep, src, resources.ComponentFE); w == nil || w.Leader != 1 || !w.At.Equal(rep.At) {
		t.Errorf("gate word %+v", w)
	}
	if w := GateWord(&Report{Err: errors.New("x")}, src, resources.ComponentFE); w == nil || w.Err == nil || w.Leader != -1 {
		t.Errorf("gate word of a failed read %+v, want its error and no leader", w)
	}
	if GateWord(nil, src, resources.ComponentFE) != nil {
		t.Error("a gate word without a report")
	}
}

// StarRocksHealthy names the pods FE does not list at all: a BE added by
// IP or never registered hides no node behind a healthy condition. Nodes
// FE lists not Alive come first, then those, then unhealthy tablets.
func TestHealthNamesPodsFEDoesNotList(t *testing.T) {
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "sr", Namespace: "ns"}, Spec: srv1.StarRocksClusterSpec{
		StarRocksFeSpec: &srv1.StarRocksFeSpec{}, StarRocksBeSpec: &srv1.StarRocksBeSpec{}}}
	fes := []fe.Frontend{{Host: "sr-fe-0.sr-fe-search.ns", Role: "LEADER", Alive: true}}
	be := func(ord int, alive bool) fe.Backend {
		return fe.Backend{Host: fmt.Sprintf("sr-be-%d.sr-be-search.ns", ord), Alive: alive}
	}
	pods := map[resources.Component]int32{resources.ComponentFE: 1, resources.ComponentBE: 3}
	cases := []struct {
		name       string
		backends   []fe.Backend
		unhealthy  int
		reason     string
		message    string
		aliveTotal [2]int32
	}{
		{"every pod listed and Alive", []fe.Backend{be(0, true), be(1, true), be(2, true)}, 0, srv1.ReasonStarRocksHealthy, "", [2]int32{3, 3}},
		{"a pod FE does not list", []fe.Backend{be(0, true), be(1, true), {Host: "10.0.0.7", Alive: true}}, 0, srv1.ReasonNotRegistered, "sr-be-2", [2]int32{2, 2}},
		{"a node not Alive comes first", []fe.Backend{be(0, false), be(1, true)}, 4, srv1.ReasonNodesNotAlive, "sr-be-0", [2]int32{1, 2}},
		{"unlisted before unhealthy tablets", []fe.Backend{be(0, true), be(1, true)}, 4, srv1.ReasonNotRegistered, "sr-be-2", [2]int32{2, 2}},
	}
	for _, tc := range cases {
		w := Health(src, &Report{Frontends: fes, Backends: tc.backends, Statistic: fe.Statistic{UnhealthyTablets: tc.unhealthy}}, pods)
		if w.Reason != tc.reason || !strings.Contains(w.Message, tc.message) || w.BE.Alive != tc.aliveTotal[0] || w.BE.Total != tc.aliveTotal[1] {
			t.Errorf("%s: %s %q, BE %d of %d; want %s naming %q, %d of %d", tc.name, w.Reason, w.Message, w.BE.Alive, w.BE.Total, tc.reason, tc.message, tc.aliveTotal[0], tc.aliveTotal[1])
		}
	}
}

// Issue 34 item 25: FE listed its nodes but its '/statistic' did not come:
// the health says what is missing, not "healthy", and claims no count.
func TestHealthWithoutFEsTabletCountIsNotHealthy(t *testing.T) {
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "sr", Namespace: "ns"}, Spec: srv1.StarRocksClusterSpec{
		StarRocksFeSpec: &srv1.StarRocksFeSpec{}, StarRocksBeSpec: &srv1.StarRocksBeSpec{}}}
	rep := &Report{
		Frontends:    []fe.Frontend{{Host: "sr-fe-0.sr-fe-search.ns", Role: "LEADER", Alive: true}},
		Backends:     []fe.Backend{{Host: "sr-be-0.sr-be-search.ns", Alive: true}},
		StatisticErr: errors.New("SHOW PROC '/statistic' on FE fe:9030: i/o timeout"),
	}
	w := Health(src, rep, map[resources.Component]int32{resources.ComponentFE: 1, resources.ComponentBE: 1})
	if w.Healthy || w.Reason != srv1.ReasonFEUnreachable || !strings.Contains(w.Message, "did not count its tablets: SHOW PROC '/statistic'") {
		t.Errorf("healthy %v, %s %q; want not healthy, FEUnreachable naming the missing count", w.Healthy, w.Reason, w.Message)
	}
	if w.BE == nil || w.BE.UnhealthyTablets != nil || w.BE.Alive != 1 {
		t.Errorf("BE %+v, want 1 Alive and no count of unhealthy tablets", w.BE)
	}
}

// The status carries the versions FE reports each component's nodes run,
// without their commit, one per distinct version: the plugin shows them
// beside the spec's images, and a settled cluster's stay as they are.
func TestHealthReportsTheVersionsFEReports(t *testing.T) {
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "sr", Namespace: "ns"}, Spec: srv1.StarRocksClusterSpec{
		StarRocksFeSpec: &srv1.StarRocksFeSpec{}, StarRocksBeSpec: &srv1.StarRocksBeSpec{}}}
	be := func(ord int, version string) fe.Backend {
		return fe.Backend{Host: fmt.Sprintf("sr-be-%d.sr-be-search.ns", ord), Alive: true, Version: version}
	}
	cases := []struct {
		name     string
		backends []fe.Backend
		want     []string
	}{
		{"one version, commit dropped", []fe.Backend{be(0, "3.3.10-227b0b3"), be(1, "3.3.10-227b0b3")}, []string{"3.3.10"}},
		{"mid-rollout: both, sorted", []fe.Backend{be(0, "3.4.1-aaaaaaa"), be(1, "3.3.10-227b0b3")}, []string{"3.3.10", "3.4.1"}},
		{"a candidate reads as one", []fe.Backend{be(0, "3.3.0-RC01-6d0be6f")}, []string{"3.3.0-rc01"}},
		{"NULL and empty add none", []fe.Backend{be(0, "NULL"), be(1, "")}, nil},
		{"a form not read is kept as FE prints it", []fe.Backend{be(0, "main-abc")}, []string{"main-abc"}},
		{"another cluster's BE adds none", []fe.Backend{{Host: "x-be-0.x-be-search.ns", Alive: true, Version: "2.5.0"}, be(0, "3.3.1")}, []string{"3.3.1"}},
	}
	for _, tc := range cases {
		fes := []fe.Frontend{{Host: "sr-fe-0.sr-fe-search.ns", Role: "LEADER", Alive: true, Version: "3.3.10-227b0b3"}}
		w := Health(src, &Report{Frontends: fes, Backends: tc.backends}, map[resources.Component]int32{resources.ComponentFE: 1})
		if !slices.Equal(w.BE.Versions, tc.want) || !slices.Equal(w.FE.Versions, []string{"3.3.10"}) {
			t.Errorf("%s: BE versions %q, FE %q; want BE %q, FE [3.3.10]", tc.name, w.BE.Versions, w.FE.Versions, tc.want)
		}
	}
}
