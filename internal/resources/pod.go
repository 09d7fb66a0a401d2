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
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	v1 "github.com/srscale/starrocks-operator/api/v1"
)

// Probe settings. The defaults give the upstream behaviour: five minutes to
// start, then restart or unready after about 15 s of failures.
const (
	probePeriodSeconds             = int32(5)
	defaultStartupFailureSeconds   = int32(300)
	defaultLivenessFailureSeconds  = int32(15)
	defaultReadinessFailureSeconds = int32(15)
	healthPath                     = "/api/health"
)

// defaultTerminationGracePeriodSeconds gives the pre-stop script time to hand
// over leadership (FE) or drain (BE, CN) before the kill.
const defaultTerminationGracePeriodSeconds = int64(120)

// nonRootID is the uid and gid of the starrocks user in the StarRocks images
// built to run without root.
const nonRootID = int64(1000)

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

// podMeta is the metadata of a component's pod template: our labels over
// podLabels, and annotations plus, when hash is set, ConfigHashAnnotation.
func podMeta(src *v1.StarRocksCluster, c Component, load *v1.StarRocksLoadSpec, hash string) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{
		Labels:      mergeLabels(Labels(src, c), load.PodLabels),
		Annotations: copyMap(load.Annotations),
	}
	if hash != "" {
		if meta.Annotations == nil {
			meta.Annotations = map[string]string{}
		}
		meta.Annotations[ConfigHashAnnotation] = hash
	}
	return meta
}

// loadPodSpec is the part of a pod spec every component, the FE proxy
// included, takes from its spec: identity and scheduling.
func loadPodSpec(src *v1.StarRocksCluster, load *v1.StarRocksLoadSpec) corev1.PodSpec {
	sa := load.ServiceAccount
	if sa == "" {
		sa = src.Spec.ServiceAccount
	}
	return corev1.PodSpec{
		ServiceAccountName:        sa,
		ImagePullSecrets:          load.ImagePullSecrets,
		SchedulerName:             load.SchedulerName,
		NodeSelector:              load.NodeSelector,
		Affinity:                  load.Affinity,
		Tolerations:               load.Tolerations,
		TopologySpreadConstraints: load.TopologySpreadConstraints,
		ShareProcessNamespace:     load.ShareProcessNamespace,
	}
}

// podSecurityContext carries the sysctls and, when the main container must run
// as non-root, the uid, gid and fsGroup of the image's starrocks user: without
// a numeric user kubelet refuses to start a non-root container whose image
// names no numeric user, and without fsGroup the volumes stay root-owned and
// unwritable. When runAsNonRoot is unset or false the pod runs as the image
// says (root for the standard images), as upstream does.
func podSecurityContext(spec *v1.StarRocksComponentSpec) *corev1.PodSecurityContext {
	psc := &corev1.PodSecurityContext{}
	empty := true
	if len(spec.Sysctls) > 0 {
		psc.Sysctls = spec.Sysctls
		empty = false
	}
	if ptr.Deref(spec.RunAsNonRoot, false) {
		psc.RunAsUser = ptr.To(nonRootID)
		psc.RunAsGroup = ptr.To(nonRootID)
		psc.FSGroup = ptr.To(nonRootID)
		policy := corev1.FSGroupChangeOnRootMismatch // avoid a recursive chown of large volumes on every start
		psc.FSGroupChangePolicy = &policy
		empty = false
	}
	if empty {
		return nil
	}
	return psc
}

// containerSecurityContext carries only what the user set, nil when nothing.
func containerSecurityContext(spec *v1.StarRocksComponentSpec) *corev1.SecurityContext {
	if spec.RunAsNonRoot == nil && spec.Capabilities == nil && spec.ReadOnlyRootFilesystem == nil {
		return nil
	}
	return &corev1.SecurityContext{
		RunAsNonRoot:           spec.RunAsNonRoot,
		Capabilities:           spec.Capabilities,
		ReadOnlyRootFilesystem: spec.ReadOnlyRootFilesystem,
	}
}

