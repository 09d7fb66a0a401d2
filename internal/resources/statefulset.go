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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1 "github.com/srscale/starrocks-operator/api/v1"
)

// defaultImages are used when a component's spec gives no image.
var defaultImages = map[Component]string{
	ComponentFE: "starrocks/fe-ubuntu:latest",
	ComponentBE: "starrocks/be-ubuntu:latest",
	ComponentCN: "starrocks/cn-ubuntu:latest",
}

// statefulSetInput is what differs between the FE, BE and CN StatefulSets.
type statefulSetInput struct {
	c           Component
	name        string // the StatefulSet
	searchName  string // its headless Service
	spec        *v1.StarRocksComponentSpec
	env         []corev1.EnvVar // the user's extra variables
	ports       []namedPort
	healthPort  int32
	feQueryPort int32
	content     string // the .conf
	// omitReplicas leaves spec.replicas unset because a HorizontalPodAutoscaler owns it.
	omitReplicas bool
}

// statefulSet is the StatefulSet of FE, BE or CN.
func statefulSet(src *v1.StarRocksCluster, in statefulSetInput) *appsv1.StatefulSet {
	spec := in.spec
	vols := componentVolumes(in.c, spec)

	// Only a configured .conf is hashed: without one there is nothing that can
	// change behind the pods' back, and the template stays free of noise.
	hash := ""
	if in.content != "" {
		hash = configHash(in.content)
	}

	pod := loadPodSpec(src, &spec.StarRocksLoadSpec)
	pod.InitContainers = spec.InitContainers
	pod.Containers = append([]corev1.Container{mainContainer(src, in, vols.mounts)}, spec.Sidecars...)
	pod.Volumes = vols.volumes
	pod.HostAliases = spec.HostAliases
	pod.SecurityContext = podSecurityContext(spec)
	pod.TerminationGracePeriodSeconds = ptr.To(ptr.Deref(spec.TerminationGracePeriodSeconds, defaultTerminationGracePeriodSeconds))

	// Parallel by default: FE and BE pods find each other through FE, not by
	// ordinal, and OrderedReady would keep a failed pod 0 from letting the others start.
	policy := spec.PodManagementPolicy
	if policy == "" {
		policy = appsv1.ParallelPodManagement
	}
	update := appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}
	if spec.UpdateStrategy != nil {
		update = *spec.UpdateStrategy
	}

	sts := &appsv1.StatefulSet{
		TypeMeta:   typeMeta("apps/v1", "StatefulSet"),
		ObjectMeta: objectMeta(src, in.c, in.name),
		Spec: appsv1.StatefulSetSpec{
			Selector:                             &metav1.LabelSelector{MatchLabels: SelectorLabels(src, in.c)},
			Template:                             corev1.PodTemplateSpec{ObjectMeta: podMeta(src, in.c, &spec.StarRocksLoadSpec, hash), Spec: pod},
			VolumeClaimTemplates:                 vols.claims,
			ServiceName:                          in.searchName,
			PodManagementPolicy:                  policy,
			UpdateStrategy:                       update,
			PersistentVolumeClaimRetentionPolicy: spec.PersistentVolumeClaimRetentionPolicy,
			MinReadySeconds:                      ptr.Deref(spec.MinReadySeconds, 0),
		},
	}
	if !in.omitReplicas {
		sts.Spec.Replicas = ptr.To(ptr.Deref(spec.Replicas, 1))
	}
	return sts
}

// mainContainer is the StarRocks container of FE, BE or CN.
//
// Without a command the image's entrypoint script runs with the FE Service as
// its argument, as upstream does. A user command replaces both the command and
// the default argument (like a Kubernetes command drops the image's CMD), so
// only the user's args follow it; user args alone replace the default argument.
func mainContainer(src *v1.StarRocksCluster, in statefulSetInput, mounts []corev1.VolumeMount) corev1.Container {
	spec := in.spec
	c := string(in.c)

	image := spec.Image
	if image == "" {
		image = defaultImages[in.c]
	}
	command := []string{"/opt/starrocks/" + c + "_entrypoint.sh"}
	args := []string{"$(FE_SERVICE_NAME)"}
	switch {
	case len(spec.Command) > 0:
		command, args = spec.Command, spec.Args
	case len(spec.Args) > 0:
		args = spec.Args
	}
	lifecycle := spec.Lifecycle
	if lifecycle == nil {
		// Let FE hand over leadership and BE/CN leave cleanly before SIGTERM.
		lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{
			Exec: &corev1.ExecAction{Command: []string{"/opt/starrocks/" + c + "_prestop.sh"}},
		}}
	}
	startup, liveness, readiness := probes(&spec.StarRocksLoadSpec, httpHealth(in.healthPort))

	return corev1.Container{
		Name:            c,
		Image:           image,
		ImagePullPolicy: spec.ImagePullPolicy,
		Command:         command,
		Args:            args,
		Ports:           containerPorts(in.ports),
		Env:             componentEnv(src, in.c, in.feQueryPort, in.env),
		Resources:       spec.ResourceRequirements,
		VolumeMounts:    mounts,
		StartupProbe:    startup,
		LivenessProbe:   liveness,
		ReadinessProbe:  readiness,
		Lifecycle:       lifecycle,
		SecurityContext: containerSecurityContext(spec),
	}
}
