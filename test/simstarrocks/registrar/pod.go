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

package registrar

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/srscale/starrocks-operator/internal/resources"
)

// What a pod tells the registrar, read from the pod object alone (no API reads).
type podFacts struct {
	key       types.NamespacedName
	uid       types.UID
	component resources.Component
	// cluster is the StarRocksCluster whose FE the entrypoint talks to.
	cluster   string
	container *corev1.Container
	// start identifies the container start now running ("<uid>/<restartCount>");
	// empty while the container does not run.
	start       string
	ready       bool
	terminating bool
	grace       time.Duration
	// neverAlive: the pod carries NeverAliveAnnotation.
	neverAlive bool
	// gracefulFE: the container's preStop hook is `stop_fe.sh -g`
	// (internal/resources defaultPreStop).
	gracefulFE bool
}

// NeverAliveAnnotation on a pod ("true") makes its node register as its
// entrypoint does but never answer FE's heartbeats: a StarRocks process that
// fails after its pod became Ready, which FE lists Alive=false. Tests put it
// in a component's pod annotations to roll out such a pod.
const NeverAliveAnnotation = "simstarrocks.srscale.dev/never-alive"

// factsOf reads pod; ok is false for pods that are not the operator's FE, BE or CN.
func factsOf(pod *corev1.Pod) (podFacts, bool) {
	c := resources.Component(pod.Labels[resources.ComponentLabel])
	if c != resources.ComponentFE && c != resources.ComponentBE && c != resources.ComponentCN {
		return podFacts{}, false
	}
	if _, owned := pod.Labels[resources.OwnerLabel]; !owned {
		return podFacts{}, false
	}
	container := mainContainer(pod, c)
	if container == nil {
		return podFacts{}, false
	}
	f := podFacts{
		key:         types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name},
		uid:         pod.UID,
		component:   c,
		cluster:     clusterOf(pod, container),
		container:   container,
		ready:       podReady(pod),
		terminating: pod.DeletionTimestamp != nil,
		grace:       gracePeriod(pod),
		neverAlive:  pod.Annotations[NeverAliveAnnotation] == "true",
	}
	if l := container.Lifecycle; c == resources.ComponentFE && l != nil && l.PreStop != nil && l.PreStop.Exec != nil {
		f.gracefulFE = strings.Contains(strings.Join(l.PreStop.Exec.Command, " "), "stop_fe.sh -g")
	}
	if f.cluster == "" {
		return podFacts{}, false
	}
	if pod.Status.Phase == corev1.PodRunning {
		for _, s := range pod.Status.ContainerStatuses {
			if s.Name == container.Name && s.State.Running != nil {
				f.start = fmt.Sprintf("%s/%d", pod.UID, s.RestartCount)
			}
		}
	}
	return f, true
}

// mainContainer is the StarRocks container: the one named after the component
// (internal/resources/statefulset.go mainContainer), else the first.
func mainContainer(pod *corev1.Pod, c resources.Component) *corev1.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == string(c) {
			return &pod.Spec.Containers[i]
		}
	}
	if len(pod.Spec.Containers) > 0 {
		return &pod.Spec.Containers[0]
	}
	return nil
}

// clusterOf is the cluster whose FE the pod's entrypoint talks to. The
// entrypoint's argument is $(FE_SERVICE_NAME) (sheet §1), which the operator
// sets to <cluster>-fe-service, qualified by ".<namespace>" for FE
// (internal/resources/pod.go componentEnv); a warehouse's CN pods get the
// cluster's FE Service there while their instance label holds
// "<wh>-warehouse" (internal/resources/warehouse.go). Without the variable,
// the instance label (resources.ClusterLabel) names the cluster.
func clusterOf(pod *corev1.Pod, container *corev1.Container) string {
	if svc, ok := literalEnv(container, "FE_SERVICE_NAME"); ok {
		svc = strings.TrimSuffix(svc, "."+pod.Namespace)
		if cluster, found := strings.CutSuffix(svc, "-fe-service"); found && cluster != "" {
			return cluster
		}
	}
	return pod.Labels[resources.ClusterLabel]
}

// literalEnv is the last literal value of the container's variable name.
func literalEnv(container *corev1.Container, name string) (string, bool) {
	value, found := "", false
	for _, e := range container.Env {
		if e.Name == name && e.ValueFrom == nil {
			value, found = e.Value, true
		}
	}
	return value, found
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// gracePeriod is how long the kubelet lets a terminating container run before
// SIGKILL: the deletion's grace period, else the pod's, else Kubernetes' 30 s.
func gracePeriod(pod *corev1.Pod) time.Duration {
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		return time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		return time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	}
	return 30 * time.Second
}

// hostnameF is `hostname -f` in the pod: the kubelet's hostname (spec.hostname,
// else the pod name), qualified by <subdomain>.<namespace>.svc.<domain> when
// the pod has a subdomain, as the kubelet writes /etc/hosts (sheet §1 Identity).
func hostnameF(pod *corev1.Pod, dnsDomain string) string {
	host := pod.Spec.Hostname
	if host == "" {
		host = pod.Name
	}
	if pod.Spec.Subdomain == "" {
		return host
	}
	return fmt.Sprintf("%s.%s.%s.svc.%s", host, pod.Spec.Subdomain, pod.Namespace, dnsDomain)
}

