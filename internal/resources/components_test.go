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
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func kindsAndNames(objs []client.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetObjectKind().GroupVersionKind().Kind+"/"+o.GetName())
	}
	return out
}

func TestEachComponentBuildsItsObjects(t *testing.T) {
	autoscaled := with(func(src *srv1.StarRocksCluster) {
		src.Spec.StarRocksCnSpec.AutoScalingPolicy = &srv1.AutoScalingPolicy{MaxReplicas: 3}
	})
	tests := []struct {
		name string
		src  *srv1.StarRocksCluster
		c    Component
		want []string
	}{
		{"FE makes a StatefulSet, a Service and a headless Service", newCluster(), ComponentFE,
			[]string{"StatefulSet/sr-fe", "Service/sr-fe-service", "Service/sr-fe-search"}},
		{"BE makes a StatefulSet, a Service and a headless Service", newCluster(), ComponentBE,
			[]string{"StatefulSet/sr-be", "Service/sr-be-service", "Service/sr-be-search"}},
		{"CN without autoscaling makes no HPA", newCluster(), ComponentCN,
			[]string{"StatefulSet/sr-cn", "Service/sr-cn-service", "Service/sr-cn-search"}},
		{"CN with autoscaling to 3 pods adds the HPA and a disruption budget", autoscaled, ComponentCN,
			[]string{"StatefulSet/sr-cn", "Service/sr-cn-service", "Service/sr-cn-search", "HorizontalPodAutoscaler/sr-cn-autoscaler", "PodDisruptionBudget/sr-cn-pdb"}},
		{"FE of 3 pods adds a disruption budget", with(func(src *srv1.StarRocksCluster) { src.Spec.StarRocksFeSpec.Replicas = ptr.To[int32](3) }), ComponentFE,
			[]string{"StatefulSet/sr-fe", "Service/sr-fe-service", "Service/sr-fe-search", "PodDisruptionBudget/sr-fe-pdb"}},
		{"FE proxy makes a ConfigMap, a Deployment and a Service", newCluster(), ComponentFEProxy,
			[]string{"ConfigMap/sr-fe-proxy", "Deployment/sr-fe-proxy", "Service/sr-fe-proxy-service"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := kindsAndNames(build(tt.src, tt.c, Config{}))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// What Named lists is what the controller deletes when a component goes: it
// must name every object a builder can make, and nothing else.
func TestNamedListsEveryObjectEachComponentCanHave(t *testing.T) {
	src := with(func(src *srv1.StarRocksCluster) {
		src.Spec.StarRocksCnSpec.AutoScalingPolicy = &srv1.AutoScalingPolicy{MaxReplicas: 3}
		src.Spec.StarRocksFeSpec.Replicas, src.Spec.StarRocksBeSpec.Replicas = ptr.To[int32](3), ptr.To[int32](3)
	})
	built, named := Build(src, Configs{}), Named(src)
	for _, c := range Components {
		var want, got []string
		for _, o := range built.Of(c) {
			want = append(want, o.GetName())
		}
		for _, o := range named.Of(c) {
			if o.GetNamespace() != src.Namespace {
				t.Errorf("%s: %s in namespace %q", c, o.GetName(), o.GetNamespace())
			}
			got = append(got, o.GetName())
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Named lists %v, the builder makes %v", c, got, want)
		}
		if s := built.StatefulSet(c); (s != nil) != (c != ComponentFEProxy) {
			t.Errorf("%s: StatefulSet() = %v", c, s)
		}
	}
}

func TestObjectsCarryTypeMetaNamespaceLabelsAndOwner(t *testing.T) {
	src := with(func(src *srv1.StarRocksCluster) {
		src.Spec.StarRocksCnSpec.AutoScalingPolicy = &srv1.AutoScalingPolicy{MaxReplicas: 3}
	})
	wantAPIVersion := map[string]string{
		"StatefulSet": "apps/v1", "Deployment": "apps/v1", "Service": "v1", "ConfigMap": "v1",
		"HorizontalPodAutoscaler": "autoscaling/v2", "PodDisruptionBudget": "policy/v1",
	}
	for _, c := range []Component{ComponentFE, ComponentBE, ComponentCN, ComponentFEProxy} {
		for _, o := range build(src, c, Config{Content: "http_port = 8030"}) {
			t.Run(fmt.Sprintf("%s %s", c, o.GetName()), func(t *testing.T) {
				gvk := o.GetObjectKind().GroupVersionKind()
				if got := gvk.GroupVersion().String(); got != wantAPIVersion[gvk.Kind] {
					t.Errorf("apiVersion %q for kind %q", got, gvk.Kind)
				}
				if o.GetNamespace() != "ns" {
					t.Errorf("namespace %q", o.GetNamespace())
				}
				if !reflect.DeepEqual(o.GetLabels(), Labels(src, c)) {
					t.Errorf("labels %v, want %v", o.GetLabels(), Labels(src, c))
				}
				refs := o.GetOwnerReferences()
				if len(refs) != 1 {
					t.Fatalf("owner references %v", refs)
				}
				r := refs[0]
				if r.APIVersion != "starrocks.com/v1" || r.Kind != "StarRocksCluster" || r.Name != "sr" || r.UID != src.UID ||
					!ptr.Deref(r.Controller, false) || !ptr.Deref(r.BlockOwnerDeletion, false) {
					t.Errorf("owner reference %+v", r)
				}
				for k := range o.GetAnnotations() {
					if k != ConfigHashAnnotation {
						t.Errorf("unexpected object annotation %s", k)
					}
				}
				if errs := validate(o); len(errs) > 0 {
					t.Errorf("invalid: %v", errs)
				}
			})
		}
	}
}

func TestMissingSpecsBuildNothing(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*srv1.StarRocksCluster)
		c      Component
	}{
		{"nil FE spec builds no FE", func(s *srv1.StarRocksCluster) { s.Spec.StarRocksFeSpec = nil }, ComponentFE},
		{"nil BE spec builds no BE", func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec = nil }, ComponentBE},
		{"nil CN spec builds no CN", func(s *srv1.StarRocksCluster) { s.Spec.StarRocksCnSpec = nil }, ComponentCN},
		{"nil FE proxy spec builds no proxy", func(s *srv1.StarRocksCluster) { s.Spec.StarRocksFeProxySpec = nil }, ComponentFEProxy},
		{"nil FE spec builds no BE", func(s *srv1.StarRocksCluster) { s.Spec.StarRocksFeSpec = nil }, ComponentBE},
		{"nil FE spec builds no CN", func(s *srv1.StarRocksCluster) { s.Spec.StarRocksFeSpec = nil }, ComponentCN},
		{"nil FE spec builds no proxy", func(s *srv1.StarRocksCluster) { s.Spec.StarRocksFeSpec = nil }, ComponentFEProxy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := build(with(tt.mutate), tt.c, Config{}); got != nil {
				t.Errorf("got %v, want nil", kindsAndNames(got))
			}
		})
	}
	t.Run("nil cluster builds nothing", func(t *testing.T) {
		for _, c := range []Component{ComponentFE, ComponentBE, ComponentCN, ComponentFEProxy} {
			if got := build(nil, c, Config{}); got != nil {
				t.Errorf("%s: got %v", c, kindsAndNames(got))
			}
		}
	})
}

