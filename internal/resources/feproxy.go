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
	"regexp"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

const (
	defaultFEProxyImage = "nginx:1.24.0"
	defaultResolver     = "kube-dns.kube-system.svc.cluster.local"
	nginxConfKey        = "nginx.conf"
	nginxConfDir        = "/etc/nginx"
	nginxContainer      = "nginx"
	// NginxHealthPath answers 200 from nginx itself: the proxy's probes must not
	// depend on FE, or an FE outage would restart the proxies too.
	NginxHealthPath = "/nginx/health"
	// nginxUID is the nginx user of the official nginx images.
	nginxUID = int64(101)
)

// FEProxy builds the nginx proxy in front of the FE HTTP port: ConfigMap
// <n>-fe-proxy (nginx.conf), Deployment <n>-fe-proxy and Service
// <n>-fe-proxy-service (port http-port, 8080). It returns nil when the cluster
// has no FE proxy spec, or no FE spec.
//
// cfg is optional: when given, cfg[0].FEContent (fe.conf) tells which port
// the FE Service serves HTTP on (without it that is the FE default, 8030, or
// the FE spec.service override), and cfg[0].Options the DNS domain. The
// proxy's own configMapInfo and storageVolumes are ignored: nginx.conf is
// generated, and nginx stores nothing.
func FEProxy(src *srv1.StarRocksCluster, cfg ...Config) *FEProxyObjects {
	if src == nil || src.Spec.StarRocksFeProxySpec == nil || src.Spec.StarRocksFeSpec == nil {
		return nil
	}
	src = src.DeepCopy()
	spec := src.Spec.StarRocksFeProxySpec
	var c Config
	if len(cfg) > 0 {
		c = cfg[0]
	}
	conf := NginxConf(NginxConfInput{
		Cluster:  src.Namespace + "/" + src.Name,
		Resolver: spec.Resolver,
		FE:       fmt.Sprintf("%s.%s.svc.%s:%d", src.FeServiceName(), src.Namespace, c.Options.dnsDomain(), feServicePort(src, c.FEContent, fePortHTTP)),
		FEHosts:  regexp.QuoteMeta(src.FeSearchServiceName()),
		Listen:   feProxyPort,
	})

	cm := &corev1.ConfigMap{
		TypeMeta:   typeMeta("v1", "ConfigMap"),
		ObjectMeta: objectMeta(src, ComponentFEProxy, src.FeProxyConfigMapName()),
		Data:       map[string]string{nginxConfKey: conf},
	}
	ports := []namedPort{{name: feProxyPortName, container: feProxyPortName, port: feProxyPort}}
	return &FEProxyObjects{
		ConfigMap:  cm,
		Deployment: feProxyDeployment(src, spec, conf, c),
		Service:    clientService(src, ComponentFEProxy, src.FeProxyServiceName(), ports, spec.Service),
	}
}

// feProxyDeployment runs nginx (as its unprivileged user, 101) with the
// generated nginx.conf; the pod template is the upstream's. The ConfigMap is
// mounted as the whole /etc/nginx, which kubelet refreshes, but nginx reads its
// configuration only at start: a changed nginx.conf rolls the pods through
// ConfigHashAnnotation, added as for the StarRocks components (ConfigState).
func feProxyDeployment(src *srv1.StarRocksCluster, spec *srv1.StarRocksFeProxySpec, conf string, cfg Config) *appsv1.Deployment {
	load := &spec.StarRocksLoadSpec
	image := load.Image
	if image == "" {
		image = defaultFEProxyImage
	}
	pullPolicy := load.ImagePullPolicy
	if pullPolicy == "" {
		pullPolicy = corev1.PullIfNotPresent
	}
	liveness := probe(load.LivenessProbeFailureSeconds, defaultLivenessFailureSeconds, nginxHealth)
	readiness := probe(load.ReadinessProbeFailureSeconds, defaultReadinessFailureSeconds, nginxHealth)
	var startup *corev1.Probe // the upstream has none, and nginx starts at once
	if load.StartupProbeFailureSeconds != nil {
		startup = probe(load.StartupProbeFailureSeconds, defaultStartupFailureSeconds, nginxHealth)
	}
	volume := mountVolumeName(src.FeProxyConfigMapName(), nginxConfDir, "", cfg.Options)

	pod := loadPodSpec(src, load)
	pod.Containers = []corev1.Container{{
		Name:            nginxContainer,
		Image:           image,
		ImagePullPolicy: pullPolicy,
		Ports:           containerPorts([]namedPort{{name: feProxyPortName, container: feProxyPortName, port: feProxyPort}}),
		Resources:       load.ResourceRequirements,
		VolumeMounts:    []corev1.VolumeMount{{Name: volume, MountPath: nginxConfDir}},
		StartupProbe:    startup,
		LivenessProbe:   liveness,
		ReadinessProbe:  readiness,
		Lifecycle:       load.Lifecycle,
		SecurityContext: &corev1.SecurityContext{
			RunAsUser:                ptr.To(nginxUID),
			RunAsGroup:               ptr.To(nginxUID),
			RunAsNonRoot:             ptr.To(true),
			AllowPrivilegeEscalation: ptr.To(false),
			ReadOnlyRootFilesystem:   ptr.To(false),
		},
	}}
	restrictFEProxy(src, &pod)
	pod.Volumes = []corev1.Volume{{Name: volume, VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: src.FeProxyConfigMapName()}},
	}}}

	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: withConfigHash(objectMeta(src, ComponentFEProxy, src.FeProxyDeploymentName()), conf),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(ptr.Deref(load.Replicas, 1)),
			Selector: &metav1.LabelSelector{MatchLabels: SelectorLabels(src, ComponentFEProxy)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: podMeta(src, ComponentFEProxy, load, "", "", templateConfigHash(conf, cfg.Live)),
				Spec:       pod,
			},
		},
	}
}

