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
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Memos is the registry of what a reconciler remembers per object between
// reconciles. Each memory registers how to forget an object when it is
// made; Forget, called once when the object is gone or left alone, forgets
// it in all of them. No object that goes is forgotten by hand, memory by
// memory, so none is forgotten by mistake: memory follows the objects there
// are, not every object there ever was. (What a step no longer needs of an
// object that stays, it drops itself: the executor of StarRocks steps keeps
// no empty memory.)
//
// Keys are the object's namespace and name: an object that is gone is
// known only by them. A memory whose entries must not outlive one
// incarnation of an object keeps the UID in the value and checks it.
//
// What must outlive the process is not remembered here: it belongs on the
// object, in its status or an annotation.
type Memos struct {
	mu      sync.Mutex
	forgets []func(types.NamespacedName)
}

// NewMemos returns an empty registry.
func NewMemos() *Memos { return &Memos{} }

// Register adds a memory's forget. A nil registry registers nothing, for
// memories made outside a reconciler (in unit tests).
func (m *Memos) Register(forget func(types.NamespacedName)) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forgets = append(m.forgets, forget)
}

// Forget forgets key in every memory.
func (m *Memos) Forget(key types.NamespacedName) {
	m.mu.Lock()
	forgets := append([]func(types.NamespacedName){}, m.forgets...)
	m.mu.Unlock()
	for _, f := range forgets {
		f(key)
	}
}

// Memo is one memory: a value per object, safe for the reconcile workers
// and the FE jobs that share it, forgotten with the object.
type Memo[V any] struct {
	mu sync.Mutex
	m  map[types.NamespacedName]V
}

// NewMemo returns an empty memory registered with memos, its entries keyed
// by the reconciled object's key.
func NewMemo[V any](memos *Memos) *Memo[V] {
	mm := &Memo[V]{m: map[types.NamespacedName]V{}}
	memos.Register(mm.Forget)
	return mm
}

// NewMemoOf returns an empty memory registered with memos, its entries
// keyed by the objects keysOf names for a reconciled object (its
// StatefulSets, say): those are forgotten with it.
func NewMemoOf[V any](memos *Memos, keysOf func(types.NamespacedName) []types.NamespacedName) *Memo[V] {
	mm := &Memo[V]{m: map[types.NamespacedName]V{}}
	memos.Register(func(key types.NamespacedName) {
		for _, k := range keysOf(key) {
			mm.Forget(k)
		}
	})
	return mm
}

// Get returns key's value, and whether there is one.
func (mm *Memo[V]) Get(key types.NamespacedName) (V, bool) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	v, ok := mm.m[key]
	return v, ok
}

// Put sets key's value.
func (mm *Memo[V]) Put(key types.NamespacedName, v V) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	mm.m[key] = v
}

// Update sets key's value to what f makes of the current one (and whether
// there is one); f returning false deletes it. f runs under the memory's
// lock: it must not call the memory.
func (mm *Memo[V]) Update(key types.NamespacedName, f func(v V, ok bool) (V, bool)) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	old, had := mm.m[key]
	if v, keep := f(old, had); keep {
		mm.m[key] = v
	} else {
		mm.delete(key)
	}
}

// Forget drops key's value.
func (mm *Memo[V]) Forget(key types.NamespacedName) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	mm.delete(key)
}

// Take returns key's value, and whether there was one, and forgets it.
func (mm *Memo[V]) Take(key types.NamespacedName) (V, bool) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	v, ok := mm.m[key]
	mm.delete(key)
	return v, ok
}

// delete drops key; an empty map is made anew, as a Go map keeps the room
// of its largest size (a burst of thousands of new clusters) after deletes.
func (mm *Memo[V]) delete(key types.NamespacedName) {
	delete(mm.m, key)
	if len(mm.m) == 0 {
		mm.m = map[types.NamespacedName]V{}
	}
}

// Len is the number of objects remembered.
func (mm *Memo[V]) Len() int {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	return len(mm.m)
}
