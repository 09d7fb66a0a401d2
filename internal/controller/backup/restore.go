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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/starrocks/backup"
	"github.com/srscale/starrocks-operator/internal/status"
)

// adoptWindow is how long before the recorded submission a restore job FE
// has finished may have been created and still be taken for this
// restore's (FE shows its times in its own zone, UNVERIFIED which: a day
// covers every offset).
const adoptWindow = 24 * time.Hour

// RestoreReconciler runs StarRocksRestores: one FE RESTORE each. A restore
// has no label of its own (it names the snapshot's), so its submission is
// recorded first (status.submittedAt), and FE's job of that label and
// timestamp on the target database is taken for it only after.
type RestoreReconciler struct {
	base
	memos   *reconcile.Memos
	status  *reconcile.StatusPath[*srv1.StarRocksRestore, srv1.StarRocksRestoreStatus]
	pending *countSet
}

// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksrestores,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksrestores/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksrestores/finalizers,verbs=update

func newRestoreReconciler(b base) *RestoreReconciler {
	memos := reconcile.NewMemos()
	return &RestoreReconciler{base: b, memos: memos, pending: newCountSet(memos, "restore"),
		status: reconcile.NewStatusPath(b.client, reconcile.FieldOwner, restoreKind, func() *srv1.StarRocksRestore { return &srv1.StarRocksRestore{} },
			func(o *srv1.StarRocksRestore) *srv1.StarRocksRestoreStatus { return &o.Status }, memos)}
}

// RestoreTarget is the database a restore goes into, as far as its spec
// alone says ("" when it is its source backup's, not known yet).
func RestoreTarget(r *srv1.StarRocksRestore) string {
	switch {
	case r.Status.TargetDatabase != "":
		return r.Status.TargetDatabase
	case r.Spec.TargetDatabase != "":
		return r.Spec.TargetDatabase
	case r.Spec.Source.Snapshot != nil:
		return r.Spec.Source.Snapshot.Database
	}
	return ""
}

// Reconcile moves one restore on by what FE last said.
func (r *RestoreReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rs, ok, err := r.status.Get(ctx, req.NamespacedName)
	if err != nil || !ok {
		if !ok {
			r.memos.Forget(req.NamespacedName)
		}
		return ctrl.Result{}, err
	}
	if rs.DeletionTimestamp != nil {
		return r.finalize(ctx, rs)
	}
	if backup.Terminal(rs.Status.Phase) {
		r.pending.set(req.NamespacedName, false)
		return ctrl.Result{}, nil
	}
	st := *rs.Status.DeepCopy()
	after, send, err := r.step(ctx, rs, &st)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.pending.set(req.NamespacedName, st.Phase == srv1.BackupPending || st.Phase == "")
	if !equality.Semantic.DeepEqual(st, rs.Status) {
		// observedGeneration moves with a change, never alone: no write of its own.
		st.ObservedGeneration = rs.Generation
	}
	if _, err := r.status.Write(ctx, rs, st); err != nil {
		return ctrl.Result{}, err
	}
	if send != nil {
		// The submission is on record: only now the statement goes.
		send()
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

// wait keeps the restore Pending (or Running) with a reason.
func (r *RestoreReconciler) wait(rs *srv1.StarRocksRestore, st *srv1.StarRocksRestoreStatus, reason, message string) {
	r.base.wait(job{&st.Phase, &st.Conditions, rs.Generation}, reason, message)
}

// refuse stalls the restore with ref, told once by a Warning Event.
func (r *RestoreReconciler) refuse(rs *srv1.StarRocksRestore, st *srv1.StarRocksRestoreStatus, ref *backup.Refusal) {
	r.base.refuse(rs, job{&st.Phase, &st.Conditions, rs.Generation}, ref)
}

// source fills the snapshot restored: the spec's, or the backup's.
func (r *RestoreReconciler) source(ctx context.Context, rs *srv1.StarRocksRestore, st *srv1.StarRocksRestoreStatus) (*backup.Refusal, string, error) {
	if s := rs.Spec.Source.Snapshot; s != nil {
		st.Label, st.Timestamp, st.Database = s.Label, s.Timestamp, s.Database
		return nil, "", nil
	}
	b := &srv1.StarRocksBackup{}
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: rs.Namespace, Name: rs.Spec.Source.Backup}, b); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return &backup.Refusal{Reason: srv1.ReasonBackupNotSucceeded, Message: fmt.Sprintf("StarRocksBackup %q not found in namespace %q", rs.Spec.Source.Backup, rs.Namespace)}, "", nil
		}
		return nil, "", err
	}
	switch b.Status.Phase {
	case srv1.BackupSucceeded:
		st.Label, st.Timestamp, st.Database = b.Status.Label, b.Status.Timestamp, b.Spec.Database
		return nil, "", nil
	case srv1.BackupFailed, srv1.BackupCancelled:
		return &backup.Refusal{Reason: srv1.ReasonBackupNotSucceeded, Message: fmt.Sprintf("StarRocksBackup %q ended %s: there is nothing to restore", b.Name, b.Status.Phase)}, "", nil
	}
	return nil, fmt.Sprintf("waiting for StarRocksBackup %q to succeed", b.Name), nil
}

