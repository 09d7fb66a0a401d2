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

package cluster

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// cleanUpComputeNodes drops from FE, in either mode, the compute nodes
// a CN scale-in removed, once the writes succeeded.
func (r *Reconciler) cleanUpComputeNodes(ctx context.Context, s *clusterScope) bool {
	if s.err != nil || !r.FE.Configured() {
		return true
	}
	if s.src.Spec.StarRocksCnSpec == nil {
		// A CN spec removed with the user's consent: once its pods are
		// gone, none of its nodes may stay registered.
		key := client.ObjectKeyFromObject(s.src).String()
		live := s.in.live[resources.ComponentCN]
		if live != nil && !removalHeld(s.src, resources.ComponentCN) {
			r.FE.Cleanup.Removing(key, live)
		}
		if live == nil && r.FE.Cleanup.Removed(key) == nil && listsComputeNodesOf(s.gates.report, s.src) && len(r.clusterPods(ctx, s)[resources.ComponentCN]) == 0 {
			// FE lists compute nodes of a CN this cluster no longer runs: a
			// removal an earlier operator process saw through but did not
			// clean up (it kept that in memory; issue 34 item 29). FE's
			// word, not memory, says what is left.
			r.FE.Cleanup.Removing(key, removedComputeNodes(s.src))
		}
		if sts := r.FE.Cleanup.Removed(key); sts != nil {
			left := len(r.clusterPods(ctx, s)[resources.ComponentCN])
			s.later(r.FE.Cleanup.RunRemoved(ctx, r.FE, s.src, s.want.feConf, sts, s.src.CnSearchServiceName(), left))
		}
		return true
	}
	s.later(r.FE.Cleanup.Run(ctx, r.FE, s.src, s.want.feConf, s.in.live[resources.ComponentCN], s.src.CnSearchServiceName()))
	return true
}

// listsComputeNodesOf is true when FE's report lists a compute node under
// the name of one of src's CN pods.
func listsComputeNodesOf(rep *feReport, src *srv1.StarRocksCluster) bool {
	if rep == nil || rep.Err != nil {
		return false
	}
	names := starrocks.NamesOf(src, resources.ComponentCN)
	for _, n := range rep.ComputeNodes {
		if _, ok := names.Ordinal(n.Host); ok {
			return true
		}
	}
	return false
}

// removedComputeNodes stands for the CN StatefulSet of a CN spec removed
// before this process started: its name, and a UID of its own, under which
// the cleanup remembers it dropped its nodes.
func removedComputeNodes(src *srv1.StarRocksCluster) *appsv1.StatefulSet {
	sts := &appsv1.StatefulSet{}
	sts.Namespace, sts.Name = src.Namespace, src.CnStatefulSetName()
	sts.UID = types.UID(string(src.UID) + "-removed-cn")
	return sts
}
