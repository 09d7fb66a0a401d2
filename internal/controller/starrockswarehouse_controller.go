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
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/metrics"
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
	Configs  *configSource
	FE       *feAccess
	DenyList []string

	statuses *apply.Recent[srv1.StarRocksWarehouseStatus]
	// dropped remembers warehouses (by UID) FE has dropped, so that a
	// reconcile running on a cache that still shows the finalizer does not
	// send DROP WAREHOUSE again.
	dropped sync.Map
	// feBackoff spaces the retries of a warehouse whose FE does not answer.
	feBackoff workqueue.TypedRateLimiter[string]
}

// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// checkError is a warehouse precondition that does not hold; reason names it.
type checkError struct {
	reason, msg string
	retry       bool // FE did not answer: retry with back-off; others wait for a watch event
}

func (e *checkError) Error() string { return e.msg }

// Reconcile brings one warehouse's objects to its spec, or finalizes it.
func (r *StarRocksWarehouseReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ctx = writeorder.WithOwner(ctx, req.String())
	wh, err := r.get(ctx, req.NamespacedName)
	if wh == nil || err != nil {
		return ctrl.Result{}, err
	}
	if wh.Annotations[IgnoredAnnotation] == "true" || slices.Contains(r.DenyList, wh.Namespace) {
		return ctrl.Result{}, nil
	}
	if wh.DeletionTimestamp != nil {
		return r.finalize(ctx, wh)
	}
	if err := r.ensureFinalizer(ctx, wh); err != nil {
		return ctrl.Result{}, err
	}
	src, feConf, checkErr := r.check(ctx, wh)
	var results []apply.Result
	var syncErr error
	obs := status.WarehouseObserved{}
	if checkErr == nil {
		var want *resources.StatefulSetObjects
		want, checkErr = r.desired(ctx, wh, src, feConf)
		if checkErr == nil {
			obs = r.observe(ctx, wh)
			results, syncErr = r.sync(ctx, wh, want)
		}
	}
	reconcileErr := errors.Join(checkErr, syncErr)
	if reconcileErr != nil {
		obs.ReconcileError, obs.ReconcileErrorReason = reconcileErr, warehouseErrorReason(checkErr, syncErr)
	}
	_, statusErr := r.writeStatus(ctx, wh, status.ComputeWarehouse(wh, obs))
	r.report(ctx, wh, results, reconcileErr)
	var ce *checkError
	var se *specError
	if errors.As(checkErr, &se) && syncErr == nil {
		return ctrl.Result{}, statusErr // the user must fix a ConfigMap; its watch brings us back
	}
	if errors.As(checkErr, &ce) && syncErr == nil {
		if !ce.retry {
			return ctrl.Result{}, statusErr // the cluster and warehouse watches bring us back
		}
		// FE did not answer: reported in status; retried with our own
		// back-off (1 s doubling to 5 min), not logged as a failure each time.
		return ctrl.Result{RequeueAfter: r.feBackoff.When(req.String())}, statusErr
	}
	r.feBackoff.Forget(req.String())
	if err := errors.Join(reconcileErr, statusErr); err != nil {
		return ctrl.Result{}, err
	}
	var res ctrl.Result
	if slices.ContainsFunc(results, func(r apply.Result) bool { return r.Pending }) {
		res.RequeueAfter = pendingRequeue
	}
	dropped, after := r.FE.cleanup.run(ctx, r.FE, src, feConf, obs.CN.StatefulSet, wh.CnSearchServiceName())
	tellDropped(r.Recorder, wh, dropped)
	if after > 0 {
		res.RequeueAfter = after
	}
	return res, nil
}

func warehouseErrorReason(checkErr, syncErr error) string {
	var ce *checkError
	var se *specError
	switch {
	case errors.As(checkErr, &ce):
		return ce.reason
	case errors.As(checkErr, &se):
		return se.reason
	case syncErr != nil:
		return srv1.ReasonApplyFailed
	}
	return srv1.ReasonApplyFailed
}

