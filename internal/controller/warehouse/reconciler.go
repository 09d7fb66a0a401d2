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

// Package warehouse is the StarRocksWarehouse reconciler: a warehouse's
// compute nodes, run beside its cluster and registered with its FE, and on
// deletion the warehouse dropped from FE (finalize.go). Its phases, one file
// each, are listed in Reconcile.
package warehouse

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
	"github.com/srscale/starrocks-operator/internal/writeorder"
)

// Finalizer keeps a StarRocksWarehouse until the operator has
// dropped it from FE and deleted its objects.
const Finalizer = "starrocks.com/drop-warehouse"

// UpstreamFinalizer is the upstream operator's finalizer on a
// warehouse's StatefulSet; adopted StatefulSets carry it and must be released.
const UpstreamFinalizer = "starrocks.com.starrockswarehouse/protection"

// Reconciler runs a warehouse's compute nodes and, on
// deletion, drops the warehouse from FE.
type Reconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
	Applier  apply.Applier
	Configs  *reconcile.ConfigSource
	// FE is the door to FE (internal/feaccess): the zero door reaches none.
	FE       feaccess.Door
	DenyList []string

	// memos is every memory below, forgotten at once with the warehouse.
	memos  *reconcile.Memos
	status *reconcile.StatusPath[*srv1.StarRocksWarehouse, srv1.StarRocksWarehouseStatus]
	// dropped is the warehouse drop's memory (finalize.go): the warehouses
	// FE dropped (their UID), so that a reconcile running on a cache that
	// still shows the finalizer does not send DROP WAREHOUSE again.
	dropped *reconcile.Memo[starrocks.WarehouseDropped]
	// feBackoff spaces the retries of a warehouse whose FE does not answer.
	feBackoff *reconcile.Backoff
	// cleanups is the compute-node cleanup's memory (cn_cleanup.go), and
	// stepMemory what the executor of StarRocks steps keeps.
	cleanups   *reconcile.Memo[starrocks.Cleanup]
	stepMemory *frontend.Memory
}

// NewReconciler wires a warehouse reconciler to its
// client, events, config source and FE.
func NewReconciler(c client.Client, recorder events.EventRecorder, configs *reconcile.ConfigSource, door feaccess.Door, denyList []string) *Reconciler {
	memos := reconcile.NewMemos()
	r := &Reconciler{
		Client: c, Recorder: recorder, Applier: reconcile.NewApplier(c), Configs: configs, FE: door, DenyList: denyList,
		memos: memos, status: statusPath(c, memos), dropped: reconcile.NewMemo[starrocks.WarehouseDropped](memos), feBackoff: reconcile.NewBackoff(memos),
		cleanups: reconcile.NewMemo[starrocks.Cleanup](memos), stepMemory: frontend.NewMemory(memos, func(types.NamespacedName) []types.NamespacedName { return nil }),
	}
	memos.Register(func(key types.NamespacedName) {
		gone := &srv1.StarRocksWarehouse{}
		gone.Namespace, gone.Name = key.Namespace, key.Name
		r.Applier.Forget(resources.WarehouseNamed(gone).Objects())
	})
	return r
}

// steps is the one executor of the warehouse's StarRocks steps (frontend.Run).
func (r *Reconciler) steps() frontend.Steps {
	return frontend.Steps{Door: r.FE, Client: r.Client, Recorder: r.Recorder, Memory: r.stepMemory}
}

// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// scope is one reconcile of one warehouse, as the cluster's scope is of a cluster.
type scope struct {
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

// later asks to look again within d.
func (s *scope) later(d time.Duration) {
	if d > 0 && (s.after == 0 || d < s.after) {
		s.after = d
	}
}

// Reconcile brings one warehouse's objects to its spec, or finalizes it.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
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
	s := &scope{wh: wh}
	s.live, s.theirs = r.liveCN(ctx, wh)
	reconcile.Run(ctx, s, func(*scope) bool { return true },
		r.check,               // check.go: the cluster exists, runs shared-data, and its FE is ready
		r.desired,             // desired.go: the CN objects, with FE's multi-warehouse feature and the immutable-field gate
		r.claimFEWarehouse,    // owner.go: make the FE warehouse and record whose it is, before the compute nodes
		r.sync,                // sync.go: write and delete objects
		r.cleanUpComputeNodes, // cn_cleanup.go: drop from FE the compute nodes a scale-in removed
	)
	return r.finish(ctx, s)
}

// finish writes the status and Events from the scope and decides when to come back.
func (r *Reconciler) finish(ctx context.Context, s *scope) (ctrl.Result, error) {
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
func (r *Reconciler) tell(ctx context.Context, wh *srv1.StarRocksWarehouse, results []apply.Result, err error) {
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
func (r *Reconciler) ensureFinalizer(ctx context.Context, wh *srv1.StarRocksWarehouse) error {
	if controllerutil.ContainsFinalizer(wh, Finalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(wh.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(wh, Finalizer)
	if err := r.Client.Patch(ctx, wh, patch); err != nil {
		return fmt.Errorf("adding finalizer to warehouse %s: %w", wh.Name, err)
	}
	return nil
}
