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
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/rollout"
	"github.com/srscale/starrocks-operator/internal/status"
	"github.com/srscale/starrocks-operator/internal/writeorder"
)

// pendingRequeue is how soon a reconcile that skipped a write, because the
// cache had not yet shown an earlier one, looks again.
const pendingRequeue = 5 * time.Second

// StarRocksClusterReconciler turns a StarRocksCluster into the objects that run it.
type StarRocksClusterReconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
	Applier  apply.Applier
	Configs  *configSource
	// FE reaches FE for shared-data CN cleanup (cn_cleanup.go).
	FE *feAccess
	// DenyList holds namespaces whose clusters are left alone.
	DenyList []string
	// APIReader reads what the operator does not cache (StorageClasses), rarely.
	APIReader client.Reader
	// BuildOptions are the operator-wide settings of the builders.
	BuildOptions resources.Options
	// statuses remembers the status this process last wrote per cluster, so
	// that a reconcile that runs before the cache shows it computes from it.
	statuses *apply.Recent[srv1.StarRocksClusterStatus]
	// StartApart makes the first reconcile of a cluster without its FE
	// StatefulSet write only what FE's pods need (see startFE); set with
	// more than one worker.
	StartApart bool
	// started holds what such a first reconcile wrote, for the next one's Event.
	started *startedWrites
}

// NewStarRocksClusterReconciler wires a reconciler to its client, events and config source.
func NewStarRocksClusterReconciler(c client.Client, recorder events.EventRecorder, configs *configSource, denyList []string) *StarRocksClusterReconciler {
	return &StarRocksClusterReconciler{
		Client:   c,
		Recorder: recorder,
		Applier:  adoptingApplier(c),
		Configs:  configs,
		DenyList: denyList,
		statuses: apply.NewRecent[srv1.StarRocksClusterStatus](),
		started:  newStartedWrites(),
	}
}

// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses,verbs=get;list;watch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksclusters/finalizers;starrockswarehouses/finalizers,verbs=update
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get,resourceNames=starrocksclusters.starrocks.com;starrockswarehouses.starrocks.com
// +kubebuilder:rbac:groups=apps,resources=statefulsets;deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete

// Reconcile brings one cluster's objects to its spec, then reports in status.
func (r *StarRocksClusterReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ctx = writeorder.WithOwner(ctx, req.String())
	src, err := r.get(ctx, req.NamespacedName)
	if src == nil || err != nil {
		if src == nil && err == nil {
			r.forget(req)
		}
		return ctrl.Result{}, err
	}
	if r.skip(src) {
		r.forget(req)
		return ctrl.Result{}, nil
	}
	want, specErr := r.desiredState(ctx, src)
	if specErr == nil {
		if res, done := r.startFE(ctx, src, want); done {
			return res, nil
		}
	}
	obs := r.observe(ctx, src, want)
	out := r.syncAndReport(ctx, src, want, obs, specErr)
	res, err := r.recordOutcome(ctx, src, out)
	return r.afterSync(ctx, src, want, res, err) // cn_cleanup.go
}

// forget drops what the process keeps of a cluster that is gone or left alone.
func (r *StarRocksClusterReconciler) forget(req ctrl.Request) {
	metrics.ClusterReady.DeleteLabelValues(req.Namespace, req.Name)
	r.started.forget(req.String())
}

// get reads the cluster from the cache, with the status this process last
// wrote in place of an older cached one: computed from the stale copy, the
// status would differ from what we wrote, and be written again. A cluster
// that is gone is nil, without error.
func (r *StarRocksClusterReconciler) get(ctx context.Context, key types.NamespacedName) (*srv1.StarRocksCluster, error) {
	src := &srv1.StarRocksCluster{}
	if err := r.Client.Get(ctx, key, src); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if st, ok := r.statuses.Ahead(key.String(), src.ResourceVersion); ok {
		src.Status = *st.DeepCopy()
	}
	return src, nil
}

