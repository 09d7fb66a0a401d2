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

import "testing"

// knownFailures are the tests that fail against the simulated StarRocks at
// the real FE's defaults because the operator is unsafe there, by test name
// (t.Name()), each with the finding of the issue "Close the data-loss,
// quorum and wedge findings" (issue 34) whose fix turns it green. A listed
// test skips, saying so; its fix removes its line. The assertions stay as
// they are.
var knownFailures = map[string]string{
	// With followers 1 s behind (simstarrocks' default FollowerLag), the
	// operator reads SHOW FRONTENDS through the Service from a follower that
	// still lists fe-2 after its DROP FOLLOWER, and drops it again: "DROP
	// FOLLOWER statements [... fe-2 ... fe-2], want one for fe-2".
	"TestScaleInWithoutDataLoss/FE_3_to_2_to_3_with_the_leader_on_the_removed_pod,_then_5_to_3:_a_leader_throughout,_no_removed_FE_left": "14 (decisions are made on any FE's view)",
	// After the leader moves to fe-2, a follower 1 s behind still shows
	// fe-0 as LEADER, and the rollout replaces fe-2 before fe-0: "leader at
	// ordinal 2: FE pods replaced in order [lead-fe-1 lead-fe-2 lead-fe-0],
	// want the leader lead-fe-2 last".
	"TestGatedRollouts/an_FE_rollout_replaces_the_leader_last,_with_the_leader_at_ordinal_0_and_at_ordinal_2": "14 (decisions are made on any FE's view)",
}

// skipKnownFailure skips t if it is listed in knownFailures.
func skipKnownFailure(t *testing.T) {
	t.Helper()
	if finding, ok := knownFailures[t.Name()]; ok {
		t.Skipf("known failure against the real FE's behaviour: issue 34 finding %s", finding)
	}
}
