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

package resources

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// The rendered templates against the graceful exit their preStop hook
// starts: FE's cap (max_graceful_exit_time_second 60 s) and earliest stop
// (min_graceful_exit_time_second 15 s), BE's and CN's fragment wait (up to
// 60 s). Kubelet's readiness probe sees /api/health fail at the latest
// periodSeconds × failureThreshold after it turned 500.
func TestShutdownTimingOfRenderedTemplates(t *testing.T) {
	all := []Component{ComponentFE, ComponentBE, ComponentCN}
	cases := []struct {
		name   string
		on     []Component
		change func(*srv1.StarRocksComponentSpec)
		want   ShutdownTiming
		// problems holds a piece of each problem expected, in order; none: the timing is right.
		problems []string
	}{
		{
			name: "the defaults (the upstream's template): 120 s grace, unready within 5 s × 3",
			on:   all,
			want: ShutdownTiming{Graceful: true, GraceSeconds: 120, UnreadySeconds: 15},
		},
		{
			name:     "a grace period of 60 s kills at the cap",
			on:       all,
			change:   func(s *srv1.StarRocksComponentSpec) { s.TerminationGracePeriodSeconds = ptr.To[int64](60) },
			want:     ShutdownTiming{Graceful: true, GraceSeconds: 60, UnreadySeconds: 15},
			problems: []string{"terminationGracePeriodSeconds 60 kills"},
		},
		{
			name:   "a grace period of 61 s outlasts the cap",
			on:     all,
			change: func(s *srv1.StarRocksComponentSpec) { s.TerminationGracePeriodSeconds = ptr.To[int64](61) },
			want:   ShutdownTiming{Graceful: true, GraceSeconds: 61, UnreadySeconds: 15},
		},
		{
			name:     "FE: readiness failing after 20 s lets FE stop first",
			on:       []Component{ComponentFE},
			change:   func(s *srv1.StarRocksComponentSpec) { s.ReadinessProbeFailureSeconds = ptr.To[int32](20) },
			want:     ShutdownTiming{Graceful: true, GraceSeconds: 120, UnreadySeconds: 20},
			problems: []string{"readiness probe takes up to 20 s"},
		},
		{
			name:   "FE: readiness failing after 11 s rounds up to 15 s, still in time",
			on:     []Component{ComponentFE},
			change: func(s *srv1.StarRocksComponentSpec) { s.ReadinessProbeFailureSeconds = ptr.To[int32](11) },
			want:   ShutdownTiming{Graceful: true, GraceSeconds: 120, UnreadySeconds: 15},
		},
		{
			name:     "FE: no readiness probe",
			on:       []Component{ComponentFE},
			change:   func(s *srv1.StarRocksComponentSpec) { s.ReadinessProbeFailureSeconds = ptr.To[int32](0) },
			want:     ShutdownTiming{Graceful: true, GraceSeconds: 120},
			problems: []string{"no readiness probe"},
		},
		{
			name:   "BE and CN: their readiness is not checked (their /api/health during the exit is not known)",
			on:     []Component{ComponentBE, ComponentCN},
			change: func(s *srv1.StarRocksComponentSpec) { s.ReadinessProbeFailureSeconds = ptr.To[int32](0) },
			want:   ShutdownTiming{Graceful: true, GraceSeconds: 120},
		},
		{
			name: "a preStop of the user's has no known timing",
			on:   all,
			change: func(s *srv1.StarRocksComponentSpec) {
				s.TerminationGracePeriodSeconds = ptr.To[int64](10)
				s.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "5"}}}}
			},
			want: ShutdownTiming{GraceSeconds: 10, UnreadySeconds: 15},
		},
		{
			name: "an image before 3.0 runs <c>_prestop.sh: no known timing",
			on:   all,
			change: func(s *srv1.StarRocksComponentSpec) {
				s.Image = "starrocks/x:2.5.4"
				s.TerminationGracePeriodSeconds = ptr.To[int64](10)
			},
			want: ShutdownTiming{GraceSeconds: 10, UnreadySeconds: 15},
		},
	}
	for _, tc := range cases {
		for _, c := range tc.on {
			t.Run(tc.name+"/"+string(c), func(t *testing.T) {
				src := newCluster()
				if tc.change != nil {
					tc.change(componentSpec(src, c))
				}
				s := sts(t, src, c, Config{})
				got := ShutdownTimingOf(c, &s.Spec.Template.Spec)
				if got != tc.want {
					t.Errorf("timing: got %+v, want %+v", got, tc.want)
				}
				problems := ShutdownProblems(c, got)
				if len(problems) != len(tc.problems) {
					t.Fatalf("problems: got %q, want pieces %q", problems, tc.problems)
				}
				for i, p := range tc.problems {
					if !strings.Contains(problems[i], p) {
						t.Errorf("problem %d: got %q, want it to hold %q", i, problems[i], p)
					}
				}
			})
		}
	}
}

// The rule itself, apart from rendering: the kill must come after the
// longest exit, and FE's readiness must fail no later than FE may stop.
func TestShutdownProblems(t *testing.T) {
	cases := []struct {
		c    Component
		t    ShutdownTiming
		want int
	}{
		{ComponentFE, ShutdownTiming{Graceful: true, GraceSeconds: 61, UnreadySeconds: 15}, 0},
		{ComponentFE, ShutdownTiming{Graceful: true, GraceSeconds: 60, UnreadySeconds: 15}, 1},
		{ComponentFE, ShutdownTiming{Graceful: true, GraceSeconds: 120, UnreadySeconds: 16}, 1},
		{ComponentFE, ShutdownTiming{Graceful: true, GraceSeconds: 30, UnreadySeconds: 0}, 2},
		{ComponentBE, ShutdownTiming{Graceful: true, GraceSeconds: 30, UnreadySeconds: 0}, 1},
		{ComponentCN, ShutdownTiming{Graceful: true, GraceSeconds: 61}, 0},
		{ComponentFE, ShutdownTiming{GraceSeconds: 1}, 0},
	}
	for _, tc := range cases {
		if got := ShutdownProblems(tc.c, tc.t); len(got) != tc.want {
			t.Errorf("%s %+v: got %q, want %d problems", tc.c, tc.t, got, tc.want)
		}
	}
	// An unset grace period is Kubernetes' 30 s, which the exits outlast.
	pod := &corev1.PodSpec{Containers: []corev1.Container{{Name: "fe"}}}
	if got := ShutdownTimingOf(ComponentFE, pod); got.GraceSeconds != 30 || got.Graceful {
		t.Errorf("unset: %+v", got)
	}
}
