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

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StarRocksWarehouseSpec describes a warehouse: a group of compute nodes added
// to an existing shared-data StarRocksCluster.
type StarRocksWarehouseSpec struct {
	// StarRocksCluster is the name of the StarRocksCluster, in the same namespace, the warehouse joins.
	StarRocksCluster string `json:"starRocksCluster"`

	// Template describes the warehouse's compute nodes.
	Template *WarehouseComponentSpec `json:"template"`
}

// WarehouseComponentSpec describes the compute nodes of a warehouse.
type WarehouseComponentSpec struct {
	StarRocksComponentSpec `json:",inline"`

	// EnvVars are extra environment variables of the CN container.
	// +optional
	EnvVars []corev1.EnvVar `json:"envVars,omitempty"`

	// AutoScalingPolicy makes the operator create a HorizontalPodAutoscaler for the warehouse.
	// +optional
	AutoScalingPolicy *AutoScalingPolicy `json:"autoScalingPolicy,omitempty"`
}

// StarRocksWarehouseStatus is the observed state of a StarRocksWarehouse.
type StarRocksWarehouseStatus struct {
	// ObservedGeneration is the metadata.generation the status was computed from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready, Progressing, Degraded, ReconcileError.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	StarRocksCnStatus `json:",inline"`
}

// StarRocksWarehouse is a group of compute nodes of a shared-data StarRocksCluster.
// Its name makes its objects' (MaxWarehouseNameLength): StatefulSet
// <name>-warehouse-cn, whose pods are named and labelled after it, and
// Services <name>-warehouse-cn-service and -search, all DNS labels.
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 39",message="metadata.name may have at most 39 characters: StatefulSet <name>-warehouse-cn labels its pods with its name and a revision hash, a label value of at most 63 characters"
// +kubebuilder:validation:XValidation:rule="!self.metadata.name.contains('.')",message="metadata.name must not contain '.': it names the warehouse's pods and Services, which are DNS labels"
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.template.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=warehouses
// +kubebuilder:printcolumn:name="status",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="reason",type=string,JSONPath=`.status.reason`
type StarRocksWarehouse struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec StarRocksWarehouseSpec `json:"spec,omitempty"`

	// +optional
	Status StarRocksWarehouseStatus `json:"status,omitempty"`
}

// StarRocksWarehouseList is a list of StarRocksWarehouse.
// +kubebuilder:object:root=true
type StarRocksWarehouseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StarRocksWarehouse `json:"items"`
}

func init() {
	SchemeBuilder.Register(&StarRocksWarehouse{}, &StarRocksWarehouseList{})
}
