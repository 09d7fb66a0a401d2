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

// RolloutAnnotation set to "parallel" on a StarRocksCluster makes an image
// change replace all pods of a component at once instead of one at a time
// (planned downtime: every query fails while the component is down), for
// the images RolloutImageAnnotation names, and only those: a confirmation
// left over from an earlier change does not fire on a later one. The
// health gates still apply between components (docs/rollouts.md).
const RolloutAnnotation = "starrocks.com/rollout"

// RolloutParallel is the value of RolloutAnnotation that rolls in parallel.
const RolloutParallel = "parallel"

// RolloutImageAnnotation confirms RolloutAnnotation's parallel rollout: the
// image (or comma-separated images, one per component) the change rolls
// to, exactly as the spec writes it.
const RolloutImageAnnotation = "starrocks.com/rollout-image"

// RolloutEphemeralStorageAnnotation set to "allow" on a StarRocksCluster
// lets a BE rollout go whose storage_root_path is not on a
// PersistentVolumeClaim (an emptyDir: the data dies with the pod) while FE
// reports partitions of replication_num 1: each replaced BE comes back
// empty, and every single-replica tablet it held is lost. Without it such
// a rollout is refused, its pod template kept (docs/upgrades.md).
const RolloutEphemeralStorageAnnotation = "starrocks.com/rollout-ephemeral-storage"

// RolloutEphemeralStorageAllow is the value of
// RolloutEphemeralStorageAnnotation that lets the rollout go.
const RolloutEphemeralStorageAllow = "allow"

// RolloutStallTimeoutAnnotation sets how long a gated rollout's step may
// wait for StarRocks before it is reported RolloutStalled (a Go duration,
// "45m"); the rollout stays held either way.
const RolloutStallTimeoutAnnotation = "starrocks.com/rollout-stall-timeout"

// UpgradePathCheckAnnotation set to "off" on a StarRocksCluster skips the
// pre-flight of image changes, on the user's word: an FE, BE or CN image
// whose version StarRocks' documented upgrade and downgrade paths refuse
// from the version the nodes run (docs/upgrades.md) is rolled anyway.
const UpgradePathCheckAnnotation = "starrocks.com/upgrade-path-check"

// UpgradePathCheckOff is the value of UpgradePathCheckAnnotation that skips the check.
const UpgradePathCheckOff = "off"

// UpgradePathConfirmAnnotation on a StarRocksCluster confirms, one by one,
// the steps of StarRocks' upgrade and downgrade pages the pre-flight holds
// an FE image change for and cannot see done: a comma-separated list of
// the step names below. Each confirmed step is the user's word; the rest
// of the pre-flight still applies (docs/upgrades.md).
const UpgradePathConfirmAnnotation = "starrocks.com/upgrade-path-confirm"

// The steps UpgradePathConfirmAnnotation confirms.
const (
	// ConfirmBDBJEJar: the 2.5 FE image of a 3.0 -> 2.5 downgrade carries
	// 3.0's fe/lib/starrocks-bdb-je-18.3.13.jar and no fe/lib/je-7.*.jar
	// (Downgrade StarRocks, "Downgrade FE" step 3).
	ConfirmBDBJEJar = "bdbje-jar"
	// ConfirmIgnoreUnknownLogID: FE downgrades across lines without
	// ignore_unknown_log_id = true in the fe.conf the operator holds.
	ConfirmIgnoreUnknownLogID = "ignore-unknown-log-id"
	// ConfirmJavaOpts: FE goes to 3.5 or later (JDK 17) with the CMS or GC
	// options of fe.conf's JAVA_OPTS kept.
	ConfirmJavaOpts = "java-opts"
)

// CompatibilityPauseAnnotation on a StarRocksCluster records, while a
// minor or major version change rolls, what FE's tablet clone and balance
// configuration was before the operator paused them (JSON: {"values":
// {key: value}}), written just before the pause's first ADMIN SET FRONTEND
// CONFIG and removed once the recorded values are set again
// (docs/upgrades.md). On the object, not in the operator's memory: an
// operator that restarts mid-upgrade restores these values, not the paused
// ones FE shows then. The operator sets it; users never need to.
const CompatibilityPauseAnnotation = "starrocks.com/compatibility-pause"

