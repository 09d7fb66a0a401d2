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

package reconcile

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestWhichCreatesAllocateAClusterIP(t *testing.T) {
	svc := func(f func(*corev1.ServiceSpec)) *corev1.Service {
		s := &corev1.Service{}
		f(&s.Spec)
		return s
	}
	for _, tt := range []struct {
		name string
		obj  client.Object
		want bool
	}{
		{"a client Service (ClusterIP by default)", svc(func(*corev1.ServiceSpec) {}), true},
		{"a NodePort Service", svc(func(s *corev1.ServiceSpec) { s.Type = corev1.ServiceTypeNodePort }), true},
		{"a LoadBalancer Service", svc(func(s *corev1.ServiceSpec) { s.Type = corev1.ServiceTypeLoadBalancer }), true},
		{"a headless Service", svc(func(s *corev1.ServiceSpec) { s.ClusterIP = corev1.ClusterIPNone }), false},
		{"a Service with its own clusterIP", svc(func(s *corev1.ServiceSpec) { s.ClusterIP = "10.0.0.10" }), false},
		{"a Service with its own clusterIPs", svc(func(s *corev1.ServiceSpec) { s.ClusterIPs = []string{"10.0.0.10"} }), false},
		{"an ExternalName Service", svc(func(s *corev1.ServiceSpec) { s.Type = corev1.ServiceTypeExternalName }), false},
		{"a StatefulSet", &appsv1.StatefulSet{}, false},
	} {
		if got := AllocatesClusterIP(tt.obj); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
