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
	"fmt"
	"path"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// newCluster is a cluster "sr" in namespace "ns" with every component, all defaults.
func newCluster() *srv1.StarRocksCluster {
	return &srv1.StarRocksCluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: "starrocks.com/v1", Kind: "StarRocksCluster"},
		ObjectMeta: metav1.ObjectMeta{Name: "sr", Namespace: "ns", UID: "0b5a6c3e-uid"},
		Spec: srv1.StarRocksClusterSpec{
			StarRocksFeSpec:      &srv1.StarRocksFeSpec{},
			StarRocksBeSpec:      &srv1.StarRocksBeSpec{},
			StarRocksCnSpec:      &srv1.StarRocksCnSpec{},
			StarRocksFeProxySpec: &srv1.StarRocksFeProxySpec{},
		},
	}
}

// with returns newCluster changed by mutate.
func with(mutate func(*srv1.StarRocksCluster)) *srv1.StarRocksCluster {
	src := newCluster()
	if mutate != nil {
		mutate(src)
	}
	return src
}

// buildAll builds every component of src with the given configurations.
func buildAll(src *srv1.StarRocksCluster, cfgs map[Component]Config) []client.Object {
	var objs []client.Object
	objs = append(objs, FE(src, cfgs[ComponentFE]).Objects()...)
	objs = append(objs, BE(src, cfgs[ComponentBE]).Objects()...)
	objs = append(objs, CN(src, cfgs[ComponentCN]).Objects()...)
	objs = append(objs, FEProxy(src, cfgs[ComponentFEProxy]).Objects()...)
	return objs
}

// build runs the builder of c with cfg.
func build(src *srv1.StarRocksCluster, c Component, cfg Config) []client.Object {
	switch c {
	case ComponentFE:
		return FE(src, cfg).Objects()
	case ComponentBE:
		return BE(src, cfg).Objects()
	case ComponentCN:
		return CN(src, cfg).Objects()
	case ComponentFEProxy:
		return FEProxy(src, cfg).Objects()
	}
	panic("unknown component " + c)
}

// find is the object of type T called name.
func find[T client.Object](t *testing.T, objs []client.Object, name string) T {
	t.Helper()
	for _, o := range objs {
		if v, ok := o.(T); ok && o.GetName() == name {
			return v
		}
	}
	var zero T
	t.Fatalf("no %T named %q among %d objects", zero, name, len(objs))
	return zero
}

// statefulSetName is the StatefulSet of a StarRocks component.
func statefulSetName(src *srv1.StarRocksCluster, c Component) string {
	switch c {
	case ComponentFE:
		return src.FeStatefulSetName()
	case ComponentBE:
		return src.BeStatefulSetName()
	case ComponentCN:
		return src.CnStatefulSetName()
	}
	panic("no StatefulSet for " + c)
}

// sts builds component c of src and returns its StatefulSet.
func sts(t *testing.T, src *srv1.StarRocksCluster, c Component, cfg Config) *appsv1.StatefulSet {
	t.Helper()
	return find[*appsv1.StatefulSet](t, build(src, c, cfg), statefulSetName(src, c))
}

// mainOf is the first container of a StatefulSet's pods.
func mainOf(s *appsv1.StatefulSet) corev1.Container {
	return s.Spec.Template.Spec.Containers[0]
}

