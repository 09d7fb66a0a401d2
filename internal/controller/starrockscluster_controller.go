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
	"k8s.io/apimachinery/pkg/runtime"
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
	// statuses remembers the status this process last wrote per cluster, so
	// that a reconcile that runs before the cache shows it computes from it.
	statuses *apply.Recent[srv1.StarRocksClusterStatus]
}

// NewStarRocksClusterReconciler wires a reconciler to its client, events and config source.
func NewStarRocksClusterReconciler(c client.Client, recorder events.EventRecorder, configs *configSource, denyList []string) *StarRocksClusterReconciler {
	return &StarRocksClusterReconciler{
		Client:   c,
		Recorder: recorder,
		Applier:  apply.New(c, FieldOwner),
		Configs:  configs,
		DenyList: denyList,
		statuses: apply.NewRecent[srv1.StarRocksClusterStatus](),
	}
}

// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses,verbs=get;list;watch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses/status,verbs=get;update;patch
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
	src, err := r.get(ctx, req.NamespacedName)
	if src == nil || err != nil {
		return ctrl.Result{}, err
	}
	if r.skip(src) {
		return ctrl.Result{}, nil
	}
	want, specErr := r.desiredState(ctx, src)
	obs := r.observe(ctx, src, want)
	out := r.syncAndReport(ctx, src, want, obs, specErr)
	res, err := r.recordOutcome(ctx, src, out)
	return r.afterSync(ctx, src, want, res, err) // cn_cleanup.go
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

// desired is what the spec asks for: every component's objects, and which
// StatefulSets must keep their live spec while an image change rolls in order.
type desired struct {
	objects resources.ClusterObjects
	rollout rollout.Plan
	// feConf is fe.conf, for what talks to FE (cn_cleanup.go).
	feConf string
	// held components are neither written nor deleted (disaster_recovery.go).
	held map[resources.Component]bool
}

// desiredState resolves the referenced .conf files and builds every
// component's objects. A nil result comes with a *specError.
func (r *StarRocksClusterReconciler) desiredState(ctx context.Context, src *srv1.StarRocksCluster) (*desired, error) {
	if src.Spec.StarRocksFeSpec == nil {
		// Without FE the builders build nothing; deleting BE and CN (and their data) for it would be wrong.
		return nil, &specError{reason: srv1.ReasonFeSpecMissing, msg: "spec.starRocksFeSpec is required: StarRocks cannot run without FE; nothing was changed"}
	}
	var cfg resources.Configs
	for _, c := range []struct {
		component resources.Component
		content   *string
	}{{resources.ComponentFE, &cfg.FE}, {resources.ComponentBE, &cfg.BE}, {resources.ComponentCN, &cfg.CN}} {
		var err error
		if *c.content, err = r.config(ctx, src, c.component); err != nil {
			return nil, err
		}
	}
	d := &desired{objects: resources.Build(src, cfg), feConf: cfg.FE}
	if err := r.disasterRecovery(ctx, src, d); err != nil {
		return nil, err
	}
	workload := func(c resources.Component) rollout.Workload {
		return rollout.Workload{Name: c.Title(), Live: r.liveStatefulSet(ctx, src, c), Desired: d.objects.StatefulSet(c)}
	}
	d.rollout = rollout.Order(workload(resources.ComponentFE), workload(resources.ComponentBE), workload(resources.ComponentCN))
	return d, nil
}

// config returns the .conf file that the component's configMapInfo names; empty when none.
func (r *StarRocksClusterReconciler) config(ctx context.Context, src *srv1.StarRocksCluster, c resources.Component) (string, error) {
	spec := resources.LoadSpec(src, c)
	if spec == nil || spec.ConfigMapInfo.ConfigMapName == "" {
		return "", nil
	}
	info := spec.ConfigMapInfo
	return r.Configs.Content(ctx, src.Namespace, info.ConfigMapName, info.ResolveKey, configField(c))
}

// configField is the spec path of a component's configMapInfo, for messages.
func configField(c resources.Component) string {
	return map[resources.Component]string{
		resources.ComponentFE: "spec.starRocksFeSpec.configMapInfo",
		resources.ComponentBE: "spec.starRocksBeSpec.configMapInfo",
		resources.ComponentCN: "spec.starRocksCnSpec.configMapInfo",
	}[c]
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
		if want != nil && want.held[c] {
			comp.Waiting = "held while disaster recovery runs"
		}
		if sts := named.StatefulSet(c); sts != nil {
			comp.ResourceNames = []string{sts.Name}
			comp.StatefulSet = r.liveStatefulSet(ctx, src, c)
			if want != nil && comp.Waiting == "" {
				comp.Waiting = want.rollout.Waiting(want.objects.StatefulSet(c))
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
			if src.Spec.StarRocksCnSpec.AutoScalingPolicy != nil {
				obs.HPAName, obs.HPAVersion = src.CnAutoscalerName(), srv1.AutoScalerV2
			}
		case resources.ComponentFEProxy:
			obs.FEProxy = comp
			comp.ResourceNames = []string{named.FEProxy.Deployment.Name}
			d := &appsv1.Deployment{}
			if err := r.Client.Get(ctx, client.ObjectKeyFromObject(named.FEProxy.Deployment), d); err == nil {
				comp.Deployment = d
			}
		}
	}
	if want != nil {
		obs.Rollout = want.rollout.Message
	}
	obs.DisasterRecovery = r.disasterRecoveryStatus(ctx, src) // disaster_recovery.go
	return obs
}

