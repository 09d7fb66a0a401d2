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
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

// compatibility pauses FE's tablet clone and balancing around a minor or
// major version change, as StarRocks' upgrade and downgrade pages ask
// (starrocks.PlanCompatibility; docs/upgrades.md): FE's values are read and
// recorded on the cluster (srv1.CompatibilityPauseAnnotation), then the
// pause is set, before the first pod of the change is replaced; it is set
// again after an FE restarts or the leader moves; once every component runs
// its image and every BE is Alive, the recorded values are set again and
// the record removed. A cluster with no image change and no record costs
// no FE statement and no read.
func (r *Reconciler) compatibility(ctx context.Context, s *clusterScope) bool {
	if !r.FE.Configured() || s.recovering() {
		return true
	}
	key := client.ObjectKeyFromObject(s.src)
	rec := r.pauseRecord(ctx, s.src)
	in := starrocks.CompatibilityIn{Changes: s.want.changes, Rolling: rollingComponents(s), Record: rec}
	if rec == nil && !starrocks.PlanCompatibility(in).ReadConfig {
		// No record and nothing that needs one: FE is not asked.
		r.pauseSet.Forget(key)
		r.pauseSkipped.Forget(key)
		return true
	}
	if skipped, ok := r.pauseSkipped.Get(key); rec == nil && ok && starrocks.Covers(skipped, s.want.changeKey) {
		return true // this change goes on without the pause (FE did not answer): not asked again
	}
	in.Report = r.FE.Look(s.src, s.want.feConf).Pure()
	in.SetFor, _ = r.pauseSet.Get(key)
	if rec != nil {
		in.FEChanged = lastPodChange(map[resources.Component][]corev1.Pod{resources.ComponentFE: r.pods(ctx, s.src)[resources.ComponentFE]})
	}
	plan := starrocks.PlanCompatibility(in)
	if plan.ReadConfig {
		var shown map[string]string
		err := r.FE.Exec(ctx, s.src, s.want.feConf, func(c *fe.Client) error {
			var err error
			shown, err = c.FrontendConfig(ctx, starrocks.PauseKeys())
			return err
		})
		if err != nil && feaccess.KindOf(err) == feaccess.Unreachable {
			// As the pre-flight does with an FE that does not answer: the
			// change goes on, unchecked, and without the pause; said once.
			r.pauseSkipped.Put(key, s.want.changeKey)
			r.event(s.src, corev1.EventTypeWarning, srv1.ReasonCompatibilityPauseSkipped, "Upgrade", "%s",
				status.Truncate("tablet clone and balancing not paused for the version change of "+starrocks.ChangeNames(s.want.changes)+
					": FE did not answer: "+err.Error(), status.MaxEventNote))
			return true
		}
		if err != nil {
			r.holdForPause(s, plan.Message, err)
			return true
		}
		in.Shown = shown
		plan = starrocks.PlanCompatibility(in)
	}
	if plan.Record != nil {
		if err := r.writePauseRecord(ctx, s.src, plan.Record); err != nil {
			r.holdForPause(s, plan.Message, err)
			return true
		}
	}
	if err := r.sendStatements(ctx, s, plan.Statements); err != nil {
		r.holdForPause(s, plan.Message, err)
		return true
	}
	if plan.SetFor != "" {
		r.pauseSet.Put(key, plan.SetFor)
	}
	if plan.Clear {
		if err := r.writePauseRecord(ctx, s.src, nil); err != nil {
			s.err = err // restored already; the record goes on the next reconcile
			return true
		}
		r.pauseSet.Forget(key)
	}
	if plan.Wait {
		r.waitForPause(s, plan.Message)
	}
	if plan.Event != nil {
		logf.FromContext(ctx).Info(plan.Event.Note)
		r.event(s.src, corev1.EventTypeNormal, plan.Event.Reason, plan.Event.Action, "%s", status.Truncate(plan.Event.Note, status.MaxEventNote))
	}
	if rec != nil && !plan.Clear || plan.Record != nil {
		shown := rec
		if shown == nil {
			shown = plan.Record
		}
		s.want.pauseNote = "tablet clone and balancing paused for the version change; restored to " + shown.String() +
			" once every component runs its image and every BE is Alive"
		s.later(r.FE.Every()) // the restore waits for FE's word, which no watch brings
	}
	return true
}