// step decides and asks; send, when set, sends the statement once the
// status (with the submission) is written.
func (r *RestoreReconciler) step(ctx context.Context, rs *srv1.StarRocksRestore, st *srv1.StarRocksRestoreStatus) (time.Duration, func(), error) {
	if st.Label == "" {
		ref, waiting, err := r.source(ctx, rs, st)
		if err != nil {
			return 0, nil, err
		}
		if ref != nil {
			r.refuse(rs, st, ref)
			return 0, nil, nil
		}
		if waiting != "" {
			r.wait(rs, st, srv1.ReasonBackupNotSucceeded, waiting)
			return 0, nil, nil
		}
	}
	if st.TargetDatabase == "" {
		st.TargetDatabase = rs.Spec.TargetDatabase
		if st.TargetDatabase == "" {
			st.TargetDatabase = st.Database
		}
	}
	src, feConf, ref, err := r.cluster(ctx, rs.Namespace, rs.Spec.StarRocksCluster)
	if err != nil {
		return 0, nil, err
	}
	if ref != nil {
		r.refuse(rs, st, ref)
		return 0, nil, nil
	}
	repo, ref, err := r.repository(ctx, rs.Namespace, rs.Spec.Repository, rs.Spec.StarRocksCluster)
	if err != nil {
		return 0, nil, err
	}
	if ref != nil {
		r.refuse(rs, st, ref)
		return 0, nil, nil
	}
	if st.Phase == srv1.BackupRunning {
		return r.running(rs, st, src, feConf), nil, nil
	}
	if fe.SharedData(feConf) {
		r.refuse(rs, st, backup.RefuseSharedData("RESTORE", src.Name))
		return 0, nil, nil
	}
	if !repositoryReady(repo) {
		r.wait(rs, st, srv1.ReasonRepositoryNotReady, fmt.Sprintf("waiting for StarRocksBackupRepository %q to be ready", repo.Name))
		return 0, nil, nil
	}
	f := r.features(src, feConf)
	if !f.Known {
		// The door reads FE's version now: no status of its own for that.
		return r.door.Every(), nil, nil
	}
	if st.TargetDatabase != st.Database && !f.RenameOnRestore {
		r.refuse(rs, st, &backup.Refusal{Reason: srv1.ReasonVersionUnsupported, Message: fmt.Sprintf("restoring database %s as %s needs StarRocks 3.4 (RESTORE ... DATABASE ... AS), and FE runs %s", st.Database, st.TargetDatabase, f.Version)})
		return 0, nil, nil
	}
	self := backup.SlotJob{Kind: restoreKind, Name: rs.Name, Created: rs.CreationTimestamp.Time, Phase: srv1.BackupPending, Label: st.Label}
	others, err := r.slotJobs(ctx, rs.Namespace, SlotKey(rs.Spec.StarRocksCluster, st.TargetDatabase), rs.UID)
	if err != nil {
		return 0, nil, err
	}
	if slot := backup.TakeSlot(self, others, nil); !slot.Start {
		st.HeldBy = slot.HeldBy
		r.wait(rs, st, slot.Reason, "waiting for "+slot.HeldBy+" to end: one job per database at a time")
		return slotPoll(r.cfg), nil, nil
	}
	if a := r.talk.Last(rs, "send"); a != nil {
		return r.sent(rs, st, a), nil, nil
	}
	a := r.talk.Fresh(rs, "pre")
	if a == nil {
		target := st.TargetDatabase
		r.talk.Ask(restoreKind, rs, src, feConf, "pre", func(ctx context.Context, c *fe.Client, a *Answer) {
			if a.Tables, a.Err = c.ShowTables(ctx, target); a.Err != nil {
				return
			}
			a.TablesRead = true
			if a.Tables != nil {
				a.Job, a.Err = c.ShowRestore(ctx, target)
				a.JobRead = a.Err == nil
			}
		})
		return r.cfg.TalkEvery, nil, nil
	}
	if a.Err != nil {
		r.wait(rs, st, feReason(a.Err), trouble(a.Err))
		return r.cfg.TalkEvery, nil, nil
	}
	if a.Job != nil && r.ours(st, a.Job) {
		r.started(rs, st, a.Job)
		return r.cfg.PollEvery, nil, nil
	}
	if st.SubmittedAt == nil {
		// Checked before the first submission only: once submitted, the
		// tables are the restore's own.
		if ref := backup.RefuseOverwrite(rs.Spec.ExistingTables, st.TargetDatabase, restoredTables(rs, a.Tables), a.Tables); ref != nil {
			r.refuse(rs, st, ref)
			return 0, nil, nil
		}
	}
	var feJobs []*backup.FEJob
	if a.Job != nil {
		feJobs = append(feJobs, &backup.FEJob{Label: a.Job.Label, Done: a.Job.Done()})
	}
	if slot := backup.TakeSlot(self, others, feJobs); !slot.Start {
		st.HeldBy = slot.HeldBy
		r.wait(rs, st, slot.Reason, "waiting for "+slot.HeldBy+" to end: FE runs one backup or restore per database")
		return r.cfg.PollEvery, nil, nil
	}
	if err := r.ensureFinalizer(ctx, rs); err != nil {
		return 0, nil, err
	}
	if st.SubmittedAt == nil {
		st.SubmittedAt = &metav1.Time{Time: r.now().Truncate(time.Second)}
	}
	r.wait(rs, st, srv1.ReasonSubmitted, fmt.Sprintf("sending RESTORE of snapshot %s (%s) into database %s", st.Label, st.Timestamp, st.TargetDatabase))
	stmt := fe.Restore{DB: st.Database, Label: st.Label, Repository: repoName(repo), Timestamp: st.Timestamp, Target: st.TargetDatabase}
	if rs.Spec.ReplicationNum != nil {
		stmt.ReplicationNum = int(*rs.Spec.ReplicationNum)
	}
	if rs.Spec.Timeout != nil {
		stmt.Timeout = rs.Spec.Timeout.Duration
	}
	for _, t := range rs.Spec.Tables {
		stmt.Tables = append(stmt.Tables, fe.TableRef{Name: t.Name, As: t.As, Partitions: t.Partitions})
	}
	createDB := a.Tables == nil && !f.CreatesRestoreDatabase
	return r.cfg.TalkEvery, func() {
		r.talk.Ask(restoreKind, rs, src, feConf, "send", func(ctx context.Context, c *fe.Client, a *Answer) {
			if createDB {
				// Before 3.4 FE refuses a RESTORE into a database it does
				// not have (backup §4).
				if a.Err = (fe.CreateDatabase{Name: stmt.Target}).Send(ctx, c); a.Err != nil {
					return
				}
			}
			a.Sent = true
			a.SendErr = stmt.Send(ctx, c)
			a.Job, a.Err = c.ShowRestore(ctx, stmt.Target)
			a.JobRead = a.Err == nil
		})
	}, nil
}

