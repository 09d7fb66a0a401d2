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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func warehouseFixture() (*srv1.StarRocksWarehouse, *srv1.StarRocksCluster) {
	src := &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", UID: "cluster-uid"},
		Spec: srv1.StarRocksClusterSpec{
			StarRocksFeSpec: &srv1.StarRocksFeSpec{},
			StarRocksBeSpec: &srv1.StarRocksBeSpec{},
		},
	}
	wh := &srv1.StarRocksWarehouse{
		ObjectMeta: metav1.ObjectMeta{Name: "wh-1", Namespace: "ns", UID: "wh-uid"},
		Spec: srv1.StarRocksWarehouseSpec{StarRocksCluster: "c", Template: &srv1.WarehouseComponentSpec{
			StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Replicas: ptr.To(int32(2)), Image: "starrocks/cn-ubuntu:3.3"}},
			EnvVars:                []corev1.EnvVar{{Name: "X", Value: "y"}},
			AutoScalingPolicy:      &srv1.AutoScalingPolicy{MaxReplicas: 5},
		}},
	}
	return wh, src
}

func envOf(c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

func TestWarehouseIsTheCNBuilderWithAnotherOwner(t *testing.T) {
	wh, src := warehouseFixture()
	objs := Warehouse(wh, src, WarehouseConfig{})
	if objs == nil {
		t.Fatal("no objects")
	}
	names := []string{objs.StatefulSet.Name, objs.Service.Name, objs.SearchService.Name, objs.Autoscaler.Name}
	want := []string{"wh-1-warehouse-cn", "wh-1-warehouse-cn-service", "wh-1-warehouse-cn-search", "wh-1-warehouse-cn-autoscaler"}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("object %d is %s, want %s", i, names[i], want[i])
		}
	}
	for _, o := range objs.Objects() {
		refs := o.GetOwnerReferences()
		if len(refs) != 1 || refs[0].Kind != "StarRocksWarehouse" || refs[0].UID != "wh-uid" || !ptr.Deref(refs[0].Controller, false) {
			t.Errorf("%s owned by %+v, want the warehouse", o.GetName(), refs)
		}
	}
	ref := objs.Autoscaler.Spec.ScaleTargetRef
	if ref.Kind != "StarRocksWarehouse" || ref.Name != "wh-1" || ref.APIVersion != "starrocks.com/v1" {
		t.Errorf("HPA targets %+v, want the warehouse's scale subresource", ref)
	}
	if r := objs.StatefulSet.Spec.Replicas; r == nil || *r != 2 {
		t.Errorf("StatefulSet replicas %v, want the template's 2 (the HPA scales the warehouse)", r)
	}
	main := objs.StatefulSet.Spec.Template.Spec.Containers[0]
	if v, _ := envOf(main, "FE_SERVICE_NAME"); v != "c-fe-service" {
		t.Errorf("FE_SERVICE_NAME = %q, want the cluster's FE", v)
	}
	if _, ok := envOf(main, MultiWarehouseEnv); ok {
		t.Error("KUBE_STARROCKS_MULTI_WAREHOUSE set though FE has no multi-warehouse feature")
	}
	if v, _ := envOf(main, "X"); v != "y" {
		t.Error("the template's envVars are missing")
	}
	if got := objs.StatefulSet.Spec.Selector.MatchLabels; got[OwnerLabel] != "wh-1-warehouse-cn" || got[ComponentLabel] != "cn" {
		t.Errorf("selector %v", got)
	}
}

func TestWarehouseTellsPodsTheirWarehouseOnlyWithMultiWarehouse(t *testing.T) {
	wh, src := warehouseFixture()
	main := Warehouse(wh, src, WarehouseConfig{MultiWarehouse: true}).StatefulSet.Spec.Template.Spec.Containers[0]
	if v, _ := envOf(main, MultiWarehouseEnv); v != "wh_1" {
		t.Errorf("%s = %q, want wh_1", MultiWarehouseEnv, v)
	}
}

func TestWarehouseWithoutTemplateOrFEBuildsNothing(t *testing.T) {
	wh, src := warehouseFixture()
	wh.Spec.Template = nil
	if Warehouse(wh, src, WarehouseConfig{}) != nil {
		t.Error("built without a template")
	}
	wh, src = warehouseFixture()
	src.Spec.StarRocksFeSpec = nil
	if Warehouse(wh, src, WarehouseConfig{}) != nil {
		t.Error("built without FE")
	}
}

func TestDisasterRecoveryFEIsUpstreamsRestoreShape(t *testing.T) {
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}, Spec: srv1.StarRocksClusterSpec{
		StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Replicas: ptr.To(int32(3))}}},
	}}
	objs := FE(src, Config{Content: "query_port = 9931\n"})
	held := objs.StatefulSet
	DisasterRecoveryFE(objs, src, "query_port = 9931\n", 4)
	if objs.StatefulSet != held {
		t.Fatal("the StatefulSet was replaced, not changed in place")
	}
	main := objs.StatefulSet.Spec.Template.Spec.Containers[0]
	if *objs.StatefulSet.Spec.Replicas != 1 || main.StartupProbe != nil || main.LivenessProbe != nil {
		t.Errorf("replicas %d, startup %v, liveness %v", *objs.StatefulSet.Spec.Replicas, main.StartupProbe, main.LivenessProbe)
	}
	if p := main.ReadinessProbe; p == nil || p.TCPSocket == nil || p.TCPSocket.Port.IntValue() != 9931 {
		t.Errorf("readiness %+v, want TCP on fe.conf's query port", p)
	}
	if g, ok := RestoreGeneration(main); !ok || g != 4 {
		t.Errorf("generation %d %v", g, ok)
	}
	if v, _ := envOf(main, RestoreSnapshotEnv); v != "true" {
		t.Errorf("%s = %q", RestoreSnapshotEnv, v)
	}
	DisasterRecoveryFE(objs, src, "query_port = 9931\n", 5)
	if n := len(objs.StatefulSet.Spec.Template.Spec.Containers[0].Env) - len(main.Env); n != 0 {
		t.Errorf("applying twice added %d variables", n)
	}
}
