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

package apply_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/scheme"
)

// owner is the field owner the tests give the Applier.
const owner = "starrocks-operator"

// write is one write request that reached the rig's client.
type write struct {
	verb      string // create, update, patch, apply, delete
	name      string
	patchType types.PatchType
	body      string // the Go type of what was sent, for a create
	create    client.CreateOptions
	apply     client.ApplyOptions
	delete    client.DeleteOptions
}

func (w write) String() string {
	if w.verb == "patch" {
		return fmt.Sprintf("patch(%s) %s", w.patchType, w.name)
	}
	return w.verb + " " + w.name
}

// rig stands for the API server and the operator's client. store is the
// server: a fake client that keeps managedFields with their field sets, as a
// manager's API reader sees them. client is what the Applier gets: it reads as
// the operator's informer cache does (managedFields without field sets),
// writes to store, and records every write it is asked for, answered or not.
type rig struct {
	store  client.WithWatch
	client client.WithWatch

	mu     sync.Mutex
	writes []write
}

// newRig seeds the server with objs. The funcs in override, where set, answer
// in place of the server (they get store as their client); writes are
// recorded before they are called.
func newRig(t *testing.T, override interceptor.Funcs, objs ...client.Object) *rig {
	t.Helper()
	r := &rig{store: fake.NewClientBuilder().WithScheme(scheme.New()).WithReturnManagedFields().WithObjects(objs...).Build()}
	r.client = interceptor.NewClient(r.store, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			var err error
			if override.Get != nil {
				err = override.Get(ctx, c, key, obj, opts...)
			} else {
				err = c.Get(ctx, key, obj, opts...)
			}
			if err == nil {
				mf := obj.GetManagedFields()
				for i := range mf {
					mf[i].FieldsV1 = nil
				}
			}
			return err
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			w := write{verb: "create", name: obj.GetName(), body: fmt.Sprintf("%T", obj)}
			w.create.ApplyOptions(opts)
			r.record(w)
			if override.Create != nil {
				return override.Create(ctx, c, obj, opts...)
			}
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			r.record(write{verb: "update", name: obj.GetName()})
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			r.record(write{verb: "patch", name: obj.GetName(), patchType: patch.Type()})
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			w := write{verb: "apply", name: applyName(t, obj)}
			w.apply.ApplyOptions(opts)
			r.record(w)
			if override.Apply != nil {
				return override.Apply(ctx, c, obj, opts...)
			}
			return c.Apply(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			w := write{verb: "delete", name: obj.GetName()}
			w.delete.ApplyOptions(opts)
			r.record(w)
			if override.Delete != nil {
				return override.Delete(ctx, c, obj, opts...)
			}
			return c.Delete(ctx, obj, opts...)
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			r.record(write{verb: "deleteallof", name: obj.GetName()})
			return c.DeleteAllOf(ctx, obj, opts...)
		},
	})
	return r
}

func (r *rig) record(w write) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, w)
}

// take returns the writes recorded since the last take.
func (r *rig) take() []write {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.writes
	r.writes = nil
	return w
}

// expectWrites fails unless the writes since the last take are want, in order
// ("create a", "apply a", "patch(application/json-patch+json) a", ...).
func (r *rig) expectWrites(t *testing.T, want ...string) []write {
	t.Helper()
	got := r.take()
	names := make([]string, len(got))
	for i, w := range got {
		names[i] = w.String()
	}
	if !slices.Equal(names, want) {
		t.Fatalf("writes = %q, want %q", names, want)
	}
	return got
}

// applier is the Applier under test, reading managedFields from the server.
func (r *rig) applier() apply.Applier {
	a := apply.New(r.client, owner)
	a.Reader = r.store
	return a
}

// stored returns the server's copy of obj.
func (r *rig) stored(t *testing.T, obj client.Object) client.Object {
	t.Helper()
	live := obj.DeepCopyObject().(client.Object)
	if err := r.store.Get(context.Background(), client.ObjectKeyFromObject(obj), live); err != nil {
		t.Fatalf("reading %s from the server: %v", obj.GetName(), err)
	}
	return live
}

// applyAsOwner writes obj to the server as an earlier apply of ours did: its
// fields belong to our Apply entry, not to an Update one.
func (r *rig) applyAsOwner(t *testing.T, obj client.Object) {
	t.Helper()
	u, _, err := apply.Desired(obj)
	if err != nil {
		t.Fatal(err)
	}
	gvk, err := r.store.GroupVersionKindFor(obj)
	if err != nil {
		t.Fatal(err)
	}
	u.SetGroupVersionKind(gvk)
	if err := r.store.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(owner), client.ForceOwnership); err != nil {
		t.Fatalf("seeding %s: %v", obj.GetName(), err)
	}
}

