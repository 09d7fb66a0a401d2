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
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// tell emits the reconcile's Events: one per kind of write (a first step's
// writes, counted when made, are told here), and a Warning only when the
// reconcile error or the config warning is new. The compute-node cleanup
// tells what it dropped itself, when it ends.
func (r *Reconciler) tell(ctx context.Context, s *clusterScope) {
	src := s.src
	reconcile.CountWrites(s.results)
	reconcile.TellWrites(r.Recorder, src, slices.Concat(takeStarted(r.started, src), s.results))
	if err := s.reconcileError(); err != nil {
		if reconcile.NewWarning(src.Status.Conditions, srv1.ConditionReconcileError, err, false) {
			reconcile.Warn(r.Recorder, src, reconcile.Reason(err), upstreamReason(src, err), err)
		}
		logf.FromContext(ctx).V(1).Info("reconcile failed", "error", err.Error())
	}
	if w := s.holds.Warning(); w != nil && reconcile.NewWarning(src.Status.Conditions, srv1.ConditionConfigUnavailable, w, true) {
		reconcile.Warn(r.Recorder, src, w.Reason, upstreamReason(src, w), w)
	}
	if msg, first := r.FE.IgnoredSSLMode(src); first {
		r.Recorder.Eventf(src, nil, corev1.EventTypeWarning, srv1.ReasonFESSLModeIgnored, "Reconcile", "%s", msg)
	}
	// An FE that answers beyond the cluster's size or asks for a login the
	// operator does not speak is told once, when StarRocksHealthy first
	// takes that reason (docs/security.md).
	if w := s.gates.word; w != nil && (w.Reason == srv1.ReasonFEAnswerTooLarge || w.Reason == srv1.ReasonFEAuthPluginRefused || w.Reason == srv1.ReasonFEAnswerInvalid) {
		if old := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionStarRocksHealthy); old == nil || old.Reason != w.Reason {
			r.Recorder.Eventf(src, nil, corev1.EventTypeWarning, w.Reason, "ReadFE", "%s", status.Truncate(w.Message, status.MaxEventNote))
		}
	}
}

// unreportedUnrestorable is true when a write of this reconcile found a
// workload's drift beyond apply's reach that the status, computed before
// it, does not tell yet.
func (s *clusterScope) unreportedUnrestorable() bool {
	return slices.ContainsFunc(s.results, func(res apply.Result) bool {
		return res.Unrestorable && (res.Kind == "StatefulSet" || res.Kind == "Deployment") &&
			(s.obs == nil || !slices.Contains(s.obs.Unrestorable, res.Kind+" "+res.Name))
	})
}

// upstreamReasons are the upstream operator's Event reasons per component,
// emitted beside ours so that alerts written for the upstream keep firing.
var upstreamReasons = map[resources.Component]string{
	resources.ComponentFE:      "SyncFeFailed",
	resources.ComponentBE:      "SyncBeFailed",
	resources.ComponentCN:      "SyncCnFailed",
	resources.ComponentFEProxy: "SyncFeProxyFailed",
}

// upstreamReason is the upstream's Event reason for err: the component named
// by the spec field a user error is about, or owning the object a write
// failed on; "" when err names none.
func upstreamReason(src *srv1.StarRocksCluster, err error) string {
	msg := err.Error()
	var user *reconcile.UserError
	if errors.As(err, &user) && user.Reason == srv1.ReasonFeSpecMissing {
		return upstreamReasons[resources.ComponentFE]
	}
	for field, c := range map[string]resources.Component{
		"spec.starRocksFeSpec.": resources.ComponentFE, "spec.starRocksBeSpec.": resources.ComponentBE,
		"spec.starRocksCnSpec.": resources.ComponentCN, "spec.starRocksFeProxySpec.": resources.ComponentFEProxy,
	} {
		if strings.HasPrefix(msg, field) {
			return upstreamReasons[c]
		}
	}
	named := resources.Named(src)
	for _, c := range resources.Components {
		for _, o := range named.Of(c) {
			if strings.Contains(msg, " "+o.GetName()+": ") {
				return upstreamReasons[c]
			}
		}
	}
	return ""
}
