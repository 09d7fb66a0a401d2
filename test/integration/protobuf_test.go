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
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/scheme"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// contentTypes records the Content-Type of each write a client sends, by
// method and path.
type contentTypes struct {
	mu   sync.Mutex
	sent []string // "POST /apis/apps/v1/namespaces/ns/statefulsets application/vnd.kubernetes.protobuf"
}

func (c *contentTypes) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method != http.MethodGet {
			c.mu.Lock()
			c.sent = append(c.sent, req.Method+" "+req.URL.Path+" "+req.Header.Get("Content-Type"))
			c.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

func (c *contentTypes) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sent
	c.sent = nil
	return s
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// The operator creates a built-in kind as protobuf, which costs the API
// server less than JSON. The desired-state hash it stamps is computed as
// before, from the desired object: an object an earlier release created as
// JSON is stored the same, and an upgraded operator finds it unchanged and
// writes nothing. Server-side apply (JSON only) still updates an object
// created as protobuf.
func testProtobufCreates(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	const ns = "wire"
	testutil.CreateNamespace(t, c.Client, ns)
	desired := func() []client.Object {
		src := feOnly(ns, "w1")
		src.UID = "5c3a961" // its children's owner reference needs one; no garbage collector runs here
		objs := resources.Build(src, resources.Configs{})
		return []client.Object{objs.StatefulSet(resources.ComponentFE), objs.FE.SearchService, objs.FE.Service}
	}
	sent := &contentTypes{}
	cfg := rest.CopyConfig(c.Config)
	cfg.Wrap(sent.wrap)
	cl, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}

	// As 5c3a961 and earlier created: the map apply.Desired made, as JSON.
	for _, o := range desired() {
		u, _, err := apply.Desired(o)
		if err != nil {
			t.Fatal(err)
		}
		gvk, err := cl.GroupVersionKindFor(o)
		if err != nil {
			t.Fatal(err)
		}
		u.SetGroupVersionKind(gvk)
		if err := cl.Create(ctx, u, client.FieldOwner(reconcile.FieldOwner)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range sent.take() {
		if !strings.HasSuffix(s, " application/json") {
			t.Fatalf("the JSON create went as %q: the recorder does not see the wire", s)
		}
	}
	var before []client.Object
	for _, o := range desired() {
		live := o.DeepCopyObject().(client.Object)
		if err := get(ctx, c.Client, ns, o.GetName(), live); err != nil {
			t.Fatal(err)
		}
		before = append(before, live)
	}

	// An upgraded operator (a new Applier, nothing remembered) finds the
	// objects an earlier release created unchanged, and sends nothing.
	upgraded := reconcile.NewApplier(cl)
	for _, o := range desired() {
		res, err := upgraded.Apply(ctx, o)
		if err != nil || res.Action != apply.Unchanged {
			t.Errorf("an upgraded operator's Apply(%s) = %+v, %v; want unchanged", o.GetName(), res, err)
		}
	}
	if w := sent.take(); len(w) > 0 {
		t.Errorf("an upgraded operator wrote %q to objects an earlier release created", w)
	}

	// The same objects made again by the Applier: creates as protobuf.
	for _, o := range before {
		if err := c.Client.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
		eventually(t, 30*time.Second, o.GetName()+" gone", func(ctx context.Context) (bool, error) {
			err := get(ctx, c.Client, ns, o.GetName(), o.DeepCopyObject().(client.Object))
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
	}
	a := reconcile.NewApplier(cl)
	for _, o := range desired() {
		res, err := a.Apply(ctx, o)
		if err != nil || res.Action != apply.Created {
			t.Fatalf("Apply(%s) = %+v, %v; want created", o.GetName(), res, err)
		}
	}
	creates := sent.take()
	if len(creates) != 3 || slices.ContainsFunc(creates, func(s string) bool {
		return !strings.HasPrefix(s, "POST ") || !strings.HasSuffix(s, " application/vnd.kubernetes.protobuf")
	}) {
		t.Errorf("the Applier's writes for a new cluster: %q; want three creates as protobuf", creates)
	}
	// What is stored is the same: hash, metadata, spec and field ownership.
	for _, old := range before {
		cur := old.DeepCopyObject().(client.Object)
		if err := get(ctx, c.Client, ns, old.GetName(), cur); err != nil {
			t.Fatal(err)
		}
		if diff := storedDifference(old, cur); diff != "" {
			t.Errorf("%s created as protobuf differs from the JSON create: %s", old.GetName(), diff)
		}
	}

	// A changed desired state goes as server-side apply (JSON, after the
	// hand-over of the create's fields) to an object created as protobuf.
	svc := desired()[2].(*corev1.Service)
	svc.Spec.Ports[0].Port++
	if res, err := a.Apply(ctx, svc); err != nil || res.Action != apply.Updated {
		t.Fatalf("Apply of a changed port = %+v, %v; want updated", res, err)
	}
	w := sent.take()
	if len(w) != 2 || !strings.HasSuffix(w[0], " application/json-patch+json") || !strings.HasSuffix(w[1], " application/apply-patch+yaml") {
		t.Errorf("the update went as %q; want the fields' hand-over (JSON patch), then an apply", w)
	}
	live := &corev1.Service{}
	if err := get(ctx, c.Client, ns, svc.Name, live); err != nil {
		t.Fatal(err)
	}
	if live.Spec.Ports[0].Port != svc.Spec.Ports[0].Port {
		t.Errorf("port %d after the apply, want %d", live.Spec.Ports[0].Port, svc.Spec.Ports[0].Port)
	}
}

// storedDifference says how two copies of one desired object, one stored
// after the other, differ beyond what the API server gives each (UIDs,
// times, resourceVersions, allocated ClusterIPs); "" when they do not.
func storedDifference(a, b client.Object) string {
	norm := func(o client.Object) client.Object {
		o = o.DeepCopyObject().(client.Object)
		o.SetUID("")
		o.SetResourceVersion("")
		o.SetCreationTimestamp(metav1.Time{})
		mf := o.GetManagedFields()
		for i := range mf {
			mf[i].Time = nil
		}
		if svc, ok := o.(*corev1.Service); ok && svc.Spec.ClusterIP != corev1.ClusterIPNone {
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "", nil
		}
		return o
	}
	na, nb := norm(a), norm(b)
	if equality.Semantic.DeepEqual(na, nb) {
		return ""
	}
	return fmt.Sprintf("\nJSON:     %+v\nprotobuf: %+v", na, nb)
}
