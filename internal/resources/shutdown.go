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
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The graceful exit the preStop hook starts (docs/upgrades.md, "Pod
// termination and the graceful exit", has the sources in full).
//
// FE (`stop_fe.sh -g` sends SIGUSR1 and waits for the process, with no cap
// of its own: bin/stop_fe.sh @14b1dfcb, TIME_OUT=-1). StarRocksFE
// .handleGracefulExit @00b5f391: /api/health answers 500 from the signal on
// (GracefulExitFlag, HealthAction), a leader hands over, idle connections
// are closed every second, and the process exits once no connection is left
// and more than min_graceful_exit_time_second passed, or at
// max_graceful_exit_time_second whatever is left (Config.java @0002bfd8).
const (
	feMinGracefulExitSeconds = 15 // Config.min_graceful_exit_time_second
	feMaxGracefulExitSeconds = 60 // Config.max_graceful_exit_time_second
)

// beDrainSeconds is how long a BE or CN waits for its fragments after
// `stop_be.sh -g` / `stop_cn.sh -g` (SIGTERM; the scripts wait for the
// process with no cap): loop_count_wait_fragments_finish × 10 s. Its default
// changed by release: 0 in the config.h copies stored here, 2 (20 s) in the
// Chinese graceful_exit page, 6 (60 s) in docs/en graceful_exit.md @059d93fa.
// The largest is taken; the teardown after the wait is not timed anywhere.
const beDrainSeconds = 60

// kubernetesDefaultGraceSeconds is the pod's terminationGracePeriodSeconds
// when the template leaves it unset.
const kubernetesDefaultGraceSeconds = 30

// ShutdownTiming is what a pod template gives the graceful exit of its
// StarRocks container.
type ShutdownTiming struct {
	// Graceful: the preStop hook is our `stop_<c>.sh -g`.
	Graceful bool
	// GraceSeconds is terminationGracePeriodSeconds: preStop and the stop
	// together must end within it, or the kubelet kills the container.
	GraceSeconds int64
	// UnreadySeconds is the longest time from /api/health answering 500 to
	// the readiness probe marking the pod not Ready: a success just before,
	// then FailureThreshold failures PeriodSeconds apart. 0: no readiness
	// probe on /api/health.
	UnreadySeconds int32
}

// ShutdownTimingOf reads the timing of component c's container in a pod template.
func ShutdownTimingOf(c Component, pod *corev1.PodSpec) ShutdownTiming {
	t := ShutdownTiming{GraceSeconds: kubernetesDefaultGraceSeconds}
	if pod.TerminationGracePeriodSeconds != nil {
		t.GraceSeconds = *pod.TerminationGracePeriodSeconds
	}
	for i := range pod.Containers {
		ctr := &pod.Containers[i]
		if ctr.Name != string(c) {
			continue
		}
		if l := ctr.Lifecycle; l != nil && l.PreStop != nil && l.PreStop.Exec != nil {
			cmd := strings.Join(l.PreStop.Exec.Command, " ")
			t.Graceful = strings.Contains(cmd, "stop_"+string(c)+".sh -g")
		}
		if p := ctr.ReadinessProbe; p != nil && p.HTTPGet != nil && p.HTTPGet.Path == healthPath {
			t.UnreadySeconds = max(p.PeriodSeconds, 1) * max(p.FailureThreshold, 1)
		}
	}
	return t
}

// ShutdownProblems says where the timing fights the graceful exit; none
// for the defaults. A pod whose deletion starts the exit leaves the
// Service's endpoints at once (the EndpointSlice controller marks it not
// ready on its deletionTimestamp), so the readiness probe matters only when
// FE exits without its pod being deleted (a container restart runs the
// preStop hook too): then the probe must take the pod out before FE can
// stop, min_graceful_exit_time_second after the signal.
func ShutdownProblems(c Component, t ShutdownTiming) []string {
	if !t.Graceful {
		return nil // a preStop of the user's or of an image before 3.0: no known timing
	}
	var out []string
	exit, what := int64(beDrainSeconds), "the fragment wait of loop_count_wait_fragments_finish"
	if c == ComponentFE {
		exit, what = feMaxGracefulExitSeconds, "FE's graceful exit cap, max_graceful_exit_time_second"
	}
	if t.GraceSeconds <= exit {
		out = append(out, fmt.Sprintf("terminationGracePeriodSeconds %d kills %s before %s (%d s) ends", t.GraceSeconds, c.Title(), what, exit))
	}
	if c != ComponentFE {
		return out
	}
	switch {
	case t.UnreadySeconds == 0:
		out = append(out, "no readiness probe on /api/health: an FE exiting without its pod's deletion stays in the Service until it stops")
	case t.UnreadySeconds > feMinGracefulExitSeconds:
		out = append(out, fmt.Sprintf("the readiness probe takes up to %d s to see /api/health fail, and FE may stop after min_graceful_exit_time_second (%d s): "+
			"an FE exiting without its pod's deletion can stop while still in the Service", t.UnreadySeconds, feMinGracefulExitSeconds))
	}
	return out
}
