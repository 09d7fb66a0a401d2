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

package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// SkipDecommissionAnnotation set to "true" on a StarRocksCluster shrinks BE
// and FE at once, as the upstream does, without asking FE first: for when
// FE is gone for good. BEs removed this way lose the tablets only they held.
const SkipDecommissionAnnotation = "starrocks.com/skip-decommission"

// DecommissionStallTimeoutAnnotation sets, as a Go duration, how long a BE
// decommission may make no progress before it is reported stalled
// (default 30m).
const DecommissionStallTimeoutAnnotation = "starrocks.com/decommission-stall-timeout"

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
// (cn_cleanup.go).
func (r *StarRocksClusterReconciler) scaleIn(ctx context.Context, s *clusterScope) bool {
	if r.FE == nil || r.FE.views == nil || r.scaleIns == nil {
		return true
	}
	r.scaleInBackends(ctx, s)
	r.scaleInFrontends(ctx, s)
	return true
}

// scaleIns is what the process remembers between reconciles of scale-ins in
// progress. None of it is truth: FE's answers are. It only spares FE
// repeated statements (a refusal waits for a spec change), measures
// progress for the stall report, and paces the status.
type scaleIns struct {
	mu sync.Mutex
	// active clusters have a BE scale-in in progress or just reversed:
	// FE is read for them even when the StatefulSet is not shrinking.
	active map[string]bool
	// refused holds FE's refusal per cluster, with the generation refused.
	refused map[string]refusal
	// progress is, per cluster, the lowest tablet count seen and since when.
	progress map[string]tabletCount
	// shown is what the status shows of the drain, and since when.
	shown map[string]shownDrain
	// checked is, per StatefulSet (cluster key and component), the
	// StatefulSet's UID and the replicas at which FE was last found with
	// nothing left to do for it: no member of a removed ordinal in FE's
	// group, no kept BE draining or missing.
	checked map[string]checkedAt
}

type checkedAt struct {
	statefulSet types.UID
	replicas    int32
}

type refusal struct {
	generation int64
	message    string
}

type tabletCount struct {
	tablets int
	at      time.Time
}

func newScaleIns() *scaleIns {
	return &scaleIns{active: map[string]bool{}, refused: map[string]refusal{}, progress: map[string]tabletCount{}, shown: map[string]shownDrain{}, checked: map[string]checkedAt{}}
}

func (m *scaleIns) isActive(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.active[key]
}

func (m *scaleIns) activate(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.active[key] = true
}

// done forgets a BE scale-in that ended.
func (m *scaleIns) done(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.active, key)
	delete(m.refused, key)
	delete(m.progress, key)
	delete(m.shown, key)
}

// forget drops what is kept of a cluster that is gone.
func (m *scaleIns) forget(key string) {
	m.done(key)
	m.done(key + "/fe")
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range []resources.Component{resources.ComponentFE, resources.ComponentBE} {
		delete(m.checked, key+"/"+string(c))
	}
}

func (m *scaleIns) refusedAt(key string, generation int64) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.refused[key]
	return r.message, ok && r.generation == generation
}

func (m *scaleIns) refuse(key string, generation int64, message string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refused[key] = refusal{generation: generation, message: message}
}

// drained records FE's tablet count and returns since when it has not fallen.
func (m *scaleIns) drained(key string, tablets int, now time.Time) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.progress[key]
	if !ok || tablets < p.tablets {
		p = tabletCount{tablets: tablets, at: now}
		m.progress[key] = p
	}
	return p.at
}

// shownDrain is the drain as the status last told it.
type shownDrain struct {
	message string
	at      time.Time
}

// show returns what the status says of the drain: a new message (the
// tablets left on each BE) at most once per decommissionReportEvery.
func (m *scaleIns) show(key, message string, now time.Time) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.shown[key]
	if !ok || (p.message != message && now.Sub(p.at) >= decommissionReportEvery) {
		p = shownDrain{message: message, at: now}
		m.shown[key] = p
	}
	return p.message
}

func (m *scaleIns) clean(key string, sts *appsv1.StatefulSet) (int32, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.checked[key+"/"+sts.Labels[resources.ComponentLabel]]
	return c.replicas, ok && c.statefulSet == sts.UID
}