// editAs changes the server's copy of obj as another field manager would, with
// an update (kubectl edit, say).
func (r *rig) editAs(t *testing.T, manager string, obj client.Object, edit func(client.Object)) {
	t.Helper()
	live := r.stored(t, obj)
	edit(live)
	if err := r.store.Update(context.Background(), live, client.FieldOwner(manager)); err != nil {
		t.Fatalf("editing %s as %s: %v", obj.GetName(), manager, err)
	}
}

func applyName(t *testing.T, ac runtime.ApplyConfiguration) string {
	t.Helper()
	body, err := json.Marshal(ac)
	if err != nil {
		t.Errorf("marshalling an apply configuration: %v", err)
		return ""
	}
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(body); err != nil {
		t.Errorf("reading an apply configuration: %v", err)
		return ""
	}
	return u.GetName()
}

func mustApply(t *testing.T, a apply.Applier, obj client.Object) apply.Result {
	t.Helper()
	res, err := a.Apply(context.Background(), obj)
	if err != nil {
		t.Fatalf("Apply(%s): %v", obj.GetName(), err)
	}
	return res
}

func expectResult(t *testing.T, got apply.Result, action apply.Action, pending, unrestorable bool) {
	t.Helper()
	if got.Action != action || got.Pending != pending || got.Unrestorable != unrestorable {
		t.Fatalf("result = %+v, want action %q, Pending %v, Unrestorable %v", got, action, pending, unrestorable)
	}
}

func hashOf(t *testing.T, obj client.Object) string {
	t.Helper()
	_, hash, err := apply.Desired(obj)
	if err != nil {
		t.Fatal(err)
	}
	return hash
}

func service(name string, port int32) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"app.kubernetes.io/component": "fe"}},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app.kubernetes.io/component": "fe"},
			Ports:    []corev1.ServicePort{{Name: "query", Port: port}},
		},
	}
}

func statefulSet(name string) *appsv1.StatefulSet {
	labels := map[string]string{"app.kubernetes.io/component": "fe"}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: labels},
		Spec: appsv1.StatefulSetSpec{
			ServiceName: name + "-search",
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "fe", Image: "starrocks/fe-ubuntu:3.3"}}},
			},
		},
	}
}

var serviceResource = schema.GroupResource{Resource: "services"}

func TestApplyCreatesMissingObjects(t *testing.T) {
	t.Run("a missing object is made with a plain create, hash stamped", func(t *testing.T) {
		r := newRig(t, interceptor.Funcs{})
		desired := service("a-fe-service", 9030)
		res := mustApply(t, r.applier(), desired)
		expectResult(t, res, apply.Created, false, false)
		if res.Kind != "Service" || res.Name != "a-fe-service" {
			t.Errorf("result names %s %s, want Service a-fe-service", res.Kind, res.Name)
		}
		w := r.expectWrites(t, "create a-fe-service")
		if w[0].create.FieldManager != owner {
			t.Errorf("create's field manager = %q, want %q", w[0].create.FieldManager, owner)
		}
		// Typed, so that the client sends a built-in kind as protobuf.
		if w[0].body != "*v1.Service" {
			t.Errorf("created a %s, want the typed *v1.Service", w[0].body)
		}
		live := r.stored(t, desired).(*corev1.Service)
		if got, want := live.Annotations[apply.HashAnnotation], hashOf(t, desired); got != want {
			t.Errorf("stored %s = %q, want %q", apply.HashAnnotation, got, want)
		}
		if len(live.Spec.Ports) != 1 || live.Spec.Ports[0].Port != 9030 {
			t.Errorf("stored ports = %+v, want the desired one", live.Spec.Ports)
		}
	})

	t.Run("a create answered AlreadyExists for someone else's object is an ExistsError, and that object is left alone", func(t *testing.T) {
		// Someone else made it; the cache, scoped to our labels, cannot see it.
		existing := service("a-fe-service", 9030)
		r := newRig(t, interceptor.Funcs{
			Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
				return apierrors.NewNotFound(serviceResource, "a-fe-service")
			},
		}, existing)
		desired := service("a-fe-service", 9031)
		desired.OwnerReferences = []metav1.OwnerReference{{APIVersion: "starrocks.com/v1", Kind: "StarRocksCluster", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
		res, err := r.applier().Apply(context.Background(), desired)
		var exists *apply.ExistsError
		if !errors.As(err, &exists) || exists.Name != "a-fe-service" {
			t.Fatalf("Apply = %+v, %v; want an ExistsError naming the Service", res, err)
		}
		expectResult(t, res, apply.Failed, false, false)
		r.expectWrites(t, "create a-fe-service")
		if port := r.stored(t, existing).(*corev1.Service).Spec.Ports[0].Port; port != 9030 {
			t.Errorf("the object someone else made was changed: port %d", port)
		}
	})

	t.Run("a create answered AlreadyExists for an object its owner controls is written whole, which the cache then sees", func(t *testing.T) {
		// Ours, but its labels were removed: out of the cache's sight.
		owned := []metav1.OwnerReference{{APIVersion: "starrocks.com/v1", Kind: "StarRocksCluster", Name: "a", UID: "uid-a", Controller: ptr.To(true)}}
		existing := service("a-fe-service", 9030)
		existing.Labels, existing.OwnerReferences = nil, owned
		r := newRig(t, interceptor.Funcs{
			Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
				return apierrors.NewNotFound(serviceResource, "a-fe-service")
			},
		}, existing)
		desired := service("a-fe-service", 9030)
		desired.OwnerReferences = owned
		res, err := r.applier().Apply(context.Background(), desired)
		if err != nil {
			t.Fatalf("Apply: %v", err)
		}
		expectResult(t, res, apply.Restored, false, false)
		if got := r.stored(t, existing).GetLabels()["app.kubernetes.io/component"]; got != "fe" {
			t.Errorf("labels %v after the write; want ours back", r.stored(t, existing).GetLabels())
		}
	})

	t.Run("a failing create is Failed with an error naming the object", func(t *testing.T) {
		refused := errors.New("admission webhook refused it")
		r := newRig(t, interceptor.Funcs{
			Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error { return refused },
		})
		a := r.applier()
		desired := service("a-fe-service", 9030)
		res, err := a.Apply(context.Background(), desired)
		if !errors.Is(err, refused) {
			t.Fatalf("Apply error = %v, want it to wrap %v", err, refused)
		}
		if !strings.Contains(err.Error(), "Service a-fe-service") {
			t.Errorf("error %q does not name the object", err)
		}
		expectResult(t, res, apply.Failed, false, false)
		r.expectWrites(t, "create a-fe-service")
		// A failed create is not remembered as a write: the next Apply tries again.
		if _, err := a.Apply(context.Background(), desired); !errors.Is(err, refused) {
			t.Fatalf("second Apply error = %v, want the create tried again", err)
		}
		r.expectWrites(t, "create a-fe-service")
	})
}

