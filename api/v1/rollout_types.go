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

// What StarRocks itself says, in status, and the rollouts that wait for it
// (docs/rollouts.md).

// ConditionStarRocksHealthy is True when FE lists every node of the
// cluster Alive and counts no unhealthy tablet (SHOW FRONTENDS, SHOW BACKENDS, SHOW COMPUTE
// NODES, SHOW PROC '/statistic'), at the operator's last read. It appears
// once FE first answered.
const ConditionStarRocksHealthy = "StarRocksHealthy"

const (
	// ReasonStarRocksHealthy (StarRocksHealthy=True): every node Alive, no unhealthy tablet.
	ReasonStarRocksHealthy = "Healthy"
	// ReasonNodesNotAlive (StarRocksHealthy=False): FE lists nodes of the
	// cluster that are not Alive; the message names their pods.
	ReasonNodesNotAlive = "NodesNotAlive"
	// ReasonNotRegistered (StarRocksHealthy=False): pods run that FE does
	// not list at all (never registered, dropped, or listed under another
	// host); the message names them.
	ReasonNotRegistered = "NotRegistered"
	// ReasonTabletsUnhealthy (StarRocksHealthy=False): the Total row of SHOW
	// PROC '/statistic' counts unhealthy tablets (too few healthy replicas).
	ReasonTabletsUnhealthy = "TabletsUnhealthy"
	// ReasonRollingOut (Progressing=True): a pod template change rolls one
	// pod at a time, each next pod only once StarRocks says the last one is
	// back (BE and CN), FE's leader last; the message says which pod and
	// what the next step waits for.
	ReasonRollingOut = "RollingOut"
	// ReasonRolloutStalled (Progressing=True): a gated rollout waited longer
	// than its stall timeout for StarRocks; it stays held, nothing else rolls.
	ReasonRolloutStalled = "RolloutStalled"
	// ReasonParallelRollout (Progressing=True, and a Normal Event when the
	// pods go): a component's image change replaces all its pods at once,
	// on the cluster's starrocks.com/rollout: parallel and the confirmation
	// naming that image (RolloutImageAnnotation); the message says what the
	// component waits for before the next one rolls.
	ReasonParallelRollout = "ParallelRollout"
	// ReasonParallelRolloutDeclined (a Warning Event, and in Progressing's
	// message): the cluster asks for starrocks.com/rollout: parallel, but
	// this change rolls one pod at a time: the confirmation does not name
	// the image it rolls to (stale, missing, or not an image change), or
	// the component's data is not on PersistentVolumeClaims.
	ReasonParallelRolloutDeclined = "ParallelRolloutDeclined"
)

// StarRocksNodesStatus is what FE said of a component's nodes at the
// operator's last read: counted by pod, from the rows whose host is one of
// the component's pods.
type StarRocksNodesStatus struct {
	// Alive is how many of them FE lists Alive.
	Alive int32 `json:"alive"`

	// Total is how many of them FE lists.
	Total int32 `json:"total"`

	// Leader is the pod of the FE that leads (FE only).
	// +optional
	Leader string `json:"leader,omitempty"`

	// UnhealthyTablets is UnhealthyTabletNum of the Total row of SHOW PROC
	// '/statistic', the whole cluster's (BE only).
	// +optional
	UnhealthyTablets *int32 `json:"unhealthyTablets,omitempty"`

	// Versions are the StarRocks versions FE reports these nodes run (the
	// Version column, without its commit: "3.3.10"), distinct and sorted:
	// one on a settled cluster, two mid-rollout. A node FE has not heard
	// from since it started (NULL) adds none.
	// +optional
	Versions []string `json:"versions,omitempty"`
}
