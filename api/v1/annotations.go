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

package v1

// The annotations a user sets on a StarRocksCluster or a StarRocksWarehouse
// to tell the operator something the spec does not say. Every one is named
// here, and nowhere else.

// IgnoredAnnotation set to "true" on a StarRocksCluster or a
// StarRocksWarehouse makes the operator leave it alone.
const IgnoredAnnotation = "starrocks.com/ignored"

// DeleteRemovedComponentsAnnotation set to "true" on a StarRocksCluster lets
// the operator delete BE or CN when their spec is removed: their pods hold
// data (BE) or caches (CN), and a removed spec block may be a mistake. Without
// it the component keeps running and the status says what waits.
const DeleteRemovedComponentsAnnotation = "starrocks.com/delete-removed-components"

// RolloutGateAnnotation on a StarRocksCluster turns the gated rollouts off
// ("off": pod template changes roll as the StatefulSet controller rolls
// them), or keeps them only while FE answers ("if-fe-reachable": an FE that
// does not answer lets the rollout go on ungated). Without it, a rollout
// whose FE does not answer waits, and says so.
const RolloutGateAnnotation = "starrocks.com/rollout-gate"

// The values of RolloutGateAnnotation.
const (
	RolloutGateOff           = "off"
	RolloutGateIfFEReachable = "if-fe-reachable"
)

// RolloutStallTimeoutAnnotation sets how long a gated rollout's step may
// wait for StarRocks before it is reported RolloutStalled (a Go duration,
// "45m"); the rollout stays held either way.
const RolloutStallTimeoutAnnotation = "starrocks.com/rollout-stall-timeout"

// DisruptionBudgetAnnotation set to "false" on a StarRocksCluster or a
// StarRocksWarehouse makes no PodDisruptionBudget for any of its components.
const DisruptionBudgetAnnotation = "starrocks.com/pod-disruption-budget"

// ComponentDisruptionBudgetAnnotation set to "false" makes none for one
// component alone: starrocks.com/fe-pod-disruption-budget, be-..., cn-...
// (component is fe, be, cn or fe-proxy).
func ComponentDisruptionBudgetAnnotation(component string) string {
	return "starrocks.com/" + component + "-pod-disruption-budget"
}
