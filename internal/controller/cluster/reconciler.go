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

// Package cluster is the StarRocksCluster reconciler. Reconcile builds the
// scope (scope.go, desired.go: the inputs, the desired objects, the holds,
// and what the phases share) and runs the phases over it in order, one file
// each (the list is in Reconcile); status.go and events.go tell what it
// did. What StarRocks decides is in internal/starrocks; a phase that talks
// to StarRocks builds its planner's input and hands it to the one executor
// (internal/controller/frontend, through steps.go), which reaches FE only
// through the door (internal/feaccess); the kit is internal/reconcile.
package cluster

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/writeorder"
)

// Reconciler turns a StarRocksCluster into the objects that run it.
type Reconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
	Applier  apply.Applier
	Configs  *reconcile.ConfigSource
	// FE is the door to FE (internal/feaccess) for what talks to StarRocks;
	// the zero door reaches none, and the StarRocks-aware steps are skipped.
	FE feaccess.Door
	// DenyList holds namespaces whose clusters are left alone.
	DenyList []string
	// APIReader reads what the operator does not cache (StorageClasses,
	// claims), rarely; the client unless set up otherwise.
	APIReader client.Reader
	// BuildOptions are the operator-wide settings of the builders.
	BuildOptions resources.Options
	// SyncPeriod is the operator's --sync-period: outside rollouts, FE is
	// read for the status at most once per period.
	SyncPeriod time.Duration
	// ImageWaitLimit bounds each metadata image step of a version change;
	// zero is starrocks.ImageWaitLimit.
	ImageWaitLimit time.Duration
	// StartApart makes the first reconcile of a cluster without its FE
	// StatefulSet write FE's objects ahead of the status, and only what
	// FE's pods need while workers are short (see firstStep); set with more
	// than one worker.
	StartApart bool
	// WorkersShort reports whether more reconciles want a worker than there
	// are workers (see starrocks.WorkersShort); always, unless set up otherwise.
	WorkersShort func() bool
	// running counts the reconciles in progress, for WorkersShort.
	running atomic.Int32

	// memos is every memory below: a cluster gone or left alone is
	// forgotten in all of them at once (see forget).
	memos *reconcile.Memos
	// What the process keeps between reconciles, per cluster: the status
	// it last wrote, and what a first step wrote, for the next one's Event.
	status  *reconcile.StatusPath[*srv1.StarRocksCluster, srv1.StarRocksClusterStatus]
	started *reconcile.Memo[started]
	// regrowing are the StatefulSets deleted to grow their claims, by name.
	regrowing *reconcile.Memo[*appsv1.StatefulSet]
	// scaleIns is the scale-in planners' memory, by StatefulSet (scalein.go).
	scaleIns *reconcile.Memo[starrocks.ScaleIn]
	// cleanups is the compute-node cleanup's memory, by StatefulSet (cn_cleanup.go).
	cleanups *reconcile.Memo[starrocks.Cleanup]
	// stepMemory is what the executor of StarRocks steps keeps (steps.go).
	stepMemory *frontend.Memory
	// waits dates the gated rollouts' steps the pods cannot date, by StatefulSet.
	waits *reconcile.Memo[clockEntry]
	// heard keeps FE's LastHeartbeat of each pod of a gated rollout in its
	// first answer after the pod became Ready, by StatefulSet (gated_rollout.go).
	heard *reconcile.Memo[map[types.UID]starrocks.Heard]
	// unreachable is since when FE has failed every read, for a rollout
	// gate if-fe-reachable (gated_rollout.go).
	unreachable *reconcile.Memo[time.Time]
	// pathChecks is the pre-flight's memory, by cluster: the pending image
	// change it checks, since when, its decision, and what it said of the
	// changes that roll with a word (preflight.go).
	pathChecks *reconcile.Memo[starrocks.PathCheck]
	// ephemeralNotes is, by cluster, the BE template change on storage that
	// dies with the pod whose Warning Event was told (ephemeral.go).
	ephemeralNotes *reconcile.Memo[starrocks.EphemeralNote]
	// pauses is the compatibility pause's memory, by cluster (compatibility.go).
	pauses *reconcile.Memo[starrocks.Pause]
	// parallelNotes is, by StatefulSet, why the parallel rollout the
	// cluster asks for was declined, as last told by an Event (parallel.go).
	parallelNotes *reconcile.Memo[string]
	// replacing are, by StatefulSet, the pods a parallel rollout deleted
	// that the cache may not show terminating yet (parallel.go).
	replacing *reconcile.Memo[map[types.UID]bool]
	// retry spaces the looks at a cluster whose object name is taken (an
	// apply.ExistsError), which no watch event would bring back.
	retry *reconcile.Backoff
}

