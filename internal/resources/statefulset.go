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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/version"
)

// defaultImages are used when a component's spec gives no image.
var defaultImages = map[Component]string{
	ComponentFE: "starrocks/fe-ubuntu:latest",
	ComponentBE: "starrocks/be-ubuntu:latest",
	ComponentCN: "starrocks/cn-ubuntu:latest",
}

// starRocksRoot is where the StarRocks images install StarRocks; a
// STARROCKS_ROOT variable in the component's env moves it, as in the upstream.
const starRocksRoot = "/opt/starrocks"

// statefulSetInput is what differs between the FE, BE and CN StatefulSets.
type statefulSetInput struct {
	c           Component
	name        string // the StatefulSet
	searchName  string // its headless Service
	spec        *srv1.StarRocksComponentSpec
	env         []corev1.EnvVar // the user's extra variables
	ports       []namedPort
	healthPort  int32
	feQueryPort int32
	cfg         Config
}

// statefulSet is the StatefulSet of FE, BE or CN. For the same spec its pod
// template equals the upstream operator's (upstream-rendered in the reference
// tests), so that taking a cluster over from it restarts no pod.
func statefulSet(src *srv1.StarRocksCluster, in statefulSetInput) *appsv1.StatefulSet {
	spec := in.spec
	vols := componentVolumes(in.c, spec, in.cfg.Options)

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
	update := appsv1.StatefulSetUpdateStrategy{
		Type:          appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To(int32(0))},
	}
	if spec.UpdateStrategy != nil {
		update = *spec.UpdateStrategy
	}
	retention := spec.PersistentVolumeClaimRetentionPolicy
	if retention != nil && in.c != ComponentCN {
		// FE metadata and BE tablets must outlive a scale-down: their claims are
		// kept whatever whenScaled says, as the upstream does.
		retention = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: retention.WhenDeleted}
	}

	// The upstream writes name and namespace into the FE and BE templates, and
	// only the namespace into CN's.
	tmplName := in.name
	if in.c == ComponentCN {
		tmplName = ""
	}
	meta := withConfigHash(objectMeta(src, in.c, in.name), in.cfg.Content)
	return &appsv1.StatefulSet{
		TypeMeta:   typeMeta("apps/v1", "StatefulSet"),
		ObjectMeta: meta,
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(ptr.Deref(spec.Replicas, 1)),
			Selector: &metav1.LabelSelector{MatchLabels: SelectorLabels(src, in.c)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: podMeta(src, in.c, &spec.StarRocksLoadSpec, tmplName, src.Namespace, templateConfigHash(in.cfg.Content, in.cfg.Live)),
				Spec:       pod,
			},
			VolumeClaimTemplates:                 vols.claims,
			ServiceName:                          in.searchName,
			PodManagementPolicy:                  policy,
			UpdateStrategy:                       update,
			PersistentVolumeClaimRetentionPolicy: retention,
			MinReadySeconds:                      ptr.Deref(spec.MinReadySeconds, 0),
		},
	}
}

// templateConfigHash is ConfigHashAnnotation for a pod template (see
// ConfigState): the hash of content once it differs from what the live
// workload recorded, or when the live template already carries one.
func templateConfigHash(content string, live ConfigState) string {
	if content == "" {
		return ""
	}
	h := configHash(content)
	if live.Template != "" || (live.Recorded != "" && live.Recorded != h) {
		return h
	}
	return ""
}

// mainContainer is the StarRocks container of FE, BE or CN.
//
// The image's entrypoint script runs unless command is set, and its argument
// is the FE Service unless args are set: each default applies on its own, as
// in the upstream.
func mainContainer(src *srv1.StarRocksCluster, in statefulSetInput, mounts []corev1.VolumeMount) corev1.Container {
	spec := in.spec
	c := string(in.c)

	image := spec.Image
	if image == "" {
		image = defaultImages[in.c]
	}
	pullPolicy := spec.ImagePullPolicy
	if pullPolicy == "" {
		// Kubernetes would pick Always for :latest; the upstream always says IfNotPresent.
		pullPolicy = corev1.PullIfNotPresent
	}
	root, workingDir := starRocksRoot, ""
	if r := userEnvValue(in.env, "STARROCKS_ROOT"); r != "" {
		root, workingDir = r, r
	}
	command := []string{root + "/" + c + "_entrypoint.sh"}
	if len(spec.Command) > 0 {
		command = spec.Command
	}
	args := []string{"$(FE_SERVICE_NAME)"}
	if len(spec.Args) > 0 {
		args = spec.Args
	}
	lifecycle := &corev1.Lifecycle{PreStop: defaultPreStop(in.c, image, root)}
	if spec.Lifecycle != nil {
		lifecycle.PostStart = spec.Lifecycle.PostStart
		if spec.Lifecycle.PreStop != nil {
			lifecycle.PreStop = spec.Lifecycle.PreStop
		}
		lifecycle.StopSignal = spec.Lifecycle.StopSignal
	}
	configMapPath := ""
	if info := spec.ConfigMapInfo; info.ConfigMapName != "" && info.ResolveKey != "" {
		configMapPath = configMapMountPath(in.c)
	}
	startup, liveness, readiness := probes(&spec.StarRocksLoadSpec, httpHealth(in.healthPort))

	return corev1.Container{
		Name:            c,
		Image:           image,
		ImagePullPolicy: pullPolicy,
		Command:         command,
		Args:            args,
		WorkingDir:      workingDir,
		Ports:           containerPorts(in.ports),
		Env:             componentEnv(src, in.c, in.feQueryPort, configMapPath, in.env, in.cfg.Options),
		Resources:       spec.ResourceRequirements,
		VolumeMounts:    mounts,
		StartupProbe:    startup,
		LivenessProbe:   liveness,
		ReadinessProbe:  readiness,
		Lifecycle:       lifecycle,
		SecurityContext: containerSecurityContext(spec),
	}
}

// userEnvValue is the literal value of the user's variable called name; "" when none.
func userEnvValue(env []corev1.EnvVar, name string) string {
	value := ""
	for _, e := range env {
		if e.Name == name && e.ValueFrom == nil {
			value = e.Value
		}
	}
	return value
}

// defaultPreStop lets FE hand over leadership and BE/CN leave cleanly before
// SIGTERM. Images from 3.0 on (and tags that are no version, such as latest)
// ship stop_<c>.sh with -g (graceful); older images only have <c>_prestop.sh.
func defaultPreStop(c Component, image, root string) *corev1.LifecycleHandler {
	if v := version.OfImage(image); v.Read && v.Version.Major < 3 {
		return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{root + "/" + string(c) + "_prestop.sh"}}}
	}
	script := fmt.Sprintf("%s/%s/bin/stop_%s.sh -g", root, c, c)
	return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/bash", "-c", script}}}
}

// KeepFEQuorum keeps an FE StatefulSet that runs more than one replica from
// being scaled down to one, as the upstream does, or to none: the
// followers hold the metadata's quorum, and a lone FE left from several
// cannot elect itself leader (none would leave it to the last step of the
// scale-in, one FE at a time, with its members' claims deleted). want is
// changed in place to the live replicas; it reports whether it was.
func KeepFEQuorum(want, live *appsv1.StatefulSet) bool {
	if want == nil || live == nil || want.Spec.Replicas == nil || live.Spec.Replicas == nil {
		return false
	}
	if *want.Spec.Replicas <= 1 && *live.Spec.Replicas > 1 {
		want.Spec.Replicas = ptr.To(*live.Spec.Replicas)
		return true
	}
	return false
}