func (m *scaleIns) setClean(key string, sts *appsv1.StatefulSet, replicas int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checked[key+"/"+sts.Labels[resources.ComponentLabel]] = checkedAt{statefulSet: sts.UID, replicas: replicas}
}

// scaleInBackends decommissions the BEs a scale-in removes, holding the BE
// StatefulSet whole (its replicas, and any template change, which must not
// restart a BE FE is draining) until FE lists none of them; and cancels the
// decommission of BEs the spec keeps again.
func (r *StarRocksClusterReconciler) scaleInBackends(ctx context.Context, s *clusterScope) {
	live, want := s.in.live[resources.ComponentBE], s.want.objects.StatefulSet(resources.ComponentBE)
	key := client.ObjectKeyFromObject(s.src).String()
	if live == nil || want == nil || live.Spec.Replicas == nil || want.Spec.Replicas == nil ||
		fe.SharedData(s.want.feConf) || s.src.Annotations[SkipDecommissionAnnotation] == "true" {
		r.endDecommission(s, key)
		return
	}
	from, to := *live.Spec.Replicas, *want.Spec.Replicas
	shrinking, active := to < from, r.scaleIns.isActive(key)
	if !shrinking && !active {
		// Look at FE only after a scale-in this process did not see
		// through: once per BE StatefulSet ever changed, when the operator
		// starts, for a decommission to take back.
		last, known := r.scaleIns.clean(key, live)
		if (known && from >= last) || (!known && live.Generation <= 1) {
			r.scaleIns.setClean(key, live, from)
			return
		}
	}
	names := podNames{statefulSet: live.Name, headlessService: s.src.BeSearchServiceName(), namespace: s.src.Namespace}
	removed := podRange(names, to, from)
	wait := func(reason, msg string) {
		if shrinking {
			s.hold(reconcile.Hold{Component: resources.ComponentBE, Object: want, Reason: reason, Message: msg, Report: reconcile.Waits})
		}
	}
	if shrinking {
		if !active && r.FE != nil && r.FE.views != nil {
			// Decide on FE's word read after the scale-in began: the health
			// and rollout reads keep reports fresh, and one read before the
			// BEs registered lists none of them, which would read as "gone".
			r.FE.views.changed(key)
		}
		r.scaleIns.activate(key)
		// FE refused this spec: nothing more is asked until the spec changes.
		if msg, ok := r.scaleIns.refusedAt(key, s.src.Generation); ok {
			s.hold(reconcile.Hold{Component: resources.ComponentBE, Object: want, Reason: srv1.ReasonScaleInRefused, Message: msg, Report: reconcile.Refuses})
			return
		}
	}
	if !status.FEReady(s.src, s.in.live[resources.ComponentFE]) {
		wait(srv1.ReasonDecommissioning, fmt.Sprintf("waiting for FE's pods to be ready to decommission %s; BE keeps %d replicas", removed, from))
		return
	}
	rep := r.FE.views.look(r.FE, s.src, s.want.feConf)
	if rep == nil || shrinking || active {
		s.later(r.FE.views.every)
	} // else a failed look is tried again on the resync
	if rep == nil {
		wait(srv1.ReasonDecommissioning, fmt.Sprintf("reading FE's backends to decommission %s; BE keeps %d replicas", removed, from))
		return
	}
	if rep.err != nil {
		reason, what := feTrouble(rep.err)
		wait(reason, fmt.Sprintf("%s (%v): BE keeps %d replicas until FE decommissions %s; annotate the cluster %s=true to shrink without", what, rep.err, from, removed, SkipDecommissionAnnotation))
		return
	}
	plan := planBackends(rep.backends, names, int(to))
	connect := func() (*fe.Client, context.Context, context.CancelFunc, error) {
		ctx, cancel := context.WithTimeout(ctx, feStatementTimeout)
		c, err := r.FE.sql(ctx, s.src, s.want.feConf)
		return c, ctx, cancel, err
	}
	log := logf.FromContext(ctx)
	// The spec keeps BEs FE drains (raised replicas): cancel, or, when FE
	// dropped them already, register them again as their entrypoint would.
	if !shrinking || len(plan.cancel) > 0 {
		back := plan.cancel
		missing := missingBackends(rep.backends, names, int(min(from, to)), backendHeartbeatPort(s), func(ord int) string {
			return fmt.Sprintf("%s.%s", names.pod(ord), hostSuffix(rep.backends, names))
		})
		if hostSuffix(rep.backends, names) == "" {
			missing = nil // no BE of this StatefulSet is listed to tell the DNS domain from: nothing to add by name
		}
		if len(back) == 0 && len(missing) == 0 {
			if !shrinking {
				r.endDecommission(s, key)
				r.scaleIns.setClean(key, live, from)
			}
		} else {
			c, ctx, cancel, err := connect()
			defer cancel()
			if err == nil && len(back) > 0 {
				err = c.CancelDecommission(ctx, back)
				if msg, refused := fe.Refusal(err); refused && strings.HasPrefix(msg, "Backend does not exist") {
					err = nil // dropped at 0 tablets meanwhile: the next read shows it missing, and it is added
				}
			}
			for _, a := range missing {
				if err == nil {
					err = c.AddBackend(ctx, a)
				}
			}
			r.FE.views.changed(key)
			if err != nil {
				log.Info("could not take back the decommission of BEs the spec keeps", "backends", strings.Join(append(back, missing...), ", "), "error", err.Error())
			} else {
				log.Info("took back the decommission of BEs the spec keeps", "cancelled", strings.Join(back, ", "), "added", strings.Join(missing, ", "))
				r.event(s.src, corev1.EventTypeNormal, "DecommissionCancelled", "CancelDecommission",
					"the spec keeps BEs FE was decommissioning: cancelled %s%s", strings.Join(back, ", "), addedNote(missing))
			}
		}
		if !shrinking {
			return
		}
	}
	if plan.gone() {
		r.endDecommission(s, key)
		return // FE let every removed BE go: the StatefulSet shrinks now
	}
	metrics.DecommissionTablets.WithLabelValues(s.src.Namespace, s.src.Name).Set(float64(plan.tablets))
	if len(plan.decommission) > 0 {
		c, ctx, cancel, err := connect()
		defer cancel()
		if err == nil {
			err = c.DecommissionBackends(ctx, plan.decommission)
		}
		if msg, refused := fe.Refusal(err); refused {
			text := fmt.Sprintf("spec.starRocksBeSpec.replicas: FE refused to decommission %s, so BE keeps %d replicas: %s", removed, from, msg)
			r.scaleIns.refuse(key, s.src.Generation, text)
			s.hold(reconcile.Hold{Component: resources.ComponentBE, Object: want, Reason: srv1.ReasonScaleInRefused, Message: text, Report: reconcile.Refuses})
			return
		}
		r.FE.views.changed(key)
		if err != nil {
			reason, what := feTrouble(err)
			wait(reason, fmt.Sprintf("%s: FE did not take the decommission of %s (%v): BE keeps %d replicas; annotate the cluster %s=true to shrink without", what, removed, err, from, SkipDecommissionAnnotation))
			return
		}
		log.Info("asked FE to decommission the BEs a scale-in removes", "backends", strings.Join(plan.decommission, ", "))
		r.event(s.src, corev1.EventTypeNormal, srv1.ReasonDecommissioning, "DecommissionBackend",
			"asked FE to decommission %s before BE shrinks from %d to %d replicas", strings.Join(plan.decommission, ", "), from, to)
		wait(srv1.ReasonDecommissioning, fmt.Sprintf("FE decommissions %s; BE keeps %d replicas until FE let them go", removed, from))
		return
	}
	if len(plan.drop) > 0 {
		c, ctx, cancel, err := connect()
		defer cancel()
		for _, a := range plan.drop {
			if err == nil {
				err = c.DropBackend(ctx, a)
			}
		}
		r.FE.views.changed(key)
		if err != nil {
			reason, what := feTrouble(err)
			wait(reason, fmt.Sprintf("%s: FE drained %s but did not drop them (%v): BE keeps %d replicas", what, strings.Join(plan.drop, ", "), err, from))
			return
		}
		log.Info("dropped drained BEs from FE", "backends", strings.Join(plan.drop, ", "))
	}
	now := time.Now()
	shown := r.scaleIns.show(key, fmt.Sprintf("FE decommissions %s: %d tablets left (%s)", removed, plan.tablets, drainingMessage(plan.draining)), now)
	since := r.scaleIns.drained(key, plan.tablets, now)
	if stall := decommissionStall(s.src); now.Sub(since) >= stall {
		wait(srv1.ReasonDecommissionStalled, fmt.Sprintf("FE moved no tablet off %s for %s (%d tablets left, per FE's TabletNum): check that the other BEs are alive and have room; BE keeps %d replicas; annotate the cluster %s=true to shrink anyway, losing what only they hold",
			drainingMessage(plan.draining), stall, plan.tablets, from, SkipDecommissionAnnotation))
		return
	}
	wait(srv1.ReasonDecommissioning, fmt.Sprintf("%s; BE keeps %d replicas until FE let them go", shown, from))
}