// NewReconciler wires a reconciler to its client, events and config source.
func NewReconciler(c client.Client, recorder events.EventRecorder, configs *reconcile.ConfigSource, denyList []string) *Reconciler {
	memos := reconcile.NewMemos()
	r := &Reconciler{
		Client:         c,
		APIReader:      c,
		WorkersShort:   func() bool { return true },
		Recorder:       recorder,
		Applier:        reconcile.AdoptingApplier(c),
		Configs:        configs,
		DenyList:       denyList,
		memos:          memos,
		status:         clusterStatusPath(c, memos),
		started:        reconcile.NewMemo[started](memos),
		regrowing:      reconcile.NewMemoOf[*appsv1.StatefulSet](memos, clusterStatefulSets),
		scaleIns:       reconcile.NewMemoOf[starrocks.ScaleIn](memos, clusterStatefulSets),
		cleanups:       reconcile.NewMemoOf[starrocks.Cleanup](memos, clusterStatefulSets),
		stepMemory:     frontend.NewMemory(memos, clusterStatefulSets),
		waits:          reconcile.NewMemoOf[clockEntry](memos, clusterStatefulSets),
		heard:          reconcile.NewMemoOf[map[types.UID]starrocks.Heard](memos, clusterStatefulSets),
		unreachable:    reconcile.NewMemo[time.Time](memos),
		pathChecks:     reconcile.NewMemo[starrocks.PathCheck](memos),
		pauses:         reconcile.NewMemo[starrocks.Pause](memos),
		ephemeralNotes: reconcile.NewMemo[starrocks.EphemeralNote](memos),
		retry:          reconcile.NewBackoff(memos),
		parallelNotes:  reconcile.NewMemoOf[string](memos, clusterStatefulSets),
		replacing:      reconcile.NewMemoOf[map[types.UID]bool](memos, clusterStatefulSets),
	}
	r.rememberForget(memos)
	return r
}

// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksclusters,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses,verbs=get;list;watch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrockswarehouses/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksclusters/finalizers;starrockswarehouses/finalizers,verbs=update
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get,resourceNames=starrocksclusters.starrocks.com;starrockswarehouses.starrocks.com
// +kubebuilder:rbac:groups=apps,resources=statefulsets;deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;delete;patch
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile brings one cluster's objects to its spec, then reports in status.
// It builds the scope (inputs, desired state, holds) and runs the phases in
// order over it; a phase may end the reconcile early. The status is written
// once, from the scope: beside the writes when it can be, else at the end;
// the Events of the writes and errors are told at the end, those of a
// StarRocks step as the executor does it.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.running.Add(1)
	defer r.running.Add(-1)
	ctx = writeorder.WithOwner(ctx, req.String())
	src, ok, err := r.status.Get(ctx, req.NamespacedName)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !ok || r.skip(src) {
		r.memos.Forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	s := r.scope(ctx, src)
	reconcile.Run(ctx, s, (*clusterScope).writable,
		r.firstStep,           // firststep.go: a new cluster's FE StatefulSet, before anything else
		r.disasterRecovery,    // disaster_recovery.go: FE alone restores a snapshot, BE and CN held
		r.preflight,           // preflight.go: an image change's version path checked before rolloutOrder orders it; a refused one keeps the template
		r.ephemeralStorage,    // ephemeral.go: a BE rollout on storage that dies with the pod warned, refused while FE lists single-replica partitions
		r.rolloutOrder,        // rollout.go: image changes roll BE and CN before FE on upgrade
		r.scaleIn,             // scalein.go: FE lets removed BEs and FEs go before their pods do, once the holds that decide the writes are settled
		r.compatibility,       // compatibility.go: clone and balance paused in the reconcile that writes a minor or major change's first StatefulSet, before the write; restored after its last
		r.gateRollouts,        // gated_rollout.go: pods roll one at a time on StarRocks' word, FE's leader last; all at once when confirmed (parallel.go)
		r.budgets,             // budgets.go: disruption budgets for the pods the StatefulSets keep
		r.sync,                // sync.go: write and delete objects, status beside
		r.cleanUpComputeNodes, // cn_cleanup.go: drop from FE the compute nodes a scale-in removed
		r.dropRemovedBackends, // removed_backends.go: drop from FE the shared-data BEs of a BE spec removed
	)
	return r.finish(ctx, s)
}

