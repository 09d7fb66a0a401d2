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
	"fmt"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// desired gathers what the warehouse's objects are built from (its cn.conf,
// whether FE has multiple warehouses, once per FE image), builds them, and
// holds a StatefulSet edit Kubernetes cannot make.
func (r *Reconciler) desired(ctx context.Context, s *scope) bool {
	wh := s.wh
	cnConf := ""
	if info := wh.Spec.Template.ConfigMapInfo; info.ConfigMapName != "" {
		var err error
		if cnConf, err = r.Configs.Content(ctx, wh.Namespace, info.ConfigMapName, info.ResolveKey, "spec.template.configMapInfo"); err != nil {
			s.err = err
			return false
		}
	}
	multi, err := r.FE.HasFeature(ctx, s.src, s.feConf, fe.FeatureMultiWarehouse)
	if err != nil {
		s.holds = append(s.holds, reconcile.Hold{Component: resources.ComponentCN, Reason: srv1.ReasonFEUnreachable, Message: err.Error(), Report: reconcile.Refuses, Backoff: true})
		return false
	}
	if !multi {
		// Its compute nodes would join default_warehouse silently, and the
		// warehouse could never be dropped (the upstream refuses too).
		s.err = &reconcile.UserError{Reason: srv1.ReasonMultiWarehouseUnsupported, Message: fmt.Sprintf(
			"FE of StarRocksCluster %q does not list the %s feature (GET %s): this StarRocks build cannot run warehouses; no compute node was deployed",
			s.src.Name, fe.FeatureMultiWarehouse, fe.FeaturePath)}
		return false
	}
	// What the live StatefulSet records of its cn.conf decides whether a
	// change of it rolls the pods (see resources.ConfigState).
	var live resources.ConfigState
	if s.live != nil {
		live = resources.ConfigState{Template: s.live.Spec.Template.Annotations[resources.ConfigHashAnnotation], Recorded: s.live.Annotations[resources.ConfigHashAnnotation]}
	}
	s.want = resources.Warehouse(wh, s.src, resources.WarehouseConfig{Content: cnConf, FEContent: s.feConf, MultiWarehouse: true, Live: live})
	check := reconcile.CheckImmutable(s.live, s.want.StatefulSet, "spec.template")
	held := check.Held
	if held == "" && len(check.Grow) > 0 {
		held = growRefused(check.Grow, s.live.Name)
	}
	if held != "" {
		s.holds = append(s.holds, reconcile.Hold{Component: resources.ComponentCN, Object: s.want.StatefulSet, Reason: srv1.ReasonImmutableFieldChanged, Message: held, Report: reconcile.Refuses})
	}
	return true
}

// growRefused says that a warehouse's claims do not grow: unlike a
// cluster's, its StatefulSet is not recreated around its pods.
func growRefused(grow []reconcile.ClaimGrowth, name string) string {
	g := grow[0]
	return fmt.Sprintf("spec.template.storageVolumes[%s].storageSize: a warehouse's claims cannot grow (from %s to %s); StatefulSet %s keeps its current spec",
		g.Template, g.From.String(), g.To.String(), name)
}