// Every object the operator wrote carries the hash of its desired state;
// an operator that hashed the same desired object otherwise would rewrite
// every object of every cluster once upgraded. These are the hashes
// 5c3a961 stamped, when creates went as JSON: sending creates as protobuf
// changed the wire only, and what is hashed is the desired object as before.
func TestTheHashOfADesiredObjectIsTheOneEarlierReleasesStamped(t *testing.T) {
	for _, tt := range []struct {
		obj  client.Object
		want string
	}{
		{service("a-fe-service", 9030), "a2559d95a8294222cdd8"},
		{statefulSet("a-fe"), "5070d6c2f9d98c3114d0"},
	} {
		if got := hashOf(t, tt.obj); got != tt.want {
			t.Errorf("%T %s hashes to %s, want %s as before: every object written before would be written again", tt.obj, tt.obj.GetName(), got, tt.want)
		}
		r := newRig(t, interceptor.Funcs{})
		expectResult(t, mustApply(t, r.applier(), tt.obj), apply.Created, false, false)
		if got := r.stored(t, tt.obj).GetAnnotations()[apply.HashAnnotation]; got != tt.want {
			t.Errorf("the create of %s stamped %s, want %s", tt.obj.GetName(), got, tt.want)
		}
	}
}

func TestApplyUnchangedSendsNothing(t *testing.T) {
	t.Run("after our own create", func(t *testing.T) {
		r := newRig(t, interceptor.Funcs{})
		a := r.applier()
		mustApply(t, a, service("a-fe-service", 9030))
		r.take()
		expectResult(t, mustApply(t, a, service("a-fe-service", 9030)), apply.Unchanged, false, false)
		r.expectWrites(t)
	})
	t.Run("by a fresh Applier, from the stored object alone", func(t *testing.T) {
		r := newRig(t, interceptor.Funcs{})
		r.applyAsOwner(t, service("a-fe-service", 9030))
		r.editAs(t, "kube-controller-manager", service("a-fe-service", 9030), func(o client.Object) {
			// Fields the desired state does not name are not drift.
			o.(*corev1.Service).Spec.ClusterIP = "10.96.0.4"
			o.SetLabels(map[string]string{"app.kubernetes.io/component": "fe", "extra": "x"})
		})
		expectResult(t, mustApply(t, r.applier(), service("a-fe-service", 9030)), apply.Unchanged, false, false)
		r.expectWrites(t)
	})
}