// Running is how many reconciles are in progress.
func (r *Reconciler) Running() int { return int(r.running.Load()) }

// rememberForget registers with memos what else the process keeps of a
// cluster and forgets with it: its metrics, applied objects, scale-in and
// FE memories, and the data of ConfigMaps no other cluster names.
func (r *Reconciler) rememberForget(memos *reconcile.Memos) {
	memos.Register(func(key types.NamespacedName) {
		metrics.ClusterReady.DeleteLabelValues(key.Namespace, key.Name)
		metrics.DecommissionTablets.DeleteLabelValues(key.Namespace, key.Name)
		r.FE.Forget(key)
		gone := &srv1.StarRocksCluster{}
		gone.Namespace, gone.Name = key.Namespace, key.Name
		named := resources.Named(gone)
		var objs []client.Object
		for _, c := range resources.Components {
			objs = append(objs, named.Of(c)...)
		}
		r.Applier.Forget(objs)
	})
	memos.Register(func(key types.NamespacedName) {
		r.Configs.ForgetUnused(key.Namespace, func(name string) bool {
			var list srv1.StarRocksClusterList
			err := r.Client.List(context.Background(), &list, client.InNamespace(key.Namespace), client.MatchingFields{reconcile.ConfigMapIndex: name})
			return err != nil || slices.ContainsFunc(list.Items, func(src srv1.StarRocksCluster) bool { return src.Name != key.Name })
		})
	})
}

// clusterStatefulSets are the names of a cluster's StatefulSets, whose memories go with it.
func clusterStatefulSets(key types.NamespacedName) []types.NamespacedName {
	gone := &srv1.StarRocksCluster{}
	gone.Namespace, gone.Name = key.Namespace, key.Name
	var out []types.NamespacedName
	for _, c := range resources.Components {
		if sts := resources.Named(gone).StatefulSet(c); sts != nil {
			out = append(out, client.ObjectKeyFromObject(sts))
		}
	}
	return out
}

// skip is true for clusters the operator must leave alone: being deleted
// (garbage collection removes the children), marked ignored, or in a denied
// namespace. The watches filter these too; checking here also covers
// reconciles queued by owned objects, pods and ConfigMaps.
func (r *Reconciler) skip(src *srv1.StarRocksCluster) bool {
	return src.DeletionTimestamp != nil || src.Annotations[srv1.IgnoredAnnotation] == "true" || slices.Contains(r.DenyList, src.Namespace)
}

// finish writes the status and the Events from the scope, counts the
// reconcile, and decides when to come back. A new cluster's first step
// writes neither: the next reconcile tells both steps.
func (r *Reconciler) finish(ctx context.Context, s *clusterScope) (ctrl.Result, error) {
	if s.started {
		metrics.ReconcileOutcomes.WithLabelValues("changed").Inc()
		// The StatefulSet's watch event comes back sooner; this is in case it does not.
		return ctrl.Result{RequeueAfter: reconcile.PendingRequeue, Priority: new(reconcile.FollowUpPriority)}, nil
	}
	if s.obs == nil {
		s.obs = r.observe(ctx, s)
	}
	r.writeStatus(ctx, s)
	r.tell(ctx, s)
	reconcileErr := s.reconcileError()
	switch {
	case reconcileErr != nil || s.status.err != nil:
		metrics.ReconcileOutcomes.WithLabelValues("error").Inc()
	case s.status.written || slices.ContainsFunc(s.results, reconcile.Told):
		metrics.ReconcileOutcomes.WithLabelValues("changed").Inc()
	default:
		metrics.ReconcileOutcomes.WithLabelValues("unchanged").Inc()
	}
	// A drift found beyond apply's reach in this reconcile is not in the
	// status computed before it: look again soon, to report it.
	if slices.ContainsFunc(s.results, func(res apply.Result) bool { return res.Pending }) || s.unreportedUnrestorable() {
		s.later(reconcile.PendingRequeue)
	}
	if r.recoveryJustDone(s.src, s.in.confs[resources.ComponentFE].content) {
		s.later(time.Millisecond) // our own status write triggers no reconcile: return to the normal spec now
	}
	return r.retry.Result(reconcile.Outcome{Key: client.ObjectKeyFromObject(s.src).String(), Err: s.err, StatusErr: s.status.err, After: s.after})
}
