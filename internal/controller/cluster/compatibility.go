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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
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
	in := starrocks.CompatibilityIn{Changes: s.want.changes, Undecided: s.want.pathUndecided, Rolling: rollingComponents(s, true), Unsettled: rollingComponents(s, false), Record: rec}
	if first := starrocks.PlanCompatibility(in); rec == nil && !first.ReadConfig && first.Record == nil {
		// No record and nothing that needs one: FE is not asked.
		r.pauseSet.Forget(key)
		r.pauseSkipped.Forget(key)
		r.imageSent.Forget(key)
		return true
	}
	if skipped, ok := r.pauseSkipped.Get(key); rec == nil && ok && starrocks.Covers(skipped, s.want.changeKey) {
		return true // this change goes on without the pause (FE did not answer): not asked again
	}
	in.Report = r.FE.Look(s.src, s.want.feConf).Pure()
	in.SetFor, _ = r.pauseSet.Get(key)
	if sent, ok := r.imageSent.Get(key); ok && rec != nil && sent.image == rec.Image && sent.before == rec.ImageBefore {
		in.ImageAfter, in.ImageSince = sent.after, sent.at
	}
	in.Now = time.Now()
	if rec != nil {
		in.FEChanged = lastPodChange(map[resources.Component][]corev1.Pod{resources.ComponentFE: r.pods(ctx, s.src)[resources.ComponentFE]})
	}
	plan := starrocks.PlanCompatibility(in)
	if plan.Record != nil && !plan.Record.Paused() && unanswered(in.Report) {
		// As the pause is skipped with an FE that does not answer: the
		// change goes on, without the image after it; said once.
		r.skipPause(s, key, "FE's metadata image will not be taken after the change of "+starrocks.ChangeNames(s.want.changes), in.Report.Err)
		return true
	}
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
			r.skipPause(s, key, "tablet clone and balancing not paused for the version change of "+starrocks.ChangeNames(s.want.changes), err)
			return true
		}
		if err != nil {
			r.holdForPause(s, plan.Message, err)
			return true
		}
		in.Shown = shown
		plan = starrocks.PlanCompatibility(in)
	}
	if plan.ReadImages {
		// An FE that does not answer is left out: the plan waits for it.
		in.Images, _ = r.FE.Images(ctx, s.src, s.want.feConf, in.Report.Frontends)
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
	if plan.ImageAfter != 0 {
		r.imageSent.Put(key, imageSent{image: rec.Image, before: rec.ImageBefore, after: plan.ImageAfter, at: in.Now})
	}
	if plan.Clear {
		if err := r.writePauseRecord(ctx, s.src, nil); err != nil {
			s.err = err // restored already; the record goes on the next reconcile
			return true
		}
		r.pauseSet.Forget(key)
		r.imageSent.Forget(key)
	}
	if plan.Wait {
		r.waitForPause(s, plan.Message)
	}
	for _, e := range plan.Events {
		logf.FromContext(ctx).Info(e.Note)
		kind := corev1.EventTypeNormal
		if e.Warning {
			kind = corev1.EventTypeWarning
		}
		r.event(s.src, kind, e.Reason, e.Action, "%s", status.Truncate(e.Note, status.MaxEventNote))
	}
	shown := rec
	if shown == nil {
		shown = plan.Record
	}
	if shown != nil && !plan.Clear {
		s.want.pauseNote = pauseNote(shown, plan)
		s.later(r.FE.Every()) // the restore and the image wait for FE's word, which no watch brings
	}
	return true
}

// imageSent is what this process sent ALTER SYSTEM CREATE IMAGE for: the
// record's FE image and step (before FE's downgrade, or after the change),
// and the leader's journal id then.
type imageSent struct {
	image  string
	before bool
	after  int64
	at     time.Time
}

// unanswered: FE's report is missing or FE did not answer.
func unanswered(r *starrocks.Report) bool {
	return r == nil || r.Err != nil && feaccess.KindOf(r.Err) == feaccess.Unreachable
}

// skipPause lets the change go on without what FE would have to answer,
// said once per change in a Warning Event.
func (r *Reconciler) skipPause(s *clusterScope, key client.ObjectKey, what string, err error) {
	r.pauseSkipped.Put(key, s.want.changeKey)
	why := "FE did not answer"
	if err != nil {
		why += ": " + err.Error()
	}
	r.event(s.src, corev1.EventTypeWarning, srv1.ReasonCompatibilityPauseSkipped, "Upgrade", "%s",
		status.Truncate(what+": "+why, status.MaxEventNote))
}

// pauseNote is what Progressing says while a record stands.
func pauseNote(rec *starrocks.PauseRecord, plan starrocks.CompatibilityPlan) string {
	var parts []string
	if rec.Paused() {
		parts = append(parts, "tablet clone and balancing paused for the version change; restored to "+rec.String()+
			" once every component runs its image and every BE is Alive")
	}
	if rec.Image != "" {
		note := "FE's metadata image is taken once every FE runs " + rec.Image
		if plan.Message != "" && (plan.ImageAfter != 0 || plan.ReadImages || strings.Contains(plan.Message, "metadata image")) {
			note = plan.Message
		}
		parts = append(parts, note)
	}
	return strings.Join(parts, "; ")
}

// waitForPause keeps the image changes not written yet back while FE's
// word on its processes is not in.
func (r *Reconciler) waitForPause(s *clusterScope, msg string) {
	for _, chk := range s.want.changes {
		c := componentNamed(chk.Name)
		s.hold(reconcile.Hold{Component: c, Object: s.want.objects.StatefulSet(c), Field: templateField, Reason: srv1.ReasonCompatibilityPause,
			Message: msg, Report: reconcile.Waits})
	}
	s.later(max(r.FE.Every()/10, starrocks.MinLookAgain))
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
	s.later(max(r.FE.Every()/10, starrocks.MinLookAgain))
}

// rollingComponents names the components whose pods do not all run their
// StatefulSet's spec yet, and with pending those whose image change is
// still to be written.
func rollingComponents(s *clusterScope, pending bool) []string {
	var out []string
	for _, c := range statefulSetComponents {
		live, want := s.in.live[c], s.want.objects.StatefulSet(c)
		if live != nil && want != nil && (pending && resources.Image(live) != resources.Image(want) || !status.RolledOut(live)) {
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
	if err := json.Unmarshal([]byte(value), rec); err != nil {
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

// sendStatements sends statements to the cluster's FE through the door, in
// order, within frontend.StatementTimeout; the first failure ends them.
func (r *Reconciler) sendStatements(ctx context.Context, s *clusterScope, statements []fe.Statement) error {
	if len(statements) == 0 {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, frontend.StatementTimeout)
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

// componentNamed is the StatefulSet component whose Title is name.
func componentNamed(name string) resources.Component {
	for _, c := range statefulSetComponents {
		if c.Title() == name {
			return c
		}
	}
	return resources.ComponentCN
}
