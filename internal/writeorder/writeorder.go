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

// Package writeorder lets the writes that new clusters wait for reach the
// API server ahead of the writes that nothing waits for.
//
// A new cluster is usable once its FE StatefulSet exists; its Services,
// status and the rest can follow. When many clusters are reconciled at once,
// all their writes reach the API server together and share its CPU, so the
// StatefulSets finish as late as the slowest of the rest. Here, a write made
// in a reconcile that does not gate readiness waits until the gating writes
// of other reconciles that are in flight at that moment have completed. It
// never waits for writes that start later, nor for its own reconcile's, so
// the wait is at most one gating write's round trip, and with one worker
// (the default) nothing ever waits.
//
// One kind of write is exempt: a create marked Early starts a line on the
// API server that its own cluster's readiness does not wait for but that
// serves one request at a time. kube-apiserver allocates a Service's
// ClusterIP under one lock for the whole server, held across the write of
// the IPAddress object (pkg/registry/core/service/ipallocator,
// MetaAllocator.AllocateNextService), so the client Services of a burst of
// new clusters are created one after the other. Held back until the other
// clusters' StatefulSets are done, that line would start a round trip late
// and make every client Service later by as much.
//
// The order is kept in an HTTP transport (rest.Config.Wrap), below the
// client-side rate limiter: a write that waits for a token is not in flight.
// Reconciles mark their context with WithOwner, gating writes with Gating,
// and early creates with Early.
package writeorder

import (
	"context"
	"net/http"
	"sync"
	"time"
)

type ownerKey struct{}

type gatingKey struct{}

// WithOwner marks ctx as a reconcile of owner (a cluster's namespace/name):
// its writes take part in the ordering. Writes without an owner (Events,
// leader election) pass at once.
func WithOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// Gating marks the writes made with ctx as gating readiness.
func Gating(ctx context.Context) context.Context {
	return context.WithValue(ctx, gatingKey{}, true)
}

type earlyKey struct{}

// Early marks a create made with ctx as one that waits for no other
// owner's gating writes (see the package comment). It applies to creates
// only: an update allocates nothing.
func Early(ctx context.Context) context.Context {
	return context.WithValue(ctx, earlyKey{}, true)
}

type sentKey struct{}

// OnSend makes the transport call sent once a gating write made with ctx
// is in flight: the caller can hold its other writes until then, so that
// its own cluster's gating write is on the wire first.
func OnSend(ctx context.Context, sent func()) context.Context {
	return context.WithValue(ctx, sentKey{}, sent)
}

// Order tracks gating writes in flight. One Order serves every client built
// from a rest.Config; see Wrap.
type Order struct {
	mu       sync.Mutex
	inflight map[*gatingWrite]struct{}
	// Waited, if set, observes how long each non-gating write waited.
	Waited func(time.Duration)
}

type gatingWrite struct {
	owner string
	done  chan struct{}
}

// New returns an empty Order.
func New() *Order {
	return &Order{inflight: map[*gatingWrite]struct{}{}}
}

// Wrap is a rest.Config WrapTransport.
func (o *Order) Wrap(rt http.RoundTripper) http.RoundTripper {
	return transport{order: o, next: rt}
}

type transport struct {
	order *Order
	next  http.RoundTripper
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	owner, ok := ctx.Value(ownerKey{}).(string)
	if !ok || !isWrite(req.Method) {
		return t.next.RoundTrip(req)
	}
	if ctx.Value(gatingKey{}) != nil {
		defer t.order.begin(owner)()
		if sent, ok := ctx.Value(sentKey{}).(func()); ok {
			sent()
		}
		return t.next.RoundTrip(req)
	}
	if ctx.Value(earlyKey{}) != nil && req.Method == http.MethodPost {
		return t.next.RoundTrip(req)
	}
	if err := t.order.waitOthers(ctx, owner); err != nil {
		return nil, err
	}
	return t.next.RoundTrip(req)
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// begin records a gating write of owner in flight; the returned func ends it.
func (o *Order) begin(owner string) func() {
	w := &gatingWrite{owner: owner, done: make(chan struct{})}
	o.mu.Lock()
	o.inflight[w] = struct{}{}
	o.mu.Unlock()
	return func() {
		o.mu.Lock()
		delete(o.inflight, w)
		o.mu.Unlock()
		close(w.done)
	}
}

// waitOthers waits until the gating writes of other owners in flight now
// have completed.
func (o *Order) waitOthers(ctx context.Context, owner string) error {
	o.mu.Lock()
	var pending []chan struct{}
	for w := range o.inflight {
		if w.owner != owner {
			pending = append(pending, w.done)
		}
	}
	o.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	start := time.Now()
	for _, done := range pending {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if o.Waited != nil {
		o.Waited(time.Since(start))
	}
	return nil
}
