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

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// MultiWarehouseEnv makes the CN entrypoint register its node in the named
// warehouse (creating it in FE when needed).
const MultiWarehouseEnv = "KUBE_STARROCKS_MULTI_WAREHOUSE"

// WarehouseConfig is what the warehouse builder needs beyond the specs.
type WarehouseConfig struct {
	// Content is the warehouse's cn.conf; FEContent the cluster's fe.conf.
	Content, FEContent string
	// MultiWarehouse is true when FE lists the multi-warehouse feature: only
	// then are the pods told their warehouse (KUBE_STARROCKS_MULTI_WAREHOUSE).
	MultiWarehouse bool
	// Live is what the live StatefulSet records of its cn.conf.
	Live ConfigState
}

// Warehouse builds a warehouse's compute nodes: StatefulSet
// <wh>-warehouse-cn, Services <wh>-warehouse-cn-service and
// <wh>-warehouse-cn-search, with autoScalingPolicy HPA
// <wh>-warehouse-cn-autoscaler and, when it may run more than one pod,
// PodDisruptionBudget <wh>-warehouse-cn-pdb (the cluster's CN rule). It is the CN builder with another owner:
// objects belong to the warehouse, pods join the cluster's FE, and the HPA
// scales the warehouse (its scale subresource), whose replicas the
// StatefulSet then follows. It returns nil without a template or FE spec.
func Warehouse(wh *srv1.StarRocksWarehouse, src *srv1.StarRocksCluster, cfg WarehouseConfig) *StatefulSetObjects {
	if wh == nil || wh.Spec.Template == nil || src == nil || src.Spec.StarRocksFeSpec == nil {
		return nil
	}
	tmpl := wh.Spec.Template.DeepCopy()
	env := tmpl.EnvVars
	if cfg.MultiWarehouse {
		env = append([]corev1.EnvVar{{Name: MultiWarehouseEnv, Value: strings.ReplaceAll(wh.Name, "-", "_")}}, env...)
	}
	// As a cluster, the warehouse is "<wh>-warehouse" with the cluster's FE and
	// only CN: the CN builder then names everything as upstream does. Its
	// annotations are the warehouse's: they turn its disruption budget off.
	as := src.DeepCopy()
	as.Name, as.UID, as.Annotations = wh.WarehouseComponentName(), wh.UID, wh.Annotations
	as.Spec.StarRocksBeSpec, as.Spec.StarRocksFeProxySpec = nil, nil
	// The policy decides the disruption budget; the HPA CN builds is replaced below.
	as.Spec.StarRocksCnSpec = &srv1.StarRocksCnSpec{StarRocksComponentSpec: tmpl.StarRocksComponentSpec, CnEnvVars: env, AutoScalingPolicy: tmpl.AutoScalingPolicy}
	objs := CN(as, Config{Content: cfg.Content, FEContent: cfg.FEContent, Live: cfg.Live})
	if objs == nil {
		return nil
	}
	owner := warehouseOwner(wh)
	for _, o := range objs.Objects() {
		o.SetOwnerReferences([]metav1.OwnerReference{owner})
	}
	sts := objs.StatefulSet
	// The HPA scales the warehouse, not the StatefulSet: replicas always come from the template.
	sts.Spec.Replicas = ptr.To(ptr.Deref(tmpl.Replicas, 1))
	main := &sts.Spec.Template.Spec.Containers[0]
	for i, e := range main.Env {
		if e.Name == "FE_SERVICE_NAME" && e.Value == as.FeServiceName() {
			main.Env[i].Value = src.FeServiceName() // the cluster's FE, in the same namespace
		}
	}
	if p := tmpl.AutoScalingPolicy; p != nil {
		objs.Autoscaler = warehouseAutoscaler(wh, as, p)
	}
	return objs
}

// WarehouseNamed returns every object a warehouse can have, with names only.
func WarehouseNamed(wh *srv1.StarRocksWarehouse) *StatefulSetObjects {
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: wh.Namespace, Name: name} }
	return &StatefulSetObjects{
		StatefulSet:      &appsv1.StatefulSet{ObjectMeta: meta(wh.CnStatefulSetName())},
		Service:          &corev1.Service{ObjectMeta: meta(wh.CnServiceName())},
		SearchService:    &corev1.Service{ObjectMeta: meta(wh.CnSearchServiceName())},
		Autoscaler:       &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: meta(wh.CnAutoscalerName())},
		DisruptionBudget: &policyv1.PodDisruptionBudget{ObjectMeta: meta(wh.CnDisruptionBudgetName())},
	}
}

// WarehouseSelectorLabels are the labels the warehouse's pods are selected by.
func WarehouseSelectorLabels(wh *srv1.StarRocksWarehouse) map[string]string {
	return SelectorLabels(&srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: wh.WarehouseComponentName()}}, ComponentCN)
}

// WarehouseClusterLabel is the ClusterLabel value of a warehouse's objects and pods.
func WarehouseClusterLabel(wh *srv1.StarRocksWarehouse) string {
	return labelValue(wh.WarehouseComponentName())
}

// FEServicePorts are the query (MySQL) and HTTP ports of the cluster's FE
// Service, with fe.conf and spec.service overrides applied.
func FEServicePorts(src *srv1.StarRocksCluster, feConf string) (query, http int32) {
	return feServicePort(src, feConf, fePortQuery), feServicePort(src, feConf, fePortHTTP)
}

func warehouseOwner(wh *srv1.StarRocksWarehouse) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         srv1.GroupVersion.String(),
		Kind:               "StarRocksWarehouse",
		Name:               wh.Name,
		UID:                wh.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}
}

// warehouseAutoscaler is the cluster CN autoscaler aimed at the warehouse's
// scale subresource, as upstream does.
func warehouseAutoscaler(wh *srv1.StarRocksWarehouse, as *srv1.StarRocksCluster, p *srv1.AutoScalingPolicy) *autoscalingv2.HorizontalPodAutoscaler {
	hpa := cnAutoscaler(as, p)
	hpa.OwnerReferences = []metav1.OwnerReference{warehouseOwner(wh)}
	hpa.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{
		APIVersion: srv1.GroupVersion.String(),
		Kind:       "StarRocksWarehouse",
		Name:       wh.Name,
	}
	return hpa
}