// skip is true for clusters the operator must leave alone: being deleted
// (garbage collection removes the children), marked ignored, or in a denied
// namespace. The watches filter these too; checking here also covers
// reconciles queued by owned objects, pods and ConfigMaps.
func (r *StarRocksClusterReconciler) skip(src *srv1.StarRocksCluster) bool {
	return src.DeletionTimestamp != nil || src.Annotations[IgnoredAnnotation] == "true" || slices.Contains(r.DenyList, src.Namespace)
}

func adoptingApplier(c client.Client) apply.Applier {
	a := newApplier(c)
	a.AdoptFrom = []string{UpstreamFieldManager}
	return a
}

// newApplier writes StatefulSets ahead of the rest (see writeorder): the
// FE StatefulSet is what a new cluster waits for.
func newApplier(c client.Client) apply.Applier {
	a := apply.New(c, FieldOwner)
	a.Gating = func(o client.Object) bool { _, ok := o.(*appsv1.StatefulSet); return ok }
	return a
}

// desired is what the spec asks for: every component's objects, and which
// StatefulSets must keep their live spec while an image change rolls in order.
type desired struct {
	objects resources.ClusterObjects
	rollout rollout.Plan
	// held are StatefulSets that keep their live spec because the desired one
	// changes what Kubernetes cannot change in place; grow are those whose
	// claims grow (see checkImmutable).
	held map[resources.Component]string
	grow map[resources.Component][]claimGrowth
	// configHeld components keep their live objects: their .conf cannot be
	// read while their workload runs (see configUnavailable).
	configHeld map[resources.Component]bool
	// configWarning says why, for the ConfigUnavailable condition; nil when nothing is held.
	configWarning *specError
	// feConf is fe.conf, for what talks to FE (cn_cleanup.go).
	feConf string
	// drHeld components are neither written nor deleted (disaster_recovery.go).
	drHeld map[resources.Component]bool
	// hashes holds the desired StatefulSets' hashes, compared more than once.
	hashes *apply.Hashes
}

// desiredState resolves the referenced .conf files and builds every
// component's objects. A nil result comes with a *specError.
func (r *StarRocksClusterReconciler) desiredState(ctx context.Context, src *srv1.StarRocksCluster) (*desired, error) {
	if src.Spec.StarRocksFeSpec == nil {
		// Without FE the builders build nothing; deleting BE and CN (and their data) for it would be wrong.
		return nil, &specError{reason: srv1.ReasonFeSpecMissing, msg: "spec.starRocksFeSpec is required: StarRocks cannot run without FE; nothing was changed"}
	}
	if err := checkNames(src); err != nil {
		return nil, err
	}
	if msg := resources.ResolverError(src); msg != "" {
		return nil, &specError{reason: srv1.ReasonInvalidResolver, msg: msg + "; nothing was changed"}
	}
	if errs := resources.StorageErrors(src); len(errs) > 0 {
		return nil, &specError{reason: srv1.ReasonInvalidStorageVolume, msg: strings.Join(errs, "; ") + "; nothing was changed"}
	}
	cfg := resources.Configs{Options: r.BuildOptions, Live: r.liveConfigStates(ctx, src)}
	// The upstream reads a missing .conf as empty and carries on. For a running
	// component we keep its live objects instead, and warn; a new one fails.
	var held map[resources.Component]bool
	var warning *specError
	for _, c := range []struct {
		component resources.Component
		content   *string
	}{{resources.ComponentFE, &cfg.FE}, {resources.ComponentBE, &cfg.BE}, {resources.ComponentCN, &cfg.CN}} {
		var err error
		*c.content, err = r.config(ctx, src, c.component)
		if errs := resources.PortErrors(c.component, *c.content); err == nil && len(errs) > 0 {
			return nil, &specError{reason: srv1.ReasonInvalidConfig, msg: fmt.Sprintf("%s: %s; nothing was changed", configField(c.component), strings.Join(errs, "; "))}
		}
		if err != nil {
			var specErr *specError
			if !errors.As(err, &specErr) || r.liveStatefulSet(ctx, src, c.component) == nil {
				return nil, err // a new component: nothing to keep, say what is wrong
			}
			if held == nil {
				held, warning = map[resources.Component]bool{}, specErr
			}
			held[c.component] = true
		}
	}
	d := &desired{objects: resources.Build(src, cfg), hashes: apply.NewHashes(), held: map[resources.Component]string{}, grow: map[resources.Component][]claimGrowth{},
		configHeld: held, configWarning: warning, feConf: cfg.FE}
	if held[resources.ComponentFE] {
		// BE, CN and the proxy read FE's ports from fe.conf: keep them all as they run.
		d.configHeld = map[resources.Component]bool{}
		for _, c := range resources.Components {
			d.configHeld[c] = true
		}
	}
	resources.KeepFEQuorum(d.objects.StatefulSet(resources.ComponentFE), r.liveStatefulSet(ctx, src, resources.ComponentFE))
	if err := r.disasterRecovery(ctx, src, d); err != nil {
		return nil, err
	}
	for _, c := range resources.Components {
		if d.configHeld[c] {
			continue // keeps its live objects whatever they say
		}
		check := checkImmutable(r.liveStatefulSet(ctx, src, c), d.objects.StatefulSet(c), specField(c))
		if check.held != "" {
			d.held[c] = check.held
		} else if len(check.grow) > 0 {
			d.grow[c] = check.grow
		}
	}
	workload := func(c resources.Component) rollout.Workload {
		live, want := r.liveStatefulSet(ctx, src, c), d.objects.StatefulSet(c)
		return rollout.Workload{Name: c.Title(), Live: live, Desired: want, Applied: live != nil && want != nil && d.hashes.Written(live, want)}
	}
	d.rollout = rollout.Order(workload(resources.ComponentFE), workload(resources.ComponentBE), workload(resources.ComponentCN))
	return d, nil
}