// restoredTables are the tables the restore makes in the target: the
// spec's (by their new names), or, for a whole database, every table the
// target has (the snapshot's list is not read: a whole-database restore
// into a database with tables is taken to overwrite them).
func restoredTables(rs *srv1.StarRocksRestore, existing []string) []string {
	if len(rs.Spec.Tables) == 0 {
		return existing
	}
	var out []string
	for _, t := range rs.Spec.Tables {
		if t.As != "" {
			out = append(out, t.As)
		} else {
			out = append(out, t.Name)
		}
	}
	return out
}

// ours: FE's job on the target is this restore's: the snapshot's label and
// timestamp, sent after the submission was recorded.
func (r *RestoreReconciler) ours(st *srv1.StarRocksRestoreStatus, job *fe.Job) bool {
	if st.SubmittedAt == nil || job.Label != st.Label || job.Timestamp != st.Timestamp {
		return false
	}
	return !job.Done() || job.CreateTime.IsZero() || !job.CreateTime.Before(st.SubmittedAt.Add(-adoptWindow))
}

func (r *RestoreReconciler) sent(rs *srv1.StarRocksRestore, st *srv1.StarRocksRestoreStatus, a *Answer) time.Duration {
	r.talk.Forget(rs.UID)
	if a.Job != nil && r.ours(st, a.Job) {
		r.started(rs, st, a.Job)
		return r.cfg.PollEvery
	}
	switch refusal := fe.ClassifyBackupRefusal(a.SendErr); {
	case a.SendErr == nil:
		r.started(rs, st, nil)
		return r.cfg.PollEvery
	case refusal == fe.DatabaseBusy:
		held := "a job FE runs"
		if a.Job != nil {
			held = "FE job " + a.Job.Label + " (not the operator's)"
		}
		st.HeldBy = held
		r.wait(rs, st, srv1.ReasonHeldByForeignJob, "waiting for "+held+" to end: FE runs one backup or restore per database")
		return r.cfg.PollEvery
	case refusal == fe.SubmitLocked:
		r.wait(rs, st, srv1.ReasonWaitingForFE, "FE is taking another backup or restore: the restore is sent again")
		return r.cfg.TalkEvery
	case fe.PermanentRefusal(a.SendErr) || refusal == fe.NoSuchRepository:
		r.fail(rs, st, srv1.ReasonFECancelled, "FE refused the restore: "+trouble(a.SendErr))
		return 0
	case refusal != fe.NotRefused:
		r.wait(rs, st, srv1.ReasonWaitingForFE, "FE refused the restore for now, it is sent again: "+trouble(a.SendErr))
		return r.cfg.PollEvery
	}
	if a.Err != nil && a.SendErr == nil {
		r.wait(rs, st, feReason(a.Err), trouble(a.Err))
		return r.cfg.TalkEvery
	}
	r.wait(rs, st, feReason(a.SendErr), trouble(a.SendErr)+"; FE is read again before the restore is sent again")
	return r.cfg.TalkEvery
}