func (r *StarRocksWarehouseReconciler) get(ctx context.Context, key types.NamespacedName) (*srv1.StarRocksWarehouse, error) {
	wh := &srv1.StarRocksWarehouse{}
	if err := r.Client.Get(ctx, key, wh); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if st, ok := r.statuses.Ahead(key.String(), wh.ResourceVersion); ok {
		wh.Status = *st.DeepCopy()
	}
	return wh, nil
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
// cluster's, the cluster exists, runs shared-data, and its FE is ready.
func (r *StarRocksWarehouseReconciler) check(ctx context.Context, wh *srv1.StarRocksWarehouse) (*srv1.StarRocksCluster, string, error) {
	name := wh.Spec.StarRocksCluster
	if wh.Spec.Template == nil {
		return nil, "", &checkError{reason: srv1.ReasonTemplateMissing, msg: "spec.template is required: it describes the warehouse's compute nodes"}
	}
	if wh.Name == name {
		return nil, "", &checkError{reason: srv1.ReasonNameConflict, msg: fmt.Sprintf("the warehouse has the name of its cluster %q; its objects would collide with the cluster's: rename the warehouse", name)}
	}
	src := &srv1.StarRocksCluster{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: name}, src); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, "", &checkError{reason: srv1.ReasonClusterNotFound, msg: fmt.Sprintf("spec.starRocksCluster: StarRocksCluster %q not found in namespace %q", name, wh.Namespace)}
		}
		return nil, "", err
	}
	if src.Spec.StarRocksFeSpec == nil {
		return nil, "", &checkError{reason: srv1.ReasonFENotReady, msg: fmt.Sprintf("StarRocksCluster %q has no FE", name)}
	}
	feConf, err := r.clusterFEConf(ctx, src)
	if err != nil {
		return nil, "", err
	}
	if !fe.SharedData(feConf) {
		return nil, "", &checkError{reason: srv1.ReasonNotSharedData, msg: fmt.Sprintf("StarRocksCluster %q does not run in shared-data mode (run_mode = shared_data in fe.conf): warehouses need it", name)}
	}
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: src.Namespace, Name: src.FeStatefulSetName()}, sts); err != nil || !status.FEReady(src, sts) {
		return nil, "", &checkError{reason: srv1.ReasonFENotReady, msg: fmt.Sprintf("waiting for FE of StarRocksCluster %q to become ready", name)}
	}
	return src, feConf, nil
}

func (r *StarRocksWarehouseReconciler) clusterFEConf(ctx context.Context, src *srv1.StarRocksCluster) (string, error) {
	info := src.Spec.StarRocksFeSpec.ConfigMapInfo
	if info.ConfigMapName == "" {
		return "", nil
	}
	return r.Configs.Content(ctx, src.Namespace, info.ConfigMapName, info.ResolveKey, "StarRocksCluster "+src.Name+" spec.starRocksFeSpec.configMapInfo")
}

// desired builds the warehouse's objects; it asks FE (once per FE image)
// whether it has multiple warehouses.
func (r *StarRocksWarehouseReconciler) desired(ctx context.Context, wh *srv1.StarRocksWarehouse, src *srv1.StarRocksCluster, feConf string) (*resources.StatefulSetObjects, error) {
	cnConf := ""
	if info := wh.Spec.Template.ConfigMapInfo; info.ConfigMapName != "" {
		var err error
		if cnConf, err = r.Configs.Content(ctx, wh.Namespace, info.ConfigMapName, info.ResolveKey, "spec.template.configMapInfo"); err != nil {
			return nil, err
		}
	}
	multi, err := r.FE.hasFeature(ctx, src, feConf, fe.FeatureMultiWarehouse)
	if err != nil {
		return nil, &checkError{reason: srv1.ReasonFEUnreachable, msg: err.Error(), retry: true}
	}
	// What the live StatefulSet records of its cn.conf decides whether a
	// change of it rolls the pods (see resources.ConfigState).
	var live resources.ConfigState
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.CnStatefulSetName()}, sts); err == nil {
		live = resources.ConfigState{Template: sts.Spec.Template.Annotations[resources.ConfigHashAnnotation], Recorded: sts.Annotations[resources.ConfigHashAnnotation]}
	}
	return resources.Warehouse(wh, src, resources.WarehouseConfig{Content: cnConf, FEContent: feConf, MultiWarehouse: multi, Live: live}), nil
}

