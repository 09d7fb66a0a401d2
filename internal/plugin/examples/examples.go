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

// Package examples holds StarRocks clusters in every state the operator
// reports, with the status the operator writes in that state (its
// condition types, reasons and message forms: internal/status,
// internal/starrocks, internal/reconcile), for the plugin's tests and its
// benchmark. Only tests and tools import it.
package examples

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/version"
)

// Now is the moment the examples' times are relative to.
var Now = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

// Example is a cluster in one state: its object (spec, annotations) and the
// status the operator writes then. Times are relative to the now given.
type Example struct {
	// State names the state, as the issue lists them.
	State   string
	Cluster *srv1.StarRocksCluster
}

func ago(now time.Time, d time.Duration) metav1.Time {
	return metav1.NewTime(now.Add(-d).Truncate(time.Second))
}

// base is a cluster of 3 FE and 3 BE at 3.3.2, created a day before now,
// running and healthy, in namespace ns.
func base(ns, name string, now time.Time) *srv1.StarRocksCluster {
	src := &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1, CreationTimestamp: ago(now, 24*time.Hour)},
		Spec: srv1.StarRocksClusterSpec{
			StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{
				Image: "starrocks/fe-ubuntu:3.3.2", Replicas: ptr.To[int32](3)}}},
			StarRocksBeSpec: &srv1.StarRocksBeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{
				Image: "starrocks/be-ubuntu:3.3.2", Replicas: ptr.To[int32](3)}}},
		},
	}
	src.Status = srv1.StarRocksClusterStatus{
		ObservedGeneration: 1,
		Phase:              srv1.PhaseRunning,
		StarRocksFeStatus:  component(name, "fe", 3, 0, srv1.PhaseRunning, "", &srv1.StarRocksNodesStatus{Alive: 3, Total: 3, Leader: name + "-fe-0", Versions: []string{"3.3.2"}}),
		StarRocksBeStatus:  component(name, "be", 3, 0, srv1.PhaseRunning, "", &srv1.StarRocksNodesStatus{Alive: 3, Total: 3, UnhealthyTablets: ptr.To[int32](0), Versions: []string{"3.3.2"}}),
		Conditions: []metav1.Condition{
			cond(srv1.ConditionDegraded, metav1.ConditionFalse, srv1.ReasonAllPodsHealthy, "", ago(now, 23*time.Hour)),
			cond(srv1.ConditionProgressing, metav1.ConditionFalse, srv1.ReasonStable, "", ago(now, 23*time.Hour)),
			cond(srv1.ConditionReady, metav1.ConditionTrue, srv1.ReasonAllComponentsRunning, "", ago(now, 23*time.Hour)),
			cond(srv1.ConditionReconcileError, metav1.ConditionFalse, srv1.ReasonReconciled, "", ago(now, 24*time.Hour)),
			cond(srv1.ConditionStarRocksHealthy, metav1.ConditionTrue, srv1.ReasonStarRocksHealthy, "", ago(now, 23*time.Hour)),
		},
	}
	return src
}

func component(cluster, c string, running, creating int, phase srv1.Phase, reason string, nodes *srv1.StarRocksNodesStatus) *srv1.StarRocksComponentStatus {
	cs := &srv1.StarRocksComponentStatus{
		ServiceName: fmt.Sprintf("%s-%s-service", cluster, c), ResourceNames: []string{cluster + "-" + c},
		Phase: phase, Reason: reason, Nodes: nodes,
	}
	for i := range running + creating {
		pod := fmt.Sprintf("%s-%s-%d", cluster, c, i)
		if i < running {
			cs.RunningInstances = append(cs.RunningInstances, pod)
		} else {
			cs.CreatingInstances = append(cs.CreatingInstances, pod)
		}
	}
	return cs
}

func cond(t string, s metav1.ConditionStatus, reason, msg string, at metav1.Time) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: at, ObservedGeneration: 1}
}

func set(src *srv1.StarRocksCluster, c metav1.Condition) {
	c.ObservedGeneration = src.Status.ObservedGeneration
	for i := range src.Status.Conditions {
		if src.Status.Conditions[i].Type == c.Type {
			src.Status.Conditions[i] = c
			return
		}
	}
	src.Status.Conditions = append(src.Status.Conditions, c)
}

// All are the examples in ns, one per state, named after it.
func All(ns string, now time.Time) []Example {
	return []Example{
		{"healthy", Healthy(ns, "healthy", now)},
		{"rolling out", RollingOut(ns, "rolling-out", now)},
		{"scaling in", ScalingIn(ns, "scaling-in", now)},
		{"paused for an upgrade", PausedForUpgrade(ns, "upgrade-paused", now)},
		{"refused", Refused(ns, "refused", now)},
		{"FE unreachable", FEUnreachable(ns, "fe-unreachable", now)},
		{"recovering", Recovering(ns, "recovering", now)},
		{"BE down", BEDown(ns, "be-down", now)},
		{"paused by a person", PausedByUser(ns, "paused", now)},
	}
}