// hostnameI is `hostname -i` in the pod: its IP.
func hostnameI(pod *corev1.Pod) string { return pod.Status.PodIP }

// heartbeatPort is heartbeat_service_port, which the operator publishes as the
// container port "heartbeat-port" (internal/resources/config.go); 9050 is
// the scripts' default (be_entrypoint.sh, cn_entrypoint.sh HEARTBEAT_PORT).
func heartbeatPort(container *corev1.Container) int {
	for _, p := range container.Ports {
		if p.Name == "heartbeat-port" {
			return int(p.ContainerPort)
		}
	}
	return 9050
}

// podIndex is fe_entrypoint.sh's POD_INDEX: the last "-" field of the first
// DNS label of POD_FQDN. ok is false when that is not a number (bash's
// `-eq 0` would then not be a plain ordinal comparison; the operator's pods
// always end in one).
func podIndex(fqdn string) (int, bool) {
	first, _, _ := strings.Cut(fqdn, ".")
	i := strings.LastIndex(first, "-")
	n, err := strconv.Atoi(first[i+1:])
	return n, err == nil
}

// feMetaDir is where fe_entrypoint.sh looks for meta/image/ROLE.
const feMetaDir = "/opt/starrocks/fe/meta"

// metaKey names the storage that holds the FE's meta directory, so that the
// ROLE file outlives exactly what that storage outlives: a claim (the
// StatefulSet's fe-meta volume claim template) survives container restarts and
// pod re-creation; an emptyDir (the operator's default without storage,
// internal/resources/volumes.go) or another pod volume survives container
// restarts only; the container's own filesystem survives nothing.
func metaKey(pod *corev1.Pod, container *corev1.Container) string {
	var mount *corev1.VolumeMount
	for i := range container.VolumeMounts {
		m := &container.VolumeMounts[i]
		p := path.Clean(m.MountPath)
		if (p == feMetaDir || strings.HasPrefix(feMetaDir, p+"/") || p == "/") && (mount == nil || len(p) > len(path.Clean(mount.MountPath))) {
			mount = m
		}
	}
	if mount != nil {
		for _, v := range pod.Spec.Volumes {
			if v.Name != mount.Name {
				continue
			}
			where := fmt.Sprintf("pod %s volume %s", pod.UID, v.Name)
			if v.PersistentVolumeClaim != nil {
				where = fmt.Sprintf("claim %s/%s", pod.Namespace, v.PersistentVolumeClaim.ClaimName)
			}
			if mount.SubPath != "" {
				where += " subPath " + mount.SubPath
			}
			return where
		}
	}
	restarts := int32(0)
	for _, s := range pod.Status.ContainerStatuses {
		if s.Name == container.Name {
			restarts = s.RestartCount
		}
	}
	return fmt.Sprintf("container %s/%s/%d", pod.UID, container.Name, restarts)
}

// environment resolves the container's variables as the kubelet does when it
// starts the container: envFrom first, then env, the last definition of a name
// winning; Secret and ConfigMap keys are read through the API, and a key that
// cannot be read gives "" (the operator's own rule for MYSQL_PWD, sheet §11 and
// §13). $(VAR) references in values are not expanded.
func environment(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod, container *corev1.Container) map[string]string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	env := map[string]string{}
	for _, from := range container.EnvFrom {
		var data map[string]string
		switch {
		case from.SecretRef != nil:
			if s, err := kube.CoreV1().Secrets(pod.Namespace).Get(ctx, from.SecretRef.Name, metav1.GetOptions{}); err == nil {
				data = map[string]string{}
				for k, v := range s.Data {
					data[k] = string(v)
				}
			}
		case from.ConfigMapRef != nil:
			if cm, err := kube.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, from.ConfigMapRef.Name, metav1.GetOptions{}); err == nil {
				data = cm.Data
			}
		}
		for k, v := range data {
			env[from.Prefix+k] = v
		}
	}
	for _, e := range container.Env {
		env[e.Name] = envValue(ctx, kube, pod, e)
	}
	return env
}

func envValue(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod, e corev1.EnvVar) string {
	from := e.ValueFrom
	switch {
	case from == nil:
		return e.Value
	case from.SecretKeyRef != nil:
		s, err := kube.CoreV1().Secrets(pod.Namespace).Get(ctx, from.SecretKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			return ""
		}
		return string(s.Data[from.SecretKeyRef.Key])
	case from.ConfigMapKeyRef != nil:
		cm, err := kube.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, from.ConfigMapKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			return ""
		}
		return cm.Data[from.ConfigMapKeyRef.Key]
	case from.FieldRef != nil:
		switch from.FieldRef.FieldPath {
		case "metadata.name":
			return pod.Name
		case "metadata.namespace":
			return pod.Namespace
		case "status.podIP":
			return pod.Status.PodIP
		case "status.hostIP":
			return pod.Status.HostIP
		}
	}
	return ""
}
