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
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// Components lists every component in the order the operator writes them:
// FE first, since BE, CN and the FE proxy join the cluster through it.
var Components = []Component{ComponentFE, ComponentBE, ComponentCN, ComponentFEProxy}

// StatefulSetObjects are the objects of FE, BE or CN: a StatefulSet, its
// client Service and its headless search Service, for CN under an
// autoscaling policy a HorizontalPodAutoscaler, and for more than one pod a
// PodDisruptionBudget.
type StatefulSetObjects struct {
	StatefulSet   *appsv1.StatefulSet
	Service       *corev1.Service
	SearchService *corev1.Service
	// Autoscaler is set for CN with autoScalingPolicy only.
	Autoscaler *autoscalingv2.HorizontalPodAutoscaler
	// DisruptionBudget is set when the component may run more than one pod
	// and the cluster does not turn it off (see pdb.go).
	DisruptionBudget *policyv1.PodDisruptionBudget
}

// Objects returns the set's objects, workload first; none for a nil set.
func (o *StatefulSetObjects) Objects() []client.Object {
	if o == nil {
		return nil
	}
	var objs []client.Object
	objs = appendIf(objs, o.StatefulSet != nil, o.StatefulSet)
	objs = appendIf(objs, o.Service != nil, o.Service)
	objs = appendIf(objs, o.SearchService != nil, o.SearchService)
	objs = appendIf(objs, o.Autoscaler != nil, o.Autoscaler)
	return appendIf(objs, o.DisruptionBudget != nil, o.DisruptionBudget)
}

// FEProxyObjects are the objects of the FE proxy: nginx.conf, the nginx
// Deployment and its Service.
type FEProxyObjects struct {
	ConfigMap  *corev1.ConfigMap
	Deployment *appsv1.Deployment
	Service    *corev1.Service
}

// Objects returns the set's objects; none for a nil set.
func (o *FEProxyObjects) Objects() []client.Object {
	if o == nil {
		return nil
	}
	var objs []client.Object
	objs = appendIf(objs, o.ConfigMap != nil, o.ConfigMap)
	objs = appendIf(objs, o.Deployment != nil, o.Deployment)
	return appendIf(objs, o.Service != nil, o.Service)
}

// ClusterObjects holds every component's objects. A nil field is a component
// the cluster does not have.
type ClusterObjects struct {
	FE, BE, CN *StatefulSetObjects
	FEProxy    *FEProxyObjects
}

// Configs are the .conf files of FE, BE and CN (empty when a component has no
// configMapInfo), what their live workloads record of them, and the
// operator-wide options.
type Configs struct {
	FE, BE, CN string
	// Live holds, per component, what its live workload records (see ConfigState).
	Live    map[Component]ConfigState
	Options Options
}

// Build returns the desired objects of every component the spec asks for.
// BE, CN and the FE proxy reach FE through its Service, so they read FE's
// ports from its .conf.
func Build(src *srv1.StarRocksCluster, cfg Configs) ClusterObjects {
	return ClusterObjects{
		FE:      FE(src, Config{Content: cfg.FE, Live: cfg.Live[ComponentFE], Options: cfg.Options}),
		BE:      BE(src, Config{Content: cfg.BE, FEContent: cfg.FE, Live: cfg.Live[ComponentBE], Options: cfg.Options}),
		CN:      CN(src, Config{Content: cfg.CN, FEContent: cfg.FE, Live: cfg.Live[ComponentCN], Options: cfg.Options}),
		FEProxy: FEProxy(src, Config{FEContent: cfg.FE, Live: cfg.Live[ComponentFEProxy], Options: cfg.Options}),
	}
}

// Named returns every object each component can have, with names and the
// cluster as controller only: what to look for when a component, or part of
// one, is no longer wanted (an object of the name another owner controls is
// not the cluster's to delete).
func Named(src *srv1.StarRocksCluster) ClusterObjects {
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: src.Namespace, Name: name, OwnerReferences: []metav1.OwnerReference{ownerReference(src)}}
	}
	workload := func(sts, svc, search, pdb string) *StatefulSetObjects {
		return &StatefulSetObjects{
			StatefulSet:      &appsv1.StatefulSet{ObjectMeta: meta(sts)},
			Service:          &corev1.Service{ObjectMeta: meta(svc)},
			SearchService:    &corev1.Service{ObjectMeta: meta(search)},
			DisruptionBudget: &policyv1.PodDisruptionBudget{ObjectMeta: meta(pdb)},
		}
	}
	cn := workload(src.CnStatefulSetName(), src.CnServiceName(), src.CnSearchServiceName(), src.CnDisruptionBudgetName())
	cn.Autoscaler = &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: meta(src.CnAutoscalerName())}
	return ClusterObjects{
		FE: workload(src.FeStatefulSetName(), src.FeServiceName(), src.FeSearchServiceName(), src.FeDisruptionBudgetName()),
		BE: workload(src.BeStatefulSetName(), src.BeServiceName(), src.BeSearchServiceName(), src.BeDisruptionBudgetName()),
		CN: cn,
		FEProxy: &FEProxyObjects{
			ConfigMap:  &corev1.ConfigMap{ObjectMeta: meta(src.FeProxyConfigMapName())},
			Deployment: &appsv1.Deployment{ObjectMeta: meta(src.FeProxyDeploymentName())},
			Service:    &corev1.Service{ObjectMeta: meta(src.FeProxyServiceName())},
		},
	}
}

