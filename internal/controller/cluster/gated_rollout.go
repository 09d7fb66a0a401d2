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
	"errors"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

// defaultStallTimeout is the stall timeout without the annotation.
const defaultStallTimeout = 30 * time.Minute

// gateState is what the gated rollouts of one reconcile tell the status
// (the rollouts themselves are told by their holds).
type gateState struct {
	// stalled is the first stalled rollout's message, for its Event.
	stalled string
	// tabletsAtRisk is true while BE's gated rollout waits, not stalled,
	// on FE counting unhealthy tablets: BE's budget then lets no BE go.
	tabletsAtRisk bool
	word          *status.StarRocksWord
	// report is FE's report this reconcile read (feWord); nil when none.
	report *feReport
	// parallel is, by component, the image a parallel rollout goes to
	// (starrocks.ChooseParallel); declined why one the cluster asks for
	// rolls gated instead (parallel.go).
	parallel, declined map[resources.Component]string
}

// observe writes FE's word into obs.
func (g *gateState) observe(obs *status.Observed) {
	obs.StarRocks = g.word
}

// clockEntry is since when a StatefulSet's current step has waited, for
// steps the pods cannot date (the first pod of a rollout), kept in the
// reconciler's waits by StatefulSet. Forgotten on restart: the clock then
// starts again, later, never earlier.
type clockEntry struct {
	uid   types.UID
	key   string
	since time.Time
}

// waitingSince is when the step key of sts was first seen waiting.
func waitingSince(waits *reconcile.Memo[clockEntry], sts *appsv1.StatefulSet, key string, now time.Time) time.Time {
	since := now
	waits.Update(client.ObjectKeyFromObject(sts), func(e clockEntry, ok bool) (clockEntry, bool) {
		if ok && e.uid == sts.UID && e.key == key {
			since = e.since
			return e, true
		}
		return clockEntry{uid: sts.UID, key: key, since: now}, true
	})
	return since
}

// gateRollouts makes pod template changes of FE, BE and CN roll one pod at a
// time on StarRocks' word (starrocks.Partitioned, starrocks.LeaderLast): it sets
// the partition or the OnDelete strategy on the desired StatefulSet, holds
// it reported as waiting, and deletes the next FE pod when its turn has
// come. A confirmed parallel rollout (starrocks.AllAtOnce, parallel.go)
// deletes every old pod at once instead, and holds the StatefulSet until
// StarRocks' word on all of them. It also reads FE's word for
// StarRocksHealthy and the status figures.
func (r *Reconciler) gateRollouts(ctx context.Context, s *clusterScope) bool {
	gates := map[resources.Component]starrocks.Gate{}
	rolling := false
	for _, c := range statefulSetComponents {
		g, ok := r.gate(ctx, s, c)
		if !ok {
			continue
		}
		if decide(c, g).Rolling {
			rolling = true
		}
		gates[c] = g
	}
	var changed time.Time
	if feAnswers(s) {
		changed = lastPodChange(r.clusterPods(ctx, s))
	}
	rep := r.feWord(s, rolling, changed, healthEvery(r.SyncPeriod))
	s.gates.word, s.gates.report = starRocksWord(s.src, feAnswers(s), rep, runningPods(s)), rep
	if !rolling {
		for _, g := range gates {
			r.waits.Forget(client.ObjectKeyFromObject(g.Live))
			r.heard.Forget(client.ObjectKeyFromObject(g.Live))
		}
		return true
	}
	if !feAnswers(s) {
		rep = &feReport{Report: starrocks.Report{At: time.Now(), Err: errors.New("no FE pod is Ready")}}
	}
	defer r.tellStalled(s)
	if r.unreachableLongEnough(s, rep) {
		return true // FE has not answered for the stall timeout, and the user lets the rollout go on without its word
	}
	pods := r.clusterPods(ctx, s)
	for _, c := range statefulSetComponents {
		g, ok := gates[c]
		if !ok {
			continue
		}
		g.Pods, g.Word = pods[c], gateWord(rep, s.src, c)
		g.Heard = r.heardSince(g)
		if err := r.step(ctx, s, c, g); err != nil {
			s.err = errors.Join(s.err, err)
		}
	}
	return true
}

