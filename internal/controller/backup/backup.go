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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/starrocks/backup"
	"github.com/srscale/starrocks-operator/internal/status"
)

// The kinds, as the talk's wake channels and Events name them.
const (
	backupKind     = "StarRocksBackup"
	restoreKind    = "StarRocksRestore"
	repositoryKind = "StarRocksBackupRepository"
	scheduleKind   = "StarRocksBackupSchedule"
	clusterKind    = "StarRocksCluster"
)

// SlotIndex indexes backups and restores by their (cluster, database) slot.
const SlotIndex = "backup.slot"

// SlotKey is a slot's index value.
func SlotKey(cluster, db string) string { return cluster + "/" + db }

// Reconciler runs StarRocksBackups: one FE BACKUP each, found again
// by its label.
type Reconciler struct {
	base
	memos   *reconcile.Memos
	status  *reconcile.StatusPath[*srv1.StarRocksBackup, srv1.StarRocksBackupStatus]
	pending *countSet
	// wallClockLabels keeps the control case's labels for this process only.
	wallClockLabels *reconcile.Memo[string]
}

// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksbackups,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksbackups/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksbackups/finalizers,verbs=update

// NewBackupReconciler wires a backup reconciler.
func newBackupReconciler(b base) *Reconciler {
	memos := reconcile.NewMemos()
	r := &Reconciler{base: b, memos: memos, pending: newCountSet(memos, "backup"), wallClockLabels: reconcile.NewMemo[string](memos),
		status: reconcile.NewStatusPath(b.client, reconcile.FieldOwner, backupKind, func() *srv1.StarRocksBackup { return &srv1.StarRocksBackup{} },
			func(o *srv1.StarRocksBackup) *srv1.StarRocksBackupStatus { return &o.Status }, memos)}
	return r
}

// labelOf is the backup's label: the spec's (a schedule sets it from the
// scheduled time), else derived from the object, which outlives the
// operator (backup.AdHocLabel).
func (r *Reconciler) labelOf(b *srv1.StarRocksBackup) string {
	if b.Status.Label != "" {
		return b.Status.Label
	}
	if b.Spec.Label != "" {
		return b.Spec.Label
	}
	if r.cfg.Safety.LabelFromWallClock {
		// The control case: a label from the moment of sending, which a
		// restarted operator cannot derive again.
		key := client.ObjectKeyFromObject(b)
		if l, ok := r.wallClockLabels.Get(key); ok {
			return l
		}
		l := backup.AdHocLabel(fmt.Sprintf("%s_%d", b.Name, r.now().UnixNano()), b.Spec.Database, r.now())
		r.wallClockLabels.Put(key, l)
		return l
	}
	return backup.AdHocLabel(b.Name, b.Spec.Database, b.CreationTimestamp.Time)
}

// Reconcile moves one backup on by what FE last said.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	b, ok, err := r.status.Get(ctx, req.NamespacedName)
	if err != nil || !ok {
		if !ok {
			r.memos.Forget(req.NamespacedName)
		}
		return ctrl.Result{}, err
	}
	if b.DeletionTimestamp != nil {
		return r.finalize(ctx, b)
	}
	if backup.Terminal(b.Status.Phase) {
		r.pending.set(req.NamespacedName, false)
		r.observe(b)
		return ctrl.Result{}, nil
	}
	st := *b.Status.DeepCopy()
	after, err := r.step(ctx, b, &st)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.pending.set(req.NamespacedName, st.Phase == srv1.BackupPending || st.Phase == "")
	if !equality.Semantic.DeepEqual(st, b.Status) {
		// observedGeneration moves with a change, never alone: no write of its own.
		st.ObservedGeneration = b.Generation
	}
	if _, err := r.status.Write(ctx, b, st); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

// wait keeps the backup Pending (or Running) with a reason.
func (r *Reconciler) wait(b *srv1.StarRocksBackup, st *srv1.StarRocksBackupStatus, reason, message string) {
	r.base.wait(job{&st.Phase, &st.Conditions, b.Generation}, reason, message)
}

