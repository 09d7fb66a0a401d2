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
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"k8s.io/apimachinery/pkg/labels"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
	"github.com/srscale/starrocks-operator/internal/writeorder"
)

// WarehouseFinalizer keeps a StarRocksWarehouse until the operator has
// dropped it from FE and deleted its objects.
const WarehouseFinalizer = "starrocks.com/drop-warehouse"

// UpstreamWarehouseFinalizer is the upstream operator's finalizer on a
// warehouse's StatefulSet; adopted StatefulSets carry it and must be released.
const UpstreamWarehouseFinalizer = "starrocks.com.starrockswarehouse/protection"

// StarRocksWarehouseReconciler runs a warehouse's compute nodes and, on
// deletion, drops the warehouse from FE.
type StarRocksWarehouseReconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
	Applier  apply.Applier
	Configs  *reconcile.ConfigSource
	FE       frontend.Access
	DenyList []string

	// memos is every memory below, forgotten at once with the warehouse.
	memos  *reconcile.Memos
	status *reconcile.StatusPath[*srv1.StarRocksWarehouse, srv1.StarRocksWarehouseStatus]
	// dropped remembers warehouses FE has dropped (their UID), so that a
	// reconcile running on a cache that still shows the finalizer does not
	// send DROP WAREHOUSE again.
	dropped *reconcile.Memo[types.UID]
	// feBackoff spaces the retries of a warehouse whose FE does not answer.
	feBackoff *reconcile.Backoff
}

// NewStarRocksWarehouseReconciler wires a warehouse reconciler to its
// client, events, config source and FE.
func NewStarRocksWarehouseReconciler(c client.Client, recorder events.EventRecorder, configs *reconcile.ConfigSource, access frontend.Access, denyList []string) *StarRocksWarehouseReconciler {
	memos := reconcile.NewMemos()
	r := &StarRocksWarehouseReconciler{
		Client: c, Recorder: recorder, Applier: reconcile.NewApplier(c), Configs: configs, FE: access, DenyList: denyList,
		memos: memos, status: warehouseStatusPath(c, memos), dropped: reconcile.NewMemo[types.UID](memos), feBackoff: reconcile.NewBackoff(memos),
	}
	memos.Register(func(key types.NamespacedName) {
		gone := &srv1.StarRocksWarehouse{}
		gone.Namespace, gone.Name = key.Namespace, key.Name
		objs := resources.WarehouseNamed(gone).Objects()
		r.Applier.Forget(objs)
		for _, o := range objs {
			if _, ok := o.(*appsv1.StatefulSet); ok {
				r.FE.Cleanup.Forget(client.ObjectKeyFromObject(o), "")
			}
		}
	})
	return r
}

// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// warehouseScope is one reconcile of one warehouse, as clusterScope is of a cluster.
type warehouseScope struct {
	wh     *srv1.StarRocksWarehouse
	src    *srv1.StarRocksCluster
	feConf string
	// live is the warehouse's CN StatefulSet as the cache shows it; theirs
	// is set when the StatefulSet of its name is another object's.
	live   *appsv1.StatefulSet
	theirs bool
	// want is nil until the checks pass and the objects are built.
	want    *resources.StatefulSetObjects
	holds   reconcile.Holds
	obs     status.WarehouseObserved
	results []apply.Result
	err     error
	after   time.Duration
}