func envValue(c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

func servicePort(svc *corev1.Service, name string) (corev1.ServicePort, bool) {
	for _, p := range svc.Spec.Ports {
		if p.Name == name {
			return p, true
		}
	}
	return corev1.ServicePort{}, false
}

func volumeNamed(spec corev1.PodSpec, name string) (corev1.Volume, bool) {
	for _, v := range spec.Volumes {
		if v.Name == name {
			return v, true
		}
	}
	return corev1.Volume{}, false
}

func mountAt(c corev1.Container, mountPath string) (corev1.VolumeMount, bool) {
	for _, m := range c.VolumeMounts {
		if m.MountPath == mountPath {
			return m, true
		}
	}
	return corev1.VolumeMount{}, false
}

func claimNamed(s *appsv1.StatefulSet, name string) (corev1.PersistentVolumeClaim, bool) {
	for _, c := range s.Spec.VolumeClaimTemplates {
		if c.Name == name {
			return c, true
		}
	}
	return corev1.PersistentVolumeClaim{}, false
}

// validate returns what the API server (or a careful reviewer) would reject in o.
func validate(o client.Object) []string {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	gvk := o.GetObjectKind().GroupVersionKind()
	if gvk.Version == "" || gvk.Kind == "" {
		add("TypeMeta not set")
	}
	name := o.GetName()
	if name == "" {
		add("empty name")
	}
	for _, e := range validation.IsDNS1123Subdomain(name) {
		add("name %q: %s", name, e)
	}
	if o.GetNamespace() == "" {
		add("empty namespace")
	}
	for k, v := range o.GetLabels() {
		for _, e := range validation.IsQualifiedName(k) {
			add("label key %q: %s", k, e)
		}
		for _, e := range validation.IsValidLabelValue(v) {
			add("label %s=%q: %s", k, v, e)
		}
	}
	refs := o.GetOwnerReferences()
	if len(refs) != 1 || refs[0].Controller == nil || !*refs[0].Controller {
		add("want exactly one controller owner reference, got %v", refs)
	}
	if ts := o.GetCreationTimestamp(); o.GetResourceVersion() != "" || !ts.IsZero() {
		add("resourceVersion or creationTimestamp set")
	}

	switch obj := o.(type) {
	case *appsv1.StatefulSet:
		errs = append(errs, validatePodTemplate(obj.Spec.Selector, obj.Spec.Template, obj.Spec.VolumeClaimTemplates)...)
		if obj.Spec.ServiceName == "" {
			add("StatefulSet without serviceName")
		}
	case *appsv1.Deployment:
		errs = append(errs, validatePodTemplate(obj.Spec.Selector, obj.Spec.Template, nil)...)
	case *corev1.Service:
		for _, e := range validation.IsDNS1123Label(name) {
			add("Service name %q: %s", name, e)
		}
		if len(obj.Spec.Selector) == 0 {
			add("Service without selector")
		}
		seen := map[string]bool{}
		for _, p := range obj.Spec.Ports {
			if seen[p.Name] {
				add("duplicate Service port %q", p.Name)
			}
			seen[p.Name] = true
			for _, e := range validation.IsValidPortName(p.Name) {
				add("Service port name %q: %s", p.Name, e)
			}
			if p.Port < 1 || p.Port > 65535 {
				add("Service port %q: number %d", p.Name, p.Port)
			}
			if p.NodePort != 0 && obj.Spec.Type != corev1.ServiceTypeNodePort && obj.Spec.Type != corev1.ServiceTypeLoadBalancer {
				add("nodePort on a %s Service", obj.Spec.Type)
			}
		}
		if len(obj.Spec.Ports) == 0 {
			add("Service without ports")
		}
	case *autoscalingv2.HorizontalPodAutoscaler:
		if obj.Spec.MinReplicas != nil && *obj.Spec.MinReplicas > obj.Spec.MaxReplicas {
			add("HPA minReplicas > maxReplicas")
		}
		if obj.Spec.MaxReplicas < 1 {
			add("HPA maxReplicas < 1")
		}
	case *policyv1.PodDisruptionBudget:
		if obj.Spec.Selector == nil || len(obj.Spec.Selector.MatchLabels) == 0 {
			add("PodDisruptionBudget without selector")
		}
		if obj.Spec.MinAvailable != nil || obj.Spec.MaxUnavailable == nil {
			add("PodDisruptionBudget without maxUnavailable alone")
		} else if n, err := intstr.GetScaledValueFromIntOrPercent(obj.Spec.MaxUnavailable, 100, true); err != nil || n < 1 || n > 100 {
			add("PodDisruptionBudget maxUnavailable %s allows no eviction or cannot be read", obj.Spec.MaxUnavailable.String())
		}
	case *corev1.ConfigMap:
		for k := range obj.Data {
			for _, e := range validation.IsConfigMapKey(k) {
				add("ConfigMap key %q: %s", k, e)
			}
		}
	default:
		add("unexpected object type %T", o)
	}
	return errs
}

func validatePodTemplate(selector *metav1.LabelSelector, tpl corev1.PodTemplateSpec, claims []corev1.PersistentVolumeClaim) []string {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	if selector == nil || len(selector.MatchLabels) == 0 {
		add("empty selector")
	} else {
		for k, v := range selector.MatchLabels {
			if tpl.Labels[k] != v {
				add("selector %s=%s does not match the template's labels", k, v)
			}
		}
	}
	volumes := map[string]bool{}
	claimVolumes := map[string]bool{} // pod volumes the StatefulSet controller replaces with a claim
	for _, v := range tpl.Spec.Volumes {
		if volumes[v.Name] {
			add("duplicate volume %q", v.Name)
		}
		volumes[v.Name] = true
		if pvc := v.PersistentVolumeClaim; pvc != nil && pvc.ClaimName == v.Name {
			claimVolumes[v.Name] = true
		}
		for _, e := range validation.IsDNS1123Label(v.Name) {
			add("volume name %q: %s", v.Name, e)
		}
	}
	claimed := map[string]bool{}
	for _, c := range claims {
		if (volumes[c.Name] && !claimVolumes[c.Name]) || claimed[c.Name] {
			add("claim template %q has the name of a volume or another claim", c.Name)
		}
		claimed[c.Name] = true
		volumes[c.Name] = true
		for _, e := range validation.IsDNS1123Label(c.Name) {
			add("claim template name %q: %s", c.Name, e)
		}
		if _, ok := c.Spec.Resources.Requests[corev1.ResourceStorage]; !ok {
			add("claim template %q without a storage request", c.Name)
		}
	}
	containers := map[string]bool{}
	all := append(append([]corev1.Container(nil), tpl.Spec.InitContainers...), tpl.Spec.Containers...)
	if len(tpl.Spec.Containers) == 0 {
		add("no containers")
	}
	for _, c := range all {
		if containers[c.Name] {
			add("duplicate container %q", c.Name)
		}
		containers[c.Name] = true
		for _, e := range validation.IsDNS1123Label(c.Name) {
			add("container name %q: %s", c.Name, e)
		}
		if c.Image == "" {
			add("container %q without image", c.Name)
		}
		paths := map[string]bool{}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] {
				add("container %q mounts unknown volume %q", c.Name, m.Name)
			}
			p := path.Clean(m.MountPath)
			if paths[p] {
				add("container %q mounts twice at %s", c.Name, p)
			}
			paths[p] = true
		}
		ports := map[string]bool{}
		for _, p := range c.Ports {
			for _, e := range validation.IsValidPortName(p.Name) {
				add("container %q port name %q: %s", c.Name, p.Name, e)
			}
			if ports[p.Name] {
				add("container %q: duplicate port %q", c.Name, p.Name)
			}
			ports[p.Name] = true
		}
		envs := map[string]bool{}
		for _, e := range c.Env {
			if envs[e.Name] {
				add("container %q: duplicate env %q", c.Name, e.Name)
			}
			envs[e.Name] = true
		}
	}
	return errs
}
