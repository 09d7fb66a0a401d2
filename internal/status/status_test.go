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

package status

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func sts(replicas, ready, updated int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Generation: 2},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: replicas, ReadyReplicas: ready, UpdatedReplicas: updated,
			CurrentRevision: "r1", UpdateRevision: "r1"},
	}
}

func pod(name string, ready bool, waiting string) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
	if waiting != "" {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: waiting}}}}
	}
	return p
}

func cluster() *srv1.StarRocksCluster {
	return &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Generation: 3}}
}

func fe(s *appsv1.StatefulSet, pods ...corev1.Pod) *Component {
	return &Component{Name: "FE", ServiceName: "c-fe-service", ResourceNames: []string{"c-fe"}, StatefulSet: s, Replicas: 3, Pods: pods}
}

func cond(st srv1.StarRocksClusterStatus, t string) metav1.Condition {
	c := meta.FindStatusCondition(st.Conditions, t)
	if c == nil {
		return metav1.Condition{}
	}
	return *c
}

func TestCompute(t *testing.T) {
	tests := []struct {
		name        string
		obs         Observed
		phase       srv1.Phase
		fePhase     srv1.Phase
		feReason    string
		ready       metav1.ConditionStatus
		readyReason string
		progressing string
		degraded    metav1.ConditionStatus
		reconcile   metav1.ConditionStatus
	}{
		{name: "a StatefulSet not yet in the cache reads like a new one: one status write, not two",
			obs:   Observed{FE: fe(nil)},
			phase: srv1.PhaseReconciling, fePhase: srv1.PhaseReconciling, feReason: "0 of 3 pods ready, 0 updated",
			ready: metav1.ConditionFalse, readyReason: "ComponentsNotReady", progressing: "ComponentsNotReady", degraded: metav1.ConditionFalse, reconcile: metav1.ConditionFalse},
		{name: "a created StatefulSet with no status yet reads the same",
			obs:   Observed{FE: fe(&appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3)}})},
			phase: srv1.PhaseReconciling, fePhase: srv1.PhaseReconciling, feReason: "0 of 3 pods ready, 0 updated",
			ready: metav1.ConditionFalse, readyReason: "ComponentsNotReady", progressing: "ComponentsNotReady", degraded: metav1.ConditionFalse, reconcile: metav1.ConditionFalse},
		{name: "every pod ready and updated is running",
			obs:   Observed{FE: fe(sts(3, 3, 3), pod("c-fe-2", true, ""), pod("c-fe-0", true, ""), pod("c-fe-1", true, ""))},
			phase: srv1.PhaseRunning, fePhase: srv1.PhaseRunning,
			ready: metav1.ConditionTrue, readyReason: "AllComponentsRunning", progressing: "Stable", degraded: metav1.ConditionFalse, reconcile: metav1.ConditionFalse},
		{name: "a crashing pod below the desired count fails the component and degrades the cluster",
			obs:   Observed{FE: fe(sts(3, 2, 3), pod("c-fe-0", true, ""), pod("c-fe-1", true, ""), pod("c-fe-2", false, "CrashLoopBackOff"))},
			phase: srv1.PhaseFailed, fePhase: srv1.PhaseFailed, feReason: "pods failing: c-fe-2",
			ready: metav1.ConditionFalse, readyReason: "ComponentsFailed", progressing: "Stable", degraded: metav1.ConditionTrue, reconcile: metav1.ConditionFalse},
		{name: "a reconcile error fails the cluster and says why",
			obs:   Observed{FE: fe(sts(3, 3, 3)), ReconcileError: errors.New(`ConfigMap "x" not found`), ReconcileErrorReason: "ConfigMapNotFound"},
			phase: srv1.PhaseFailed, fePhase: srv1.PhaseRunning,
			ready: metav1.ConditionFalse, readyReason: "ReconcileError", progressing: "Stable", degraded: metav1.ConditionFalse, reconcile: metav1.ConditionTrue},
		{name: "an ordered rollout is reported as progressing",
			obs:   Observed{FE: fe(sts(3, 3, 3)), Rollout: "upgrading: BE and CN roll first, FE waits"},
			phase: srv1.PhaseRunning, fePhase: srv1.PhaseRunning,
			ready: metav1.ConditionTrue, readyReason: "AllComponentsRunning", progressing: "OrderedRollout", degraded: metav1.ConditionFalse, reconcile: metav1.ConditionFalse},
		{name: "a component waiting for FE says so",
			obs:   Observed{FE: fe(sts(3, 0, 3)), BE: &Component{Name: "BE", Replicas: 3, Waiting: "waiting for FE to become ready"}},
			phase: srv1.PhaseReconciling, fePhase: srv1.PhaseReconciling, feReason: "0 of 3 pods ready, 3 updated",
			ready: metav1.ConditionFalse, readyReason: "ComponentsNotReady", progressing: "ComponentsNotReady", degraded: metav1.ConditionFalse, reconcile: metav1.ConditionFalse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := cluster()
			st := Compute(src, tt.obs)
			if st.Phase != tt.phase || st.StarRocksFeStatus.Phase != tt.fePhase || st.StarRocksFeStatus.Reason != tt.feReason {
				t.Errorf("phase %q, FE %q %q; want %q, FE %q %q", st.Phase, st.StarRocksFeStatus.Phase, st.StarRocksFeStatus.Reason, tt.phase, tt.fePhase, tt.feReason)
			}
			if c := cond(st, srv1.ConditionReady); c.Status != tt.ready || c.Reason != tt.readyReason {
				t.Errorf("Ready = %s/%s, want %s/%s (%s)", c.Status, c.Reason, tt.ready, tt.readyReason, c.Message)
			}
			if c := cond(st, srv1.ConditionProgressing); c.Reason != tt.progressing {
				t.Errorf("Progressing reason = %s, want %s", c.Reason, tt.progressing)
			}
			if c := cond(st, srv1.ConditionDegraded); c.Status != tt.degraded {
				t.Errorf("Degraded = %s, want %s", c.Status, tt.degraded)
			}
			if c := cond(st, srv1.ConditionReconcileError); c.Status != tt.reconcile {
				t.Errorf("ReconcileError = %s, want %s", c.Status, tt.reconcile)
			}
			if st.ObservedGeneration != 3 {
				t.Errorf("observedGeneration = %d, want 3", st.ObservedGeneration)
			}
			if be := st.StarRocksBeStatus; tt.obs.BE != nil && (be == nil || be.Reason != tt.obs.BE.Waiting) {
				t.Errorf("BE status %+v does not say it waits", be)
			}
		})
	}
}

