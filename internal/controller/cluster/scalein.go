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
	"encoding/json"
	"hash/fnv"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

// defaultDecommissionStall is how long a decommission may move no tablet
// without the cluster's annotation.
const defaultDecommissionStall = 30 * time.Minute

// scaleIn lets StarRocks release the nodes a scale-in removes before their
// pods go (DESIGN §10). A BE StatefulSet keeps its replicas while FE
// decommissions the removed BEs; an FE StatefulSet shrinks one pod at a
// time, each FE leaving FE's group. Shared-data BEs hold no data of their
// own and shrink at once; compute nodes are dropped after their pods go
// (cn_cleanup.go). What to do is decided in internal/starrocks
// (ScaleInBackends, ScaleInFrontends); the executor does it.
//
// It runs after rolloutOrder (DESIGN §10: holds that decide whether a
// StatefulSet is written are settled before any topology statement): an FE
// dropped from FE's group while the order keeps its StatefulSet whole would
// run on as a zombie for the whole BE rollout (issue 50 item 17).
func (r *Reconciler) scaleIn(ctx context.Context, s *clusterScope) bool {
	if !r.FE.Configured() {
		return true
	}
	r.scaleInBackends(ctx, s)
	r.scaleInFrontends(ctx, s)
	for _, c := range statefulSetComponents {
		r.deferGrowth(ctx, s, c) // before the gates, which stand aside for a StatefulSet about to be made again
	}
	return true
}

// scaleInBackends decommissions the BEs a scale-in removes, and takes back
// the decommission of BEs the spec keeps again (starrocks.ScaleInBackends).
func (r *Reconciler) scaleInBackends(ctx context.Context, s *clusterScope) {
	c := resources.ComponentBE
	want := s.want.objects.StatefulSet(c)
	live := r.scaleDownLive(ctx, s.in.live[c], want)
	in := starrocks.BackendScaleIn{
		Exists:     live != nil && want != nil && live.Spec.Replicas != nil && want.Spec.Replicas != nil,
		Recovering: s.recovering(), Skip: s.src.Annotations[srv1.SkipDecommissionAnnotation] == "true",
		Names: liveNames(s.src, c, live), FEReady: status.FEReady(s.src, s.in.live[resources.ComponentFE]), Every: r.FE.Every(),
		HeartbeatPort: backendHeartbeatPort(s), Stall: decommissionStall(s.src), Now: time.Now(),
		SpecKey: func() string { return specKey(s.src, c) },
	}
	if in.Exists {
		pods := r.clusterPods(ctx, s)[c]
		in.From, in.To, in.Generation, in.UID = *live.Spec.Replicas, *want.Spec.Replicas, live.Generation, live.UID
		in.Pods, in.Marked = starrocks.PodsByOrdinal(live, pods), markedPods(live, pods, srv1.DecommissionedByOperatorAnnotation)
	}
	frontend.Run(ctx, r.steps(), s.target(c), r.scaleIns, s.statefulSetKey(c), in, starrocks.ScaleInBackends)
}

// scaleInFrontends takes FEs out of FE's group one at a time, and drops
// members whose pods are gone (starrocks.ScaleInFrontends).
func (r *Reconciler) scaleInFrontends(ctx context.Context, s *clusterScope) {
	c := resources.ComponentFE
	want := s.want.objects.StatefulSet(c)
	live := r.scaleDownLive(ctx, s.in.live[c], want)
	in := starrocks.FrontendScaleIn{
		Exists:     live != nil && want != nil && live.Spec.Replicas != nil && want.Spec.Replicas != nil,
		Recovering: s.recovering(), Names: liveNames(s.src, c, live), Asked: s.src.Spec.StarRocksFeSpec.Replicas,
		FEReady: status.FEReady(s.src, live), Every: r.FE.Every(),
	}
	if in.Exists {
		pods := r.clusterPods(ctx, s)[c]
		in.From, in.To, in.Generation, in.UID = *live.Spec.Replicas, *want.Spec.Replicas, live.Generation, live.UID
		in.Pods, in.Marked = starrocks.PodsByOrdinal(live, pods), markedPods(live, pods, srv1.DroppedFromFEGroupAnnotation)
		if msg, held := s.holds.Keeping(c, want); held {
			in.Held = "held: " + msg
		}
		if in.To < in.From { // only a scale-down drops a member or lets a leader's pod go
			in.BudgetNotLowered = !resources.FEStepBudgetLowered(s.src, r.liveBudget(ctx, s.src.Namespace, s.src.FeDisruptionBudgetName()), in.From-1)
		}
	}
	frontend.Run(ctx, r.steps(), s.target(c), r.scaleIns, s.statefulSetKey(c), in, starrocks.ScaleInFrontends)
}

// scaleDownLive is the StatefulSet a scale-down is decided on: during one
// (the spec asks for fewer replicas than the cache's copy runs), the API
// server's copy, read uncached. The cache may predate the operator's own
// last step (FE 5 → 4 written, the cache still at 5 when a pod's event
// brings the next reconcile): a hold that keeps "the replicas it runs"
// would then write 5 back, and the StatefulSet controller start again the
// pod whose FE just left FE's group. Outside a scale-down, or when the
// read fails, the cache's copy.
func (r *Reconciler) scaleDownLive(ctx context.Context, cached, want *appsv1.StatefulSet) *appsv1.StatefulSet {
	reader := r.FE.Live()
	if reader == nil || cached == nil || want == nil || cached.Spec.Replicas == nil || want.Spec.Replicas == nil || *want.Spec.Replicas >= *cached.Spec.Replicas {
		return cached
	}
	return apiCopy(ctx, reader, cached)
}

// apiCopy is sts as the API server holds it now; sts itself when the read
// fails or finds another StatefulSet of the name.
func apiCopy(ctx context.Context, reader client.Reader, sts *appsv1.StatefulSet) *appsv1.StatefulSet {
	now := &appsv1.StatefulSet{}
	if err := reader.Get(ctx, client.ObjectKeyFromObject(sts), now); err != nil || now.UID != sts.UID || now.Spec.Replicas == nil {
		return sts
	}
	return now
}

// specKey names component c's spec in src. A refusal is remembered for it,
// not for the cluster's generation: a change elsewhere in the cluster (a
// CN autoscaler's step, a Service annotation) asks nothing new of FE, and
// must not send the refused statement and its Warning again.
func specKey(src *srv1.StarRocksCluster, c resources.Component) string {
	var spec any
	switch c {
	case resources.ComponentFE:
		spec = src.Spec.StarRocksFeSpec
	case resources.ComponentBE:
		spec = src.Spec.StarRocksBeSpec
	case resources.ComponentCN:
		spec = src.Spec.StarRocksCnSpec
	}
	raw, _ := json.Marshal(spec)
	h := fnv.New64a()
	_, _ = h.Write(raw)
	return strconv.FormatUint(h.Sum64(), 16)
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
