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

package backup

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	rk "github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/starrocks/backup"
)

// ClusterIndex indexes the backup kinds by their cluster.
const ClusterIndex = "backup.cluster"

// Setup registers the backup controllers whose CRDs the API server serves,
// as the warehouse controller is registered (internal/controller): a kind
// whose CRD is not installed is logged and left out. The clusters'
// clusterSnapshot setting is applied whenever backup is on.
func Setup(mgr ctrl.Manager, cfg Config, opts controller.Options, configs *rk.ConfigSource, door feaccess.Door) error {
	cfg = cfg.withDefaults()
	log := mgr.GetLogger().WithName("backup")
	served := func(kind string) (bool, error) {
		_, err := mgr.GetRESTMapper().RESTMapping(schema.GroupKind{Group: srv1.GroupVersion.Group, Kind: kind}, srv1.GroupVersion.Version)
		if meta.IsNoMatchError(err) {
			log.Info(kind + " CRD not installed: its objects are not reconciled")
			return false, nil
		}
		return err == nil, err
	}
	b := base{timers: &timers{m: map[types.UID]clock.Timer{}}, client: mgr.GetClient(), live: mgr.GetAPIReader(), recorder: mgr.GetEventRecorder("starrocks-operator"), configs: configs, door: door, cfg: cfg,
		talk: NewTalk(door, cfg.Slots, cfg.TalkEvery, cfg.Clock)}
	idx := mgr.GetFieldIndexer()
	ctx := context.Background()
	if opts.ReconciliationTimeout == 0 {
		opts.ReconciliationTimeout = time.Minute
	}
	wake := func(kind string) source.Source {
		return source.Channel(b.talk.Wake(kind), &handler.EnqueueRequestForObject{})
	}

	if ok, err := served(repositoryKind); err != nil {
		return err
	} else if ok {
		if err := idx.IndexField(ctx, &srv1.StarRocksBackupRepository{}, ClusterIndex, func(o client.Object) []string {
			return []string{o.(*srv1.StarRocksBackupRepository).Spec.StarRocksCluster}
		}); err != nil {
			return err
		}
		r := newRepositoryReconciler(b)
		if err := ctrl.NewControllerManagedBy(mgr).Named("starrocksbackuprepository").
			For(&srv1.StarRocksBackupRepository{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, finalizing()))).
			Watches(&srv1.StarRocksCluster{}, handler.EnqueueRequestsFromMapFunc(byCluster(b.client, &srv1.StarRocksBackupRepositoryList{})), builder.WithPredicates(createdOrDeleted())).
			WatchesRawSource(wake(repositoryKind)).
			WithOptions(opts).Complete(r); err != nil {
			return err
		}
	}

	backups, err := served(backupKind)
	if err != nil {
		return err
	}
	restores, err := served(restoreKind)
	if err != nil {
		return err
	}
	if backups {
		if err := idx.IndexField(ctx, &srv1.StarRocksBackup{}, SlotIndex, func(o client.Object) []string {
			x := o.(*srv1.StarRocksBackup)
			return []string{SlotKey(x.Spec.StarRocksCluster, x.Spec.Database)}
		}); err != nil {
			return err
		}
		if err := idx.IndexField(ctx, &srv1.StarRocksBackup{}, ClusterIndex, func(o client.Object) []string {
			return []string{o.(*srv1.StarRocksBackup).Spec.StarRocksCluster}
		}); err != nil {
			return err
		}
	}
	if restores {
		if err := idx.IndexField(ctx, &srv1.StarRocksRestore{}, SlotIndex, func(o client.Object) []string {
			x := o.(*srv1.StarRocksRestore)
			if t := RestoreTarget(x); t != "" {
				return []string{SlotKey(x.Spec.StarRocksCluster, t)}
			}
			return nil
		}); err != nil {
			return err
		}
		if err := idx.IndexField(ctx, &srv1.StarRocksRestore{}, ClusterIndex, func(o client.Object) []string {
			return []string{o.(*srv1.StarRocksRestore).Spec.StarRocksCluster}
		}); err != nil {
			return err
		}
	}
	// A job that ends, or leaves, frees its slot: the others on it look again (slotWaiters).
	if backups {
		r := newBackupReconciler(b)
		bld := ctrl.NewControllerManagedBy(mgr).Named("starrocksbackup").
			For(&srv1.StarRocksBackup{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, finalizing()))).
			Watches(&srv1.StarRocksCluster{}, handler.EnqueueRequestsFromMapFunc(pendingOf(b.client, &srv1.StarRocksBackupList{}))).
			Watches(&srv1.StarRocksBackupRepository{}, handler.EnqueueRequestsFromMapFunc(pendingOfRepository(b.client, &srv1.StarRocksBackupList{})), builder.WithPredicates(readyChanged())).
			Watches(&srv1.StarRocksBackup{}, handler.EnqueueRequestsFromMapFunc(slotWaiters(b.client, &srv1.StarRocksBackupList{})), builder.WithPredicates(ended())).
			WatchesRawSource(wake(backupKind))
		if restores {
			bld = bld.Watches(&srv1.StarRocksRestore{}, handler.EnqueueRequestsFromMapFunc(slotWaiters(b.client, &srv1.StarRocksBackupList{})), builder.WithPredicates(ended()))
		}
		if err := bld.WithOptions(opts).Complete(r); err != nil {
			return err
		}
	}
	if restores {
		r := newRestoreReconciler(b)
		bld := ctrl.NewControllerManagedBy(mgr).Named("starrocksrestore").
			For(&srv1.StarRocksRestore{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, finalizing()))).
			Watches(&srv1.StarRocksCluster{}, handler.EnqueueRequestsFromMapFunc(pendingOf(b.client, &srv1.StarRocksRestoreList{}))).
			Watches(&srv1.StarRocksBackupRepository{}, handler.EnqueueRequestsFromMapFunc(pendingOfRepository(b.client, &srv1.StarRocksRestoreList{})), builder.WithPredicates(readyChanged())).
			Watches(&srv1.StarRocksRestore{}, handler.EnqueueRequestsFromMapFunc(slotWaiters(b.client, &srv1.StarRocksRestoreList{})), builder.WithPredicates(ended())).
			WatchesRawSource(wake(restoreKind))
		if backups {
			bld = bld.Watches(&srv1.StarRocksBackup{}, handler.EnqueueRequestsFromMapFunc(restoresOf(b.client)))
		}
		if err := bld.WithOptions(opts).Complete(r); err != nil {
			return err
		}
	}

	if ok, err := served(scheduleKind); err != nil {
		return err
	} else if ok && backups {
		if err := idx.IndexField(ctx, &srv1.StarRocksBackupSchedule{}, ClusterIndex, func(o client.Object) []string {
			return []string{o.(*srv1.StarRocksBackupSchedule).Spec.StarRocksCluster}
		}); err != nil {
			return err
		}
		r := newScheduleReconciler(b)
		if err := ctrl.NewControllerManagedBy(mgr).Named("starrocksbackupschedule").
			For(&srv1.StarRocksBackupSchedule{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
			// A backup that ends starts its age for retention: the schedule
			// arms the timer of its expiry (no write).
			Watches(&srv1.StarRocksBackup{}, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &srv1.StarRocksBackupSchedule{}, handler.OnlyControllerOwner()),
				builder.WithPredicates(ended())).
			Watches(&srv1.StarRocksCluster{}, handler.EnqueueRequestsFromMapFunc(byCluster(b.client, &srv1.StarRocksBackupScheduleList{})), builder.WithPredicates(createdOrDeleted())).
			// A schedule made with (or before) its repository may be
			// reconciled before the cache has the repository: it comes
			// back when the repository appears.
			Watches(&srv1.StarRocksBackupRepository{}, handler.EnqueueRequestsFromMapFunc(schedulesOf(b.client)), builder.WithPredicates(createdOrDeleted())).
			WatchesRawSource(wake(scheduleKind)).
			WithOptions(opts).Complete(r); err != nil {
			return err
		}
	}

	r := newClusterSnapshotReconciler(b)
	return ctrl.NewControllerManagedBy(mgr).Named("starrocksclustersnapshot").
		For(&srv1.StarRocksCluster{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			src, ok := o.(*srv1.StarRocksCluster)
			return ok && src.Spec.ClusterSnapshot != nil
		}), predicate.GenerationChangedPredicate{})).
		WatchesRawSource(wake(clusterKind)).
		WithOptions(opts).Complete(r)
}

