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
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

// preflight checks the version path of an FE, BE or CN image change before
// the first pod of it is replaced (starrocks.CheckImagePaths, from the
// versions FE reports the nodes run; docs/upgrades.md). A path StarRocks'
// docs refuse keeps the pod template of each StatefulSet whose image
// changes at its live value, reported as UpgradePathRefused (a Warning
// Event when it starts), until the spec changes; a minor skip goes on with
// a Warning Event; a path that cannot be checked goes on. Both say so in
// the Progressing message while the change rolls. The cluster's
// starrocks.com/upgrade-path-check: "off" skips it. FE is read only while
// an image change is pending.
func (r *Reconciler) preflight(_ context.Context, s *clusterScope) bool {
	key := client.ObjectKeyFromObject(s.src)
	if s.src.Annotations[srv1.UpgradePathCheckAnnotation] == srv1.UpgradePathCheckOff || s.recovering() {
		r.pathNotes.Forget(key)
		r.pathChecks.Forget(key)
		return true
	}
	r.checkRunMode(s)
	in := starrocks.PreflightIn{
		FE: orderWorkload(s, resources.ComponentFE), BE: orderWorkload(s, resources.ComponentBE), CN: orderWorkload(s, resources.ComponentCN),
		FENames: starrocks.NamesOf(s.src, resources.ComponentFE), BENames: starrocks.NamesOf(s.src, resources.ComponentBE),
		CNNames: starrocks.NamesOf(s.src, resources.ComponentCN),
	}
	pre := starrocks.CheckImagePaths(in) // no report: says whether an image changes at all
	if pre.Key == "" {
		r.pathChecks.Forget(key)
	} else {
		in.Since, in.Decided = r.pathCheckOf(key, pre.Key)
		switch {
		case !r.FE.Configured():
			in.Unreadable = "the operator has no access to FE configured"
		case !feAnswers(s):
			in.Unreadable = "no FE pod is Ready"
		default:
			in.Report = r.FE.Look(s.src, s.want.feConf).Pure()
		}
		pre = starrocks.CheckImagePaths(in)
		if !pre.Read {
			r.pathChecks.Put(key, pathCheck{key: pre.Key, since: in.Since, decided: &pre})
		}
	}
	if pre.Read {
		// FE's report since the change was seen is not in yet: the image
		// changes wait for it, one read at most; nothing of a change in
		// progress counts as finished meanwhile (compatibility.go).
		s.want.pathUndecided = true
		for _, name := range pre.Waiting {
			c := componentNamed(name)
			s.hold(reconcile.Hold{Component: c, Object: s.want.objects.StatefulSet(c), Field: templateField, Reason: srv1.ReasonOrderedRollout,
				Message: "the image change waits for FE's report, to check its version path", Report: reconcile.Waits})
		}
		s.later(max(r.FE.Every()/10, minLookAgain))
		return true
	}
	for _, chk := range pre.Refused() {
		c := componentNamed(chk.Name)
		s.hold(reconcile.Hold{Component: c, Object: s.want.objects.StatefulSet(c), Field: templateField,
			Reason: srv1.ReasonUpgradePathRefused, Report: reconcile.Refuses,
			Message: chk.Message() + "; the pod template is kept, no pod restarts (annotate the cluster " +
				srv1.UpgradePathCheckAnnotation + "=" + srv1.UpgradePathCheckOff + " to roll it anyway)"})
	}
	s.want.pathNote = r.notePaths(s, pre)
	for _, chk := range pre.Checks {
		if chk.Verdict.Allowed() {
			s.want.changes = append(s.want.changes, chk)
		}
	}
	s.want.changeKey = pre.Key
	return true
}

// checkRunMode keeps FE's pod template when its fe.conf changes run_mode
// away from the mode FE runs in (starrocks.RunModeRefusal): StarRocks
// converts neither way. FE's report is looked at only while FE's .conf
// changes (the hash of its content the StatefulSet records, which a .conf
// added where there was none changes too; not any template change: FE's
// template changes during an FE scale-in, and the wait would hold it),
// read for it when there is none recent (the wait holds FE for one read);
// an
// FE that does not answer, or lists no BE or CN yet, lets the change go on
// unchecked.
func (r *Reconciler) checkRunMode(s *clusterScope) {
	live, want := s.in.live[resources.ComponentFE], s.want.objects.StatefulSet(resources.ComponentFE)
	if live == nil || want == nil || !r.FE.Configured() || !feAnswers(s) ||
		live.Annotations[resources.ConfigHashAnnotation] == want.Annotations[resources.ConfigHashAnnotation] {
		return
	}
	rep := r.FE.Look(s.src, s.want.feConf)
	if rep == nil {
		// No recent report (a steady cluster is not read): FE's template
		// waits for the read Look started, one read at most.
		s.hold(reconcile.Hold{Component: resources.ComponentFE, Object: want, Field: templateField, Reason: srv1.ReasonOrderedRollout,
			Message: "FE's .conf change waits for FE's report, to check its run mode", Report: reconcile.Waits})
		keepConfHash(s, live, want)
		s.later(max(r.FE.Every()/10, minLookAgain))
		return
	}
	msg := starrocks.RunModeRefusal(fe.SharedData(s.want.feConf), rep.Pure())
	if msg == "" {
		return
	}
	s.hold(reconcile.Hold{Component: resources.ComponentFE, Object: want, Field: templateField,
		Reason: srv1.ReasonUpgradePathRefused, Report: reconcile.Refuses,
		Message: msg + "; the pod template is kept, no pod restarts (annotate the cluster " +
			srv1.UpgradePathCheckAnnotation + "=" + srv1.UpgradePathCheckOff + " to roll it anyway)"})
	keepConfHash(s, live, want)
}

