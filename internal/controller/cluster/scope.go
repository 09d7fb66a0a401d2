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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

// clusterScope is one reconcile of one cluster: what it read, what the spec
// asks for, what is held back, and what the phases did so far. The phases
// read and fill it; the status is written from it, once (finish, or
// beside the writes), and the Events of the writes and errors at the end.
type clusterScope struct {
	src *srv1.StarRocksCluster
	in  *clusterInputs
	// want is nil when there is nothing to write: the spec cannot be built,
	// or a phase refused it; err says why.
	want  *desired
	holds reconcile.Holds
	// obs is what the status reports, read from the cache before the writes.
	obs *status.Observed
	// results are the writes made, err the reconcile's errors so far;
	// written are the desired objects already written in this reconcile.
	results []apply.Result
	written []client.Object
	err     error
	// status is the status write: early (beside the writes) or at the end.
	status statusWrite
	// started is true when the reconcile was a new cluster's first step:
	// its status and Event come with the next one.
	started bool
	// after is how soon to look again; zero for a watch event.
	after time.Duration
	// gates is what the gated rollouts and FE's word tell the status (gated_rollout.go).
	gates gateState
	// pods are the cluster's pods by component, listed once per reconcile (clusterPods).
	pods map[resources.Component][]corev1.Pod
}

// statusWrite is the outcome of writing status.
type statusWrite struct {
	// early is true when the status was written beside the writes, before their outcome was known.
	early   bool
	written bool
	err     error
}

// writable is false once nothing is left to write: the spec cannot be
// built, or a phase refused it; no phase runs after that.
func (s *clusterScope) writable() bool { return s.want != nil }

// scope gathers the inputs, validates the spec and builds the desired
// state: nothing after it reads what the objects are built from.
func (r *Reconciler) scope(ctx context.Context, src *srv1.StarRocksCluster) *clusterScope {
	s := &clusterScope{src: src, in: r.gather(ctx, src)}
	if err := validate(src); err != nil {
		s.fail(err)
		return s
	}
	want, hs, err := build(src, s.in, r.BuildOptions)
	if err != nil {
		s.fail(err)
		return s
	}
	s.want, s.holds = want, hs
	for _, c := range []resources.Component{resources.ComponentFE, resources.ComponentBE} {
		r.aroundItsPods(ctx, s, c)
	}
	return s
}

// aroundItsPods makes a StatefulSet of c that is gone while its pods run
// (deleted with its pods orphaned: to grow its claims, by this operator
// stopped before it made it again, or by hand) again with as many replicas
// as its pods, when the spec asks for fewer. Made at the spec's count,
// the StatefulSet controller would adopt the pods and delete those beyond
// it at once, with no DECOMMISSION or DROP: the scale-in then takes them
// out as usual, one step at a time (issue 34 item 31).
func (r *Reconciler) aroundItsPods(ctx context.Context, s *clusterScope, c resources.Component) {
	want := s.want.objects.StatefulSet(c)
	if s.in.live[c] != nil || want == nil {
		return
	}
	n := int32(0)
	for ord := range starrocks.PodsByOrdinal(want, r.clusterPods(ctx, s)[c]) {
		n = max(n, int32(ord)+1)
	}
	asked := ptr.Deref(want.Spec.Replicas, 1)
	if n <= asked {
		return
	}
	reason := srv1.ReasonDecommissioning
	if c == resources.ComponentFE {
		reason = srv1.ReasonLeavingFEGroup
	}
	s.hold(reconcile.Hold{Component: c, Object: want, Field: replicasField, Value: n, Reason: reason, Report: reconcile.Steps,
		Message: fmt.Sprintf("the %s StatefulSet is made again around its %d pods; the scale-in to %d goes on from there", want.Name, n, asked)})
}

// addErr records an error of the reconcile: reported and retried.
func (s *clusterScope) addErr(err error) {
	s.err = errors.Join(s.err, err)
}

// fail records an error that stops every write: only the status that says so is written.
func (s *clusterScope) fail(err error) {
	s.err = errors.Join(s.err, err)
	s.want = nil
}

// hold adds a hold that keeps a component, one object of it, or one field
// of that object (h.Field) at h.Value, or at its live value when h.Value is
// nil. A field is set at once: this is the one place a built object
// changes after it is built, and a hash of the object taken before (the
// rollout order's) is dropped, so that what is compared and written after
// is the held object.
func (s *clusterScope) hold(h reconcile.Hold) {
	if len(h.Field) > 0 {
		var err error
		if h.Value != nil {
			err = reconcile.SetField(h.Object, h.Field, h.Value)
		} else {
			err = reconcile.KeepFields(h.Object, s.live(h.Component, h.Object), [][]string{h.Field})
		}
		if err != nil {
			s.err = errors.Join(s.err, err)
			return
		}
		if s.want != nil {
			s.want.hashes.Forget(h.Object)
		}
	}
	s.holds = append(s.holds, h)
}

