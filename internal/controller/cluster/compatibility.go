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
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

// compatibility pauses FE's tablet clone and balancing around a minor or
// major version change, as StarRocks' upgrade and downgrade pages ask
// (starrocks.PlanPause; docs/upgrades.md): FE's values are read and
// recorded on the cluster (srv1.CompatibilityPauseAnnotation), then the
// pause is set, in the reconcile that writes the change's first
// StatefulSet, before the write (and so before its first pod is replaced):
// not while the pre-flight, the rollout order or a scale-in keeps every
// changed StatefulSet (starrocks.NotWritten), nor while a gated change's
// first pod would wait (firstPodWaits). It runs after the phases
// that take those holds, and before the gates and the writes. It is set
// again after an FE restarts or the leader moves; once every component runs
// its image (whatever FE says of a BE that is not Alive), the recorded
// values are set again and the record removed. FE's metadata image is taken after FE's change, and
// before a downgrade's first FE pod. A cluster with no image change and no
// record costs no FE statement and no read.
func (r *Reconciler) compatibility(ctx context.Context, s *clusterScope) bool {
	if !r.FE.Configured() || s.recovering() {
		return true
	}
	rec := r.pauseRecord(ctx, s.src)
	kept := notWritten(s)
	if !rec.Paused() {
		r.firstPodWaits(ctx, s, kept)
	}
	in := starrocks.PauseInput{CompatibilityIn: starrocks.CompatibilityIn{Changes: s.want.changes, Undecided: s.want.pathUndecided,
		Rolling: rollingComponents(s, true), Unsettled: rollingComponents(s, false), Record: rec, Now: time.Now(), Kept: kept},
		ChangeKey: s.want.changeKey, Every: r.FE.Every()}
	if rec != nil {
		pods := r.clusterPods(ctx, s)[resources.ComponentFE]
		in.FEChanged = lastPodChange(map[resources.Component][]corev1.Pod{resources.ComponentFE: pods})
		in.ImageLimit, in.FENames = r.ImageWaitLimit, starrocks.NamesOf(s.src, resources.ComponentFE)
		in.FENotReady = notReady(in.FENames, pods, s.in.live[resources.ComponentFE])
	}
	frontend.Run(ctx, r.steps(), s.target(resources.ComponentFE), r.pauses, client.ObjectKeyFromObject(s.src), in, starrocks.PlanPause)
	return true
}

// notWritten names the components whose image change this reconcile does
// not write, by why (starrocks.NotWritten), from the holds the phases
// before took.
func notWritten(s *clusterScope) map[string]string {
	var ps []starrocks.Pending
	for _, c := range statefulSetComponents {
		want := s.want.objects.StatefulSet(c)
		p := starrocks.Pending{Name: c.Title(), Live: s.in.live[c], Desired: want}
		if want != nil {
			if msg, held := s.holds.Keeping(c, want); held {
				p.Held = cmp.Or(msg, "held")
			}
		}
		ps = append(ps, p)
	}
	return starrocks.NotWritten(ps)
}

// firstPodWaits keeps the pod template of each component whose minor or
// major change this reconcile would write first, while its gate would not
// let the first pod go and FE repairs (starrocks.FirstPodWaits: FE counts
// unhealthy tablets, or lists a pod not Alive), and adds it to kept with
// what it waits for: written now, its change would take the compatibility
// pause, and the gate would then wait with clone and balancing off,
// slowing the repair it waits for to one tablet per 20 s round (issue 50
// item 15). The template, and the pause, go in the reconcile in which the
// first pod may go. Only on FE's word: without it (FE not answering) the
// change goes as before.
func (r *Reconciler) firstPodWaits(ctx context.Context, s *clusterScope, kept map[string]string) {
	var waiting []resources.Component
	for _, chk := range s.want.changes {
		if _, ok := kept[chk.Name]; ok || !chk.Verdict.Allowed() || !chk.Verdict.PauseBalance {
			continue
		}
		for _, c := range statefulSetComponents {
			if c.Title() == chk.Name && previewed(s, c) {
				waiting = append(waiting, c)
			}
		}
	}
	if len(waiting) == 0 || !feAnswers(s) {
		return
	}
	pods := r.clusterPods(ctx, s)
	rep := r.feWord(s, true, lastPodChange(pods), healthEvery(r.SyncPeriod))
	if rep == nil || rep.Err != nil {
		return
	}
	for _, c := range waiting {
		live, want := s.in.live[c], s.want.objects.StatefulSet(c)
		g := starrocks.Gate{Live: live, Pods: pods[c], Word: gateWord(rep, s.src, c), Replicas: ptr.Deref(want.Spec.Replicas, 1), Tablets: starrocks.HoldsTablets(c)}
		what := starrocks.FirstPodWaits(g, c == resources.ComponentFE)
		if what == "" {
			continue
		}
		msg := what + "; the image change, and the compatibility pause it takes, wait with it"
		kept[c.Title()] = msg
		s.hold(s.stepHold(c, starrocks.Hold{Template: true, Waits: true, Reason: srv1.ReasonRollingOut, Message: msg}))
		s.want.notes = append(s.want.notes, c.Title()+": "+msg) // in Progressing beside the rollout's other notes
		s.later(r.FE.Every())
	}
}

// previewed reports whether component c's change would roll under a gate
// one pod at a time (gatable, and gate's other checks without their side
// effects): its first pod's turn can be previewed. A parallel rollout, a gate that is off, the
// user's own strategy, a single pod, or no Ready pod roll as before.
func previewed(s *clusterScope, c resources.Component) bool {
	if !gatable(s, c) || s.src.Annotations[srv1.RolloutAnnotation] == srv1.RolloutParallel {
		return false
	}
	live, want := s.in.live[c], s.want.objects.StatefulSet(c)
	return live.Status.ReadyReplicas > 0 && max(ptr.Deref(live.Spec.Replicas, 0), ptr.Deref(want.Spec.Replicas, 1)) >= 2 &&
		!slices.ContainsFunc(s.holds, func(h reconcile.Hold) bool { return h.Component == c && h.Report == reconcile.Steps })
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

// pauseRecord is the pause recorded on src: the annotation, or what this
// process wrote when the cache does not show it yet. An annotation that
// does not parse is taken as the docs' restore values, said in the log.
func (r *Reconciler) pauseRecord(ctx context.Context, src *srv1.StarRocksCluster) *starrocks.PauseRecord {
	value := r.steps().Recorded(src, srv1.CompatibilityPauseAnnotation)
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

// notReady are the ordinals of the pods that are not Ready: not Ready,
// terminating, or not there while the StatefulSet keeps their ordinal (a
// pod deleted and not made again yet: its process has ended, though FE
// lists it Alive for about 20 s).
func notReady(names starrocks.PodNames, pods []corev1.Pod, sts *appsv1.StatefulSet) map[int]bool {
	out := map[int]bool{}
	if sts != nil && sts.Spec.Replicas != nil {
		for ord := range int(*sts.Spec.Replicas) {
			out[ord] = true
		}
	}
	for i := range pods {
		if ord, ok := resources.PodOrdinal(names.StatefulSet, pods[i].Name); ok {
			out[ord] = !resources.PodReady(&pods[i]) || pods[i].DeletionTimestamp != nil
		}
	}
	for ord, down := range out {
		if !down {
			delete(out, ord)
		}
	}
	return out
}