// Kubernetes limits on the names of a cluster's objects: a Service name is a
// DNS label, and a StatefulSet's name goes with a 10-character revision hash
// into a label value, which is a DNS label too.
const (
	maxServiceName     = 63
	maxStatefulSetName = 63 - 11
)

// checkNames rejects a cluster whose name makes a child's name too long for
// Kubernetes: the writes would fail forever with a message about the child.
func checkNames(src *srv1.StarRocksCluster) error {
	named := resources.Named(src)
	for _, c := range resources.Components {
		for _, o := range named.Of(c) {
			limit := 0
			switch o.(type) {
			case *corev1.Service:
				limit = maxServiceName
			case *appsv1.StatefulSet:
				limit = maxStatefulSetName
			default:
				continue
			}
			if len(o.GetName()) > limit {
				return &specError{reason: srv1.ReasonNameTooLong, msg: fmt.Sprintf(
					"metadata.name: %q is too long: its %s would be named %q, %d characters, and Kubernetes allows %d; nothing was changed",
					src.Name, reflect.TypeOf(o).Elem().Name(), o.GetName(), len(o.GetName()), limit)}
			}
		}
	}
	return nil
}

// liveConfigStates reads, per workload, what it records of its configuration
// (see resources.ConfigState).
func (r *StarRocksClusterReconciler) liveConfigStates(ctx context.Context, src *srv1.StarRocksCluster) map[resources.Component]resources.ConfigState {
	out := map[resources.Component]resources.ConfigState{}
	state := func(obj metav1.Object, tmpl metav1.Object) resources.ConfigState {
		return resources.ConfigState{Template: tmpl.GetAnnotations()[resources.ConfigHashAnnotation], Recorded: obj.GetAnnotations()[resources.ConfigHashAnnotation]}
	}
	for _, c := range []resources.Component{resources.ComponentFE, resources.ComponentBE, resources.ComponentCN} {
		if sts := r.liveStatefulSet(ctx, src, c); sts != nil {
			out[c] = state(sts, &sts.Spec.Template)
		}
	}
	if src.Spec.StarRocksFeProxySpec != nil {
		d := &appsv1.Deployment{}
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(resources.Named(src).FEProxy.Deployment), d); err == nil {
			out[resources.ComponentFEProxy] = state(d, &d.Spec.Template)
		}
	}
	return out
}