// live is the live copy of a desired workload of c; nil for other objects or none.
func (s *clusterScope) live(c resources.Component, obj client.Object) client.Object {
	if sts := s.in.live[c]; sts != nil && sts.Name == obj.GetName() {
		return sts
	}
	if s.in.proxy != nil && s.in.proxy.Name == obj.GetName() {
		return s.in.proxy
	}
	return nil
}

// reconcileError is everything that went wrong: the refused changes and the errors.
func (s *clusterScope) reconcileError() error {
	return errors.Join(s.holds.Err(), s.err)
}

// later asks to look again within d.
func (s *clusterScope) later(d time.Duration) {
	if d > 0 && (s.after == 0 || d < s.after) {
		s.after = d
	}
}

// recovering is true while the disaster recovery the spec asks for runs.
func (s *clusterScope) recovering() bool {
	_, ok := recovering(s.src, s.in.confs[resources.ComponentFE].content)
	return ok
}

// replicasField is spec.replicas, for field holds.
var replicasField = []string{"spec", "replicas"}

// templateField is the pod template, kept while another step moves a component.
var templateField = []string{"spec", "template"}

// configHashField is the .conf hash a StatefulSet records, kept with its
// template while a .conf change waits.
var configHashField = []string{"metadata", "annotations", resources.ConfigHashAnnotation}

// updateStrategyField is where a gate sets the partition or OnDelete.
var updateStrategyField = []string{"spec", "updateStrategy"}

// clusterPods lists the cluster's pods from the cache once per reconcile:
// the phases and the status read the same list.
func (r *Reconciler) clusterPods(ctx context.Context, s *clusterScope) map[resources.Component][]corev1.Pod {
	if s.pods == nil {
		s.pods = r.pods(ctx, s.src)
		if s.pods == nil {
			return nil // a failed list is tried again by the next caller
		}
	}
	return s.pods
}

// pods lists the cluster's pods from the cache, by component; nil when
// the list fails.
func (r *Reconciler) pods(ctx context.Context, src *srv1.StarRocksCluster) map[resources.Component][]corev1.Pod {
	owners := make([]string, 0, len(resources.Components))
	for _, c := range resources.Components {
		owners = append(owners, resources.SelectorLabels(src, c)[resources.OwnerLabel])
	}
	sel, err := labels.NewRequirement(resources.OwnerLabel, selection.In, owners)
	if err != nil {
		return nil
	}
	var list corev1.PodList
	if err := r.Client.List(ctx, &list, client.InNamespace(src.Namespace), client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*sel)}); err != nil {
		return nil
	}
	out := map[resources.Component][]corev1.Pod{}
	for _, p := range list.Items {
		if !ownedByCluster(&p, src) {
			continue
		}
		c := resources.Component(p.Labels[resources.ComponentLabel])
		out[c] = append(out[c], p)
	}
	return out
}

// ownedByCluster is true for pods of this cluster's workloads (pods are owned by
// a StatefulSet or ReplicaSet, not by the cluster): the owner label names them.
func ownedByCluster(p *corev1.Pod, src *srv1.StarRocksCluster) bool {
	return strings.HasPrefix(p.Labels[resources.OwnerLabel], src.Name+"-")
}

// event tells one Event on the cluster: the one way a phase tells what it
// did besides its StarRocks steps' Events (the executor's).
func (r *Reconciler) event(src *srv1.StarRocksCluster, warning bool, reason, action, note string) {
	kind := corev1.EventTypeNormal
	if warning {
		kind = corev1.EventTypeWarning
	}
	r.Recorder.Eventf(src, nil, kind, reason, action, "%s", status.Truncate(note, status.MaxEventNote))
}

// feAnswers is true once FE has a Ready pod: before, no FE query is sent
// (an API-only run, a new cluster), and no extra write follows from one.
func feAnswers(s *clusterScope) bool {
	sts := s.in.live[resources.ComponentFE]
	return sts != nil && sts.Status.ReadyReplicas > 0
}

// orderWorkload is component c's StatefulSet as it runs and as the spec
// wants it, as the rollout order and the pre-flight read them.
func orderWorkload(s *clusterScope, c resources.Component) starrocks.Workload {
	live, want := s.in.live[c], s.want.objects.StatefulSet(c)
	gated := live != nil && gateSet(live) && !starrocks.UserStrategy(resources.ComponentSpec(s.src, c).UpdateStrategy)
	kept := want != nil && slices.ContainsFunc(s.holds.Fields(want), func(f []string) bool { return slices.Equal(f, templateField) })
	return starrocks.Workload{Name: c.Title(), Live: live, Desired: want, Applied: live != nil && want != nil && s.want.hashes.Written(live, want), Gated: gated, Kept: kept}
}