// unreachableLongEnough is true when the cluster's rollout gate is
// if-fe-reachable and FE has failed every read for the stall timeout
// (starrocks.Stalled): then the rollout goes on without FE's word. Until
// then each gate waits for FE as without the annotation, at the live
// partition: one failed read (a leader election, a restarted FE pod) does
// not release the rest of the rollout. Since when FE fails is kept per
// cluster, and forgotten at its first answer.
func (r *Reconciler) unreachableLongEnough(s *clusterScope, rep *feReport) bool {
	key := client.ObjectKeyFromObject(s.src)
	if s.src.Annotations[srv1.RolloutGateAnnotation] != srv1.RolloutGateIfFEReachable || rep == nil || rep.Err == nil {
		if rep != nil && rep.Err == nil {
			r.unreachable.Forget(key)
		}
		return false
	}
	now := time.Now()
	since := now
	r.unreachable.Update(key, func(v time.Time, ok bool) (time.Time, bool) {
		if ok {
			since = v
		}
		return since, true
	})
	return starrocks.Stalled(since, now, stallTimeout(s.src))
}

// runningPods is how many pods each StatefulSet runs (status.replicas):
// those FE should list.
func runningPods(s *clusterScope) map[resources.Component]int32 {
	out := map[resources.Component]int32{}
	for _, c := range statefulSetComponents {
		if live := s.in.live[c]; live != nil {
			out[c] = live.Status.Replicas
		}
	}
	return out
}

// heardSince is, by ordinal, FE's LastHeartbeat of g's pods in its first
// answer after each became Ready, kept per StatefulSet and pod
// (starrocks.HeardSince). After an operator restart it is read again: a
// replaced pod then waits for one more heartbeat, never less.
func (r *Reconciler) heardSince(g starrocks.Gate) map[int]starrocks.Heard {
	var byOrd map[int]starrocks.Heard
	r.heard.Update(client.ObjectKeyFromObject(g.Live), func(known map[types.UID]starrocks.Heard, _ bool) (map[types.UID]starrocks.Heard, bool) {
		var keep map[types.UID]starrocks.Heard
		keep, byOrd = starrocks.HeardSince(g.Live, g.Pods, g.Word, known)
		return keep, len(keep) > 0
	})
	return byOrd
}

// gate is component c's gate, without FE's word and the pods; ok is false
// when c's pod template changes roll as the StatefulSet controller rolls them.
// AllAtOnce is decided here (parallel.go), reading the pods mid-rollout.
func (r *Reconciler) gate(ctx context.Context, s *clusterScope, c resources.Component) (starrocks.Gate, bool) {
	live, want := s.in.live[c], s.want.objects.StatefulSet(c)
	if !gatable(s, c) {
		return starrocks.Gate{}, false
	}
	if slices.ContainsFunc(s.holds, func(h reconcile.Hold) bool { return h.Component == c && h.Report == reconcile.Steps }) {
		// Another step moves c (an FE leaving FE's group): a rollout under
		// way keeps its strategy, neither pushed on nor let loose, and a
		// new template waits until the step is done, then rolls gated. Written
		// now, under the spec's strategy, it would roll every FE at once,
		// the leader in no particular turn, while members leave (issue 34
		// item 11).
		if gateSet(live) {
			s.hold(reconcile.Hold{Component: c, Object: want, Field: updateStrategyField, Report: reconcile.Quiet})
		}
		if templateChanging(s.want.hashes, live, want) {
			s.hold(reconcile.Hold{Component: c, Object: want, Field: templateField, Report: reconcile.Quiet})
		}
		return starrocks.Gate{}, false
	}
	replicas := ptr.Deref(want.Spec.Replicas, 1)
	g := starrocks.Gate{Live: live, Changing: templateChanging(s.want.hashes, live, want), Replicas: replicas, Tablets: starrocks.HoldsTablets(c)}
	if max(ptr.Deref(live.Spec.Replicas, 0), replicas) < 2 {
		return starrocks.Gate{}, false // one pod has nothing to wait for
	}
	g.AllAtOnce = r.parallel(ctx, s, c, g)
	tookDown := g.AllAtOnce && !g.Changing && live.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType
	if live.Status.ReadyReplicas == 0 && !tookDown {
		// No Ready pod has nothing to protect: the fix of a component
		// that is down rolls at once. A parallel rollout that took every
		// pod down itself still waits for StarRocks' word before the
		// next component rolls.
		return starrocks.Gate{}, false
	}
	return g, true
}