// Reconcile brings one warehouse's objects to its spec, or finalizes it.
func (r *StarRocksWarehouseReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ctx = writeorder.WithOwner(ctx, req.String())
	wh, ok, err := r.status.Get(ctx, req.NamespacedName)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !ok {
		r.memos.Forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	if wh.DeletionTimestamp != nil {
		return r.finalize(ctx, wh) // ignored and denied warehouses too: see finalize
	}
	if wh.Annotations[srv1.IgnoredAnnotation] == "true" || slices.Contains(r.DenyList, wh.Namespace) {
		return ctrl.Result{}, nil
	}
	if err := r.ensureFinalizer(ctx, wh); err != nil {
		return ctrl.Result{}, err
	}
	s := &warehouseScope{wh: wh}
	s.live, s.theirs = r.liveCN(ctx, wh)
	reconcile.Run(ctx, s, func(*warehouseScope) bool { return true },
		r.check,            // the cluster exists, runs shared-data, and its FE is ready
		r.desired,          // the CN objects, with FE's multi-warehouse feature and the immutable-field gate
		r.syncWarehouse,    // write and delete objects
		r.cleanUpWarehouse, // cn_cleanup.go: drop from FE the compute nodes a scale-in removed
	)
	return r.finish(ctx, s)
}

// finish writes the status and Events from the scope and decides when to come back.
func (r *StarRocksWarehouseReconciler) finish(ctx context.Context, s *warehouseScope) (ctrl.Result, error) {
	key := client.ObjectKeyFromObject(s.wh).String()
	reconcileErr := errors.Join(s.holds.Err(), s.err)
	if s.obs.CN == nil {
		// A check or hold ended the reconcile before the writes: the compute
		// nodes that run are reported all the same (the HPA reads
		// status.selector and status.replicas); ReconcileError says what failed.
		s.obs = r.observe(ctx, s)
	}
	obs := s.obs
	if reconcileErr != nil {
		obs.ReconcileError, obs.ReconcileErrorReason = reconcileErr, reconcile.Reason(reconcileErr)
	}
	_, statusErr := r.status.Write(ctx, s.wh, status.ComputeWarehouse(s.wh, obs))
	r.tell(ctx, s.wh, s.results, reconcileErr)
	if slices.ContainsFunc(s.results, func(r apply.Result) bool { return r.Pending }) && (s.after == 0 || reconcile.PendingRequeue < s.after) {
		s.after = reconcile.PendingRequeue
	}
	// FE not answering is reported in status and retried on the back-off
	// (1 s doubling to 5 min), not logged as a failure each time.
	return r.feBackoff.Result(reconcile.Outcome{Key: key, Err: s.err, StatusErr: statusErr, After: s.after,
		Waiting: slices.ContainsFunc(s.holds, func(h reconcile.Hold) bool { return h.Backoff })})
}

// tell emits one Event per kind of write and one Warning per new error, and counts the writes.
func (r *StarRocksWarehouseReconciler) tell(ctx context.Context, wh *srv1.StarRocksWarehouse, results []apply.Result, err error) {
	reconcile.CountWrites(results)
	reconcile.TellWrites(r.Recorder, wh, results)
	if err == nil {
		return
	}
	if reconcile.NewWarning(wh.Status.Conditions, srv1.ConditionReconcileError, err, false) {
		reconcile.Warn(r.Recorder, wh, reconcile.Reason(err), "", err)
	}
	logf.FromContext(ctx).V(1).Info("warehouse reconcile failed", "error", err.Error())
}

// ensureFinalizer adds the finalizer once; a warehouse that has it costs nothing.
func (r *StarRocksWarehouseReconciler) ensureFinalizer(ctx context.Context, wh *srv1.StarRocksWarehouse) error {
	if controllerutil.ContainsFinalizer(wh, WarehouseFinalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(wh.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(wh, WarehouseFinalizer)
	if err := r.Client.Patch(ctx, wh, patch); err != nil {
		return fmt.Errorf("adding finalizer to warehouse %s: %w", wh.Name, err)
	}
	return nil
}

// check verifies that the warehouse can run: its name differs from the
// cluster's, is short enough and makes no object of another cluster's name,
// the cluster exists, runs shared-data, and its FE is ready.
// What fails is a user error: the cluster and warehouse watches bring the
// reconcile back once it changes.
func (r *StarRocksWarehouseReconciler) check(ctx context.Context, s *warehouseScope) bool {
	wh, name := s.wh, s.wh.Spec.StarRocksCluster
	refuse := func(reason, format string, args ...any) bool {
		s.err = &reconcile.UserError{Reason: reason, Message: fmt.Sprintf(format, args...)}
		return false
	}
	if wh.Spec.Template == nil {
		return refuse(srv1.ReasonTemplateMissing, "spec.template is required: it describes the warehouse's compute nodes")
	}
	if wh.Name == name {
		return refuse(srv1.ReasonNameConflict, "the warehouse has the name of its cluster %q; its objects would collide with the cluster's: rename the warehouse", name)
	}
	if n := len(wh.Name); n > srv1.MaxWarehouseNameLength {
		return refuse(srv1.ReasonNameTooLong, "metadata.name: %q is too long: %d characters, and a warehouse's may have %d (StatefulSet %s could not create its pods); nothing was created: make the warehouse again under a shorter name",
			wh.Name, n, srv1.MaxWarehouseNameLength, wh.CnStatefulSetName())
	}
	// Warehouse x and cluster x-warehouse make objects of the same names
	// (StatefulSet x-warehouse-cn, its Services and HPA) and pods of the same
	// labels. The warehouse is refused, whether the cluster came first or
	// after (its watch brings the warehouse back, warehousesOfCluster): a
	// cluster holds data and cannot be renamed, a warehouse can be made
	// again under another name. Nothing of the warehouse is deleted, and
	// its deletion leaves the cluster's objects alone (ownObjects).
	taken := &srv1.StarRocksCluster{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.WarehouseComponentName()}, taken); err == nil {
		return refuse(srv1.ReasonObjectNamesTaken,
			"StarRocksCluster %q in this namespace makes objects of the names this warehouse's would have (StatefulSet %s, Services %s and %s): rename the warehouse; nothing of it is written meanwhile",
			taken.Name, wh.CnStatefulSetName(), wh.CnServiceName(), wh.CnSearchServiceName())
	} else if !apierrors.IsNotFound(err) {
		s.err = err
		return false
	}
	src := &srv1.StarRocksCluster{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: name}, src); err != nil {
		if apierrors.IsNotFound(err) {
			return refuse(srv1.ReasonClusterNotFound, "spec.starRocksCluster: StarRocksCluster %q not found in namespace %q", name, wh.Namespace)
		}
		s.err = err
		return false
	}
	if src.Spec.StarRocksFeSpec == nil {
		return refuse(srv1.ReasonFENotReady, "StarRocksCluster %q has no FE", name)
	}
	feConf, err := r.clusterFEConf(ctx, src)
	if err != nil {
		s.err = err
		return false
	}
	if !fe.SharedData(feConf) {
		return refuse(srv1.ReasonNotSharedData, "StarRocksCluster %q does not run in shared-data mode (run_mode = shared_data in fe.conf): warehouses need it", name)
	}
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: src.Namespace, Name: src.FeStatefulSetName()}, sts); err != nil || !status.FEReady(src, sts) {
		return refuse(srv1.ReasonFENotReady, "waiting for FE of StarRocksCluster %q to become ready", name)
	}
	s.src, s.feConf = src, feConf
	return true
}

