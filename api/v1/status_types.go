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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phase is the coarse state of a cluster, warehouse or component, as upstream reports it.
type Phase string

// Phases of a cluster and of each component.
const (
	// PhaseRunning: every component is available.
	PhaseRunning Phase = "running"
	// PhaseFailed: at least one component failed.
	PhaseFailed Phase = "failed"
	// PhaseReconciling: at least one component is being created or updated.
	PhaseReconciling Phase = "reconciling"
)

// DisasterRecoveryPhase is the state of a disaster recovery run.
type DisasterRecoveryPhase string

// Phases of a disaster recovery run.
const (
	DisasterRecoveryTodo  DisasterRecoveryPhase = "todo"
	DisasterRecoveryDoing DisasterRecoveryPhase = "doing"
	DisasterRecoveryDone  DisasterRecoveryPhase = "done"
)

// Condition types in status.conditions.
const (
	// ConditionReady: every requested component is running; derived from the others.
	ConditionReady = "Ready"
	// ConditionProgressing: a component is being created, scaled or rolled out.
	ConditionProgressing = "Progressing"
	// ConditionDegraded: a component has failed or unavailable instances.
	ConditionDegraded = "Degraded"
	// ConditionReconcileError: the last reconcile failed; the message says why.
	ConditionReconcileError = "ReconcileError"
	// ConditionConfigUnavailable is True while the .conf of a running
	// component cannot be read (its configMapInfo names a ConfigMap or key
	// that is gone): the component keeps its live objects, the others are
	// reconciled, and the phase reflects the pods. The upstream would have
	// carried on with an empty configuration.
	ConditionConfigUnavailable = "ConfigUnavailable"
	// ConditionClaimsUnbound is True while claims of a StatefulSet whose claim
	// template asks for storageClassName "" (no class: they bind only to a
	// pre-made PersistentVolume without a class, never to the default
	// StorageClass) are Pending; the message names them. An earlier chart of
	// ours rendered "" for an unset class; docs/helm-migration.md says how to
	// bind or replace such claims.
	ConditionClaimsUnbound = "ClaimsUnbound"
	// ConditionFEQuorumUnprotected is True while FE runs 2 replicas:
	// StarRocks' metadata needs a majority of FE, both of 2, and a disruption
	// budget keeping both would block every node drain for ever. FE's budget
	// lets one pod go at a time instead; the message says what an eviction
	// then costs. It appears only once True. See docs/disruption-budgets.md.
	ConditionFEQuorumUnprotected = "FEQuorumUnprotected"
	// ConditionGracefulExitCutShort is True while the pod templates' timing
	// fights the graceful exit their preStop hook starts: a
	// terminationGracePeriodSeconds that kills FE, BE or CN before its
	// graceful exit can end, or an FE readiness probe slower than FE's
	// earliest stop (15 s). The message names the components and values.
	// It appears only once True. See docs/upgrades.md, "Pod termination and
	// the graceful exit".
	ConditionGracefulExitCutShort = "GracefulExitCutShort"
)