// refuse stalls the backup with ref, told once by a Warning Event.
func (r *Reconciler) refuse(b *srv1.StarRocksBackup, st *srv1.StarRocksBackupStatus, ref *backup.Refusal) {
	r.base.refuse(b, job{&st.Phase, &st.Conditions, b.Generation}, ref)
}

// step decides and asks; it returns how soon to look again.
func (r *Reconciler) step(ctx context.Context, b *srv1.StarRocksBackup, st *srv1.StarRocksBackupStatus) (time.Duration, error) {
	src, feConf, ref, err := r.cluster(ctx, b.Namespace, b.Spec.StarRocksCluster)
	if err != nil {
		return 0, err
	}
	if ref != nil {
		r.refuse(b, st, ref)
		return 0, nil
	}
	repo, ref, err := r.repository(ctx, b.Namespace, b.Spec.Repository, b.Spec.StarRocksCluster)
	if err != nil {
		return 0, err
	}
	if ref != nil {
		r.refuse(b, st, ref)
		return 0, nil
	}
	if st.Phase == srv1.BackupRunning {
		return r.running(ctx, b, st, src, feConf, repo)
	}
	if fe.SharedData(feConf) {
		r.refuse(b, st, backup.RefuseSharedData("BACKUP", src.Name))
		return 0, nil
	}
	if repo.Spec.ReadOnly {
		r.refuse(b, st, &backup.Refusal{Reason: srv1.ReasonReadOnlyRepository, Message: fmt.Sprintf("StarRocksBackupRepository %q is read-only: backups go to a writable repository", repo.Name)})
		return 0, nil
	}
	if !repositoryReady(repo) {
		r.wait(b, st, srv1.ReasonRepositoryNotReady, fmt.Sprintf("waiting for StarRocksBackupRepository %q to be ready", repo.Name))
		return 0, nil // its watch brings the backup back
	}
	if b.Spec.TTL != "" {
		f := r.features(src, feConf)
		if !f.Known {
			// The door reads FE's version now (spec.ttl needs 4.2).
			return r.door.Every(), nil
		}
		if ref := backup.RefuseTTL(b.Spec.TTL, f); ref != nil {
			r.refuse(b, st, ref)
			return 0, nil
		}
	}
	if why := clusterBusy(src); why != "" {
		r.wait(b, st, srv1.ReasonClusterBusy, why+": a backup starts once it runs unchanged")
		return 0, nil // the cluster's watch brings it back
	}
	label := r.labelOf(b)
	self := backup.SlotJob{Kind: backupKind, Name: b.Name, Created: b.CreationTimestamp.Time, Phase: srv1.BackupPending, Label: label}
	others, err := r.slotJobs(ctx, b.Namespace, SlotKey(b.Spec.StarRocksCluster, b.Spec.Database), b.UID)
	if err != nil {
		return 0, err
	}
	if slot := backup.TakeSlot(self, others, nil); !slot.Start {
		st.HeldBy = slot.HeldBy
		r.wait(b, st, slot.Reason, "waiting for "+slot.HeldBy+" to end: one job per database at a time")
		return slotPoll(r.cfg), nil
	}

	// What FE says: the answer to the statement just sent, else a read.
	if a := r.talk.Last(b, "send:"+label); a != nil {
		return r.sent(ctx, b, st, src, feConf, repo, label, a)
	}
	a := r.talk.Fresh(b, "pre")
	if a == nil {
		r.talk.Ask(backupKind, b, src, feConf, "pre", func(ctx context.Context, c *fe.Client, a *Answer) {
			if a.Databases, a.Err = c.ShowDatabases(ctx); a.Err != nil {
				return
			}
			a.DatabasesRead = true
			if slices.Contains(a.Databases, b.Spec.Database) {
				a.Job, a.Err = c.ShowBackup(ctx, b.Spec.Database)
				a.JobRead = a.Err == nil
			}
		})
		return r.cfg.TalkEvery, nil
	}
	if a.Err != nil {
		r.wait(b, st, feReason(a.Err), trouble(a.Err))
		return r.cfg.TalkEvery, nil
	}
	if ref := backup.RefuseDatabase(b.Spec.Database, a.Databases); ref != nil {
		r.refuse(b, st, ref)
		return 0, nil
	}
	if a.Job != nil && a.Job.Label == label {
		// Ours already: sent before a restart, its answer lost.
		r.started(b, st, label, a.Job)
		return r.cfg.PollEvery, nil
	}
	var feJobs []*backup.FEJob
	if a.Job != nil {
		feJobs = append(feJobs, &backup.FEJob{Label: a.Job.Label, Done: a.Job.Done()})
	}
	if slot := backup.TakeSlot(self, others, feJobs); !slot.Start {
		st.HeldBy = slot.HeldBy
		r.wait(b, st, slot.Reason, "waiting for "+slot.HeldBy+" to end: FE runs one backup or restore per database")
		return r.cfg.PollEvery, nil
	}
	if err := r.ensureFinalizer(ctx, b); err != nil {
		return 0, err
	}
	r.send(b, src, feConf, repo, label)
	return r.cfg.TalkEvery, nil
}

