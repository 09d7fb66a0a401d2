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
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/reconcile"
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

	adopting := apply.New(c.Client, reconcile.FieldOwner)
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
	plain := apply.New(c.Client, reconcile.FieldOwner)
	if _, err := plain.Apply(ctx, desired("not-adopted")); err != nil {
		t.Fatal(err)
	}
	if names, labels := containers("not-adopted"); len(names) != 2 || labels["legacy"] != "yes" {
		t.Errorf("without adoption the old fields should stay (this test would prove nothing): %v %v", names, labels)
	}

}

// The answer the real API server gives a create is what a later read at its
// resourceVersion shows: the Applier trusts such a copy without comparing it
// field by field (which would convert it to a map first).
func testOwnWriteTrusted(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns = "own-write"
	testutil.CreateNamespace(t, c.Client, ns)
	// edit, when set, changes every Service the Applier reads.
	var edit func(*corev1.Service)
	var writes atomic.Int32
	reads := interceptor.Funcs{
		Get: func(ctx context.Context, cl client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := cl.Get(ctx, key, obj, opts...); err != nil {
				return err
			}
			if s, ok := obj.(*corev1.Service); ok && edit != nil {
				edit(s)
			}
			return nil
		},
		Apply: func(ctx context.Context, cl client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			writes.Add(1)
			return cl.Apply(ctx, obj, opts...)
		},
	}
	direct, err := client.NewWithWatch(c.Config, client.Options{Scheme: c.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	a := apply.New(interceptor.NewClient(direct, reads), reconcile.FieldOwner)
	desired := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "svc"},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "fe"}, Ports: []corev1.ServicePort{{Name: "query", Port: 9030, TargetPort: intstr.FromInt32(9030)}}},
	}
	if res, err := a.Apply(ctx, desired); err != nil || res.Action != apply.Created {
		t.Fatalf("first apply: %+v, %v; want created", res, err)
	}
	// Other content at the same resourceVersion, which no real read gives:
	// a comparison would restore it, trust does not look.
	edit = func(s *corev1.Service) { s.Spec.Selector["app"] = "be" }
	if res, err := a.Apply(ctx, desired); err != nil || res.Action != apply.Unchanged || writes.Load() != 0 {
		t.Fatalf("at our create's resourceVersion: %+v, %v, %d applies; want unchanged and none (the answer was not trusted)", res, err, writes.Load())
	}
	// Control: once someone else changes the object, it is compared and restored.
	edit = nil
	var live corev1.Service
	if err := get(ctx, c.Client, ns, "svc", &live); err != nil {
		t.Fatal(err)
	}
	live.Spec.Selector["app"] = "be"
	if err := c.Client.Update(ctx, &live); err != nil {
		t.Fatal(err)
	}
	if res, err := a.Apply(ctx, desired); err != nil || res.Action != apply.Restored || writes.Load() != 1 {
		t.Fatalf("after someone else's edit: %+v, %v, %d applies; want restored with one", res, err, writes.Load())
	}
}