// keepConfHash keeps the .conf hash FE's StatefulSet records at its live
// value while FE's template is held for its .conf: the change stays
// visible to the next reconcile, which checks it again.
func keepConfHash(s *clusterScope, live, want *appsv1.StatefulSet) {
	if err := reconcile.KeepFields(want, live, [][]string{{"metadata", "annotations", resources.ConfigHashAnnotation}}); err != nil {
		s.err = errors.Join(s.err, err)
	}
}

// pathCheck is the pre-flight of one pending image change (its key): since
// when it is seen, and the decision once FE's report since then was in.
type pathCheck struct {
	key     string
	since   time.Time
	decided *starrocks.Preflight
}

// pathCheckOf is since when the change named change is pending, and the
// decision on it so far (nil before FE's report since then). A change that
// is what is left of the last one (BE and CN written, FE waiting for its
// turn) keeps its time and its decision.
func (r *Reconciler) pathCheckOf(key types.NamespacedName, change string) (time.Time, *starrocks.Preflight) {
	var p pathCheck
	r.pathChecks.Update(key, func(old pathCheck, ok bool) (pathCheck, bool) {
		p = old
		switch {
		case !ok || !starrocks.Covers(old.key, change):
			p = pathCheck{key: change, since: time.Now()} // a new change: FE is read again
		case old.key != change:
			p.key = change // part of the change is written: the rest keeps its decision
		}
		return p, true
	})
	return p.since, p.decided
}

// minLookAgain is the least wait before the pre-flight looks for FE's report again.
const minLookAgain = 50 * time.Millisecond

// pathNote is what the pre-flight said of one component's image change
// that goes on: a warning or a path not checked, for the new image.
type pathNote struct {
	image, message string
}

// notePaths remembers, per component, what the pre-flight said of the image
// changes that go on with a word, tells a minor skip's Warning Event, and
// what the pages ask of the user (Required), once per new image, and
// returns what the Progressing message says: each remembered word while
// its component rolls to that image.
func (r *Reconciler) notePaths(s *clusterScope, pre starrocks.Preflight) string {
	key := client.ObjectKeyFromObject(s.src)
	var warn, ask []starrocks.ImageCheck
	var msgs []string
	r.pathNotes.Update(key, func(notes map[string]pathNote, _ bool) (map[string]pathNote, bool) {
		next := map[string]pathNote{}
		for _, chk := range pre.Checks {
			worded := chk.Verdict.Kind == starrocks.PathMinorSkip || chk.Verdict.Kind == starrocks.PathUnknown || chk.Required() != ""
			if !chk.Verdict.Allowed() || !worded {
				continue
			}
			old, ok := notes[chk.Name]
			fresh := !ok || old.image != chk.To
			if fresh && chk.Verdict.Kind == starrocks.PathMinorSkip {
				warn = append(warn, chk)
			}
			if fresh && chk.Required() != "" {
				ask = append(ask, chk)
			}
			msg := chk.Message()
			if req := chk.Required(); req != "" {
				msg += "; " + req
			}
			next[chk.Name] = pathNote{image: chk.To, message: msg}
		}
		for name, n := range notes {
			if _, ok := next[name]; !ok && rollingTo(s, componentNamed(name), n.image) {
				next[name] = n
			}
		}
		for _, c := range statefulSetComponents {
			if n, ok := next[c.Title()]; ok {
				msgs = append(msgs, "upgrade path of "+n.message)
			}
		}
		return next, len(next) > 0
	})
	for _, chk := range warn {
		r.event(s.src, corev1.EventTypeWarning, srv1.ReasonUpgradePathWarning, "Upgrade", "%s",
			status.Truncate(chk.Message(), status.MaxEventNote))
	}
	for _, chk := range ask {
		r.event(s.src, corev1.EventTypeWarning, srv1.ReasonUpgradeRequires, "Upgrade", "%s",
			status.Truncate(chk.Required(), status.MaxEventNote))
	}
	return strings.Join(msgs, "; ")
}

// rollingTo is true while component c's StatefulSet carries image and has
// not rolled every pod to it.
func rollingTo(s *clusterScope, c resources.Component, img string) bool {
	live, want := s.in.live[c], s.want.objects.StatefulSet(c)
	return live != nil && want != nil && image(want) == img && (image(live) != img || !status.RolledOut(live))
}

// orderWorkload is component c's StatefulSet as it runs and as the spec
// wants it, as the rollout order and the pre-flight read them.
func orderWorkload(s *clusterScope, c resources.Component) starrocks.Workload {
	live, want := s.in.live[c], s.want.objects.StatefulSet(c)
	gated := live != nil && gateSet(live) && !starrocks.UserStrategy(resources.ComponentSpec(s.src, c).UpdateStrategy)
	return starrocks.Workload{Name: c.Title(), Live: live, Desired: want, Applied: live != nil && want != nil && s.want.hashes.Written(live, want), Gated: gated}
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

// image is the first container's image of a StatefulSet's pod template.
func image(sts *appsv1.StatefulSet) string {
	if sts == nil || len(sts.Spec.Template.Spec.Containers) == 0 {
		return ""
	}
	return sts.Spec.Template.Spec.Containers[0].Image
}
