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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

var serviceTypeMeta = typeMeta("v1", "Service")

// clientService is a component's client-facing Service: every port of the
// component, customised by spec.service.
//
// spec.service.ports entries override a default port: port, containerPort
// (the target port) and nodePort. As in the upstream, an entry applies to the
// port whose number equals its containerPort, or else to the port of its
// name. Entries that match no port of the component are ignored: nothing
// listens behind them. FE's query port says appProtocol mysql. nodePort is only set on NodePort and LoadBalancer Services, and
// loadBalancerIP / loadBalancerSourceRanges only on LoadBalancer Services,
// because the API server rejects them elsewhere.
func clientService(src *srv1.StarRocksCluster, c Component, name string, ports []namedPort, custom *srv1.StarRocksService) *corev1.Service {
	svc := &corev1.Service{
		TypeMeta:   serviceTypeMeta,
		ObjectMeta: objectMeta(src, c, name),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: SelectorLabels(src, c),
			Ports:    servicePorts(ports, custom),
		},
	}
	if custom == nil {
		return svc
	}
	if custom.Type != "" {
		svc.Spec.Type = custom.Type
	}
	if len(custom.Annotations) > 0 {
		svc.Annotations = copyMap(custom.Annotations)
	}
	svc.Labels = mergeLabels(svc.Labels, custom.Labels)
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		svc.Spec.LoadBalancerIP = custom.LoadBalancerIP
		if len(custom.LoadBalancerSourceRanges) > 0 {
			svc.Spec.LoadBalancerSourceRanges = append([]string(nil), custom.LoadBalancerSourceRanges...)
		}
	}
	return svc
}

// servicePorts are the Service ports of a component's ports, with the
// overrides of custom applied (see clientService).
func servicePorts(ports []namedPort, custom *srv1.StarRocksService) []corev1.ServicePort {
	out := make([]corev1.ServicePort, 0, len(ports))
	for _, p := range ports {
		sp := corev1.ServicePort{
			Name:        p.name,
			Protocol:    corev1.ProtocolTCP,
			AppProtocol: appProtocol(p.name),
			Port:        p.port,
			TargetPort:  intstr.FromInt32(p.port),
		}
		if o := portOverride(custom, p); o != nil {
			if o.Port > 0 {
				sp.Port = o.Port
			}
			if o.ContainerPort > 0 {
				sp.TargetPort = intstr.FromInt32(o.ContainerPort)
			}
			if o.NodePort > 0 && (custom.Type == corev1.ServiceTypeNodePort || custom.Type == corev1.ServiceTypeLoadBalancer) {
				sp.NodePort = o.NodePort
			}
		}
		out = append(out, sp)
	}
	return out
}

// portOverride is the first entry of custom.ports whose containerPort is p's
// number, or else the first called p's name; nil when none.
func portOverride(custom *srv1.StarRocksService, p namedPort) *srv1.StarRocksServicePort {
	if custom == nil {
		return nil
	}
	for i := range custom.Ports {
		if custom.Ports[i].ContainerPort == p.port {
			return &custom.Ports[i]
		}
	}
	for i := range custom.Ports {
		if custom.Ports[i].Name == p.name {
			return &custom.Ports[i]
		}
	}
	return nil
}

// appProtocol is FE's query port's protocol (MySQL), for clients and meshes that read it.
func appProtocol(name string) *string {
	if name == fePortQuery || name == "query-port" {
		return ptr.To("mysql")
	}
	return nil
}

// searchService is a component's headless Service: it gives every pod a stable
// DNS name (<pod>.<service>) from the start, ready or not, which StarRocks
// nodes register each other by (HOST_TYPE=FQDN). It lists ports, the first
// as the upstream does.
func searchService(src *srv1.StarRocksCluster, c Component, name string, ports ...namedPort) *corev1.Service {
	var sp []corev1.ServicePort
	for _, p := range ports {
		sp = append(sp, corev1.ServicePort{
			Name:        p.name,
			Protocol:    corev1.ProtocolTCP,
			AppProtocol: appProtocol(p.name),
			Port:        p.port,
			TargetPort:  intstr.FromInt32(p.port),
		})
	}
	return &corev1.Service{
		TypeMeta:   serviceTypeMeta,
		ObjectMeta: objectMeta(src, c, name),
		Spec: corev1.ServiceSpec{
			Type:                     corev1.ServiceTypeClusterIP,
			ClusterIP:                corev1.ClusterIPNone,
			PublishNotReadyAddresses: true,
			Selector:                 SelectorLabels(src, c),
			Ports:                    sp,
		},
	}
}

// feServicePort is the port the FE Service listens on for the FE port called
// name: the FE's effective port, or the spec.service override of it. BE, CN and
// the FE proxy reach FE through that Service.
func feServicePort(src *srv1.StarRocksCluster, feContent, name string) int32 {
	var custom *srv1.StarRocksService
	if src.Spec.StarRocksFeSpec != nil {
		custom = src.Spec.StarRocksFeSpec.Service
	}
	for _, sp := range servicePorts(effectivePorts(ComponentFE, feContent), custom) {
		if sp.Name == name {
			return sp.Port
		}
	}
	return 0
}