// gatable reports whether a gate may drive component c's pod template
// changes, as far as the spec and the phases before tell: not when nothing
// runs yet or nothing is to be written, during a disaster recovery, while
// another step holds the StatefulSet whole (an ordered rollout, a
// scale-in) or recreates it around its pods (a claim growth), with the
// cluster's gate off, or under the user's own update strategy.
func gatable(s *clusterScope, c resources.Component) bool {
	live, want := s.in.live[c], s.want.objects.StatefulSet(c)
	if live == nil || want == nil || s.recovering() || s.holds.Keeps(c, want) {
		return false
	}
	if _, growing := s.want.grow[c]; growing {
		return false
	}
	return s.src.Annotations[srv1.RolloutGateAnnotation] != srv1.RolloutGateOff && !starrocks.UserStrategy(resources.ComponentSpec(s.src, c).UpdateStrategy)
}

func decide(c resources.Component, g starrocks.Gate) starrocks.GateStep {
	if g.AllAtOnce {
		return starrocks.AllAtOnce(g, c == resources.ComponentFE)
	}
	if c == resources.ComponentFE {
		return starrocks.LeaderLast(g)
	}
	return starrocks.Partitioned(g)
}

// step applies c's next step to the desired StatefulSet (and deletes the
// pod whose turn has come), and holds it reported as waiting.
func (r *Reconciler) step(ctx context.Context, s *clusterScope, c resources.Component, g starrocks.Gate) error {
	st := decide(c, g)
	if !st.Rolling {
		r.waits.Forget(client.ObjectKeyFromObject(g.Live))
		r.replacing.Forget(client.ObjectKeyFromObject(g.Live))
		return nil
	}
	want := s.want.objects.StatefulSet(c)
	strategy := appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	if c != resources.ComponentFE && !st.OnDelete {
		strategy = starrocks.WithPartition(want.Spec.UpdateStrategy, st.Partition)
	}
	reason, msg := srv1.ReasonRollingOut, st.Message
	if g.AllAtOnce {
		reason = srv1.ReasonParallelRollout
	}
	if note := s.gates.declined[c]; note != "" {
		msg += " (" + note + ")"
	}
	s.gates.tabletsAtRisk = s.gates.tabletsAtRisk || (g.Tablets && st.Waiting && g.Word != nil && g.Word.Err == nil && g.Word.Unhealthy > 0)
	if st.Waiting {
		now := time.Now()
		since := waitingSince(r.waits, g.Live, st.Key, now)
		if !st.Since.IsZero() && st.Since.Before(since) {
			since = st.Since
		}
		timeout := stallTimeout(s.src)
		if starrocks.Stalled(since, now, timeout) {
			reason = srv1.ReasonRolloutStalled
			msg = fmt.Sprintf("%s, for longer than %s (%s): held; fix what it waits for, or annotate the cluster %s=%s to roll without StarRocks' word",
				st.Message, timeout, srv1.RolloutStallTimeoutAnnotation, srv1.RolloutGateAnnotation, srv1.RolloutGateOff)
			if s.gates.stalled == "" {
				s.gates.stalled = msg
			}
			s.gates.tabletsAtRisk = false // bounded: a stalled rollout gives a drain its budget back
		}
	}
	s.hold(reconcile.Hold{Component: c, Object: want, Field: updateStrategyField, Value: strategy, Reason: reason, Message: msg, Report: reconcile.Steps})
	s.later(r.FE.Every())
	if len(st.Replace) > 0 {
		return r.replaceAll(ctx, s, c, g, st.Replace)
	}
	if st.Delete == nil {
		return nil
	}
	return r.deletePod(ctx, s, st.Delete)
}