// waitForPause keeps the image changes not written yet back while FE's
// word on its processes is not in.
func (r *Reconciler) waitForPause(s *clusterScope, msg string) {
	for _, chk := range s.want.changes {
		c := componentNamed(chk.Name)
		s.hold(reconcile.Hold{Component: c, Object: s.want.objects.StatefulSet(c), Field: templateField, Reason: srv1.ReasonCompatibilityPause,
			Message: msg, Report: reconcile.Waits})
	}
	s.later(max(r.FE.Every()/10, minLookAgain))
}

// holdForPause keeps the pending image changes back while the pause cannot
// be taken or set again: FE's error says why.
func (r *Reconciler) holdForPause(s *clusterScope, msg string, err error) {
	t := feaccess.Classify(err)
	for _, chk := range s.want.changes {
		c := componentNamed(chk.Name)
		s.hold(reconcile.Hold{Component: c, Object: s.want.objects.StatefulSet(c), Field: templateField, Reason: t.Reason,
			Message: t.What + msg, Report: reconcile.Waits})
	}
	if len(s.want.changes) == 0 {
		s.err = fmt.Errorf("%s: %w", msg, err) // a component rolls already: retried
	}
	s.later(max(r.FE.Every()/10, minLookAgain))
}

// rollingComponents names the components whose pods do not all run their
// StatefulSet's spec yet.
func rollingComponents(s *clusterScope) []string {
	var out []string
	for _, c := range statefulSetComponents {
		live, want := s.in.live[c], s.want.objects.StatefulSet(c)
		if live != nil && want != nil && (image(live) != image(want) || !status.RolledOut(live)) {
			out = append(out, c.Title())
		}
	}
	return out
}

// pauseWrite is the record this process last wrote on a cluster (nil:
// removed), and the annotation's value it wrote: until the cache shows
// that value, the record written stands (a cache that lags must not make
// the operator record the paused values as FE's own).
type pauseWrite struct {
	record *starrocks.PauseRecord
	value  string
}

// pauseRecord is the pause recorded on src: the annotation, or what this
// process wrote when the cache does not show it yet. An annotation that
// does not parse is taken as the docs' restore values, said in the log.
func (r *Reconciler) pauseRecord(ctx context.Context, src *srv1.StarRocksCluster) *starrocks.PauseRecord {
	key := client.ObjectKeyFromObject(src)
	value := src.Annotations[srv1.CompatibilityPauseAnnotation]
	if w, ok := r.pauseWrites.Get(key); ok {
		if w.value != value {
			return w.record
		}
		r.pauseWrites.Forget(key)
	}
	if value == "" {
		return nil
	}
	rec := &starrocks.PauseRecord{}
	if err := json.Unmarshal([]byte(value), rec); err != nil || rec.Values == nil {
		logf.FromContext(ctx).Info("the compatibility pause record does not parse: the docs' restore values stand in", "annotation", srv1.CompatibilityPauseAnnotation, "error", fmt.Sprint(err))
		return &starrocks.PauseRecord{Values: map[string]string{}}
	}
	return rec
}

// writePauseRecord sets (nil: removes) the record on the cluster, a merge
// patch of the one annotation.
func (r *Reconciler) writePauseRecord(ctx context.Context, src *srv1.StarRocksCluster, rec *starrocks.PauseRecord) error {
	value, patchValue := "", "null"
	if rec != nil {
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		value = string(b)
		q, _ := json.Marshal(value)
		patchValue = string(q)
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}}}`, srv1.CompatibilityPauseAnnotation, patchValue)
	obj := &srv1.StarRocksCluster{}
	obj.Namespace, obj.Name = src.Namespace, src.Name
	if err := r.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch)), client.FieldOwner(reconcile.FieldOwner)); err != nil {
		return fmt.Errorf("recording the compatibility pause on the cluster: %w", err)
	}
	r.pauseWrites.Put(client.ObjectKeyFromObject(src), pauseWrite{record: rec, value: value})
	return nil
}
