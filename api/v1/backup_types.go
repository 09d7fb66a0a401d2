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

// The backup kinds (docs/backup.md): a repository, a backup of one
// database, a schedule of backups, and a restore. StarRocks' FE does the
// work with its own BACKUP and RESTORE; the operator sends one statement
// per action and keeps the books. Each status follows kstatus: a phase
// that never goes backwards, FE's raw state beside it, conditions with
// reasons (Ready, Reconciling, Stalled), and the times.

// BackupPhase is the coarse state of a backup or a restore. It only moves
// forward: Pending, then Running, then one of Succeeded, Failed or
// Cancelled.
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed;Cancelled
type BackupPhase string

// The phases of a backup and of a restore.
const (
	// BackupPending: not sent to FE yet (waiting for its slot, the
	// cluster, or its inputs).
	BackupPending BackupPhase = "Pending"
	// BackupRunning: the statement was sent; FE runs the job.
	BackupRunning BackupPhase = "Running"
	// BackupSucceeded: FE finished the job (for a backup, the snapshot is
	// in the repository).
	BackupSucceeded BackupPhase = "Succeeded"
	// BackupFailed: FE cancelled the job, or the request cannot be done.
	BackupFailed BackupPhase = "Failed"
	// BackupCancelled: the operator cancelled the job on the object's deletion.
	BackupCancelled BackupPhase = "Cancelled"
)

// Condition types of the backup kinds, as kstatus reads them.
const (
	// ConditionReconciling is True while the operator works toward the
	// spec (a job runs or waits).
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when the operator cannot go on without the
	// user (bad input, a refusal).
	ConditionStalled = "Stalled"
	// ConditionRetentionDataNotDeleted (a schedule) is True when retention
	// pruned the Kubernetes objects only: StarRocks before 4.2 has no
	// statement that deletes a snapshot; the message names the prefix a
	// bucket lifecycle rule should expire.
	ConditionRetentionDataNotDeleted = "RetentionDataNotDeleted"
	// ConditionSuspended (a schedule) is True while spec.suspend is.
	ConditionSuspended = "Suspended"
)

// Condition reasons of the backup kinds.
const (
	// Inputs the user must fix (Stalled=True; one Event, no statement).
	ReasonRepositoryNotFound    = "RepositoryNotFound"
	ReasonRepositoryNotReady    = "RepositoryNotReady"
	ReasonCredentialsMissing    = "CredentialsMissing"
	ReasonRepositoryNameTaken   = "RepositoryNameTaken"
	ReasonInvalidSchedule       = "InvalidSchedule"
	ReasonInvalidTimeZone       = "InvalidTimeZone"
	ReasonDatabaseNotFound      = "DatabaseNotFound"
	ReasonSharedDataUnsupported = "SharedDataUnsupported"
	ReasonTTLUnsupported        = "TTLUnsupported"
	ReasonTargetExists          = "TargetExists"
	ReasonBackupNotSucceeded    = "BackupNotSucceeded"
	ReasonReadOnlyRepository    = "ReadOnlyRepository"
	ReasonVersionUnsupported    = "VersionUnsupported"
	ReasonConfirmationRequired  = "ConfirmationRequired"
	ReasonBackupDisabled        = "BackupDisabled"
	// Waits (Reconciling=True).
	// ReasonSlotBusy: another backup or restore of this operator holds the
	// (cluster, database) slot; the message names it.
	ReasonSlotBusy = "SlotBusy"
	// ReasonHeldByForeignJob: FE runs a job on the database that is not
	// this operator's (a user's own BACKUP); the message names its label.
	ReasonHeldByForeignJob = "HeldByForeignJob"
	// ReasonClusterBusy: the cluster rolls out, scales in or is not
	// healthy; a backup starts once it is.
	ReasonClusterBusy = "ClusterBusy"
	// ReasonWaitingForFE: FE's answer is being read.
	ReasonWaitingForFE = "WaitingForFE"
	// ReasonSubmitted, Preparing, Uploading, Downloading, Committing: FE's
	// job, by its state (docs/backup.md has the table).
	ReasonSubmitted   = "Submitted"
	ReasonPreparing   = "Preparing"
	ReasonUploading   = "Uploading"
	ReasonDownloading = "Downloading"
	ReasonCommitting  = "Committing"
	// Ends.
	ReasonBackupComplete = "Complete"
	ReasonFECancelled    = "FECancelled"
	ReasonJobTimeout     = "Timeout"
	ReasonJobLost        = "JobLost"
	ReasonUserDeleted    = "Deleted"
	// ReasonPastPointOfNoReturn: a restore being deleted in COMMIT or
	// later is not cancelled: the object waits for FE to finish.
	ReasonPastPointOfNoReturn = "PastPointOfNoReturn"
	// A repository's.
	ReasonRepositoryCreated     = "Created"
	ReasonRepositoryUnreachable = "Unreachable"
	ReasonRotationPending       = "RotationPending"
	// A schedule's.
	ReasonScheduled = "Scheduled"
)