// send asks FE for the backup, then reads its job: one conversation.
func (r *Reconciler) send(b *srv1.StarRocksBackup, src *srv1.StarRocksCluster, feConf string, repo *srv1.StarRocksBackupRepository, label string) {
	stmt := fe.Backup{DB: b.Spec.Database, Label: label, Repository: repoName(repo), TTL: b.Spec.TTL}
	if b.Spec.Timeout != nil {
		stmt.Timeout = b.Spec.Timeout.Duration
	}
	for _, t := range b.Spec.Tables {
		stmt.Tables = append(stmt.Tables, fe.TableRef{Name: t.Name, Partitions: t.Partitions})
	}
	r.talk.Ask(backupKind, b, src, feConf, "send:"+label, func(ctx context.Context, c *fe.Client, a *Answer) {
		a.Sent = true
		a.SendErr = stmt.Send(ctx, c)
		a.Job, a.Err = c.ShowBackup(ctx, b.Spec.Database)
		a.JobRead = a.Err == nil
	})
}

// sent reads FE's answer to the BACKUP.
func (r *Reconciler) sent(ctx context.Context, b *srv1.StarRocksBackup, st *srv1.StarRocksBackupStatus, src *srv1.StarRocksCluster, feConf string,
	repo *srv1.StarRocksBackupRepository, label string, a *Answer) (time.Duration, error) {
	ours := a.JobRead && a.Job != nil && a.Job.Label == label
	switch refusal := fe.ClassifyBackupRefusal(a.SendErr); {
	case a.SendErr == nil || ours || refusal == fe.LabelTaken:
		// Taken, or taken before (the label is ours: a resend after a lost
		// answer): the job is FE's; its state and the repository say the rest.
		r.started(b, st, label, a.Job)
		return r.cfg.PollEvery, nil
	case refusal == fe.DatabaseBusy:
		r.talk.Forget(b.UID)
		held := "a job FE runs"
		if a.Job != nil {
			held = "FE job " + a.Job.Label + " (not the operator's)"
		}
		st.HeldBy = held
		r.wait(b, st, srv1.ReasonHeldByForeignJob, "waiting for "+held+" to end: FE runs one backup or restore per database")
		return r.cfg.PollEvery, nil
	case refusal == fe.SubmitLocked:
		r.talk.Forget(b.UID)
		r.wait(b, st, srv1.ReasonWaitingForFE, "FE is taking another backup or restore: the backup is sent again")
		return r.cfg.TalkEvery, nil
	case refusal == fe.NoSuchDatabase:
		r.talk.Forget(b.UID)
		r.refuse(b, st, &backup.Refusal{Reason: srv1.ReasonDatabaseNotFound, Message: trouble(a.SendErr)})
		return 0, nil
	case fe.PermanentRefusal(a.SendErr):
		// FE refused what the spec asks (a table it does not have, ...):
		// the spec cannot change, so the backup failed.
		r.talk.Forget(b.UID)
		r.fail(b, st, srv1.BackupFailed, srv1.ReasonFECancelled, "FE refused the backup: "+trouble(a.SendErr), "")
		return 0, nil
	case refusal != fe.NotRefused:
		// FE refused for now (its store did not answer the label check, ...): asked again.
		r.talk.Forget(b.UID)
		r.wait(b, st, srv1.ReasonWaitingForFE, "FE refused the backup for now, it is sent again: "+trouble(a.SendErr))
		return r.cfg.PollEvery, nil
	}
	// No answer: FE may have taken it. A fresh read decides, by the label.
	r.talk.Forget(b.UID)
	r.wait(b, st, feReason(a.SendErr), trouble(a.SendErr)+"; FE is read again before the backup is sent again")
	return r.cfg.TalkEvery, nil
}