func TestApplyChangedDesiredStateIsAServerSideApply(t *testing.T) {
	r := newRig(t, interceptor.Funcs{})
	r.applyAsOwner(t, service("a-fe-service", 9030))
	desired := service("a-fe-service", 9031)
	res := mustApply(t, r.applier(), desired)
	expectResult(t, res, apply.Updated, false, false)
	w := r.expectWrites(t, "apply a-fe-service")
	if w[0].apply.FieldManager != owner || w[0].apply.Force == nil || !*w[0].apply.Force {
		t.Errorf("apply options = manager %q, force %v; want %q, forced", w[0].apply.FieldManager, w[0].apply.Force, owner)
	}
	live := r.stored(t, desired).(*corev1.Service)
	if live.Spec.Ports[0].Port != 9031 {
		t.Errorf("stored port = %d, want 9031", live.Spec.Ports[0].Port)
	}
	if got, want := live.Annotations[apply.HashAnnotation], hashOf(t, desired); got != want {
		t.Errorf("stored %s = %q, want the new desired hash %q", apply.HashAnnotation, got, want)
	}
}

func TestApplyRestoresDrift(t *testing.T) {
	r := newRig(t, interceptor.Funcs{})
	desired := service("a-fe-service", 9030)
	r.applyAsOwner(t, desired)
	r.editAs(t, "kubectl-edit", desired, func(o client.Object) {
		o.(*corev1.Service).Spec.Selector["app.kubernetes.io/component"] = "be"
	})
	res := mustApply(t, r.applier(), desired)
	expectResult(t, res, apply.Restored, false, false)
	r.expectWrites(t, "apply a-fe-service")
	if got := r.stored(t, desired).(*corev1.Service).Spec.Selector["app.kubernetes.io/component"]; got != "fe" {
		t.Errorf("stored selector = %q after the restore, want fe", got)
	}
}

func TestApplyNoopRestoreIsUnrestorable(t *testing.T) {
	// The server answers the restore with the object as it was: an admission
	// webhook rewrites the field, say. The answer is the stored object, same
	// resourceVersion.
	fixes := false // set: the server takes the restore after all
	r := newRig(t, interceptor.Funcs{
		Apply: func(ctx context.Context, c client.WithWatch, ac runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			if fixes {
				return c.Apply(ctx, ac, opts...)
			}
			cur := &unstructured.Unstructured{}
			cur.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
			if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "a-fe-service"}, cur); err != nil {
				return err
			}
			body, err := json.Marshal(cur)
			if err != nil {
				return err
			}
			return json.Unmarshal(body, ac)
		},
	})
	desired := service("a-fe-service", 9030)
	r.applyAsOwner(t, desired)
	drift := func(value string) {
		r.editAs(t, "mutating-webhook", desired, func(o client.Object) {
			o.(*corev1.Service).Spec.Selector["app.kubernetes.io/component"] = value
		})
	}
	drift("rewritten")
	a := r.applier()

	live := func() client.Object {
		t.Helper()
		o := &corev1.Service{}
		if err := r.client.Get(context.Background(), client.ObjectKeyFromObject(desired), o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	if a.Unrestorable(live(), desired) {
		t.Fatal("Unrestorable before any restore was tried")
	}

	expectResult(t, mustApply(t, a, desired), apply.Unchanged, false, true)
	r.expectWrites(t, "apply a-fe-service")
	if !a.Unrestorable(live(), desired) {
		t.Error("Unrestorable = false right after a restore that changed nothing")
	}
	if a.Unrestorable(live(), service("a-fe-service", 9031)) {
		t.Error("Unrestorable = true for a desired state never tried")
	}

	// Same live resourceVersion, same desired state: not tried again.
	expectResult(t, mustApply(t, a, desired), apply.Unchanged, false, true)
	r.expectWrites(t)

	// The object moves on: the restore is worth a try again, and this time
	// the server takes it.
	drift("rewritten-again")
	if a.Unrestorable(live(), desired) {
		t.Error("Unrestorable = true after live's resourceVersion moved")
	}
	fixes = true
	expectResult(t, mustApply(t, a, desired), apply.Restored, false, false)
	r.expectWrites(t, "apply a-fe-service")
	if a.Unrestorable(live(), desired) {
		t.Error("Unrestorable = true after a restore that worked")
	}
}

func TestApplyPendingWhileTheCacheLagsOurWrite(t *testing.T) {
	t.Run("the cache has no copy yet after our create", func(t *testing.T) {
		r := newRig(t, interceptor.Funcs{
			Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
				return apierrors.NewNotFound(serviceResource, "a-fe-service")
			},
		})
		a := r.applier()
		expectResult(t, mustApply(t, a, service("a-fe-service", 9030)), apply.Created, false, false)
		r.expectWrites(t, "create a-fe-service")
		expectResult(t, mustApply(t, a, service("a-fe-service", 9030)), apply.Unchanged, true, false)
		r.expectWrites(t)
	})

	t.Run("the cache shows the version before our apply", func(t *testing.T) {
		var stale *corev1.Service // set: what the cache still shows
		r := newRig(t, interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if stale != nil {
					stale.DeepCopyInto(obj.(*corev1.Service))
					return nil
				}
				return c.Get(ctx, key, obj, opts...)
			},
		})
		r.applyAsOwner(t, service("a-fe-service", 9030))
		before := r.stored(t, service("a-fe-service", 9030)).(*corev1.Service)
		a := r.applier()
		desired := service("a-fe-service", 9031)
		expectResult(t, mustApply(t, a, desired), apply.Updated, false, false)
		r.expectWrites(t, "apply a-fe-service")

		stale = before
		expectResult(t, mustApply(t, a, desired), apply.Unchanged, true, false)
		r.expectWrites(t)

		stale = nil // the cache caught up
		expectResult(t, mustApply(t, a, desired), apply.Unchanged, false, false)
		r.expectWrites(t)
	})
}