// Condition reasons: stable CamelCase words that alerts and scripts may match;
// the message beside each says more.
const (
	// ReasonAllComponentsRunning (Ready=True): every requested component runs.
	ReasonAllComponentsRunning = "AllComponentsRunning"
	// ReasonComponentsNotReady (Ready=False, Progressing=True): a component is
	// being created, scaled or rolled out.
	ReasonComponentsNotReady = "ComponentsNotReady"
	// ReasonComponentsFailed (Ready=False): a component failed.
	ReasonComponentsFailed = "ComponentsFailed"
	// ReasonReconcileFailed (Ready=False): the operator could not bring the
	// objects to the spec; ReconcileError says why.
	ReasonReconcileFailed = "ReconcileError"
	// ReasonOrderedRollout (Progressing=True): an image change rolls in order,
	// BE and CN before FE on an upgrade, FE first on a downgrade.
	ReasonOrderedRollout = "OrderedRollout"
	// ReasonRemovalHeld (Progressing=True): BE or CN was removed from the
	// spec, but keeps running with its data until the cluster is annotated
	// starrocks.com/delete-removed-components=true.
	ReasonRemovalHeld = "RemovalHeld"
	// ReasonDecommissioning (Progressing): FE drains the BEs a scale-in
	// removes; the BE StatefulSet keeps its replicas until FE let them go.
	ReasonDecommissioning = "Decommissioning"
	// ReasonDecommissionStalled (Progressing): the drain made no progress
	// for the stall timeout; FE's TabletNum says what is left.
	ReasonDecommissionStalled = "DecommissionStalled"
	// ReasonLeavingFEGroup (Progressing): an FE scale-down takes one FE at a
	// time out of FE's group before its pod goes.
	ReasonLeavingFEGroup = "LeavingFEGroup"
	// ReasonScaleInRefused (ReconcileError): FE refused the scale-in (not
	// enough BEs for a table's replicas, not enough disk), or the FE group
	// would lose its majority.
	ReasonScaleInRefused = "ScaleInRefused"
	// ReasonUpgradePathRefused (ReconcileError): an image change's version
	// path, from the version FE reports the nodes run to the new image's,
	// is one StarRocks' docs forbid (a major skip, a downgrade that loses
	// metadata); the StatefulSets whose image changes keep their pod
	// template, no pod restarts, until the spec changes (docs/upgrades.md).
	ReasonUpgradePathRefused = "UpgradePathRefused"
	// ReasonUpgradePathWarning (a Warning Event): an image change's version
	// path is one StarRocks' docs allow but recommend against (a minor
	// version skipped); it rolls, and Progressing's message says so.
	ReasonUpgradePathWarning = "UpgradePathWarning"
	// ReasonEphemeralStorage (a Warning Event, and a note in Progressing's
	// message while it rolls): a BE rollout begins whose storage_root_path
	// is not on a PersistentVolumeClaim; each replaced BE comes back empty.
	ReasonEphemeralStorage = "EphemeralStorage"
	// ReasonEphemeralStorageRefused (ReconcileError): such a BE rollout is
	// refused, its pod template kept, while FE reports partitions of
	// replication_num 1 (or cannot list them), unless the cluster's
	// starrocks.com/rollout-ephemeral-storage is "allow".
	ReasonEphemeralStorageRefused = "EphemeralStorageRefused"
	// ReasonUpgradeRequires (a Warning Event): StarRocks' pages ask the user
	// to do something for this version change that the operator does not
	// do (a .conf edit such as fe.conf's ignore_unknown_log_id before a
	// downgrade, JAVA_OPTS for JDK 17, a session variable); the change rolls,
	// and Progressing's message repeats it while it does.
	ReasonUpgradeRequires = "UpgradeRequires"
	// ReasonUpgradeNeedsConf (ReconcileError): FE's image change is held,
	// its pod template kept, until the fe.conf the operator holds carries
	// what StarRocks' pages ask before it (ignore_unknown_log_id = true
	// before a downgrade across lines; no CMS or GC option in JAVA_OPTS
	// before 3.5's JDK 17), or the user confirms the step
	// (starrocks.com/upgrade-path-confirm).
	ReasonUpgradeNeedsConf = "UpgradeNeedsConf"
	// ReasonCompatibilityPause (Progressing, and a Normal Event): a minor or
	// major version change waits while the operator pauses FE's tablet
	// clone and balancing (ADMIN SET FRONTEND CONFIG), or sets the pause
	// again after an FE restarted; the Event says what FE had.
	ReasonCompatibilityPause = "CompatibilityPause"
	// ReasonCompatibilityRestored (a Normal Event): every component runs its
	// new image and every BE is Alive: FE's recorded tablet clone and
	// balance configuration is set again.
	ReasonCompatibilityRestored = "CompatibilityRestored"
	// ReasonCompatibilityPauseSkipped (a Warning Event): FE did not answer
	// when a minor or major version change began, so its clone and balance
	// configuration could not be read and recorded: the change goes on
	// without the pause, as the pre-flight lets it go on unchecked.
	ReasonCompatibilityPauseSkipped = "CompatibilityPauseSkipped"
	// ReasonMetadataImage (a Normal Event): after FE's image change, every
	// FE runs it, the operator sent ALTER SYSTEM CREATE IMAGE, and every FE
	// now has an image newer than FE's journal at that moment, as
	// StarRocks' upgrade pages ask before the next change; the Event names
	// the journal id. Progressing tells the wait meanwhile.
	ReasonMetadataImage = "MetadataImage"
	// ReasonBackendsDropped (an Event): the shared-data BEs of a BE spec
	// removed with the user's consent were dropped from FE once their pods
	// were gone.
	ReasonBackendsDropped = "BackendsDropped"
	// ReasonFEUnreachable is set when FE does not answer a step that needs its word.
	ReasonFEUnreachable = "FEUnreachable"
	// ReasonFETLSFailed is set in FEUnreachable's place when the connection
	// to FE failed for TLS: the SSL mode (--fe-ssl-mode, or the cluster's
	// starrocks.com/fe-ssl-mode) requires TLS and FE offers none, the
	// handshake failed, or FE's certificate does not verify against
	// --fe-ca-file (unknown CA, a name it does not carry, expired).
	ReasonFETLSFailed = "FETLSFailed"
	// ReasonFEInsecureTransport is set in FEUnreachable's place when FE
	// refused a plaintext connection (ssl_force_secure_transport, error
	// 5205): the SSL mode is DISABLED, or FE requires TLS it does not offer.
	ReasonFEInsecureTransport = "FEInsecureTransport"
	// ReasonFEAuthPluginRefused is set in FEUnreachable's place, with a
	// Warning Event, when FE asked for a login other than
	// mysql_native_password (a greeting or auth switch naming another
	// plugin, or "more authentication data"): the operator stopped the
	// login and sent no password. A real FE asks this only of users made
	// with another plugin; the operator's user must be a native one.
	ReasonFEAuthPluginRefused = "FEAuthPluginRefused"
	// ReasonFEAnswerTooLarge is set in FEUnreachable's place, with a
	// Warning Event, when FE answered more rows or bytes than the cluster's
	// pods could explain (docs/security.md, "Bounded answers"): the
	// operator read no further and decided nothing on the part it read.
	ReasonFEAnswerTooLarge = "FEAnswerTooLarge"
	// ReasonFEAnswerInvalid is set in FEUnreachable's place, with a Warning
	// Event, when FE's answer does not read as FE's (a column the operator
	// needs is missing, a number is not one): nothing is decided on it.
	ReasonFEAnswerInvalid = "FEAnswerInvalid"
	// ReasonFESSLModeIgnored (a Warning Event): the cluster's
	// starrocks.com/fe-ssl-mode annotation asks for a mode weaker than the
	// operator's --fe-ssl-mode; the annotation may only strengthen it, and
	// the operator's mode is used.
	ReasonFESSLModeIgnored = "FESSLModeIgnored"
	// ReasonInvalidFESSLMode (ReconcileError=True): the cluster's
	// starrocks.com/fe-ssl-mode annotation is not an SSL mode; nothing is
	// changed and nothing is sent to FE until it is.
	ReasonInvalidFESSLMode = "InvalidFESSLMode"
	// The FE credentials family: FE answers, but not to the operator's user.
	// ReasonFECredentialsMissing: the Secret the operator logs in with (or
	// root's MYSQL_PWD source) cannot be read or lacks a key.
	ReasonFECredentialsMissing = "FECredentialsMissing"
	// ReasonFECredentialsRejected: FE refused the login (MySQL error 1045).
	ReasonFECredentialsRejected = "FECredentialsRejected"
	// ReasonFEPermissionDenied: the user logged in but lacks a privilege a
	// statement needs; the message names the statement.
	ReasonFEPermissionDenied = "FEPermissionDenied"
	// ReasonDisasterRecovery: BE and CN are held, neither written nor
	// deleted, while FE alone restores a cluster snapshot; their phase says so.
	ReasonDisasterRecovery = "DisasterRecovery"
	// ReasonNoStorageClass (ClaimsUnbound=True): the Pending claims ask for no
	// StorageClass; ReasonClaimsBound (ClaimsUnbound=False): none is Pending.
	ReasonNoStorageClass = "NoStorageClass"
	ReasonClaimsBound    = "ClaimsBound"
	// ReasonStable (Progressing=False): nothing is changing.
	ReasonStable = "Stable"
	// ReasonPodsFailing (Degraded=True): pods crash, or cannot pull or start.
	ReasonPodsFailing = "PodsFailing"
	// ReasonDriftNotRestored (Degraded=True): someone else changed an object
	// in a way apply cannot undo (an env var added with kubectl set env, an
	// image an admission webhook rewrites); the message names the objects.
	ReasonDriftNotRestored = "DriftNotRestored"
	// ReasonAllPodsHealthy (Degraded=False).
	ReasonAllPodsHealthy = "AllPodsHealthy"
	// ReasonReconciled (ReconcileError=False): the last reconcile succeeded.
	ReasonReconciled = "Reconciled"
	// ReasonAlreadyExists (ReconcileError=True): an object of a name the
	// cluster needs exists and is controlled by something else (or nothing):
	// the operator does not take it over; delete or rename it. Looked at
	// again at 1 s, doubling to 5 min: no watch tells of such an object.
	ReasonAlreadyExists = "AlreadyExists"
	// ReasonApplyFailed (ReconcileError=True): the API server refused or
	// failed a write; the operator retries with back-off.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonFeSpecMissing (ReconcileError=True): spec.starRocksFeSpec is
	// missing; nothing is changed until it is back.
	ReasonFeSpecMissing = "FeSpecMissing"
	// ReasonImmutableFieldChanged (ReconcileError=True): the spec changes a
	// StatefulSet field Kubernetes cannot change in place (claims added or
	// removed, a smaller size, another storage class, podManagementPolicy);
	// that StatefulSet keeps its current spec, the others are written.
	ReasonImmutableFieldChanged = "ImmutableFieldChanged"
	// ReasonStorageNotExpandable (ReconcileError=True): a storageSize grew but
	// the StorageClass does not allow volume expansion.
	ReasonStorageNotExpandable = "StorageNotExpandable"
	// ReasonInvalidConfig (ReconcileError=True): a component's .conf sets a
	// port to something StarRocks cannot listen on; nothing is changed, so
	// no pod rolls into a file it cannot start with.
	ReasonInvalidConfig = "InvalidConfig"
	// ReasonInvalidResolver (ReconcileError=True): the FE proxy's resolver
	// holds characters nginx.conf cannot take safely (; { } # or a newline).
	ReasonInvalidResolver = "InvalidResolver"
	// ReasonInvalidName (ReconcileError=True, one Warning Event): the
	// cluster's name cannot name its Services (a DNS-1035 label: a lower-case
	// letter first, then letters, digits and '-'; no '.'): nothing is
	// created until it is recreated under another name.
	ReasonInvalidName = "InvalidName"
	// ReasonNameTooLong (ReconcileError=True): the cluster's name makes a
	// child object's name longer than Kubernetes allows.
	ReasonNameTooLong = "NameTooLong"
	// ReasonConfigMapNotFound (ReconcileError=True): a configMapInfo names a
	// ConfigMap that does not exist.
	ReasonConfigMapNotFound = "ConfigMapNotFound"
	// ReasonConfigKeyNotFound (ReconcileError=True): a configMapInfo's
	// resolveKey is not a key of its ConfigMap.
	ReasonConfigKeyNotFound = "ConfigKeyNotFound"
	// ReasonInvalidStorageVolume (ReconcileError=True): a storageVolumes entry
	// cannot be made (storageClassName hostPath without hostPath, or no
	// storageSize for a claim); nothing is changed until it is fixed, rather
	// than silently giving the data an emptyDir.
	ReasonInvalidStorageVolume = "InvalidStorageVolume"
	// ReasonConfigAvailable (ConfigUnavailable=False): every .conf was read again.
	ReasonConfigAvailable = "ConfigAvailable"
	// ReasonTwoFrontends (FEQuorumUnprotected=True): FE runs 2 replicas;
	// ReasonNotTwoFrontends (FEQuorumUnprotected=False): it no longer does.
	ReasonTwoFrontends    = "TwoFrontends"
	ReasonNotTwoFrontends = "NotTwoFrontends"
	// ReasonTimingFightsGracefulExit (GracefulExitCutShort=True): a user's
	// value fights the graceful exit; ReasonTimingFitsGracefulExit
	// (GracefulExitCutShort=False): none does any more.
	ReasonTimingFightsGracefulExit = "TimingFightsGracefulExit"
	ReasonTimingFitsGracefulExit   = "TimingFitsGracefulExit"
)