// Healthy runs 3 FE and 3 BE at 3.3.2, StarRocks healthy.
func Healthy(ns, name string, now time.Time) *srv1.StarRocksCluster { return base(ns, name, now) }

// RollingOut is a BE image change 3.3.2 → 3.3.3 whose gated rollout
// replaced 2 of 3 pods and waits for FE's unhealthy tablets
// (internal/starrocks/gate.go's message, behind reconcile.Holds' "BE: ").
func RollingOut(ns, name string, now time.Time) *srv1.StarRocksCluster {
	src := base(ns, name, now)
	src.Generation, src.Status.ObservedGeneration = 2, 2
	src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:3.3.3"
	src.Status.Phase = srv1.PhaseReconciling
	src.Status.StarRocksBeStatus = component(name, "be", 3, 0, srv1.PhaseReconciling, "", &srv1.StarRocksNodesStatus{
		Alive: 3, Total: 3, UnhealthyTablets: ptr.To[int32](14), Versions: []string{"3.3.2", "3.3.3"}})
	set(src, cond(srv1.ConditionProgressing, metav1.ConditionTrue, srv1.ReasonRollingOut,
		fmt.Sprintf("BE: 2 of 3 pods replaced; pod 3 (%s-be-0) waits for FE to report every tablet healthy", name), ago(now, 4*time.Minute)))
	set(src, cond(srv1.ConditionReady, metav1.ConditionFalse, srv1.ReasonComponentsNotReady, "BE: rolling out", ago(now, 4*time.Minute)))
	set(src, cond(srv1.ConditionStarRocksHealthy, metav1.ConditionFalse, srv1.ReasonTabletsUnhealthy,
		"FE counts 14 unhealthy tablets (UnhealthyTabletNum of SHOW PROC '/statistic')", ago(now, 50*time.Second)))
	return src
}

// ScalingIn is BE 6 → 4, FE draining the two removed BEs
// (internal/starrocks/backends.go's Decommissioning message).
func ScalingIn(ns, name string, now time.Time) *srv1.StarRocksCluster {
	src := base(ns, name, now)
	src.Generation, src.Status.ObservedGeneration = 3, 3
	src.Spec.StarRocksBeSpec.Replicas = ptr.To[int32](4)
	src.Status.Phase = srv1.PhaseReconciling
	src.Status.StarRocksBeStatus = component(name, "be", 6, 0, srv1.PhaseRunning, "", &srv1.StarRocksNodesStatus{
		Alive: 6, Total: 6, UnhealthyTablets: ptr.To[int32](0), Versions: []string{"3.3.2"}})
	set(src, cond(srv1.ConditionProgressing, metav1.ConditionTrue, srv1.ReasonDecommissioning,
		fmt.Sprintf("BE: FE decommissions %[1]s-be-4, %[1]s-be-5: 1203 tablets left (%[1]s-be-4 (611 tablets), %[1]s-be-5 (592 tablets))", name), ago(now, 7*time.Minute)))
	return src
}

// PausedForUpgrade is an upgrade 3.3.2 → 3.4.1 whose compatibility pause
// stands: FE's clone and balance configuration recorded on the cluster
// (CompatibilityPauseAnnotation), BE rolling first, FE waiting.
func PausedForUpgrade(ns, name string, now time.Time) *srv1.StarRocksCluster {
	src := base(ns, name, now)
	src.Generation, src.Status.ObservedGeneration = 2, 2
	src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:3.4.1"
	src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:3.4.1"
	src.Annotations = map[string]string{srv1.CompatibilityPauseAnnotation: `{"values":{"disable_balance":"false","disable_colocate_balance":"false","tablet_sched_max_scheduling_tablets":"10000","tablet_sched_max_balancing_tablets":"500"}}`}
	src.Status.Phase = srv1.PhaseReconciling
	src.Status.StarRocksFeStatus.Phase, src.Status.StarRocksFeStatus.Reason = srv1.PhaseReconciling, "waiting for BE and CN to run starrocks/be-ubuntu:3.4.1 (an upgrade rolls BE and CN before FE)"
	set(src, cond(srv1.ConditionProgressing, metav1.ConditionTrue, srv1.ReasonOrderedRollout,
		"upgrading to 3.4.1: BE and CN roll first, FE waits; tablet clone and balancing paused for the version change; restored to disable_balance=false, disable_colocate_balance=false, tablet_sched_max_balancing_tablets=500, tablet_sched_max_scheduling_tablets=10000 once every component runs its image and every BE is Alive",
		ago(now, 10*time.Minute)))
	return src
}