// started records a job FE has: Running, its label fixed.
func (r *Reconciler) started(b *srv1.StarRocksBackup, st *srv1.StarRocksBackupStatus, label string, job *fe.Job) {
	r.talk.Forget(b.UID)
	st.Phase = backup.Advance(st.Phase, srv1.BackupRunning)
	st.Label, st.HeldBy = label, ""
	if st.SubmittedAt == nil {
		st.SubmittedAt = &metav1.Time{Time: r.now().Truncate(time.Second)}
	}
	reason := srv1.ReasonSubmitted
	if job != nil && job.Label == label {
		out := backup.ReadBackup(job.State, job.Status)
		reason = out.Reason
		st.FEState, st.FEStatus, st.JobID = job.State, job.Status, job.JobID
	}
	conditions(&st.Conditions, b.Generation, r.now(), st.Phase, reason, fmt.Sprintf("FE runs BACKUP %s of database %s", label, b.Spec.Database), false)
	r.recorder.Eventf(b, nil, corev1.EventTypeNormal, "BackupStarted", "Backup", "FE took BACKUP %s of database %s into repository %s", label, b.Spec.Database, b.Spec.Repository)
}

// running reads FE's job by its label, and the repository once FE says
// FINISHED (or forgot the job).
func (r *Reconciler) running(ctx context.Context, b *srv1.StarRocksBackup, st *srv1.StarRocksBackupStatus, src *srv1.StarRocksCluster, feConf string, repo *srv1.StarRocksBackupRepository) (time.Duration, error) {
	label := st.Label
	if a := r.talk.Last(b, "send:"+label); a != nil {
		// A resend of a statement FE never got (below).
		r.talk.Forget(b.UID)
		if a.SendErr != nil && fe.ClassifyBackupRefusal(a.SendErr) != fe.LabelTaken && (a.Job == nil || a.Job.Label != label) {
			conditions(&st.Conditions, b.Generation, r.now(), st.Phase, feReason(a.SendErr), "sending BACKUP again: "+trouble(a.SendErr), false)
		}
		return r.cfg.TalkEvery, nil
	}
	a := r.talk.Fresh(b, "poll")
	if a == nil {
		r.talk.Ask(backupKind, b, src, feConf, "poll", func(ctx context.Context, c *fe.Client, a *Answer) {
			a.Job, a.Err = c.ShowBackup(ctx, b.Spec.Database)
			if a.Err != nil {
				return
			}
			a.JobRead = true
			if a.Job == nil || a.Job.Label != label || a.Job.State == "FINISHED" {
				s, err := c.ShowSnapshot(ctx, repoName(repo), label)
				a.Snapshot, a.Err = &s, err
			}
		})
		return r.cfg.PollEvery, nil
	}
	if a.Err != nil {
		conditions(&st.Conditions, b.Generation, r.now(), st.Phase, feReason(a.Err), trouble(a.Err), false)
		return r.cfg.PollEvery, nil
	}
	if a.Job != nil && a.Job.Label == label {
		out := backup.ReadBackup(a.Job.State, a.Job.Status)
		switch {
		case out.Phase == srv1.BackupFailed:
			r.record(st, a.Job)
			r.fail(b, st, srv1.BackupFailed, out.Reason, fmt.Sprintf("FE cancelled BACKUP %s: %s", label, a.Job.Status), a.Job.Status)
			return 0, nil
		case out.Verify && a.Snapshot != nil && a.Snapshot.OK():
			r.record(st, a.Job)
			r.succeed(b, st, a.Snapshot, "FE finished BACKUP "+label+" and the repository has it")
			return 0, nil
		}
		if reason := out.Reason; conditionReason(st.Conditions) != reason {
			// A status write per change of reason, not per FE state: a
			// successful backup costs at most four.
			r.record(st, a.Job)
			conditions(&st.Conditions, b.Generation, r.now(), st.Phase, reason, fmt.Sprintf("FE's job is %s", a.Job.State), false)
		}
		return r.cfg.PollEvery, nil
	}
	// FE shows another job, or none: SHOW BACKUP keeps the last job of a
	// database, 7 days at most (backup §2.4). The repository decides.
	switch {
	case a.Snapshot != nil && a.Snapshot.OK():
		r.succeed(b, st, a.Snapshot, "the repository has snapshot "+label+" (FE no longer lists its job)")
		return 0, nil
	case a.Snapshot != nil && a.Snapshot.Status == "ERROR: no snapshot" && st.FEState == "":
		// FE never showed the job and the repository has nothing: the
		// statement did not reach FE. The same label is sent again: it
		// cannot make a second snapshot.
		r.send(b, src, feConf, repo, label)
		return r.cfg.TalkEvery, nil
	}
	r.fail(b, st, srv1.BackupFailed, srv1.ReasonJobLost, fmt.Sprintf("FE no longer lists BACKUP %s, and the repository has no finished snapshot of it (%s)", label, snapshotStatus(a.Snapshot)), "")
	return 0, nil
}

