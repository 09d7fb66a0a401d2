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
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/version"
)

// preflight checks the version path of an FE, BE or CN image change before
// the first pod of it is replaced, from the versions FE reports the nodes
// run, and the run mode of an fe.conf change (starrocks.PlanPreflight;
// docs/upgrades.md). A path StarRocks' docs refuse keeps the pod template
// of each StatefulSet whose image changes at its live value, reported as
// UpgradePathRefused (a Warning Event when it starts), until the spec
// changes; a minor skip goes on with a Warning Event; a path that cannot be
// checked goes on. Both say so in the Progressing message while the change
// rolls. The cluster's starrocks.com/upgrade-path-check: "off" skips it.
// FE is read only while a change is pending. What it decided is read by
// the rollout order and the compatibility pause from its memory.
func (r *Reconciler) preflight(ctx context.Context, s *clusterScope) bool {
	fe0, live, want := resources.ComponentFE, s.in.live[resources.ComponentFE], s.want.objects.StatefulSet(resources.ComponentFE)
	in := starrocks.PreflightInput{
		Paths: starrocks.PreflightIn{FE: orderWorkload(s, fe0), BE: orderWorkload(s, resources.ComponentBE), CN: orderWorkload(s, resources.ComponentCN),
			FENames: starrocks.NamesOf(s.src, fe0), BENames: starrocks.NamesOf(s.src, resources.ComponentBE), CNNames: starrocks.NamesOf(s.src, resources.ComponentCN)},
		Off:          s.src.Annotations[srv1.UpgradePathCheckAnnotation] == srv1.UpgradePathCheckOff || s.recovering(),
		ConfChanging: live != nil && want != nil && r.FE.Configured() && feAnswers(s) && live.Annotations[resources.ConfigHashAnnotation] != want.Annotations[resources.ConfigHashAnnotation],
		SharedData:   fe.SharedData(s.want.feConf), Every: r.FE.Every(), Now: time.Now(),
	}
	in.Paths.FEConf, in.Paths.Confirmed = s.want.feConf, starrocks.ConfirmedSteps(s.src.Annotations[srv1.UpgradePathConfirmAnnotation])
	if rec := s.src.Status.HighestVersion; rec != "" {
		in.Paths.Ran = version.Reported(rec)
	}
	switch {
	case !r.FE.Configured():
		in.Paths.Unreadable = "the operator has no access to FE configured"
	case !feAnswers(s):
		in.Paths.Unreadable = "no FE pod is Ready"
	}
	key := client.ObjectKeyFromObject(s.src)
	frontend.Run(ctx, r.steps(), s.target(fe0), r.pathChecks, key, in, starrocks.PlanPreflight)
	m, _ := r.pathChecks.Get(key)
	s.want.pathUndecided = m.Waiting // nothing of a change in progress counts as finished meanwhile (compatibility.go)
	if m.Waiting {
		return true
	}
	s.want.changeKey = m.Key
	if m.Decided != nil {
		for _, chk := range m.Decided.Checks {
			if chk.Verdict.Allowed() {
				s.want.changes = append(s.want.changes, chk)
			}
		}
	}
	return true
}
