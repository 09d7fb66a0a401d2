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

// Package status computes a StarRocksCluster's status from what the operator
// observed. It is pure: the controller reads the cache, this package decides
// what the status says, and the controller writes it only when it changed.
package status

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/plugin"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// Component is what was observed of one component (FE, BE, CN or FE proxy).
type Component struct {
	// Name is the component's short name for messages: FE, BE, CN, FE proxy.
	Name string
	// ServiceName is the component's client Service.
	ServiceName string
	// ResourceNames are the workload objects (StatefulSet or Deployment).
	ResourceNames []string
	// Waiting explains why the component's workload is not (yet) written; empty when it is.
	Waiting string
	// StatefulSet or Deployment as in the cache; nil when it does not exist yet.
	StatefulSet *appsv1.StatefulSet
	Deployment  *appsv1.Deployment
	// Replicas is the number of pods the spec asks for.
	Replicas int32
	// Outdated is true when the workload in the cache does not carry the
	// desired spec yet: a write is about to happen, and nothing the workload
	// reports can count as running that spec.
	Outdated bool
	// Pods of the component, in any order.
	Pods []corev1.Pod
}

// Observed is the input of Compute.
type Observed struct {
	FE, BE, FEProxy *Component
	CN              *Component
	// CN autoscaler details for the CN status.
	HPAName, Selector string
	HPAVersion        srv1.AutoScalerVersion
	// ReconcileError is the reconcile's failure, if any, with a stable CamelCase reason.
	ReconcileError       error
	ReconcileErrorReason string
	// Rollout explains an ordered upgrade or downgrade in progress; empty when none.
	Rollout string
	// Step is a StarRocks-aware step in progress (a decommission, an FE
	// leaving FE's group), with its Progressing reason; empty when none.
	Step, StepReason string
	// DisasterRecovery replaces status.disasterRecoveryStatus when set.
	DisasterRecovery *srv1.DisasterRecoveryStatus
	// HighestVersion replaces status.highestVersion when set.
	HighestVersion string
	// ConfigWarning says why a running component's .conf could not be read
	// (its live objects are kept as they are); nil when every .conf was read.
	ConfigWarning       error
	ConfigWarningReason string
	// Unrestorable lists objects ("StatefulSet sr-fe") that someone else
	// changed in a way apply cannot undo.
	Unrestorable []string
	// RemovalHeld explains components removed from the spec that are kept
	// until the user agrees to delete their data; empty when none.
	RemovalHeld string
	// UnboundClaims are Pending claims ("PersistentVolumeClaim fe-meta-sr-fe-0")
	// that ask for storageClassName "" and so never bind to the default class.
	UnboundClaims []string
	// FEQuorumUnprotected says what a node drain costs an FE whose majority
	// no disruption budget can keep (2 replicas); empty when none.
	FEQuorumUnprotected string
	// GracefulExitCutShort says where the pod templates' timing fights the
	// graceful exit of their preStop hook (resources.ShutdownProblems);
	// empty when nowhere.
	GracefulExitCutShort string
	// StarRocks is what FE said at the operator's last read; nil when there
	// is nothing new to say, and the status keeps what it says.
	StarRocks *StarRocksWord
}

// StarRocksWord is what FE said of the cluster's nodes and tablets.
type StarRocksWord struct {
	// FE, BE and CN count the nodes of each component; nil for one the cluster does not run.
	FE, BE, CN *srv1.StarRocksNodesStatus
	// Healthy, Reason and Message make the StarRocksHealthy condition;
	// without a Reason the condition is left as it is.
	Healthy         bool
	Reason, Message string
}

// API limits on messages: the API server rejects a longer condition message
// (and with it the whole status), and a longer Event note (and the Event).
const (
	MaxConditionMessage = 32768
	MaxEventNote        = 1024
)