// Refused is a downgrade 3.3.2 → 3.2.1 that StarRocks' pages refuse: the
// StatefulSets keep their template (UpgradePathRefused).
func Refused(ns, name string, now time.Time) *srv1.StarRocksCluster {
	src := base(ns, name, now)
	src.Generation = 2
	src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:3.2.1"
	src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:3.2.1"
	src.Status.ObservedGeneration = 2
	// The pre-flight's own message for this path (internal/starrocks).
	check := starrocks.ImageCheck{Name: "FE", From: "starrocks/fe-ubuntu:3.3.2", To: src.Spec.StarRocksFeSpec.Image,
		Verdict: starrocks.UpgradePath(version.Reported("3.3.2-227b0b3"), version.OfImage(src.Spec.StarRocksFeSpec.Image))}
	set(src, cond(srv1.ConditionReconcileError, metav1.ConditionTrue, srv1.ReasonUpgradePathRefused, check.Message(), ago(now, 2*time.Minute)))
	set(src, cond(srv1.ConditionReady, metav1.ConditionFalse, srv1.ReasonReconcileFailed, "see ReconcileError", ago(now, 2*time.Minute)))
	return src
}

// FEUnreachable is a cluster whose FE stopped answering the operator 5
// minutes ago (StarRocksHealthy False, FEUnreachable), its pods Ready.
func FEUnreachable(ns, name string, now time.Time) *srv1.StarRocksCluster {
	src := base(ns, name, now)
	set(src, cond(srv1.ConditionStarRocksHealthy, metav1.ConditionFalse, srv1.ReasonFEUnreachable,
		"FE does not answer: dial tcp 10.96.4.7:9030: i/o timeout", ago(now, 5*time.Minute)))
	return src
}

// Recovering is a shared-data cluster restoring a cluster snapshot: FE
// alone, BE and CN held (DisasterRecovery).
func Recovering(ns, name string, now time.Time) *srv1.StarRocksCluster {
	src := base(ns, name, now)
	src.Generation, src.Status.ObservedGeneration = 2, 2
	src.Spec.StarRocksBeSpec = nil
	src.Spec.StarRocksCnSpec = &srv1.StarRocksCnSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{
		Image: "starrocks/cn-ubuntu:3.3.2", Replicas: ptr.To[int32](2)}}}
	src.Spec.DisasterRecovery = &srv1.DisasterRecovery{Enabled: true, Generation: 1}
	src.Status.Phase = srv1.PhaseReconciling
	src.Status.StarRocksBeStatus = nil
	src.Status.StarRocksFeStatus = component(name, "fe", 1, 2, srv1.PhaseReconciling, "", nil)
	src.Status.StarRocksCnStatus = &srv1.StarRocksCnStatus{StarRocksComponentStatus: *component(name, "cn", 0, 0, srv1.PhaseReconciling, "held while disaster recovery runs", nil)}
	src.Status.DisasterRecoveryStatus = &srv1.DisasterRecoveryStatus{Phase: srv1.DisasterRecoveryDoing, ObservedGeneration: 1,
		StartTimestamp: now.Add(-3 * time.Minute).Unix(), Reason: "FE is restoring the cluster snapshot; BE and CN are held"}
	set(src, cond(srv1.ConditionProgressing, metav1.ConditionTrue, srv1.ReasonComponentsNotReady, "FE: 1 of 3 pods ready; CN: held while disaster recovery runs", ago(now, 3*time.Minute)))
	set(src, cond(srv1.ConditionReady, metav1.ConditionFalse, srv1.ReasonComponentsNotReady, "FE: 1 of 3 pods ready", ago(now, 3*time.Minute)))
	set(src, cond(srv1.ConditionStarRocksHealthy, metav1.ConditionFalse, srv1.ReasonNotRegistered, "FE does not list these pods at all: "+name+"-fe-1, "+name+"-fe-2", ago(now, 3*time.Minute)))
	return src
}

// PausedByUser is a healthy cluster a person paused (kubectl starrocks pause).
func PausedByUser(ns, name string, now time.Time) *srv1.StarRocksCluster {
	src := base(ns, name, now)
	src.Annotations = map[string]string{srv1.IgnoredAnnotation: "true"}
	return src
}

