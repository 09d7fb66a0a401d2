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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func TestClientService(t *testing.T) {
	tests := []struct {
		name   string
		c      Component
		svc    *srv1.StarRocksService
		cfg    Config
		verify func(t *testing.T, s *corev1.Service)
	}{
		{
			name: "defaults: ClusterIP with every port of the component",
			c:    ComponentBE,
			verify: func(t *testing.T, s *corev1.Service) {
				if s.Spec.Type != corev1.ServiceTypeClusterIP {
					t.Errorf("type %q", s.Spec.Type)
				}
				want := []corev1.ServicePort{
					{Name: "be", Protocol: corev1.ProtocolTCP, Port: 9060, TargetPort: intstr.FromInt32(9060)},
					{Name: "webserver", Protocol: corev1.ProtocolTCP, Port: 8040, TargetPort: intstr.FromInt32(8040)},
					{Name: "heartbeat", Protocol: corev1.ProtocolTCP, Port: 9050, TargetPort: intstr.FromInt32(9050)},
					{Name: "brpc", Protocol: corev1.ProtocolTCP, Port: 8060, TargetPort: intstr.FromInt32(8060)},
				}
				if !reflect.DeepEqual(s.Spec.Ports, want) {
					t.Errorf("ports %+v", s.Spec.Ports)
				}
				if s.Annotations != nil {
					t.Errorf("annotations %v", s.Annotations)
				}
			},
		},
		{
			// From upstream-examples/deploy_a_starrocks_cluster_with_fe_proxy.yaml.
			name: "NodePort example exposes the FE query port on node port 32755",
			c:    ComponentFE,
			svc: &srv1.StarRocksService{Type: corev1.ServiceTypeNodePort, Ports: []srv1.StarRocksServicePort{
				{Name: "query", NodePort: 32755, Port: 9030, ContainerPort: 9030},
			}},
			verify: func(t *testing.T, s *corev1.Service) {
				if s.Spec.Type != corev1.ServiceTypeNodePort {
					t.Errorf("type %q", s.Spec.Type)
				}
				p, _ := servicePort(s, "query")
				if p.NodePort != 32755 || p.Port != 9030 || p.TargetPort != intstr.FromInt32(9030) {
					t.Errorf("query port %+v", p)
				}
				if p, _ := servicePort(s, "http"); p.NodePort != 0 || p.Port != 8030 {
					t.Errorf("http port %+v", p)
				}
			},
		},
		{
			name: "port override changes port and target port only for that name",
			c:    ComponentCN,
			svc: &srv1.StarRocksService{Ports: []srv1.StarRocksServicePort{
				{Name: "webserver", Port: 80, ContainerPort: 8041},
				{Name: "no-such-port", Port: 1234},
			}},
			verify: func(t *testing.T, s *corev1.Service) {
				if p, _ := servicePort(s, "webserver"); p.Port != 80 || p.TargetPort != intstr.FromInt32(8041) {
					t.Errorf("webserver %+v", p)
				}
				if len(s.Spec.Ports) != 4 {
					t.Errorf("an unknown port name must be ignored: %+v", s.Spec.Ports)
				}
			},
		},
		{
			name: "port override with only a nodePort keeps the conf port",
			c:    ComponentFE,
			cfg:  Config{Content: "query_port = 9031"},
			svc: &srv1.StarRocksService{Type: corev1.ServiceTypeLoadBalancer, Ports: []srv1.StarRocksServicePort{
				{Name: "query", NodePort: 30001},
			}},
			verify: func(t *testing.T, s *corev1.Service) {
				if p, _ := servicePort(s, "query"); p.Port != 9031 || p.TargetPort != intstr.FromInt32(9031) || p.NodePort != 30001 {
					t.Errorf("query %+v", p)
				}
			},
		},
		{
			name: "nodePort is dropped on a ClusterIP Service",
			c:    ComponentFE,
			svc:  &srv1.StarRocksService{Ports: []srv1.StarRocksServicePort{{Name: "query", NodePort: 32755}}},
			verify: func(t *testing.T, s *corev1.Service) {
				if p, _ := servicePort(s, "query"); p.NodePort != 0 {
					t.Errorf("query %+v", p)
				}
			},
		},
		{
			name: "LoadBalancer gets its IP and source ranges, annotations and labels",
			c:    ComponentFE,
			svc: &srv1.StarRocksService{
				Type:                     corev1.ServiceTypeLoadBalancer,
				LoadBalancerIP:           "10.0.0.9",
				LoadBalancerSourceRanges: []string{"10.0.0.0/8"},
				Annotations:              map[string]string{"service.beta.kubernetes.io/aws-load-balancer-internal": "true"},
				Labels:                   map[string]string{"expose": "yes"},
			},
			verify: func(t *testing.T, s *corev1.Service) {
				if s.Spec.LoadBalancerIP != "10.0.0.9" || !reflect.DeepEqual(s.Spec.LoadBalancerSourceRanges, []string{"10.0.0.0/8"}) {
					t.Errorf("spec %+v", s.Spec)
				}
				if s.Annotations["service.beta.kubernetes.io/aws-load-balancer-internal"] != "true" {
					t.Errorf("annotations %v", s.Annotations)
				}
				if s.Labels["expose"] != "yes" || s.Labels[OwnerLabel] != "sr-fe" {
					t.Errorf("labels %v", s.Labels)
				}
			},
		},
		{
			name: "load balancer fields are dropped on other Service types",
			c:    ComponentBE,
			svc:  &srv1.StarRocksService{Type: corev1.ServiceTypeNodePort, LoadBalancerIP: "10.0.0.9", LoadBalancerSourceRanges: []string{"10.0.0.0/8"}},
			verify: func(t *testing.T, s *corev1.Service) {
				if s.Spec.LoadBalancerIP != "" || s.Spec.LoadBalancerSourceRanges != nil {
					t.Errorf("spec %+v", s.Spec)
				}
			},
		},
		{
			// From upstream-examples/deploy_a_starrocks_cluster_with_fe_proxy.yaml.
			name: "FE proxy NodePort example exposes http-port on node port 30180",
			c:    ComponentFEProxy,
			svc: &srv1.StarRocksService{Type: corev1.ServiceTypeNodePort, Ports: []srv1.StarRocksServicePort{
				{Name: "http-port", ContainerPort: 8080, NodePort: 30180, Port: 8080},
			}},
			verify: func(t *testing.T, s *corev1.Service) {
				want := []corev1.ServicePort{{Name: "http-port", Protocol: corev1.ProtocolTCP, Port: 8080, TargetPort: intstr.FromInt32(8080), NodePort: 30180}}
				if s.Spec.Type != corev1.ServiceTypeNodePort || !reflect.DeepEqual(s.Spec.Ports, want) {
					t.Errorf("spec %+v", s.Spec)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newCluster()
			var name string
			switch tt.c {
			case ComponentFE:
				src.Spec.StarRocksFeSpec.Service, name = tt.svc, src.FeServiceName()
			case ComponentBE:
				src.Spec.StarRocksBeSpec.Service, name = tt.svc, src.BeServiceName()
			case ComponentCN:
				src.Spec.StarRocksCnSpec.Service, name = tt.svc, src.CnServiceName()
			case ComponentFEProxy:
				src.Spec.StarRocksFeProxySpec.Service, name = tt.svc, src.FeProxyServiceName()
			}
			s := find[*corev1.Service](t, build(src, tt.c, tt.cfg), name)
			if !reflect.DeepEqual(s.Spec.Selector, SelectorLabels(src, tt.c)) {
				t.Errorf("selector %v", s.Spec.Selector)
			}
			if errs := validate(s); len(errs) > 0 {
				t.Errorf("invalid: %v", errs)
			}
			tt.verify(t, s)
		})
	}
}

func TestSearchServiceIsHeadless(t *testing.T) {
	src := newCluster()
	// The client Service's customisation must not leak into the headless one.
	src.Spec.StarRocksFeSpec.Service = &srv1.StarRocksService{Type: corev1.ServiceTypeNodePort, Labels: map[string]string{"x": "y"},
		Ports: []srv1.StarRocksServicePort{{Name: "query", Port: 19030, NodePort: 32755}}}
	tests := []struct {
		name      string
		c         Component
		svc       string
		wantPorts []corev1.ServicePort
	}{
		{"FE search exposes the query port (MySQL)", ComponentFE, src.FeSearchServiceName(), []corev1.ServicePort{{Name: "query-port", Protocol: corev1.ProtocolTCP, AppProtocol: ptr.To("mysql"), Port: 9030, TargetPort: intstr.FromInt32(9030)}}},
		{"BE search exposes the heartbeat port", ComponentBE, src.BeSearchServiceName(), []corev1.ServicePort{{Name: "heartbeat", Protocol: corev1.ProtocolTCP, Port: 9050, TargetPort: intstr.FromInt32(9050)}}},
		{"CN search exposes the heartbeat and brpc ports (upstream #736)", ComponentCN, src.CnSearchServiceName(), []corev1.ServicePort{
			{Name: "heartbeat", Protocol: corev1.ProtocolTCP, Port: 9050, TargetPort: intstr.FromInt32(9050)},
			{Name: "brpc", Protocol: corev1.ProtocolTCP, Port: 8060, TargetPort: intstr.FromInt32(8060)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := find[*corev1.Service](t, build(src, tt.c, Config{}), tt.svc)
			if s.Spec.ClusterIP != corev1.ClusterIPNone || !s.Spec.PublishNotReadyAddresses || s.Spec.Type != corev1.ServiceTypeClusterIP {
				t.Errorf("not headless: %+v", s.Spec)
			}
			if !reflect.DeepEqual(s.Spec.Ports, tt.wantPorts) {
				t.Errorf("ports %+v", s.Spec.Ports)
			}
			if !reflect.DeepEqual(s.Labels, Labels(src, tt.c)) {
				t.Errorf("labels %v", s.Labels)
			}
			if st := sts(t, src, tt.c, Config{}); st.Spec.ServiceName != tt.svc {
				t.Errorf("StatefulSet serviceName %q", st.Spec.ServiceName)
			}
		})
	}
}

func TestFEServicePortOverrideReachesOtherComponents(t *testing.T) {
	src := newCluster()
	src.Spec.StarRocksFeSpec.Service = &srv1.StarRocksService{Ports: []srv1.StarRocksServicePort{
		{Name: "query", Port: 19030}, {Name: "http", Port: 18030},
	}}
	if v, _ := envValue(mainOf(sts(t, src, ComponentBE, Config{})), "FE_QUERY_PORT"); v != "19030" {
		t.Errorf("BE FE_QUERY_PORT %q: BE reaches FE through the FE Service's port", v)
	}
	cm := find[*corev1.ConfigMap](t, FEProxy(src).Objects(), src.FeProxyConfigMapName())
	if !strings.Contains(cm.Data["nginx.conf"], "sr-fe-service.ns.svc.cluster.local:18030;") {
		t.Errorf("nginx.conf does not use the FE Service's http port:\n%s", cm.Data["nginx.conf"])
	}
}
