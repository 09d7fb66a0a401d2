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

	v1 "github.com/srscale/starrocks-operator/api/v1"
)

const (
	defaultFEProxyImage = "nginx:1.24.0"
	defaultResolver     = "kube-dns.kube-system.svc.cluster.local"
	nginxConfKey        = "nginx.conf"
	nginxConfVolume     = "nginx-conf"
	nginxConfPath       = "/etc/nginx/nginx.conf"
)

// FEProxy builds the nginx proxy in front of the FE HTTP port: ConfigMap
// <n>-fe-proxy (nginx.conf), Deployment <n>-fe-proxy and Service
// <n>-fe-proxy-service (port http-port, 8080). It returns nil when the cluster
// has no FE proxy spec, or no FE spec.
//
// cfg is optional: when given, cfg[0].FEContent (fe.conf) tells which port
// the FE Service serves HTTP on; without it that is the FE default (8030, or
// the FE spec.service override). The proxy's own configMapInfo and
// storageVolumes are ignored: nginx.conf is generated, and nginx stores nothing.
func FEProxy(src *v1.StarRocksCluster, cfg ...Config) *FEProxyObjects {
	if src == nil || src.Spec.StarRocksFeProxySpec == nil || src.Spec.StarRocksFeSpec == nil {
		return nil
	}
	src = src.DeepCopy()
	spec := src.Spec.StarRocksFeProxySpec
	feContent := ""
	if len(cfg) > 0 {
		feContent = cfg[0].FEContent
	}
	conf := nginxConf(src, spec.Resolver, feServicePort(src, feContent, fePortHTTP))

	cm := &corev1.ConfigMap{
		TypeMeta:   typeMeta("v1", "ConfigMap"),
		ObjectMeta: objectMeta(src, ComponentFEProxy, src.FeProxyConfigMapName()),
		Data:       map[string]string{nginxConfKey: conf},
	}
	ports := []namedPort{{feProxyPortName, feProxyPort}}
	return &FEProxyObjects{
		ConfigMap:  cm,
		Deployment: feProxyDeployment(src, spec, conf),
		Service:    clientService(src, ComponentFEProxy, src.FeProxyServiceName(), ports, spec.Service),
	}
}

// feProxyDeployment runs nginx with the generated nginx.conf. The pod template
// carries the hash of nginx.conf: it is mounted with subPath, which kubelet
// never refreshes, so a changed file must roll the pods.
func feProxyDeployment(src *v1.StarRocksCluster, spec *v1.StarRocksFeProxySpec, conf string) *appsv1.Deployment {
	load := &spec.StarRocksLoadSpec
	image := load.Image
	if image == "" {
		image = defaultFEProxyImage
	}
	// TCP, not HTTP: an HTTP check would go through to FE, and an FE outage
	// should not restart the proxies too.
	startup, liveness, readiness := probes(load, tcpHealth(feProxyPort))

	pod := loadPodSpec(src, load)
	pod.Containers = []corev1.Container{{
		Name:            string(ComponentFEProxy),
		Image:           image,
		ImagePullPolicy: load.ImagePullPolicy,
		Ports:           containerPorts([]namedPort{{feProxyPortName, feProxyPort}}),
		Resources:       load.ResourceRequirements,
		VolumeMounts:    []corev1.VolumeMount{{Name: nginxConfVolume, MountPath: nginxConfPath, SubPath: nginxConfKey}},
		StartupProbe:    startup,
		LivenessProbe:   liveness,
		ReadinessProbe:  readiness,
		Lifecycle:       load.Lifecycle,
	}}
	pod.Volumes = []corev1.Volume{{Name: nginxConfVolume, VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: src.FeProxyConfigMapName()}},
	}}}

	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: objectMeta(src, ComponentFEProxy, src.FeProxyDeploymentName()),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(ptr.Deref(load.Replicas, 1)),
			Selector: &metav1.LabelSelector{MatchLabels: SelectorLabels(src, ComponentFEProxy)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: podMeta(src, ComponentFEProxy, load, configHash(conf)),
				Spec:       pod,
			},
		},
	}
}

// nginxConf proxies every request on 8080 to the FE Service's HTTP port.
//
// Stream Load is why the proxy exists: FE answers it with a 307 redirect to a
// BE or CN, whose addresses only resolve inside the Kubernetes cluster. nginx
// intercepts the redirect and follows it itself, replaying the request body it
// has buffered, so clients outside the cluster only ever talk to the proxy.
// Upstream addresses are variables so that nginx resolves them per request
// (through resolver) instead of once at start-up, when BE may not exist yet.
func nginxConf(src *v1.StarRocksCluster, resolver string, feHTTPPort int32) string {
	if resolver == "" {
		resolver = defaultResolver
	}
	fe := fmt.Sprintf("http://%s.%s.svc.cluster.local:%d", src.FeServiceName(), src.Namespace, feHTTPPort)
	return fmt.Sprintf(`# Generated by the StarRocks operator for StarRocksCluster %s/%s; edits are overwritten.
worker_processes auto;
error_log /dev/stderr warn;

events {
    worker_connections 1024;
}

http {
    access_log /dev/stdout;

    resolver %s valid=10s;
    resolver_timeout 5s;

    # Load bodies may be of any size; nginx buffers them (to disk when large)
    # so that it can send them again after following a redirect.
    client_max_body_size 0;
    proxy_http_version 1.1;
    proxy_connect_timeout 10s;
    proxy_send_timeout 600s;
    proxy_read_timeout 600s;
    send_timeout 600s;

    server {
        listen %d;

        location / {
            set $fe_upstream %s;
            proxy_pass $fe_upstream;
            proxy_intercept_errors on;
            error_page 307 = @follow_redirect;
        }

        # FE redirects Stream Load to a BE or CN: follow the redirect here.
        location @follow_redirect {
            set $redirect_target $upstream_http_location;
            proxy_pass $redirect_target;
        }
    }
}
`, src.Namespace, src.Name, resolver, feProxyPort, fe)
}
