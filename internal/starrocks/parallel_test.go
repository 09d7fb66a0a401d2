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
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
)

const (
	oldBE = "starrocks/be-ubuntu:3.3.2"
	newBE = "starrocks/be-ubuntu:3.3.3"
)

// withImage sets the first container's image of s's template (and a claim
// template "be-data" at BE's storage when claim).
func withImage(s *appsv1.StatefulSet, img string, claim bool) *appsv1.StatefulSet {
	s = s.DeepCopy()
	c := corev1.Container{Name: "be", Image: img, VolumeMounts: []corev1.VolumeMount{{Name: "be-data", MountPath: "/opt/starrocks/be/storage"}}}
	s.Spec.Template.Spec.Containers = []corev1.Container{c}
	if claim {
		s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "be-data"}}}
		s.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "be-data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "be-data"}}}}
	} else {
		s.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "be-data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	}
	return s
}

// podsRunning are pods of s at the revisions given, running image img.
func podsRunning(s *appsv1.StatefulSet, img string, revs ...string) []corev1.Pod {
	out := pods(s, revs...)
	for i := range out {
		out[i].Spec.Containers = []corev1.Container{{Name: "be", Image: img}}
	}
	return out
}

// completed is s as the StatefulSet controller marks a rollout complete:
// currentRevision = updateRevision, whatever the strategy.
func completed(s *appsv1.StatefulSet) *appsv1.StatefulSet {
	s.Status.CurrentRevision = s.Status.UpdateRevision
	return s
}