func (r *StarRocksWarehouseReconciler) clusterFEConf(ctx context.Context, src *srv1.StarRocksCluster) (string, error) {
	info := src.Spec.StarRocksFeSpec.ConfigMapInfo
	if info.ConfigMapName == "" {
		return "", nil
	}
	return r.Configs.Content(ctx, src.Namespace, info.ConfigMapName, info.ResolveKey, "StarRocksCluster "+src.Name+" spec.starRocksFeSpec.configMapInfo")
}

// desired gathers what the warehouse's objects are built from (its cn.conf,
// whether FE has multiple warehouses, once per FE image), builds them, and
// holds a StatefulSet edit Kubernetes cannot make.
func (r *StarRocksWarehouseReconciler) desired(ctx context.Context, s *warehouseScope) bool {
	wh := s.wh
	cnConf := ""
	if info := wh.Spec.Template.ConfigMapInfo; info.ConfigMapName != "" {
		var err error
		if cnConf, err = r.Configs.Content(ctx, wh.Namespace, info.ConfigMapName, info.ResolveKey, "spec.template.configMapInfo"); err != nil {
			s.err = err
			return false
		}
	}
	multi, err := r.FE.HasFeature(ctx, s.src, s.feConf, fe.FeatureMultiWarehouse)
	if err != nil {
		s.holds = append(s.holds, reconcile.Hold{Component: resources.ComponentCN, Reason: srv1.ReasonFEUnreachable, Message: err.Error(), Report: reconcile.Refuses, Backoff: true})
		return false
	}
	if !multi {
		// Its compute nodes would join default_warehouse silently, and the
		// warehouse could never be dropped (the upstream refuses too).
		s.err = &reconcile.UserError{Reason: srv1.ReasonMultiWarehouseUnsupported, Message: fmt.Sprintf(
			"FE of StarRocksCluster %q does not list the %s feature (GET %s): this StarRocks build cannot run warehouses; no compute node was deployed",
			s.src.Name, fe.FeatureMultiWarehouse, fe.FeaturePath)}
		return false
	}
	// What the live StatefulSet records of its cn.conf decides whether a
	// change of it rolls the pods (see resources.ConfigState).
	var live resources.ConfigState
	if s.live != nil {
		live = resources.ConfigState{Template: s.live.Spec.Template.Annotations[resources.ConfigHashAnnotation], Recorded: s.live.Annotations[resources.ConfigHashAnnotation]}
	}
	s.want = resources.Warehouse(wh, s.src, resources.WarehouseConfig{Content: cnConf, FEContent: s.feConf, MultiWarehouse: true, Live: live})
	check := reconcile.CheckImmutable(s.live, s.want.StatefulSet, "spec.template")
	held := check.Held
	if held == "" && len(check.Grow) > 0 {
		held = growRefused(check.Grow, s.live.Name)
	}
	if held != "" {
		s.holds = append(s.holds, reconcile.Hold{Component: resources.ComponentCN, Object: s.want.StatefulSet, Reason: srv1.ReasonImmutableFieldChanged, Message: held, Report: reconcile.Refuses})
	}
	return true
}