// StarRocksBackupRepositorySpec is a place backups go: a repository of
// StarRocks (CREATE REPOSITORY), with its store's properties.
// +kubebuilder:validation:XValidation:rule="self.starRocksCluster == oldSelf.starRocksCluster && self.location == oldSelf.location && (has(self.name) == has(oldSelf.name)) && (!has(self.name) || self.name == oldSelf.name)",message="starRocksCluster, name and location cannot change: they name another repository; create a new object"
type StarRocksBackupRepositorySpec struct {
	// StarRocksCluster is the cluster, in this namespace, the repository is created in.
	// +kubebuilder:validation:MinLength=1
	StarRocksCluster string `json:"starRocksCluster"`

	// Name is the repository's name in StarRocks; default: metadata.name
	// with '-' turned into '_'.
	// +kubebuilder:validation:Pattern=`^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`
	// +optional
	Name string `json:"name,omitempty"`

	// Location is passed to StarRocks as is: s3a://bucket/path for AWS S3
	// and GCS, s3://bucket/path for MinIO, hdfs://host:port/path.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-zA-Z][a-zA-Z0-9+.-]*://.+')",message="location must be a URI such as s3a://bucket/path"
	Location string `json:"location"`

	// ReadOnly creates a READ ONLY REPOSITORY: restores only, as a second
	// cluster that restores another's backups should.
	// +optional
	ReadOnly bool `json:"readOnly,omitempty"`

	// S3 holds the S3 (or S3-compatible) properties and credentials.
	// +optional
	S3 *S3Repository `json:"s3,omitempty"`

	// Properties are further properties of the store, passed as they are.
	// Credentials do not go here but in propertiesFrom's Secret.
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.lowerAscii().contains('secret') && !k.lowerAscii().contains('password') && !k.lowerAscii().contains('access_key') && !k.lowerAscii().contains('access.key'))",message="credentials go in the Secret of propertiesFrom, not in properties"
	// +optional
	Properties map[string]string `json:"properties,omitempty"`

	// PropertiesFrom names a Secret in this namespace whose every key is a
	// property of the store: credentials of GCS, HDFS, OSS or COS
	// (docs/backup.md lists the keys).
	// +optional
	PropertiesFrom *corev1.LocalObjectReference `json:"propertiesFrom,omitempty"`
}

// S3Repository are the S3 properties of a repository (aws.s3.*).
// +kubebuilder:validation:XValidation:rule="has(self.credentials.secretRef) != ((has(self.credentials.instanceProfile) && self.credentials.instanceProfile) || has(self.credentials.iamRoleARN))",message="s3.credentials takes a secretRef, or instanceProfile: true (with an optional iamRoleARN), not both"
type S3Repository struct {
	// Region is aws.s3.region.
	// +optional
	Region string `json:"region,omitempty"`
	// Endpoint is aws.s3.endpoint (MinIO: http://minio:9000).
	// +optional
	Endpoint string `json:"endpoint,omitempty"`
	// Credentials: a Secret's keys, or the node's instance profile, or an
	// assumed role.
	Credentials S3Credentials `json:"credentials"`
}