// overTheWire creates as a client does over HTTP: the server gets a copy of
// what is sent (mutate, if set, rewrites it as an admission webhook would),
// and the answer is decoded into the object sent, an unstructured one into a
// new map, not into the one sent.
func overTheWire(mutate func(client.Object)) func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error {
	return func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		sent := obj.DeepCopyObject().(client.Object)
		if mutate != nil {
			mutate(sent)
		}
		if err := c.Create(ctx, sent, opts...); err != nil {
			return err
		}
		if u, ok := obj.(*unstructured.Unstructured); ok {
			u.Object = sent.(*unstructured.Unstructured).Object
			return nil
		}
		reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(sent).Elem())
		return nil
	}
}

func TestApplyTrustsACachedCopyOfItsOwnWrite(t *testing.T) {
	// edited, when set, changes what the cache shows.
	var edited func(*corev1.Service)
	cached := func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
		if err := c.Get(ctx, key, obj, opts...); err != nil {
			return err
		}
		if edited != nil {
			edited(obj.(*corev1.Service))
		}
		return nil
	}
	const rewritten = "rewritten"
	rewrite := func(s *corev1.Service) { s.Spec.Selector["app.kubernetes.io/component"] = rewritten }

	t.Run("at the resourceVersion the server gave our write, the copy is not compared", func(t *testing.T) {
		edited = nil
		r := newRig(t, interceptor.Funcs{Get: cached, Create: overTheWire(nil)})
		a := r.applier()
		desired := service("a-fe-service", 9030)
		expectResult(t, mustApply(t, a, desired), apply.Created, false, false)
		r.expectWrites(t, "create a-fe-service")
		// No real cache shows other content at the same resourceVersion; this
		// one does, so that a comparison would be seen restoring it.
		edited = rewrite
		expectResult(t, mustApply(t, a, desired), apply.Unchanged, false, false)
		r.expectWrites(t)

		// Control: the same edit at a newer resourceVersion is someone
		// else's, and is compared and restored.
		edited = func(s *corev1.Service) { rewrite(s); s.ResourceVersion = "999" }
		expectResult(t, mustApply(t, a, desired), apply.Restored, false, false)
		r.expectWrites(t, jsonPatch, "apply a-fe-service")
	})

	t.Run("an answer without every field sent is compared", func(t *testing.T) {
		// An admission webhook rewrites the selector on create: the server's
		// answer, and the cache's copy at its resourceVersion, lack what was sent.
		edited = nil
		r := newRig(t, interceptor.Funcs{Get: cached, Create: overTheWire(func(o client.Object) { rewrite(o.(*corev1.Service)) })})
		a := r.applier()
		desired := service("a-fe-service", 9030)
		expectResult(t, mustApply(t, a, desired), apply.Created, false, false)
		r.expectWrites(t, "create a-fe-service")
		expectResult(t, mustApply(t, a, desired), apply.Restored, false, false)
		r.expectWrites(t, jsonPatch, "apply a-fe-service")
	})

	t.Run("a client that decodes the answer into the map sent is not trusted", func(t *testing.T) {
		// An unstructured desired object is created as the map Desired
		// made of it (a typed one goes typed, and its answer is converted
		// to a map of its own), and the fake client writes the answer into
		// the object sent.
		edit := false
		r := newRig(t, interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := c.Get(ctx, key, obj, opts...); err != nil || !edit {
				return err
			}
			return unstructured.SetNestedField(obj.(*unstructured.Unstructured).Object, rewritten, "spec", "selector", "app.kubernetes.io/component")
		}})
		a := r.applier()
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(service("a-fe-service", 9030))
		if err != nil {
			t.Fatal(err)
		}
		desired := &unstructured.Unstructured{Object: m}
		desired.SetAPIVersion("v1")
		desired.SetKind("Service")
		expectResult(t, mustApply(t, a, desired), apply.Created, false, false)
		r.expectWrites(t, "create a-fe-service")
		edit = true
		expectResult(t, mustApply(t, a, desired), apply.Restored, false, false)
		r.expectWrites(t, jsonPatch, "apply a-fe-service")
	})
}