// probes are the startup, liveness and readiness probes of a container: each
// fails after about the given number of seconds (rounded up to whole periods),
// nil seconds take the default, and 0 disables the probe.
func probes(load *v1.StarRocksLoadSpec, handler func() corev1.ProbeHandler) (startup, liveness, readiness *corev1.Probe) {
	return probe(load.StartupProbeFailureSeconds, defaultStartupFailureSeconds, handler),
		probe(load.LivenessProbeFailureSeconds, defaultLivenessFailureSeconds, handler),
		probe(load.ReadinessProbeFailureSeconds, defaultReadinessFailureSeconds, handler)
}

func probe(seconds *int32, def int32, handler func() corev1.ProbeHandler) *corev1.Probe {
	s := ptr.Deref(seconds, def)
	if s <= 0 {
		return nil
	}
	return &corev1.Probe{
		ProbeHandler:     handler(),
		PeriodSeconds:    probePeriodSeconds,
		FailureThreshold: (s + probePeriodSeconds - 1) / probePeriodSeconds,
	}
}

// httpHealth is StarRocks's health check on an HTTP port.
func httpHealth(port int32) func() corev1.ProbeHandler {
	return func() corev1.ProbeHandler {
		return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path:   healthPath,
			Port:   intstr.FromInt32(port),
			Scheme: corev1.URISchemeHTTP,
		}}
	}
}

// tcpHealth checks that a port accepts connections.
func tcpHealth(port int32) func() corev1.ProbeHandler {
	return func() corev1.ProbeHandler {
		return corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(port)}}
	}
}

// containerPorts are the container ports of a component's ports.
func containerPorts(ports []namedPort) []corev1.ContainerPort {
	out := make([]corev1.ContainerPort, 0, len(ports))
	for _, p := range ports {
		out = append(out, corev1.ContainerPort{Name: p.name, ContainerPort: p.port, Protocol: corev1.ProtocolTCP})
	}
	return out
}

// componentEnv is the environment the StarRocks images' entrypoints expect,
// followed by the user's variables. A user variable with the name of one of
// ours replaces ours in place (so that later variables referring to it with
// $(NAME) still see it defined first); duplicate user names keep the last value,
// which is what Kubernetes would use, at the place of the first.
func componentEnv(src *v1.StarRocksCluster, c Component, feQueryPort int32, user []corev1.EnvVar) []corev1.EnvVar {
	ours := []corev1.EnvVar{
		fieldEnv("POD_NAME", "metadata.name"),
		fieldEnv("POD_IP", "status.podIP"),
		fieldEnv("HOST_IP", "status.hostIP"),
		fieldEnv("POD_NAMESPACE", "metadata.namespace"),
		{Name: "COMPONENT_NAME", Value: string(c)},
		{Name: "FE_SERVICE_NAME", Value: feServiceAddress(src)},
		{Name: "FE_QUERY_PORT", Value: strconv.Itoa(int(feQueryPort))},
		{Name: "HOST_TYPE", Value: "FQDN"},
		{Name: "USER", Value: "root"},
		{Name: "CONFIGMAP_MOUNT_PATH", Value: configMapMountPath(c)},
	}
	last := make(map[string]corev1.EnvVar, len(user))
	for _, e := range user {
		last[e.Name] = e
	}
	out := make([]corev1.EnvVar, 0, len(ours)+len(user))
	done := make(map[string]bool, len(ours)+len(user))
	for _, e := range ours {
		if u, ok := last[e.Name]; ok {
			e = u
		}
		out = append(out, e)
		done[e.Name] = true
	}
	for _, e := range user {
		if !done[e.Name] {
			out = append(out, last[e.Name])
			done[e.Name] = true
		}
	}
	return out
}

func fieldEnv(name, fieldPath string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: fieldPath},
	}}
}
