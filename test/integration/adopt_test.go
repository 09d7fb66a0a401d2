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

package integration_test

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/controller"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// The upstream operator writes with create and update, so its fields belong
// to an Update manager (sroperator). Our apply takes them over: a field we do
// not send is removed, and nothing is doubled.
func testAdoption(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns = "adopt"
	testutil.CreateNamespace(t, c.Client, ns)

	legacy := func(name string) *appsv1.Deployment {
		labels := map[string]string{"app": name}
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name, "legacy": "yes"}},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{
						{Name: "nginx", Image: "nginx:1.24.0"},
						{Name: "old-sidecar", Image: "busybox"},
					}},
				},
			},
		}
	}
	desired := func(name string) *appsv1.Deployment {
		d := legacy(name)
		d.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}
		delete(d.Labels, "legacy")
		d.Spec.Template.Spec.Containers = d.Spec.Template.Spec.Containers[:1]
		return d
	}
	containers := func(name string) ([]string, map[string]string) {
		var d appsv1.Deployment
		if err := get(ctx, c.Client, ns, name, &d); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ct := range d.Spec.Template.Spec.Containers {
			names = append(names, ct.Name)
		}
		return names, d.Labels
	}

	for _, name := range []string{"adopted", "not-adopted"} {
		if err := c.Client.Create(ctx, legacy(name), client.FieldOwner("sroperator")); err != nil {
			t.Fatal(err)
		}
	}

	adopting := apply.New(c.Client, controller.FieldOwner)
	adopting.AdoptFrom = []string{"sroperator"}
	if _, err := adopting.Apply(ctx, desired("adopted")); err != nil {
		t.Fatal(err)
	}
	names, labels := containers("adopted")
	if !slices.Equal(names, []string{"nginx"}) || labels["legacy"] != "" {
		t.Errorf("after adoption: containers %v, labels %v; want only nginx and no legacy label", names, labels)
	}
	var d appsv1.Deployment
	if err := get(ctx, c.Client, ns, "adopted", &d); err != nil {
		t.Fatal(err)
	}
	for _, f := range d.ManagedFields {
		if f.Manager == "sroperator" && f.Subresource == "" {
			t.Errorf("sroperator still owns fields: %s", f.FieldsV1.String())
		}
	}

	// The control: plain server-side apply keeps what the other manager owns.
	plain := apply.New(c.Client, controller.FieldOwner)
	if _, err := plain.Apply(ctx, desired("not-adopted")); err != nil {
		t.Fatal(err)
	}
	if names, labels := containers("not-adopted"); len(names) != 2 || labels["legacy"] != "yes" {
		t.Errorf("without adoption the old fields should stay (this test would prove nothing): %v %v", names, labels)
	}

}