// StarRocksClusterStatus is the observed state of a StarRocksCluster.
type StarRocksClusterStatus struct {
	// ObservedGeneration is the metadata.generation the status was computed from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready, Progressing, Degraded, ReconcileError.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Phase of the whole cluster: running, failed or reconciling.
	Phase Phase `json:"phase"`

	// Reason explains a failed phase.
	// +optional
	Reason string `json:"reason,omitempty"`

	// StarRocksFeStatus is the status of the frontends.
	// +optional
	StarRocksFeStatus *StarRocksComponentStatus `json:"starRocksFeStatus,omitempty"`

	// StarRocksBeStatus is the status of the backends.
	// +optional
	StarRocksBeStatus *StarRocksComponentStatus `json:"starRocksBeStatus,omitempty"`

	// StarRocksCnStatus is the status of the compute nodes.
	// +optional
	StarRocksCnStatus *StarRocksCnStatus `json:"starRocksCnStatus,omitempty"`

	// StarRocksFeProxyStatus is the status of the FE proxy.
	// +optional
	StarRocksFeProxyStatus *StarRocksComponentStatus `json:"starRocksFeProxyStatus,omitempty"`

	// DisasterRecoveryStatus is the state of the last disaster recovery.
	// +optional
	DisasterRecoveryStatus *DisasterRecoveryStatus `json:"disasterRecoveryStatus,omitempty"`

	// ClusterSnapshot is FE's automated cluster snapshot, while
	// spec.clusterSnapshot is set (written by the backup controllers).
	// +optional
	ClusterSnapshot *ClusterSnapshotStatus `json:"clusterSnapshot,omitempty"`

	// HighestVersion is the highest StarRocks release FE has reported for
	// any node of the cluster ("4.1.2"); a downgrade does not lower it.
	// StarRocks' downgrade floors speak of what a cluster has run ("After
	// upgrading StarRocks to v4.1, DO NOT downgrade to any v4.0 version
	// below v4.0.6"): the upgrade-path check holds them from this version
	// as from the running one, also while FE does not answer.
	// +optional
	HighestVersion string `json:"highestVersion,omitempty"`

	// Summary is the cluster at a glance, as `kubectl starrocks status`
	// shows it: the operator writes it with the rest of the status, from
	// it, and `kubectl get src -o wide` shows it in columns. The plugin
	// reads these columns as a server-side table, not the objects.
	// +optional
	Summary *StarRocksClusterSummary `json:"summary,omitempty"`
}