// growRefused says that a warehouse's claims do not grow: unlike a
// cluster's, its StatefulSet is not recreated around its pods.
func growRefused(grow []reconcile.ClaimGrowth, name string) string {
	g := grow[0]
	return fmt.Sprintf("spec.template.storageVolumes[%s].storageSize: a warehouse's claims cannot grow (from %s to %s); StatefulSet %s keeps its current spec",
		g.Template, g.From.String(), g.To.String(), name)
}

// syncWarehouse reads what the status reports, applies the objects less
// those held (and less the disruption budget until the cache shows the
// StatefulSet, as for a cluster: see applicable), and deletes the
// autoscaler when the policy is gone.
func (r *StarRocksWarehouseReconciler) syncWarehouse(ctx context.Context, s *warehouseScope) bool {
	s.obs = r.observe(ctx, s)
	objs := slices.DeleteFunc(s.want.Objects(), func(o client.Object) bool {
		return s.holds.Keeps(resources.ComponentCN, o) || (s.live == nil && o == client.Object(s.want.DisruptionBudget))
	})
	applied, applyErr := r.Applier.ApplyAll(ctx, objs)
	deleted, deleteErr := r.Applier.DeleteAll(ctx, reconcile.Unwanted(resources.WarehouseNamed(s.wh).Objects(), s.want.Objects()))
	s.results = slices.Concat(applied, deleted)
	s.err = errors.Join(applyErr, deleteErr)
	return s.err == nil
}

// cleanUpWarehouse drops from FE the compute nodes a scale-in removed.
func (r *StarRocksWarehouseReconciler) cleanUpWarehouse(ctx context.Context, s *warehouseScope) bool {
	s.after = r.FE.Cleanup.Run(ctx, r.FE, s.src, s.feConf, s.obs.CN.StatefulSet, s.wh.CnSearchServiceName())
	return true
}

// liveCN is the warehouse's CN StatefulSet as the cache shows it; nil when
// there is none, or when the StatefulSet of its name is controlled by
// another object (theirs: a cluster <wh>-warehouse's), which the warehouse
// does not report as its own, nor its pods.
func (r *StarRocksWarehouseReconciler) liveCN(ctx context.Context, wh *srv1.StarRocksWarehouse) (live *appsv1.StatefulSet, theirs bool) {
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.CnStatefulSetName()}, sts); err != nil {
		return nil, false
	}
	if controlledByOther(wh, sts) {
		return nil, true
	}
	return sts, false
}

// controlledByOther reports whether obj, of a name the warehouse's objects
// have, has a controller that is not the warehouse: it is not the
// warehouse's, whatever its name. One without a controller (orphaned, or
// made by hand) is taken for the warehouse's, as before.
func controlledByOther(wh *srv1.StarRocksWarehouse, obj client.Object) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID != wh.UID
}

// observe reads from the cache what the status reports. As the cluster's,
// it runs before the writes: once the objects are built, a StatefulSet that
// does not carry the desired spec yet (its hash annotation is not the
// desired one's) is Outdated, and nothing it reports counts as running that
// spec. Before they are built (a check failed), what runs is reported as it is.
func (r *StarRocksWarehouseReconciler) observe(ctx context.Context, s *warehouseScope) status.WarehouseObserved {
	wh := s.wh
	var tmpl srv1.WarehouseComponentSpec
	if wh.Spec.Template != nil {
		tmpl = *wh.Spec.Template
	}
	comp := &status.Component{Name: "CN", ServiceName: wh.CnServiceName(), ResourceNames: []string{wh.CnStatefulSetName()}, Replicas: ptr.Deref(tmpl.Replicas, 1), StatefulSet: s.live}
	if s.want != nil {
		comp.Outdated = s.live == nil || !apply.NewHashes().Written(s.live, s.want.StatefulSet)
	}
	var pods corev1.PodList
	if s.theirs {
		comp.Pods = nil // the pods of the warehouse's labels are the other object's
	} else if err := r.Client.List(ctx, &pods, client.InNamespace(wh.Namespace), client.MatchingLabels(resources.WarehouseSelectorLabels(wh))); err == nil {
		comp.Pods = pods.Items
	}
	obs := status.WarehouseObserved{CN: comp, Selector: labels.Set(resources.WarehouseSelectorLabels(wh)).String()}
	if tmpl.AutoScalingPolicy != nil {
		obs.HPAName = wh.CnAutoscalerName()
	}
	return obs
}
