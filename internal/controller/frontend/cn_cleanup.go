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

package frontend

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// cleanupRetry is how soon a reconcile looks again at a cleanup that runs
// or failed; a failed one is tried again after cleanupBackoff, doubling up
// to cleanupBackoffMax.
const (
	cleanupRetry      = 30 * time.Second
	cleanupBackoff    = 30 * time.Second
	cleanupBackoffMax = 10 * time.Minute
	// cleanupTimeout bounds one cleanup's talk with FE.
	cleanupTimeout = 30 * time.Second
	// feJobSlots is how many cleanups talk to FE at once, across the operator.
	feJobSlots = 4
)

// ComputeNodeCleanup drops from FE the compute nodes a scale-in removed, in
// either mode: CN holds no data, and FE would otherwise keep the dead nodes
// registered forever, where queries still try them now and then (upstream
// issue #775 for shared-nothing). It remembers, per StatefulSet, the replicas
// at which FE was last found clean, so FE is asked only after a scale-in (and,
// when the operator starts, once per StatefulSet whose spec was ever
// changed), never on every reconcile.
//
// The talk with FE runs off the reconcile workers (feJobs): a reconcile
// starts it and returns at once, so an FE that does not answer (a
// blackholed port: each try waits out its dial and read timeouts) holds no
// worker, and a thousand such clusters still let the queue drain. At most
// feJobSlots run at once, one per StatefulSet; a failed one is tried again
// on a back-off of its own. Its Event is emitted when it ends.
type ComputeNodeCleanup struct {
	mu    sync.Mutex
	clean map[types.UID]int32
	// gone holds, per cluster, the CN StatefulSet of a removed CN spec
	// as it last ran, until FE lists none of its nodes.
	gone map[string]*appsv1.StatefulSet
	// failures and next space the tries of a cleanup that failed.
	failures map[types.UID]int
	next     map[types.UID]time.Time
	// uids names the StatefulSets the maps above know, so that Forget can
	// drop them when their owner is gone.
	uids map[types.NamespacedName]types.UID
	jobs *feaccess.Jobs
}

// NewComputeNodeCleanup is a cleanup that knows no StatefulSet yet.
func NewComputeNodeCleanup() *ComputeNodeCleanup {
	return &ComputeNodeCleanup{clean: map[types.UID]int32{}, gone: map[string]*appsv1.StatefulSet{}, failures: map[types.UID]int{}, next: map[types.UID]time.Time{},
		uids: map[types.NamespacedName]types.UID{}, jobs: feaccess.NewJobs(feJobSlots)}
}

// Forget drops what is known of the StatefulSet of that name: its cluster
// or warehouse is gone; cluster (its namespace/name) names the cluster whose
// removed CN StatefulSet may be remembered, "" for a warehouse.
func (c *ComputeNodeCleanup) Forget(sts types.NamespacedName, cluster string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if uid, ok := c.uids[sts]; ok {
		delete(c.clean, uid)
		delete(c.failures, uid)
		delete(c.next, uid)
		delete(c.uids, sts)
	}
	if cluster != "" {
		delete(c.gone, cluster)
	}
}

// Remembered is how many StatefulSets the cleanup knows: found clean, and by name.
func (c *ComputeNodeCleanup) Remembered() (clean, named int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.clean), len(c.uids)
}

// Run checks one CN StatefulSet (the cluster's or a warehouse's) whose pods
// register with FE under <pod>.<searchService>.<namespace>, and starts the
// cleanup when one is due. It returns how soon to look again: zero when
// nothing is left to do or the StatefulSet's own status change will bring
// the reconcile back. Dropped nodes are told in an Event on the cluster or
// warehouse by the cleanup itself, when it ends.
func (c *ComputeNodeCleanup) Run(ctx context.Context, access Access, src *srv1.StarRocksCluster, feConf string, sts *appsv1.StatefulSet, searchService string) time.Duration {
	if c == nil || !access.Configured() || sts == nil || sts.Spec.Replicas == nil {
		return 0
	}
	c.mu.Lock()
	c.uids[types.NamespacedName{Namespace: sts.Namespace, Name: sts.Name}] = sts.UID
	last, known := c.clean[sts.UID]
	st := starrocks.CleanUpComputeNodes(starrocks.ComputeNodeCleanup{
		Replicas: *sts.Spec.Replicas, Running: sts.Status.Replicas,
		Generation: sts.Generation, ObservedGeneration: sts.Status.ObservedGeneration,
		Checked: starrocks.Checked{Replicas: last, Known: known}, Backoff: time.Until(c.next[sts.UID]),
	})
	if st.Clean != nil {
		c.clean[sts.UID] = *st.Clean
	}
	c.mu.Unlock()
	return c.do(ctx, access, src, feConf, sts, searchService, st)
}

// do starts the cleanup a step asks for; it returns how soon to look again.
func (c *ComputeNodeCleanup) do(ctx context.Context, access Access, src *srv1.StarRocksCluster, feConf string, sts *appsv1.StatefulSet, searchService string, st starrocks.CleanupDecision) time.Duration {
	if st.DropComputeNodesFrom == nil {
		return st.After
	}
	return c.drop(ctx, access, src, feConf, sts, searchService, *st.DropComputeNodesFrom)
}

// Removing remembers the CN StatefulSet of a removed CN spec, about to be deleted.
func (c *ComputeNodeCleanup) Removing(key string, sts *appsv1.StatefulSet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gone[key] = sts.DeepCopy()
}

