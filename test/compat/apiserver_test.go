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

package compat

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// TestAPIServer installs our CRDs on a real kube-apiserver and checks the
// contract there: our samples and the upstream examples apply unchanged and
// nothing is pruned,
// boundary values are accepted, and invalid manifests are rejected with a
// message that names the field.
func TestAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	cl := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: []string{ourCRDDir}})
	c := cl.Client
	ctx := t.Context()

	// One upstream example names namespace starrocks; the samples go to their own.
	for _, ns := range []string{"starrocks", "samples"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatalf("creating namespace %s: %v", ns, err)
		}
	}

	t.Run("samples", func(t *testing.T) {
		for _, file := range yamlFiles(t, samplesDir) {
			for _, m := range readManifests(t, file) {
				t.Run(fmt.Sprintf("%s: %s %s is accepted unchanged and nothing is pruned", filepath.Base(file), m.obj.GetKind(), m.obj.GetName()), func(t *testing.T) {
					m.obj.SetNamespace("samples")
					createAndCompare(ctx, t, c, m.obj)
				})
			}
		}
	})

	t.Run("upstream examples", func(t *testing.T) {
		for _, file := range yamlFiles(t, upstreamExamplesDir(t)) {
			for _, m := range readManifests(t, file) {
				t.Run(fmt.Sprintf("%s: %s %s is accepted unchanged and nothing is pruned", filepath.Base(file), m.obj.GetKind(), m.obj.GetName()), func(t *testing.T) {
					createAndCompare(ctx, t, c, m.obj)
				})
			}
		}
	})

	t.Run("boundary values", func(t *testing.T) {
		for _, file := range yamlFiles(t, validDir) {
			for _, m := range readManifests(t, file) {
				t.Run(m.caseName, func(t *testing.T) {
					createAndCompare(ctx, t, c, m.obj)
				})
			}
		}
	})

	t.Run("CN replicas default to 1 and the scale subresource reads them", func(t *testing.T) {
		// The CN autoscaling sample sets autoScalingPolicy but no replicas.
		var src srv1.StarRocksCluster
		if err := c.Get(ctx, client.ObjectKey{Namespace: "samples", Name: "cn-autoscaling"}, &src); err != nil {
			t.Fatalf("reading the CN sample back: %v", err)
		}
		if r := src.Spec.StarRocksCnSpec.Replicas; r == nil || *r != 1 {
			t.Errorf("spec.starRocksCnSpec.replicas = %v, want the upstream default 1", r)
		}
		var scale autoscalingv1.Scale
		if err := c.SubResource("scale").Get(ctx, &src, &scale); err != nil {
			t.Fatalf("reading the scale subresource: %v", err)
		}
		if scale.Spec.Replicas != 1 {
			t.Errorf("scale spec.replicas = %d, want 1 (from .spec.starRocksCnSpec.replicas)", scale.Spec.Replicas)
		}
	})

	t.Run("invalid manifests", func(t *testing.T) {
		for _, file := range yamlFiles(t, invalidDir) {
			ms := readManifests(t, file)
			if len(ms) != 1 {
				t.Fatalf("%s: want exactly one document, got %d", file, len(ms))
			}
			m := ms[0]
			if m.caseName == "" || len(m.expect) == 0 {
				t.Fatalf("%s: needs '# case:' and '# expect:' header lines", file)
			}
			t.Run(m.caseName, func(t *testing.T) {
				m.obj.SetNamespace("default")
				err := c.Create(ctx, m.obj, client.DryRunAll)
				if err == nil {
					t.Fatalf("%s was accepted; want a rejection containing %q", filepath.Base(file), m.expect)
				}
				t.Logf("rejected as expected: %v", err)
				if !apierrors.IsInvalid(err) {
					t.Errorf("%s: want an Invalid error, got %v", filepath.Base(file), err)
				}
				for _, want := range m.expect {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: error does not contain %q:\n%v", filepath.Base(file), want, err)
					}
				}
			})
		}
	})
}

// createAndCompare creates obj and checks that the stored spec holds every field of the input.
func createAndCompare(ctx context.Context, t *testing.T, c client.Client, obj *unstructured.Unstructured) {
	t.Helper()
	if obj.GetNamespace() == "" {
		obj.SetNamespace("default")
	}
	input := obj.DeepCopy()
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("creating %s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
	if input.GetAPIVersion() != srv1.GroupVersion.String() {
		return
	}
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(input.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(input), stored); err != nil {
		t.Fatalf("reading back %s: %v", input.GetName(), err)
	}
	if lost := notContained(input.Object["spec"], stored.Object["spec"], ".spec"); len(lost) > 0 {
		sort.Strings(lost)
		t.Errorf("stored %s %s lost or changed fields of the input:\n  %s", input.GetKind(), input.GetName(), strings.Join(lost, "\n  "))
	}
}

// notContained lists the paths where stored does not hold the value of in.
func notContained(in, stored any, path string) []string {
	switch in := in.(type) {
	case map[string]any:
		s, ok := stored.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: object became %T", path, stored)}
		}
		var lost []string
		for k, v := range in {
			sv, ok := s[k]
			if !ok {
				lost = append(lost, path+"."+k+": pruned")
				continue
			}
			lost = append(lost, notContained(v, sv, path+"."+k)...)
		}
		return lost
	case []any:
		s, ok := stored.([]any)
		if !ok || len(s) != len(in) {
			return []string{fmt.Sprintf("%s: list of %d became %v", path, len(in), stored)}
		}
		var lost []string
		for i := range in {
			lost = append(lost, notContained(in[i], s[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return lost
	default:
		if !reflect.DeepEqual(in, stored) {
			return []string{fmt.Sprintf("%s: %v became %v", path, in, stored)}
		}
		return nil
	}
}
