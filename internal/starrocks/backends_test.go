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
	"testing"

	"github.com/srscale/starrocks-operator/internal/fe"
)

var beNames = PodNames{StatefulSet: "sr-be", HeadlessService: "sr-be-search", Namespace: "ns"}

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
