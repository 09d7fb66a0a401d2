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
var knownFailures = map[string]string{}

// skipKnownFailure skips t when it is listed in knownFailures.
func skipKnownFailure(t *testing.T) {
	t.Helper()
	why, ok := knownFailures[t.Name()]
	if !ok || os.Getenv("KNOWN_FAILURES") == "run" {
		return
	}
	t.Skipf("known failure under the real FE defaults, %s", why)
}
