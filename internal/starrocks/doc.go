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

// Package starrocks decides what the operator asks of StarRocks, purely:
// FE's report, the pods and the spec in, one Step out. It has no client, no
// context and no clock (now is an input); the controller does what a Step
// says. It holds the pod ↔ FE host mapping (topology.go), the health of
// FE's word (health.go), the rollout order and gates (rollout.go, gate.go),
// BE decommission (backends.go), FE leaving FE's group (frontends.go), the
// compute-node cleanup's due rule (cleanup.go), the first-step split
// (firststep.go), and the StarRocks versions FE reports and image tags name
// with the documented upgrade and downgrade paths between them (version.go,
// upgrade.go, upgrade_rules.go).
package starrocks
