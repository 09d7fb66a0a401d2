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

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// cleanUpComputeNodes drops from FE, in either mode, the compute nodes a
// CN scale-in removed, once the writes succeeded, and every node of a CN
// spec removed with the user's consent once its pods are gone
// (starrocks.CleanUpComputeNodes).
func (r *Reconciler) cleanUpComputeNodes(ctx context.Context, s *clusterScope) bool {
	if s.err != nil || !r.FE.Configured() {
		return true
	}
	c := resources.ComponentCN
	live := s.in.live[c]
	in := frontend.ComputeNodes(live, s.src.CnStatefulSetName(), s.src.Namespace, s.src.CnSearchServiceName(), r.FE.Every())
	t := s.target(c)
	if s.src.Spec.StarRocksCnSpec == nil {
		in.Removed, in.Held, in.PodsLeft = true, removalHeld(s.src, c), len(r.clusterPods(ctx, s)[c])
		in.Listed = listsComputeNodesOf(s.gates.report, in.Names)
		if live == nil {
			t.StatefulSet = removedComputeNodes(s.src)
			in.UID = t.StatefulSet.UID
		}
	}
	frontend.Run(ctx, r.steps(), t, r.cleanups, s.statefulSetKey(c), in, starrocks.CleanUpComputeNodes)
	return true
}

// listsComputeNodesOf is true when FE's report lists a compute node under
// the name of one of the pods names names.
func listsComputeNodesOf(rep *feReport, names starrocks.PodNames) bool {
	if rep == nil || rep.Err != nil {
		return false
	}
	for _, n := range rep.ComputeNodes {
		if _, ok := names.Ordinal(n.Host); ok {
			return true
		}
	}
	return false
}

// removedComputeNodes stands for the CN StatefulSet of a CN spec removed
// before this process started: its name, and a UID of its own, under which
// the cleanup remembers it.
func removedComputeNodes(src *srv1.StarRocksCluster) *appsv1.StatefulSet {
	sts := &appsv1.StatefulSet{}
	sts.Namespace, sts.Name = src.Namespace, src.CnStatefulSetName()
	sts.UID = types.UID(string(src.UID) + "-removed-cn")
	return sts
}
