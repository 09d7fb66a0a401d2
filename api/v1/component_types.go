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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// StarRocksLoadSpec holds the fields every component has, the FE proxy included.
type StarRocksLoadSpec struct {
	// ResourceRequirements puts requests, limits and claims at the top level of the component.
	corev1.ResourceRequirements `json:",inline"`

	// Annotations are added to the component's pods.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`

	// PodLabels are added to the component's pods.
	// +optional
	PodLabels map[string]string `json:"podLabels,omitempty"`

	// Replicas is the number of pods, at most 10000: a larger value is a typo
	// that would have the cluster create pods without end.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Image is the container image of the component.
	// +optional
	Image string `json:"image,omitempty"`

	// ImagePullPolicy of the component's container; empty means the Kubernetes default.
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never;""
	// +optional
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// ImagePullSecrets are the secrets used to pull the image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// SchedulerName of the component's pods; empty means the default scheduler.
	// +optional
	SchedulerName string `json:"schedulerName,omitempty"`

	// NodeSelector of the component's pods.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Affinity of the component's pods.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// Tolerations of the component's pods.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// TopologySpreadConstraints of the component's pods.
	// +optional
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`

	// Service customises the component's client-facing Service.
	// +optional
	Service *StarRocksService `json:"service,omitempty"`

	// StorageVolumes are the component's persistent (or emptyDir / hostPath) volumes.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, y.name == x.name))",message="storageVolumes[].name must be unique within a component"
	// +optional
	StorageVolumes []StorageVolume `json:"storageVolumes,omitempty"`

	// ServiceAccount the component's pods run as.
	// +optional
	ServiceAccount string `json:"serviceAccount,omitempty"`

	// ConfigMapInfo names the ConfigMap and key that hold the component's .conf file.
	// +optional
	ConfigMapInfo ConfigMapInfo `json:"configMapInfo,omitzero"`

	// StartupProbeFailureSeconds is how long the startup probe may fail before the
	// container is restarted; 0 disables the probe, nil means the operator's default.
	// +kubebuilder:validation:Minimum=0
	// +optional
	StartupProbeFailureSeconds *int32 `json:"startupProbeFailureSeconds,omitempty"`

	// LivenessProbeFailureSeconds is how long the liveness probe may fail before the
	// container is restarted; 0 disables the probe, nil means the operator's default.
	// +kubebuilder:validation:Minimum=0
	// +optional
	LivenessProbeFailureSeconds *int32 `json:"livenessProbeFailureSeconds,omitempty"`

	// ReadinessProbeFailureSeconds is how long the readiness probe may fail before the
	// pod is taken out of its Services; 0 disables the probe, nil means the operator's default.
	// +kubebuilder:validation:Minimum=0
	// +optional
	ReadinessProbeFailureSeconds *int32 `json:"readinessProbeFailureSeconds,omitempty"`

	// Lifecycle hooks of the component's main container.
	// +optional
	Lifecycle *corev1.Lifecycle `json:"lifecycle,omitempty"`

	// ShareProcessNamespace between the containers of a pod.
	// +optional
	ShareProcessNamespace *bool `json:"shareProcessNamespace,omitempty"`

	// DNSPolicy of the component's pods, as in a Pod spec (upstream PR #696);
	// unset keeps Kubernetes' default, ClusterFirst.
	// +kubebuilder:validation:Enum=ClusterFirstWithHostNet;ClusterFirst;Default;None
	// +optional
	DNSPolicy corev1.DNSPolicy `json:"dnsPolicy,omitempty"`

	// DNSConfig of the component's pods, as in a Pod spec: nameservers,
	// searches and options such as ndots (upstream PR #696, issue #795).
	// +optional
	DNSConfig *corev1.PodDNSConfig `json:"dnsConfig,omitempty"`
}

// StarRocksComponentSpec holds the fields FE, BE and CN share: the load spec plus
// pod security, extra mounts and containers, and StatefulSet settings.
type StarRocksComponentSpec struct {
	StarRocksLoadSpec `json:",inline"`

	// RunAsNonRoot runs the main container as a non-root user.
	// +optional
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty"`

	// Capabilities added to or dropped from the main container.
	// +optional
	Capabilities *corev1.Capabilities `json:"capabilities,omitempty"`

	// ReadOnlyRootFilesystem mounts the main container's root filesystem read-only.
	// +optional
	ReadOnlyRootFilesystem *bool `json:"readOnlyRootFilesystem,omitempty"`

	// SeccompProfile of the component's pods (the pod's security context, so
	// it covers sidecars and init containers too), e.g. {type: RuntimeDefault}
	// as Pod Security's restricted profile requires (upstream #777, #740).
	// +optional
	SeccompProfile *corev1.SeccompProfile `json:"seccompProfile,omitempty"`

	// Sysctls set in the pod's security context.
	// +optional
	Sysctls []corev1.Sysctl `json:"sysctls,omitempty"`

	// ConfigMaps mounted into the main container.
	// +optional
	ConfigMaps []ConfigMapReference `json:"configMaps,omitempty"`

	// Secrets mounted into the main container.
	// +optional
	Secrets []SecretReference `json:"secrets,omitempty"`

	// HostAliases added to the pods' /etc/hosts.
	// +optional
	HostAliases []corev1.HostAlias `json:"hostAliases,omitempty"`

	// TerminationGracePeriodSeconds of the pods; nil means the operator's default (120).
	// +kubebuilder:validation:Minimum=0
	// +optional
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`

	// Sidecars are extra containers in each pod.
	// +optional
	Sidecars []corev1.Container `json:"sidecars,omitempty"`

	// InitContainers run before the main container.
	// +optional
	InitContainers []corev1.Container `json:"initContainers,omitempty"`

	// Command overrides the main container's entrypoint.
	// +optional
	Command []string `json:"command,omitempty"`

	// Args overrides the main container's arguments.
	// +optional
	Args []string `json:"args,omitempty"`

	// UpdateStrategy of the component's StatefulSet.
	// +optional
	UpdateStrategy *appsv1.StatefulSetUpdateStrategy `json:"updateStrategy,omitempty"`

	// PersistentVolumeClaimRetentionPolicy of the component's StatefulSet.
	// +optional
	PersistentVolumeClaimRetentionPolicy *appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty"`

	// MinReadySeconds of the component's StatefulSet.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinReadySeconds *int32 `json:"minReadySeconds,omitempty"`

	// PodManagementPolicy of the component's StatefulSet; empty means the operator's default (Parallel).
	// +kubebuilder:validation:Enum=OrderedReady;Parallel;""
	// +optional
	PodManagementPolicy appsv1.PodManagementPolicyType `json:"podManagementPolicy,omitempty"`
}