// StarRocksClusterSummary is a cluster's line in `kubectl starrocks
// status`, as the operator computed it from the status it wrote. What
// changes without the operator (the pause annotation, a new generation,
// the backups) is read beside it; times are absolute, made relative when
// shown.
type StarRocksClusterSummary struct {
	// State is how much the cluster needs a person: attention,
	// progressing or healthy.
	State string `json:"state"`

	// FE, BE and CN are each component's ready pods against the pods
	// asked for ("2/3"); empty for a component the cluster does not have.
	// +optional
	FE string `json:"fe,omitempty"`
	// +optional
	BE string `json:"be,omitempty"`
	// +optional
	CN string `json:"cn,omitempty"`

	// Version is what FE reports the nodes run, and "→ <tag>" while the
	// spec's images name another version ("3.3.2 → 3.4.1").
	// +optional
	Version string `json:"version,omitempty"`

	// Healthy is StarRocksHealthy in words: "yes", "no: <reason>", or "?"
	// before FE first answered.
	// +optional
	Healthy string `json:"healthy,omitempty"`

	// Doing is what is in progress or wrong, in words ("BE rollout 2/5,
	// waiting for 14 unhealthy tablets"); empty when nothing is. A time in
	// it is absolute ("since 2026-12-06T10:00:00Z").
	// +optional
	Doing string `json:"doing,omitempty"`

	// Reason is the condition reason Doing comes from.
	// +optional
	Reason string `json:"reason,omitempty"`

	// Since is when the condition Doing comes from last changed.
	// +optional
	Since *metav1.Time `json:"since,omitempty"`
}

