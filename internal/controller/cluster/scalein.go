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

package cluster

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

const (
	defaultDecommissionStall = 30 * time.Minute
	// decommissionReportEvery spaces the status updates of a draining BE's
	// tablet count: the count falls on every read, the status must not.
	decommissionReportEvery = 30 * time.Second
	// feStatementTimeout bounds one statement that changes FE's topology.
	feStatementTimeout = 10 * time.Second
)

// replicasField is spec.replicas, for field holds.
var replicasField = []string{"spec", "replicas"}

// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=delete

// scaleIn lets StarRocks release the nodes a scale-in removes before their
// pods go (DESIGN §10). A BE StatefulSet keeps its replicas while FE
// decommissions the removed BEs; an FE StatefulSet shrinks one pod at a
// time, each FE leaving FE's group. Shared-data BEs hold no data of their
// own and shrink at once; compute nodes are dropped after their pods go
// (cn_cleanup.go). What to do is decided in internal/starrocks
// (ScaleInBackends, ScaleInFrontends); this file does what it decides.
func (r *Reconciler) scaleIn(ctx context.Context, s *clusterScope) bool {
	if !r.FE.Configured() || r.scaleIns == nil {
		return true
	}
	r.scaleInBackends(ctx, s)
	r.scaleInFrontends(ctx, s)
	for _, c := range statefulSetComponents {
		s.deferGrowth(c) // before the gates, which stand aside for a StatefulSet about to be made again
	}
	return true
}

// scaleInBackends decommissions the BEs a scale-in removes, and takes back
// the decommission of BEs the spec keeps again (starrocks.ScaleInBackends).
func (r *Reconciler) scaleInBackends(ctx context.Context, s *clusterScope) {
	live, want := s.in.live[resources.ComponentBE], s.want.objects.StatefulSet(resources.ComponentBE)
	key := client.ObjectKeyFromObject(s.src)
	in := starrocks.BackendScaleIn{
		Exists:     live != nil && want != nil && live.Spec.Replicas != nil && want.Spec.Replicas != nil,
		Recovering: s.recovering(),
		Skip:       s.src.Annotations[srv1.SkipDecommissionAnnotation] == "true",
		Names:      liveNames(s.src, resources.ComponentBE, live), Active: r.scaleIns.isActive(key, resources.ComponentBE),
		FEReady: status.FEReady(s.src, s.in.live[resources.ComponentFE]), Every: r.FE.Every(),
		HeartbeatPort: backendHeartbeatPort(s), Stall: decommissionStall(s.src),
	}
	if in.Exists {
		in.From, in.To, in.Generation = *live.Spec.Replicas, *want.Spec.Replicas, live.Generation
		in.Pods = starrocks.PodsByOrdinal(live, r.clusterPods(ctx, s)[resources.ComponentBE])
		in.Marked = markedPods(live, r.clusterPods(ctx, s)[resources.ComponentBE], srv1.DecommissionedByOperatorAnnotation)
		in.Checked.Replicas, in.Checked.Known = r.scaleIns.clean(key, live)
		if msg, ok := r.scaleIns.refusedAt(key, resources.ComponentBE, s.src); ok {
			in.Refusal = msg
		}
	}
	st := starrocks.ScaleInBackends(in)
	if st.Read {
		r.remember(s, resources.ComponentBE, live, st)
		in.Read, in.Report = true, r.FE.Look(s.src, s.want.feConf).Pure()
		st = starrocks.ScaleInBackends(in)
	}
	r.do(ctx, s, resources.ComponentBE, st)
}

