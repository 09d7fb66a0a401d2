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
	"testing"

	"github.com/srscale/starrocks-operator/internal/fe"
)

var feNames = PodNames{StatefulSet: "sr-fe", HeadlessService: "sr-fe-search", Namespace: "ns"}

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