// config returns the .conf file that the component's configMapInfo names; empty when none.
func (r *StarRocksClusterReconciler) config(ctx context.Context, src *srv1.StarRocksCluster, c resources.Component) (string, error) {
	from, ok := resources.ConfSourceOf(c, resources.ComponentSpec(src, c))
	if !ok {
		return "", nil
	}
	content, err := r.Configs.Content(ctx, src.Namespace, from.ConfigMap, from.Key, configField(c))
	var specErr *specError
	if from.Fallback && errors.As(err, &specErr) {
		return "", nil // a .conf the user mounts through configMaps[]: without it, the defaults
	}
	return content, err
}

// specField is the spec path of a component, for messages.
func specField(c resources.Component) string {
	return map[resources.Component]string{
		resources.ComponentFE:      "spec.starRocksFeSpec",
		resources.ComponentBE:      "spec.starRocksBeSpec",
		resources.ComponentCN:      "spec.starRocksCnSpec",
		resources.ComponentFEProxy: "spec.starRocksFeProxySpec",
	}[c]
}

// configField is the spec path of a component's configMapInfo, for messages.
func configField(c resources.Component) string {
	return specField(c) + ".configMapInfo"
}

// heldError says which StatefulSets keep their live spec, and why; nil when none.
func (d *desired) heldError() error {
	if d == nil || len(d.held) == 0 {
		return nil
	}
	var msgs []string
	for _, c := range resources.Components {
		if m, ok := d.held[c]; ok {
			msgs = append(msgs, m)
		}
	}
	return &specError{reason: srv1.ReasonImmutableFieldChanged, msg: strings.Join(msgs, "; ")}
}

// observe reads, from the cache, what status reports of each component. It
// runs before the writes: a new object reads the same before and after its
// creation, so the status write need not wait for them.
func (r *StarRocksClusterReconciler) observe(ctx context.Context, src *srv1.StarRocksCluster, want *desired) status.Observed {
	named := resources.Named(src)
	pods := r.pods(ctx, src)
	feReady := status.FEReady(src, r.liveStatefulSet(ctx, src, resources.ComponentFE))
	obs := status.Observed{}
	for _, c := range resources.Components {
		spec := resources.LoadSpec(src, c)
		if spec == nil {
			continue
		}
		comp := &status.Component{Name: c.Title(), ServiceName: named.Service(c).Name, Pods: pods[c], Replicas: ptr.Deref(spec.Replicas, 1)}
		if c != resources.ComponentFE && !feReady {
			comp.Waiting = "waiting for FE to become ready"
		}
		if want != nil && want.drHeld[c] {
			comp.Waiting = "held while disaster recovery runs"
		}
		if sts := named.StatefulSet(c); sts != nil {
			comp.ResourceNames = []string{sts.Name}
			comp.StatefulSet = r.liveStatefulSet(ctx, src, c)
			if want != nil {
				if comp.Waiting == "" {
					comp.Waiting = want.rollout.Waiting(want.objects.StatefulSet(c))
				}
				comp.Outdated = comp.StatefulSet == nil || !want.hashes.Written(comp.StatefulSet, want.objects.StatefulSet(c))
				if comp.StatefulSet != nil && r.Applier.Unrestorable(comp.StatefulSet, want.objects.StatefulSet(c)) {
					obs.Unrestorable = append(obs.Unrestorable, "StatefulSet "+comp.StatefulSet.Name)
				}
			}
		}
		switch c {
		case resources.ComponentFE:
			obs.FE = comp
		case resources.ComponentBE:
			obs.BE = comp
		case resources.ComponentCN:
			obs.CN = comp
			obs.Selector = labelsString(resources.SelectorLabels(src, c))
			if p := src.Spec.StarRocksCnSpec.AutoScalingPolicy; p != nil {
				// The version asked for is reported; the HPA is written as v2, which every version maps onto.
				obs.HPAName, obs.HPAVersion = src.CnAutoscalerName(), p.Version
				if obs.HPAVersion == "" {
					obs.HPAVersion = srv1.AutoScalerV2
				}
			}
		case resources.ComponentFEProxy:
			obs.FEProxy = comp
			comp.ResourceNames = []string{named.FEProxy.Deployment.Name}
			d := &appsv1.Deployment{}
			if err := r.Client.Get(ctx, client.ObjectKeyFromObject(named.FEProxy.Deployment), d); err == nil {
				comp.Deployment = d
			}
			if want != nil && want.objects.FEProxy != nil {
				comp.Outdated = comp.Deployment == nil || !want.hashes.Written(comp.Deployment, want.objects.FEProxy.Deployment)
				if comp.Deployment != nil && r.Applier.Unrestorable(comp.Deployment, want.objects.FEProxy.Deployment) {
					obs.Unrestorable = append(obs.Unrestorable, "Deployment "+comp.Deployment.Name)
				}
			}
		}
	}
	if want != nil {
		obs.Rollout = want.rollout.Message
		if w := want.configWarning; w != nil {
			obs.ConfigWarning, obs.ConfigWarningReason = w, w.reason
		}
	}
	obs.RemovalHeld = r.heldRemovals(ctx, src)
	obs.DisasterRecovery = r.disasterRecoveryStatus(ctx, src) // disaster_recovery.go
	return obs
}

