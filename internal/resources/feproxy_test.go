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
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func TestFEProxy(t *testing.T) {
	conf := func(t *testing.T, src *srv1.StarRocksCluster, cfg ...Config) string {
		t.Helper()
		return find[*corev1.ConfigMap](t, FEProxy(src, cfg...).Objects(), "sr-fe-proxy").Data["nginx.conf"]
	}
	deployment := func(t *testing.T, src *srv1.StarRocksCluster, cfg ...Config) *appsv1.Deployment {
		t.Helper()
		return find[*appsv1.Deployment](t, FEProxy(src, cfg...).Objects(), "sr-fe-proxy")
	}

	t.Run("nginx.conf proxies 8080 to the FE Service through the default resolver", func(t *testing.T) {
		c := conf(t, newCluster())
		for _, want := range []string{
			"listen 8080;",
			"resolver kube-dns.kube-system.svc.cluster.local valid=10s;",
			"http://sr-fe-service.ns.svc.cluster.local:8030;",
			"proxy_intercept_errors on;",
			"recursive_error_pages on;",
			"error_page 307 = @follow_redirect;",
			"proxy_pass $redirect_target;",
			"client_max_body_size 0;",
			"underscores_in_headers on;",
			"proxy_set_header Expect $http_expect;",
			"location = /nginx/health",
			"pid /tmp/nginx.pid;",
			"client_body_temp_path /tmp/client_temp;",
		} {
			if !strings.Contains(c, want) {
				t.Errorf("nginx.conf lacks %q:\n%s", want, c)
			}
		}
	})
	t.Run("spec.resolver replaces the default resolver", func(t *testing.T) {
		src := newCluster()
		src.Spec.StarRocksFeProxySpec.Resolver = "coredns.kube-system.svc.cluster.local"
		if c := conf(t, src); !strings.Contains(c, "resolver coredns.kube-system.svc.cluster.local valid=10s;") {
			t.Errorf("nginx.conf:\n%s", c)
		}
	})
	t.Run("fe.conf http_port is where the proxy sends requests", func(t *testing.T) {
		if c := conf(t, newCluster(), Config{FEContent: "http_port = 8031"}); !strings.Contains(c, "svc.cluster.local:8031;") {
			t.Errorf("nginx.conf:\n%s", c)
		}
	})
	t.Run("--dns-domain-suffix names the FE Service's domain", func(t *testing.T) {
		if c := conf(t, newCluster(), Config{Options: Options{DNSDomainSuffix: "corp.example"}}); !strings.Contains(c, "http://sr-fe-service.ns.svc.corp.example:8030;") {
			t.Errorf("nginx.conf:\n%s", c)
		}
	})
	t.Run("Deployment defaults", func(t *testing.T) {
		d := deployment(t, newCluster())
		c := d.Spec.Template.Spec.Containers[0]
		checks := []struct {
			what      string
			got, want any
		}{
			{"replicas", d.Spec.Replicas, ptr.To(int32(1))},
			{"selector", d.Spec.Selector.MatchLabels, SelectorLabels(newCluster(), ComponentFEProxy)},
			{"template labels", d.Spec.Template.Labels, SelectorLabels(newCluster(), ComponentFEProxy)},
			{"no config hash on a new template", d.Spec.Template.Annotations, map[string]string(nil)},
			{"config hash on the Deployment", d.Annotations, map[string]string{ConfigHashAnnotation: configHash(conf(t, newCluster()))}},
			{"image", c.Image, "nginx:1.24.0"},
			{"container name", c.Name, "nginx"},
			{"ports", c.Ports, []corev1.ContainerPort{{Name: "http-port", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}},
			{"mount", c.VolumeMounts, []corev1.VolumeMount{{Name: "sr-fe-proxy-2912", MountPath: "/etc/nginx"}}},
			{"volume", d.Spec.Template.Spec.Volumes, []corev1.Volume{{Name: "sr-fe-proxy-2912", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "sr-fe-proxy"}}}}}},
			{"runs as nginx (101), never escalating", c.SecurityContext, &corev1.SecurityContext{RunAsUser: ptr.To(int64(101)), RunAsGroup: ptr.To(int64(101)),
				RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(false)}},
			{"automountServiceAccountToken", d.Spec.Template.Spec.AutomountServiceAccountToken, ptr.To(false)},
		}
		for _, ch := range checks {
			if !reflect.DeepEqual(ch.got, ch.want) {
				t.Errorf("%s: got %#v, want %#v", ch.what, ch.got, ch.want)
			}
		}
		if errs := validate(d); len(errs) > 0 {
			t.Errorf("invalid: %v", errs)
		}
	})
	t.Run("Deployment passes the spec through", func(t *testing.T) {
		src := newCluster()
		p := src.Spec.StarRocksFeProxySpec
		p.Replicas = ptr.To(int32(3))
		p.Image = "nginx:1.27"
		p.ImagePullPolicy = corev1.PullIfNotPresent
		p.ResourceRequirements = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}
		p.NodeSelector = map[string]string{"edge": "true"}
		p.Tolerations = []corev1.Toleration{{Key: "edge", Operator: corev1.TolerationOpExists}}
		p.ServiceAccount = "proxy-sa"
		p.PodLabels = map[string]string{"team": "ingest"}
		p.Annotations = map[string]string{"a": "b"}
		d := deployment(t, src)
		c := d.Spec.Template.Spec.Containers[0]
		if *d.Spec.Replicas != 3 || c.Image != "nginx:1.27" || c.ImagePullPolicy != corev1.PullIfNotPresent ||
			!reflect.DeepEqual(c.Resources, p.ResourceRequirements) ||
			!reflect.DeepEqual(d.Spec.Template.Spec.NodeSelector, p.NodeSelector) ||
			!reflect.DeepEqual(d.Spec.Template.Spec.Tolerations, p.Tolerations) ||
			d.Spec.Template.Spec.ServiceAccountName != "proxy-sa" ||
			d.Spec.Template.Labels["team"] != "ingest" || d.Spec.Template.Annotations["a"] != "b" {
			t.Errorf("deployment %+v", d.Spec)
		}
	})
	t.Run("a changed nginx.conf rolls the pods through the template hash", func(t *testing.T) {
		recorded := deployment(t, newCluster()).Annotations[ConfigHashAnnotation]
		src := newCluster()
		src.Spec.StarRocksFeProxySpec.Resolver = "10.96.0.10"
		objs := FEProxy(src, Config{Live: ConfigState{Recorded: recorded}}).Objects()
		b := find[*appsv1.Deployment](t, objs, "sr-fe-proxy").Spec.Template.Annotations[ConfigHashAnnotation]
		if recorded == "" || b == "" || recorded == b {
			t.Errorf("hashes %q and %q", recorded, b)
		}
	})
}

func TestAResolverCannotInjectNginxConfig(t *testing.T) {
	for resolver, ok := range map[string]bool{
		"kube-dns.kube-system.svc.cluster.local":      true,
		"10.96.0.10:53 valid=30s ipv6=off":            true,
		"[fd00::10]:53":                               true,
		"10.0.0.1; include /etc/passwd":               false,
		"10.0.0.1 valid=1s;\n} server { listen 81; }": false,
		"# comment": false,
	} {
		src := newCluster()
		src.Spec.StarRocksFeProxySpec.Resolver = resolver
		if got := ResolverError(src) == ""; got != ok {
			t.Errorf("resolver %q accepted=%v, want %v", resolver, got, ok)
		}
		conf := NginxConf(NginxConfInput{Cluster: "c", Resolver: resolver})
		if !ok && strings.Contains(conf, resolver) {
			t.Errorf("resolver %q went into nginx.conf", resolver)
		}
	}
}