func (r *StarRocksClusterReconciler) liveStatefulSet(ctx context.Context, src *srv1.StarRocksCluster, c resources.Component) *appsv1.StatefulSet {
	name := resources.Named(src).StatefulSet(c)
	if name == nil {
		return nil
	}
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(name), sts); err != nil {
		return nil
	}
	return sts
}

func (r *StarRocksClusterReconciler) pods(ctx context.Context, src *srv1.StarRocksCluster) map[resources.Component][]corev1.Pod {
	var list corev1.PodList
	if err := r.Client.List(ctx, &list, client.InNamespace(src.Namespace), client.MatchingLabels{resources.ClusterLabel: src.Name}); err != nil {
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
	// err is the spec or sync error; statusErr the status write's.
	err, statusErr error
	statusWritten  bool
}

// syncAndReport writes the objects and the status. A spec error writes
// nothing but the status that reports it.
func (r *StarRocksClusterReconciler) syncAndReport(ctx context.Context, src *srv1.StarRocksCluster, want *desired, obs status.Observed, specErr error) outcome {
	if specErr != nil {
		obs.ReconcileError, obs.ReconcileErrorReason = specErr, errorReason(specErr)
		written, err := r.writeStatus(ctx, src, status.Compute(src, obs))
		return outcome{err: specErr, statusErr: err, statusWritten: written}
	}
	var out outcome
	out.statusWritten, out.statusErr = r.reportBeside(ctx, src, obs, func() error {
		out.results, out.err = r.sync(ctx, src, want)
		return out.err
	})
	return out
}

// reportBeside writes the status computed from obs while write runs: status
// is read from the cache before the writes, so it need not wait for them.
// When write fails, the status is written again with the error, which the
// first write could not know.
func (r *StarRocksClusterReconciler) reportBeside(ctx context.Context, src *srv1.StarRocksCluster, obs status.Observed, write func() error) (bool, error) {
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
// whatever FE's state.
func (r *StarRocksClusterReconciler) sync(ctx context.Context, src *srv1.StarRocksCluster, want *desired) ([]apply.Result, error) {
	results, err := r.Applier.ApplyAll(ctx, want.applicable(resources.ComponentFE))
	if err != nil {
		return results, err
	}
	feReady := status.FEReady(src, r.liveStatefulSet(ctx, src, resources.ComponentFE))
	named := resources.Named(src)
	var toApply, toDelete []client.Object
	for _, c := range resources.Components {
		if want.held[c] {
			continue
		}
		if c != resources.ComponentFE && feReady {
			toApply = append(toApply, want.applicable(c)...)
		}
		toDelete = append(toDelete, unwanted(named.Of(c), want.objects.Of(c))...)
	}
	// BE, CN and the proxy don't depend on each other: one parallel round.
	applied, applyErr := r.Applier.ApplyAll(ctx, toApply)
	deleted, deleteErr := r.Applier.DeleteAll(ctx, toDelete)
	return slices.Concat(results, applied, deleted), errors.Join(applyErr, deleteErr)
}

// applicable is what to apply of a component now: all of it, less a
// StatefulSet that keeps its live spec during an ordered rollout.
func (d *desired) applicable(c resources.Component) []client.Object {
	held := d.objects.StatefulSet(c)
	if !d.rollout.Holds(held) {
		return d.objects.Of(c)
	}
	return slices.DeleteFunc(d.objects.Of(c), func(o client.Object) bool { return o == client.Object(held) })
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
	wrote, pending := out.statusWritten, false
	for _, res := range out.results {
		pending = pending || res.Pending
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
		r.Recorder.Eventf(src, nil, corev1.EventTypeNormal, rep.reason, rep.action, "%s %s", rep.verb, strings.Join(objs, ", "))
	}
	if out.err != nil {
		old := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError)
		if old == nil || old.Status != metav1.ConditionTrue || old.Message != out.err.Error() {
			r.Recorder.Eventf(src, nil, corev1.EventTypeWarning, errorReason(out.err), "Reconcile", "%s", out.err.Error())
		}
		logf.FromContext(ctx).V(1).Info("reconcile failed", "error", out.err.Error())
	}

	switch {
	case out.err != nil || out.statusErr != nil:
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
	if pending {
		return ctrl.Result{RequeueAfter: pendingRequeue}, nil
	}
	return ctrl.Result{}, nil
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
