package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/resources"
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
	// written remembers the last status this process wrote per cluster: a
	// reconcile that runs before the cache shows it must not write it again.
	written sync.Map // types.NamespacedName -> writtenStatus
}

type writtenStatus struct {
	resourceVersion uint64
	status          srv1.StarRocksClusterStatus
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
	src := &srv1.StarRocksCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, src); err != nil {
		if apierrors.IsNotFound(err) {
			r.written.Delete(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	r.overlayOwnStatus(src)
	if src.DeletionTimestamp != nil || src.Annotations[IgnoredAnnotation] == "true" {
		return ctrl.Result{}, nil // deletion is garbage collection's work
	}

	plan, err := r.desiredState(ctx, src)
	// What status reports is read from the cache before writing: a new object
	// reads the same before and after its creation, so the status write need
	// not wait for the object writes, and goes out beside them.
	obs := r.observe(ctx, src, plan)
	obs.ReconcileError, obs.ReconcileErrorReason = err, errorReason(err)
	var results []apply.Result
	var statusChanged bool
	var statusErr error
	if err != nil {
		statusChanged, statusErr = r.writeStatus(ctx, src, status.Compute(src, obs))
	} else {
		var wg sync.WaitGroup
		wg.Go(func() { statusChanged, statusErr = r.writeStatus(ctx, src, status.Compute(src, obs)) })
		results, err = r.sync(ctx, src, plan)
		wg.Wait()
		if err != nil && statusErr == nil { // the status written beside the writes did not know they would fail
			obs.ReconcileError, obs.ReconcileErrorReason = err, errorReason(err)
			r.overlayOwnStatus(src)
			var changed bool
			changed, statusErr = r.writeStatus(ctx, src, status.Compute(src, obs))
			statusChanged = statusChanged || changed
		}
	}
	r.recordEvents(ctx, src, results, err)

	wrote := statusChanged || slices.ContainsFunc(results, func(r apply.Result) bool { return r.Action != apply.Unchanged && !r.Pending })
	switch {
	case err != nil || statusErr != nil:
		metrics.ReconcileOutcomes.WithLabelValues("error").Inc()
	case wrote:
		metrics.ReconcileOutcomes.WithLabelValues("changed").Inc()
	default:
		metrics.ReconcileOutcomes.WithLabelValues("unchanged").Inc()
	}
	var cfgErr *specError
	if errors.As(err, &cfgErr) {
		return ctrl.Result{}, statusErr // the user must fix it; the ConfigMap watch brings us back
	}
	if err := errors.Join(err, statusErr); err != nil {
		return ctrl.Result{}, err
	}
	if slices.ContainsFunc(results, func(r apply.Result) bool { return r.Pending }) {
		return ctrl.Result{RequeueAfter: pendingRequeue}, nil
	}
	return ctrl.Result{}, nil
}

// plan is the desired state of every component the spec asks for.
type plan struct {
	fe, be, cn, feProxy []client.Object
	// order holds back workloads during an ordered upgrade or downgrade.
	order rolloutOrder
}

// desiredState resolves the referenced configuration and builds every component's objects.
func (r *StarRocksClusterReconciler) desiredState(ctx context.Context, src *srv1.StarRocksCluster) (*plan, error) {
	if src.Spec.StarRocksFeSpec == nil {
		// Without FE the builders build nothing; deleting BE and CN (and their data) for it would be wrong.
		return nil, &specError{reason: "FeSpecMissing", msg: "spec.starRocksFeSpec is required: StarRocks cannot run without FE; nothing was changed"}
	}
	feCfg, err := r.config(ctx, src, feConfig(src), "spec.starRocksFeSpec.configMapInfo")
	if err != nil {
		return nil, err
	}
	beCfg, err := r.config(ctx, src, beConfig(src), "spec.starRocksBeSpec.configMapInfo")
	if err != nil {
		return nil, err
	}
	cnCfg, err := r.config(ctx, src, cnConfig(src), "spec.starRocksCnSpec.configMapInfo")
	if err != nil {
		return nil, err
	}
	// BE, CN and the proxy reach FE through its Service and need FE's ports.
	beCfg.FEContent, cnCfg.FEContent = feCfg.Content, feCfg.Content
	p := &plan{
		fe:      resources.FE(src, feCfg),
		be:      resources.BE(src, beCfg),
		cn:      resources.CN(src, cnCfg),
		feProxy: resources.FEProxy(src, resources.Config{FEContent: feCfg.Content}),
	}
	p.order = planRollout(r.liveStatefulSet(ctx, src, src.FeStatefulSetName()), p.fe,
		r.liveStatefulSet(ctx, src, src.BeStatefulSetName()), p.be,
		r.liveStatefulSet(ctx, src, src.CnStatefulSetName()), p.cn)
	return p, nil
}

func (r *StarRocksClusterReconciler) config(ctx context.Context, src *srv1.StarRocksCluster, info *srv1.ConfigMapInfo, field string) (resources.Config, error) {
	if info == nil || info.ConfigMapName == "" {
		return resources.Config{}, nil
	}
	content, err := r.Configs.Content(ctx, src.Namespace, info.ConfigMapName, info.ResolveKey, field)
	return resources.Config{Content: content}, err
}

// sync writes FE first; BE, CN and the FE proxy once FE is ready. Removed
// components are deleted whatever FE's state.
func (r *StarRocksClusterReconciler) sync(ctx context.Context, src *srv1.StarRocksCluster, p *plan) ([]apply.Result, error) {
	results, err := r.Applier.ApplyAll(ctx, p.order.filter(p.fe))
	if err != nil {
		return results, err
	}
	var toApply, toDelete []client.Object
	feReady := status.FEReady(src, r.liveStatefulSet(ctx, src, src.FeStatefulSetName()))
	for _, c := range []struct {
		objs    []client.Object
		removed []client.Object
	}{
		{p.be, beObjects(src)},
		{p.cn, cnObjects(src)},
		{p.feProxy, feProxyObjects(src)},
	} {
		switch {
		case c.objs == nil:
			toDelete = append(toDelete, c.removed...)
		case feReady:
			toApply = append(toApply, p.order.filter(c.objs)...)
		}
	}
	if src.Spec.StarRocksCnSpec != nil && src.Spec.StarRocksCnSpec.AutoScalingPolicy == nil {
		toDelete = append(toDelete, &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: childMeta(src, src.CnAutoscalerName())})
	}
	// BE, CN and the proxy don't depend on each other: one parallel round.
	applied, applyErr := r.Applier.ApplyAll(ctx, toApply)
	deleted, deleteErr := r.Applier.DeleteAll(ctx, toDelete)
	return slices.Concat(results, applied, deleted), errors.Join(applyErr, deleteErr)
}

// observe reads, from the cache, what status reports of each component.
func (r *StarRocksClusterReconciler) observe(ctx context.Context, src *srv1.StarRocksCluster, p *plan) status.Observed {
	var obs status.Observed
	fe := r.liveStatefulSet(ctx, src, src.FeStatefulSetName())
	feReady := status.FEReady(src, fe)
	waitFE := ""
	if !feReady {
		waitFE = "waiting for FE to become ready"
	}
	pods := r.pods(ctx, src)
	component := func(name string, c resources.Component, sts *appsv1.StatefulSet, stsName, svcName string, replicas *int32) *status.Component {
		return &status.Component{Name: name, ServiceName: svcName, ResourceNames: []string{stsName}, Pods: pods[c], Replicas: ptrOr(replicas, 1), StatefulSet: sts}
	}
	spec := src.Spec
	if spec.StarRocksFeSpec != nil {
		obs.FE = component("FE", resources.ComponentFE, fe, src.FeStatefulSetName(), src.FeServiceName(), spec.StarRocksFeSpec.Replicas)
		obs.FE.Waiting = p.waitingFor(src.FeStatefulSetName())
	}
	if spec.StarRocksBeSpec != nil {
		obs.BE = component("BE", resources.ComponentBE, r.liveStatefulSet(ctx, src, src.BeStatefulSetName()), src.BeStatefulSetName(), src.BeServiceName(), spec.StarRocksBeSpec.Replicas)
		obs.BE.Waiting = firstNonEmpty(waitFE, p.waitingFor(src.BeStatefulSetName()))
	}
	if spec.StarRocksCnSpec != nil {
		obs.CN = component("CN", resources.ComponentCN, r.liveStatefulSet(ctx, src, src.CnStatefulSetName()), src.CnStatefulSetName(), src.CnServiceName(), spec.StarRocksCnSpec.Replicas)
		obs.CN.Waiting = firstNonEmpty(waitFE, p.waitingFor(src.CnStatefulSetName()))
		obs.Selector = labelsString(resources.SelectorLabels(src, resources.ComponentCN))
		if asp := spec.StarRocksCnSpec.AutoScalingPolicy; asp != nil {
			obs.HPAName, obs.HPAVersion = src.CnAutoscalerName(), srv1.AutoScalerV2
		}
	}
	if spec.StarRocksFeProxySpec != nil {
		obs.FEProxy = &status.Component{Name: "FE proxy", ServiceName: src.FeProxyServiceName(), ResourceNames: []string{src.FeProxyDeploymentName()},
			Pods: pods[resources.ComponentFEProxy], Replicas: ptrOr(spec.StarRocksFeProxySpec.Replicas, 1), Waiting: waitFE}
		d := &appsv1.Deployment{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: src.Namespace, Name: src.FeProxyDeploymentName()}, d); err == nil {
			obs.FEProxy.Deployment = d
		}
	}
	if p != nil {
		obs.Rollout = p.order.message
	}
	return obs
}