func snapshotStatus(s *fe.Snapshot) string {
	if s == nil {
		return "not read"
	}
	return s.Status
}

func conditionReason(conds []metav1.Condition) string {
	for _, c := range conds {
		if c.Type == srv1.ConditionReconciling {
			return c.Reason
		}
	}
	return ""
}

func (r *Reconciler) record(st *srv1.StarRocksBackupStatus, job *fe.Job) {
	st.FEState, st.FEStatus, st.JobID = job.State, job.Status, job.JobID
}

func (r *Reconciler) succeed(b *srv1.StarRocksBackup, st *srv1.StarRocksBackupStatus, snap *fe.Snapshot, message string) {
	r.talk.Forget(b.UID)
	st.Phase = backup.Advance(st.Phase, srv1.BackupSucceeded)
	if len(snap.Timestamps) > 0 {
		st.Timestamp = snap.Timestamps[len(snap.Timestamps)-1]
	}
	st.CompletedAt = &metav1.Time{Time: r.now().Truncate(time.Second)}
	conditions(&st.Conditions, b.Generation, r.now(), st.Phase, srv1.ReasonBackupComplete, message, false)
	r.recorder.Eventf(b, nil, corev1.EventTypeNormal, "BackupSucceeded", "Backup", "%s; snapshot %s at %s", message, st.Label, st.Timestamp)
	metrics.BackupsEnded.WithLabelValues("backup", "succeeded").Inc()
	if st.SubmittedAt != nil {
		metrics.BackupDuration.WithLabelValues("backup").Observe(st.CompletedAt.Sub(st.SubmittedAt.Time).Seconds())
	}
	done := b.DeepCopy()
	done.Status = *st
	r.observe(done)
}

func (r *Reconciler) fail(b *srv1.StarRocksBackup, st *srv1.StarRocksBackupStatus, phase srv1.BackupPhase, reason, message, feStatus string) {
	r.talk.Forget(b.UID)
	st.Phase = backup.Advance(st.Phase, phase)
	if feStatus != "" {
		st.FEStatus = feStatus
	}
	st.CompletedAt = &metav1.Time{Time: r.now().Truncate(time.Second)}
	conditions(&st.Conditions, b.Generation, r.now(), st.Phase, reason, message, false)
	kind := "BackupFailed"
	result := "failed"
	if phase == srv1.BackupCancelled {
		kind, result = "BackupCancelled", "cancelled"
	}
	r.recorder.Eventf(b, nil, corev1.EventTypeWarning, kind, "Backup", "%s", status.Truncate(message, status.MaxEventNote))
	metrics.BackupsEnded.WithLabelValues("backup", result).Inc()
	done := b.DeepCopy()
	done.Status = *st
	r.observe(done)
}