// endDecommission forgets a BE scale-in that is over, and its metric.
func (r *StarRocksClusterReconciler) endDecommission(s *clusterScope, key string) {
	if r.scaleIns.isActive(key) {
		r.scaleIns.done(key)
	}
	metrics.DecommissionTablets.DeleteLabelValues(s.src.Namespace, s.src.Name)
}

func addedNote(added []string) string {
	if len(added) == 0 {
		return ""
	}
	return "; registered again (FE had dropped them): " + strings.Join(added, ", ")
}

// podRange names the pods of ordinals [from, to), e.g. "be-2 and be-3".
func podRange(names podNames, from, to int32) string {
	var pods []string
	for i := from; i < to; i++ {
		pods = append(pods, names.pod(int(i)))
	}
	switch len(pods) {
	case 0:
		return "no BE"
	case 1:
		return pods[0]
	default:
		return strings.Join(pods[:len(pods)-1], ", ") + " and " + pods[len(pods)-1]
	}
}

// hostSuffix is what follows the pod name in the hosts FE lists for the
// StatefulSet's pods (<headless service>.<namespace>.svc.<domain>), taken
// from FE's own rows: the cluster's DNS domain is FE's to tell.
func hostSuffix(backends []fe.Backend, names podNames) string {
	for _, b := range backends {
		if _, ok := names.ordinal(b.Host); ok {
			_, rest, _ := strings.Cut(b.Host, ".")
			return rest
		}
	}
	return ""
}