// Removed is the CN StatefulSet of a removed CN spec whose nodes may still be registered; nil when none.
func (c *ComputeNodeCleanup) Removed(key string) *appsv1.StatefulSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	sts := c.gone[key]
	if sts != nil {
		if last, known := c.clean[sts.UID]; known && last == 0 {
			delete(c.gone, key)
			delete(c.clean, sts.UID)
			return nil
		}
	}
	return sts
}

// RunRemoved drops from FE every compute node of a CN StatefulSet whose
// spec was removed (with the user's consent), once its
// pods are gone: sts is the StatefulSet as it last ran, podsLeft its pods
// still there. It returns how soon to look again.
func (c *ComputeNodeCleanup) RunRemoved(ctx context.Context, access Access, src *srv1.StarRocksCluster, feConf string, sts *appsv1.StatefulSet, searchService string, podsLeft int) time.Duration {
	if c == nil || !access.Configured() || sts == nil {
		return 0
	}
	c.mu.Lock()
	last, known := c.clean[sts.UID]
	wait := time.Until(c.next[sts.UID])
	c.mu.Unlock()
	return c.do(ctx, access, src, feConf, sts, searchService, starrocks.CleanUpRemovedComputeNodes(starrocks.Checked{Replicas: last, Known: known}, podsLeft, wait))
}

// drop starts the job that drops the nodes of sts at or above want.
func (c *ComputeNodeCleanup) drop(ctx context.Context, access Access, src *srv1.StarRocksCluster, feConf string, sts *appsv1.StatefulSet, searchService string, want int32) time.Duration {
	log := logf.FromContext(ctx).WithValues("statefulSet", sts.Name)
	src, sts = src.DeepCopy(), sts.DeepCopy() // the job outlives the reconcile, which goes on with its copies
	obj, uid := access.owner(src, sts), sts.UID
	c.jobs.Start(uid, func() {
		jobCtx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		dropped, err := dropStale(jobCtx, access, src, feConf, sts, searchService, want, log.Info)
		tellDropped(access.recorder, obj, dropped)
		c.mu.Lock()
		defer c.mu.Unlock()
		if errors.Is(err, errSuperseded) {
			log.Info("CN cleanup left off: the StatefulSet changed since it was decided", "replicas", want)
			return // the next reconcile decides again, on the StatefulSet as it is
		}
		if err != nil {
			c.failures[uid]++
			backoff := min(cleanupBackoff<<(c.failures[uid]-1), cleanupBackoffMax)
			c.next[uid] = time.Now().Add(backoff)
			log.Info("CN cleanup failed; will retry", "error", err.Error(), "retryIn", backoff.String())
			return
		}
		c.clean[uid] = want
		delete(c.failures, uid)
		delete(c.next, uid)
	})
	// Look again: the cleanup may still run, or have failed.
	return cleanupRetry
}

// errSuperseded ends a cleanup whose StatefulSet changed since the
// reconcile decided it.
var errSuperseded = errors.New("the StatefulSet changed since the cleanup was decided")

// stillWants checks, on the API server, that sts still runs want replicas
// under the same UID (or, for a removed CN spec, want 0, that it is gone or
// going). An HPA may have scaled it up since the reconcile decided, and the
// new pods register again under the ordinals about to be dropped (issue 34
// item 29): the cleanup then leaves off. Without a live reader (unit tests)
// it trusts the decision.
func stillWants(ctx context.Context, live client.Reader, sts *appsv1.StatefulSet, want int32) error {
	if live == nil {
		return nil
	}
	now := &appsv1.StatefulSet{}
	err := live.Get(ctx, client.ObjectKeyFromObject(sts), now)
	switch {
	case apierrors.IsNotFound(err):
		if want == 0 {
			return nil
		}
		return errSuperseded
	case err != nil:
		return err
	case now.UID != sts.UID || ptr.Deref(now.Spec.Replicas, 1) > want && (want > 0 || now.DeletionTimestamp == nil):
		return errSuperseded
	}
	return nil
}

func dropStale(ctx context.Context, access Access, src *srv1.StarRocksCluster, feConf string, sts *appsv1.StatefulSet, searchService string, want int32, info func(string, ...any)) ([]string, error) {
	var dropped []string
	err := access.Exec(ctx, src, feConf, func(c *fe.Client) error {
		nodes, err := c.ShowComputeNodes(ctx)
		if err != nil {
			return err
		}
		names := starrocks.PodNames{StatefulSet: sts.Name, HeadlessService: searchService, Namespace: sts.Namespace}
		for _, n := range names.StaleComputeNodes(nodes, want) {
			// Checked again before each DROP: a pod the HPA just added
			// registers within seconds of its creation.
			if err := stillWants(ctx, access.Live(), sts, want); err != nil {
				return err
			}
			if err := c.DropComputeNode(ctx, n); err != nil {
				return fmt.Errorf("dropping compute node %s: %w", n.Host, err)
			}
			info("dropped compute node removed by scale-in from FE", "node", n.Host, "heartbeatPort", n.HeartbeatPort)
			dropped = append(dropped, n.Host)
		}
		return nil
	})
	return dropped, err
}

// tellDropped is one Event per cleanup that dropped nodes.
func tellDropped(recorder events.EventRecorder, obj runtime.Object, dropped []string) {
	if len(dropped) > 0 && recorder != nil {
		recorder.Eventf(obj, nil, corev1.EventTypeNormal, "ComputeNodesDropped", "DropComputeNode",
			"dropped from FE the compute nodes removed by scale-in: %s", strings.Join(dropped, ", "))
	}
}