// S3Credentials are where the S3 keys come from.
type S3Credentials struct {
	// SecretRef names a Secret in this namespace holding the access and secret keys.
	// +optional
	SecretRef *S3SecretRef `json:"secretRef,omitempty"`
	// InstanceProfile uses the nodes' instance profile (aws.s3.use_instance_profile).
	// +optional
	InstanceProfile bool `json:"instanceProfile,omitempty"`
	// IAMRoleARN assumes this role with the instance profile
	// (aws.s3.iam_role_arn; the instance profile is then used whether
	// instanceProfile is set or not).
	// +optional
	IAMRoleARN string `json:"iamRoleARN,omitempty"`
}

// S3SecretRef names the Secret and its keys.
type S3SecretRef struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// AccessKeyKey is the key of the access key; default access_key.
	// +optional
	AccessKeyKey string `json:"accessKeyKey,omitempty"`
	// SecretKeyKey is the key of the secret key; default secret_key.
	// +optional
	SecretKeyKey string `json:"secretKeyKey,omitempty"`
}

// StarRocksBackupRepositoryStatus is what the operator made of the repository.
type StarRocksBackupRepositoryStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready, Stalled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// RepositoryName is the name in StarRocks.
	// +optional
	RepositoryName string `json:"repositoryName,omitempty"`
	// CredentialsHash is a hash of the credentials FE was given (never
	// the credentials): a change makes the operator DROP and CREATE the
	// repository, StarRocks having no ALTER REPOSITORY.
	// +optional
	CredentialsHash string `json:"credentialsHash,omitempty"`
	// ErrMsg is SHOW REPOSITORIES' ErrMsg at the last read: the store's
	// last ping error; empty when reachable.
	// +optional
	ErrMsg string `json:"errMsg,omitempty"`
	// LifecycleRulePrefix is the prefix under which a bucket lifecycle
	// rule may expire snapshots (never the repository's __repo_info).
	// +optional
	LifecycleRulePrefix string `json:"lifecycleRulePrefix,omitempty"`
	// CreatedAt is when the operator created the repository in FE.
	// +optional
	CreatedAt *metav1.Time `json:"createdAt,omitempty"`
}

// StarRocksBackupRepository is a repository of a StarRocks cluster.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=srbr
// +kubebuilder:printcolumn:name="cluster",type=string,JSONPath=`.spec.starRocksCluster`
// +kubebuilder:printcolumn:name="location",type=string,JSONPath=`.spec.location`
// +kubebuilder:printcolumn:name="ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
type StarRocksBackupRepository struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec StarRocksBackupRepositorySpec `json:"spec"`
	// +optional
	Status StarRocksBackupRepositoryStatus `json:"status,omitempty"`
}

// StarRocksBackupRepositoryList is a list of StarRocksBackupRepository.
// +kubebuilder:object:root=true
type StarRocksBackupRepositoryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StarRocksBackupRepository `json:"items"`
}

// BackupTable is one table of a backup, optionally some of its partitions.
type BackupTable struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +optional
	Partitions []string `json:"partitions,omitempty"`
}

// BackupTemplate is what a backup asks of FE beside its database.
type BackupTemplate struct {
	// Tables are backed up instead of the whole database.
	// +optional
	Tables []BackupTable `json:"tables,omitempty"`

	// Timeout of FE's job (its "timeout" property); FE's default is 1 day,
	// its minimum 10 minutes.
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('10m')",message="timeout must be at least 10m: StarRocks' minimum"
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// TTL is StarRocks 4.2's "ttl" property ("7 DAY", "12 HOUR"): FE
	// deletes the snapshot itself once it expired, whatever retention
	// says. Refused below 4.2.
	// +kubebuilder:validation:Pattern=`^[1-9][0-9]* (SECOND|MINUTE|HOUR|DAY|WEEK|MONTH|YEAR)$`
	// +optional
	TTL string `json:"ttl,omitempty"`
}