// byCluster maps a cluster to the objects of list's kind that name it.
func byCluster(c client.Client, list client.ObjectList) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		l := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, l, client.InNamespace(o.GetNamespace()), client.MatchingFields{ClusterIndex: o.GetName()}); err != nil {
			return nil
		}
		var out []reconcile.Request
		_ = meta.EachListItem(l, func(obj runtime.Object) error {
			x := obj.(client.Object)
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(x)})
			return nil
		})
		return out
	}
}

// pendingOf maps a cluster to its backups or restores that wait (a busy
// cluster, a refusal): the running ones read FE on their own time.
func pendingOf(c client.Client, list client.ObjectList) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		l := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, l, client.InNamespace(o.GetNamespace()), client.MatchingFields{ClusterIndex: o.GetName()}); err != nil {
			return nil
		}
		return waiting(l, func(client.Object) bool { return true })
	}
}

// pendingOfRepository maps a repository to the waiting jobs that use it.
func pendingOfRepository(c client.Client, list client.ObjectList) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		l := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, l, client.InNamespace(o.GetNamespace())); err != nil {
			return nil
		}
		return waiting(l, func(x client.Object) bool {
			switch j := x.(type) {
			case *srv1.StarRocksBackup:
				return j.Spec.Repository == o.GetName()
			case *srv1.StarRocksRestore:
				return j.Spec.Repository == o.GetName()
			}
			return false
		})
	}
}

