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

package feaccess

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/scheme"
)

func TestTheFeatureListIsRememberedForTheImageFERunsNotTheSpecs(t *testing.T) {
	var multi atomic.Bool
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		features := `{"name":"RBAC"}`
		if multi.Load() {
			features += `,{"name":"multi-warehouse"}`
		}
		fmt.Fprintf(w, `{"version":"3.3.2","features":[%s],"status":"OK"}`, features)
	}))
	t.Cleanup(srv.Close)
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}, Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{}}}
	src.UID = "cluster-uid"
	src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:3.4.0" // upgrading
	feSts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: src.FeStatefulSetName(), Generation: 2},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(int32(1)), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "fe", Image: "starrocks/fe-ubuntu:3.4.0"}}}}},
		// The old FE still runs: the new revision has not rolled out.
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 0, CurrentRevision: "old", UpdateRevision: "new"}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(feSts).Build()
	access := New(c, Options{Resolve: func(fe.Target) (string, string) { return "", srv.URL }})

	if ok, err := access.HasFeature(t.Context(), src, "", fe.FeatureMultiWarehouse); err != nil || ok {
		t.Fatalf("mid-rollout: %v, %v; want the old FE's answer, false", ok, err)
	}
	// Rolled out; the new FE has the feature.
	feSts.Status = appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1, CurrentRevision: "new", UpdateRevision: "new"}
	if err := c.Status().Update(t.Context(), feSts); err != nil {
		t.Fatal(err)
	}
	multi.Store(true)
	if ok, err := access.HasFeature(t.Context(), src, "", fe.FeatureMultiWarehouse); err != nil || !ok {
		t.Fatalf("rolled out: %v, %v; want the new FE's answer, true (the old one must not be remembered under the new image)", ok, err)
	}
	before := asked.Load()
	if ok, _ := access.HasFeature(t.Context(), src, "", fe.FeatureMultiWarehouse); !ok || asked.Load() != before {
		t.Errorf("settled: asked FE %d more times; want the answer remembered", asked.Load()-before)
	}
}
