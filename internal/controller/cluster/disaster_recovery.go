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
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// Disaster recovery (spec.disasterRecovery), as upstream v1.11.5 runs it: FE
// alone restores the shared-data cluster from cluster_snapshot.yaml while BE
// and CN are held; status.disasterRecoveryStatus goes todo -> doing -> done;
// then the cluster returns to its normal spec.

// recovering returns the generation of the recovery the spec asks for that
// has not finished yet. A recovery restores a shared-data cluster from its
// object storage: on a shared-nothing cluster (feConf without run_mode =
// shared_data) spec.disasterRecovery is ignored, as the upstream ignores it
// (facts sheet §13).
func recovering(src *srv1.StarRocksCluster, feConf string) (int64, bool) {
	dr := src.Spec.DisasterRecovery
	if dr == nil || !dr.Enabled || !fe.SharedData(feConf) {
		return 0, false
	}
	st := src.Status.DisasterRecoveryStatus
	done := st != nil && st.ObservedGeneration == dr.Generation && st.Phase == srv1.DisasterRecoveryDone
	return dr.Generation, !done
}

// disasterRecovery rewrites the desired FE for a recovery and holds BE and
// CN: neither written nor deleted. A recovery without cluster_snapshot.yaml
// where FE reads it is a user error: nothing is changed.
func (r *Reconciler) disasterRecovery(_ context.Context, s *clusterScope) bool {
	gen, ok := recovering(s.src, s.want.feConf)
	if !ok {
		return true
	}
	if s.in.snapshot != nil {
		s.fail(s.in.snapshot)
		return false
	}
	resources.DisasterRecoveryFE(s.want.objects.FE, s.src, s.want.feConf, gen)
	for _, c := range []resources.Component{resources.ComponentBE, resources.ComponentCN} {
		s.hold(reconcile.Hold{Component: c, Reason: srv1.ReasonDisasterRecovery, Message: "held while disaster recovery runs", Report: reconcile.Waits})
	}
	return true
}

// clusterSnapshot checks that FE's configMaps put cluster_snapshot.yaml
// where FE reads it (resources.ClusterSnapshotSources). A ConfigMap or key
// that is not there is the user's to fix; a failed read is retried.
func (r *Reconciler) clusterSnapshot(ctx context.Context, src *srv1.StarRocksCluster) error {
	for _, from := range resources.ClusterSnapshotSources(&src.Spec.StarRocksFeSpec.StarRocksComponentSpec) {
		_, err := r.Configs.Content(ctx, src.Namespace, from.ConfigMap, from.Key, "spec.starRocksFeSpec.configMaps")
		var user *reconcile.UserError
		if err == nil || !errors.As(err, &user) {
			return err
		}
	}
	return &reconcile.UserError{Reason: srv1.ReasonClusterSnapshotMissing, Message: fmt.Sprintf(
		"spec.disasterRecovery is enabled but no entry of spec.starRocksFeSpec.configMaps mounts %s where FE reads it: mount a ConfigMap with that key at %s, or the key with subPath at %s/%s",
		resources.ClusterSnapshotFile, feConfDir, feConfDir, resources.ClusterSnapshotFile)}
}

// feConfDir is FE's $STARROCKS_HOME/conf in the StarRocks images.
const feConfDir = "/opt/starrocks/fe/conf"

// disasterRecoveryStatus moves the recovery on from what the cache shows:
// todo when asked, doing once FE runs the recovery template, done once that
// FE has rolled out and is ready.
func disasterRecoveryStatus(src *srv1.StarRocksCluster, feConf string, live *appsv1.StatefulSet) *srv1.DisasterRecoveryStatus {
	cur := src.Status.DisasterRecoveryStatus
	gen, ok := recovering(src, feConf)
	if !ok {
		return cur
	}
	now := time.Now().Unix()
	if cur == nil || cur.ObservedGeneration != gen {
		return &srv1.DisasterRecoveryStatus{Phase: srv1.DisasterRecoveryTodo, ObservedGeneration: gen, StartTimestamp: now, Reason: "FE is being set up to restore the cluster snapshot"}
	}
	next := cur.DeepCopy()
	running := false
	if live != nil && len(live.Spec.Template.Spec.Containers) > 0 {
		g, has := resources.RestoreGeneration(live.Spec.Template.Spec.Containers[0])
		running = has && g == gen
	}
	switch {
	case cur.Phase == srv1.DisasterRecoveryTodo && running:
		next.Phase, next.Reason = srv1.DisasterRecoveryDoing, "FE is restoring the cluster snapshot; BE and CN are held"
	case cur.Phase == srv1.DisasterRecoveryDoing && running && status.RolledOut(live):
		next.Phase, next.Reason, next.EndTimestamp = srv1.DisasterRecoveryDone, "FE restored the cluster snapshot; the cluster returns to its spec", now
	}
	return next
}

// recoveryJustDone is true when this reconcile wrote a done recovery status
// while it still built the recovery spec.
func (r *Reconciler) recoveryJustDone(src *srv1.StarRocksCluster, feConf string) bool {
	if _, ok := recovering(src, feConf); !ok {
		return false
	}
	st, ok := r.status.Recent().Ahead(client.ObjectKeyFromObject(src).String(), src.ResourceVersion)
	return ok && st.DisasterRecoveryStatus != nil && st.DisasterRecoveryStatus.Phase == srv1.DisasterRecoveryDone
}