// observe sets the database's metrics from the backups the cache has: its
// newest success, and the failures since.
func (r *Reconciler) observe(b *srv1.StarRocksBackup) {
	list := &srv1.StarRocksBackupList{}
	if err := r.client.List(context.Background(), list, client.InNamespace(b.Namespace), client.MatchingFields{SlotIndex: SlotKey(b.Spec.StarRocksCluster, b.Spec.Database)}); err != nil {
		return
	}
	items := list.Items
	if !slices.ContainsFunc(items, func(x srv1.StarRocksBackup) bool { return x.UID == b.UID }) {
		items = append(items, *b)
	}
	for i := range items {
		if items[i].UID == b.UID {
			items[i].Status = b.Status
		}
	}
	var lastOK time.Time
	for _, x := range items {
		if x.Status.Phase == srv1.BackupSucceeded && x.Status.CompletedAt != nil && x.Status.CompletedAt.After(lastOK) {
			lastOK = x.Status.CompletedAt.Time
		}
	}
	failures := 0
	for _, x := range items {
		if x.Status.Phase == srv1.BackupFailed && x.Status.CompletedAt != nil && x.Status.CompletedAt.After(lastOK) {
			failures++
		}
	}
	labels := []string{b.Namespace, b.Spec.StarRocksCluster, b.Spec.Database}
	if !lastOK.IsZero() {
		metrics.BackupLastSuccess.WithLabelValues(labels...).Set(float64(lastOK.Unix()))
	}
	metrics.BackupConsecutiveFailures.WithLabelValues(labels...).Set(float64(failures))
}

// finalize cancels a running job of ours, then lets the object go.
func (r *Reconciler) finalize(ctx context.Context, b *srv1.StarRocksBackup) (ctrl.Result, error) {
	r.pending.set(client.ObjectKeyFromObject(b), false)
	if b.Status.Phase != srv1.BackupRunning {
		r.talk.Forget(b.UID)
		return ctrl.Result{}, r.dropFinalizer(ctx, b)
	}
	src, feConf, ref, err := r.cluster(ctx, b.Namespace, b.Spec.StarRocksCluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if ref != nil {
		// The cluster is gone: so is its job.
		return ctrl.Result{}, r.dropFinalizer(ctx, b)
	}
	label := b.Status.Label
	a := r.talk.Last(b, "cancel")
	if a == nil || r.cfg.Clock.Since(a.At) >= r.cfg.TalkEvery {
		r.talk.Ask(backupKind, b, src, feConf, "cancel", func(ctx context.Context, c *fe.Client, a *Answer) {
			a.Job, a.Err = c.ShowBackup(ctx, b.Spec.Database)
			if a.Err != nil || a.Job == nil || a.Job.Label != label || a.Job.Done() {
				return
			}
			a.Sent = true
			if a.SendErr = (fe.CancelBackup{DB: b.Spec.Database}).Send(ctx, c); a.SendErr != nil && !fe.NothingToCancel(a.SendErr) {
				a.Err = a.SendErr
				return
			}
			a.Job, a.Err = c.ShowBackup(ctx, b.Spec.Database)
		})
		return ctrl.Result{RequeueAfter: r.cfg.TalkEvery}, nil
	}
	if a.Err != nil {
		logf.FromContext(ctx).Info("cancelling a deleted backup: FE did not answer; trying again", "error", a.Err.Error())
		return ctrl.Result{RequeueAfter: r.cfg.TalkEvery}, nil
	}
	if a.Job != nil && a.Job.Label == label && !a.Job.Done() {
		return ctrl.Result{RequeueAfter: r.cfg.TalkEvery}, nil
	}
	if a.Sent {
		r.recorder.Eventf(b, nil, corev1.EventTypeNormal, "BackupCancelled", "Cancel", "cancelled BACKUP %s of database %s: the object was deleted", label, b.Spec.Database)
		metrics.BackupsEnded.WithLabelValues("backup", "cancelled").Inc()
	}
	r.talk.Forget(b.UID)
	return ctrl.Result{}, r.dropFinalizer(ctx, b)
}

// repository reads the backup's repository; a refusal when there is none,
// or it is another cluster's.
func (b *base) repository(ctx context.Context, ns, name, cluster string) (*srv1.StarRocksBackupRepository, *backup.Refusal, error) {
	repo := &srv1.StarRocksBackupRepository{}
	if err := b.client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, repo); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return nil, &backup.Refusal{Reason: srv1.ReasonRepositoryNotFound, Message: fmt.Sprintf("StarRocksBackupRepository %q not found in namespace %q", name, ns)}, nil
		}
		return nil, nil, err
	}
	if repo.Spec.StarRocksCluster != cluster {
		return nil, &backup.Refusal{Reason: srv1.ReasonRepositoryNotFound, Message: fmt.Sprintf("StarRocksBackupRepository %q is StarRocksCluster %q's, not %q's: a repository is made in one cluster", name, repo.Spec.StarRocksCluster, cluster)}, nil
	}
	return repo, nil, nil
}

