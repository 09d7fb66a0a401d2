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

package reconcile

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
)

// StatusPath reads objects of one kind (T, a pointer) and writes their
// status (S). It remembers the status this process last wrote per object,
// so that a reconcile that runs before the cache shows it computes from it:
// computed from the stale copy, the status would differ from what we wrote,
// and be written again.
type StatusPath[T client.Object, S any] struct {
	client   client.Client
	owner    string
	kind     string
	newObj   func() T
	statusOf func(T) *S
	recent   *apply.Recent[S]
	// others are the status fields another writer owns (LeaveOut).
	others []string
}

// NewStatusPath returns the status path of kind, written as field owner
// owner; it forgets an object's remembered status through memos.
func NewStatusPath[T client.Object, S any](c client.Client, owner, kind string, newObj func() T, statusOf func(T) *S, memos *Memos) *StatusPath[T, S] {
	p := &StatusPath[T, S]{client: c, owner: owner, kind: kind, newObj: newObj, statusOf: statusOf, recent: apply.NewRecent[S]()}
	memos.Register(func(key types.NamespacedName) { p.recent.Forget(key.String()) })
	return p
}

// LeaveOut names top-level status fields another controller writes: the
// status compared still holds them (as read), but the apply leaves them
// out, so that a copy read before that controller's write never puts its
// old value back.
func (p *StatusPath[T, S]) LeaveOut(fields ...string) *StatusPath[T, S] {
	p.others = append(p.others, fields...)
	return p
}

// Get reads the object from the cache, with the status this process last
// wrote in place of an older cached one. ok is false for an object that is gone.
func (p *StatusPath[T, S]) Get(ctx context.Context, key types.NamespacedName) (obj T, ok bool, err error) {
	obj = p.newObj()
	if err := p.client.Get(ctx, key, obj); err != nil {
		return obj, false, client.IgnoreNotFound(err)
	}
	p.Ahead(obj)
	return obj, true, nil
}

// Ahead puts into obj the status this process wrote after the copy obj was read from.
func (p *StatusPath[T, S]) Ahead(obj T) {
	if st, ok := p.recent.Ahead(client.ObjectKeyFromObject(obj).String(), obj.GetResourceVersion()); ok {
		*p.statusOf(obj) = deepCopy(st)
	}
}

// Write writes the status subresource only when st differs from obj's:
// a server-side apply of the whole status, so that fields st no longer has
// are removed even when the copy compared with was stale, which a merge
// patch computed against that copy would miss. An object gone meanwhile is no error.
func (p *StatusPath[T, S]) Write(ctx context.Context, obj T, st S) (bool, error) {
	if equality.Semantic.DeepEqual(*p.statusOf(obj), st) {
		return false, nil
	}
	body, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if err != nil {
		return false, err
	}
	for _, f := range p.others {
		delete(body, f)
	}
	patched := &unstructured.Unstructured{Object: map[string]any{"status": body}}
	patched.SetGroupVersionKind(srv1.GroupVersion.WithKind(p.kind))
	patched.SetNamespace(obj.GetNamespace())
	patched.SetName(obj.GetName())
	if err := p.client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(patched), client.FieldOwner(p.owner), client.ForceOwnership); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("writing status of %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	p.recent.Record(client.ObjectKeyFromObject(obj).String(), patched.GetResourceVersion(), deepCopy(st))
	return true, nil
}

// deepCopy copies a status through its generated DeepCopy.
func deepCopy[S any](st S) S {
	if c, ok := any(&st).(interface{ DeepCopy() *S }); ok {
		return *c.DeepCopy()
	}
	return st
}

// Recent is what this process last wrote of each object's status: what a
// reconcile reads to know the status it just wrote (a recovery it just
// reported done, say), and what tests fill.
func (p *StatusPath[T, S]) Recent() *apply.Recent[S] { return p.recent }
