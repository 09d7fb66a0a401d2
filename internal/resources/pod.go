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
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
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

// podMeta is the metadata of a component's pod template, as the upstream
// writes it: the selector labels over podLabels and the user's annotations.
// name and namespace are set only where the upstream sets them (FE and BE
// templates carry both, CN only the namespace, the FE proxy neither): they
// change nothing in the pods, but a template that differs rolls them.
// configHash, when set, becomes ConfigHashAnnotation.
func podMeta(src *srv1.StarRocksCluster, c Component, load *srv1.StarRocksLoadSpec, name, namespace, configHash string) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{
		Name:        name,
		Namespace:   namespace,
		Labels:      mergeLabels(SelectorLabels(src, c), load.PodLabels),
		Annotations: copyMap(load.Annotations),
	}
	if configHash != "" {
		if meta.Annotations == nil {
			meta.Annotations = map[string]string{}
		}
		meta.Annotations[ConfigHashAnnotation] = configHash
	}
	return meta
}

// loadPodSpec is the part of a pod spec every component, the FE proxy
// included, takes from its spec: identity and scheduling. StarRocks never
// calls the Kubernetes API, so the service account's token is not mounted.
func loadPodSpec(src *srv1.StarRocksCluster, load *srv1.StarRocksLoadSpec) corev1.PodSpec {
	sa := load.ServiceAccount
	if sa == "" {
		sa = src.Spec.ServiceAccount
	}
	return corev1.PodSpec{
		ServiceAccountName:           sa,
		AutomountServiceAccountToken: ptr.To(false),
		ImagePullSecrets:             load.ImagePullSecrets,
		SchedulerName:                load.SchedulerName,
		NodeSelector:                 load.NodeSelector,
		Affinity:                     load.Affinity,
		Tolerations:                  load.Tolerations,
		TopologySpreadConstraints:    load.TopologySpreadConstraints,
		ShareProcessNamespace:        load.ShareProcessNamespace,
		// Set only when the user does: an unset field keeps the template
		// the upstream writes, so a switchover restarts no pod.
		DNSPolicy: load.DNSPolicy,
		DNSConfig: load.DNSConfig,
	}
}

// podSecurityContext: volumes change group ownership only when the root of
// the volume does not match (no recursive chown of large volumes on every
// start), fsGroup is the starrocks group when the container runs as non-root,
// and the user's sysctls.
func podSecurityContext(spec *srv1.StarRocksComponentSpec) *corev1.PodSecurityContext {
	psc := &corev1.PodSecurityContext{
		FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch),
		Sysctls:             spec.Sysctls,
		SeccompProfile:      spec.SeccompProfile,
	}
	if ptr.Deref(spec.RunAsNonRoot, false) {
		psc.FSGroup = ptr.To(nonRootID)
	}
	return psc
}

// containerSecurityContext never lets the process gain privileges, keeps the
// root filesystem writable unless asked (StarRocks writes pid files next to its
// binaries) and, for runAsNonRoot, runs as the image's starrocks user: without
// a numeric user kubelet refuses a non-root container whose image names none.
func containerSecurityContext(spec *srv1.StarRocksComponentSpec) *corev1.SecurityContext {
	sc := &corev1.SecurityContext{
		Capabilities:             spec.Capabilities,
		AllowPrivilegeEscalation: ptr.To(false),
		ReadOnlyRootFilesystem:   ptr.To(ptr.Deref(spec.ReadOnlyRootFilesystem, false)),
	}
	if ptr.Deref(spec.RunAsNonRoot, false) {
		sc.RunAsUser = ptr.To(nonRootID)
		sc.RunAsGroup = ptr.To(nonRootID)
		sc.RunAsNonRoot = ptr.To(true)
	}
	return sc
}

// probes are the startup, liveness and readiness probes of a container: each
// fails after about the given number of seconds (rounded up to whole periods),
// nil seconds take the default, and 0 disables the probe.
func probes(load *srv1.StarRocksLoadSpec, handler func() corev1.ProbeHandler) (startup, liveness, readiness *corev1.Probe) {
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

// containerPorts are the container ports of a component's ports, under the
// upstream's container port names (http-port, be-port, ...).
func containerPorts(ports []namedPort) []corev1.ContainerPort {
	out := make([]corev1.ContainerPort, 0, len(ports))
	for _, p := range ports {
		if p.container != "" {
			out = append(out, corev1.ContainerPort{Name: p.container, ContainerPort: p.port, Protocol: corev1.ProtocolTCP})
		}
	}
	return out
}

// componentEnv is the user's variables followed by the environment the
// StarRocks images' entrypoints expect, in the upstream's order. A user
// variable with the name of one of ours replaces ours (and keeps the user's
// place); names in opts.UnsupportedEnvs (KUBE_STARROCKS_UNSUPPORTED_ENVS) are
// never added by us, for clusters whose Kubernetes lacks those field paths.
// FE gets the FE Service qualified by namespace, BE and CN its bare name (and
// the FE query port), as the upstream's images expect.
func componentEnv(src *srv1.StarRocksCluster, c Component, feQueryPort int32, configMapPath string, user []corev1.EnvVar, opts Options) []corev1.EnvVar {
	ours := []corev1.EnvVar{
		fieldEnv("POD_NAME", "metadata.name"),
		fieldEnv("POD_IP", "status.podIP"),
		fieldEnv("HOST_IP", "status.hostIP"),
		fieldEnv("POD_NAMESPACE", "metadata.namespace"),
		{Name: "HOST_TYPE", Value: "FQDN"},
		{Name: "COMPONENT_NAME", Value: string(c)},
	}
	if c == ComponentFE {
		ours = append(ours, corev1.EnvVar{Name: "FE_SERVICE_NAME", Value: src.FeServiceName() + "." + src.Namespace})
	} else {
		ours = append(ours,
			corev1.EnvVar{Name: "FE_SERVICE_NAME", Value: src.FeServiceName()},
			corev1.EnvVar{Name: "FE_QUERY_PORT", Value: strconv.Itoa(int(feQueryPort))})
	}
	if configMapPath != "" {
		ours = append(ours, corev1.EnvVar{Name: "CONFIGMAP_MOUNT_PATH", Value: configMapPath})
	}
	out := make([]corev1.EnvVar, 0, len(ours)+len(user))
	seen := make(map[string]int, len(ours)+len(user))
	for _, e := range user {
		if i, ok := seen[e.Name]; ok {
			out[i] = e // Kubernetes would use the last one
			continue
		}
		seen[e.Name] = len(out)
		out = append(out, e)
	}
	for _, e := range ours {
		if _, ok := seen[e.Name]; ok || slices.Contains(opts.UnsupportedEnvs, e.Name) {
			continue
		}
		seen[e.Name] = len(out)
		out = append(out, e)
	}
	return out
}

func fieldEnv(name, fieldPath string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: fieldPath},
	}}
}