// Truncate cuts s to at most n bytes, on a rune boundary, marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "... (truncated)"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// Compute returns the status the cluster should have. old supplies condition
// transition times, which only move when a condition's status changes.
func Compute(src *srv1.StarRocksCluster, obs Observed) srv1.StarRocksClusterStatus {
	st := srv1.StarRocksClusterStatus{
		ObservedGeneration:     src.Generation,
		Conditions:             slices.Clone(src.Status.Conditions),
		DisasterRecoveryStatus: src.Status.DisasterRecoveryStatus,
		// The backup controllers write it (internal/controller/backup): kept as read.
		ClusterSnapshot: src.Status.ClusterSnapshot,
	}
	if obs.DisasterRecovery != nil {
		st.DisasterRecoveryStatus = obs.DisasterRecovery
	}
	st.HighestVersion = src.Status.HighestVersion
	if obs.HighestVersion != "" {
		st.HighestVersion = obs.HighestVersion
	}
	st.StarRocksFeStatus = componentStatus(obs.FE)
	st.StarRocksBeStatus = componentStatus(obs.BE)
	st.StarRocksFeProxyStatus = componentStatus(obs.FEProxy)
	cn := componentStatus(obs.CN)
	nodes(src, obs.StarRocks, st.StarRocksFeStatus, st.StarRocksBeStatus, cn)
	if cn != nil {
		st.StarRocksCnStatus = &srv1.StarRocksCnStatus{StarRocksComponentStatus: *cn, Selector: obs.Selector}
		if obs.CN.StatefulSet != nil {
			st.StarRocksCnStatus.Replicas = obs.CN.StatefulSet.Status.Replicas
		}
		if obs.HPAName != "" {
			st.StarRocksCnStatus.HorizontalScaler = srv1.HorizontalScaler{Name: obs.HPAName, Version: obs.HPAVersion}
		}
	}

	all := []*srv1.StarRocksComponentStatus{st.StarRocksFeStatus, st.StarRocksBeStatus, cnBase(st.StarRocksCnStatus), st.StarRocksFeProxyStatus}
	names := []string{"FE", "BE", "CN", "FE proxy"}
	var notRunning, failing []string
	st.Phase = srv1.PhaseRunning
	for i, cs := range all {
		if cs == nil {
			continue
		}
		switch cs.Phase {
		case srv1.PhaseFailed:
			st.Phase = srv1.PhaseFailed
			failing = append(failing, fmt.Sprintf("%s: %s", names[i], cs.Reason))
		case srv1.PhaseReconciling:
			if st.Phase == srv1.PhaseRunning {
				st.Phase = srv1.PhaseReconciling
			}
			notRunning = append(notRunning, fmt.Sprintf("%s: %s", names[i], cs.Reason))
		}
		if len(cs.FailedInstances) > 0 && cs.Phase != srv1.PhaseFailed {
			failing = append(failing, fmt.Sprintf("%s: failing pods %s", names[i], strings.Join(cs.FailedInstances, ", ")))
		}
	}
	if st.StarRocksFeStatus == nil {
		st.Phase = srv1.PhaseFailed
		st.Reason = "spec.starRocksFeSpec is required: StarRocks cannot run without FE"
	}

	gen := src.Generation
	set := func(t string, s metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: t, Status: s, Reason: reason, Message: Truncate(msg, MaxConditionMessage), ObservedGeneration: gen})
	}
	if obs.ReconcileError != nil {
		st.Phase = srv1.PhaseFailed
		st.Reason = Truncate(obs.ReconcileError.Error(), MaxConditionMessage)
		set(srv1.ConditionReconcileError, metav1.ConditionTrue, obs.ReconcileErrorReason, obs.ReconcileError.Error())
	} else {
		set(srv1.ConditionReconcileError, metav1.ConditionFalse, srv1.ReasonReconciled, "")
	}
	if obs.ConfigWarning != nil {
		set(srv1.ConditionConfigUnavailable, metav1.ConditionTrue, obs.ConfigWarningReason,
			obs.ConfigWarning.Error()+"; the running component keeps its current configuration")
	} else if meta.FindStatusCondition(st.Conditions, srv1.ConditionConfigUnavailable) != nil {
		set(srv1.ConditionConfigUnavailable, metav1.ConditionFalse, srv1.ReasonConfigAvailable, "")
	}
	if len(obs.UnboundClaims) > 0 {
		set(srv1.ConditionClaimsUnbound, metav1.ConditionTrue, srv1.ReasonNoStorageClass,
			"Pending, with storageClassName \"\" (no class: they bind only to a PersistentVolume without a class, never to the default StorageClass): "+
				strings.Join(obs.UnboundClaims, ", ")+"; see docs/helm-migration.md to bind or replace them")
	} else if meta.FindStatusCondition(st.Conditions, srv1.ConditionClaimsUnbound) != nil {
		set(srv1.ConditionClaimsUnbound, metav1.ConditionFalse, srv1.ReasonClaimsBound, "")
	}
	if obs.FEQuorumUnprotected != "" {
		set(srv1.ConditionFEQuorumUnprotected, metav1.ConditionTrue, srv1.ReasonTwoFrontends, obs.FEQuorumUnprotected)
	} else if meta.FindStatusCondition(st.Conditions, srv1.ConditionFEQuorumUnprotected) != nil {
		set(srv1.ConditionFEQuorumUnprotected, metav1.ConditionFalse, srv1.ReasonNotTwoFrontends, "")
	}
	if obs.GracefulExitCutShort != "" {
		set(srv1.ConditionGracefulExitCutShort, metav1.ConditionTrue, srv1.ReasonTimingFightsGracefulExit, obs.GracefulExitCutShort)
	} else if meta.FindStatusCondition(st.Conditions, srv1.ConditionGracefulExitCutShort) != nil {
		set(srv1.ConditionGracefulExitCutShort, metav1.ConditionFalse, srv1.ReasonTimingFitsGracefulExit, "")
	}
	switch {
	case len(failing) > 0:
		set(srv1.ConditionDegraded, metav1.ConditionTrue, srv1.ReasonPodsFailing, strings.Join(failing, "; "))
	case len(obs.Unrestorable) > 0:
		set(srv1.ConditionDegraded, metav1.ConditionTrue, srv1.ReasonDriftNotRestored,
			"changed by someone else in a way the operator cannot undo (an added list entry, or a value rewritten on admission): "+
				strings.Join(obs.Unrestorable, ", ")+"; undo the change, or delete the object to have it recreated")
	default:
		set(srv1.ConditionDegraded, metav1.ConditionFalse, srv1.ReasonAllPodsHealthy, "")
	}
	if w := obs.StarRocks; w != nil && w.Reason != "" {
		healthy := metav1.ConditionFalse
		if w.Healthy {
			healthy = metav1.ConditionTrue
		}
		set(srv1.ConditionStarRocksHealthy, healthy, w.Reason, w.Message)
	}
	switch {
	case obs.Step != "":
		// A step says more than the order it is part of: a stall of a BE
		// rollout must show through an upgrade's OrderedRollout.
		set(srv1.ConditionProgressing, metav1.ConditionTrue, obs.StepReason, strings.Join(append([]string{obs.Step}, nonEmpty(obs.Rollout)...), "; "))
	case obs.Rollout != "":
		set(srv1.ConditionProgressing, metav1.ConditionTrue, srv1.ReasonOrderedRollout, obs.Rollout)
	case obs.RemovalHeld != "":
		set(srv1.ConditionProgressing, metav1.ConditionTrue, srv1.ReasonRemovalHeld, obs.RemovalHeld)
	case len(notRunning) > 0:
		set(srv1.ConditionProgressing, metav1.ConditionTrue, srv1.ReasonComponentsNotReady, strings.Join(notRunning, "; "))
	default:
		set(srv1.ConditionProgressing, metav1.ConditionFalse, srv1.ReasonStable, "")
	}
	switch {
	case st.Phase == srv1.PhaseRunning:
		set(srv1.ConditionReady, metav1.ConditionTrue, srv1.ReasonAllComponentsRunning, "")
	case obs.ReconcileError != nil:
		set(srv1.ConditionReady, metav1.ConditionFalse, srv1.ReasonReconcileFailed, obs.ReconcileError.Error())
	case st.Phase == srv1.PhaseFailed:
		set(srv1.ConditionReady, metav1.ConditionFalse, srv1.ReasonComponentsFailed, strings.Join(append(failing, st.Reason), "; "))
	default:
		set(srv1.ConditionReady, metav1.ConditionFalse, srv1.ReasonComponentsNotReady, strings.Join(notRunning, "; "))
	}
	if st.Reason == "" && st.Phase != srv1.PhaseRunning {
		st.Reason = strings.Join(append(failing, notRunning...), "; ")
	}
	slices.SortFunc(st.Conditions, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	// The line `kubectl starrocks status` shows, from this status: it
	// changes only when the status does (no write of its own), and the
	// plugin reads it as a server-side table's columns, not the objects.
	shown := *src
	shown.Status = st
	st.Summary = plugin.Summarize(&shown)
	return st
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// nodes fills each component's figures from FE's word, or, without a new
// word, keeps what the status said: a read outside rollouts comes at most
// once per sync period, and a status computed in between must not drop it.
func nodes(src *srv1.StarRocksCluster, w *StarRocksWord, fe, be, cn *srv1.StarRocksComponentStatus) {
	if w != nil {
		for _, p := range []struct {
			cs *srv1.StarRocksComponentStatus
			n  *srv1.StarRocksNodesStatus
		}{{fe, w.FE}, {be, w.BE}, {cn, w.CN}} {
			if p.cs != nil {
				p.cs.Nodes = p.n
			}
		}
		return
	}
	old := src.Status
	if fe != nil && old.StarRocksFeStatus != nil {
		fe.Nodes = old.StarRocksFeStatus.Nodes
	}
	if be != nil && old.StarRocksBeStatus != nil {
		be.Nodes = old.StarRocksBeStatus.Nodes
	}
	if cn != nil && old.StarRocksCnStatus != nil {
		cn.Nodes = old.StarRocksCnStatus.Nodes
	}
}

func cnBase(cn *srv1.StarRocksCnStatus) *srv1.StarRocksComponentStatus {
	if cn == nil {
		return nil
	}
	return &cn.StarRocksComponentStatus
}

func componentStatus(c *Component) *srv1.StarRocksComponentStatus {
	if c == nil {
		return nil
	}
	cs := &srv1.StarRocksComponentStatus{ServiceName: c.ServiceName, ResourceNames: slices.Sorted(slices.Values(c.ResourceNames))}
	cs.RunningInstances, cs.CreatingInstances, cs.FailedInstances = instances(c.Pods)
	ready, updated, desired, rolled := workload(c)
	rolled = rolled && !c.Outdated
	switch {
	case c.Waiting != "":
		cs.Phase, cs.Reason = srv1.PhaseReconciling, c.Waiting
	case len(cs.FailedInstances) > 0 && ready < desired:
		cs.Phase, cs.Reason = srv1.PhaseFailed, fmt.Sprintf("pods failing: %s", strings.Join(cs.FailedInstances, ", "))
	case !rolled || ready < desired:
		// The same words whether the workload is just created or not yet in the
		// cache, so that a new cluster's status is written once, not twice.
		cs.Phase, cs.Reason = srv1.PhaseReconciling, fmt.Sprintf("%d of %d pods ready, %d updated", ready, desired, updated)
	default:
		cs.Phase = srv1.PhaseRunning
	}
	return cs
}

// workload reads the StatefulSet's or Deployment's status; rolled is true when
// the controller has seen the latest spec and every pod runs it.
func workload(c *Component) (ready, updated, desired int32, rolled bool) {
	desired = c.Replicas
	switch {
	case c.StatefulSet != nil:
		s := c.StatefulSet
		if s.Spec.Replicas != nil {
			desired = *s.Spec.Replicas
		}
		ready, updated = s.Status.ReadyReplicas, s.Status.UpdatedReplicas
		rolled = s.Status.ObservedGeneration >= s.Generation && updated == desired && s.Status.Replicas == desired &&
			(s.Status.UpdateRevision == "" || s.Status.CurrentRevision == s.Status.UpdateRevision)
	case c.Deployment != nil:
		d := c.Deployment
		if d.Spec.Replicas != nil {
			desired = *d.Spec.Replicas
		}
		ready, updated = d.Status.ReadyReplicas, d.Status.UpdatedReplicas
		rolled = d.Status.ObservedGeneration >= d.Generation && updated == desired && d.Status.Replicas == desired
	}
	return ready, updated, desired, rolled
}

// instances sorts pods into running (Ready), failed (Failed phase or a
// container stuck crashing or pulling) and creating (the rest); each list is sorted.
func instances(pods []corev1.Pod) (running, creating, failed []string) {
	for _, p := range pods {
		switch {
		case p.DeletionTimestamp != nil:
			continue
		case podFailed(&p):
			failed = append(failed, p.Name)
		case resources.PodReady(&p):
			running = append(running, p.Name)
		default:
			creating = append(creating, p.Name)
		}
	}
	slices.Sort(running)
	slices.Sort(creating)
	slices.Sort(failed)
	return running, creating, failed
}

func podFailed(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodFailed {
		return true
	}
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil {
			switch w.Reason {
			case "CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError", "InvalidImageName":
				return true
			}
		}
	}
	return false
}

// FEReady reports whether BE, CN and the FE proxy may be created: at least one
// FE pod is ready, or with waitForFullRollout, FE has fully rolled out.
func FEReady(src *srv1.StarRocksCluster, fe *appsv1.StatefulSet) bool {
	if fe == nil {
		return false
	}
	if src.Spec.WaitForFullRollout != nil && *src.Spec.WaitForFullRollout {
		_, _, _, rolled := workload(&Component{StatefulSet: fe})
		return rolled && fe.Status.ReadyReplicas == fe.Status.Replicas
	}
	return fe.Status.ReadyReplicas > 0
}

// RolledOut reports whether a StatefulSet runs its latest spec on every pod, all ready.
func RolledOut(s *appsv1.StatefulSet) bool {
	if s == nil {
		return false
	}
	ready, _, desired, rolled := workload(&Component{StatefulSet: s})
	return rolled && ready == desired
}
