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

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// cleanUpComputeNodes drops from FE the compute nodes a scale-in removed
// (starrocks.CleanUpComputeNodes), told on the warehouse.
func (r *Reconciler) cleanUpComputeNodes(ctx context.Context, s *scope) bool {
	if !r.FE.Configured() {
		return true
	}
	sts := s.obs.CN.StatefulSet
	if sts == nil {
		return true
	}
	in := frontend.ComputeNodes(sts, sts.Name, sts.Namespace, s.wh.CnSearchServiceName(), r.FE.Every())
	t := frontend.Target{Cluster: s.src, FEConf: s.feConf, On: s.wh, StatefulSet: sts,
		Hold: func(starrocks.Hold) {}, Later: s.later, Fail: func(err error) { s.err = errors.Join(s.err, err) }, Note: func(string) {}}
	frontend.Run(ctx, r.steps(), t, r.cleanups, client.ObjectKeyFromObject(s.wh), in, starrocks.CleanUpComputeNodes)
	return true
}
