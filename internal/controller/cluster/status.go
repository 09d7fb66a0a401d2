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
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

// observe reads, from the cache, what status reports of each component. It
// runs before the writes: a new object reads the same before and after its
// creation, so the status write need not wait for them.
func (r *Reconciler) observe(ctx context.Context, s *clusterScope) *status.Observed {
	src := s.src
	pods := r.clusterPods(ctx, s)
	feReady := status.FEReady(src, s.in.live[resources.ComponentFE])
	obs := &status.Observed{}
	for _, c := range resources.Components {
		spec := resources.LoadSpec(src, c)
		if spec == nil {
			continue
		}
		comp := &status.Component{Name: c.Title(), ServiceName: resources.Named(src).Service(c).Name, Pods: pods[c], Replicas: ptr.Deref(spec.Replicas, 1)}
		if c != resources.ComponentFE && !feReady {
			comp.Waiting = "waiting for FE to become ready"
		}
		if why := s.holds.Waiting(c); why != "" && (comp.Waiting == "" || s.recovering()) {
			comp.Waiting = why // a disaster recovery's hold tells more than FE's readiness
		}
		r.observeWorkload(s, c, comp, obs)
		switch c {
		case resources.ComponentFE:
			obs.FE = comp
		case resources.ComponentBE:
			obs.BE = comp
		case resources.ComponentCN:
			obs.CN = comp
			obs.Selector = labels.Set(resources.SelectorLabels(src, c)).String()
			if p := src.Spec.StarRocksCnSpec.AutoScalingPolicy; p != nil {
				// The version asked for is reported; the HPA is written as v2, which every version maps onto.
				obs.HPAName, obs.HPAVersion = src.CnAutoscalerName(), p.Version
				if obs.HPAVersion == "" {
					obs.HPAVersion = srv1.AutoScalerV2
				}
			}
		case resources.ComponentFEProxy:
			obs.FEProxy = comp
		}
	}
	if s.want != nil {
		obs.Rollout = strings.Join(nonEmptyOf(append([]string{s.want.rollout.Message}, s.want.notes...)...), "; ")
	}
	s.holds.Observe(obs)
	s.gates.observe(obs)
	obs.UnboundClaims = r.unboundClaims(ctx, s)
	obs.FEQuorumUnprotected = s.feQuorumUnprotected()
	obs.GracefulExitCutShort = s.gracefulExitCutShort()
	obs.HighestVersion = starrocks.HighestRun(src.Status.HighestVersion, s.gates.report.Pure())
	obs.DisasterRecovery = disasterRecoveryStatus(src, s.in.confs[resources.ComponentFE].content, s.in.live[resources.ComponentFE])
	return obs
}

// observeWorkload fills in c's workload (its StatefulSet, or the proxy's
// Deployment): its name, live copy, and whether it is outdated or drifted
// beyond apply's reach. A held workload is kept as it runs on purpose: no
// write is coming, and its phase follows its pods.
func (r *Reconciler) observeWorkload(s *clusterScope, c resources.Component, comp *status.Component, obs *status.Observed) {
	named, want := resources.Named(s.src), s.want
	var live, desired client.Object
	kind := "StatefulSet"
	if sts := named.StatefulSet(c); sts != nil {
		comp.ResourceNames = []string{sts.Name}
		comp.StatefulSet = s.in.live[c]
		if comp.StatefulSet != nil {
			live = comp.StatefulSet
		}
		if want != nil && want.objects.StatefulSet(c) != nil {
			desired = want.objects.StatefulSet(c)
		}
	} else if c == resources.ComponentFEProxy {
		kind = "Deployment"
		comp.ResourceNames = []string{named.FEProxy.Deployment.Name}
		comp.Deployment = s.in.proxy
		if comp.Deployment != nil {
			live = comp.Deployment
		}
		if want != nil && want.objects.FEProxy != nil && want.objects.FEProxy.Deployment != nil {
			desired = want.objects.FEProxy.Deployment
		}
	}
	if desired == nil {
		return
	}
	comp.Outdated = !s.holds.Keeps(c, desired) && (live == nil || !want.hashes.Written(live, desired))
	if live != nil && r.Applier.Unrestorable(live, desired) {
		obs.Unrestorable = append(obs.Unrestorable, kind+" "+live.GetName())
	}
}

// feQuorumUnprotected is what a node drain costs an FE whose majority no
// disruption budget can keep (resources.FEQuorumUnprotectedMessage); with
// nothing built (a refused spec), what the status says already.
func (s *clusterScope) feQuorumUnprotected() string {
	if s.want == nil {
		if c := meta.FindStatusCondition(s.src.Status.Conditions, srv1.ConditionFEQuorumUnprotected); c != nil && c.Status == metav1.ConditionTrue {
			return c.Message
		}
		return ""
	}
	fe := s.want.objects.FE
	if fe == nil || fe.StatefulSet == nil {
		return ""
	}
	budget := ""
	if fe.DisruptionBudget != nil {
		budget = fe.DisruptionBudget.Name
	}
	return resources.FEQuorumUnprotectedMessage(ptr.Deref(fe.StatefulSet.Spec.Replicas, 1), budget)
}

