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

	srv1 "github.com/srscale/starrocks-operator/api/v1"
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
		{"Java properties: key: value and key value count too", ComponentFE, "http_port: 8031\nrpc_port 9021\n! query_port = 1\n\tedit_log_port=9011", map[string]int32{"http_port": 8031, "rpc_port": 9021, "query_port": 9030, "edit_log_port": 9011}},
		{"arrow_flight_port adds the Arrow Flight port", ComponentBE, "arrow_flight_port = 9419", map[string]int32{"be_port": 9060, "webserver_port": 8040, "heartbeat_service_port": 9050, "brpc_port": 8060, "arrow_flight_port": 9419}},
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
		if c.Ports[0].Name != "http-port" || c.Ports[0].ContainerPort != 8031 {
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
	t.Run("container ports carry the upstream's names; FE declares no edit-log port", func(t *testing.T) {
		want := map[Component][]string{
			ComponentFE: {"http-port", "rpc-port", "query-port"},
			ComponentBE: {"be-port", "webserver-port", "heartbeat-port", "brpc-port"},
			ComponentCN: {"thrift-port", "webserver-port", "heartbeat-port", "brpc-port"},
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

func TestArrowFlightPort(t *testing.T) {
	objs := FE(newCluster(), Config{Content: "arrow_flight_port = 9408"}).Objects()
	c := mainOf(find[*appsv1.StatefulSet](t, objs, "sr-fe"))
	if p := c.Ports[len(c.Ports)-1]; p.Name != "arrow-flight" || p.ContainerPort != 9408 {
		t.Errorf("container ports %+v", c.Ports)
	}
	if p, ok := servicePort(find[*corev1.Service](t, objs, "sr-fe-service"), "arrow-flight"); !ok || p.Port != 9408 {
		t.Errorf("service port %+v", p)
	}
	if _, ok := servicePort(find[*corev1.Service](t, FE(newCluster(), Config{}).Objects(), "sr-fe-service"), "arrow-flight"); ok {
		t.Error("arrow-flight port without arrow_flight_port")
	}
}

func TestConfigHash(t *testing.T) {
	const conf, changed = "sys_log_level = INFO", "sys_log_level = WARN"
	build := func(cfg Config) (template, object string) {
		s := sts(t, newCluster(), ComponentBE, cfg)
		return s.Spec.Template.Annotations[ConfigHashAnnotation], s.Annotations[ConfigHashAnnotation]
	}
	tests := []struct {
		name         string
		cfg          Config
		wantTemplate string // "" none, else the content whose hash is wanted
		wantObject   string
	}{
		{"no .conf, no hash anywhere", Config{}, "", ""},
		{"a new workload records the hash on itself, not on the template", Config{Content: conf}, "", conf},
		{"an adopted workload (nothing recorded) keeps its template", Config{Content: conf}, "", conf},
		{"unchanged content leaves the template alone", Config{Content: conf, Live: ConfigState{Recorded: configHash(conf)}}, "", conf},
		{"changed content rolls the pods through the template", Config{Content: changed, Live: ConfigState{Recorded: configHash(conf)}}, changed, changed},
		{"once on the template, the hash stays and follows the content", Config{Content: conf, Live: ConfigState{Template: "x", Recorded: configHash(conf)}}, conf, conf},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, obj := build(tt.cfg)
			want := func(content string) string {
				if content == "" {
					return ""
				}
				return configHash(content)
			}
			if tmpl != want(tt.wantTemplate) || obj != want(tt.wantObject) {
				t.Errorf("template %q object %q, want %q and %q", tmpl, obj, want(tt.wantTemplate), want(tt.wantObject))
			}
		})
	}
	t.Run("the hash changes with the content and is stable", func(t *testing.T) {
		first, again := configHash(conf), configHash(conf)
		if first == configHash(changed) || first != again || len(first) != 16 {
			t.Error("bad hash")
		}
	})
	t.Run("user pod annotations are kept beside the hash", func(t *testing.T) {
		src := newCluster()
		src.Spec.StarRocksBeSpec.Annotations = map[string]string{"prometheus.io/scrape": "true", ConfigHashAnnotation: "mine"}
		s := sts(t, src, ComponentBE, Config{Content: "x = 1", Live: ConfigState{Template: "y"}})
		if s.Spec.Template.Annotations["prometheus.io/scrape"] != "true" || s.Spec.Template.Annotations[ConfigHashAnnotation] != configHash("x = 1") {
			t.Errorf("annotations %v", s.Spec.Template.Annotations)
		}
	})
}

func TestConfSource(t *testing.T) {
	tests := []struct {
		name string
		spec srv1.StarRocksComponentSpec
		want ConfSource
		ok   bool
	}{
		{"none", srv1.StarRocksComponentSpec{}, ConfSource{}, false},
		{"configMapInfo", srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{ConfigMapInfo: srv1.ConfigMapInfo{ConfigMapName: "cm", ResolveKey: "be.conf"}}},
			ConfSource{ConfigMap: "cm", Key: "be.conf"}, true},
		{"be.conf mounted with subPath through configMaps[]", srv1.StarRocksComponentSpec{ConfigMaps: []srv1.ConfigMapReference{
			{Name: "other", MountPath: "/etc/x"}, {Name: "mine", MountPath: "/opt/starrocks/be/conf/be.conf", SubPath: "my.conf"}}},
			ConfSource{ConfigMap: "mine", Key: "my.conf", Fallback: true}, true},
		{"the conf directory mounted through configMaps[]", srv1.StarRocksComponentSpec{ConfigMaps: []srv1.ConfigMapReference{{Name: "dir", MountPath: "/opt/starrocks/be/conf/"}}},
			ConfSource{ConfigMap: "dir", Key: "be.conf", Fallback: true}, true},
		{"configMapInfo wins", srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{ConfigMapInfo: srv1.ConfigMapInfo{ConfigMapName: "cm", ResolveKey: "be.conf"}},
			ConfigMaps: []srv1.ConfigMapReference{{Name: "dir", MountPath: "/opt/starrocks/be/conf"}}}, ConfSource{ConfigMap: "cm", Key: "be.conf"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ConfSourceOf(ComponentBE, &tt.spec)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestPortErrorsNameEveryPortStarRocksCouldNotUse(t *testing.T) {
	tests := []struct {
		name    string
		c       Component
		content string
		want    int
	}{
		{"valid ports pass", ComponentFE, "http_port = 8030\nquery_port: 9030\nrpc_port 9020\n", 0},
		{"a word is no port", ComponentFE, "http_port = abc\n", 1},
		{"out of range, both ways", ComponentBE, "be_port = 0\nwebserver_port = 70000\n", 2},
		{"an alias counts", ComponentBE, "be_http_port = -1\n", 1},
		{"other keys are not ports", ComponentCN, "sys_log_level = INFO\nJAVA_OPTS = -Xmx1g\n", 0},
		{"comments and quotes as StarRocks reads them", ComponentCN, "# heartbeat_service_port = x\nthrift_port = \"9060\" # ok\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PortErrors(tt.c, tt.content); len(got) != tt.want {
				t.Errorf("PortErrors = %q, want %d errors", got, tt.want)
			}
		})
	}
}