// observe reads from the cache what the status reports.
func (r *StarRocksWarehouseReconciler) observe(ctx context.Context, wh *srv1.StarRocksWarehouse) status.WarehouseObserved {
	comp := &status.Component{Name: "CN", ServiceName: wh.CnServiceName(), ResourceNames: []string{wh.CnStatefulSetName()}, Replicas: ptr.Deref(wh.Spec.Template.Replicas, 1)}
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.CnStatefulSetName()}, sts); err == nil {
		comp.StatefulSet = sts
	}
	var pods corev1.PodList
	if err := r.Client.List(ctx, &pods, client.InNamespace(wh.Namespace), client.MatchingLabels(resources.WarehouseSelectorLabels(wh))); err == nil {
		comp.Pods = pods.Items
	}
	obs := status.WarehouseObserved{CN: comp, Selector: labelsString(resources.WarehouseSelectorLabels(wh))}
	if wh.Spec.Template.AutoScalingPolicy != nil {
		obs.HPAName = wh.CnAutoscalerName()
	}
	return obs
}

// sync applies the objects and deletes the autoscaler when the policy is gone.
func (r *StarRocksWarehouseReconciler) sync(ctx context.Context, wh *srv1.StarRocksWarehouse, want *resources.StatefulSetObjects) ([]apply.Result, error) {
	applied, applyErr := r.Applier.ApplyAll(ctx, want.Objects())
	deleted, deleteErr := r.Applier.DeleteAll(ctx, unwanted(resources.WarehouseNamed(wh).Objects(), want.Objects()))
	return slices.Concat(applied, deleted), errors.Join(applyErr, deleteErr)
}

// finalize drops the warehouse from FE, releases and deletes its objects,
// then removes the finalizer. An unreachable FE keeps the finalizer: the
// error is reported in status and retried with back-off.
func (r *StarRocksWarehouseReconciler) finalize(ctx context.Context, wh *srv1.StarRocksWarehouse) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(wh, WarehouseFinalizer) {
		return ctrl.Result{}, r.releaseAdopted(ctx, wh) // not ours (or done): only free what upstream left
	}
	if _, done := r.dropped.Load(wh.UID); !done {
		if err := r.dropFromFE(ctx, wh); err != nil {
			obs := status.WarehouseObserved{ReconcileError: err, ReconcileErrorReason: srv1.ReasonFEUnreachable}
			_, statusErr := r.writeStatus(ctx, wh, status.ComputeWarehouse(wh, obs))
			r.report(ctx, wh, nil, err)
			return ctrl.Result{RequeueAfter: r.feBackoff.When(client.ObjectKeyFromObject(wh).String())}, statusErr
		}
		r.feBackoff.Forget(client.ObjectKeyFromObject(wh).String())
		r.dropped.Store(wh.UID, true)
	}
	if err := r.releaseAdopted(ctx, wh); err != nil {
		return ctrl.Result{}, err
	}
	results, err := r.Applier.DeleteAll(ctx, resources.WarehouseNamed(wh).Objects())
	r.report(ctx, wh, results, err)
	if err != nil {
		return ctrl.Result{}, err
	}
	patch := client.MergeFromWithOptions(wh.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(wh, WarehouseFinalizer)
	if err := r.Client.Patch(ctx, wh, patch); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("removing finalizer of warehouse %s: %w", wh.Name, err)
	}
	return ctrl.Result{}, nil
}

