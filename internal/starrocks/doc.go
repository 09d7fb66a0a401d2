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
// no client, no context, no clock (now is an input). A StarRocks operation
// is a Planner: (input, its own typed memory, what was read from FE) in,
// (Step, memory) out (step.go). A planner that cannot decide without FE
// says what it needs (Step.Needs) and nothing else; the one executor
// (internal/controller/frontend's Run) reads it and calls the planner once
// more, then does the step. The planners: the BE decommission
// (backends.go, with FE's rows sorted in backend_rows.go and the drain's
// pacing and stall in drain.go), FE leaving FE's group (frontends.go;
// its leader's confirmation and the heartbeat check in
// frontends_confirm.go), the memory both share (scalein.go), the
// compute-node cleanup (cleanup.go),
// a deleted warehouse's drop (warehouse_drop.go), the drop of a removed
// shared-data BE spec's nodes (removed_backends.go),
// the pre-flight of an image or run-mode change (preflight_step.go) and the
// compatibility pause with FE's metadata image (compatibility_step.go).
//
// Some decisions keep a shape of their own, on purpose:
//   - CheckImagePaths' Preflight (preflight.go) and PlanCompatibility's
//     CompatibilityPlan (compatibility.go, metadata_image.go) are the
//     verdicts PlanPreflight and PlanPause make Steps of: pure and
//     table-tested on their own, they are made again as each read comes in
//     (FE's report, its configuration, each FE's image), and the
//     pre-flight's is kept in its memory for the phases after it (the
//     rollout order, the pause) to read.
//   - Order's Plan (rollout.go) holds StatefulSets back behind one another
//     from the objects alone: it reads nothing from FE and sends nothing.
//   - The gates' GateStep (gate.go, gate_frontend.go, gate_checks.go) and
//     ChooseParallel's ParallelChoice (parallel.go) move pods, not FE: a
//     partition or OnDelete written on the StatefulSet and the pods to
//     delete, decided per StatefulSet from FE's word the health read
//     brings (health.go), which they never ask for themselves.
//
// It also holds the pod <-> FE host mapping (topology.go), the first-step
// split (firststep.go), the run mode FE runs in (runmode.go), and the
// documented upgrade and downgrade paths between StarRocks versions
// (upgrade.go, upgrade_rules.go), which it reads through internal/version.
package starrocks