// StarRocksBackupSpec asks for one backup of one database of one cluster.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a backup's spec cannot change: create another backup"
type StarRocksBackupSpec struct {
	// +kubebuilder:validation:MinLength=1
	StarRocksCluster string `json:"starRocksCluster"`
	// Repository is a StarRocksBackupRepository in this namespace.
	// +kubebuilder:validation:MinLength=1
	Repository string `json:"repository"`
	// Database is the database backed up: one FE job is one database.
	// +kubebuilder:validation:MinLength=1
	Database string `json:"database"`

	BackupTemplate `json:",inline"`

	// Label is the snapshot's label in the repository; default derived
	// from the object's name, the database and its creation time. A
	// schedule sets it from the schedule, the database and the scheduled
	// time, so that a restarted operator finds each job again.
	// +kubebuilder:validation:Pattern=`^[a-zA-Z][a-zA-Z0-9_]{0,63}$`
	// +optional
	Label string `json:"label,omitempty"`
}

// StarRocksBackupStatus is the backup's state.
type StarRocksBackupStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Phase only moves forward.
	// +optional
	Phase BackupPhase `json:"phase,omitempty"`
	// Conditions: Ready, Reconciling, Stalled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Label is the snapshot's label, fixed before the statement is sent.
	// +optional
	Label string `json:"label,omitempty"`
	// Timestamp is the snapshot's timestamp in the repository: a restore
	// names it (backup_timestamp).
	// +optional
	Timestamp string `json:"timestamp,omitempty"`
	// FEState is FE's job state (SHOW BACKUP's State) when the status last changed.
	// +optional
	FEState string `json:"feState,omitempty"`
	// FEStatus is FE's Status column then: [OK], [TIMEOUT, msg: ], ...
	// +optional
	FEStatus string `json:"feStatus,omitempty"`
	// JobID is FE's JobId then: informational, it changes on an FE leader change.
	// +optional
	JobID string `json:"jobID,omitempty"`
	// HeldBy names what holds the database's slot while the backup waits.
	// +optional
	HeldBy string `json:"heldBy,omitempty"`
	// SubmittedAt is when the statement was sent.
	// +optional
	SubmittedAt *metav1.Time `json:"submittedAt,omitempty"`
	// CompletedAt is when the backup ended.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
}

// StarRocksBackup is one backup of one database.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=srb
// +kubebuilder:printcolumn:name="cluster",type=string,JSONPath=`.spec.starRocksCluster`
// +kubebuilder:printcolumn:name="database",type=string,JSONPath=`.spec.database`
// +kubebuilder:printcolumn:name="phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="fe",type=string,JSONPath=`.status.feState`
// +kubebuilder:printcolumn:name="label",type=string,JSONPath=`.status.label`,priority=1
// +kubebuilder:printcolumn:name="age",type=date,JSONPath=`.metadata.creationTimestamp`
type StarRocksBackup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec StarRocksBackupSpec `json:"spec"`
	// +optional
	Status StarRocksBackupStatus `json:"status,omitempty"`
}

// StarRocksBackupList is a list of StarRocksBackup.
// +kubebuilder:object:root=true
type StarRocksBackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StarRocksBackup `json:"items"`
}

