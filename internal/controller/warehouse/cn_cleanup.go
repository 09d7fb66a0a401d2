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

import "context"

// cleanUpComputeNodes drops from FE the compute nodes a scale-in removed.
func (r *Reconciler) cleanUpComputeNodes(ctx context.Context, s *scope) bool {
	s.after = r.FE.Cleanup.Run(ctx, r.FE, s.src, s.feConf, s.obs.CN.StatefulSet, s.wh.CnSearchServiceName())
	return true
}
