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

// Package backup is the backup controllers: StarRocksBackupRepository
// (repository.go), StarRocksBackup (backup.go), StarRocksBackupSchedule
// (schedule.go), StarRocksRestore (restore.go), and the clusters'
// spec.clusterSnapshot (clustersnapshot.go). FE does the work; each action
// is one statement of internal/fe, decided by internal/starrocks/backup,
// and sent off the reconcile workers through the FE door (talk.go).
//
// Their loop is not the cluster reconciler's Step and executor: a backup
// is a conversation of one object with FE that outlives any reconcile
// (send, then read the job's state for hours), identified by its label,
// so each reconcile reads the last answer, decides, and asks the next
// question; the answer's arrival brings it back. docs/backup.md says why.
package backup

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/starrocks/backup"
	"github.com/srscale/starrocks-operator/internal/status"
)

// Finalizer keeps a backup, restore or repository until FE let it go: a
// running job cancelled (never a restore past COMMIT), a repository dropped.
const Finalizer = "starrocks.com/backup"

// Defaults of Config.
const (
	DefaultPollEvery = 30 * time.Second
	DefaultTalkEvery = 10 * time.Second
	DefaultSlots     = 8
	// clusterSnapshotReadEvery is how often a cluster snapshot's state is
	// read: FE's default interval (600 s, backup §9).
	clusterSnapshotReadEvery = 10 * time.Minute
)

// Config is what the backup controllers need from the operator.
type Config struct {
	// Clock is the time schedules, retention and waits read; nil is the
	// real clock. Tests give the simulated FE's fake clock.
	Clock clock.WithTickerAndDelayedExecution
	// PollEvery is how soon a running job's state is read again.
	PollEvery time.Duration
	// TalkEvery is the least time between two conversations of one object.
	TalkEvery time.Duration
	// Slots is how many conversations run at once, across the operator.
	Slots int
	// Safety holds the control cases' switches; the zero value is safe.
	Safety Safety
}

// Safety switches a safety rule off, for its control case only. The
// shipped operator never sets them (docs/testing.md).
type Safety struct {
	// LabelFromWallClock labels an ad-hoc backup from the time its
	// statement is sent rather than from its object: a restarted operator
	// no longer finds its job by label.
	LabelFromWallClock bool
	// RetentionMayDeleteNewest lets retention delete a database's newest
	// good backup.
	RetentionMayDeleteNewest bool
}

func (c Config) withDefaults() Config {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.PollEvery <= 0 {
		c.PollEvery = DefaultPollEvery
	}
	if c.TalkEvery <= 0 {
		c.TalkEvery = DefaultTalkEvery
	}
	if c.Slots <= 0 {
		c.Slots = DefaultSlots
	}
	return c
}

// base is what the backup reconcilers share.
type base struct {
	timers   *timers
	client   client.Client
	live     client.Reader
	recorder events.EventRecorder
	configs  *reconcile.ConfigSource
	door     feaccess.Door
	talk     *Talk
	cfg      Config
}

// timers bring objects back at a time of the clock (a test's fake clock
// moves it there), where a RequeueAfter would wait real time.
type timers struct {
	mu sync.Mutex
	m  map[types.UID]clock.Timer
}

// wakeAt brings obj back through the talk's wake channel of kind after d,
// replacing the timer obj had.
func (b *base) wakeAt(kind string, obj client.Object, d time.Duration) {
	wake := b.talk.Wake(kind)
	key := client.ObjectKeyFromObject(obj)
	ghost := obj.DeepCopyObject().(client.Object)
	ghost.SetNamespace(key.Namespace)
	ghost.SetName(key.Name)
	b.timers.mu.Lock()
	defer b.timers.mu.Unlock()
	if old := b.timers.m[obj.GetUID()]; old != nil {
		old.Stop()
	}
	b.timers.m[obj.GetUID()] = b.cfg.Clock.AfterFunc(max(d, 0), func() { wake <- event.GenericEvent{Object: ghost} })
}

// stopTimer drops obj's timer.
func (b *base) stopTimer(uid types.UID) {
	b.timers.mu.Lock()
	defer b.timers.mu.Unlock()
	if old := b.timers.m[uid]; old != nil {
		old.Stop()
		delete(b.timers.m, uid)
	}
}

func (b *base) now() time.Time { return b.cfg.Clock.Now() }

// cluster reads the cluster name names in ns and its fe.conf; a refusal
// when there is none (or it has no FE).
func (b *base) cluster(ctx context.Context, ns, name string) (*srv1.StarRocksCluster, string, *backup.Refusal, error) {
	src := &srv1.StarRocksCluster{}
	if err := b.client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, src); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, "", &backup.Refusal{Reason: srv1.ReasonClusterNotFound, Message: fmt.Sprintf("StarRocksCluster %q not found in namespace %q", name, ns)}, nil
		}
		return nil, "", nil, err
	}
	if src.Spec.StarRocksFeSpec == nil {
		return nil, "", &backup.Refusal{Reason: srv1.ReasonClusterNotFound, Message: fmt.Sprintf("StarRocksCluster %q has no FE", name)}, nil
	}
	feConf := ""
	if info := src.Spec.StarRocksFeSpec.ConfigMapInfo; info.ConfigMapName != "" {
		var err error
		if feConf, err = b.configs.Content(ctx, src.Namespace, info.ConfigMapName, info.ResolveKey, "StarRocksCluster "+src.Name+" spec.starRocksFeSpec.configMapInfo"); err != nil {
			return nil, "", nil, err
		}
	}
	return src, feConf, nil, nil
}