// BackupRetention says which backups a schedule keeps, per database.
// A backup is deleted only when every limit set allows it, and the newest
// backup that succeeded is never deleted.
type BackupRetention struct {
	// KeepLast is how many backups that succeeded are kept.
	// +kubebuilder:validation:Minimum=1
	// +optional
	KeepLast *int32 `json:"keepLast,omitempty"`
	// MaxAge is how long a backup that succeeded is kept.
	// +optional
	MaxAge *metav1.Duration `json:"maxAge,omitempty"`
	// KeepFailed is how many failed backups are kept for inspection; default 3.
	// +kubebuilder:validation:Minimum=0
	// +optional
	KeepFailed *int32 `json:"keepFailed,omitempty"`
	// DeleteData deletes a pruned backup's snapshot with DROP SNAPSHOT (StarRocks 4.2+).
	// Below 4.2 only the objects are pruned, and the schedule says which
	// prefix a bucket lifecycle rule should expire.
	// +optional
	DeleteData bool `json:"deleteData,omitempty"`
}

// StarRocksBackupScheduleSpec takes backups on a cron schedule.
// +kubebuilder:validation:XValidation:rule="(has(self.databases) && size(self.databases) > 0) != (has(self.allDatabases) && self.allDatabases)",message="give databases or allDatabases: true, not both"
type StarRocksBackupScheduleSpec struct {
	// +kubebuilder:validation:MinLength=1
	StarRocksCluster string `json:"starRocksCluster"`
	// +kubebuilder:validation:MinLength=1
	Repository string `json:"repository"`
	// Databases are backed up, one backup each per run.
	// +optional
	Databases []string `json:"databases,omitempty"`
	// AllDatabases backs up every database FE lists at the run, but
	// information_schema, _statistics_ and sys.
	// +optional
	AllDatabases bool `json:"allDatabases,omitempty"`
	// Schedule is a five-field cron expression, or @daily, @hourly, ...
	// +kubebuilder:validation:MinLength=1
	Schedule string `json:"schedule"`
	// TimeZone is the IANA time zone of the schedule; default UTC.
	// +optional
	TimeZone string `json:"timeZone,omitempty"`
	// Suspend stops new runs; retention goes on.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
	// StartingDeadlineSeconds: a run found later than this after its time
	// is skipped. After an outage at most one missed run starts, the newest.
	// +kubebuilder:validation:Minimum=0
	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`
	// Template is what each backup asks.
	// +optional
	Template BackupTemplate `json:"template,omitempty"`
	// Retention prunes the schedule's backups.
	// +optional
	Retention BackupRetention `json:"retention,omitempty"`
}

// DatabaseBackupStatus is a schedule's state for one database.
type DatabaseBackupStatus struct {
	Database string `json:"database"`
	// LastBackup is the newest backup made for the database.
	// +optional
	LastBackup string `json:"lastBackup,omitempty"`
	// LastSuccessfulTime is when the newest backup that succeeded completed.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`
}

// StarRocksBackupScheduleStatus is the schedule's state.
type StarRocksBackupScheduleStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready, Stalled, Suspended, RetentionDataNotDeleted.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// LastScheduleTime is the scheduled time of the last run started.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
	// NextScheduleTime is the next run's.
	// +optional
	NextScheduleTime *metav1.Time `json:"nextScheduleTime,omitempty"`
	// SkippedRuns counts the runs not started: missed during an outage
	// (all but the newest), or past startingDeadlineSeconds.
	// +optional
	SkippedRuns int64 `json:"skippedRuns,omitempty"`
	// Databases is the state per database, sorted.
	// +listType=map
	// +listMapKey=database
	// +optional
	Databases []DatabaseBackupStatus `json:"databases,omitempty"`
}

// StarRocksBackupSchedule takes backups of a cluster's databases on a schedule.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=srbs
// +kubebuilder:printcolumn:name="cluster",type=string,JSONPath=`.spec.starRocksCluster`
// +kubebuilder:printcolumn:name="schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="last",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="next",type=date,JSONPath=`.status.nextScheduleTime`
type StarRocksBackupSchedule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec StarRocksBackupScheduleSpec `json:"spec"`
	// +optional
	Status StarRocksBackupScheduleStatus `json:"status,omitempty"`
}

