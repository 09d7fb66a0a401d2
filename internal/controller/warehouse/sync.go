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

package warehouse

import (
	"context"
	"errors"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// sync reads what the status reports, applies the objects less
// those held (and less the disruption budget until the cache shows the
// StatefulSet, as for a cluster: see the cluster's applicable), and deletes the
// autoscaler when the policy is gone.
func (r *Reconciler) sync(ctx context.Context, s *scope) bool {
	s.obs = r.observe(ctx, s)
	objs := slices.DeleteFunc(s.want.Objects(), func(o client.Object) bool {
		return s.holds.Keeps(resources.ComponentCN, o) || (s.live == nil && o == client.Object(s.want.DisruptionBudget))
	})
	applied, applyErr := r.Applier.ApplyAll(ctx, objs)
	deleted, deleteErr := r.Applier.DeleteAll(ctx, reconcile.Unwanted(resources.WarehouseNamed(s.wh).Objects(), s.want.Objects()))
	s.results = slices.Concat(applied, deleted)
	s.err = errors.Join(applyErr, deleteErr)
	return s.err == nil
}
