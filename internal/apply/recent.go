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

package apply

import (
	"strconv"
	"sync"
	"time"
)

// RecentWindow bounds how long a write of ours is trusted over a cache that
// has not shown it yet; past it, the cache is believed again (someone may
// have deleted or changed the object right after we wrote it).
const RecentWindow = 10 * time.Second

// Recent remembers this process's last write of each object (or of its
// status) for RecentWindow. Informers deliver our own writes a little later
// than the response: a reconcile that runs in between would otherwise act on
// the old copy and write the same again. It is the one "own write not yet in
// the cache" mechanism of the operator, for objects and for status alike.
type Recent[T any] struct {
	mu sync.Mutex
	m  map[string]recentWrite[T]
	// swept is when old entries were last dropped: at most once per
	// RecentWindow, so that a write costs O(1), not a walk of every entry
	// (with thousands of clusters created at once, that walk under the
	// mutex made each write O(n) and the operator's CPU O(n²)). The map
	// holds at most the writes of two windows.
	swept time.Time
}

type recentWrite[T any] struct {
	value T
	rv    uint64
	at    time.Time
}

// NewRecent returns an empty memory.
func NewRecent[T any]() *Recent[T] { return &Recent[T]{m: map[string]recentWrite[T]{}} }

// Record remembers that we wrote value to key, which the server stamped with
// resourceVersion. Versions that are not numbers are not remembered.
func (r *Recent[T]) Record(key, resourceVersion string, value T) {
	if r == nil {
		return
	}
	v, err := strconv.ParseUint(resourceVersion, 10, 64)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	r.m[key] = recentWrite[T]{value: value, rv: v, at: now}
	if now.Sub(r.swept) > RecentWindow {
		// Keep the map small: old entries are worthless. A new map, because
		// a Go map keeps the room of its largest size after deletes.
		r.swept = now
		live := make(map[string]recentWrite[T], len(r.m)/2)
		for k, w := range r.m {
			if now.Sub(w.at) <= RecentWindow {
				live[k] = w
			}
		}
		r.m = live
	}
}

// Forget drops what is remembered of key: the object is gone.
func (r *Recent[T]) Forget(key string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, key)
	if len(r.m) == 0 {
		r.m = map[string]recentWrite[T]{} // give back the room of a burst
	}
}

// Len is how many writes are remembered.
func (r *Recent[T]) Len() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}

// Ahead returns our last write of key when the cache's copy predates it:
// cachedRV is the cache's resourceVersion, "" when the cache has no copy.
// Resource versions are compared as numbers, as etcd issues them.
func (r *Recent[T]) Ahead(key, cachedRV string) (T, bool) {
	var zero T
	if r == nil {
		return zero, false
	}
	r.mu.Lock()
	w, ok := r.m[key]
	r.mu.Unlock()
	if !ok || time.Since(w.at) > RecentWindow {
		return zero, false
	}
	if cachedRV == "" {
		return w.value, true
	}
	v, err := strconv.ParseUint(cachedRV, 10, 64)
	if err != nil || v >= w.rv {
		return zero, false
	}
	return w.value, true
}