// gracefulExitCutShort is where the built pod templates fight the graceful
// exit of their preStop hook (resources.ShutdownProblems), by component;
// with nothing built (a refused spec), what the status says already.
func (s *clusterScope) gracefulExitCutShort() string {
	if s.want == nil {
		if c := meta.FindStatusCondition(s.src.Status.Conditions, srv1.ConditionGracefulExitCutShort); c != nil && c.Status == metav1.ConditionTrue {
			return c.Message
		}
		return ""
	}
	var out []string
	for _, c := range []resources.Component{resources.ComponentFE, resources.ComponentBE, resources.ComponentCN} {
		sts := s.want.objects.StatefulSet(c)
		if sts == nil {
			continue
		}
		for _, p := range resources.ShutdownProblems(c, resources.ShutdownTimingOf(c, &sts.Spec.Template.Spec)) {
			out = append(out, c.Title()+": "+p)
		}
	}
	return strings.Join(out, "; ")
}

// writeStatusBeside writes the status computed before the writes while
// write runs: status is read from the cache before the writes, so it need
// not wait for them. When write fails, writeStatus writes it again with
// the error, which this one could not know.
//
// A cluster whose last reconcile failed is different: its writes will most
// likely fail again, and a status computed before them would clear the
// error only to set it again, two status writes (and an Event) per retry,
// for as long as the error lasts. Its status waits for the writes instead,
// and costs nothing while the error stays the same.
func (r *Reconciler) writeStatusBeside(ctx context.Context, s *clusterScope, write func() error) {
	if meta.IsStatusConditionTrue(s.src.Status.Conditions, srv1.ConditionReconcileError) {
		_ = write()
		return
	}
	var wg sync.WaitGroup
	early := s.computeStatus()
	wg.Go(func() {
		s.status.written, s.status.err = r.writeClusterStatus(ctx, s.src, early)
		s.status.early = true
	})
	_ = write()
	wg.Wait()
}

// writeStatus writes the status from the scope, once the phases are done:
// unless the status written beside the writes still holds.
func (r *Reconciler) writeStatus(ctx context.Context, s *clusterScope) {
	if s.status.early && (s.err == nil || s.status.err != nil) {
		return
	}
	if s.status.early {
		r.status.Ahead(s.src) // compute from what was just written
	}
	written, err := r.writeClusterStatus(ctx, s.src, s.computeStatus())
	s.status.written, s.status.err = s.status.written || written, err
}

// computeStatus is the status the scope tells.
func (s *clusterScope) computeStatus() srv1.StarRocksClusterStatus {
	obs := status.Observed{}
	if s.obs != nil {
		obs = *s.obs
	}
	if err := s.reconcileError(); err != nil {
		obs.ReconcileError, obs.ReconcileErrorReason = err, reconcile.Reason(err)
	}
	return status.Compute(s.src, obs)
}

// writeClusterStatus writes st when it differs, and keeps the Ready gauge
// and the time-to-ready histogram.
func (r *Reconciler) writeClusterStatus(ctx context.Context, src *srv1.StarRocksCluster, st srv1.StarRocksClusterStatus) (bool, error) {
	ready := meta.IsStatusConditionTrue(st.Conditions, srv1.ConditionReady)
	metrics.ClusterReady.WithLabelValues(src.Namespace, src.Name).Set(boolGauge(ready))
	wasReady := meta.IsStatusConditionTrue(src.Status.Conditions, srv1.ConditionReady)
	written, err := r.status.Write(ctx, src, st)
	if written && !wasReady && ready && !src.CreationTimestamp.IsZero() {
		metrics.TimeToReady.Observe(time.Since(src.CreationTimestamp.Time).Seconds())
	}
	return written, err
}

func boolGauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// clusterStatusPath is how a cluster is read, and where its status is
// (reconcile.StatusPath). status.clusterSnapshot is the backup
// controllers' (internal/controller/backup, a merge patch of their own):
// applied from a copy read before their write, it would put the old value
// back, and the cluster snapshot turned off would read on for good.
func clusterStatusPath(c client.Client, memos *reconcile.Memos) *reconcile.StatusPath[*srv1.StarRocksCluster, srv1.StarRocksClusterStatus] {
	return reconcile.NewStatusPath(c, reconcile.FieldOwner, "StarRocksCluster", func() *srv1.StarRocksCluster { return &srv1.StarRocksCluster{} },
		func(o *srv1.StarRocksCluster) *srv1.StarRocksClusterStatus { return &o.Status }, memos).LeaveOut("clusterSnapshot")
}

// nonEmptyOf is the strings of ss that are not empty.
func nonEmptyOf(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