// restrictFEProxy readies the FE proxy's pod for Pod Security "restricted"
// when the user asks for it. The FE proxy has no security fields of its own
// (neither has the upstream's): it follows FE's. When FE's spec sets a
// seccomp profile, which nothing but such a namespace needs, the proxy's
// pod takes the same profile and nginx (uid 101, port 8080: it needs no
// capability) drops every capability. Otherwise the pod template stays
// the upstream's, so that switching from it restarts no pod.
func restrictFEProxy(src *srv1.StarRocksCluster, pod *corev1.PodSpec) {
	feSpec := src.Spec.StarRocksFeSpec
	if feSpec == nil || feSpec.SeccompProfile == nil {
		return
	}
	if pod.SecurityContext == nil {
		pod.SecurityContext = &corev1.PodSecurityContext{}
	}
	pod.SecurityContext.SeccompProfile = feSpec.SeccompProfile.DeepCopy()
	for i := range pod.Containers {
		pod.Containers[i].SecurityContext.Capabilities = &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}
	}
}

// withConfigHash records the hash of content on a workload (see ConfigState).
func withConfigHash(meta metav1.ObjectMeta, content string) metav1.ObjectMeta {
	if content != "" {
		meta.Annotations = map[string]string{ConfigHashAnnotation: configHash(content)}
	}
	return meta
}

func nginxHealth() corev1.ProbeHandler {
	return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
		Path:   NginxHealthPath,
		Port:   intstr.FromInt32(feProxyPort),
		Scheme: corev1.URISchemeHTTP,
	}}
}

// NginxConfInput is what the FE proxy's nginx.conf depends on.
type NginxConfInput struct {
	Cluster  string // namespace/name, for the header comment
	Resolver string // DNS server nginx resolves upstreams with; "" for kube-dns
	FE       string // host:port of the FE Service's HTTP port
	// FEHosts is a regular expression matching redirect targets that are FE
	// pods (a follower FE sends a load to the leader): the FE search Service's name.
	FEHosts string
	Listen  int32 // port nginx listens on
}

