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
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// do does what a planner's step for component c says (starrocks.Step), in
// the order Step's comment gives: the memory, the statements through the
// FE door and the claims, then the holds, the requeue, the metric, the log,
// the Event and the drain's pacing, then the step after it. A phase that
// talks to StarRocks plans a step and hands it here.
func (r *Reconciler) do(ctx context.Context, s *clusterScope, c resources.Component, st starrocks.Step) {
	live := s.in.live[c]
	r.remember(s, c, live, st)
	if err := r.send(ctx, s, live, st); err != nil {
		r.do(ctx, s, c, st.Failed(err))
		return
	}
	want := s.want.objects.StatefulSet(c)
	for _, h := range st.Holds {
		s.hold(stepHold(c, want, h))
	}
	s.later(st.After)
	if st.Tablets != nil {
		metrics.DecommissionTablets.WithLabelValues(s.src.Namespace, s.src.Name).Set(float64(*st.Tablets))
	}
	if st.Log != nil {
		logf.FromContext(ctx).Info(st.Log.Message, st.Log.KeysAndValues...)
	}
	if st.Event != nil {
		r.event(s.src, corev1.EventTypeNormal, st.Event.Reason, st.Event.Action, "%s", st.Event.Note)
	}
	if d := st.Drain; d != nil {
		key, now := client.ObjectKeyFromObject(s.src), time.Now()
		shown := r.scaleIns.show(key, c, d.Message, now)
		s.hold(stepHold(c, want, d.Hold(shown, r.scaleIns.drained(key, c, d.Tablets, now), now)))
	}
	if st.Then != nil {
		r.do(ctx, s, c, *st.Then)
	}
}

// remember records in the scale-in memory what a step says of it.
func (r *Reconciler) remember(s *clusterScope, c resources.Component, live *appsv1.StatefulSet, st starrocks.Step) {
	key := client.ObjectKeyFromObject(s.src)
	if st.Begin {
		_ = r.FE.Changing(s.src, func() error {
			r.scaleIns.activate(key, c)
			return nil
		})
	}
	if st.End {
		if r.scaleIns.isActive(key, c) {
			r.scaleIns.done(key, c)
		}
		if c == resources.ComponentBE {
			metrics.DecommissionTablets.DeleteLabelValues(s.src.Namespace, s.src.Name)
		}
	}
	if st.Refusal != "" {
		r.scaleIns.refuse(key, c, specKey(s.src, c), st.Refusal)
	}
	if st.Clean != nil {
		r.scaleIns.setClean(key, live, *st.Clean)
	}
}

// send sends a step's statements to FE through the door (which marks FE's
// word out of date), then deletes the claims it names.
func (r *Reconciler) send(ctx context.Context, s *clusterScope, live *appsv1.StatefulSet, st starrocks.Step) error {
	if st.Mark != nil {
		if err := r.markPod(ctx, live, *st.Mark, srv1.DroppedFromFEGroupAnnotation, true); err != nil {
			return err
		}
	}
	for _, ord := range st.MarkDecommissioned {
		// A pod gone has nothing to record.
		err := r.markPod(ctx, live, ord, srv1.DecommissionedByOperatorAnnotation, true)
		if client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	if err := r.sendStatements(ctx, s, st.Statements); err != nil {
		return err
	}
	for _, ord := range st.DeleteClaims {
		if err := r.deleteClaims(ctx, live, ord); err != nil {
			return err
		}
	}
	for _, ord := range st.Restart {
		pod := &corev1.Pod{}
		pod.Namespace, pod.Name = live.Namespace, fmt.Sprintf("%s-%d", live.Name, ord)
		err := r.Client.Delete(ctx, pod)
		if client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting pod %s to start it afresh: %w", pod.Name, err)
		}
	}
	for _, ord := range st.Unmark {
		err := r.markPod(ctx, live, ord, srv1.DecommissionedByOperatorAnnotation, false)
		if client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// sendStatements sends statements to the cluster's FE through the door, in
// order, within feStatementTimeout; the first failure ends them.
func (r *Reconciler) sendStatements(ctx context.Context, s *clusterScope, statements []fe.Statement) error {
	if len(statements) == 0 {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, feStatementTimeout)
	defer cancel()
	return r.FE.Exec(sctx, s.src, s.want.feConf, func(c *fe.Client) error {
		for _, stmt := range statements {
			if err := stmt.Send(sctx, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// markPod sets (or clears) the operator's mark on the pod of ordinal, just
// before the statement it records: the mark, on the pod, outlives this
// process (srv1.DroppedFromFEGroupAnnotation before a DROP FOLLOWER,
// srv1.DecommissionedByOperatorAnnotation before a DECOMMISSION).
func (r *Reconciler) markPod(ctx context.Context, live *appsv1.StatefulSet, ordinal int, mark string, on bool) error {
	pod := &corev1.Pod{}
	pod.Namespace, pod.Name = live.Namespace, fmt.Sprintf("%s-%d", live.Name, ordinal)
	value := `"true"`
	if !on {
		value = "null"
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}}}`, mark, value)
	if err := r.Client.Patch(ctx, pod, client.RawPatch(types.MergePatchType, []byte(patch)), client.FieldOwner(reconcile.FieldOwner)); err != nil {
		return fmt.Errorf("marking pod %s %s=%v: %w", pod.Name, mark, on, err)
	}
	return nil
}

// stepHold is a step's hold of component c's desired StatefulSet want:
// whole, or its replicas set to the value held.
func stepHold(c resources.Component, want *appsv1.StatefulSet, h starrocks.Hold) reconcile.Hold {
	out := reconcile.Hold{Component: c, Object: want, Reason: h.Reason, Message: h.Message, Report: reconcile.Steps}
	if h.Refuses {
		out.Report = reconcile.Refuses
	}
	if h.Trouble != nil {
		t := feaccess.Classify(h.Trouble)
		out.Reason, out.Message = t.Reason, t.What+h.Message
	}
	if h.Replicas != nil {
		out.Field, out.Value = replicasField, *h.Replicas
	}
	return out
}