// richCluster sets a map-valued field wherever the spec has one, filling each
// map in the given key order.
func richCluster(keys []string) *srv1.StarRocksCluster {
	m := func() map[string]string {
		out := map[string]string{}
		for _, k := range keys {
			out[k] = "v-" + k
		}
		return out
	}
	return with(func(src *srv1.StarRocksCluster) {
		for _, comp := range []*srv1.StarRocksComponentSpec{
			&src.Spec.StarRocksFeSpec.StarRocksComponentSpec,
			&src.Spec.StarRocksBeSpec.StarRocksComponentSpec,
			&src.Spec.StarRocksCnSpec.StarRocksComponentSpec,
		} {
			comp.Annotations = m()
			comp.PodLabels = m()
			comp.NodeSelector = m()
			comp.Service = &srv1.StarRocksService{Annotations: m(), Labels: m()}
			comp.ConfigMaps = []srv1.ConfigMapReference{{Name: "extra", MountPath: "/etc/extra"}}
			comp.StorageVolumes = []srv1.StorageVolume{{Name: "data", StorageSize: "1Gi", MountPath: "/data"}}
		}
		p := &src.Spec.StarRocksFeProxySpec.StarRocksLoadSpec
		p.Annotations, p.PodLabels, p.NodeSelector = m(), m(), m()
		p.Service = &srv1.StarRocksService{Annotations: m(), Labels: m()}
		src.Spec.StarRocksCnSpec.AutoScalingPolicy = &srv1.AutoScalingPolicy{MaxReplicas: 4}
	})
}

func TestBuildingIsDeterministic(t *testing.T) {
	cfgs := map[Component]Config{
		ComponentFE: {Content: "http_port = 8031"},
		ComponentBE: {Content: "be_port = 9061", FEContent: "query_port = 9031"},
		ComponentCN: {Content: "thrift_port = 9062", FEContent: "query_port = 9031"},
	}
	t.Run("building twice gives deep-equal objects", func(t *testing.T) {
		src := richCluster([]string{"a", "b", "c", "d"})
		first, second := buildAll(src, cfgs), buildAll(src, cfgs)
		if !equality.Semantic.DeepEqual(first, second) {
			t.Error("two builds differ")
		}
	})
	t.Run("maps filled in a different order give equal output", func(t *testing.T) {
		a := buildAll(richCluster([]string{"a", "b", "c", "d", "e", "f"}), cfgs)
		b := buildAll(richCluster([]string{"f", "e", "d", "c", "b", "a"}), cfgs)
		if !equality.Semantic.DeepEqual(a, b) {
			t.Error("builds differ")
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Error("serialised builds differ")
		}
	})
	t.Run("building leaves the cluster unchanged", func(t *testing.T) {
		src := richCluster([]string{"a", "b"})
		before := src.DeepCopy()
		buildAll(src, cfgs)
		if !equality.Semantic.DeepEqual(src, before) {
			t.Error("the builders changed their input")
		}
	})
	t.Run("objects share no memory with the cluster", func(t *testing.T) {
		src := richCluster([]string{"a", "b"})
		before := src.DeepCopy()
		for _, o := range buildAll(src, cfgs) {
			switch obj := o.(type) {
			case *appsv1.StatefulSet:
				obj.Spec.Template.Spec.NodeSelector["a"] = "changed"
				obj.Spec.Template.Annotations["a"] = "changed"
			case *appsv1.Deployment:
				obj.Spec.Template.Spec.NodeSelector["a"] = "changed"
			case *corev1.Service:
				if obj.Annotations != nil {
					obj.Annotations["a"] = "changed"
				}
			}
		}
		if !equality.Semantic.DeepEqual(src, before) {
			t.Error("changing a built object changed the cluster")
		}
	})
}

func TestStatefulSetNameIsNamedsName(t *testing.T) {
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sr"}}
	named := Named(src)
	for _, c := range Components {
		want := ""
		if sts := named.StatefulSet(c); sts != nil {
			want = sts.Name
		}
		if got := StatefulSetName(src, c); got != want {
			t.Errorf("%s: %q, want %q", c, got, want)
		}
	}
}