func (r *RestoreReconciler) started(rs *srv1.StarRocksRestore, st *srv1.StarRocksRestoreStatus, job *fe.Job) {
	r.talk.Forget(rs.UID)
	st.Phase = backup.Advance(st.Phase, srv1.BackupRunning)
	st.HeldBy = ""
	reason := srv1.ReasonSubmitted
	if job != nil {
		reason = r.record(rs, st, job)
	}
	conditions(&st.Conditions, rs.Generation, r.now(), st.Phase, reason, fmt.Sprintf("FE runs RESTORE of %s into database %s", st.Label, st.TargetDatabase), false)
	r.recorder.Eventf(rs, nil, corev1.EventTypeNormal, "RestoreStarted", "Restore", "FE took RESTORE of snapshot %s (%s) into database %s", st.Label, st.Timestamp, st.TargetDatabase)
}

// record keeps FE's state; the point of no return, once seen, stays.
func (r *RestoreReconciler) record(rs *srv1.StarRocksRestore, st *srv1.StarRocksRestoreStatus, job *fe.Job) string {
	st.FEState, st.FEStatus, st.JobID = job.State, job.Status, job.JobID
	if backup.PastPointOfNoReturn(job.State) && !st.PastPointOfNoReturn {
		st.PastPointOfNoReturn = true
		r.recorder.Eventf(rs, nil, corev1.EventTypeNormal, "RestoreCommitting", "Restore", "RESTORE of %s into database %s reached FE's COMMIT: what it overwrites cannot come back, and the operator will not cancel it", st.Label, st.TargetDatabase)
	}
	return backup.ReadRestore(job.State, job.Status).Reason
}