func TestChooseParallel(t *testing.T) {
	steady := rolling(3, ptr.To[int32](0))
	steady.Status.UpdateRevision = "old"
	tests := []struct {
		name     string
		ask      ParallelAsk
		parallel bool
		declined string // part of the message; "" when none
	}{
		{"no annotation: the gated rollout, nothing said", ParallelAsk{
			Component: resources.ComponentBE, Confirmed: newBE,
			Live: withImage(steady, oldBE, true), Desired: withImage(steady, newBE, true), Changing: true,
		}, false, ""},
		{"an image change the confirmation names rolls every pod at once", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: newBE,
			Live: withImage(steady, oldBE, true), Desired: withImage(steady, newBE, true), Changing: true,
		}, true, ""},
		{"the confirmation may list one image per component", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: "starrocks/fe-ubuntu:3.3.3, " + newBE,
			Live: withImage(steady, oldBE, true), Desired: withImage(steady, newBE, true), Changing: true,
		}, true, ""},
		{"a stale confirmation (an earlier image) rolls gated and says so", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: oldBE,
			Live: withImage(steady, oldBE, true), Desired: withImage(steady, newBE, true), Changing: true,
		}, false, "is not confirmed for BE's change to " + newBE},
		{"no confirmation rolls gated and says so", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel,
			Live: withImage(steady, oldBE, true), Desired: withImage(steady, newBE, true), Changing: true,
		}, false, "is not confirmed"},
		{"a change that is not of the image rolls gated, even when the confirmation names the image that runs", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: oldBE,
			Live: withImage(steady, oldBE, true), Desired: withImage(steady, oldBE, true), Changing: true,
		}, false, "not an image change"},
		{"a BE whose storage is an emptyDir is refused: every replica would go at once", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: newBE,
			Live: withImage(steady, oldBE, false), Desired: withImage(steady, newBE, false), Changing: true,
		}, false, "/opt/starrocks/be/storage is not on a PersistentVolumeClaim"},
		{"a BE whose be.conf puts its storage beside the claim is refused", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: newBE, Conf: "storage_root_path = /data1,medium:SSD;${STARROCKS_HOME}/storage\n",
			Live: withImage(steady, oldBE, true), Desired: withImage(steady, newBE, true), Changing: true,
		}, false, "/data1 is not on a PersistentVolumeClaim"},
		{"a BE whose be.conf puts its storage under the claim rolls in parallel", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: newBE, Conf: "storage_root_path = ${STARROCKS_HOME}/storage/a;/opt/starrocks/be/storage/b\n",
			Live: withImage(steady, oldBE, true), Desired: withImage(steady, newBE, true), Changing: true,
		}, true, ""},
		{"an FE whose meta_dir is an emptyDir is refused: its metadata would go at once", ParallelAsk{
			Component: resources.ComponentFE, Mode: srv1.RolloutParallel, Confirmed: newBE,
			Live: withImage(steady, oldBE, true), Desired: withImage(steady, newBE, true), Changing: true,
		}, false, "/opt/starrocks/fe/meta is not on a PersistentVolumeClaim"},
		{"a CN keeps a cache only: an emptyDir does not refuse it", ParallelAsk{
			Component: resources.ComponentCN, Mode: srv1.RolloutParallel, Confirmed: newBE,
			Live: withImage(steady, oldBE, false), Desired: withImage(steady, newBE, false), Changing: true,
		}, true, ""},
		{"under way, a pod not yet replaced on the old image keeps it parallel", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: newBE,
			Live: withImage(rolling(3, nil), newBE, true), Desired: withImage(rolling(3, nil), newBE, true),
			Pods: podsRunning(rolling(3, nil), oldBE, "old", "old", "new"),
		}, true, ""},
		{"under way, every pod replaced and the StatefulSet OnDelete: parallel, waiting for the word", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: newBE,
			Live: withImage(rolling(3, nil), newBE, true), Desired: withImage(rolling(3, nil), newBE, true),
			Pods: podsRunning(rolling(3, nil), newBE, "new", "new", "new"),
		}, true, ""},
		{"a gated rollout of a .conf change under way is not taken over by a confirmation of the image that runs", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: newBE,
			Live: withImage(rolling(3, ptr.To[int32](2)), newBE, true), Desired: withImage(rolling(3, ptr.To[int32](2)), newBE, true),
			Pods: podsRunning(rolling(3, nil), newBE, "old", "old", "new"),
		}, false, "not an image change"},
		{"a stale confirmation says the same mid-rollout as at its start", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: oldBE,
			Live: withImage(rolling(3, ptr.To[int32](2)), newBE, true), Desired: withImage(rolling(3, ptr.To[int32](2)), newBE, true),
			Pods: podsRunning(rolling(3, nil), oldBE, "old", "old", "new"),
		}, false, "is not confirmed for BE's change to " + newBE},
		{"the end of a gated rollout (every pod replaced, a partition of 0) says nothing", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: oldBE,
			Live: withImage(rolling(3, ptr.To[int32](0)), newBE, true), Desired: withImage(rolling(3, ptr.To[int32](0)), newBE, true),
			Pods: podsRunning(rolling(3, nil), newBE, "new", "new", "new"),
		}, false, ""},
		{"a parallel rollout the StatefulSet controller marked complete is still parallel while OnDelete: it waits for StarRocks' word", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: newBE,
			Live: completed(withImage(rolling(3, nil), newBE, true)), Desired: withImage(rolling(3, nil), newBE, true),
			Pods: podsRunning(rolling(3, nil), newBE, "new", "new", "new"),
		}, true, ""},
		{"nothing rolling: nothing said", ParallelAsk{
			Component: resources.ComponentBE, Mode: srv1.RolloutParallel, Confirmed: oldBE,
			Live: withImage(steady, newBE, true), Desired: withImage(steady, newBE, true),
		}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChooseParallel(tt.ask)
			if got.Parallel != tt.parallel {
				t.Errorf("Parallel = %t, want %t (declined: %q)", got.Parallel, tt.parallel, got.Declined)
			}
			if tt.declined == "" && got.Declined != "" || !strings.Contains(got.Declined, tt.declined) {
				t.Errorf("Declined = %q, want it to say %q", got.Declined, tt.declined)
			}
		})
	}
}