// StarRocksBackupScheduleList is a list of StarRocksBackupSchedule.
// +kubebuilder:object:root=true
type StarRocksBackupScheduleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StarRocksBackupSchedule `json:"items"`
}

// RestoreSnapshot names a snapshot in the repository directly.
type RestoreSnapshot struct {
	// +kubebuilder:validation:MinLength=1
	Label string `json:"label"`
	// Timestamp is the snapshot's (SHOW SNAPSHOT's Timestamp).
	// +kubebuilder:validation:MinLength=1
	Timestamp string `json:"timestamp"`
	// Database is the database the snapshot holds.
	// +kubebuilder:validation:MinLength=1
	Database string `json:"database"`
}

// RestoreSource is what is restored: a StarRocksBackup that succeeded, or a snapshot.
// +kubebuilder:validation:XValidation:rule="has(self.backup) != has(self.snapshot)",message="source takes exactly one of backup and snapshot"
type RestoreSource struct {
	// Backup is a StarRocksBackup in this namespace.
	// +optional
	Backup string `json:"backup,omitempty"`
	// +optional
	Snapshot *RestoreSnapshot `json:"snapshot,omitempty"`
}

// RestoreTable is one table restored, optionally renamed.
type RestoreTable struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// As is the name it is restored as.
	// +optional
	As string `json:"as,omitempty"`
	// +optional
	Partitions []string `json:"partitions,omitempty"`
}

// ExistingTablesPolicy says what a restore does with tables that exist.
// +kubebuilder:validation:Enum=Refuse;Overwrite
type ExistingTablesPolicy string

const (
	// ExistingTablesRefuse refuses a restore that would overwrite a table is refused.
	ExistingTablesRefuse ExistingTablesPolicy = "Refuse"
	// ExistingTablesOverwrite overwrites existing tables are overwritten; past FE's
	// COMMIT what was there cannot come back.
	ExistingTablesOverwrite ExistingTablesPolicy = "Overwrite"
)

// StarRocksRestoreSpec asks for one restore into a cluster.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a restore's spec cannot change: create another restore"
type StarRocksRestoreSpec struct {
	// StarRocksCluster is the cluster restored into: this one or another.
	// +kubebuilder:validation:MinLength=1
	StarRocksCluster string `json:"starRocksCluster"`
	// Repository is a StarRocksBackupRepository of that cluster (read-only is fine).
	// +kubebuilder:validation:MinLength=1
	Repository string        `json:"repository"`
	Source     RestoreSource `json:"source"`
	// TargetDatabase is the database restored into; default the source's.
	// +optional
	TargetDatabase string `json:"targetDatabase,omitempty"`
	// +optional
	Tables []RestoreTable `json:"tables,omitempty"`
	// ReplicationNum is replication_num; default FE's (3). A cluster of 1
	// or 2 BEs needs it.
	// +kubebuilder:validation:Minimum=1
	// +optional
	ReplicationNum *int32 `json:"replicationNum,omitempty"`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('10m')",message="timeout must be at least 10m: StarRocks' minimum"
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// ExistingTables: Refuse (default) refuses a restore that would
	// overwrite a table; Overwrite must be asked for.
	// +kubebuilder:default=Refuse
	// +optional
	ExistingTables ExistingTablesPolicy `json:"existingTables,omitempty"`
}

