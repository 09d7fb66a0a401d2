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

	"github.com/srscale/starrocks-operator/internal/fe"
)

// The run mode (docs/upgrades.md, "No conversion"): "you cannot upgrade an
// existing shared-nothing cluster to a shared-data cluster, or vice versa"
// (Upgrade StarRocks, 3.0 to Latest-4.1). The mode is fe.conf's run_mode;
// FE tells the one it runs in by the columns of SHOW BACKENDS and SHOW
// COMPUTE NODES: StarletPort and WorkerId only in shared-data mode
// (BackendsProcDir, ComputeNodeProcDir; facts sheet §3, §4).

// FERunsSharedData is FE's word on its run mode: known once FE lists a BE
// or a CN (a list without rows says nothing).
func FERunsSharedData(r *Report) (sharedData, known bool) {
	if r == nil || r.Err != nil || len(r.Backends)+len(r.ComputeNodes) == 0 {
		return false, false
	}
	return slices.ContainsFunc(r.Backends, func(b fe.Backend) bool { return b.SharedData }) ||
		slices.ContainsFunc(r.ComputeNodes, func(c fe.ComputeNode) bool { return c.SharedData }), true
}

// RunModeRefusal is why an fe.conf whose run_mode is not the mode FE runs
// in is refused; "" when it is the same, or FE's mode is not known.
func RunModeRefusal(wantSharedData bool, r *Report) string {
	running, known := FERunsSharedData(r)
	if !known || running == wantSharedData {
		return ""
	}
	name := map[bool]string{true: "shared-data (run_mode = shared_data)", false: "shared-nothing"}
	return fmt.Sprintf("fe.conf asks for %s, but FE runs %s (the columns of SHOW BACKENDS and SHOW COMPUTE NODES): "+
		"StarRocks converts neither way (\"you cannot upgrade an existing shared-nothing cluster to a shared-data cluster, or vice versa\", "+
		"Upgrade StarRocks 3.0 to Latest-4.1); put run_mode back, or deploy a cluster of the other mode and move the data to it",
		name[wantSharedData], name[running])
}
