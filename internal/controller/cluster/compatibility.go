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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
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
// changed StatefulSet (starrocks.NotWritten). It runs after the phases
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
	in := starrocks.PauseInput{CompatibilityIn: starrocks.CompatibilityIn{Changes: s.want.changes, Undecided: s.want.pathUndecided,
		Rolling: rollingComponents(s, true), Unsettled: rollingComponents(s, false), Record: rec, Now: time.Now(), Kept: notWritten(s)},
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