// StatefulSetName is the name of a component's StatefulSet, as Named gives
// it without building every object; "" for the FE proxy, which has none.
func StatefulSetName(src *srv1.StarRocksCluster, c Component) string {
	switch c {
	case ComponentFE:
		return src.FeStatefulSetName()
	case ComponentBE:
		return src.BeStatefulSetName()
	case ComponentCN:
		return src.CnStatefulSetName()
	}
	return ""
}

// Of returns the objects of one component; none when the cluster lacks it.
func (c ClusterObjects) Of(component Component) []client.Object {
	if component == ComponentFEProxy {
		return c.FEProxy.Objects()
	}
	return c.statefulSetObjects(component).Objects()
}

// StatefulSet returns the StatefulSet of FE, BE or CN; nil when there is none.
func (c ClusterObjects) StatefulSet(component Component) *appsv1.StatefulSet {
	if set := c.statefulSetObjects(component); set != nil {
		return set.StatefulSet
	}
	return nil
}

// Service returns the client Service of a component; nil when there is none.
func (c ClusterObjects) Service(component Component) *corev1.Service {
	if component == ComponentFEProxy {
		if c.FEProxy == nil {
			return nil
		}
		return c.FEProxy.Service
	}
	if set := c.statefulSetObjects(component); set != nil {
		return set.Service
	}
	return nil
}

// Workload returns the objects of FE, BE or CN; nil when there are none.
func (c ClusterObjects) Workload(component Component) *StatefulSetObjects {
	return c.statefulSetObjects(component)
}

func (c ClusterObjects) statefulSetObjects(component Component) *StatefulSetObjects {
	switch component {
	case ComponentFE:
		return c.FE
	case ComponentBE:
		return c.BE
	case ComponentCN:
		return c.CN
	}
	return nil
}

// LoadSpec returns the spec fields every component has (replicas, image,
// configMapInfo, ...); nil when the cluster does not have the component.
func LoadSpec(src *srv1.StarRocksCluster, c Component) *srv1.StarRocksLoadSpec {
	s := src.Spec
	switch {
	case c == ComponentFE && s.StarRocksFeSpec != nil:
		return &s.StarRocksFeSpec.StarRocksLoadSpec
	case c == ComponentBE && s.StarRocksBeSpec != nil:
		return &s.StarRocksBeSpec.StarRocksLoadSpec
	case c == ComponentCN && s.StarRocksCnSpec != nil:
		return &s.StarRocksCnSpec.StarRocksLoadSpec
	case c == ComponentFEProxy && s.StarRocksFeProxySpec != nil:
		return &s.StarRocksFeProxySpec.StarRocksLoadSpec
	}
	return nil
}

// Title is the component's name in messages: FE, BE, CN, FE proxy.
func (c Component) Title() string {
	if c == ComponentFEProxy {
		return "FE proxy"
	}
	return strings.ToUpper(string(c))
}

// appendIf appends o when present: a nil pointer would become a non-nil
// client.Object, so presence is tested on the typed field.
func appendIf(objs []client.Object, present bool, o client.Object) []client.Object {
	if !present {
		return objs
	}
	return append(objs, o)
}

// FE builds the frontends: StatefulSet <n>-fe, Service <n>-fe-service,
// headless Service <n>-fe-search (query port) and, for more than one pod,
// PodDisruptionBudget <n>-fe-pdb. cfg.Content is fe.conf. It
// returns nil when the cluster has no FE spec.
func FE(src *srv1.StarRocksCluster, cfg Config) *StatefulSetObjects {
	if src == nil || src.Spec.StarRocksFeSpec == nil {
		return nil
	}
	src = src.DeepCopy() // the objects must not share memory with the caller's cluster
	spec := src.Spec.StarRocksFeSpec
	ports := effectivePorts(ComponentFE, cfg.Content)
	return &StatefulSetObjects{
		StatefulSet: statefulSet(src, statefulSetInput{
			c:           ComponentFE,
			name:        src.FeStatefulSetName(),
			searchName:  src.FeSearchServiceName(),
			spec:        &spec.StarRocksComponentSpec,
			env:         spec.FeEnvVars,
			ports:       ports,
			healthPort:  portNamed(ports, fePortHTTP),
			feQueryPort: feServicePort(src, cfg.Content, fePortQuery),
			cfg:         cfg,
		}),
		Service:          clientService(src, ComponentFE, src.FeServiceName(), ports, spec.Service),
		SearchService:    searchService(src, ComponentFE, src.FeSearchServiceName(), namedPort{name: "query-port", port: portNamed(ports, fePortQuery)}),
		DisruptionBudget: DisruptionBudget(src, ComponentFE, ptr.Deref(spec.Replicas, 1)),
	}
}

