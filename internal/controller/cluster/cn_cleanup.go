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

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/resources"
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
		if live := s.in.live[resources.ComponentCN]; live != nil && !removalHeld(s.src, resources.ComponentCN) {
			r.FE.Cleanup.Removing(key, live)
		}
		if sts := r.FE.Cleanup.Removed(key); sts != nil {
			left := len(r.pods(ctx, s.src)[resources.ComponentCN])
			s.later(r.FE.Cleanup.RunRemoved(ctx, r.FE, s.src, s.want.feConf, sts, s.src.CnSearchServiceName(), left))
		}
		return true
	}
	s.later(r.FE.Cleanup.Run(ctx, r.FE, s.src, s.want.feConf, s.in.live[resources.ComponentCN], s.src.CnSearchServiceName()))
	return true
}