func (r *RestoreReconciler) running(rs *srv1.StarRocksRestore, st *srv1.StarRocksRestoreStatus, src *srv1.StarRocksCluster, feConf string) time.Duration {
	a := r.talk.Fresh(rs, "poll")
	if a == nil {
		target := st.TargetDatabase
		r.talk.Ask(restoreKind, rs, src, feConf, "poll", func(ctx context.Context, c *fe.Client, a *Answer) {
			a.Job, a.Err = c.ShowRestore(ctx, target)
			a.JobRead = a.Err == nil
		})
		return r.cfg.PollEvery
	}
	if a.Err != nil {
		conditions(&st.Conditions, rs.Generation, r.now(), st.Phase, feReason(a.Err), trouble(a.Err), false)
		return r.cfg.PollEvery
	}
	if a.Job == nil || !r.ours(st, a.Job) {
		r.fail(rs, st, srv1.ReasonJobLost, fmt.Sprintf("FE no longer lists the RESTORE of %s into database %s", st.Label, st.TargetDatabase))
		return 0
	}
	out := backup.ReadRestore(a.Job.State, a.Job.Status)
	switch out.Phase {
	case srv1.BackupSucceeded:
		r.record(rs, st, a.Job)
		r.talk.Forget(rs.UID)
		st.Phase = backup.Advance(st.Phase, srv1.BackupSucceeded)
		st.CompletedAt = &metav1.Time{Time: r.now().Truncate(time.Second)}
		conditions(&st.Conditions, rs.Generation, r.now(), st.Phase, srv1.ReasonBackupComplete, fmt.Sprintf("FE restored %s into database %s", st.Label, st.TargetDatabase), false)
		r.recorder.Eventf(rs, nil, corev1.EventTypeNormal, "RestoreSucceeded", "Restore", "FE restored snapshot %s (%s) into database %s", st.Label, st.Timestamp, st.TargetDatabase)
		metrics.BackupsEnded.WithLabelValues("restore", "succeeded").Inc()
		if st.SubmittedAt != nil {
			metrics.BackupDuration.WithLabelValues("restore").Observe(st.CompletedAt.Sub(st.SubmittedAt.Time).Seconds())
		}
		return 0
	case srv1.BackupFailed:
		r.record(rs, st, a.Job)
		r.fail(rs, st, out.Reason, fmt.Sprintf("FE cancelled the RESTORE of %s: %s", st.Label, a.Job.Status))
		return 0
	}
	if conditionReason(st.Conditions) != out.Reason || (!st.PastPointOfNoReturn && backup.PastPointOfNoReturn(a.Job.State)) {
		reason := r.record(rs, st, a.Job)
		conditions(&st.Conditions, rs.Generation, r.now(), st.Phase, reason, fmt.Sprintf("FE's job is %s", a.Job.State), false)
	}
	return r.cfg.PollEvery
}

