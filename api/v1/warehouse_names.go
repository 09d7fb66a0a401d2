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

// Names of the objects the operator creates for a StarRocksWarehouse: the
// upstream operator's, so that its warehouses are adopted, not duplicated.

// WarehouseComponentName is the prefix of the warehouse's objects: "<wh>-warehouse".
func (w *StarRocksWarehouse) WarehouseComponentName() string { return w.Name + "-warehouse" }

// CnStatefulSetName is the warehouse's CN StatefulSet.
func (w *StarRocksWarehouse) CnStatefulSetName() string { return w.Name + "-warehouse-cn" }

// CnServiceName is the warehouse's CN client Service.
func (w *StarRocksWarehouse) CnServiceName() string { return w.Name + "-warehouse-cn-service" }

// CnSearchServiceName is the warehouse's headless CN Service.
func (w *StarRocksWarehouse) CnSearchServiceName() string { return w.Name + "-warehouse-cn-search" }

// CnAutoscalerName is the warehouse's HorizontalPodAutoscaler.
func (w *StarRocksWarehouse) CnAutoscalerName() string { return w.Name + "-warehouse-cn-autoscaler" }

// CnDisruptionBudgetName is the warehouse's PodDisruptionBudget (ours alone: the upstream makes none).
func (w *StarRocksWarehouse) CnDisruptionBudgetName() string { return w.Name + "-warehouse-cn-pdb" }

// Condition reasons of a StarRocksWarehouse (beside the cluster's), each
// naming the check that failed.
const (
	// ReasonClusterNotFound: spec.starRocksCluster names no StarRocksCluster in the namespace.
	ReasonClusterNotFound = "ClusterNotFound"
	// ReasonNotSharedData: the cluster's fe.conf does not set run_mode = shared_data.
	ReasonNotSharedData = "NotSharedData"
	// ReasonFENotReady: the cluster's FE has no ready pod yet.
	ReasonFENotReady = "FENotReady"
	// ReasonNameConflict: the warehouse has the cluster's name.
	ReasonNameConflict = "NameConflict"
	// ReasonMultiWarehouseUnsupported: the cluster's FE does not list the
	// multi-warehouse feature (GET /api/v2/feature; an open-source FE lists
	// only RBAC): it cannot run the warehouse, and no compute node is deployed.
	ReasonMultiWarehouseUnsupported = "MultiWarehouseUnsupported"
	ReasonObjectNamesTaken          = "ObjectNamesTaken"
	// ReasonTemplateMissing: spec.template is missing.
	ReasonTemplateMissing = "TemplateMissing"
	// ReasonClusterSnapshotMissing (cluster, ReconcileError=True):
	// spec.disasterRecovery is enabled on a shared-data cluster but no FE
	// configMaps entry mounts cluster_snapshot.yaml where FE reads it
	// (/opt/starrocks/fe/conf/cluster_snapshot.yaml).
	ReasonClusterSnapshotMissing = "ClusterSnapshotMissing"
)

// MaxWarehouseNameLength is the longest warehouse name Kubernetes can make
// the objects of. The pods of StatefulSet <wh>-warehouse-cn carry the label
// controller-revision-hash=<StatefulSet name>-<hash of up to 10
// characters>, whose value may have 63 characters: the StatefulSet's name
// may have 52, the warehouse's 52 - len("-warehouse-cn") = 39. Its longest
// Service name, <wh>-warehouse-cn-service, then has 60 of the 63 allowed.
// The CRD refuses a longer name (the rule on StarRocksWarehouse must say
// the same number); the reconciler refuses one stored before it did.
const MaxWarehouseNameLength = 39