// StarRocksService customises a component's client-facing Service.
type StarRocksService struct {
	// Annotations added to the Service.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`

	// Labels added to the Service.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Type of the Service; empty means ClusterIP. ExternalName is not offered:
	// the operator's Services always select the component's pods.
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer;""
	// +optional
	Type corev1.ServiceType `json:"type,omitempty"`

	// LoadBalancerIP requested for a LoadBalancer Service.
	// +optional
	LoadBalancerIP string `json:"loadBalancerIP,omitempty"`

	// Ports override the default ports with the same name (for example to set a nodePort).
	// +optional
	Ports []StarRocksServicePort `json:"ports,omitempty"`

	// LoadBalancerSourceRanges restricts the clients of a LoadBalancer Service.
	// +optional
	LoadBalancerSourceRanges []string `json:"loadBalancerSourceRanges,omitempty"`
}

// StarRocksServicePort is one port of a component's Service.
type StarRocksServicePort struct {
	// Name of the port; a default port with the same name is overridden.
	// +optional
	Name string `json:"name,omitempty"`

	// Port the Service listens on.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	Port int32 `json:"port,omitempty"`

	// ContainerPort the Service forwards to.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	ContainerPort int32 `json:"containerPort,omitempty"`

	// NodePort of a NodePort or LoadBalancer Service; 0 lets Kubernetes choose.
	// +optional
	NodePort int32 `json:"nodePort,omitempty"`
}

// StorageVolume is a volume mounted into the component's main container. The
// storageClassName "emptyDir" and "hostPath" select those volume types; any
// other value (or none) makes a PersistentVolumeClaim template.
// +kubebuilder:validation:XValidation:rule="size(self.name) > 0",message="storageVolumes[].name must not be empty",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="size(self.mountPath) > 0",message="storageVolumes[].mountPath must not be empty",fieldPath=".mountPath"
type StorageVolume struct {
	// Name of the volume and of its PersistentVolumeClaim template.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="storageVolumes[].name must be a lowercase RFC 1123 label (letters, digits and '-', starting and ending with a letter or digit)"
	Name string `json:"name"`

	// StorageClassName of the PersistentVolumeClaim, or "emptyDir" / "hostPath".
	// +optional
	StorageClassName *string `json:"storageClassName,omitempty"`

	// StorageSize is the requested size, such as 10Gi; a size starting with "0" skips the volume.
	// MaxLength bounds the CEL cost of parsing it.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || (isQuantity(self) && !quantity(self).isLessThan(quantity('0')))",message="storageVolumes[].storageSize must be a non-negative quantity such as 10Gi or 500Mi"
	// +optional
	StorageSize string `json:"storageSize,omitempty"`

	// HostPath is used when storageClassName is "hostPath".
	// +optional
	HostPath *corev1.HostPathVolumeSource `json:"hostPath,omitempty"`

	// MountPath in the main container.
	MountPath string `json:"mountPath"`

	// SubPath of the volume to mount.
	// +optional
	SubPath string `json:"subPath,omitempty"`
}

// ConfigMapInfo names the ConfigMap key that holds a component's .conf file.
// +kubebuilder:validation:XValidation:rule="!has(self.configMapName) || size(self.configMapName) == 0 || (has(self.resolveKey) && size(self.resolveKey) > 0)",message="configMapInfo.resolveKey must be set when configMapInfo.configMapName is set",fieldPath=".resolveKey"
// +kubebuilder:validation:XValidation:rule="!has(self.resolveKey) || size(self.resolveKey) == 0 || (has(self.configMapName) && size(self.configMapName) > 0)",message="configMapInfo.configMapName must be set when configMapInfo.resolveKey is set",fieldPath=".configMapName"
type ConfigMapInfo struct {
	// ConfigMapName is the ConfigMap in the cluster's namespace.
	// +optional
	ConfigMapName string `json:"configMapName,omitempty"`

	// ResolveKey is the key in the ConfigMap whose value is the .conf file, such as fe.conf.
	// +optional
	ResolveKey string `json:"resolveKey,omitempty"`
}

// ConfigMapReference mounts a ConfigMap into the main container.
type ConfigMapReference struct {
	// Name of the ConfigMap.
	// +optional
	Name string `json:"name,omitempty"`

	// MountPath in the main container.
	// +optional
	MountPath string `json:"mountPath,omitempty"`

	// SubPath mounts a single key of the ConfigMap.
	// +optional
	SubPath string `json:"subPath,omitempty"`
}

// SecretReference mounts a Secret into the main container.
type SecretReference struct {
	// Name of the Secret.
	// +optional
	Name string `json:"name,omitempty"`

	// MountPath in the main container.
	// +optional
	MountPath string `json:"mountPath,omitempty"`

	// SubPath mounts a single key of the Secret.
	// +optional
	SubPath string `json:"subPath,omitempty"`
}
