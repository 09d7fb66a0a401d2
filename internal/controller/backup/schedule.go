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
	"fmt"
	"k8s.io/apimachinery/pkg/api/equality"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/starrocks/backup"
	"github.com/srscale/starrocks-operator/internal/status"
)

// The labels of the backups a schedule makes: what retention and the
// slot find them by.
const (
	LabelCluster  = "starrocks.com/cluster"
	LabelSchedule = "starrocks.com/backup-schedule"
	LabelDatabase = "starrocks.com/database"
	LabelManaged  = "app.kubernetes.io/managed-by"
	managedBy     = "starrocks-operator"
)

// ScheduleReconciler takes a schedule's backups at their times, and prunes them.
//
// Its time comes from the schedule's status (lastScheduleTime) and the
// cron rule, never from memory; a timer on the clock brings it back at the
// next run. Between runs it reads nothing from FE and writes nothing: a
// resync recomputes the same status and stops there.
type ScheduleReconciler struct {
	base
	memos  *reconcile.Memos
	status *reconcile.StatusPath[*srv1.StarRocksBackupSchedule, srv1.StarRocksBackupScheduleStatus]
}

// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksbackupschedules,verbs=get;list;watch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksbackupschedules/status,verbs=get;update;patch

func newScheduleReconciler(b base) *ScheduleReconciler {
	memos := reconcile.NewMemos()
	return &ScheduleReconciler{base: b, memos: memos,
		status: reconcile.NewStatusPath(b.client, reconcile.FieldOwner, scheduleKind, func() *srv1.StarRocksBackupSchedule { return &srv1.StarRocksBackupSchedule{} },
			func(o *srv1.StarRocksBackupSchedule) *srv1.StarRocksBackupScheduleStatus { return &o.Status }, memos)}
}