// dropFromFE sends DROP WAREHOUSE to the cluster's FE. Without the cluster
// (or while it is being deleted) there is no FE to tell.
func (r *StarRocksWarehouseReconciler) dropFromFE(ctx context.Context, wh *srv1.StarRocksWarehouse) error {
	src := &srv1.StarRocksCluster{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.Spec.StarRocksCluster}, src)
	if apierrors.IsNotFound(err) || (err == nil && (src.DeletionTimestamp != nil || src.Spec.StarRocksFeSpec == nil)) || wh.Name == wh.Spec.StarRocksCluster {
		return nil
	}
	if err != nil {
		return err
	}
	feConf, err := r.clusterFEConf(ctx, src)
	if err != nil {
		return fmt.Errorf("reading fe.conf of cluster %s to reach FE: %w", src.Name, err)
	}
	if !fe.SharedData(feConf) {
		return nil // a shared-nothing FE never had the warehouse
	}
	c, err := r.FE.sql(ctx, src, feConf)
	if err != nil {
		return err
	}
	if err := c.DropWarehouse(ctx, fe.WarehouseName(wh.Name)); err != nil {
		return err
	}
	logf.FromContext(ctx).Info("dropped warehouse from FE", "warehouse", fe.WarehouseName(wh.Name), "cluster", src.Name)
	return nil
}

// releaseAdopted removes the upstream operator's finalizer from the
// warehouse's StatefulSet, which would otherwise never go away.
func (r *StarRocksWarehouseReconciler) releaseAdopted(ctx context.Context, wh *srv1.StarRocksWarehouse) error {
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: wh.Namespace, Name: wh.CnStatefulSetName()}, sts); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !controllerutil.ContainsFinalizer(sts, UpstreamWarehouseFinalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(sts.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(sts, UpstreamWarehouseFinalizer)
	if err := r.Client.Patch(ctx, sts, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("releasing StatefulSet %s from the upstream finalizer: %w", sts.Name, err)
	}
	return nil
}

// writeStatus writes the status only when it changed (server-side apply of the whole status).
func (r *StarRocksWarehouseReconciler) writeStatus(ctx context.Context, wh *srv1.StarRocksWarehouse, st srv1.StarRocksWarehouseStatus) (bool, error) {
	if equality.Semantic.DeepEqual(wh.Status, st) {
		return false, nil
	}
	body, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if err != nil {
		return false, err
	}
	patched := &unstructured.Unstructured{Object: map[string]any{"status": body}}
	patched.SetGroupVersionKind(srv1.GroupVersion.WithKind("StarRocksWarehouse"))
	patched.SetNamespace(wh.Namespace)
	patched.SetName(wh.Name)
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(patched), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("writing status of warehouse %s/%s: %w", wh.Namespace, wh.Name, err)
	}
	r.statuses.Record(client.ObjectKeyFromObject(wh).String(), patched.GetResourceVersion(), *st.DeepCopy())
	return true, nil
}

// report emits one Event per kind of write and one warning per new error, and counts them.
func (r *StarRocksWarehouseReconciler) report(ctx context.Context, wh *srv1.StarRocksWarehouse, results []apply.Result, err error) {
	byAction := map[apply.Action][]string{}
	for _, res := range results {
		if _, told := actionReports[res.Action]; !told || res.Pending {
			continue
		}
		metrics.ObjectWrites.WithLabelValues(res.Kind, string(res.Action)).Inc()
		byAction[res.Action] = append(byAction[res.Action], res.Kind+" "+res.Name)
	}
	for _, action := range slices.Sorted(mapKeys(byAction)) {
		rep, objs := actionReports[action], byAction[action]
		slices.Sort(objs)
		r.Recorder.Eventf(wh, nil, corev1.EventTypeNormal, rep.reason, rep.action, "%s %s", rep.verb, strings.Join(objs, ", "))
	}
	if err != nil {
		if old := meta.FindStatusCondition(wh.Status.Conditions, srv1.ConditionReconcileError); old == nil || old.Message != err.Error() {
			r.Recorder.Eventf(wh, nil, corev1.EventTypeWarning, warehouseErrorReason(err, nil), "Reconcile", "%s", err.Error())
		}
		logf.FromContext(ctx).V(1).Info("warehouse reconcile failed", "error", err.Error())
	}
}