// backendHeartbeatPort is the heartbeat_service_port of be.conf (9050 by default).
func backendHeartbeatPort(s *clusterScope) int {
	return int(resources.Ports(resources.ComponentBE, resources.Config{Content: s.in.confs[resources.ComponentBE].content})["heartbeat_service_port"])
}

// decommissionStall is the cluster's stall timeout.
func decommissionStall(src *srv1.StarRocksCluster) time.Duration {
	if d, err := time.ParseDuration(src.Annotations[DecommissionStallTimeoutAnnotation]); err == nil && d > 0 {
		return d
	}
	return defaultDecommissionStall
}

// scaleInFrontends takes FEs out of FE's group one at a time, highest
// ordinal first, and never lets the group lose its majority or its leader
// (planFrontendStep). It also drops members whose pod is gone but that FE
// still lists: an FE that led when it was removed, or a step interrupted.
func (r *StarRocksClusterReconciler) scaleInFrontends(ctx context.Context, s *clusterScope) {
	live, want := s.in.live[resources.ComponentFE], s.want.objects.StatefulSet(resources.ComponentFE)
	if live == nil || want == nil || live.Spec.Replicas == nil || want.Spec.Replicas == nil {
		return
	}
	from, to := *live.Spec.Replicas, *want.Spec.Replicas
	if asked := s.src.Spec.StarRocksFeSpec.Replicas; asked != nil && *asked == 1 && from > 1 {
		s.hold(reconcile.Hold{Component: resources.ComponentFE, Object: want, Field: replicasField, Reason: srv1.ReasonScaleInRefused, Report: reconcile.Refuses,
			Message: fmt.Sprintf("spec.starRocksFeSpec.replicas: 1 is refused while FE runs %d: a lone FE left from a group of %d has no majority to elect itself leader; scale down one FE at a time to 2 at the least", from, from)})
	}
	if s.src.Annotations[SkipDecommissionAnnotation] == "true" {
		return
	}
	names := podNames{statefulSet: live.Name, headlessService: s.src.FeSearchServiceName(), namespace: s.src.Namespace}
	key := client.ObjectKeyFromObject(s.src).String()
	// No pod runs beyond the replicas asked for (a drift of spec.replicas
	// the StatefulSet controller never acted on): nothing to take out of
	// FE's group first; a member left over is dropped after.
	shrinking := to < from && live.Status.Replicas > to
	if feKey := key + "/fe"; shrinking && !r.scaleIns.isActive(feKey) {
		// As for BE: decide on FE's word read after the scale-down began,
		// not on a report older than the last FE that joined.
		r.FE.views.changed(key)
		r.scaleIns.activate(feKey)
	} else if !shrinking && r.scaleIns.isActive(feKey) {
		r.scaleIns.done(feKey)
	}
	if !shrinking {
		// Look for leftovers only after a scale-down this process did not
		// see through (and once per StatefulSet ever scaled, at start).
		last, known := r.scaleIns.clean(key, live)
		if (known && from >= last) || (!known && live.Generation <= 1) {
			r.scaleIns.setClean(key, live, from)
			return
		}
	}
	keep := func(msg string) {
		want.Spec.Replicas = ptr.To(from)
		s.hold(reconcile.Hold{Component: resources.ComponentFE, Object: want, Field: replicasField, Reason: srv1.ReasonLeavingFEGroup, Message: msg, Report: reconcile.Waits})
	}
	step := func(msg string) {
		want.Spec.Replicas = ptr.To(from - 1)
		s.hold(reconcile.Hold{Component: resources.ComponentFE, Object: want, Field: replicasField, Reason: srv1.ReasonLeavingFEGroup, Message: msg, Report: reconcile.Waits})
	}
	wait := keep
	if !shrinking {
		wait = func(string) {} // nothing to hold: leftovers are dropped as FE allows
	}
	if !status.FEReady(s.src, live) {
		wait(fmt.Sprintf("waiting for FE's pods to be ready to take %s out of FE's group", names.pod(int(from-1))))
		return
	}
	rep := r.FE.views.look(r.FE, s.src, s.want.feConf)
	if rep == nil || shrinking {
		s.later(r.FE.views.every)
	} // else a failed look is tried again on the resync
	switch {
	case rep == nil:
		wait(fmt.Sprintf("reading FE's group to take %s out of it", names.pod(int(from-1))))
		return
	case rep.err != nil:
		wait(fmt.Sprintf("FE did not answer (%v): FE keeps %d replicas until %s left FE's group; annotate the cluster %s=true to shrink without", rep.err, from, names.pod(int(from-1)), SkipDecommissionAnnotation))
		return
	}
	log := logf.FromContext(ctx)
	if left := leftoverFrontends(rep.frontends, names, int(from)); len(left) > 0 {
		// Dropped only once their pods are gone and another FE leads: FE
		// refuses to drop its leader, and this report may predate the stop.
		if !podsGone(live, left, names) || !hasLeader(rep.frontends, names, int(from)) {
			s.later(r.FE.views.every)
			wait("waiting for the pods of " + frontendAddresses(left) + " to stop and another FE to lead before dropping them from FE's group")
			return
		}
		ctx, cancel := context.WithTimeout(ctx, feStatementTimeout)
		defer cancel()
		c, err := r.FE.sql(ctx, s.src, s.want.feConf)
		for _, f := range left {
			if err == nil {
				err = c.DropFrontend(ctx, f)
			}
		}
		r.FE.views.changed(key)
		if err != nil {
			wait(fmt.Sprintf("could not drop removed FEs from FE's group (%v)", err))
			return
		}
		for _, f := range left {
			if ord, ok := names.ordinal(f.Host); ok && err == nil {
				err = r.deleteClaims(ctx, live, ord)
			}
		}
		if err != nil {
			wait(fmt.Sprintf("dropped %s from FE's group, but not their claims (%v)", frontendAddresses(left), err))
			return
		}
		log.Info("dropped removed FEs from FE's group", "frontends", frontendAddresses(left))
		r.event(s.src, corev1.EventTypeNormal, "FrontendDropped", "DropFrontend", "dropped from FE's group the FEs whose pods a scale-down removed: %s", frontendAddresses(left))
		wait("dropped " + frontendAddresses(left) + " from FE's group")
		return
	}
	if !shrinking {
		r.scaleIns.setClean(key, live, from)
		return
	}
	if live.Status.Replicas != from || live.Status.ReadyReplicas != from {
		keep(fmt.Sprintf("waiting for FE's %d pods to be ready before %s leaves FE's group", from, names.pod(int(from-1))))
		return
	}
	next, target, why := planFrontendStep(rep.frontends, names, int(from))
	pod := names.pod(int(from - 1))
	switch next {
	case feWait:
		keep(fmt.Sprintf("%s waits to leave FE's group: %s", pod, why))
	case feGone:
		if err := r.deleteClaims(ctx, live, int(from-1)); err != nil {
			keep(fmt.Sprintf("%s left FE's group, but its claims could not be deleted (%v): FE keeps %d replicas", pod, err, from))
			return
		}
		step(fmt.Sprintf("%s left FE's group; its pod goes (FE %d → %d)", pod, from, from-1))
	case feShrink:
		step(fmt.Sprintf("%s leads FE's group: its pod goes first, so that the others elect a new leader, then it is dropped (FE %d → %d)", pod, from, from-1))
	case feDrop:
		ctx, cancel := context.WithTimeout(ctx, feStatementTimeout)
		defer cancel()
		c, err := r.FE.sql(ctx, s.src, s.want.feConf)
		if err == nil {
			err = c.DropFrontend(ctx, target)
		}
		r.FE.views.changed(key)
		if err != nil {
			keep(fmt.Sprintf("FE did not drop %s from its group (%v): FE keeps %d replicas", target.Address(), err, from))
			return
		}
		log.Info("dropped an FE a scale-down removes from FE's group", "frontend", target.Address())
		r.event(s.src, corev1.EventTypeNormal, "FrontendDropped", "DropFrontend", "dropped %s from FE's group before its pod goes (FE %d → %d)", target.Address(), from, from-1)
		keep(fmt.Sprintf("%s left FE's group; its pod goes next (FE %d → %d)", pod, from, from-1))
	}
}

