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
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// beWithStorage is a BE StatefulSet whose storage volume is a claim
// template (claim) or an emptyDir.
func beWithStorage(claim bool) *appsv1.StatefulSet {
	sts := &appsv1.StatefulSet{}
	sts.Spec.Template.Spec.Containers = []corev1.Container{{Name: "be", VolumeMounts: []corev1.VolumeMount{{Name: "be-data", MountPath: "/opt/starrocks/be/storage"}}}}
	if claim {
		sts.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "be-data"}}}
	} else {
		sts.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "be-data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	}
	return sts
}

func TestEphemeralRollout(t *testing.T) {
	ephemeral := UnclaimedDataDirs(resources.ComponentBE, "", beWithStorage(false))
	if len(ephemeral) != 1 || ephemeral[0] != "/opt/starrocks/be/storage" {
		t.Fatalf("UnclaimedDataDirs of an emptyDir BE: %v", ephemeral)
	}
	if d := UnclaimedDataDirs(resources.ComponentBE, "", beWithStorage(true)); len(d) != 0 {
		t.Fatalf("UnclaimedDataDirs of a BE on a claim: %v", d)
	}
	if d := UnclaimedDataDirs(resources.ComponentBE, "storage_root_path = /data1;/opt/starrocks/be/storage\n", beWithStorage(true)); len(d) != 1 || d[0] != "/data1" {
		t.Fatalf("UnclaimedDataDirs of a second root outside the claim: %v", d)
	}
	if d := UnclaimedDataDirs(resources.ComponentCN, "", beWithStorage(false)); len(d) != 0 {
		t.Fatalf("UnclaimedDataDirs of CN (a cache only): %v", d)
	}
	single := []fe.PartitionRef{{DB: "db", Table: "t", Partition: "t"}, {DB: "db", Table: "p", Partition: "p1"}}
	read := func(ps []fe.PartitionRef, err error) Reads {
		return Reads{Read: Needs{SingleReplica: true}, SingleReplica: ps, SingleReplicaErr: err}
	}
	base := EphemeralRolloutIn{Changing: true, Dirs: ephemeral, Key: "k1"}
	type want struct {
		needs   bool
		waits   bool   // the hold waits for FE, not refused
		refused string // in the hold's message; "" is no hold
		event   bool
		note    string // in Progressing's note
	}
	cases := []struct {
		name string
		in   func(EphemeralRolloutIn) EphemeralRolloutIn
		memo EphemeralNote
		r    Reads
		want want
	}{
		{name: "storage on claims: nothing to say, FE not read", in: func(in EphemeralRolloutIn) EphemeralRolloutIn { in.Dirs = nil; return in }},
		{name: "no template change: nothing to say", in: func(in EphemeralRolloutIn) EphemeralRolloutIn { in.Changing = false; return in }},
		{name: "shared-data: BE keeps a cache only", in: func(in EphemeralRolloutIn) EphemeralRolloutIn { in.SharedData = true; return in }},
		{name: "emptyDir, FE not read yet: asks FE for its single-replica partitions", want: want{needs: true}},
		{name: "emptyDir, FE lists single-replica partitions: refused, naming them and the escape", r: read(single, nil),
			want: want{refused: "db.t, db.p partition p1"}},
		{name: "emptyDir, FE does not answer: refused, saying so", r: read(nil, errors.New("Unknown table 'partitions_meta'")),
			want: want{refused: "FE did not list its partitions of replication_num 1"}},
		{name: "emptyDir, FE does not answer at all: waits for it, not refused", r: Reads{Read: Needs{SingleReplica: true}, SingleReplicaErr: errors.New("i/o timeout"), SingleReplicaUnanswered: true},
			want: want{waits: true, refused: "waits for FE's list"}},
		{name: "emptyDir, no FE pod Ready: waits, FE not asked", in: func(in EphemeralRolloutIn) EphemeralRolloutIn { in.FEDown = true; return in },
			want: want{waits: true, refused: "waits for FE's list"}},
		{name: "emptyDir, FE does not answer, rollout-gate if-fe-reachable: goes with the Warning",
			in:   func(in EphemeralRolloutIn) EphemeralRolloutIn { in.IfReachable = true; return in },
			r:    Reads{Read: Needs{SingleReplica: true}, SingleReplicaErr: errors.New("i/o timeout"), SingleReplicaUnanswered: true},
			want: want{event: true, note: "FE did not answer"}},
		{name: "emptyDir, rollout-gate off: goes with the Warning, FE not asked", in: func(in EphemeralRolloutIn) EphemeralRolloutIn { in.Ungated = true; return in },
			want: want{event: true, note: "FE not asked"}},
		{name: "emptyDir, no access to FE configured: goes with the Warning, FE not asked", in: func(in EphemeralRolloutIn) EphemeralRolloutIn { in.NoAccess = true; return in },
			want: want{event: true, note: "no access to FE"}},
		{name: "emptyDir, FE lists none: goes, one Warning Event", r: read(nil, nil), want: want{event: true, note: "FE lists none now"}},
		{name: "emptyDir, FE lists none, Event told for this change: no second Event", memo: EphemeralNote{Told: "k1"}, r: read(nil, nil),
			want: want{note: "FE lists none now"}},
		{name: "emptyDir, another change: its own Event", memo: EphemeralNote{Told: "k0"}, r: read(nil, nil), want: want{event: true, note: "FE lists none now"}},
		{name: "emptyDir, the cluster allows it: goes without reading FE, one Warning Event naming the annotation",
			in:   func(in EphemeralRolloutIn) EphemeralRolloutIn { in.Allowed = true; return in },
			want: want{event: true, note: srv1.RolloutEphemeralStorageAnnotation + "=allow"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			if tc.in != nil {
				in = tc.in(in)
			}
			st, m := EphemeralRollout(in, tc.memo, tc.r)
			if st.Needs.SingleReplica != tc.want.needs {
				t.Errorf("needs FE's single-replica partitions: %t, want %t", st.Needs.SingleReplica, tc.want.needs)
			}
			var refused *Hold
			for i, h := range st.Holds {
				if h.Template {
					refused = &st.Holds[i]
				}
			}
			switch {
			case tc.want.refused == "" && refused != nil:
				t.Errorf("refused: %q", refused.Message)
			case tc.want.refused != "" && refused == nil:
				t.Errorf("not refused, want a hold saying %q", tc.want.refused)
			case refused != nil:
				if refused.Refuses == tc.want.waits || refused.Waits != tc.want.waits || refused.Component != resources.ComponentBE || refused.Reason != srv1.ReasonEphemeralStorageRefused {
					t.Errorf("hold %+v, want BE's template held, %s, waiting %t", *refused, srv1.ReasonEphemeralStorageRefused, tc.want.waits)
				}
				words := []string{tc.want.refused, "/opt/starrocks/be/storage"}
				if !tc.want.waits {
					words = append(words, srv1.RolloutEphemeralStorageAnnotation+"="+srv1.RolloutEphemeralStorageAllow)
				} else if refused.Trouble == nil {
					t.Errorf("a wait for FE without FE's error: %+v", *refused)
				}
				for _, w := range words {
					if !strings.Contains(refused.Message, w) {
						t.Errorf("hold message %q lacks %q", refused.Message, w)
					}
				}
				if len(st.Events) != 0 {
					t.Errorf("Events %v beside the refusal (ReconcileError's Event tells it)", st.Events)
				}
			}
			if got := len(st.Events) == 1 && st.Events[0].Warning && st.Events[0].Reason == srv1.ReasonEphemeralStorage; got != tc.want.event || len(st.Events) > 1 {
				t.Errorf("Events %+v, want one Warning %s: %t", st.Events, srv1.ReasonEphemeralStorage, tc.want.event)
			}
			if tc.want.event && m.Told != in.Key {
				t.Errorf("memory %+v after the Event, want Told %q", m, in.Key)
			}
			switch {
			case tc.want.note == "" && st.Progress != nil:
				t.Errorf("note %q", st.Progress.Note)
			case tc.want.note != "" && (st.Progress == nil || !strings.Contains(st.Progress.Note, tc.want.note)):
				t.Errorf("progress %+v, want a note with %q", st.Progress, tc.want.note)
			}
		})
	}
}
