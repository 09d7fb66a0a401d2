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
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// heldReads records which keys' reads ran, and holds each until released.
type heldReads struct {
	mu      sync.Mutex
	started []string
	release map[string]chan struct{}
}

func (h *heldReads) read(key string) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.release == nil {
		h.release = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	h.release[key] = ch
	return func() {
		h.mu.Lock()
		h.started = append(h.started, key)
		h.mu.Unlock()
		<-ch
	}
}

func (h *heldReads) end(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.release[key])
}

func (h *heldReads) ran() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.started)
}

// waitRan waits until n reads started, and returns them.
func (h *heldReads) waitRan(t *testing.T, n int) []string {
	t.Helper()
	for range 500 {
		if got := h.ran(); len(got) >= n {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("reads ran %v, want %d", h.ran(), n)
	return nil
}

func settle(t *testing.T, r *Reads, running int) {
	t.Helper()
	for range 500 {
		if r.Running() == running {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%d reads running, want %d", r.Running(), running)
}

// Issue 34 item 25: eight slots, no queue, and FEs that do not answer
// starved the clusters whose FE answers. Each case asks in the order
// given; a failing cluster's read lasts until the test ends it.
func TestFEReadsAreFairAndFailingFEsHoldAtMostHalfTheSlots(t *testing.T) {
	t.Run("failing FEs fill their half; an answering cluster starts at once", func(t *testing.T) {
		r, h := NewReads(8), &heldReads{}
		for i := range 20 {
			key := fmt.Sprint("dead-", i)
			r.Ask(key, Failing, h.read(key))
		}
		settle(t, r, 4)
		if !r.Ask("live", Answering, h.read("live")) {
			t.Fatalf("the answering cluster waits behind %d failing ones (%d running)", r.Waiting(), r.Running())
		}
		if w := r.Waiting(); w != 16 {
			t.Errorf("%d reads wait, want the 16 failing ones beyond their 4 slots", w)
		}
	})
	t.Run("new clusters whose first read hangs leave a quarter of the slots; an answering cluster starts at once", func(t *testing.T) {
		r, h := NewReads(8), &heldReads{}
		for i := range 100 {
			key := fmt.Sprint("drips-", i)
			r.Ask(key, Unread, h.read(key))
		}
		settle(t, r, 6)
		if !r.Ask("live", Answering, h.read("live")) {
			t.Fatalf("the answering cluster waits behind %d new ones (%d running)", r.Waiting(), r.Running())
		}
	})
	t.Run("every failing cluster is read in turn, first asked first", func(t *testing.T) {
		r, h := NewReads(2), &heldReads{}
		for i := range 5 {
			key := fmt.Sprint("dead-", i)
			r.Ask(key, Failing, h.read(key))
		}
		for i := range 5 {
			got := h.waitRan(t, i+1)
			key := fmt.Sprint("dead-", i)
			if len(got) != i+1 || got[i] != key || r.Running() != 1 {
				t.Fatalf("reads ran %v, want %s next", got, key)
			}
			// Asked again while it runs: nothing more is queued for it.
			if r.Ask(key, Failing, func() {}) {
				t.Fatalf("%s started twice at once", key)
			}
			h.end(key)
		}
	})
	t.Run("answering clusters wait in order, ahead of failing ones", func(t *testing.T) {
		r, h := NewReads(2), &heldReads{}
		for _, key := range []string{"a", "b", "c"} {
			r.Ask(key, Answering, h.read(key))
		}
		r.Ask("dead", Failing, h.read("dead"))
		h.waitRan(t, 2)
		h.end("a")
		h.waitRan(t, 3)
		h.end("b")
		// a and b start together, in either order.
		if got := h.waitRan(t, 4); got[2] != "c" || got[3] != "dead" {
			t.Errorf("reads ran %v, want a, b, c, then dead", got)
		}
	})
	t.Run("a cluster asked again waits once, with its newest read; a dropped one not at all", func(t *testing.T) {
		r, h := NewReads(1), &heldReads{}
		r.Ask("busy", Answering, h.read("busy"))
		first, second := false, false
		r.Ask("x", Answering, func() { first = true })
		r.Ask("x", Failing, func() { second = true })
		r.Ask("gone", Answering, h.read("gone"))
		r.Drop("gone")
		if w := r.Waiting(); w != 1 {
			t.Fatalf("%d reads wait, want x's once", w)
		}
		h.end("busy")
		settle(t, r, 0)
		if first || !second || slices.Contains(h.ran(), "gone") {
			t.Errorf("first read ran %v, newest %v, dropped ran %v; want only the newest", first, second, slices.Contains(h.ran(), "gone"))
		}
	})
	t.Run("no slots: nothing ever runs (the tests' door)", func(t *testing.T) {
		r, h := NewReads(0), &heldReads{}
		if r.Ask("a", Answering, h.read("a")) || r.Running() != 0 {
			t.Error("a read started without a slot")
		}
	})
}
