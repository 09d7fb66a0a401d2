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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"k8s.io/apimachinery/pkg/api/equality"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/starrocks/backup"
	"github.com/srscale/starrocks-operator/internal/status"
)

// CredentialsVersionAnnotation is changed (to any new value) after the
// repository's Secret changed: the operator then reads the Secret again
// and, when the credentials differ, DROPs and CREATEs the repository once
// no job runs on it (StarRocks has no ALTER REPOSITORY, backup §1.1). The
// operator does not watch Secrets: that would need list and watch on
// every Secret of the cluster.
const CredentialsVersionAnnotation = "starrocks.com/credentials-version"

// RepositoryReconciler makes each StarRocksBackupRepository a repository of
// its cluster's FE.
type RepositoryReconciler struct {
	base
	memos  *reconcile.Memos
	status *reconcile.StatusPath[*srv1.StarRocksBackupRepository, srv1.StarRocksBackupRepositoryStatus]
}

// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksbackuprepositories,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksbackuprepositories/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=starrocks.com,resources=starrocksbackuprepositories/finalizers,verbs=update

func newRepositoryReconciler(b base) *RepositoryReconciler {
	memos := reconcile.NewMemos()
	return &RepositoryReconciler{base: b, memos: memos,
		status: reconcile.NewStatusPath(b.client, reconcile.FieldOwner, repositoryKind, func() *srv1.StarRocksBackupRepository { return &srv1.StarRocksBackupRepository{} },
			func(o *srv1.StarRocksBackupRepository) *srv1.StarRocksBackupRepositoryStatus { return &o.Status }, memos)}
}

// sqlName is the repository's name in StarRocks.
func sqlName(repo *srv1.StarRocksBackupRepository) string {
	if repo.Spec.Name != "" {
		return repo.Spec.Name
	}
	return strings.ReplaceAll(repo.Name, "-", "_")
}

// credentialsVersion is the annotation's value, "" when unset.
func credentialsVersion(repo *srv1.StarRocksBackupRepository) string {
	return repo.Annotations[CredentialsVersionAnnotation]
}

