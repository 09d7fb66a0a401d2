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
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/srscale/starrocks-operator/api/v1"
)

// FE builds the frontends: StatefulSet <n>-fe, Service <n>-fe-service and
// headless Service <n>-fe-search (query port). cfg.Content is fe.conf. It
// returns nil when the cluster has no FE spec.
func FE(src *v1.StarRocksCluster, cfg Config) []client.Object {
	if src == nil || src.Spec.StarRocksFeSpec == nil {
		return nil
	}
	src = src.DeepCopy() // the objects must not share memory with the caller's cluster
	spec := src.Spec.StarRocksFeSpec
	ports := effectivePorts(ComponentFE, cfg.Content)
	return []client.Object{
		statefulSet(src, statefulSetInput{
			c:           ComponentFE,
			name:        src.FeStatefulSetName(),
			searchName:  src.FeSearchServiceName(),
			spec:        &spec.StarRocksComponentSpec,
			env:         spec.FeEnvVars,
			ports:       ports,
			healthPort:  portNamed(ports, fePortHTTP),
			feQueryPort: feServicePort(src, cfg.Content, fePortQuery),
			content:     cfg.Content,
		}),
		clientService(src, ComponentFE, src.FeServiceName(), ports, spec.Service),
		searchService(src, ComponentFE, src.FeSearchServiceName(), namedPort{fePortQuery, portNamed(ports, fePortQuery)}),
	}
}

// BE builds the backends: StatefulSet <n>-be, Service <n>-be-service and
// headless Service <n>-be-search (heartbeat port). cfg.Content is be.conf and
// cfg.FEContent fe.conf. It returns nil when the cluster has no BE spec, or no
// FE spec: backends can only join a cluster through its FE.
func BE(src *v1.StarRocksCluster, cfg Config) []client.Object {
	if src == nil || src.Spec.StarRocksBeSpec == nil || src.Spec.StarRocksFeSpec == nil {
		return nil
	}
	src = src.DeepCopy()
	spec := src.Spec.StarRocksBeSpec
	ports := effectivePorts(ComponentBE, cfg.Content)
	return []client.Object{
		statefulSet(src, statefulSetInput{
			c:           ComponentBE,
			name:        src.BeStatefulSetName(),
			searchName:  src.BeSearchServiceName(),
			spec:        &spec.StarRocksComponentSpec,
			env:         spec.BeEnvVars,
			ports:       ports,
			healthPort:  portNamed(ports, portWebserver),
			feQueryPort: feServicePort(src, cfg.FEContent, fePortQuery),
			content:     cfg.Content,
		}),
		clientService(src, ComponentBE, src.BeServiceName(), ports, spec.Service),
		searchService(src, ComponentBE, src.BeSearchServiceName(), namedPort{portHeartbeat, portNamed(ports, portHeartbeat)}),
	}
}

// CN builds the compute nodes: StatefulSet <n>-cn, Service <n>-cn-service,
// headless Service <n>-cn-search (heartbeat port) and, when autoScalingPolicy
// is set, HorizontalPodAutoscaler <n>-cn-autoscaler. cfg.Content is cn.conf
// and cfg.FEContent fe.conf. It returns nil when the cluster has no CN spec,
// or no FE spec.
//
// Contract with the apply layer: with autoScalingPolicy the HPA scales the CN
// StatefulSet directly, so the StatefulSet is returned with spec.replicas nil
// and the apply layer must leave the live replicas alone (with server-side
// apply, not sending the field does exactly that). Upstream's HPA targets the
// cluster's scale subresource instead; targeting the StatefulSet keeps the
// HPA's writes off the StarRocksCluster, so they don't trigger reconciles.
func CN(src *v1.StarRocksCluster, cfg Config) []client.Object {
	if src == nil || src.Spec.StarRocksCnSpec == nil || src.Spec.StarRocksFeSpec == nil {
		return nil
	}
	src = src.DeepCopy()
	spec := src.Spec.StarRocksCnSpec
	ports := effectivePorts(ComponentCN, cfg.Content)
	objs := []client.Object{
		statefulSet(src, statefulSetInput{
			c:            ComponentCN,
			name:         src.CnStatefulSetName(),
			searchName:   src.CnSearchServiceName(),
			spec:         &spec.StarRocksComponentSpec,
			env:          spec.CnEnvVars,
			ports:        ports,
			healthPort:   portNamed(ports, portWebserver),
			feQueryPort:  feServicePort(src, cfg.FEContent, fePortQuery),
			content:      cfg.Content,
			omitReplicas: spec.AutoScalingPolicy != nil,
		}),
		clientService(src, ComponentCN, src.CnServiceName(), ports, spec.Service),
		searchService(src, ComponentCN, src.CnSearchServiceName(), namedPort{portHeartbeat, portNamed(ports, portHeartbeat)}),
	}
	if spec.AutoScalingPolicy != nil {
		objs = append(objs, cnAutoscaler(src, spec.AutoScalingPolicy))
	}
	return objs
}