// Reconcile runs what is due and prunes.
func (r *ScheduleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s, ok, err := r.status.Get(ctx, req.NamespacedName)
	if err != nil || !ok {
		if !ok {
			r.memos.Forget(req.NamespacedName)
		}
		return ctrl.Result{}, err
	}
	if s.DeletionTimestamp != nil {
		r.disarm(s.UID)
		return ctrl.Result{}, nil
	}
	st := *s.Status.DeepCopy()
	wakeAt, after, err := r.step(ctx, s, &st)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !equality.Semantic.DeepEqual(st, s.Status) {
		// observedGeneration moves with a change, never alone: no write of its own.
		st.ObservedGeneration = s.Generation
	}
	if _, err := r.status.Write(ctx, s, st); err != nil {
		return ctrl.Result{}, err
	}
	if wakeAt != nil {
		r.arm(s, *wakeAt)
	} else {
		r.disarm(s.UID)
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

// arm brings the schedule back at t, on the clock.
func (r *ScheduleReconciler) arm(s *srv1.StarRocksBackupSchedule, t time.Time) {
	r.wakeAt(scheduleKind, s, t.Sub(r.now()))
}

func (r *ScheduleReconciler) disarm(uid types.UID) { r.stopTimer(uid) }

func (r *ScheduleReconciler) set(s *srv1.StarRocksBackupSchedule, st *srv1.StarRocksBackupScheduleStatus, t string, on bool, reason, message string) {
	v := metav1.ConditionFalse
	if on {
		v = metav1.ConditionTrue
	}
	c := metav1.Condition{Type: t, Status: v, Reason: reason, Message: status.Truncate(message, status.MaxConditionMessage), ObservedGeneration: s.Generation}
	if old := meta.FindStatusCondition(st.Conditions, t); old == nil || old.Status != v {
		c.LastTransitionTime = metav1.NewTime(r.now().Truncate(time.Second))
	} else {
		c.LastTransitionTime = old.LastTransitionTime
	}
	meta.SetStatusCondition(&st.Conditions, c)
}

func (r *ScheduleReconciler) refuse(s *srv1.StarRocksBackupSchedule, st *srv1.StarRocksBackupScheduleStatus, ref *backup.Refusal) {
	r.warnOnce(s, st.Conditions, ref)
	r.set(s, st, srv1.ConditionReady, false, ref.Reason, ref.Message)
	r.set(s, st, srv1.ConditionStalled, true, ref.Reason, ref.Message)
}

// step returns when the schedule is next due (nil: never), and how soon to
// look again for a conversation under way.
func (r *ScheduleReconciler) step(ctx context.Context, s *srv1.StarRocksBackupSchedule, st *srv1.StarRocksBackupScheduleStatus) (*time.Time, time.Duration, error) {
	sched, err := backup.ParseSchedule(s.Spec.Schedule, s.Spec.TimeZone)
	if err != nil {
		r.refuse(s, st, backup.RefuseSchedule(s.Spec.Schedule, s.Spec.TimeZone))
		return nil, 0, nil
	}
	src, feConf, ref, err := r.cluster(ctx, s.Namespace, s.Spec.StarRocksCluster)
	if err != nil {
		return nil, 0, err
	}
	if ref != nil {
		r.refuse(s, st, ref)
		return nil, 0, nil
	}
	repo, ref, err := r.repository(ctx, s.Namespace, s.Spec.Repository, s.Spec.StarRocksCluster)
	if err != nil {
		return nil, 0, err
	}
	if ref != nil {
		r.refuse(s, st, ref)
		return nil, 0, nil
	}
	if fe.SharedData(feConf) {
		r.refuse(s, st, backup.RefuseSharedData("BACKUP", src.Name))
		return nil, 0, nil
	}
	now := r.now()
	var last *time.Time
	if st.LastScheduleTime != nil {
		last = &st.LastScheduleTime.Time
	}
	var deadline *time.Duration
	if s.Spec.StartingDeadlineSeconds != nil {
		deadline = ptr.To(time.Duration(*s.Spec.StartingDeadlineSeconds) * time.Second)
	}
	due := backup.Due(sched, s.CreationTimestamp.Time, last, now, deadline, s.Spec.Suspend)
	owned, err := r.owned(ctx, s)
	if err != nil {
		return nil, 0, err
	}
	if due.Newest != nil {
		if due.Start != nil {
			dbs := s.Spec.Databases
			if s.Spec.AllDatabases {
				a := r.talk.Fresh(s, "databases")
				if a == nil || a.Err != nil {
					if a != nil {
						r.set(s, st, srv1.ConditionReady, false, feReason(a.Err), "listing the databases for the run: "+trouble(a.Err))
					}
					if a == nil || r.cfg.Clock.Since(a.At) >= r.cfg.TalkEvery {
						r.talk.Ask(scheduleKind, s, src, feConf, "databases", func(ctx context.Context, c *fe.Client, a *Answer) {
							a.Databases, a.Err = c.ShowDatabases(ctx)
							a.DatabasesRead = a.Err == nil
						})
					}
					return due.Start, r.cfg.TalkEvery, nil
				}
				dbs = nil
				for _, db := range a.Databases {
					if !backup.SystemDatabase(db) {
						dbs = append(dbs, db)
					}
				}
				r.talk.Forget(s.UID)
			}
			skipped, err := r.run(ctx, s, *due.Start, dbs, owned)
			if err != nil {
				return nil, 0, err
			}
			st.SkippedRuns += skipped
		}
		st.SkippedRuns += due.Skipped
		st.LastScheduleTime = &metav1.Time{Time: *due.Newest}
		// The status of each database, as of this run.
		st.Databases = perDatabase(owned)
	}
	st.NextScheduleTime = &metav1.Time{Time: due.Next}
	if s.Spec.Suspend {
		r.set(s, st, srv1.ConditionSuspended, true, srv1.ConditionSuspended, "spec.suspend: no run starts; retention goes on")
	} else if meta.FindStatusCondition(st.Conditions, srv1.ConditionSuspended) != nil {
		r.set(s, st, srv1.ConditionSuspended, false, "Resumed", "runs start at their times")
	}
	r.set(s, st, srv1.ConditionStalled, false, srv1.ReasonScheduled, "")
	r.set(s, st, srv1.ConditionReady, true, srv1.ReasonScheduled, fmt.Sprintf("next run at %s", due.Next.UTC().Format(time.RFC3339)))
	wake := due.Next
	after, expiry, err := r.retain(ctx, s, st, src, feConf, repo, owned)
	if err != nil {
		return nil, 0, err
	}
	if expiry != nil && expiry.Before(wake) {
		wake = *expiry
	}
	return &wake, after, nil
}

// run makes the run's backup of each database, named and labelled from
// the schedule, the database and the scheduled time: made again after a
// restart, it is the same object (AlreadyExists). A database whose
// previous backup still runs or waits is skipped for this run.
func (r *ScheduleReconciler) run(ctx context.Context, s *srv1.StarRocksBackupSchedule, at time.Time, dbs []string, owned []srv1.StarRocksBackup) (int64, error) {
	var skipped int64
	for _, db := range dbs {
		if slices.ContainsFunc(owned, func(b srv1.StarRocksBackup) bool {
			return b.Spec.Database == db && !backup.Terminal(b.Status.Phase) && b.Name != backup.ObjectName(s.Name, db, at)
		}) {
			skipped++
			continue
		}
		b := &srv1.StarRocksBackup{
			ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: backup.ObjectName(s.Name, db, at),
				Labels:     map[string]string{LabelCluster: s.Spec.StarRocksCluster, LabelSchedule: s.Name, LabelDatabase: labelValue(db), LabelManaged: managedBy},
				Finalizers: []string{Finalizer}},
			Spec: srv1.StarRocksBackupSpec{StarRocksCluster: s.Spec.StarRocksCluster, Repository: s.Spec.Repository, Database: db,
				BackupTemplate: *s.Spec.Template.DeepCopy(), Label: backup.ScheduledLabel(s.Name, db, at)},
		}
		if err := controllerutil.SetControllerReference(s, b, r.client.Scheme()); err != nil {
			return skipped, err
		}
		if err := r.client.Create(ctx, b); err != nil && !apierrors.IsAlreadyExists(err) {
			return skipped, fmt.Errorf("creating backup %s: %w", b.Name, err)
		}
	}
	return skipped, nil
}

// labelValue fits a database name into a label value.
func labelValue(db string) string {
	if len(db) <= 63 {
		return db
	}
	return db[:63]
}

// owned are the schedule's backups, from the cache.
func (r *ScheduleReconciler) owned(ctx context.Context, s *srv1.StarRocksBackupSchedule) ([]srv1.StarRocksBackup, error) {
	list := &srv1.StarRocksBackupList{}
	if err := r.client.List(ctx, list, client.InNamespace(s.Namespace), client.MatchingLabels{LabelSchedule: s.Name}); err != nil {
		return nil, err
	}
	var out []srv1.StarRocksBackup
	for _, b := range list.Items {
		if metav1.IsControlledBy(&b, s) {
			out = append(out, b)
		}
	}
	return out, nil
}

func perDatabase(owned []srv1.StarRocksBackup) []srv1.DatabaseBackupStatus {
	by := map[string]*srv1.DatabaseBackupStatus{}
	var newest = map[string]time.Time{}
	for _, b := range owned {
		d := by[b.Spec.Database]
		if d == nil {
			d = &srv1.DatabaseBackupStatus{Database: b.Spec.Database}
			by[b.Spec.Database] = d
		}
		if t := b.CreationTimestamp.Time; !t.Before(newest[b.Spec.Database]) {
			newest[b.Spec.Database], d.LastBackup = t, b.Name
		}
		if b.Status.Phase == srv1.BackupSucceeded && b.Status.CompletedAt != nil && (d.LastSuccessfulTime == nil || b.Status.CompletedAt.After(d.LastSuccessfulTime.Time)) {
			d.LastSuccessfulTime = b.Status.CompletedAt.DeepCopy()
		}
	}
	out := make([]srv1.DatabaseBackupStatus, 0, len(by))
	for _, db := range slices.Sorted(mapKeys(by)) {
		out = append(out, *by[db])
	}
	return out
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// retain prunes the schedule's backups (internal/starrocks/backup.Retain):
// at a run, or when the oldest kept one expires. It returns how soon to
// look again (a DROP SNAPSHOT under way) and when the next one expires.
func (r *ScheduleReconciler) retain(ctx context.Context, s *srv1.StarRocksBackupSchedule, st *srv1.StarRocksBackupScheduleStatus, src *srv1.StarRocksCluster, feConf string,
	repo *srv1.StarRocksBackupRepository, owned []srv1.StarRocksBackup) (time.Duration, *time.Time, error) {
	p := s.Spec.Retention
	if p.KeepLast == nil && p.MaxAge == nil && p.KeepFailed == nil {
		return 0, nil, nil
	}
	policy := backup.Policy{KeepLast: p.KeepLast, KeepFailed: 3, DeleteData: p.DeleteData}
	if p.KeepFailed != nil {
		policy.KeepFailed = int(*p.KeepFailed)
	}
	if p.MaxAge != nil {
		policy.MaxAge = &p.MaxAge.Duration
	}
	var kept []backup.Kept
	for _, b := range owned {
		if b.DeletionTimestamp != nil {
			continue
		}
		k := backup.Kept{Name: b.Name, Database: b.Spec.Database, Label: b.Status.Label, Phase: b.Status.Phase, Created: b.CreationTimestamp.Time}
		if b.Status.CompletedAt != nil {
			k.Completed = b.Status.CompletedAt.Time
		}
		kept = append(kept, k)
	}
	now := r.now()
	out := backup.Retain(kept, policy, now, false, r.cfg.Safety.RetentionMayDeleteNewest)
	if len(out.Prune) > 0 && p.DeleteData {
		// Something goes: FE's version decides whether its data goes too.
		// Nothing to prune, nothing is read: an idle schedule costs FE nothing.
		f := r.features(src, feConf)
		if !f.Known {
			return r.door.Every(), nil, nil
		}
		out = backup.Retain(kept, policy, now, f.DropSnapshot, r.cfg.Safety.RetentionMayDeleteNewest)
	}
	// The data first, then the objects whose data went.
	var drops []backup.Prune
	for _, pr := range out.Prune {
		if pr.DropSnapshot {
			drops = append(drops, pr)
		}
	}
	dropped := map[string]bool{}
	if len(drops) > 0 {
		a := r.talk.Last(s, "retain")
		if a == nil {
			name := repoName(repo)
			r.talk.Ask(scheduleKind, s, src, feConf, "retain", func(ctx context.Context, c *fe.Client, a *Answer) {
				a.Sent = true
				for _, d := range drops {
					err := (fe.DropSnapshot{Label: d.Label, Repository: name}).Send(ctx, c)
					if err == nil {
						a.Databases = append(a.Databases, d.Name) // the backups whose data went
						continue
					}
					if msg, owned := fe.SnapshotOwnedElsewhere(err); owned {
						logf.FromContext(ctx).Info("retention: FE refuses to drop a snapshot it did not write; the backup is kept", "backup", d.Name, "fe", msg)
						continue
					}
					if !fe.SnapshotBusy(err) {
						a.SendErr = err
					}
				}
			})
			return r.cfg.TalkEvery, nil, nil
		}
		r.talk.Forget(s.UID)
		for _, n := range a.Databases {
			dropped[n] = true
		}
		if a.SendErr != nil {
			r.recorder.Eventf(s, nil, corev1.EventTypeWarning, "RetentionFailed", "DropSnapshot", "%s", status.Truncate(trouble(a.SendErr), status.MaxEventNote))
		}
	}
	var deleted []string
	for _, pr := range out.Prune {
		if pr.DropSnapshot && !dropped[pr.Name] {
			continue
		}
		b := &srv1.StarRocksBackup{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: pr.Name}}
		if err := client.IgnoreNotFound(r.client.Delete(ctx, b)); err != nil {
			return 0, nil, err
		}
		deleted = append(deleted, pr.Name)
	}
	if len(deleted) > 0 {
		what := "the objects only"
		if len(dropped) > 0 {
			what = fmt.Sprintf("%d with their snapshots (DROP SNAPSHOT)", len(dropped))
		}
		r.recorder.Eventf(s, nil, corev1.EventTypeNormal, "RetentionDeleted", "Retain", "deleted %d backups, %s: %s", len(deleted), what, status.Truncate(fmt.Sprint(deleted), 400))
	}
	if out.DataKept {
		why := "spec.retention.deleteData is off"
		if p.DeleteData {
			why = "StarRocks before 4.2 has no statement that deletes a snapshot"
		}
		r.set(s, st, srv1.ConditionRetentionDataNotDeleted, true, srv1.ConditionRetentionDataNotDeleted,
			fmt.Sprintf("retention pruned backup objects, not their data (%s): expire %s<label>/ with a bucket lifecycle rule, never the repository's __repo_info", why, repo.Status.LifecycleRulePrefix))
	}
	// The next expiry by age: the oldest kept succeeded backup's.
	var next *time.Time
	if policy.MaxAge != nil {
		for _, k := range kept {
			if k.Phase == srv1.BackupSucceeded && !slices.Contains(deleted, k.Name) {
				t := k.Completed.Add(*policy.MaxAge)
				if t.After(now) && (next == nil || t.Before(*next)) {
					next = &t
				}
			}
		}
	}
	return 0, next, nil
}