// StarRocksRestoreStatus is the restore's state.
type StarRocksRestoreStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	Phase BackupPhase `json:"phase,omitempty"`
	// Conditions: Ready, Reconciling, Stalled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Label, Timestamp and Database are the snapshot restored.
	// +optional
	Label string `json:"label,omitempty"`
	// +optional
	Timestamp string `json:"timestamp,omitempty"`
	// +optional
	Database string `json:"database,omitempty"`
	// TargetDatabase is the database restored into.
	// +optional
	TargetDatabase string `json:"targetDatabase,omitempty"`
	// FEState, FEStatus and JobID are SHOW RESTORE's when the status last changed.
	// +optional
	FEState string `json:"feState,omitempty"`
	// +optional
	FEStatus string `json:"feStatus,omitempty"`
	// +optional
	JobID string `json:"jobID,omitempty"`
	// PastPointOfNoReturn is true once FE reached COMMIT: what the restore
	// overwrites cannot come back, and the operator never cancels it.
	// +optional
	PastPointOfNoReturn bool `json:"pastPointOfNoReturn,omitempty"`
	// +optional
	HeldBy string `json:"heldBy,omitempty"`
	// +optional
	SubmittedAt *metav1.Time `json:"submittedAt,omitempty"`
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
}

// StarRocksRestore restores a snapshot into a cluster.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=srr
// +kubebuilder:printcolumn:name="cluster",type=string,JSONPath=`.spec.starRocksCluster`
// +kubebuilder:printcolumn:name="target",type=string,JSONPath=`.status.targetDatabase`
// +kubebuilder:printcolumn:name="phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="fe",type=string,JSONPath=`.status.feState`
// +kubebuilder:printcolumn:name="committed",type=boolean,JSONPath=`.status.pastPointOfNoReturn`
type StarRocksRestore struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec StarRocksRestoreSpec `json:"spec"`
	// +optional
	Status StarRocksRestoreStatus `json:"status,omitempty"`
}

// StarRocksRestoreList is a list of StarRocksRestore.
// +kubebuilder:object:root=true
type StarRocksRestoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StarRocksRestore `json:"items"`
}

// ClusterSnapshotSpec turns StarRocks' automated cluster snapshot of a
// shared-data cluster (3.4.2+) on or off.
type ClusterSnapshotSpec struct {
	// Enabled: ADMIN SET AUTOMATED CLUSTER SNAPSHOT ON, or OFF. Turning it
	// off deletes the snapshot StarRocks keeps: it needs confirmPurge.
	Enabled bool `json:"enabled"`
	// StorageVolume holds the snapshot; default the default storage volume.
	// +optional
	StorageVolume string `json:"storageVolume,omitempty"`
	// ConfirmPurge confirms that turning the snapshot off deletes it.
	// +optional
	ConfirmPurge bool `json:"confirmPurge,omitempty"`
}

// ClusterSnapshotStatus is FE's automated cluster snapshot.
type ClusterSnapshotStatus struct {
	// Enabled is what the operator last set and FE took.
	Enabled bool `json:"enabled"`
	// StorageVolume is the volume it was turned on in ("" the default).
	// +optional
	StorageVolume string `json:"storageVolume,omitempty"`
	// +optional
	LastSnapshotName string `json:"lastSnapshotName,omitempty"`
	// +optional
	LastSnapshotTime *metav1.Time `json:"lastSnapshotTime,omitempty"`
	// StoragePath is where the snapshot's metadata is: what a disaster
	// recovery's cluster_snapshot_path names.
	// +optional
	StoragePath string `json:"storagePath,omitempty"`
	// LastJobState is the newest snapshot job's (INITIALIZING, SNAPSHOTING,
	// FINISHED, EXPIRED, DELETED, ERROR).
	// +optional
	LastJobState string `json:"lastJobState,omitempty"`
	// +optional
	LastJobError string `json:"lastJobError,omitempty"`
	// Reason says why the setting is not applied, if it is not.
	// +optional
	Reason string `json:"reason,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
}

func init() {
	SchemeBuilder.Register(&StarRocksBackupRepository{}, &StarRocksBackupRepositoryList{},
		&StarRocksBackup{}, &StarRocksBackupList{},
		&StarRocksBackupSchedule{}, &StarRocksBackupScheduleList{},
		&StarRocksRestore{}, &StarRocksRestoreList{})
}