func (p *plan) waitingFor(workload string) string {
	if p == nil {
		return ""
	}
	return p.order.held[workload]
}

func (r *StarRocksClusterReconciler) liveStatefulSet(ctx context.Context, src *srv1.StarRocksCluster, name string) *appsv1.StatefulSet {
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: src.Namespace, Name: name}, sts); err != nil {
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

// overlayOwnStatus replaces a cached status that predates this process's last
// status write with that write: otherwise a reconcile that runs before the
// cache catches up computes from the old status and writes the same again.
func (r *StarRocksClusterReconciler) overlayOwnStatus(src *srv1.StarRocksCluster) {
	w, ok := r.written.Load(client.ObjectKeyFromObject(src))
	if !ok {
		return
	}
	last := w.(writtenStatus)
	if rv, err := strconv.ParseUint(src.ResourceVersion, 10, 64); err == nil && rv < last.resourceVersion {
		src.Status = *last.status.DeepCopy()
	}
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
	if rv, err := strconv.ParseUint(patched.GetResourceVersion(), 10, 64); err == nil {
		r.written.Store(client.ObjectKeyFromObject(src), writtenStatus{resourceVersion: rv, status: *st.DeepCopy()})
	}
	if !wasReady && meta.IsStatusConditionTrue(st.Conditions, srv1.ConditionReady) && !src.CreationTimestamp.IsZero() {
		metrics.TimeToReady.Observe(time.Since(src.CreationTimestamp.Time).Seconds())
	}
	return true, nil
}

// recordEvents emits one event per kind of real action, never one per reconcile,
// and a warning only when the reconcile error is new.
func (r *StarRocksClusterReconciler) recordEvents(ctx context.Context, src *srv1.StarRocksCluster, results []apply.Result, err error) {
	byAction := map[string][]string{}
	for _, res := range results {
		if res.Action == apply.Unchanged || res.Pending {
			continue
		}
		metrics.ObjectWrites.WithLabelValues(res.Kind, string(res.Action)).Inc()
		reason := string(res.Action)
		if res.Drift {
			reason = "driftCorrected"
		}
		byAction[reason] = append(byAction[reason], res.Kind+" "+res.Name)
	}
	for _, reason := range slices.Sorted(mapsKeys(byAction)) {
		objs := byAction[reason]
		slices.Sort(objs)
		r.Recorder.Eventf(src, nil, corev1.EventTypeNormal, eventReason(reason), eventAction(reason), "%s %s", eventVerb(reason), strings.Join(objs, ", "))
	}
	if err == nil {
		return
	}
	old := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError)
	if old == nil || old.Status != metav1.ConditionTrue || old.Message != err.Error() {
		r.Recorder.Eventf(src, nil, corev1.EventTypeWarning, errorReason(err), "Reconcile", "%s", err.Error())
	}
	logf.FromContext(ctx).V(1).Info("reconcile failed", "error", err.Error())
}

func errorReason(err error) string {
	var cfgErr *specError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &cfgErr):
		return cfgErr.reason
	default:
		return "ApplyFailed"
	}
}

func eventReason(action string) string {
	switch action {
	case "driftCorrected":
		return "DriftCorrected"
	case string(apply.Created):
		return "Created"
	case string(apply.Deleted):
		return "Deleted"
	default:
		return "Updated"
	}
}

func eventAction(action string) string {
	switch action {
	case string(apply.Created):
		return "Create"
	case string(apply.Deleted):
		return "Delete"
	default:
		return "Update"
	}
}

func eventVerb(action string) string {
	if action == "driftCorrected" {
		return "restored (changed by someone else)"
	}
	return action
}