func (r *RestoreReconciler) fail(rs *srv1.StarRocksRestore, st *srv1.StarRocksRestoreStatus, reason, message string) {
	r.talk.Forget(rs.UID)
	st.Phase = backup.Advance(st.Phase, srv1.BackupFailed)
	st.CompletedAt = &metav1.Time{Time: r.now().Truncate(time.Second)}
	conditions(&st.Conditions, rs.Generation, r.now(), st.Phase, reason, message, false)
	r.recorder.Eventf(rs, nil, corev1.EventTypeWarning, "RestoreFailed", "Restore", "%s", status.Truncate(message, status.MaxEventNote))
	metrics.BackupsEnded.WithLabelValues("restore", "failed").Inc()
}

// finalize cancels a restore of ours before FE's COMMIT, never after: the
// object then waits for FE to finish (backup §4).
func (r *RestoreReconciler) finalize(ctx context.Context, rs *srv1.StarRocksRestore) (ctrl.Result, error) {
	r.pending.set(client.ObjectKeyFromObject(rs), false)
	if rs.Status.Phase != srv1.BackupRunning {
		r.talk.Forget(rs.UID)
		return ctrl.Result{}, r.dropFinalizer(ctx, rs)
	}
	src, feConf, ref, err := r.cluster(ctx, rs.Namespace, rs.Spec.StarRocksCluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if ref != nil {
		return ctrl.Result{}, r.dropFinalizer(ctx, rs)
	}
	st := rs.Status
	a := r.talk.Last(rs, "cancel")
	if a == nil || r.cfg.Clock.Since(a.At) >= r.cfg.TalkEvery {
		past := st.PastPointOfNoReturn
		r.talk.Ask(restoreKind, rs, src, feConf, "cancel", func(ctx context.Context, c *fe.Client, a *Answer) {
			a.Job, a.Err = c.ShowRestore(ctx, st.TargetDatabase)
			if a.Err != nil || a.Job == nil || !r.ours(&st, a.Job) || a.Job.Done() || !backup.MayCancelRestore(a.Job.State, past) {
				return
			}
			a.Sent = true
			if a.SendErr = (fe.CancelRestore{DB: st.TargetDatabase}).Send(ctx, c); a.SendErr != nil && !fe.NothingToCancel(a.SendErr) {
				a.Err = a.SendErr
				return
			}
			a.Job, a.Err = c.ShowRestore(ctx, st.TargetDatabase)
		})
		return ctrl.Result{RequeueAfter: r.cfg.TalkEvery}, nil
	}
	if a.Err != nil {
		return ctrl.Result{RequeueAfter: r.cfg.TalkEvery}, nil
	}
	if a.Job != nil && r.ours(&st, a.Job) && !a.Job.Done() {
		if !backup.MayCancelRestore(a.Job.State, st.PastPointOfNoReturn) {
			next := rs.Status.DeepCopy()
			r.record(rs, next, a.Job)
			conditions(&next.Conditions, rs.Generation, r.now(), next.Phase, srv1.ReasonPastPointOfNoReturn,
				"deleted past FE's COMMIT: the restore is not cancelled (the data could be lost); the object goes once FE finishes", false)
			if _, err := r.status.Write(ctx, rs, *next); err != nil {
				return ctrl.Result{}, err
			}
		}
		r.talk.Forget(rs.UID)
		return ctrl.Result{RequeueAfter: r.cfg.PollEvery}, nil
	}
	if a.Sent {
		r.recorder.Eventf(rs, nil, corev1.EventTypeNormal, "RestoreCancelled", "Cancel", "cancelled the RESTORE of %s into database %s before FE's COMMIT: the object was deleted", st.Label, st.TargetDatabase)
		metrics.BackupsEnded.WithLabelValues("restore", "cancelled").Inc()
	}
	r.talk.Forget(rs.UID)
	return ctrl.Result{}, r.dropFinalizer(ctx, rs)
}
