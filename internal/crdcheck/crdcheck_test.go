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

package crdcheck

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"
)

// ourCRD reads a CRD this repository generates.
func ourCRD(t *testing.T, file string) *unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "bases", file))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// withoutStatusFields is crd as the upstream ships it: no conditions, no observedGeneration.
func withoutStatusFields(crd *unstructured.Unstructured) *unstructured.Unstructured {
	crd = crd.DeepCopy()
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		props, _, _ := unstructured.NestedMap(v.(map[string]any), "schema", "openAPIV3Schema", "properties", "status", "properties")
		delete(props, "conditions")
		delete(props, "observedGeneration")
		unstructured.RemoveNestedField(props, "starRocksFeStatus", "properties", "nodes")
		_ = unstructured.SetNestedMap(v.(map[string]any), props, "schema", "openAPIV3Schema", "properties", "status", "properties")
	}
	_ = unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions")
	return crd
}

func TestMissingStatusFields(t *testing.T) {
	crd := ourCRD(t, "starrocks.com_starrocksclusters.yaml")
	want := Required["starrocksclusters.starrocks.com"]
	if got := MissingStatusFields(crd, Version, want); len(got) != 0 {
		t.Errorf("our own CRD misses %v", got)
	}
	if got := MissingStatusFields(withoutStatusFields(crd), Version, want); !slices.Equal(got, want) {
		t.Errorf("an upstream-like CRD misses %v, want %v", got, want)
	}
	if got := MissingStatusFields(crd, "v2", want); !slices.Equal(got, want) {
		t.Errorf("an unserved version misses %v, want every field", got)
	}
}

func TestRunnableLogsTheOutdatedCRDAndTheFix(t *testing.T) {
	clusters := withoutStatusFields(ourCRD(t, "starrocks.com_starrocksclusters.yaml"))
	warehouses := ourCRD(t, "starrocks.com_starrockswarehouses.yaml")
	cl := fake.NewClientBuilder().WithScheme(runtime.NewScheme()).WithObjects(clusters, warehouses).Build()
	var out bytes.Buffer
	log := funcr.New(func(prefix, args string) { out.WriteString(args + "\n") }, funcr.Options{})
	if err := (Runnable{Reader: cl, Log: log}).Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"starrocksclusters.starrocks.com", "conditions", FixCommand} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `"crd"="starrockswarehouses.starrocks.com"`) {
		t.Errorf("the up-to-date warehouse CRD is reported:\n%s", text)
	}
}
