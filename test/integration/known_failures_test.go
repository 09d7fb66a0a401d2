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

package integration_test

import (
	"os"
	"testing"
)

// knownFailures are the tests that fail against the simulated StarRocks at
// the real FE's defaults (issue 32, sheet §14) because the operator is not
// yet safe or able against what a real FE does, by test name (t.Name()).
// Each names its finding in issue 34 ("Close the data-loss, quorum and wedge
// findings"), whose fix turns it green and removes its line. Nothing else
// may be listed here, and no assertion is weakened instead.
//
// KNOWN_FAILURES=run runs them anyway, to see them fail.
var knownFailures = map[string]string{
	// With followers 1 s behind (simstarrocks' default FollowerLag), the
	// operator reads SHOW FRONTENDS through the Service from a follower that
	// still lists fe-2 after its DROP FOLLOWER, and drops it again: "DROP
	// FOLLOWER statements [... fe-2 ... fe-2], want one for fe-2".
	"TestScaleInWithoutDataLoss/FE_3_to_2_to_3_with_the_leader_on_the_removed_pod,_then_5_to_3:_a_leader_throughout,_no_removed_FE_left": "issue 34 item 14: decisions are made on any FE's view",
	// After the leader moves to fe-2, a follower 1 s behind still shows
	// fe-0 as LEADER, and the rollout replaces fe-2 before fe-0: "leader at
	// ordinal 2: FE pods replaced in order [lead-fe-1 lead-fe-2 lead-fe-0],
	// want the leader lead-fe-2 last".
	"TestGatedRollouts/an_FE_rollout_replaces_the_leader_last,_with_the_leader_at_ordinal_0_and_at_ordinal_2": "issue 34 item 14: decisions are made on any FE's view",
	// FE lists a BE Alive for about 20 s after its process died (more than 3
	// failed heartbeats), so the gate reads the old process's Alive=true as
	// the new pod's and rolls all three BEs whose new processes never
	// answer.
	"TestGatedRollouts/a_BE_that_never_becomes_Alive_stalls_the_rollout_at_pod_1_with_RolloutStalled,_and_nothing_else_rolls": "issue 34 item 23: the gate must see FE's LastStartTime change (a heartbeat from the new process), not a stale Alive=true",
}

// skipKnownFailure skips t when it is listed in knownFailures.
func skipKnownFailure(t *testing.T) {
	t.Helper()
	why, ok := knownFailures[t.Name()]
	if !ok || os.Getenv("KNOWN_FAILURES") == "run" {
		return
	}
	t.Skipf("known failure under the real FE defaults, %s", why)
}