// BEDown is a cluster whose BE pod 1 stopped: its pod is not Ready
// (Progressing ComponentsNotReady, the component's "2 of 3 pods ready"
// of internal/status) and FE lists it not Alive (StarRocksHealthy
// NodesNotAlive, internal/starrocks/health.go's message). No rollout
// replaces it: nothing but a person brings it back.
func BEDown(ns, name string, now time.Time) *srv1.StarRocksCluster {
	src := base(ns, name, now)
	src.Status.Phase = srv1.PhaseReconciling
	be := component(name, "be", 3, 0, srv1.PhaseReconciling, "2 of 3 pods ready, 3 updated", &srv1.StarRocksNodesStatus{
		Alive: 2, Total: 3, UnhealthyTablets: ptr.To[int32](0), Versions: []string{"3.3.2"}})
	be.RunningInstances, be.CreatingInstances = []string{name + "-be-0", name + "-be-2"}, []string{name + "-be-1"}
	src.Status.StarRocksBeStatus = be
	set(src, cond(srv1.ConditionProgressing, metav1.ConditionTrue, srv1.ReasonComponentsNotReady, "BE: 2 of 3 pods ready, 3 updated", ago(now, 2*time.Minute)))
	set(src, cond(srv1.ConditionReady, metav1.ConditionFalse, srv1.ReasonComponentsNotReady, "BE: 2 of 3 pods ready, 3 updated", ago(now, 2*time.Minute)))
	set(src, cond(srv1.ConditionStarRocksHealthy, metav1.ConditionFalse, srv1.ReasonNodesNotAlive,
		"FE lists these nodes not Alive: "+name+"-be-1", ago(now, 90*time.Second)))
	return src
}

// BEReplaced is BEDown's pod taken down by a gated rollout that replaces
// it (internal/starrocks/gate.go's "replacing pod N of M (pod)"): the
// rollout brings it back.
func BEReplaced(ns, name string, now time.Time) *srv1.StarRocksCluster {
	src := BEDown(ns, name, now)
	src.Generation, src.Status.ObservedGeneration = 2, 2
	src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:3.3.3"
	for i := range src.Status.Conditions {
		src.Status.Conditions[i].ObservedGeneration = 2
	}
	set(src, cond(srv1.ConditionProgressing, metav1.ConditionTrue, srv1.ReasonRollingOut,
		fmt.Sprintf("BE: replacing pod 2 of 3 (%s-be-1)", name), ago(now, time.Minute)))
	return src
}

// Backup is a backup of database db of cluster that ended in phase
// (Succeeded or Failed) ended ago before now, with the status the
// operator's backup controller writes then (internal/controller/backup:
// completedAt, FE's state, the Ready condition's reason).
func Backup(ns, cluster, name, db string, phase srv1.BackupPhase, ended time.Duration, now time.Time) *srv1.StarRocksBackup {
	b := &srv1.StarRocksBackup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1, CreationTimestamp: ago(now, ended+10*time.Minute)},
		Spec:       srv1.StarRocksBackupSpec{StarRocksCluster: cluster, Repository: "s3", Database: db},
	}
	sent := ago(now, ended+9*time.Minute)
	b.Status = srv1.StarRocksBackupStatus{ObservedGeneration: 1, Phase: phase, Label: name + "_" + db,
		SubmittedAt: &sent, CompletedAt: ptr.To(ago(now, ended))}
	switch phase {
	case srv1.BackupSucceeded:
		b.Status.FEState, b.Status.FEStatus, b.Status.Timestamp = "FINISHED", "[OK]", now.Add(-ended-8*time.Minute).UTC().Format("2006-01-02-15-04-05.000")
		b.Status.Conditions = []metav1.Condition{cond(srv1.ConditionReady, metav1.ConditionTrue, srv1.ReasonBackupComplete, "FE finished BACKUP "+b.Status.Label+" and the repository has it", ago(now, ended))}
	default:
		b.Status.FEState, b.Status.FEStatus = "CANCELLED", "[TIMEOUT, msg: upload timed out]"
		b.Status.Conditions = []metav1.Condition{cond(srv1.ConditionReady, metav1.ConditionFalse, srv1.ReasonJobTimeout,
			"FE cancelled BACKUP "+b.Status.Label+": [TIMEOUT, msg: upload timed out]", ago(now, ended))}
	}
	return b
}

// BackupSchedule is a daily schedule of cluster's database db that last
// ran 10 hours before now.
func BackupSchedule(ns, cluster, name, db string, now time.Time) *srv1.StarRocksBackupSchedule {
	// Whole seconds, as the API keeps them: the next run rounded up, so
	// that it reads "in 14h", not "in 13h", a moment later.
	last := now.Add(-10 * time.Hour).Truncate(time.Second)
	next := now.Add(14 * time.Hour).Truncate(time.Second).Add(time.Second)
	return &srv1.StarRocksBackupSchedule{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1},
		Spec:       srv1.StarRocksBackupScheduleSpec{StarRocksCluster: cluster, Repository: "s3", Databases: []string{db}, Schedule: "@daily"},
		Status: srv1.StarRocksBackupScheduleStatus{ObservedGeneration: 1, LastScheduleTime: &metav1.Time{Time: last}, NextScheduleTime: &metav1.Time{Time: next},
			Conditions: []metav1.Condition{cond(srv1.ConditionReady, metav1.ConditionTrue, srv1.ReasonScheduled, "next run at "+next.Format(time.RFC3339), metav1.NewTime(last))}},
	}
}