func repositoryReady(repo *srv1.StarRocksBackupRepository) bool {
	for _, c := range repo.Status.Conditions {
		if c.Type == srv1.ConditionReady {
			return c.Status == metav1.ConditionTrue || c.Reason == srv1.ReasonRepositoryUnreachable || c.Reason == srv1.ReasonRotationPending
		}
	}
	return false
}

// repoName is the repository's name in StarRocks.
func repoName(repo *srv1.StarRocksBackupRepository) string {
	if repo.Status.RepositoryName != "" {
		return repo.Status.RepositoryName
	}
	if repo.Spec.Name != "" {
		return repo.Spec.Name
	}
	return strings.ReplaceAll(repo.Name, "-", "_")
}

// slotJobs lists the operator's other backups and restores on the slot.
func (b *base) slotJobs(ctx context.Context, ns, key string, self types.UID) ([]backup.SlotJob, error) {
	var out []backup.SlotJob
	bl := &srv1.StarRocksBackupList{}
	if err := b.client.List(ctx, bl, client.InNamespace(ns), client.MatchingFields{SlotIndex: key}); err != nil {
		return nil, err
	}
	for _, x := range bl.Items {
		if x.UID != self && x.DeletionTimestamp == nil {
			out = append(out, backup.SlotJob{Kind: backupKind, Name: x.Name, Created: x.CreationTimestamp.Time, Phase: phaseOr(x.Status.Phase), Label: x.Status.Label})
		}
	}
	rl := &srv1.StarRocksRestoreList{}
	if err := b.client.List(ctx, rl, client.InNamespace(ns), client.MatchingFields{SlotIndex: key}); err != nil {
		return nil, err
	}
	for _, x := range rl.Items {
		if x.UID != self && x.DeletionTimestamp == nil {
			out = append(out, backup.SlotJob{Kind: restoreKind, Name: x.Name, Created: x.CreationTimestamp.Time, Phase: phaseOr(x.Status.Phase), Label: x.Status.Label})
		}
	}
	return out, nil
}

// slotPoll is how soon a job waiting for its slot looks again. The end of
// the job that holds it wakes the waiters (slotWaiters), but only those
// the cache lists under the slot by then: a restore's slot is named from
// its status (RestoreTarget), written with the wait itself. A holder that
// ended between the waiter's read and its status write woke no one, and
// the waiter waited for ever (TestBackupAndRestore's refused overwrite,
// when FE's report was read on the waiter's first reconcile).
func slotPoll(cfg Config) time.Duration { return cfg.PollEvery }

func phaseOr(p srv1.BackupPhase) srv1.BackupPhase {
	if p == "" {
		return srv1.BackupPending
	}
	return p
}