func TestAWorkloadNotYetCarryingTheSpecIsNeverReady(t *testing.T) {
	ready := []corev1.Pod{pod("c-fe-0", true, ""), pod("c-fe-1", true, ""), pod("c-fe-2", true, "")}
	comp := fe(sts(3, 3, 3), ready...)
	if st := Compute(cluster(), Observed{FE: comp}); st.Phase != srv1.PhaseRunning {
		t.Fatalf("a rolled-out FE with the desired spec: phase %s, want running", st.Phase)
	}
	comp.Outdated = true
	st := Compute(cluster(), Observed{FE: comp})
	if st.Phase != srv1.PhaseReconciling || cond(st, srv1.ConditionReady).Status != metav1.ConditionFalse {
		t.Fatalf("FE about to be rewritten: phase %s, Ready %s; want reconciling, False", st.Phase, cond(st, srv1.ConditionReady).Status)
	}
}

func TestInstanceListsAreSortedSoIdenticalClustersWriteIdenticalStatus(t *testing.T) {
	st := Compute(cluster(), Observed{FE: fe(sts(3, 2, 3), pod("c-fe-2", true, ""), pod("c-fe-0", true, ""), pod("c-fe-1", false, ""))})
	if got := st.StarRocksFeStatus.RunningInstances; !slices.Equal(got, []string{"c-fe-0", "c-fe-2"}) {
		t.Errorf("running = %v", got)
	}
	if got := st.StarRocksFeStatus.CreatingInstances; !slices.Equal(got, []string{"c-fe-1"}) {
		t.Errorf("creating = %v", got)
	}
	types := []string{}
	for _, c := range st.Conditions {
		types = append(types, c.Type)
	}
	if !slices.IsSorted(types) {
		t.Errorf("conditions not sorted: %v", types)
	}
}

func TestUnchangedConditionsKeepTheirTransitionTime(t *testing.T) {
	src := cluster()
	obs := Observed{FE: fe(sts(3, 3, 3))}
	first := Compute(src, obs)
	old := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for i := range first.Conditions {
		first.Conditions[i].LastTransitionTime = old
	}
	src.Status = first
	second := Compute(src, obs)
	for _, c := range second.Conditions {
		if !c.LastTransitionTime.Equal(&old) {
			t.Errorf("%s transition time moved to %s though nothing changed", c.Type, c.LastTransitionTime)
		}
	}
}

func TestFEReadiness(t *testing.T) {
	src := cluster()
	if FEReady(src, nil) {
		t.Error("FE without StatefulSet counted ready")
	}
	if !FEReady(src, sts(3, 1, 3)) {
		t.Error("one ready FE should let BE and CN start")
	}
	src.Spec.WaitForFullRollout = ptr.To(true)
	if FEReady(src, sts(3, 1, 3)) {
		t.Error("waitForFullRollout: one ready FE of three counted ready")
	}
	if !FEReady(src, sts(3, 3, 3)) {
		t.Error("waitForFullRollout: fully rolled FE not ready")
	}
}

