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
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestPorts(t *testing.T) {
	tests := []struct {
		name    string
		c       Component
		content string
		want    map[string]int32
	}{
		{"FE defaults", ComponentFE, "", map[string]int32{"http_port": 8030, "rpc_port": 9020, "query_port": 9030, "edit_log_port": 9010}},
		{"BE defaults", ComponentBE, "", map[string]int32{"be_port": 9060, "webserver_port": 8040, "heartbeat_service_port": 9050, "brpc_port": 8060}},
		{"CN defaults", ComponentCN, "", map[string]int32{"thrift_port": 9060, "webserver_port": 8040, "heartbeat_service_port": 9050, "brpc_port": 8060}},
		{"FE proxy listens on 8080", ComponentFEProxy, "http_port = 1", map[string]int32{"http_port": 8080}},
		{"fe.conf lines override the defaults", ComponentFE, "http_port = 8031\nquery_port=19030\n", map[string]int32{"http_port": 8031, "rpc_port": 9020, "query_port": 19030, "edit_log_port": 9010}},
		{"comments, quotes, blanks and junk are ignored", ComponentFE, `
# http_port = 1111
   rpc_port   =   "9021"   # trailing comment
query_port = '9031'
edit_log_port = abc
JAVA_OPTS="-Xmx8192m -Dport=1"
LOG_DIR = ${STARROCKS_HOME}/log
`, map[string]int32{"http_port": 8030, "rpc_port": 9021, "query_port": 9031, "edit_log_port": 9010}},
		{"out-of-range ports are ignored", ComponentBE, "be_port = 0\nbrpc_port = 70000\nwebserver_port = -1", map[string]int32{"be_port": 9060, "webserver_port": 8040, "heartbeat_service_port": 9050, "brpc_port": 8060}},
		{"the last line setting a port wins", ComponentBE, "brpc_port = 1000\nbrpc_port = 2000", map[string]int32{"be_port": 9060, "webserver_port": 8040, "heartbeat_service_port": 9050, "brpc_port": 2000}},
		{"be_http_port is webserver_port", ComponentBE, "be_http_port = 8041", map[string]int32{"be_port": 9060, "webserver_port": 8041, "heartbeat_service_port": 9050, "brpc_port": 8060}},
		{"the later of an alias and its key wins", ComponentBE, "be_http_port = 8041\nwebserver_port = 8042", map[string]int32{"be_port": 9060, "webserver_port": 8042, "heartbeat_service_port": 9050, "brpc_port": 8060}},
		{"CN be_port is thrift_port", ComponentCN, "be_port = 9061", map[string]int32{"thrift_port": 9061, "webserver_port": 8040, "heartbeat_service_port": 9050, "brpc_port": 8060}},
		{"keys of another component are ignored", ComponentCN, "query_port = 1234", map[string]int32{"thrift_port": 9060, "webserver_port": 8040, "heartbeat_service_port": 9050, "brpc_port": 8060}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ports(tt.c, Config{Content: tt.content}); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestConfPortsReachContainersServicesAndProbes(t *testing.T) {
	t.Run("fe.conf http_port overrides the default and the probe", func(t *testing.T) {
		objs := FE(newCluster(), Config{Content: "http_port = 8031\nquery_port = 9031"}).Objects()
		s := find[*appsv1.StatefulSet](t, objs, "sr-fe")
		c := mainOf(s)
		if c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != 8031 {
			t.Errorf("container port %+v", c.Ports[0])
		}
		for _, p := range []*corev1.Probe{c.StartupProbe, c.LivenessProbe, c.ReadinessProbe} {
			if p.HTTPGet.Port != intstr.FromInt32(8031) {
				t.Errorf("probe port %v", p.HTTPGet.Port)
			}
		}
		svc := find[*corev1.Service](t, objs, "sr-fe-service")
		if p, _ := servicePort(svc, "http"); p.Port != 8031 || p.TargetPort != intstr.FromInt32(8031) {
			t.Errorf("service port %+v", p)
		}
		search := find[*corev1.Service](t, objs, "sr-fe-search")
		if len(search.Spec.Ports) != 1 || search.Spec.Ports[0].Port != 9031 {
			t.Errorf("search ports %+v", search.Spec.Ports)
		}
		if v, _ := envValue(c, "FE_QUERY_PORT"); v != "9031" {
			t.Errorf("FE_QUERY_PORT %q", v)
		}
	})
	t.Run("be.conf webserver_port moves the BE probe", func(t *testing.T) {
		c := mainOf(sts(t, newCluster(), ComponentBE, Config{Content: "webserver_port = 18040"}))
		if c.ReadinessProbe.HTTPGet.Port != intstr.FromInt32(18040) {
			t.Errorf("probe port %v", c.ReadinessProbe.HTTPGet.Port)
		}
	})
	t.Run("fe.conf query_port given to BE and CN becomes FE_QUERY_PORT", func(t *testing.T) {
		for _, comp := range []Component{ComponentBE, ComponentCN} {
			c := mainOf(sts(t, newCluster(), comp, Config{FEContent: "query_port = 19030"}))
			if v, _ := envValue(c, "FE_QUERY_PORT"); v != "19030" {
				t.Errorf("%s FE_QUERY_PORT %q", comp, v)
			}
		}
	})
	t.Run("container ports carry the Service port names", func(t *testing.T) {
		want := map[Component][]string{
			ComponentFE: {"http", "rpc", "query", "edit-log"},
			ComponentBE: {"be", "webserver", "heartbeat", "brpc"},
			ComponentCN: {"thrift", "webserver", "heartbeat", "brpc"},
		}
		for comp, names := range want {
			var got []string
			for _, p := range mainOf(sts(t, newCluster(), comp, Config{})).Ports {
				got = append(got, p.Name)
			}
			if !reflect.DeepEqual(got, names) {
				t.Errorf("%s: %v, want %v", comp, got, names)
			}
		}
	})
}

func TestConfigHash(t *testing.T) {
	hash := func(cfg Config) (string, bool) {
		s := sts(t, newCluster(), ComponentBE, cfg)
		v, ok := s.Spec.Template.Annotations[ConfigHashAnnotation]
		return v, ok
	}
	t.Run("no .conf, no hash annotation", func(t *testing.T) {
		if v, ok := hash(Config{}); ok {
			t.Errorf("unexpected hash %q", v)
		}
	})
	t.Run("a .conf puts its hash on the pod template", func(t *testing.T) {
		v, ok := hash(Config{Content: "sys_log_level = INFO"})
		if !ok || len(v) != 16 {
			t.Errorf("hash %q", v)
		}
	})
	t.Run("the hash changes with the content", func(t *testing.T) {
		a, _ := hash(Config{Content: "sys_log_level = INFO"})
		b, _ := hash(Config{Content: "sys_log_level = WARN"})
		if a == b {
			t.Error("same hash for different content")
		}
	})
	t.Run("the hash is stable", func(t *testing.T) {
		a, _ := hash(Config{Content: "x = 1"})
		b, _ := hash(Config{Content: "x = 1"})
		if a != b {
			t.Error("hash differs between builds")
		}
	})
	t.Run("user pod annotations are kept beside the hash", func(t *testing.T) {
		src := newCluster()
		src.Spec.StarRocksBeSpec.Annotations = map[string]string{"prometheus.io/scrape": "true", ConfigHashAnnotation: "mine"}
		s := sts(t, src, ComponentBE, Config{Content: "x = 1"})
		if s.Spec.Template.Annotations["prometheus.io/scrape"] != "true" || s.Spec.Template.Annotations[ConfigHashAnnotation] != configHash("x = 1") {
			t.Errorf("annotations %v", s.Spec.Template.Annotations)
		}
	})
}
