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

import "sync"

// keyed is what the Applier remembers per object (by kind, namespace and
// name), shared by the goroutines of ApplyAll. A nil keyed remembers nothing.
type keyed[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

func newKeyed[T any]() *keyed[T] { return &keyed[T]{m: map[string]T{}} }

func (k *keyed[T]) set(key string, v T) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[key] = v
}

func (k *keyed[T]) get(key string) (T, bool) {
	var zero T
	if k == nil {
		return zero, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[key]
	return v, ok
}

// drop forgets key; an empty map is made anew, as a Go map keeps the room
// of its largest size (a burst of thousands of new clusters) after deletes.
func (k *keyed[T]) drop(key string) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, key)
	if len(k.m) == 0 {
		k.m = map[string]T{}
	}
}

func (k *keyed[T]) len() int {
	if k == nil {
		return 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.m)
}
