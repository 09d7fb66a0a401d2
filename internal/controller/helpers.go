package controller

import (
	"iter"
	"maps"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func feConfig(src *srv1.StarRocksCluster) *srv1.ConfigMapInfo {
	if s := src.Spec.StarRocksFeSpec; s != nil {
		return &s.ConfigMapInfo
	}
	return nil
}

func beConfig(src *srv1.StarRocksCluster) *srv1.ConfigMapInfo {
	if s := src.Spec.StarRocksBeSpec; s != nil {
		return &s.ConfigMapInfo
	}
	return nil
}

func cnConfig(src *srv1.StarRocksCluster) *srv1.ConfigMapInfo {
	if s := src.Spec.StarRocksCnSpec; s != nil {
		return &s.ConfigMapInfo
	}
	return nil
}

func childMeta(src *srv1.StarRocksCluster, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: src.Namespace, Name: name}
}

// The objects of a removed component, by name: what DeleteAll looks for.
func beObjects(src *srv1.StarRocksCluster) []client.Object {
	return []client.Object{
		&appsv1.StatefulSet{ObjectMeta: childMeta(src, src.BeStatefulSetName())},
		&corev1.Service{ObjectMeta: childMeta(src, src.BeServiceName())},
		&corev1.Service{ObjectMeta: childMeta(src, src.BeSearchServiceName())},
	}
}

func cnObjects(src *srv1.StarRocksCluster) []client.Object {
	return []client.Object{
		&appsv1.StatefulSet{ObjectMeta: childMeta(src, src.CnStatefulSetName())},
		&corev1.Service{ObjectMeta: childMeta(src, src.CnServiceName())},
		&corev1.Service{ObjectMeta: childMeta(src, src.CnSearchServiceName())},
		&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: childMeta(src, src.CnAutoscalerName())},
	}
}

func feProxyObjects(src *srv1.StarRocksCluster) []client.Object {
	return []client.Object{
		&appsv1.Deployment{ObjectMeta: childMeta(src, src.FeProxyDeploymentName())},
		&corev1.Service{ObjectMeta: childMeta(src, src.FeProxyServiceName())},
		&corev1.ConfigMap{ObjectMeta: childMeta(src, src.FeProxyConfigMapName())},
	}
}

func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// labelsString renders a selector as the scale subresource expects: k=v,k=v, sorted.
func labelsString(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func mapsKeys[V any](m map[string]V) iter.Seq[string] { return maps.Keys(m) }