func TestLongErrorsFitTheAPILimits(t *testing.T) {
	long := errors.New(strings.Repeat("ä", 40000)) // 2 bytes a rune: cuts must not split one
	st := Compute(cluster(), Observed{FE: fe(nil), ReconcileError: long, ReconcileErrorReason: srv1.ReasonApplyFailed})
	for _, c := range st.Conditions {
		if len(c.Message) > MaxConditionMessage || !utf8.ValidString(c.Message) {
			t.Errorf("%s message: %d bytes, valid UTF-8 %v; want at most %d", c.Type, len(c.Message), utf8.ValidString(c.Message), MaxConditionMessage)
		}
	}
	if got := Truncate(long.Error(), MaxEventNote); len(got) > MaxEventNote || !strings.HasSuffix(got, "(truncated)") || !utf8.ValidString(got) {
		t.Errorf("event note of %d bytes: %q...", len(got), got[:20])
	}
	if got := Truncate("short", MaxEventNote); got != "short" {
		t.Errorf("a short message changed: %q", got)
	}
}

// FEQuorumUnprotected tells a 2-FE cluster what a drain costs, does not
// touch Ready, and appears only once it was True.
func TestFEQuorumUnprotectedAppearsOnlyOnceTrue(t *testing.T) {
	src := cluster()
	running := Observed{FE: fe(sts(2, 2, 2), pod("c-fe-0", true, ""), pod("c-fe-1", true, ""))}
	running.FE.Replicas = 2
	if st := Compute(src, running); meta.FindStatusCondition(st.Conditions, srv1.ConditionFEQuorumUnprotected) != nil {
		t.Errorf("condition without an unprotected quorum: %+v", st.Conditions)
	}
	two := running
	two.FEQuorumUnprotected = "FE runs 2 replicas"
	st := Compute(src, two)
	if c := cond(st, srv1.ConditionFEQuorumUnprotected); c.Status != metav1.ConditionTrue || c.Reason != srv1.ReasonTwoFrontends || c.Message != "FE runs 2 replicas" {
		t.Errorf("2 FE: %+v", c)
	}
	if c := cond(st, srv1.ConditionReady); c.Status != metav1.ConditionTrue || st.Phase != srv1.PhaseRunning {
		t.Errorf("2 running FE not Ready (%s) beside an unprotected quorum: %+v", st.Phase, c)
	}
	src.Status = st
	if c := cond(Compute(src, running), srv1.ConditionFEQuorumUnprotected); c.Status != metav1.ConditionFalse || c.Reason != srv1.ReasonNotTwoFrontends {
		t.Errorf("after 2 FE: %+v", c)
	}
}

// GracefulExitCutShort names the values that fight the graceful exit,
// does not touch Ready, and appears only once it was True.
func TestGracefulExitCutShortAppearsOnlyOnceTrue(t *testing.T) {
	src := cluster()
	running := Observed{FE: fe(sts(1, 1, 1), pod("c-fe-0", true, ""))}
	if st := Compute(src, running); meta.FindStatusCondition(st.Conditions, srv1.ConditionGracefulExitCutShort) != nil {
		t.Errorf("condition without a problem: %+v", st.Conditions)
	}
	short := running
	short.GracefulExitCutShort = "FE: terminationGracePeriodSeconds 30 kills FE before ..."
	st := Compute(src, short)
	if c := cond(st, srv1.ConditionGracefulExitCutShort); c.Status != metav1.ConditionTrue || c.Reason != srv1.ReasonTimingFightsGracefulExit || c.Message != short.GracefulExitCutShort {
		t.Errorf("a grace period of 30 s: %+v", c)
	}
	if c := cond(st, srv1.ConditionReady); c.Status != metav1.ConditionTrue {
		t.Errorf("a running FE not Ready beside the timing problem: %+v", c)
	}
	src.Status = st
	if c := cond(Compute(src, running), srv1.ConditionGracefulExitCutShort); c.Status != metav1.ConditionFalse || c.Reason != srv1.ReasonTimingFitsGracefulExit {
		t.Errorf("after the fix: %+v", c)
	}
}

// status.highestVersion is kept as recorded until an observation raises it
// (issue 50 item 3): a reconcile without FE's report writes nothing new.
func TestHighestVersionIsKeptUntilObserved(t *testing.T) {
	src := &srv1.StarRocksCluster{}
	src.Status.HighestVersion = "4.1.2"
	if got := Compute(src, Observed{}).HighestVersion; got != "4.1.2" {
		t.Errorf("without an observation: %q, want the record 4.1.2", got)
	}
	if got := Compute(src, Observed{HighestVersion: "4.1.3"}).HighestVersion; got != "4.1.3" {
		t.Errorf("observed 4.1.3: %q", got)
	}
}