func TestApplyWithHashesSendsWhatTheyConverted(t *testing.T) {
	port := func(r *rig) int32 {
		t.Helper()
		return r.stored(t, service("a-fe-service", 0)).(*corev1.Service).Spec.Ports[0].Port
	}
	// Hashes converts desired for Written; desired then changes, which the
	// contract forbids, so that the request shows which conversion was sent.
	r := newRig(t, interceptor.Funcs{})
	h := apply.NewHashes()
	desired := service("a-fe-service", 9030)
	h.Written(&corev1.Service{}, desired)
	desired.Spec.Ports[0].Port = 9031
	expectResult(t, mustApply(t, r.applier().With(h), desired), apply.Created, false, false)
	if got := port(r); got != 9030 {
		t.Errorf("stored port %d, want 9030: the Applier converted desired again instead of sending what Hashes held", got)
	}

	// Control: without the Hashes, the Applier converts desired itself.
	r = newRig(t, interceptor.Funcs{})
	expectResult(t, mustApply(t, r.applier(), desired), apply.Created, false, false)
	if got := port(r); got != 9031 {
		t.Errorf("stored port %d, want 9031", got)
	}
}

// managers returns the field managers of the server's copy of obj, as
// "manager/Operation".
func (r *rig) managers(t *testing.T, obj client.Object) []string {
	t.Helper()
	var got []string
	for _, f := range r.stored(t, obj).GetManagedFields() {
		got = append(got, f.Manager+"/"+string(f.Operation))
	}
	slices.Sort(got)
	return got
}

const jsonPatch = "patch(" + string(types.JSONPatchType) + ") a-fe-service"

func TestApplyAdoptsFieldsOfUpdateManagers(t *testing.T) {
	t.Run("fields of our own create are handed over before the first apply", func(t *testing.T) {
		r := newRig(t, interceptor.Funcs{})
		a := r.applier()
		first := service("a-fe-service", 9030)
		first.Labels["dropped-later"] = "x"
		expectResult(t, mustApply(t, a, first), apply.Created, false, false)
		r.take()

		desired := service("a-fe-service", 9031)
		expectResult(t, mustApply(t, a, desired), apply.Updated, false, false)
		r.expectWrites(t, jsonPatch, "apply a-fe-service")
		live := r.stored(t, desired)
		if _, kept := live.GetLabels()["dropped-later"]; kept {
			t.Errorf("a label no longer desired survived the apply: %v", live.GetLabels())
		}
		if got := r.managers(t, desired); !slices.Equal(got, []string{owner + "/Apply"}) {
			t.Errorf("managers = %v, want our apply alone", got)
		}

		// Handed over once: the next change is an apply alone.
		mustApply(t, a, service("a-fe-service", 9032))
		r.expectWrites(t, "apply a-fe-service")
	})

	t.Run("fields of an AdoptFrom manager are handed over", func(t *testing.T) {
		r := newRig(t, interceptor.Funcs{})
		legacy := service("a-fe-service", 9030)
		legacy.Labels["legacy"] = "1"
		if err := r.store.Create(context.Background(), legacy, client.FieldOwner("sroperator")); err != nil {
			t.Fatal(err)
		}
		a := r.applier()
		a.AdoptFrom = []string{"sroperator"}
		desired := service("a-fe-service", 9030)
		expectResult(t, mustApply(t, a, desired), apply.Updated, false, false)
		r.expectWrites(t, jsonPatch, "apply a-fe-service")
		if _, kept := r.stored(t, desired).GetLabels()["legacy"]; kept {
			t.Error("a label only the old operator set survived the adoption")
		}
		if got := r.managers(t, desired); !slices.Equal(got, []string{owner + "/Apply"}) {
			t.Errorf("managers = %v, want our apply alone", got)
		}
	})

	t.Run("fields of other managers stay theirs", func(t *testing.T) {
		r := newRig(t, interceptor.Funcs{})
		made := service("a-fe-service", 9030)
		made.Labels["team"] = "db"
		if err := r.store.Create(context.Background(), made, client.FieldOwner("kubectl-create")); err != nil {
			t.Fatal(err)
		}
		a := r.applier()
		a.AdoptFrom = []string{"sroperator"}
		desired := service("a-fe-service", 9030)
		expectResult(t, mustApply(t, a, desired), apply.Updated, false, false)
		r.expectWrites(t, "apply a-fe-service")
		if got := r.stored(t, desired).GetLabels()["team"]; got != "db" {
			t.Errorf("another manager's label = %q, want it kept", got)
		}
	})

	t.Run("managedFields without field sets fail the adoption", func(t *testing.T) {
		r := newRig(t, interceptor.Funcs{})
		a := r.applier()
		mustApply(t, a, service("a-fe-service", 9030))
		r.take()
		a.Reader = r.client // reads as the cache does: no field sets
		_, err := a.Apply(context.Background(), service("a-fe-service", 9031))
		if err == nil || !strings.Contains(err.Error(), "without field sets") || !strings.Contains(err.Error(), "adopting Service a-fe-service") {
			t.Fatalf("Apply error = %v, want adopting Service a-fe-service to fail for managedFields without field sets", err)
		}
		r.expectWrites(t)
		if port := r.stored(t, service("a-fe-service", 9030)).(*corev1.Service).Spec.Ports[0].Port; port != 9030 {
			t.Errorf("stored port = %d, want the object untouched", port)
		}
	})
}