// Reconcile brings the repository into FE.
func (r *RepositoryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	repo, ok, err := r.status.Get(ctx, req.NamespacedName)
	if err != nil || !ok {
		if !ok {
			r.memos.Forget(req.NamespacedName)
		}
		return ctrl.Result{}, err
	}
	if repo.DeletionTimestamp != nil {
		return r.finalize(ctx, repo)
	}
	// Quiet: a repository FE has, unchanged since, costs nothing.
	if c := meta.FindStatusCondition(repo.Status.Conditions, srv1.ConditionReady); c != nil && c.Status == metav1.ConditionTrue &&
		repo.Status.ObservedGeneration == repo.Generation && c.ObservedGeneration == repo.Generation && repo.Status.CredentialsHash != "" &&
		r.talk.Last(repo, "send") == nil && annotationSeen(repo) {
		return ctrl.Result{}, nil
	}
	st := *repo.Status.DeepCopy()
	after, send, err := r.step(ctx, repo, &st)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !equality.Semantic.DeepEqual(st, repo.Status) {
		// observedGeneration moves with a change, never alone: no write of its own.
		st.ObservedGeneration = repo.Generation
	}
	if _, err := r.status.Write(ctx, repo, st); err != nil {
		return ctrl.Result{}, err
	}
	if send != nil {
		send()
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

// annotationSeen: the status was made with the annotation's credentials
// version (credentials ends the hash with it).
func annotationSeen(repo *srv1.StarRocksBackupRepository) bool {
	return strings.HasSuffix(repo.Status.CredentialsHash, "@"+credentialsVersion(repo))
}

func (r *RepositoryReconciler) set(repo *srv1.StarRocksBackupRepository, st *srv1.StarRocksBackupRepositoryStatus, ready bool, reason, message string, stalled bool) {
	now := r.now()
	for _, c := range []struct {
		t  string
		on bool
	}{{srv1.ConditionReady, ready}, {srv1.ConditionStalled, stalled}} {
		s := metav1.ConditionFalse
		if c.on {
			s = metav1.ConditionTrue
		}
		cond := metav1.Condition{Type: c.t, Status: s, Reason: reason, Message: status.Truncate(message, status.MaxConditionMessage), ObservedGeneration: repo.Generation}
		if old := meta.FindStatusCondition(st.Conditions, c.t); old == nil || old.Status != s {
			cond.LastTransitionTime = metav1.NewTime(now.Truncate(time.Second))
		} else {
			cond.LastTransitionTime = old.LastTransitionTime
		}
		meta.SetStatusCondition(&st.Conditions, cond)
	}
}

func (r *RepositoryReconciler) refuse(repo *srv1.StarRocksBackupRepository, st *srv1.StarRocksBackupRepositoryStatus, ref *backup.Refusal) {
	r.warnOnce(repo, st.Conditions, ref)
	r.set(repo, st, false, ref.Reason, ref.Message, true)
}

// credentials builds FE's repository from the spec and the Secrets, and a
// hash of what FE is given (never the values).
func (r *RepositoryReconciler) credentials(ctx context.Context, repo *srv1.StarRocksBackupRepository) (fe.Repository, string, *backup.Refusal, error) {
	out := fe.Repository{Name: sqlName(repo), Location: repo.Spec.Location, ReadOnly: repo.Spec.ReadOnly, Properties: map[string]string{}}
	for k, v := range repo.Spec.Properties {
		out.Properties[k] = v
	}
	secret := func(name string) (*corev1.Secret, *backup.Refusal, error) {
		s := &corev1.Secret{}
		if err := r.live.Get(ctx, types.NamespacedName{Namespace: repo.Namespace, Name: name}, s); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, &backup.Refusal{Reason: srv1.ReasonCredentialsMissing, Message: fmt.Sprintf("Secret %q not found in namespace %q: nothing is sent to FE until it exists", name, repo.Namespace)}, nil
			}
			return nil, nil, err
		}
		return s, nil, nil
	}
	if s3 := repo.Spec.S3; s3 != nil {
		if s3.Region != "" {
			out.Properties["aws.s3.region"] = s3.Region
		}
		if s3.Endpoint != "" {
			out.Properties["aws.s3.endpoint"] = s3.Endpoint
		}
		switch c := s3.Credentials; {
		case c.SecretRef != nil:
			s, ref, err := secret(c.SecretRef.Name)
			if ref != nil || err != nil {
				return out, "", ref, err
			}
			for prop, key := range map[string]string{"aws.s3.access_key": orDefault(c.SecretRef.AccessKeyKey, "access_key"), "aws.s3.secret_key": orDefault(c.SecretRef.SecretKeyKey, "secret_key")} {
				v, ok := s.Data[key]
				if !ok || len(v) == 0 {
					return out, "", &backup.Refusal{Reason: srv1.ReasonCredentialsMissing, Message: fmt.Sprintf("Secret %q has no key %q: nothing is sent to FE until it has", s.Name, key)}, nil
				}
				out.Properties[prop] = string(v)
			}
		default:
			// The instance profile, and an assumed role with it (backup §1.1).
			out.Properties["aws.s3.use_instance_profile"] = "true"
			if c.IAMRoleARN != "" {
				out.Properties["aws.s3.iam_role_arn"] = c.IAMRoleARN
			}
		}
	}
	if ref := repo.Spec.PropertiesFrom; ref != nil {
		s, refusal, err := secret(ref.Name)
		if refusal != nil || err != nil {
			return out, "", refusal, err
		}
		for k, v := range s.Data {
			out.Properties[k] = string(v)
		}
	}
	h := sha256.New()
	keys := make([]string, 0, len(out.Properties))
	for k := range out.Properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintf(h, "%s\x00%s\x00%v\x00", out.Name, out.Location, out.ReadOnly)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\x00", k, out.Properties[k])
	}
	return out, "sha256:" + hex.EncodeToString(h.Sum(nil))[:16] + "@" + credentialsVersion(repo), nil, nil
}

