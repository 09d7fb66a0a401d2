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
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// What the built workloads are read back as, the one answer of each
// question for every package: a pod's name and ordinal, whether it is
// Ready and since when, and the image a StatefulSet's pods run.

// PodName is the name of the pod of that ordinal of a StatefulSet.
func PodName(statefulSet string, ordinal int) string {
	return fmt.Sprintf("%s-%d", statefulSet, ordinal)
}

// PodOrdinal is the ordinal of a pod of a StatefulSet by its name; false
// for a pod of another StatefulSet.
func PodOrdinal(statefulSet, pod string) (int, bool) {
	num, ok := strings.CutPrefix(pod, statefulSet+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || strconv.Itoa(n) != num {
		return 0, false
	}
	return n, true
}

// PodReady reports whether a pod's Ready condition is True.
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// PodReadySince is when a pod's Ready condition last changed; zero when it
// has none.
func PodReadySince(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// Image is the image a StatefulSet's pods run: its pod template's first
// container's; "" for none.
func Image(sts *appsv1.StatefulSet) string {
	if sts == nil {
		return ""
	}
	return firstImage(&sts.Spec.Template.Spec)
}

// PodImage is the image a pod runs: its first container's; "" for none.
func PodImage(p *corev1.Pod) string { return firstImage(&p.Spec) }

func firstImage(spec *corev1.PodSpec) string {
	if len(spec.Containers) == 0 {
		return ""
	}
	return spec.Containers[0].Image
}
