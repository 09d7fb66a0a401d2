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

package backup

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

// ClusterSnapshotReconciler applies a shared-data cluster's
// spec.clusterSnapshot: StarRocks' automated cluster snapshot on or off
// (3.4.2+, backup §9), and reads its state into status.clusterSnapshot
// every clusterSnapshotReadEvery. Turning it off deletes the snapshot:
// without spec.clusterSnapshot.confirmPurge nothing is sent.
//
// It writes status.clusterSnapshot alone, with a merge patch of its own;
// the cluster reconciler keeps the field as it reads it.
type ClusterSnapshotReconciler struct {
	base
	memos *reconcile.Memos
}

func newClusterSnapshotReconciler(b base) *ClusterSnapshotReconciler {
	return &ClusterSnapshotReconciler{base: b, memos: reconcile.NewMemos()}
}

// Reconcile brings FE's setting to the spec and reads its state.
func (r *ClusterSnapshotReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	src := &srv1.StarRocksCluster{}
	if err := r.client.Get(ctx, req.NamespacedName, src); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	spec := src.Spec.ClusterSnapshot
	if spec == nil || src.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	st := srv1.ClusterSnapshotStatus{}
	if src.Status.ClusterSnapshot != nil {
		st = *src.Status.ClusterSnapshot.DeepCopy()
	}
	after := r.step(ctx, src, spec, &st)
	if after > time.Minute {
		// The next read, on the clock.
		r.wakeAt(clusterKind, src, after)
		after = 0
	}
	if !equality.Semantic.DeepEqual(src.Status.ClusterSnapshot, &st) {
		body, err := json.Marshal(map[string]any{"status": map[string]any{"clusterSnapshot": st}})
		if err != nil {
			return ctrl.Result{}, err
		}
		if err := r.client.Status().Patch(ctx, src, client.RawPatch(types.MergePatchType, body), client.FieldOwner(reconcile.FieldOwner+"-backup")); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

func (r *ClusterSnapshotReconciler) step(ctx context.Context, src *srv1.StarRocksCluster, spec *srv1.ClusterSnapshotSpec, st *srv1.ClusterSnapshotStatus) time.Duration {
	_, feConf, ref, err := r.cluster(ctx, src.Namespace, src.Name)
	if err != nil || ref != nil {
		return 0
	}
	say := func(reason, message string, warn bool) {
		if warn && (st.Reason != reason || st.Message != message) {
			r.recorder.Eventf(src, nil, corev1.EventTypeWarning, reason, "ClusterSnapshot", "%s", message)
		}
		st.Reason, st.Message = reason, message
	}
	if !fe.SharedData(feConf) {
		say(srv1.ReasonNotSharedData, "spec.clusterSnapshot needs a shared-data cluster (run_mode = shared_data); a shared-nothing cluster takes StarRocksBackups", true)
		return 0
	}
	f := r.features(src, feConf)
	if !f.Known {
		return r.door.Every()
	}
	if !f.ClusterSnapshot {
		say(srv1.ReasonVersionUnsupported, fmt.Sprintf("the automated cluster snapshot needs StarRocks 3.4.2 or later, and FE runs %s", f.Version), true)
		return 0
	}
	need := spec.Enabled != st.Enabled || spec.Enabled && spec.StorageVolume != st.StorageVolume
	purge := st.Enabled && (!spec.Enabled || spec.StorageVolume != st.StorageVolume)
	if purge && !spec.ConfirmPurge {
		say(srv1.ReasonConfirmationRequired, "turning the automated cluster snapshot off (or moving it to another volume) deletes the snapshot StarRocks keeps: set spec.clusterSnapshot.confirmPurge: true", true)
		return 0
	}
	if a := r.talk.Last(src, "snapshot"); a != nil {
		switch {
		case a.Sent && a.Err == nil:
			// The switch went through: record it, and what FE showed after.
			r.talk.Forget(src.UID)
			st.Enabled, st.StorageVolume = a.Switched, ""
			if a.Switched {
				st.StorageVolume = spec.StorageVolume
			}
			r.record(src, st, a)
			r.recorder.Eventf(src, nil, corev1.EventTypeNormal, "ClusterSnapshot", "ClusterSnapshot", "the automated cluster snapshot is %s", map[bool]string{true: "on", false: "off"}[a.Switched])
			return clusterSnapshotReadEvery
		case a.Sent:
			r.talk.Forget(src.UID)
			say(feReason(a.Err), "switching the automated cluster snapshot: "+trouble(a.Err), false)
			return r.cfg.TalkEvery
		case !need && r.cfg.Clock.Since(a.At) < clusterSnapshotReadEvery:
			r.record(src, st, a)
			return clusterSnapshotReadEvery - r.cfg.Clock.Since(a.At)
		}
	}
	if !need && !st.Enabled {
		// Off, as asked: nothing to read.
		say("", "", false)
		return 0
	}
	want, volume, moving := spec.Enabled, spec.StorageVolume, purge && spec.Enabled
	r.talk.Ask(clusterKind, src, src, feConf, "snapshot", func(ctx context.Context, c *fe.Client, a *Answer) {
		if need {
			a.Sent, a.Switched = true, want
			if moving {
				if a.Err = (fe.SetClusterSnapshot{On: false}).Send(ctx, c); a.Err != nil {
					return
				}
			}
			if a.Err = (fe.SetClusterSnapshot{On: want, StorageVolume: volume}).Send(ctx, c); a.Err != nil {
				return
			}
		}
		if want {
			cs, err := c.ClusterSnapshots(ctx)
			a.Cluster, a.Err = &cs, err
		}
	})
	return r.cfg.TalkEvery
}

// record copies FE's snapshot into the status and the metric.
func (r *ClusterSnapshotReconciler) record(src *srv1.StarRocksCluster, st *srv1.ClusterSnapshotStatus, a *Answer) {
	if a.Err != nil {
		st.Reason, st.Message = feReason(a.Err), trouble(a.Err)
		return
	}
	st.Reason, st.Message = "", ""
	if a.Cluster == nil || !st.Enabled {
		st.LastSnapshotName, st.LastSnapshotTime, st.StoragePath, st.LastJobState, st.LastJobError = "", nil, "", "", ""
		return
	}
	cs := a.Cluster
	st.LastSnapshotName, st.StoragePath, st.LastJobState, st.LastJobError = cs.Name, cs.StoragePath, cs.LastJobState, cs.LastJobError
	st.LastSnapshotTime = nil
	if !cs.Created.IsZero() {
		st.LastSnapshotTime = &metav1.Time{Time: cs.Created}
		metrics.ClusterSnapshotLastSuccess.WithLabelValues(src.Namespace, src.Name).Set(float64(cs.Created.Unix()))
	}
}
