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
)

// Lane is which of the reads' lanes a cluster's read waits in: a free
// slot goes to the first lane with a read waiting.
type Lane int

const (
	// Answering is a cluster whose FE answered its last read in full.
	Answering Lane = iota
	// Unread is a cluster whose FE was not read yet (a new cluster, an
	// operator just started): it may take any free slot, after the
	// answering clusters.
	Unread
	// Failing is a cluster whose FE did not answer its last read in full:
	// its reads hold at most half of the slots, so that FEs that do not
	// answer (each read then lasts its whole timeout) never keep the
	// answering clusters from being read.
	Failing
)

// Reads runs the door's reads of FE off the reconcile workers: at most a
// fixed number at once across the operator, at most one per cluster, and a
// read that cannot start now waits its turn, first come first served in
// its lane. A cluster is in the queue at most once, with the latest read
// asked of it. A free slot goes to the answering lane first, then to the
// clusters not read yet, then to the failing ones, which hold at most half
// of the slots (at least one); with the unread ones, at most three
// quarters: a quarter is kept for the answering lane. So a cluster whose FE answers waits at most
// for the next slot to free, however many FEs do not answer, and every
// failing cluster is read in turn.
type Reads struct {
	slots, failingSlots int
	// reserved slots are the answering lane's alone: the reads of
	// clusters not read yet and of failing ones hold at most slots -
	// reserved. A hundred new clusters whose FE drips its answers for
	// the whole read timeout would otherwise hold every slot, and each
	// read of an answering cluster would wait for one to end (the
	// hostile-tenant table: 6.6× slower before).
	reserved int

	mu      sync.Mutex
	running map[string]Lane
	// queue is, per lane, the keys waiting in order; job the read each waits with.
	queue [3][]string
	job   map[string]queued
}

type queued struct {
	lane Lane
	run  func()
}

// NewReads is a queue with that many slots; 0 starts no read ever (tests).
func NewReads(slots int) *Reads {
	return &Reads{slots: slots, failingSlots: max(1, slots/2), reserved: slots / 4, running: map[string]Lane{}, job: map[string]queued{}}
}

// Ask runs read for key in lane as soon as a slot of its lane is free: now,
// or when one ends. A key already waiting keeps its place and waits with
// this read (and lane) instead; a key whose read runs asks nothing (the
// read under way answers it). It reports whether the read started now.
func (r *Reads) Ask(key string, lane Lane, read func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, busy := r.running[key]; busy {
		return false
	}
	if _, waiting := r.job[key]; !waiting {
		r.queue[lane] = append(r.queue[lane], key)
	} else if old := r.job[key].lane; old != lane {
		r.queue[old] = remove(r.queue[old], key)
		r.queue[lane] = append(r.queue[lane], key)
	}
	r.job[key] = queued{lane: lane, run: read}
	return r.dispatch(key)
}

// Drop takes key's waiting read out of the queue (the cluster is gone); a
// running one ends as it will.
func (r *Reads) Drop(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if q, ok := r.job[key]; ok {
		r.queue[q.lane] = remove(r.queue[q.lane], key)
		delete(r.job, key)
	}
}

// Waiting is how many keys wait for a slot.
func (r *Reads) Waiting() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.job)
}

// Running is how many reads hold a slot.
func (r *Reads) Running() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.running)
}

// dispatch starts waiting reads while slots are free, answering lane
// first; it reports whether want's read started. r.mu is held.
func (r *Reads) dispatch(want string) bool {
	started := false
	for len(r.running) < r.slots {
		key, ok := r.next()
		if !ok {
			break
		}
		q := r.job[key]
		delete(r.job, key)
		r.queue[q.lane] = remove(r.queue[q.lane], key)
		r.running[key] = q.lane
		started = started || key == want
		go func() {
			defer r.done(key)
			q.run()
		}()
	}
	return started
}

// next is the first waiting key of a lane with a free slot.
func (r *Reads) next() (string, bool) {
	failing, unproven := 0, 0
	for _, l := range r.running {
		if l == Failing {
			failing++
		}
		if l != Answering {
			unproven++
		}
	}
	for _, lane := range []Lane{Answering, Unread, Failing} {
		if lane == Failing && failing >= r.failingSlots {
			continue
		}
		if lane != Answering && unproven >= r.slots-r.reserved {
			continue
		}
		if len(r.queue[lane]) > 0 {
			return r.queue[lane][0], true
		}
	}
	return "", false
}

func (r *Reads) done(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running, key)
	r.dispatch("")
}

func remove(keys []string, key string) []string {
	for i, k := range keys {
		if k == key {
			return append(keys[:i:i], keys[i+1:]...)
		}
	}
	return keys
}