func (r *StarRocksClusterReconciler) liveStatefulSet(ctx context.Context, src *srv1.StarRocksCluster, c resources.Component) *appsv1.StatefulSet {
	name := resources.StatefulSetName(src, c)
	if name == "" {
		return nil
	}
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: src.Namespace, Name: name}, sts); err != nil {
		return nil
	}
	return sts
}

func (r *StarRocksClusterReconciler) pods(ctx context.Context, src *srv1.StarRocksCluster) map[resources.Component][]corev1.Pod {
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

// outcome is what one reconcile did, for events, metrics and the result.
type outcome struct {
	results []apply.Result
	// unrestorableReported are the unrestorable workloads the status knew of.
	unrestorableReported []string
	// configWarning is a running component's unreadable .conf (see desired.held).
	configWarning *specError
	// err is the spec or sync error; statusErr the status write's.
	err, statusErr error
	// specErr is a spec problem that held back part of the writes but not
	// the rest (an immutable field): reported, not retried.
	specErr       error
	statusWritten bool
}

// syncAndReport writes the objects and the status. A spec error writes
// nothing but the status that reports it.
func (r *StarRocksClusterReconciler) syncAndReport(ctx context.Context, src *srv1.StarRocksCluster, want *desired, obs status.Observed, specErr error) outcome {
	if specErr != nil {
		obs.ReconcileError, obs.ReconcileErrorReason = specErr, errorReason(specErr)
		written, err := r.writeStatus(ctx, src, status.Compute(src, obs))
		return outcome{err: specErr, statusErr: err, statusWritten: written}
	}
	out := outcome{unrestorableReported: obs.Unrestorable, specErr: want.heldError(), configWarning: want.configWarning}
	if out.specErr != nil {
		// Reported beside the writes; the other components are still written.
		obs.ReconcileError, obs.ReconcileErrorReason = out.specErr, errorReason(out.specErr)
	}
	out.statusWritten, out.statusErr = r.reportBeside(ctx, src, obs, func() error {
		out.results, out.err = r.sync(ctx, src, want)
		if out.err != nil && out.specErr != nil {
			return errors.Join(out.specErr, out.err)
		}
		return out.err
	})
	return out
}

// reportBeside writes the status computed from obs while write runs: status
// is read from the cache before the writes, so it need not wait for them.
// When write fails, the status is written again with the error, which the
// first write could not know.
//
// A cluster whose last reconcile failed is different: its writes will most
// likely fail again, and a status computed before them would clear the
// error only to set it again, two status writes (and an Event) per retry,
// for as long as the error lasts. Its status waits for the writes instead,
// and costs nothing while the error stays the same.
func (r *StarRocksClusterReconciler) reportBeside(ctx context.Context, src *srv1.StarRocksCluster, obs status.Observed, write func() error) (bool, error) {
	if meta.IsStatusConditionTrue(src.Status.Conditions, srv1.ConditionReconcileError) {
		if err := write(); err != nil {
			obs.ReconcileError, obs.ReconcileErrorReason = err, errorReason(err)
		}
		return r.writeStatus(ctx, src, status.Compute(src, obs))
	}
	var written bool
	var statusErr error
	var wg sync.WaitGroup
	wg.Go(func() { written, statusErr = r.writeStatus(ctx, src, status.Compute(src, obs)) })
	err := write()
	wg.Wait()
	if err == nil || statusErr != nil {
		return written, statusErr
	}
	obs.ReconcileError, obs.ReconcileErrorReason = err, errorReason(err)
	if st, ok := r.statuses.Ahead(client.ObjectKeyFromObject(src).String(), src.ResourceVersion); ok {
		src.Status = *st.DeepCopy() // compute from what we just wrote
	}
	again, statusErr := r.writeStatus(ctx, src, status.Compute(src, obs))
	return written || again, statusErr
}

// sync writes FE first; BE, CN and the FE proxy once FE is ready. Objects of
// removed components, or removed from one (the CN autoscaler), are deleted
// whatever FE's state. A failed write of one component does not hold back
// the others: BE, CN and the proxy depend on FE being ready, not on FE's
// last write having succeeded.
func (r *StarRocksClusterReconciler) sync(ctx context.Context, src *srv1.StarRocksCluster, want *desired) ([]apply.Result, error) {
	var growErrs []error
	for _, c := range resources.Components {
		if grow, ok := want.grow[c]; ok && (c == resources.ComponentFE || status.FEReady(src, r.liveStatefulSet(ctx, src, resources.ComponentFE))) {
			if err := r.expandClaims(ctx, r.liveStatefulSet(ctx, src, c), grow); err != nil {
				growErrs = append(growErrs, err)
			}
		}
	}
	results, feErr := r.Applier.ApplyAll(ctx, want.applicable(resources.ComponentFE))
	feReady := status.FEReady(src, r.liveStatefulSet(ctx, src, resources.ComponentFE))
	named := resources.Named(src)
	var toApply, toDelete []client.Object
	for _, c := range resources.Components {
		if want.drHeld[c] {
			continue
		}
		if c != resources.ComponentFE && feReady {
			toApply = append(toApply, want.applicable(c)...)
		}
		if !removalHeld(src, c) {
			toDelete = append(toDelete, unwanted(named.Of(c), want.objects.Of(c))...)
		}
	}
	// BE, CN and the proxy don't depend on each other: one parallel round.
	applied, applyErr := r.Applier.ApplyAll(ctx, toApply)
	deleted, deleteErr := r.Applier.DeleteAll(ctx, toDelete)
	return slices.Concat(results, applied, deleted), errors.Join(append([]error{feErr, applyErr, deleteErr}, growErrs...)...)
}

// holdsData are the components whose pods keep data (BE) or caches (CN).
var holdsData = []resources.Component{resources.ComponentBE, resources.ComponentCN}

// removalHeld is true for a component that holds data, whose spec is gone,
// and whose deletion the user has not agreed to.
func removalHeld(src *srv1.StarRocksCluster, c resources.Component) bool {
	return slices.Contains(holdsData, c) && resources.LoadSpec(src, c) == nil && src.Annotations[DeleteRemovedComponentsAnnotation] != "true"
}

// heldRemovals says which removed components wait for consent, and how to give it.
func (r *StarRocksClusterReconciler) heldRemovals(ctx context.Context, src *srv1.StarRocksCluster) string {
	var held []string
	for _, c := range holdsData {
		if removalHeld(src, c) && r.liveStatefulSet(ctx, src, c) != nil {
			held = append(held, c.Title())
		}
	}
	if len(held) == 0 {
		return ""
	}
	return fmt.Sprintf("%s removed from the spec but kept with their data; annotate the cluster %s=true to delete them",
		strings.Join(held, " and "), DeleteRemovedComponentsAnnotation)
}

// applicable is what to apply of a component now: all of it, less a
// StatefulSet that keeps its live spec during an ordered rollout.
func (d *desired) applicable(c resources.Component) []client.Object {
	if d.configHeld[c] {
		return nil
	}
	sts := d.objects.StatefulSet(c)
	_, immutable := d.held[c]
	_, growing := d.grow[c]
	if !d.rollout.Holds(sts) && !immutable && !growing {
		return d.objects.Of(c)
	}
	return slices.DeleteFunc(d.objects.Of(c), func(o client.Object) bool { return o == client.Object(sts) })
}

// unwanted are the objects of all that a component can have that are not wanted.
func unwanted(all, wanted []client.Object) []client.Object {
	return slices.DeleteFunc(all, func(o client.Object) bool {
		return slices.ContainsFunc(wanted, func(w client.Object) bool { return w.GetName() == o.GetName() && sameKind(w, o) })
	})
}

func sameKind(a, b client.Object) bool {
	return reflect.TypeOf(a) == reflect.TypeOf(b)
}

// writeStatus writes the status subresource only when the computed status differs.
func (r *StarRocksClusterReconciler) writeStatus(ctx context.Context, src *srv1.StarRocksCluster, st srv1.StarRocksClusterStatus) (bool, error) {
	metrics.ClusterReady.WithLabelValues(src.Namespace, src.Name).Set(boolGauge(meta.IsStatusConditionTrue(st.Conditions, srv1.ConditionReady)))
	if equality.Semantic.DeepEqual(src.Status, st) {
		return false, nil
	}
	wasReady := meta.IsStatusConditionTrue(src.Status.Conditions, srv1.ConditionReady)
	// Server-side apply of the whole status: fields this status no longer has
	// are removed even when the cached copy we compared with was stale, which a
	// merge patch computed against that copy would miss.
	body, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if err != nil {
		return false, err
	}
	patched := &unstructured.Unstructured{Object: map[string]any{"status": body}}
	patched.SetGroupVersionKind(srv1.GroupVersion.WithKind("StarRocksCluster"))
	patched.SetNamespace(src.Namespace)
	patched.SetName(src.Name)
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(patched), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
		return false, fmt.Errorf("writing status of %s/%s: %w", src.Namespace, src.Name, err)
	}
	r.statuses.Record(client.ObjectKeyFromObject(src).String(), patched.GetResourceVersion(), *st.DeepCopy())
	if !wasReady && meta.IsStatusConditionTrue(st.Conditions, srv1.ConditionReady) && !src.CreationTimestamp.IsZero() {
		metrics.TimeToReady.Observe(time.Since(src.CreationTimestamp.Time).Seconds())
	}
	return true, nil
}