// NginxConf is the FE proxy's nginx.conf.
//
// Stream Load is why the proxy exists: FE answers a load with a 307 redirect
// (a follower to the leader FE, the leader to a BE or CN) whose addresses only
// resolve inside the Kubernetes cluster. nginx intercepts each redirect and
// follows it itself (recursive_error_pages, error_page 307 =
// @follow_redirect), so clients outside the cluster only ever talk to the
// proxy. FE answers without reading the data, so FE gets the load's headers
// only and the BE or CN the body, which nginx has buffered (to /tmp when
// large). Load options travel as headers with underscores (column_separator,
// ...), which nginx drops by default, and Expect: 100-continue is passed on.
// Upstream addresses are variables so that nginx resolves them per request
// (through resolver) instead of once at start-up, when BE may not exist yet.
// Everything nginx writes goes under /tmp, so it runs as uid 101.
func NginxConf(in NginxConfInput) string {
	resolver := in.Resolver
	if resolver == "" || !safeResolver.MatchString(resolver) {
		resolver = defaultResolver // an unsafe one is refused before a build (ResolverError)
	}
	return fmt.Sprintf(`# Generated by the StarRocks operator for StarRocksCluster %[1]s; edits are overwritten.
pid /tmp/nginx.pid;
worker_processes auto;
error_log /dev/stderr warn;

events {
    worker_connections 1024;
}

http {
    access_log /dev/stdout;
    default_type application/octet-stream;

    client_body_temp_path /tmp/client_temp;
    proxy_temp_path       /tmp/proxy_temp;
    fastcgi_temp_path     /tmp/fastcgi_temp;
    uwsgi_temp_path       /tmp/uwsgi_temp;
    scgi_temp_path        /tmp/scgi_temp;

    resolver %[2]s valid=10s;
    resolver_timeout 5s;

    # Load bodies may be of any size; nginx buffers them so that it can send
    # them on after following a redirect.
    client_max_body_size 0;
    # Stream Load options are headers with underscores (column_separator).
    underscores_in_headers on;
    ignore_invalid_headers off;
    proxy_http_version 1.1;
    proxy_connect_timeout 10s;
    proxy_send_timeout 600s;
    proxy_read_timeout 600s;
    send_timeout 600s;

    server {
        listen %[3]d;
        proxy_intercept_errors on;
        recursive_error_pages on;

        location = %[4]s {
            access_log off;
            return 200 "ok\n";
        }

        location / {
            set $fe_upstream http://%[5]s;
            proxy_pass $fe_upstream;
            proxy_set_header Expect $http_expect;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            error_page 307 = @follow_redirect;
        }

        # Loads: FE only redirects them, so it gets the headers, not the data.
        location ~ ^/api/[^/]+/[^/]+/_stream_load$ {
            set $fe_upstream http://%[5]s;
            proxy_pass $fe_upstream;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header Expect $http_expect;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            error_page 307 = @follow_redirect;
        }

        location /api/transaction/load {
            set $fe_upstream http://%[5]s;
            proxy_pass $fe_upstream;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header Expect $http_expect;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            error_page 307 = @follow_redirect;
        }

        # Follow a redirect here: to another FE without the data, to a BE or
        # CN with it, and any redirect after that again.
        location @follow_redirect {
            if ($upstream_http_location ~ "%[6]s") {
                rewrite ^ /_follow_redirect_to_fe last;
            }
            rewrite ^ /_follow_redirect_to_be last;
        }

        location /_follow_redirect_to_fe {
            internal;
            set $redirect_target $upstream_http_location;
            proxy_pass $redirect_target;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header Expect $http_expect;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            error_page 307 = @follow_redirect;
        }

        location /_follow_redirect_to_be {
            internal;
            set $redirect_target $upstream_http_location;
            proxy_pass $redirect_target;
            # nginx has the whole body already and sends it at once; over
            # HTTP/1.1 a BE may still answer 100 Continue first, which nginx
            # would take for the final response. HTTP/1.0 rules that out,
            # while BE still sees the Expect header Stream Load requires.
            proxy_http_version 1.0;
            proxy_set_header Expect $http_expect;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            error_page 307 = @follow_redirect;
        }
    }
}
`, in.Cluster, resolver, in.Listen, NginxHealthPath, in.FE, in.FEHosts)
}

// safeResolver is what nginx's resolver directive takes here: addresses or
// names with optional ports and parameters (valid=30s ipv6=off), separated by
// spaces. Nothing that could end the directive or open a block (; { } # or a
// newline) reaches nginx.conf.
var safeResolver = regexp.MustCompile(`^[A-Za-z0-9._:\[\]=-]+( [A-Za-z0-9._:\[\]=-]+)*$`)

// ResolverError says why spec.starRocksFeProxySpec.resolver cannot go into
// nginx.conf; "" when it can (or is unset).
func ResolverError(src *srv1.StarRocksCluster) string {
	spec := src.Spec.StarRocksFeProxySpec
	if spec == nil || spec.Resolver == "" || safeResolver.MatchString(spec.Resolver) {
		return ""
	}
	return fmt.Sprintf("spec.starRocksFeProxySpec.resolver: %q is not a DNS server nginx can use: give addresses or names, with optional :port and parameters such as valid=30s, separated by single spaces", spec.Resolver)
}