// scaleInFrontends takes FEs out of FE's group one at a time, and drops
// members whose pods are gone (starrocks.ScaleInFrontends).
func (r *Reconciler) scaleInFrontends(ctx context.Context, s *clusterScope) {
	live, want := s.in.live[resources.ComponentFE], s.want.objects.StatefulSet(resources.ComponentFE)
	key := client.ObjectKeyFromObject(s.src)
	in := starrocks.FrontendScaleIn{
		Exists:     live != nil && want != nil && live.Spec.Replicas != nil && want.Spec.Replicas != nil,
		Recovering: s.recovering(),
		Names:      liveNames(s.src, resources.ComponentFE, live), Asked: s.src.Spec.StarRocksFeSpec.Replicas,
		Active: r.scaleIns.isActive(key, resources.ComponentFE), FEReady: status.FEReady(s.src, live), Every: r.FE.Every(),
	}
	if in.Exists {
		in.From, in.To, in.Generation = *live.Spec.Replicas, *want.Spec.Replicas, live.Generation
		pods := r.clusterPods(ctx, s)[resources.ComponentFE]
		in.Pods, in.Marked = starrocks.PodsByOrdinal(live, pods), markedPods(live, pods, srv1.DroppedFromFEGroupAnnotation)
		if msg, held := s.holds.Keeping(resources.ComponentFE, want); held {
			in.Held = "held: " + msg
		}
		in.Checked.Replicas, in.Checked.Known = r.scaleIns.clean(key, live)
		if in.To < in.From { // only a scale-down drops a member or lets a leader's pod go
			in.BudgetNotLowered = !resources.FEStepBudgetLowered(s.src, r.liveBudget(ctx, s.src.Namespace, s.src.FeDisruptionBudgetName()), in.From-1)
		}
	}
	st := starrocks.ScaleInFrontends(in)
	if st.Read {
		r.remember(s, resources.ComponentFE, live, st)
		in.Read, in.Report = true, r.FE.Look(s.src, s.want.feConf).Pure()
		st = starrocks.ScaleInFrontends(in)
	}

	r.do(ctx, s, resources.ComponentFE, st)
}

// liveBudget is the disruption budget name as the cache holds it; nil
// when there is none (or it cannot be read: then it is not known lowered).
func (r *Reconciler) liveBudget(ctx context.Context, ns, name string) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pdb); err != nil {
		return nil
	}
	return pdb
}

// markedPods are the ordinals of live's pods that carry the operator's
// mark: dropped from FE's group while they ran
// (srv1.DroppedFromFEGroupAnnotation), or decommissioned by the operator
// (srv1.DecommissionedByOperatorAnnotation).
func markedPods(live *appsv1.StatefulSet, pods []corev1.Pod, mark string) map[int]bool {
	var marked []corev1.Pod
	for _, p := range pods {
		if p.Annotations[mark] == "true" && p.DeletionTimestamp == nil {
			marked = append(marked, p)
		}
	}
	out := map[int]bool{}
	for ord := range starrocks.PodsByOrdinal(live, marked) {
		out[ord] = true
	}
	return out
}

// liveNames names the pods of component c as the live StatefulSet runs
// them: an adopted StatefulSet keeps its own serviceName (the immutable
// check leaves it), and its pods register under it (issue 34 item 1).
func liveNames(src *srv1.StarRocksCluster, c resources.Component, live *appsv1.StatefulSet) starrocks.PodNames {
	names := starrocks.NamesOf(src, c)
	if live != nil && live.Spec.ServiceName != "" {
		names.StatefulSet, names.HeadlessService = live.Name, live.Spec.ServiceName
	}
	return names
}

// backendHeartbeatPort is the heartbeat_service_port of be.conf (9050 by default).
func backendHeartbeatPort(s *clusterScope) int {
	return int(resources.Ports(resources.ComponentBE, resources.Config{Content: s.in.confs[resources.ComponentBE].content})["heartbeat_service_port"])
}

// decommissionStall is the cluster's stall timeout.
func decommissionStall(src *srv1.StarRocksCluster) time.Duration {
	if d, err := time.ParseDuration(src.Annotations[srv1.DecommissionStallTimeoutAnnotation]); err == nil && d > 0 {
		return d
	}
	return defaultDecommissionStall
}

// deleteClaims deletes the claims of one pod of an FE StatefulSet, an FE
// that left FE's group: its metadata is of no use (the group holds it),
// and harmful, since an FE that starts on the metadata of a member FE
// dropped fails ("explicitly removed", facts sheet §7). Without them, a
// later scale-up starts that ordinal afresh: it asks the leader to ADD it
// and joins with --helper (§1). The StatefulSet controller keeps claims on
// scale-down; Kubernetes defers the deletion of a claim until no pod uses it.
func (r *Reconciler) deleteClaims(ctx context.Context, sts *appsv1.StatefulSet, ordinal int) error {
	for _, t := range sts.Spec.VolumeClaimTemplates {
		pvc := &corev1.PersistentVolumeClaim{}
		pvc.Namespace, pvc.Name = sts.Namespace, fmt.Sprintf("%s-%s-%d", t.Name, sts.Name, ordinal)
		err := r.Client.Delete(ctx, pvc)
		if client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting claim %s: %w", pvc.Name, err)
		}
	}
	return nil
}

// event emits one Event on the cluster.
func (r *Reconciler) event(src *srv1.StarRocksCluster, eventType, reason, action, note string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(src, nil, eventType, reason, action, note, args...)
	}
}