// StarRocksComponentStatus is the observed state of one component.
// Instance lists hold pod names, sorted so that equal states compare equal.
type StarRocksComponentStatus struct {
	// ServiceName is the component's client-facing Service.
	// +optional
	ServiceName string `json:"serviceName,omitempty"`

	// FailedInstances are pods that failed.
	// +optional
	FailedInstances []string `json:"failedInstances,omitempty"`

	// CreatingInstances are pods not yet ready.
	// +optional
	CreatingInstances []string `json:"creatingInstances,omitempty"`

	// RunningInstances are ready pods.
	// +optional
	RunningInstances []string `json:"runningInstances,omitempty"`

	// ResourceNames are the StatefulSets (or Deployment) of the component.
	// +optional
	ResourceNames []string `json:"resourceNames,omitempty"`

	// Phase of the component: running, failed or reconciling.
	Phase Phase `json:"phase"`

	// Reason explains a failed phase.
	// +optional
	Reason string `json:"reason,omitempty"`

	// Nodes is what FE says of the component's nodes (FE, BE, CN), at the
	// operator's last read.
	// +optional
	Nodes *StarRocksNodesStatus `json:"nodes,omitempty"`
}

// StarRocksCnStatus is the observed state of the compute nodes.
type StarRocksCnStatus struct {
	StarRocksComponentStatus `json:",inline"`

	// HorizontalScaler is the HorizontalPodAutoscaler of the compute nodes, if any.
	// +optional
	HorizontalScaler HorizontalScaler `json:"horizontalScaler,omitzero"`

	// HpaName is deprecated upstream in favour of horizontalScaler.name; kept for compatibility.
	// +optional
	HpaName string `json:"hpaName,omitempty"`

	// Replicas is the number of CN pods, for the scale subresource.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// Selector is the label selector of the CN pods, for the scale subresource.
	// +optional
	Selector string `json:"selector,omitempty"`
}

// HorizontalScaler names a HorizontalPodAutoscaler and its API version.
type HorizontalScaler struct {
	// Name of the HorizontalPodAutoscaler.
	// +optional
	Name string `json:"name,omitempty"`

	// Version of the autoscaling API it was created with.
	// +optional
	Version AutoScalerVersion `json:"version,omitempty"`
}

// DisasterRecoveryStatus is the state of a disaster recovery run.
type DisasterRecoveryStatus struct {
	// Phase: todo, doing or done.
	// +optional
	Phase DisasterRecoveryPhase `json:"phase,omitempty"`

	// Reason explains the phase.
	// +optional
	Reason string `json:"reason,omitempty"`

	// ObservedGeneration is the spec.disasterRecovery.generation this run belongs to.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// StartTimestamp is when the run started, in Unix seconds.
	// +optional
	StartTimestamp int64 `json:"startTimestamp,omitempty"`

	// EndTimestamp is when the run ended, in Unix seconds.
	// +optional
	EndTimestamp int64 `json:"endTimestamp,omitempty"`
}