// DisruptionBudgetAnnotation set to "false" on a StarRocksCluster or a
// StarRocksWarehouse makes no PodDisruptionBudget for any of its components.
const DisruptionBudgetAnnotation = "starrocks.com/pod-disruption-budget"

// ComponentDisruptionBudgetAnnotation set to "false" makes none for one
// component alone: starrocks.com/fe-pod-disruption-budget, be-..., cn-...
// (component is fe, be, cn or fe-proxy).
func ComponentDisruptionBudgetAnnotation(component string) string {
	return "starrocks.com/" + component + "-pod-disruption-budget"
}

// SkipDecommissionAnnotation set to "true" on a StarRocksCluster shrinks BE
// at once, as the upstream does, without asking FE first: for when FE is
// gone for good. BEs removed this way lose the tablets only they held. FE
// is not shrunk without FE: a group shrunk by several members at once
// loses its majority, and one whose removed members are never dropped
// keeps them as dead voters.
const SkipDecommissionAnnotation = "starrocks.com/skip-decommission"

// DecommissionStallTimeoutAnnotation sets, as a Go duration, how long a BE
// decommission may make no progress before it is reported stalled
// (default 30m).
const DecommissionStallTimeoutAnnotation = "starrocks.com/decommission-stall-timeout"

// FESSLModeAnnotation on a StarRocksCluster overrides --fe-ssl-mode for
// that cluster's FE, for fleets whose FEs differ (some requiring TLS, some
// without it). Its values are --fe-ssl-mode's, in any case; the CA bundle is
// always --fe-ca-file.
const FESSLModeAnnotation = "starrocks.com/fe-ssl-mode"

// FECredentialsAnnotation on a StarRocksCluster names a Secret in the
// cluster's namespace holding the user (key "username") and password (key
// "password") the operator logs in to FE with; it overrides the operator's
// --fe-credentials-secret for that cluster. An annotation, not a spec field:
// the CRD stays the upstream's (an older CRD, which Helm never upgrades,
// would drop a new field without a word), and, like the other per-cluster
// switches, it is about how the operator works, not about the cluster.
const FECredentialsAnnotation = "starrocks.com/fe-credentials-secret"

// DroppedFromFEGroupAnnotation marks an FE pod the operator dropped from
// FE's group (ALTER SYSTEM DROP FOLLOWER) while the pod still ran, set just
// before the DROP. Should the spec keep that ordinal again before its pod
// goes, the pod is started afresh (new claims: its entrypoint adds it to
// the group again) instead of running outside the group. The operator
// sets it; users never need to.
const DroppedFromFEGroupAnnotation = "starrocks.com/dropped-from-fe-group"

// DecommissionedByOperatorAnnotation marks a BE pod the operator asked FE
// to decommission (a scale-in), set just before the DECOMMISSION. Should
// the spec keep that ordinal again, only a marked BE's decommission is
// cancelled, or, when FE dropped it already, the BE added back: a
// decommission or a DROP a DBA made by hand is the DBA's, and the operator
// leaves it alone. The operator sets and clears it; users never need to.
const DecommissionedByOperatorAnnotation = "starrocks.com/decommissioned-by-operator"

// FEWarehouseOwnerAnnotation records, on a StarRocksWarehouse, whether its
// FE warehouse was created by this object: its UID when the operator's own
// CREATE WAREHOUSE made it, "existed" when FE had a warehouse of the name
// before (a DBA's), "unknown" when the operator could not create it (its
// FE user lacks CREATE WAREHOUSE). Deleting the object drops the FE
// warehouse only when it holds the object's UID, or when it is absent (an
// object the upstream operator made: it is dropped as the upstream does).
// The operator writes it once, before the warehouse's compute nodes exist.
const FEWarehouseOwnerAnnotation = "starrocks.com/fe-warehouse-owner"