// actionReport says how each kind of write is counted and told in an Event.
type actionReport struct {
	reason, action, verb string
}

// actionReports is keyed by what apply did; actions missing here (unchanged)
// are neither counted nor told.
var actionReports = map[apply.Action]actionReport{
	apply.Created:  {reason: "Created", action: "Create", verb: "created"},
	apply.Updated:  {reason: "Updated", action: "Update", verb: "updated"},
	apply.Restored: {reason: "DriftCorrected", action: "Update", verb: "restored (changed by someone else)"},
	apply.Deleted:  {reason: "Deleted", action: "Delete", verb: "deleted"},
}

// recordOutcome emits one Event per kind of write, never one per reconcile,
// and a warning only when the reconcile error is new; counts the writes and
// the reconcile; and decides when to come back.
func (r *StarRocksClusterReconciler) recordOutcome(ctx context.Context, src *srv1.StarRocksCluster, out outcome) (ctrl.Result, error) {
	byAction := map[apply.Action][]string{}
	for _, res := range r.started.take(src) { // counted when written, told now
		if _, told := actionReports[res.Action]; told && !res.Pending {
			byAction[res.Action] = append(byAction[res.Action], res.Kind+" "+res.Name)
		}
	}
	wrote, pending, unreported := out.statusWritten, false, false
	for _, res := range out.results {
		pending = pending || res.Pending
		if res.Unrestorable && (res.Kind == "StatefulSet" || res.Kind == "Deployment") {
			unreported = unreported || !slices.Contains(out.unrestorableReported, res.Kind+" "+res.Name)
		}
		if _, told := actionReports[res.Action]; !told || res.Pending {
			continue
		}
		wrote = true
		metrics.ObjectWrites.WithLabelValues(res.Kind, string(res.Action)).Inc()
		byAction[res.Action] = append(byAction[res.Action], res.Kind+" "+res.Name)
	}
	for _, action := range slices.Sorted(mapKeys(byAction)) {
		rep, objs := actionReports[action], byAction[action]
		slices.Sort(objs)
		r.Recorder.Eventf(src, nil, corev1.EventTypeNormal, rep.reason, rep.action, "%s", status.Truncate(rep.verb+" "+strings.Join(objs, ", "), status.MaxEventNote))
	}
	if told := errors.Join(out.specErr, out.err); told != nil {
		old := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError)
		if old == nil || old.Status != metav1.ConditionTrue || old.Message != status.Truncate(told.Error(), status.MaxConditionMessage) {
			r.warn(src, errorReason(told), told)
		}
		logf.FromContext(ctx).V(1).Info("reconcile failed", "error", told.Error())
	}

	if w := out.configWarning; w != nil {
		old := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionConfigUnavailable)
		if old == nil || old.Status != metav1.ConditionTrue || !strings.HasPrefix(old.Message, w.Error()) {
			r.warn(src, w.reason, w)
		}
	}

	switch {
	case out.err != nil || out.specErr != nil || out.statusErr != nil:
		metrics.ReconcileOutcomes.WithLabelValues("error").Inc()
	case wrote:
		metrics.ReconcileOutcomes.WithLabelValues("changed").Inc()
	default:
		metrics.ReconcileOutcomes.WithLabelValues("unchanged").Inc()
	}
	var specErr *specError
	if errors.As(out.err, &specErr) {
		return ctrl.Result{}, out.statusErr // the user must fix it; the cluster and ConfigMap watches bring us back
	}
	if err := errors.Join(out.err, out.statusErr); err != nil {
		return ctrl.Result{}, err
	}
	// A drift found beyond apply's reach in this reconcile is not in the
	// status computed before it: look again soon, to report it.
	if pending || unreported {
		return ctrl.Result{RequeueAfter: pendingRequeue}, nil
	}
	return ctrl.Result{}, nil
}

