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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StarRocksClusterSpec describes a StarRocks cluster: FE, and optionally BE, CN and an FE proxy.
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.clusterSnapshot) || !oldSelf.clusterSnapshot.enabled || (has(self.clusterSnapshot) && (self.clusterSnapshot.enabled || (has(self.clusterSnapshot.confirmPurge) && self.clusterSnapshot.confirmPurge)))",message="turning clusterSnapshot off deletes StarRocks' cluster snapshot: set clusterSnapshot.enabled: false with confirmPurge: true"
type StarRocksClusterSpec struct {
	// ServiceAccount is deprecated: set serviceAccount on each component instead.
	// +optional
	ServiceAccount string `json:"serviceAccount,omitempty"`

	// StarRocksFeSpec describes the frontends.
	// +optional
	StarRocksFeSpec *StarRocksFeSpec `json:"starRocksFeSpec,omitempty"`

	// StarRocksBeSpec describes the backends (shared-nothing storage).
	// +optional
	StarRocksBeSpec *StarRocksBeSpec `json:"starRocksBeSpec,omitempty"`

	// StarRocksCnSpec describes the compute nodes.
	// +optional
	StarRocksCnSpec *StarRocksCnSpec `json:"starRocksCnSpec,omitempty"`

	// StarRocksFeProxySpec describes the nginx proxy in front of the FE HTTP port.
	// +optional
	StarRocksFeProxySpec *StarRocksFeProxySpec `json:"starRocksFeProxySpec,omitempty"`

	// DisasterRecovery restores a shared-data cluster from a snapshot.
	// +optional
	DisasterRecovery *DisasterRecovery `json:"disasterRecovery,omitempty"`

	// WaitForFullRollout makes BE, CN and the FE proxy wait until the FE StatefulSet
	// has fully rolled out, not just until one FE is ready.
	// +optional
	WaitForFullRollout *bool `json:"waitForFullRollout,omitempty"`

	// ClusterSnapshot turns StarRocks' automated cluster snapshot of a
	// shared-data cluster (3.4.2+) on or off; absent, the operator leaves
	// it as it is. It needs the operator's backup feature (--enable-backup).
	// +optional
	ClusterSnapshot *ClusterSnapshotSpec `json:"clusterSnapshot,omitempty"`
}

// StarRocksFeSpec describes the frontends.
type StarRocksFeSpec struct {
	StarRocksComponentSpec `json:",inline"`

	// FeEnvVars are extra environment variables of the FE container.
	// +optional
	FeEnvVars []corev1.EnvVar `json:"feEnvVars,omitempty"`
}

// StarRocksBeSpec describes the backends.
type StarRocksBeSpec struct {
	StarRocksComponentSpec `json:",inline"`

	// BeEnvVars are extra environment variables of the BE container.
	// +optional
	BeEnvVars []corev1.EnvVar `json:"beEnvVars,omitempty"`
}

// StarRocksCnSpec describes the compute nodes.
type StarRocksCnSpec struct {
	StarRocksComponentSpec `json:",inline"`

	// CnEnvVars are extra environment variables of the CN container.
	// +optional
	CnEnvVars []corev1.EnvVar `json:"cnEnvVars,omitempty"`

	// AutoScalingPolicy makes the operator create a HorizontalPodAutoscaler for CN.
	// +optional
	AutoScalingPolicy *AutoScalingPolicy `json:"autoScalingPolicy,omitempty"`
}

// StarRocksFeProxySpec describes the nginx Deployment that proxies the FE HTTP port.
type StarRocksFeProxySpec struct {
	StarRocksLoadSpec `json:",inline"`

	// Resolver is the DNS server nginx uses to resolve the FE Service,
	// such as kube-dns.kube-system.svc.cluster.local.
	// +optional
	Resolver string `json:"resolver,omitempty"`
}