// BE builds the backends: StatefulSet <n>-be, Service <n>-be-service,
// headless Service <n>-be-search (heartbeat port) and, for more than one
// pod, PodDisruptionBudget <n>-be-pdb. cfg.Content is be.conf and
// cfg.FEContent fe.conf. It returns nil when the cluster has no BE spec, or no
// FE spec: backends can only join a cluster through its FE.
func BE(src *srv1.StarRocksCluster, cfg Config) *StatefulSetObjects {
	if src == nil || src.Spec.StarRocksBeSpec == nil || src.Spec.StarRocksFeSpec == nil {
		return nil
	}
	src = src.DeepCopy()
	spec := src.Spec.StarRocksBeSpec
	ports := effectivePorts(ComponentBE, cfg.Content)
	return &StatefulSetObjects{
		StatefulSet: statefulSet(src, statefulSetInput{
			c:           ComponentBE,
			name:        src.BeStatefulSetName(),
			searchName:  src.BeSearchServiceName(),
			spec:        &spec.StarRocksComponentSpec,
			env:         spec.BeEnvVars,
			ports:       ports,
			healthPort:  portNamed(ports, portWebserver),
			feQueryPort: feServicePort(src, cfg.FEContent, fePortQuery),
			cfg:         cfg,
		}),
		Service:          clientService(src, ComponentBE, src.BeServiceName(), ports, spec.Service),
		SearchService:    searchService(src, ComponentBE, src.BeSearchServiceName(), namedPort{name: portHeartbeat, port: portNamed(ports, portHeartbeat)}),
		DisruptionBudget: DisruptionBudget(src, ComponentBE, ptr.Deref(spec.Replicas, 1)),
	}
}

// CN builds the compute nodes: StatefulSet <n>-cn, Service <n>-cn-service,
// headless Service <n>-cn-search (heartbeat port), when autoScalingPolicy
// is set, HorizontalPodAutoscaler <n>-cn-autoscaler and, when it may run
// more than one pod, PodDisruptionBudget <n>-cn-pdb. cfg.Content is cn.conf
// and cfg.FEContent fe.conf. It returns nil when the cluster has no CN spec,
// or no FE spec.
//
// With autoScalingPolicy the HPA scales the cluster's scale subresource
// (spec.starRocksCnSpec.replicas), as the upstream's does, and the StatefulSet
// follows the spec.
func CN(src *srv1.StarRocksCluster, cfg Config) *StatefulSetObjects {
	if src == nil || src.Spec.StarRocksCnSpec == nil || src.Spec.StarRocksFeSpec == nil {
		return nil
	}
	src = src.DeepCopy()
	spec := src.Spec.StarRocksCnSpec
	ports := effectivePorts(ComponentCN, cfg.Content)
	objs := &StatefulSetObjects{
		StatefulSet: statefulSet(src, statefulSetInput{
			c:           ComponentCN,
			name:        src.CnStatefulSetName(),
			searchName:  src.CnSearchServiceName(),
			spec:        &spec.StarRocksComponentSpec,
			env:         spec.CnEnvVars,
			ports:       ports,
			healthPort:  portNamed(ports, portWebserver),
			feQueryPort: feServicePort(src, cfg.FEContent, fePortQuery),
			cfg:         cfg,
		}),
		Service: clientService(src, ComponentCN, src.CnServiceName(), ports, spec.Service),
		// The brpc port besides the upstream's heartbeat port: the one named
		// difference from the upstream's Services (upstream #736: without it
		// CNs were seen to reach each other by stale node IPs).
		SearchService: searchService(src, ComponentCN, src.CnSearchServiceName(),
			namedPort{name: portHeartbeat, port: portNamed(ports, portHeartbeat)}, namedPort{name: portBrpc, port: portNamed(ports, portBrpc)}),
		DisruptionBudget: DisruptionBudget(src, ComponentCN, ptr.Deref(spec.Replicas, 1)),
	}
	if spec.AutoScalingPolicy != nil {
		objs.Autoscaler = cnAutoscaler(src, spec.AutoScalingPolicy)
	}
	return objs
}

// ComponentSpec returns the spec of FE, BE or CN (storage, configMaps,
// command, ...); nil for the FE proxy or a component the cluster lacks.
func ComponentSpec(src *srv1.StarRocksCluster, c Component) *srv1.StarRocksComponentSpec {
	s := src.Spec
	switch {
	case c == ComponentFE && s.StarRocksFeSpec != nil:
		return &s.StarRocksFeSpec.StarRocksComponentSpec
	case c == ComponentBE && s.StarRocksBeSpec != nil:
		return &s.StarRocksBeSpec.StarRocksComponentSpec
	case c == ComponentCN && s.StarRocksCnSpec != nil:
		return &s.StarRocksCnSpec.StarRocksComponentSpec
	}
	return nil
}