// warn emits a Warning Event with our reason and, beside it, one with the
// upstream operator's reason for the component that failed (SyncFeFailed, ...),
// so that alerts written for the upstream keep firing.
func (r *StarRocksClusterReconciler) warn(src *srv1.StarRocksCluster, reason string, err error) {
	note := status.Truncate(err.Error(), status.MaxEventNote)
	r.Recorder.Eventf(src, nil, corev1.EventTypeWarning, reason, "Reconcile", "%s", note)
	if up := upstreamReason(src, err); up != "" {
		r.Recorder.Eventf(src, nil, corev1.EventTypeWarning, up, "Reconcile", "%s", note)
	}
}

// upstreamReasons are the upstream operator's Event reasons per component.
var upstreamReasons = map[resources.Component]string{
	resources.ComponentFE:      "SyncFeFailed",
	resources.ComponentBE:      "SyncBeFailed",
	resources.ComponentCN:      "SyncCnFailed",
	resources.ComponentFEProxy: "SyncFeProxyFailed",
}

// upstreamReason is the upstream's Event reason for err: the component named
// by the spec field a spec error is about, or owning the object a write
// failed on; "" when err names none.
func upstreamReason(src *srv1.StarRocksCluster, err error) string {
	msg := err.Error()
	var specErr *specError
	if errors.As(err, &specErr) && specErr.reason == srv1.ReasonFeSpecMissing {
		return upstreamReasons[resources.ComponentFE]
	}
	for field, c := range map[string]resources.Component{
		"spec.starRocksFeSpec.": resources.ComponentFE, "spec.starRocksBeSpec.": resources.ComponentBE,
		"spec.starRocksCnSpec.": resources.ComponentCN, "spec.starRocksFeProxySpec.": resources.ComponentFEProxy,
	} {
		if strings.HasPrefix(msg, field) {
			return upstreamReasons[c]
		}
	}
	named := resources.Named(src)
	for _, c := range resources.Components {
		for _, o := range named.Of(c) {
			if strings.Contains(msg, " "+o.GetName()+": ") {
				return upstreamReasons[c]
			}
		}
	}
	return ""
}

// errorReason is the condition reason of a reconcile error.
func errorReason(err error) string {
	var specErr *specError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &specErr):
		return specErr.reason
	default:
		return srv1.ReasonApplyFailed
	}
}

func boolGauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