// hashPart is a credentials hash without the annotation's version.
func hashPart(h string) string {
	if i := strings.LastIndex(h, "@"); i >= 0 {
		return h[:i]
	}
	return h
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (r *RepositoryReconciler) step(ctx context.Context, repo *srv1.StarRocksBackupRepository, st *srv1.StarRocksBackupRepositoryStatus) (time.Duration, func(), error) {
	src, feConf, ref, err := r.cluster(ctx, repo.Namespace, repo.Spec.StarRocksCluster)
	if err != nil {
		return 0, nil, err
	}
	if ref != nil {
		r.refuse(repo, st, ref)
		return 0, nil, nil
	}
	if fe.SharedData(feConf) {
		r.refuse(repo, st, backup.RefuseSharedData("BACKUP or RESTORE", src.Name))
		return 0, nil, nil
	}
	name := sqlName(repo)
	st.RepositoryName = name
	st.LifecycleRulePrefix = backup.LifecyclePrefix(repo.Spec.Location, name)
	// Two objects of one cluster naming one repository at two places: the later one waits.
	others := &srv1.StarRocksBackupRepositoryList{}
	if err := r.client.List(ctx, others, client.InNamespace(repo.Namespace)); err != nil {
		return 0, nil, err
	}
	for _, o := range others.Items {
		if o.UID != repo.UID && o.Spec.StarRocksCluster == repo.Spec.StarRocksCluster && sqlName(&o) == name && o.CreationTimestamp.Before(&repo.CreationTimestamp) {
			if ref := backup.RefuseRepositoryName(name, repo.Spec.Location, o.Spec.Location); ref != nil {
				r.refuse(repo, st, ref)
				return 0, nil, nil
			}
		}
	}
	want, hash, ref, err := r.credentials(ctx, repo)
	if err != nil {
		return 0, nil, err
	}
	if ref != nil {
		// Secrets are not watched (the operator caches none): the Secret is
		// looked for again each PollEvery, so one made later is found.
		r.refuse(repo, st, ref)
		return r.cfg.PollEvery, nil, nil
	}
	if a := r.talk.Last(repo, "send"); a != nil {
		r.talk.Forget(repo.UID)
		if a.Err != nil || a.SendErr != nil {
			err := a.SendErr
			if err == nil {
				err = a.Err
			}
			r.set(repo, st, false, feReason(err), "creating the repository in FE: "+trouble(err), false)
			return r.cfg.TalkEvery, nil, nil
		}
		return r.found(ctx, repo, st, a, want, hash)
	}
	a := r.talk.Fresh(repo, "read")
	if a == nil {
		r.talk.Ask(repositoryKind, repo, src, feConf, "read", func(ctx context.Context, c *fe.Client, a *Answer) {
			a.Repositories, a.Err = c.ShowRepositories(ctx)
			a.ReposRead = a.Err == nil
		})
		return r.cfg.TalkEvery, nil, nil
	}
	if a.Err != nil {
		r.set(repo, st, false, feReason(a.Err), trouble(a.Err), false)
		return r.cfg.TalkEvery, nil, nil
	}
	var have *fe.RepositoryRow
	for i := range a.Repositories {
		if a.Repositories[i].Name == name {
			have = &a.Repositories[i]
		}
	}
	switch {
	case have == nil:
		// CREATE: a new repository, or an attachment to the one another
		// cluster made at the location (FE reads its __repo_info).
		if err := r.ensureFinalizer(ctx, repo); err != nil {
			return 0, nil, err
		}
		return r.cfg.TalkEvery, r.sendCreate(repo, src, feConf, want, false), nil
	case backup.RefuseRepositoryName(name, repo.Spec.Location, have.Location) != nil:
		r.refuse(repo, st, backup.RefuseRepositoryName(name, repo.Spec.Location, have.Location))
		return 0, nil, nil
	case st.CredentialsHash != "" && hashPart(st.CredentialsHash) != hashPart(hash):
		// Rotation: DROP and CREATE, once no job of ours runs on it
		// (FE refuses the DROP otherwise, backup §1.2).
		busy, err := r.jobsOn(ctx, repo)
		if err != nil {
			return 0, nil, err
		}
		if busy != "" {
			r.set(repo, st, true, srv1.ReasonRotationPending, "the credentials changed: the repository is made again once "+busy+" ends", false)
			return r.cfg.PollEvery, nil, nil
		}
		return r.cfg.TalkEvery, r.sendCreate(repo, src, feConf, want, true), nil
	}
	return r.found(ctx, repo, st, a, want, hash)
}

// found records a repository FE has.
func (r *RepositoryReconciler) found(_ context.Context, repo *srv1.StarRocksBackupRepository, st *srv1.StarRocksBackupRepositoryStatus, a *Answer, want fe.Repository, hash string) (time.Duration, func(), error) {
	r.talk.Forget(repo.UID)
	var have *fe.RepositoryRow
	for i := range a.Repositories {
		if a.Repositories[i].Name == want.Name {
			have = &a.Repositories[i]
		}
	}
	if have == nil {
		r.set(repo, st, false, srv1.ReasonWaitingForFE, "FE does not list the repository yet", false)
		return r.cfg.TalkEvery, nil, nil
	}
	created := st.CredentialsHash == ""
	st.CredentialsHash = hash
	st.ErrMsg = have.ErrMsg
	if st.CreatedAt == nil {
		st.CreatedAt = &metav1.Time{Time: r.now().Truncate(time.Second)}
	}
	if have.ErrMsg != "" {
		r.set(repo, st, false, srv1.ReasonRepositoryUnreachable, "FE cannot reach the store: "+have.ErrMsg, false)
		return 0, nil, nil
	}
	if created && a.Sent {
		r.recorder.Eventf(repo, nil, corev1.EventTypeNormal, "RepositoryCreated", "CreateRepository", "repository %s at %s is in FE", want.Name, want.Location)
	}
	r.set(repo, st, true, srv1.ReasonRepositoryCreated, fmt.Sprintf("FE has repository %s at %s", want.Name, want.Location), false)
	return 0, nil, nil
}

// sendCreate is the conversation that creates the repository (after a
// DROP, for a rotation), then lists the repositories.
func (r *RepositoryReconciler) sendCreate(repo *srv1.StarRocksBackupRepository, src *srv1.StarRocksCluster, feConf string, want fe.Repository, rotate bool) func() {
	return func() {
		r.talk.Ask(repositoryKind, repo, src, feConf, "send", func(ctx context.Context, c *fe.Client, a *Answer) {
			a.Sent = true
			if rotate {
				if a.SendErr = (fe.DropRepository{Name: want.Name}).Send(ctx, c); a.SendErr != nil {
					return
				}
			}
			if a.SendErr = (fe.CreateRepository{Repository: want}).Send(ctx, c); a.SendErr != nil {
				return
			}
			a.Repositories, a.Err = c.ShowRepositories(ctx)
			a.ReposRead = a.Err == nil
		})
		if rotate {
			r.recorder.Eventf(repo, nil, corev1.EventTypeNormal, "RepositoryRotated", "CreateRepository", "the credentials changed: repository %s is dropped and created again at %s", want.Name, want.Location)
		}
	}
}

// jobsOn names a backup or restore of the operator that runs on repo, "" when none.
func (b *base) jobsOn(ctx context.Context, repo *srv1.StarRocksBackupRepository) (string, error) {
	bl := &srv1.StarRocksBackupList{}
	if err := b.client.List(ctx, bl, client.InNamespace(repo.Namespace)); err != nil {
		return "", err
	}
	for _, x := range bl.Items {
		if x.Spec.Repository == repo.Name && x.Status.Phase == srv1.BackupRunning {
			return backupKind + " " + x.Name, nil
		}
	}
	rl := &srv1.StarRocksRestoreList{}
	if err := b.client.List(ctx, rl, client.InNamespace(repo.Namespace)); err != nil {
		return "", err
	}
	for _, x := range rl.Items {
		if x.Spec.Repository == repo.Name && x.Status.Phase == srv1.BackupRunning {
			return restoreKind + " " + x.Name, nil
		}
	}
	return "", nil
}

// finalize drops the repository from FE (its data stays in the store),
// once no job of ours runs on it.
func (r *RepositoryReconciler) finalize(ctx context.Context, repo *srv1.StarRocksBackupRepository) (ctrl.Result, error) {
	if repo.Status.CredentialsHash == "" {
		r.talk.Forget(repo.UID)
		return ctrl.Result{}, r.dropFinalizer(ctx, repo)
	}
	src, feConf, ref, err := r.cluster(ctx, repo.Namespace, repo.Spec.StarRocksCluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if ref != nil {
		return ctrl.Result{}, r.dropFinalizer(ctx, repo)
	}
	if busy, err := r.jobsOn(ctx, repo); err != nil || busy != "" {
		return ctrl.Result{RequeueAfter: r.cfg.PollEvery}, err
	}
	a := r.talk.Last(repo, "drop")
	if a == nil {
		name := sqlName(repo)
		r.talk.Ask(repositoryKind, repo, src, feConf, "drop", func(ctx context.Context, c *fe.Client, a *Answer) {
			a.Sent = true
			a.SendErr = (fe.DropRepository{Name: name}).Send(ctx, c)
			a.Err = a.SendErr
		})
		return ctrl.Result{RequeueAfter: r.cfg.TalkEvery}, nil
	}
	r.talk.Forget(repo.UID)
	if a.Err != nil {
		return ctrl.Result{RequeueAfter: r.cfg.TalkEvery}, nil
	}
	r.recorder.Eventf(repo, nil, corev1.EventTypeNormal, "RepositoryDropped", "DropRepository", "repository %s is dropped from FE; its snapshots stay in the store", sqlName(repo))
	return ctrl.Result{}, r.dropFinalizer(ctx, repo)
}