func TestAllAtOnce(t *testing.T) {
	later := t0.Add(5 * time.Second)
	deleting := func(p corev1.Pod) corev1.Pod {
		p.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
		return p
	}
	tests := []struct {
		name     string
		gate     func() Gate
		fe       bool
		rolling  bool
		replace  []string
		waiting  string // part of the message when waiting
		onDelete bool
	}{
		{"a template change is written OnDelete: no pod rolls yet", func() Gate {
			s := rolling(3, ptr.To[int32](0))
			s.Status.UpdateRevision = "old"
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Changing: true, Replicas: 3, Tablets: true}
		}, false, true, nil, "all 3 pods are replaced at once", true},
		{"every pod on the old revision is deleted at once, without waiting for FE", func() Gate {
			s := rolling(3, nil)
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true}
		}, false, true, []string{"c-be-0", "c-be-1", "c-be-2"}, "", true},
		{"a pod deleted already, or back at the new revision, is not deleted again (a restart mid-way)", func() Gate {
			s := rolling(3, nil)
			p := pods(s, "old", "old", "new")
			p[0] = deleting(p[0])
			return Gate{Live: s, Pods: p, Replicas: 3, Tablets: true}
		}, false, true, []string{"c-be-1"}, "", true},
		{"no pod is deleted before the StatefulSet is OnDelete", func() Gate {
			s := rolling(3, ptr.To[int32](3))
			return Gate{Live: s, Pods: pods(s, "old", "old", "old"), Replicas: 3, Tablets: true}
		}, false, true, nil, "once the StatefulSet is OnDelete", true},
		{"pods on their way back hold the next component", func() Gate {
			s := rolling(3, nil)
			p := pods(s, "new", "new", "old")
			p[2] = deleting(p[2])
			return Gate{Live: s, Pods: p, Replicas: 3, Tablets: true, Word: word(later, alive(3), 0)}
		}, false, true, nil, "c-be-2 to be replaced", true},
		{"every pod back and Ready: the next component waits for FE to list them Alive", func() Gate {
			s := rolling(3, nil)
			return Gate{Live: s, Pods: pods(s, "new", "new", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3, 1), 0), Heard: heardBefore(3)}
		}, false, true, nil, "FE to list c-be-1 Alive", true},
		{"and for a heartbeat of every new process", func() Gate {
			s := rolling(3, nil)
			h := heardBefore(3)
			h[0] = Heard{Heartbeat: "2026-01-01 12:00:05", Tablets: "2026-01-01 12:00:05", Reports: true}
			return Gate{Live: s, Pods: pods(s, "new", "new", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0), Heard: h}
		}, false, true, nil, "a heartbeat from c-be-0's new process", true},
		{"and for every tablet healthy", func() Gate {
			s := rolling(3, nil)
			return Gate{Live: s, Pods: pods(s, "new", "new", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 7), Heard: heardBefore(3)}
		}, false, true, nil, "every tablet healthy", true},
		{"StarRocks' word on every pod gives the spec's strategy back: the rollout completes", func() Gate {
			s := rolling(3, nil)
			return Gate{Live: s, Pods: pods(s, "new", "new", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 0), Heard: heardBefore(3)}
		}, false, false, nil, "", false},
		{"a rollout the StatefulSet controller marked complete still waits for StarRocks' word, OnDelete", func() Gate {
			s := completed(rolling(3, nil))
			return Gate{Live: s, Pods: pods(s, "new", "new", "new"), Replicas: 3, Tablets: true, Word: word(later, alive(3), 7), Heard: heardBefore(3)}
		}, false, true, nil, "every tablet healthy", true},
		{"FE waits for its leader before the rollout completes", func() Gate {
			s := rolling(3, nil)
			return Gate{Live: s, Pods: pods(s, "new", "new", "new"), Replicas: 3, Word: word(later, alive(3), 0)}
		}, true, true, nil, "FE to name its leader", true},
		{"FE with a leader completes", func() Gate {
			s := rolling(3, nil)
			w := word(later, alive(3), 0)
			w.Leader = 1
			return Gate{Live: s, Pods: pods(s, "new", "new", "new"), Replicas: 3, Word: w}
		}, true, false, nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := AllAtOnce(tt.gate(), tt.fe)
			if st.Rolling != tt.rolling || st.OnDelete != tt.onDelete {
				t.Fatalf("Rolling %t OnDelete %t, want %t %t (%q)", st.Rolling, st.OnDelete, tt.rolling, tt.onDelete, st.Message)
			}
			var names []string
			for _, p := range st.Replace {
				names = append(names, p.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.replace, ",") {
				t.Errorf("Replace %v, want %v (%q)", names, tt.replace, st.Message)
			}
			if st.Waiting != (tt.waiting != "") || !strings.Contains(st.Message, tt.waiting) {
				t.Errorf("Waiting %t %q, want it to say %q", st.Waiting, st.Message, tt.waiting)
			}
		})
	}
}
