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

	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// dropRemovedBackends drops from FE the shared-data BEs of a BE spec removed
// with the user's consent, once its pods are gone (starrocks.DropRemovedBackends).
func (r *Reconciler) dropRemovedBackends(ctx context.Context, s *clusterScope) bool {
	c := resources.ComponentBE
	if s.err != nil || !r.FE.Configured() {
		return true
	}
	in := starrocks.RemovedBackends{Names: starrocks.NamesOf(s.src, c), Word: s.gates.report.Pure(), Every: r.FE.Every(),
		Removed: s.src.Spec.StarRocksBeSpec == nil && !removalHeld(s.src, c),
		Running: s.in.live[c] != nil || len(r.clusterPods(ctx, s)[c]) > 0}
	frontend.Run(ctx, r.steps(), s.target(c), frontend.NoMemory, client.ObjectKeyFromObject(s.src), in, starrocks.DropRemovedBackends)
	return true
}
