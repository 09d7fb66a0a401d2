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

package controller

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/internal/fe"
)

var beNames = podNames{statefulSet: "sr-be", headlessService: "sr-be-search", namespace: "ns"}

func be(ord int, decommissioned bool, tablets int) fe.Backend {
	return fe.Backend{Host: fmt.Sprintf("sr-be-%d.sr-be-search.ns.svc.cluster.local", ord), HeartbeatPort: 9050, Alive: true, Decommissioned: decommissioned, TabletNum: tablets}
}

func TestPlanBackendsSortsRemovedAndKeptBEs(t *testing.T) {
	other := fe.Backend{Host: "other-be-5.other-be-search.ns.svc.cluster.local", HeartbeatPort: 9050}
	byIP := fe.Backend{Host: "10.0.0.9", HeartbeatPort: 9050}
	p := planBackends([]fe.Backend{be(0, false, 9), be(1, true, 4), be(2, false, 9), be(3, true, 5), be(4, true, 0), other, byIP}, beNames, 2)
	if want := []string{be(2, false, 0).Address()}; !slices.Equal(p.decommission, want) {
		t.Errorf("decommission %q, want %q", p.decommission, want)
	}
	if want := []string{be(4, false, 0).Address()}; !slices.Equal(p.drop, want) {
		t.Errorf("drop %q, want %q: drained and left listed", p.drop, want)
	}
	if want := []string{be(1, false, 0).Address()}; !slices.Equal(p.cancel, want) {
		t.Errorf("cancel %q, want %q: the spec keeps be-1", p.cancel, want)
	}
	if len(p.draining) != 1 || p.draining["sr-be-3"] != 5 || p.tablets != 5 {
		t.Errorf("draining %v (%d tablets), want sr-be-3 with 5", p.draining, p.tablets)
	}
	if p.gone() {
		t.Error("gone with removed BEs still listed")
	}
	if !planBackends([]fe.Backend{be(0, false, 1), be(1, false, 1), other}, beNames, 2).gone() {
		t.Error("not gone when FE lists no removed BE")
	}
}

func TestMissingBackendsAreKeptOrdinalsFEDoesNotList(t *testing.T) {
	host := func(ord int) string { return fmt.Sprintf("sr-be-%d.sr-be-search.ns.svc.cluster.local", ord) }
	got := missingBackends([]fe.Backend{be(0, false, 0), be(2, false, 0), be(5, false, 0)}, beNames, 3, 9050, host)
	if want := []string{host(1) + ":9050"}; !slices.Equal(got, want) {
		t.Errorf("missing %q, want %q", got, want)
	}
}

var feNames = podNames{statefulSet: "sr-fe", headlessService: "sr-fe-search", namespace: "ns"}

func member(ord int, role string, alive bool) fe.Frontend {
	return fe.Frontend{Host: fmt.Sprintf("sr-fe-%d.sr-fe-search.ns.svc.cluster.local", ord), EditLogPort: 9010, Role: role, Alive: alive}
}

func TestPlanFrontendStepKeepsAMajorityAndALeader(t *testing.T) {
	cases := []struct {
		name    string
		members []fe.Frontend
		from    int
		want    frontendStep
	}{
		{"a follower leaves while its pod runs", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true), member(2, "FOLLOWER", true)}, 3, feDrop},
		{"the leader's pod goes first", []fe.Frontend{member(0, "FOLLOWER", true), member(1, "FOLLOWER", true), member(2, "LEADER", true)}, 3, feShrink},
		{"the leader stays while the others could not elect", []fe.Frontend{member(0, "FOLLOWER", false), member(1, "FOLLOWER", true), member(2, "LEADER", true)}, 3, feWait},
		{"no leader, no step", []fe.Frontend{member(0, "FOLLOWER", true), member(1, "FOLLOWER", true), member(2, "FOLLOWER", true)}, 3, feWait},
		{"dropping would leave no alive majority", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", false), member(2, "FOLLOWER", false), member(3, "FOLLOWER", true)}, 4, feWait},
		{"a dead follower leaves", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true), member(2, "FOLLOWER", false)}, 3, feDrop},
		{"already out of the group", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true)}, 3, feGone},
		{"a report that predates the pods that stay", []fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true)}, 5, feWait},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, _, why := planFrontendStep(tc.members, feNames, tc.from); got != tc.want {
				t.Errorf("step %d (%s), want %d", got, why, tc.want)
			}
		})
	}
}

func TestLeftoverFrontendsAreMembersAboveReplicas(t *testing.T) {
	got := leftoverFrontends([]fe.Frontend{member(0, "LEADER", true), member(1, "FOLLOWER", true), member(3, "FOLLOWER", false), member(2, "FOLLOWER", false)}, feNames, 2)
	if len(got) != 2 || got[0].Host != member(3, "", false).Host || got[1].Host != member(2, "", false).Host {
		t.Errorf("leftovers %+v, want fe-3 then fe-2", got)
	}
}

func TestTheDrainIsShownAtMostEvery30s(t *testing.T) {
	m := newScaleIns()
	t0 := time.Now()
	steps := []struct {
		after time.Duration
		msg   string
		want  string
	}{
		{0, "10 left", "10 left"},
		{time.Second, "9 left", "10 left"},
		{29 * time.Second, "2 left", "10 left"},
		{30 * time.Second, "2 left", "2 left"},
		{31 * time.Second, "1 left", "2 left"},
	}
	for _, s := range steps {
		if got := m.show("ns/c", s.msg, t0.Add(s.after)); got != s.want {
			t.Errorf("at +%s with %q the status shows %q, want %q", s.after, s.msg, got, s.want)
		}
	}
}

func TestADrainStallsWhenItsTabletCountStopsFalling(t *testing.T) {
	m := newScaleIns()
	t0 := time.Now()
	if since := m.drained("ns/c", 10, t0); !since.Equal(t0) {
		t.Errorf("first count dated %s, want %s", since, t0)
	}
	if since := m.drained("ns/c", 10, t0.Add(time.Minute)); !since.Equal(t0) {
		t.Errorf("an unchanged count restarted the clock: %s", since)
	}
	if since := m.drained("ns/c", 12, t0.Add(2*time.Minute)); !since.Equal(t0) {
		t.Errorf("a rising count restarted the clock: %s", since)
	}
	if since := m.drained("ns/c", 9, t0.Add(3*time.Minute)); !since.Equal(t0.Add(3 * time.Minute)) {
		t.Errorf("a falling count did not restart the clock: %s", since)
	}
}