func TestApplyAll(t *testing.T) {
	isStatefulSet := func(o client.Object) bool { _, ok := o.(*appsv1.StatefulSet); return ok }

	t.Run("gating objects are sent before the others", func(t *testing.T) {
		var mu sync.Mutex
		var sent []string
		r := newRig(t, interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if isStatefulSet(obj) {
					// Slow to send: the others would overtake it if they did not wait.
					time.Sleep(50 * time.Millisecond)
				}
				mu.Lock()
				sent = append(sent, obj.GetName())
				mu.Unlock()
				return c.Create(ctx, obj, opts...)
			},
		})
		a := r.applier()
		a.Gating = isStatefulSet
		objs := []client.Object{service("a-fe-service", 9030), service("a-fe-search", 9010), statefulSet("a-fe"), service("a-fe-extra", 8030)}
		results, err := a.ApplyAll(context.Background(), objs)
		if err != nil {
			t.Fatalf("ApplyAll: %v", err)
		}
		if len(sent) != 4 || sent[0] != "a-fe" {
			t.Fatalf("creates sent in order %q, want the StatefulSet a-fe first", sent)
		}
		for i, res := range results {
			if res.Name != objs[i].GetName() || res.Action != apply.Created {
				t.Errorf("results[%d] = %+v, want %s created", i, res, objs[i].GetName())
			}
		}
		if results[2].Kind != "StatefulSet" {
			t.Errorf("results[2].Kind = %q, want StatefulSet", results[2].Kind)
		}
	})

	t.Run("every failure is reported, a failed gating write stops no other", func(t *testing.T) {
		failures := map[string]error{"a-fe": errors.New("quota exceeded"), "a-fe-search": errors.New("forbidden")}
		r := newRig(t, interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if err := failures[obj.GetName()]; err != nil {
					return err
				}
				return c.Create(ctx, obj, opts...)
			},
		})
		a := r.applier()
		a.Gating = isStatefulSet
		objs := []client.Object{statefulSet("a-fe"), service("a-fe-search", 9010), service("a-fe-service", 9030)}
		results, err := a.ApplyAll(context.Background(), objs)
		for name, want := range failures {
			if !errors.Is(err, want) {
				t.Errorf("ApplyAll error %v does not report %s's failure %q", err, name, want)
			}
		}
		want := []apply.Action{apply.Failed, apply.Failed, apply.Created}
		for i, res := range results {
			if res.Action != want[i] {
				t.Errorf("results[%d] = %+v, want %s", i, res, want[i])
			}
		}
		r.stored(t, service("a-fe-service", 9030))
	})
}