// +kubebuilder:rbac:groups="",resources=pods/eviction,verbs=create

// deletePod evicts a pod whose turn has come (an FE pod, or a BE or CN pod
// down below the next one); it comes back at the update revision. An
// eviction, not a delete: the disruption budget then
// arbitrates between the rollout and a node drain, and a drain that took
// one FE already makes the rollout wait instead of taking a second
// (issue 34 item 15). FE's report before the eviction says nothing of
// what follows: the next step waits for a read after it.
func (r *Reconciler) deletePod(ctx context.Context, s *clusterScope, p *corev1.Pod) error {
	err := r.FE.Changing(s.src, func() error {
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name},
			DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(p.UID)}}}
		return r.Client.SubResource("eviction").Create(ctx, p, ev)
	})
	switch {
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		return nil // gone already, or another pod of that name: the next reconcile sees which
	case apierrors.IsTooManyRequests(err):
		s.later(r.FE.Every()) // the budget allows no FE to go now (a drain took one): asked again
		return nil
	case err != nil:
		return fmt.Errorf("evicting pod %s for its rollout: %w", p.Name, err)
	}
	s.results = append(s.results, apply.Result{Kind: "Pod", Name: p.Name, Action: apply.Deleted})
	return nil
}

// gateSet reports whether live's strategy is one a gate sets: OnDelete, or
// a partition above 0 (the spec's own is left out before).
func gateSet(live *appsv1.StatefulSet) bool {
	u := live.Spec.UpdateStrategy
	return u.Type == appsv1.OnDeleteStatefulSetStrategyType || (u.RollingUpdate != nil && ptr.Deref(u.RollingUpdate.Partition, 0) > 0)
}

// stallTimeout is the cluster's RolloutStallTimeoutAnnotation, or the default.
func stallTimeout(src *srv1.StarRocksCluster) time.Duration {
	if d, err := time.ParseDuration(src.Annotations[srv1.RolloutStallTimeoutAnnotation]); err == nil && d > 0 {
		return d
	}
	return defaultStallTimeout
}

// tellStalled emits a Warning Event when a rollout newly stalls.
func (r *Reconciler) tellStalled(s *clusterScope) {
	if s.gates.stalled == "" {
		return
	}
	if c := meta.FindStatusCondition(s.src.Status.Conditions, srv1.ConditionProgressing); c != nil && c.Reason == srv1.ReasonRolloutStalled {
		return
	}
	r.event(s.src, true, srv1.ReasonRolloutStalled, "Rollout", s.gates.stalled)
}

// templateChanging reports whether writing want changes live's pod
// template. Nothing changed since the operator's last write (but, maybe,
// the strategy a gate set) means no; otherwise the templates are compared
// field by field, as apply compares for drift.
func templateChanging(hashes *apply.Hashes, live, want *appsv1.StatefulSet) bool {
	if hashes.Written(live, want) || writtenButStrategy(live, want) {
		return false
	}
	have, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&live.Spec.Template)
	if err != nil {
		return true
	}
	body, _, err := apply.Desired(want)
	if err != nil {
		return true
	}
	tmpl, _, _ := unstructured.NestedFieldNoCopy(body.Object, "spec", "template")
	return !apply.Covers(map[string]any{"template": have}, map[string]any{"template": tmpl})
}

// writtenButStrategy reports whether live carries want as the operator last
// wrote it, with the update strategy live has: the gate set it, nothing else changed.
func writtenButStrategy(live, want *appsv1.StatefulSet) bool {
	cp := want.DeepCopy()
	if live.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		cp.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	} else {
		p := int32(0)
		if ru := live.Spec.UpdateStrategy.RollingUpdate; ru != nil {
			p = ptr.Deref(ru.Partition, 0)
		}
		cp.Spec.UpdateStrategy = starrocks.WithPartition(want.Spec.UpdateStrategy, p)
	}
	_, hash, err := apply.Desired(cp)
	return err == nil && live.Annotations[apply.HashAnnotation] == hash
}