// features reads FE's versions from the door's last report (a read at the
// door's rate); known is false while there is none.
func (b *base) features(src *srv1.StarRocksCluster, feConf string) backup.Features {
	rep := b.door.Look(src, feConf)
	if rep == nil || rep.Err != nil {
		return backup.Features{}
	}
	versions := make([]string, 0, len(rep.Frontends))
	for _, f := range rep.Frontends {
		versions = append(versions, f.Version)
	}
	return backup.FeaturesOf(versions)
}

// clusterBusy says why a backup should not start now: the cluster rolls
// out, scales or is not healthy (its status: phase, Progressing). A
// running job is not stopped by it.
func clusterBusy(src *srv1.StarRocksCluster) string {
	if p := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionProgressing); p != nil && p.Status == metav1.ConditionTrue {
		return fmt.Sprintf("StarRocksCluster %q is changing (%s: %s)", src.Name, p.Reason, status.Truncate(p.Message, 200))
	}
	if src.Status.Phase != srv1.PhaseRunning {
		return fmt.Sprintf("StarRocksCluster %q is %s, not running", src.Name, orUnknown(string(src.Status.Phase)))
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "not reconciled yet"
	}
	return s
}

// conditions sets the kstatus conditions of a backup or restore: Ready
// (True once succeeded), Reconciling (while it works), Stalled (when the
// user must act).
func conditions(conds *[]metav1.Condition, gen int64, now time.Time, phase srv1.BackupPhase, reason, message string, stalled bool) {
	set := func(t string, on bool, reason, message string) {
		st := metav1.ConditionFalse
		if on {
			st = metav1.ConditionTrue
		}
		c := metav1.Condition{Type: t, Status: st, Reason: reason, Message: status.Truncate(message, status.MaxConditionMessage), ObservedGeneration: gen}
		if old := meta.FindStatusCondition(*conds, t); old == nil || old.Status != st {
			c.LastTransitionTime = metav1.NewTime(now.Truncate(time.Second))
		} else {
			c.LastTransitionTime = old.LastTransitionTime
		}
		meta.SetStatusCondition(conds, c)
	}
	terminal := backup.Terminal(phase)
	set(srv1.ConditionReady, phase == srv1.BackupSucceeded, reason, message)
	set(srv1.ConditionReconciling, !terminal && !stalled, reason, message)
	set(srv1.ConditionStalled, stalled || phase == srv1.BackupFailed, reason, message)
}

// job is what a backup's and a restore's status share: their phase and
// conditions, and the generation they answer.
type job struct {
	phase *srv1.BackupPhase
	conds *[]metav1.Condition
	gen   int64
}

// wait keeps a job Pending (or Running, once it runs) with a reason.
func (b *base) wait(j job, reason, message string) { b.pend(j, reason, message, false) }

// refuse is wait for a refusal the user must act on: the job is stalled,
// and one Warning Event tells it.
func (b *base) refuse(obj runtime.Object, j job, ref *backup.Refusal) {
	b.warnOnce(obj, *j.conds, ref)
	b.pend(j, ref.Reason, ref.Message, true)
}

func (b *base) pend(j job, reason, message string, stalled bool) {
	if *j.phase == "" {
		*j.phase = srv1.BackupPending
	}
	conditions(j.conds, j.gen, b.now(), *j.phase, reason, message, stalled)
}

// warnOnce emits a Warning Event for a refusal the status does not say yet.
func (b *base) warnOnce(obj runtime.Object, conds []metav1.Condition, r *backup.Refusal) {
	if c := meta.FindStatusCondition(conds, srv1.ConditionStalled); c != nil && c.Status == metav1.ConditionTrue && c.Reason == r.Reason &&
		c.Message == status.Truncate(r.Message, status.MaxConditionMessage) {
		return
	}
	b.recorder.Eventf(obj, nil, corev1.EventTypeWarning, r.Reason, "Refuse", "%s", status.Truncate(r.Message, status.MaxEventNote))
}

// ensureFinalizer adds the finalizer once, before any statement is sent.
func (b *base) ensureFinalizer(ctx context.Context, obj client.Object) error {
	if controllerutil.ContainsFinalizer(obj, Finalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(obj, Finalizer)
	return b.client.Patch(ctx, obj, patch)
}

// dropFinalizer removes it once FE let the object go.
func (b *base) dropFinalizer(ctx context.Context, obj client.Object) error {
	if !controllerutil.ContainsFinalizer(obj, Finalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(obj, Finalizer)
	return client.IgnoreNotFound(b.client.Patch(ctx, obj, patch))
}

// trouble says what FE's error means, in status words.
func trouble(err error) string {
	t := feaccess.Classify(err)
	if t.Kind == feaccess.Refused {
		return t.Message
	}
	return t.What + ": " + err.Error()
}

// feReason is the condition reason of FE's error.
func feReason(err error) string { return feaccess.Classify(err).Reason }

// countSet counts the objects in a state (the queue depth metric).
type countSet struct {
	mu   sync.Mutex
	kind string
	m    map[types.NamespacedName]bool
}

func newCountSet(memos *reconcile.Memos, kind string) *countSet {
	c := &countSet{kind: kind, m: map[types.NamespacedName]bool{}}
	memos.Register(func(key types.NamespacedName) { c.set(key, false) })
	return c
}

func (c *countSet) set(key types.NamespacedName, in bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if in {
		c.m[key] = true
	} else {
		delete(c.m, key)
	}
	metrics.BackupQueueDepth.WithLabelValues(c.kind).Set(float64(len(c.m)))
}