// AutoScalingPolicy describes the HorizontalPodAutoscaler of the compute nodes.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",message="autoScalingPolicy.minReplicas must be less than or equal to autoScalingPolicy.maxReplicas",fieldPath=".minReplicas"
type AutoScalingPolicy struct {
	// HPAPolicy holds the metrics and scaling behaviour of the HorizontalPodAutoscaler.
	// +optional
	HPAPolicy *HPAPolicy `json:"hpaPolicy,omitempty"`

	// Version of the autoscaling API to use (v1, v2beta2 or v2); empty means the newest the cluster serves.
	// +optional
	Version AutoScalerVersion `json:"version,omitempty"`

	// MinReplicas is the lower bound of CN replicas; nil means the HorizontalPodAutoscaler's default (1).
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// MaxReplicas is the upper bound of CN replicas.
	// +kubebuilder:validation:Minimum=1
	MaxReplicas int32 `json:"maxReplicas"`
}

// HPAPolicy holds the metrics and behaviour of a HorizontalPodAutoscaler.
type HPAPolicy struct {
	// Metrics the HorizontalPodAutoscaler scales on.
	// +optional
	Metrics []autoscalingv2.MetricSpec `json:"metrics,omitempty"`

	// Behavior configures the scaling speed in each direction.
	// +optional
	Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
}

// AutoScalerVersion is the autoscaling API version of the CN HorizontalPodAutoscaler.
type AutoScalerVersion string

// Autoscaling API versions accepted in autoScalingPolicy.version.
const (
	AutoScalerV1      AutoScalerVersion = "v1"
	AutoScalerV2Beta2 AutoScalerVersion = "v2beta2"
	AutoScalerV2      AutoScalerVersion = "v2"
)

// DisasterRecovery asks the operator to restore a shared-data cluster.
type DisasterRecovery struct {
	// Enabled turns disaster recovery on.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// Generation identifies one recovery; change it to run another.
	// +optional
	Generation int64 `json:"generation,omitempty"`
}

// StarRocksCluster is a StarRocks cluster.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.starRocksCnSpec.replicas,statuspath=.status.starRocksCnStatus.replicas,selectorpath=.status.starRocksCnStatus.selector
// +kubebuilder:resource:shortName=src
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="FeStatus",type=string,JSONPath=`.status.starRocksFeStatus.phase`
// +kubebuilder:printcolumn:name="BeStatus",type=string,JSONPath=`.status.starRocksBeStatus.phase`
// +kubebuilder:printcolumn:name="CnStatus",type=string,JSONPath=`.status.starRocksCnStatus.phase`
// +kubebuilder:printcolumn:name="FeProxyStatus",type=string,JSONPath=`.status.starRocksFeProxyStatus.phase`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.summary.state`,priority=1
// +kubebuilder:printcolumn:name="FE",type=string,JSONPath=`.status.summary.fe`,priority=1
// +kubebuilder:printcolumn:name="BE",type=string,JSONPath=`.status.summary.be`,priority=1
// +kubebuilder:printcolumn:name="CN",type=string,JSONPath=`.status.summary.cn`,priority=1
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.status.summary.version`,priority=1
// +kubebuilder:printcolumn:name="Healthy",type=string,JSONPath=`.status.summary.healthy`,priority=1
// +kubebuilder:printcolumn:name="In Progress",type=string,JSONPath=`.status.summary.doing`,priority=1
// +kubebuilder:printcolumn:name="Since",type=date,JSONPath=`.status.summary.since`,priority=1
// +kubebuilder:printcolumn:name="Paused",type=string,JSONPath=`.metadata.annotations.starrocks\.com/ignored`,priority=1
// +kubebuilder:printcolumn:name="Generation",type=integer,JSONPath=`.metadata.generation`,priority=1
// +kubebuilder:printcolumn:name="Observed",type=integer,JSONPath=`.status.observedGeneration`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`,priority=1
// +kubebuilder:printcolumn:name="Namespace",type=string,JSONPath=`.metadata.namespace`,priority=1
type StarRocksCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec StarRocksClusterSpec `json:"spec,omitempty"`

	// +optional
	Status StarRocksClusterStatus `json:"status,omitempty"`
}

// StarRocksClusterList is a list of StarRocksCluster.
// +kubebuilder:object:root=true
type StarRocksClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StarRocksCluster `json:"items"`
}

func init() {
	SchemeBuilder.Register(&StarRocksCluster{}, &StarRocksClusterList{})
}