// deleteClaims deletes the claims of one pod of an FE StatefulSet, an FE
// that left FE's group: its metadata is of no use (the group holds it),
// and harmful, since an FE that starts on the metadata of a member FE
// dropped fails ("explicitly removed", facts sheet §7). Without them, a
// later scale-up starts that ordinal afresh: it asks the leader to ADD it
// and joins with --helper (§1). The StatefulSet controller keeps claims on
// scale-down; Kubernetes defers the deletion of a claim until no pod uses it.
func (r *StarRocksClusterReconciler) deleteClaims(ctx context.Context, sts *appsv1.StatefulSet, ordinal int) error {
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

// podsGone is true when the StatefulSet runs no pod of the leftovers' ordinals any more.
func podsGone(live *appsv1.StatefulSet, left []fe.Frontend, names podNames) bool {
	for _, f := range left {
		if ord, ok := names.ordinal(f.Host); ok && int32(ord) < live.Status.Replicas {
			return false
		}
	}
	return true
}

// hasLeader is true when FE's group has a leader among the pods the StatefulSet keeps.
func hasLeader(frontends []fe.Frontend, names podNames, replicas int) bool {
	for _, f := range frontends {
		if ord, ok := names.ordinal(f.Host); ok && f.Leader() && ord < replicas {
			return true
		}
	}
	return false
}

func frontendAddresses(fs []fe.Frontend) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Address()
	}
	return strings.Join(out, ", ")
}

// event emits one Event on the cluster.
func (r *StarRocksClusterReconciler) event(src *srv1.StarRocksCluster, eventType, reason, action, note string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(src, nil, eventType, reason, action, note, args...)
	}
}
