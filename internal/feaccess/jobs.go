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

package feaccess

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Jobs runs talks with FE off the reconcile workers: at most a fixed
// number at once across the operator, at most one per key. A job that
// cannot start now (its key busy, or every slot taken) is not queued: the
// reconcile that asked looks again later. The door's reads run on one
// pool; the CN cleanup runs its drops on another.
type Jobs struct {
	slots chan struct{}
	mu    sync.Mutex
	busy  map[types.UID]bool
}

// NewJobs is a pool of that many slots; 0 starts no job ever (tests).
func NewJobs(slots int) *Jobs {
	return &Jobs{slots: make(chan struct{}, slots), busy: map[types.UID]bool{}}
}

// Start runs job in a goroutine when a slot is free and key has none
// running; it reports whether it did.
func (j *Jobs) Start(key types.UID, job func()) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.busy[key] {
		return false
	}
	select {
	case j.slots <- struct{}{}:
	default:
		return false
	}
	j.busy[key] = true
	go func() {
		defer func() {
			j.mu.Lock()
			delete(j.busy, key)
			j.mu.Unlock()
			<-j.slots
		}()
		job()
	}()
	return true
}

// Busy reports whether a job of key runs.
func (j *Jobs) Busy(key types.UID) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.busy[key]
}

// Running is how many jobs hold a slot.
func (j *Jobs) Running() int { return len(j.slots) }