// slotWaiters maps a job that ended to the waiting jobs of list's kind on its slot.
func slotWaiters(c client.Client, list client.ObjectList) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var key string
		switch x := o.(type) {
		case *srv1.StarRocksBackup:
			key = SlotKey(x.Spec.StarRocksCluster, x.Spec.Database)
		case *srv1.StarRocksRestore:
			if t := RestoreTarget(x); t != "" {
				key = SlotKey(x.Spec.StarRocksCluster, t)
			}
		}
		if key == "" {
			return nil
		}
		l := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, l, client.InNamespace(o.GetNamespace()), client.MatchingFields{SlotIndex: key}); err != nil {
			return nil
		}
		return waiting(l, func(x client.Object) bool { return x.GetUID() != o.GetUID() })
	}
}

// schedulesOf maps a repository to the schedules that name it.
func schedulesOf(c client.Client) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		l := &srv1.StarRocksBackupScheduleList{}
		if err := c.List(ctx, l, client.InNamespace(o.GetNamespace())); err != nil {
			return nil
		}
		var out []reconcile.Request
		for _, s := range l.Items {
			if s.Spec.Repository == o.GetName() {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&s)})
			}
		}
		return out
	}
}

// restoresOf maps a backup that succeeded to the restores waiting for it.
func restoresOf(c client.Client) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		b, ok := o.(*srv1.StarRocksBackup)
		if !ok || !backup.Terminal(b.Status.Phase) {
			return nil
		}
		l := &srv1.StarRocksRestoreList{}
		if err := c.List(ctx, l, client.InNamespace(o.GetNamespace())); err != nil {
			return nil
		}
		return waiting(l, func(x client.Object) bool { return x.(*srv1.StarRocksRestore).Spec.Source.Backup == b.Name })
	}
}

// waiting are the items of l, Pending (or new), that keep.
func waiting(l client.ObjectList, keep func(client.Object) bool) []reconcile.Request {
	var out []reconcile.Request
	_ = meta.EachListItem(l, func(obj runtime.Object) error {
		x := obj.(client.Object)
		var phase srv1.BackupPhase
		switch j := x.(type) {
		case *srv1.StarRocksBackup:
			phase = j.Status.Phase
		case *srv1.StarRocksRestore:
			phase = j.Status.Phase
		}
		if (phase == "" || phase == srv1.BackupPending) && x.GetDeletionTimestamp() == nil && keep(x) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(x)})
		}
		return nil
	})
	return out
}

// ended passes a backup or restore whose phase became terminal, or that is deleted.
func ended() predicate.Predicate {
	phase := func(o client.Object) srv1.BackupPhase {
		switch j := o.(type) {
		case *srv1.StarRocksBackup:
			return j.Status.Phase
		case *srv1.StarRocksRestore:
			return j.Status.Phase
		}
		return ""
	}
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return phase(e.ObjectOld) != phase(e.ObjectNew) && (backup.Terminal(phase(e.ObjectNew)) || phase(e.ObjectNew) == srv1.BackupRunning)
		},
	}
}

// finalizing passes an object whose deletion began.
func finalizing() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.GetDeletionTimestamp() == nil && e.ObjectNew.GetDeletionTimestamp() != nil
	}}
}

// readyChanged passes a repository whose Ready condition changed.
func readyChanged() predicate.Predicate {
	ready := func(o client.Object) string {
		r, ok := o.(*srv1.StarRocksBackupRepository)
		if !ok {
			return ""
		}
		if c := meta.FindStatusCondition(r.Status.Conditions, srv1.ConditionReady); c != nil {
			return string(c.Status) + c.Reason
		}
		return ""
	}
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool { return ready(e.ObjectOld) != ready(e.ObjectNew) }}
}

// createdOrDeleted passes the creation and deletion of an object.
func createdOrDeleted() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(event.UpdateEvent) bool { return false }}
}
