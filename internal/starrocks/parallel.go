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

package starrocks

import (
	"fmt"
	"path"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// Parallel rollouts (starrocks.com/rollout: parallel, docs/rollouts.md): an
// image change replaces every pod of a component at once, planned downtime
// on the user's word, confirmed by the image it rolls to
// (starrocks.com/rollout-image). A confirmation that names another image
// (left over from an earlier change) or a change that is not of the image
// rolls one pod at a time, and says so. Like the gated rollouts, it is
// decided from what the API server and FE show now.

// ParallelAsk is what decides whether one component's rollout replaces
// every pod at once.
type ParallelAsk struct {
	Component resources.Component
	// Mode is the cluster's starrocks.com/rollout; Confirmed its
	// starrocks.com/rollout-image (images separated by commas).
	Mode, Confirmed string
	// Live and Desired are the component's StatefulSet as it runs and as
	// the spec wants it; Pods are Live's pods (read only mid-rollout).
	Live, Desired *appsv1.StatefulSet
	Pods          []corev1.Pod
	// Changing is true when the write about to be made changes the pod
	// template (Gate's Changing).
	Changing bool
	// Conf is the component's .conf (storage_root_path, meta_dir).
	Conf string
}

// ParallelChoice is what ChooseParallel decided.
type ParallelChoice struct {
	// Parallel is true when every pod is replaced at once (AllAtOnce).
	Parallel bool
	// Declined, when set, says why a parallel rollout the cluster asks for
	// rolls one pod at a time instead.
	Declined string
	// Image is the image the rollout goes to.
	Image string
}

// ChooseParallel decides whether a component's rollout under way, or
// about to begin, replaces every pod at once: only when the cluster asks
// for it, the change is an image change, the confirmation names the new
// image, and, for BE and FE, the data the pods keep (BE's storage_root_path,
// FE's meta_dir) is on PersistentVolumeClaims: a BE on an emptyDir would
// lose every replica at once, an FE its metadata.
func ChooseParallel(a ParallelAsk) ParallelChoice {
	if a.Mode != srv1.RolloutParallel || a.Live == nil || a.Desired == nil {
		return ParallelChoice{}
	}
	target := resources.Image(a.Live)
	if a.Changing {
		target = resources.Image(a.Desired)
	}
	out := ParallelChoice{Image: target}
	name := a.Component.Title()
	change := changesImage(a, target)
	// The reasons are checked in an order that gives one rollout one
	// reason from its first pod to its last: the confirmation and the
	// storage do not change with the pods, the image change may.
	switch {
	case change == noRollout:
		return ParallelChoice{} // nothing rolls, or what is left of it cannot tell: nothing to say
	case !slices.Contains(confirmedImages(a.Confirmed), target):
		out.Declined = fmt.Sprintf("%s=%s is not confirmed for %s's change to %s (%s=%q): it rolls one pod at a time; set %s to %s to replace every pod at once",
			srv1.RolloutAnnotation, srv1.RolloutParallel, name, target, srv1.RolloutImageAnnotation, a.Confirmed, srv1.RolloutImageAnnotation, target)
		return out
	}
	if dirs := UnclaimedDataDirs(a.Component, a.Conf, a.Desired); len(dirs) > 0 {
		out.Declined = fmt.Sprintf("%s=%s refused for %s: %s is not on a PersistentVolumeClaim, and replacing every pod at once would lose %s at once: it rolls one pod at a time",
			srv1.RolloutAnnotation, srv1.RolloutParallel, name, dirs[0], lost(a.Component))
		return out
	}
	if change == otherChange {
		out.Declined = fmt.Sprintf("%s=%s asks for a parallel rollout, but this change of %s's pod template is not an image change (%s=%q): it rolls one pod at a time",
			srv1.RolloutAnnotation, srv1.RolloutParallel, name, srv1.RolloutImageAnnotation, a.Confirmed)
		return out
	}
	out.Parallel = true
	return out
}

// What a rollout changes, as changesImage tells it.
const (
	noRollout   = iota // nothing rolls, or the pods cannot tell (every one replaced, one at a time)
	newImage           // the pods go to another image
	otherChange        // the pods keep their image: another field changes
)

// changesImage tells whether the rollout goes to another image: before it
// begins, the live template's image differs; under way, a pod not yet
// replaced runs another image. With every pod replaced, a StatefulSet
// still OnDelete is a parallel rollout waiting for StarRocks' word (its
// image changed: nothing else went parallel); otherwise the pods cannot
// tell, and noRollout leaves the end of a gated rollout alone.
func changesImage(a ParallelAsk, target string) int {
	if a.Changing {
		if resources.Image(a.Live) != target {
			return newImage
		}
		return otherChange
	}
	update := a.Live.Status.UpdateRevision
	if a.Live.Status.ObservedGeneration >= a.Live.Generation && (update == "" || (update == a.Live.Status.CurrentRevision && !PodsBehind(a.Live, a.Pods))) && !onDelete(a.Live) {
		return noRollout
	}
	old := false
	for _, p := range byOrdinal(a.Live, a.Pods) {
		if p.DeletionTimestamp != nil || revision(p) == update {
			continue
		}
		if resources.PodImage(p) != target {
			return newImage
		}
		old = true
	}
	switch {
	case old:
		return otherChange
	case onDelete(a.Live):
		return newImage
	}
	return noRollout
}

// confirmedImages splits starrocks.com/rollout-image's value.
func confirmedImages(v string) []string {
	var out []string
	for img := range strings.SplitSeq(v, ",") {
		if img = strings.TrimSpace(img); img != "" {
			out = append(out, img)
		}
	}
	return out
}

func lost(c resources.Component) string {
	if c == resources.ComponentFE {
		return "FE's metadata on every FE"
	}
	return "every tablet replica"
}

// UnclaimedDataDirs are the directories of component c whose loss loses
// data (dataDirs: BE's storage_root_path, FE's meta_dir, read from its
// .conf) that sts's pods do not keep on a PersistentVolumeClaim: an
// emptyDir, another pod volume or the container's own filesystem, gone
// when the pod is replaced. Both the parallel rollout's refusal and the
// gated BE rollout's (EphemeralRollout) decide from it.
func UnclaimedDataDirs(c resources.Component, conf string, sts *appsv1.StatefulSet) []string {
	if sts == nil {
		return nil
	}
	var out []string
	for _, dir := range dataDirs(c, conf) {
		if !onClaim(sts, dir) {
			out = append(out, dir)
		}
	}
	return out
}

// dataDirs are the directories of component c whose loss on every pod at
// once loses data: BE's storage_root_path, FE's meta_dir (the last
// setting of the .conf, as StarRocks reads it; StarRocks' defaults
// without). CN keeps a cache only.
func dataDirs(c resources.Component, conf string) []string {
	home := "/opt/starrocks/" + string(c)
	var key, def string
	switch c {
	case resources.ComponentBE:
		key, def = "storage_root_path", home+"/storage"
	case resources.ComponentFE:
		key, def = "meta_dir", home+"/meta"
	default:
		return nil
	}
	v, ok := fe.ConfValue(conf, key)
	if !ok || v == "" {
		return []string{def}
	}
	var out []string
	for dir := range strings.SplitSeq(v, ";") {
		dir, _, _ = strings.Cut(dir, ",") // "/data1,medium:SSD"
		dir = strings.NewReplacer("${STARROCKS_HOME}", home, "$STARROCKS_HOME", home).Replace(strings.TrimSpace(dir))
		if dir != "" {
			out = append(out, path.Clean(dir))
		}
	}
	if len(out) == 0 {
		return []string{def}
	}
	return out
}

// onClaim reports whether dir, in the first container of sts's pods, is on
// a PersistentVolumeClaim: the deepest mount at or above it is a volume of
// a claim template, or a claim's.
func onClaim(sts *appsv1.StatefulSet, dir string) bool {
	if len(sts.Spec.Template.Spec.Containers) == 0 {
		return false
	}
	var best *corev1.VolumeMount
	for i, m := range sts.Spec.Template.Spec.Containers[0].VolumeMounts {
		mp := path.Clean(m.MountPath)
		if (dir == mp || strings.HasPrefix(dir, strings.TrimSuffix(mp, "/")+"/")) && (best == nil || len(mp) > len(path.Clean(best.MountPath))) {
			best = &sts.Spec.Template.Spec.Containers[0].VolumeMounts[i]
		}
	}
	if best == nil {
		return false // in the container's writable layer
	}
	for _, t := range sts.Spec.VolumeClaimTemplates {
		if t.Name == best.Name {
			return true
		}
	}
	for _, v := range sts.Spec.Template.Spec.Volumes {
		if v.Name == best.Name {
			return v.PersistentVolumeClaim != nil
		}
	}
	return false
}

// AllAtOnce decides a parallel rollout of a BE, CN or FE StatefulSet: it
// goes OnDelete when the template changes (no pod rolls yet), then every
// pod not at the update revision is deleted at once and comes back at it;
// the StatefulSet stays OnDelete, its rollout not complete, until every pod
// runs the update revision, is Ready, and FE lists it Alive (BE and CN:
// heard from its new process; BE: its tablet report processed and no
// unhealthy tablet; FE: a leader named). Then the spec's strategy comes
// back, the StatefulSet controller marks the rollout complete, and the
// next component in the order may roll: the health gate between components.
// A pod deleted already (deletionTimestamp) or made again at the update
// revision is never deleted again, so an operator restarted in the middle
// takes it up where it is.
func AllAtOnce(g Gate, isFE bool) GateStep {
	live := g.Live
	n := int(ptr.Deref(live.Spec.Replicas, 0))
	if g.Changing {
		return GateStep{Rolling: true, OnDelete: true, Waiting: true,
			Message: fmt.Sprintf("pod template changed; all %d pods are replaced at once (%s=%s: planned downtime)", min(n, int(g.Replicas)), srv1.RolloutAnnotation, srv1.RolloutParallel)}
	}
	if live.Status.ObservedGeneration < live.Generation {
		if onDelete(live) {
			return GateStep{Rolling: true, OnDelete: true, Waiting: true, Message: "waiting for the StatefulSet controller to see the last change"}
		}
		return GateStep{}
	}
	update := live.Status.UpdateRevision
	if update == "" || (update == live.Status.CurrentRevision && !onDelete(live) && !PodsBehind(live, g.Pods)) {
		return GateStep{}
	}
	pods := byOrdinal(live, g.Pods)
	step := GateStep{Rolling: true, OnDelete: true, Key: fmt.Sprintf("%s/%s/all", live.UID, update)}
	all := make([]int, 0, n)
	for i := range n {
		all = append(all, i)
		if p := pods[i]; p != nil && p.DeletionTimestamp == nil && revision(p) != update {
			step.Replace = append(step.Replace, p)
		}
	}
	if len(step.Replace) > 0 {
		if !onDelete(live) {
			// The strategy is not OnDelete yet: under a partition a deleted
			// pod comes back at the old revision.
			step.Replace, step.Waiting = nil, true
			step.Message = fmt.Sprintf("all %d pods are replaced at once once the StatefulSet is OnDelete", n)
			return step
		}
		step.Message = fmt.Sprintf("replacing all %d pods at once (%d deleted now): the component is down until they are back", n, len(step.Replace))
		return step
	}
	waitFor := func(what string) GateStep {
		step.Waiting = true
		step.Message = fmt.Sprintf("all %d pods replaced at once; the next component waits for %s", n, what)
		return step
	}
	what, since, ok := settled(live, pods, all, update, g.Word, false)
	step.Since = since
	if !ok {
		return waitFor(what)
	}
	if isFE {
		if g.Word.Leader < 0 {
			return waitFor("FE to name its leader")
		}
		return GateStep{}
	}
	if what, ok := heardSince(live, all, g.Word, g.Heard, g.Tablets); !ok {
		return waitFor(what)
	}
	if g.Tablets {
		switch {
		case g.Word.TabletsErr != nil:
			return waitFor("FE's count of unhealthy tablets, which FE did not give: " + g.Word.TabletsErr.Error())
		case g.Word.Unhealthy > 0:
			return waitFor("FE to report every tablet healthy")
		}
	}
	return GateStep{} // every pod back on StarRocks' word: the spec's strategy, and the rollout completes
}
