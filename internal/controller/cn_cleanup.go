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
	"fmt"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// cleanupRetry is how soon a failed shared-data CN cleanup is tried again.
const cleanupRetry = 30 * time.Second

// computeNodeCleanup drops from FE the compute nodes a scale-in removed, in
// shared-data mode: there CN holds no data, and FE would otherwise keep the
// dead nodes registered forever. It remembers, per StatefulSet, the replicas
// at which FE was last found clean, so FE is asked only after a scale-in (and,
// when the operator starts, once per StatefulSet whose spec was ever
// changed), never on every reconcile.
type computeNodeCleanup struct {
	mu    sync.Mutex
	clean map[types.UID]int32
}

func newComputeNodeCleanup() *computeNodeCleanup {
	return &computeNodeCleanup{clean: map[types.UID]int32{}}
}

// run checks one CN StatefulSet (the cluster's or a warehouse's) whose pods
// register with FE under <pod>.<searchService>.<namespace>. It returns the
// nodes it dropped and how soon to look again: zero when nothing is left to
// do or the StatefulSet's own status change will bring the reconcile back.
func (c *computeNodeCleanup) run(ctx context.Context, access *feAccess, src *srv1.StarRocksCluster, feConf string, sts *appsv1.StatefulSet, searchService string) ([]string, time.Duration) {
	if c == nil || access == nil || sts == nil || sts.Spec.Replicas == nil || !fe.SharedData(feConf) {
		return nil, 0
	}
	want := *sts.Spec.Replicas
	c.mu.Lock()
	last, known := c.clean[sts.UID]
	// Scaled out or unchanged, or never scaled at all (the spec of a
	// StatefulSet at generation 1 was never changed): nothing can be stale.
	if (known && want >= last) || (!known && sts.Generation <= 1) {
		c.clean[sts.UID] = want
		c.mu.Unlock()
		return nil, 0
	}
	c.mu.Unlock()
	// Wait until the scale-in has settled: the removed pods are gone. Their
	// StatefulSet's status change brings the reconcile back.
	if sts.Status.ObservedGeneration < sts.Generation || sts.Status.Replicas != want {
		return nil, 0
	}
	log := logf.FromContext(ctx).WithValues("statefulSet", sts.Name)
	dropped, err := dropStale(ctx, access, src, feConf, sts, searchService, want, log.Info)
	if err != nil {
		log.Info("shared-data CN cleanup failed; will retry", "error", err.Error(), "retryIn", cleanupRetry.String())
		return dropped, cleanupRetry
	}
	c.mu.Lock()
	c.clean[sts.UID] = want
	c.mu.Unlock()
	return dropped, 0
}

func dropStale(ctx context.Context, access *feAccess, src *srv1.StarRocksCluster, feConf string, sts *appsv1.StatefulSet, searchService string, want int32, info func(string, ...any)) ([]string, error) {
	client, err := access.sql(ctx, src, feConf)
	if err != nil {
		return nil, err
	}
	nodes, err := client.ShowComputeNodes(ctx)
	if err != nil {
		return nil, err
	}
	var dropped []string
	for _, n := range fe.StaleNodes(nodes, sts.Name, searchService, sts.Namespace, want) {
		if err := client.DropComputeNode(ctx, n); err != nil {
			return dropped, fmt.Errorf("dropping compute node %s: %w", n.Host, err)
		}
		info("dropped compute node removed by scale-in from FE", "node", n.Host, "heartbeatPort", n.HeartbeatPort)
		dropped = append(dropped, n.Host)
	}
	return dropped, nil
}

// tellDropped is one Event per cleanup that dropped nodes.
func tellDropped(recorder events.EventRecorder, obj runtime.Object, dropped []string) {
	if len(dropped) > 0 && recorder != nil {
		recorder.Eventf(obj, nil, corev1.EventTypeNormal, "ComputeNodesDropped", "DropComputeNode",
			"dropped from FE the compute nodes removed by scale-in: %s", strings.Join(dropped, ", "))
	}
}

// cleanUpComputeNodes drops from FE, in shared-data mode, the compute nodes
// a CN scale-in removed, once the writes succeeded.
func (r *StarRocksClusterReconciler) cleanUpComputeNodes(ctx context.Context, s *clusterScope) bool {
	if s.err != nil || r.FE == nil || s.src.Spec.StarRocksCnSpec == nil {
		return true
	}
	dropped, after := r.FE.cleanup.run(ctx, r.FE, s.src, s.want.feConf, s.in.live[resources.ComponentCN], s.src.CnSearchServiceName())
	s.dropped = append(s.dropped, dropped...)
	s.later(after)
	return true
}