func TestDeleteAll(t *testing.T) {
	uid := types.UID("0b6f2d36-uid")
	existing := service("a-fe-service", 9030)
	existing.UID = uid
	deleting := service("a-fe-deleting", 9030)
	deleting.Finalizers = []string{"example.com/hold"}
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	r := newRig(t, interceptor.Funcs{}, existing, deleting)

	results, err := r.applier().DeleteAll(context.Background(), []client.Object{
		service("a-fe-missing", 9030), service("a-fe-service", 9030), service("a-fe-deleting", 9030),
	})
	if err != nil {
		t.Fatalf("DeleteAll: %v", err)
	}
	want := []apply.Action{apply.Unchanged, apply.Deleted, apply.Unchanged}
	for i, res := range results {
		if res.Action != want[i] {
			t.Errorf("results[%d] = %+v, want %s", i, res, want[i])
		}
	}
	w := r.expectWrites(t, "delete a-fe-service")
	opts := w[0].delete
	if opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != uid {
		t.Errorf("delete preconditions = %+v, want UID %s", opts.Preconditions, uid)
	}
	if opts.PropagationPolicy == nil || *opts.PropagationPolicy != metav1.DeletePropagationBackground {
		t.Errorf("delete propagation = %v, want Background", opts.PropagationPolicy)
	}
	err = r.store.Get(context.Background(), client.ObjectKeyFromObject(existing), &corev1.Service{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the deleted Service is still there (%v)", err)
	}

	t.Run("a failing delete is Failed with an error naming the object", func(t *testing.T) {
		refused := errors.New("etcd timeout")
		r := newRig(t, interceptor.Funcs{
			Delete: func(context.Context, client.WithWatch, client.Object, ...client.DeleteOption) error { return refused },
		}, service("a-fe-service", 9030))
		results, err := r.applier().DeleteAll(context.Background(), []client.Object{service("a-fe-service", 9030)})
		if !errors.Is(err, refused) || !strings.Contains(err.Error(), "deleting Service a-fe-service") {
			t.Fatalf("DeleteAll error = %v, want deleting Service a-fe-service to wrap %v", err, refused)
		}
		if results[0].Action != apply.Failed {
			t.Errorf("result = %+v, want failed", results[0])
		}
	})
}

func TestAnObjectAnotherOwnerControlsIsNeitherWrittenNorDeleted(t *testing.T) {
	controlledBy := func(name string, uid types.UID) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "starrocks.com/v1", Kind: "StarRocksWarehouse", Name: name, UID: uid, Controller: ptr.To(true)}}
	}
	// A warehouse x's Service; a cluster named x-warehouse wants the same name.
	theirs := service("x-warehouse-cn-service", 9050)
	theirs.OwnerReferences = controlledBy("x", "uid-warehouse")
	r := newRig(t, interceptor.Funcs{}, theirs)
	mine := service("x-warehouse-cn-service", 9060)
	mine.OwnerReferences = controlledBy("x-warehouse", "uid-cluster")
	mine.OwnerReferences[0].Kind = "StarRocksCluster"

	res, err := r.applier().Apply(context.Background(), mine)
	var exists *apply.ExistsError
	if !errors.As(err, &exists) || exists.Owner != "StarRocksWarehouse x" {
		t.Fatalf("Apply = %+v, %v; want an ExistsError naming the warehouse", res, err)
	}
	r.expectWrites(t)
	results, err := r.applier().DeleteAll(context.Background(), []client.Object{mine})
	if err != nil || results[0].Action != apply.Unchanged {
		t.Fatalf("DeleteAll = %+v, %v; want the warehouse's Service left alone", results, err)
	}
	r.expectWrites(t)
	if port := r.stored(t, theirs).(*corev1.Service).Spec.Ports[0].Port; port != 9050 {
		t.Errorf("the warehouse's Service was changed: port %d", port)
	}
}

// A Run's write left in flight is answered to the next Apply of the same
// object, which waits for it instead of sending a create of its own; the
// control shows what that saves: two Applies while a create is held both
// send one.
func TestARunLeavesAWriteInFlightForTheNextApply(t *testing.T) {
	isStatefulSet := func(o client.Object) bool { _, ok := o.(*appsv1.StatefulSet); return ok }
	held := func(release chan struct{}) interceptor.Funcs {
		return interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if obj.GetName() == "a-fe-service" {
				<-release
			}
			return c.Create(ctx, obj, opts...)
		}}
	}
	creates := func(r *rig, name string) int {
		n := 0
		for _, w := range r.take() {
			if w.verb == "create" && w.name == name {
				n++
			}
		}
		return n
	}

	t.Run("with a Run", func(t *testing.T) {
		release := make(chan struct{})
		r := newRig(t, held(release))
		a := r.applier()
		a.Gating = isStatefulSet
		ctx, cancel := context.WithCancel(context.Background())
		run := a.Begin(ctx, []client.Object{statefulSet("a-fe"), service("a-fe-service", 9030)})
		results, err := run.Wait(ctx, isStatefulSet)
		cancel() // the reconcile that began it is over; its write goes on
		if err != nil || len(results) != 1 || results[0].Action != apply.Created {
			t.Fatalf("Wait = %+v, %v; want the StatefulSet created", results, err)
		}
		done := make(chan apply.Result, 1)
		go func() {
			res, err := a.Apply(context.Background(), service("a-fe-service", 9030))
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		select {
		case res := <-done:
			t.Fatalf("Apply returned %+v while the Run's create was still held", res)
		case <-time.After(100 * time.Millisecond):
		}
		close(release)
		if res := <-done; res.Action != apply.Created {
			t.Errorf("Apply = %+v, want the Run's answer: created", res)
		}
		if n := creates(r, "a-fe-service"); n != 1 {
			t.Errorf("%d creates of the client Service, want 1", n)
		}
	})

	t.Run("control: without one", func(t *testing.T) {
		release := make(chan struct{})
		r := newRig(t, held(release))
		a := r.applier()
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() { _, _ = a.Apply(context.Background(), service("a-fe-service", 9030)) })
		}
		time.Sleep(100 * time.Millisecond)
		close(release)
		wg.Wait()
		if n := creates(r, "a-fe-service"); n != 2 {
			t.Errorf("%d creates, want 2: without a Run each Apply sends its own", n)
		}
	})
}
