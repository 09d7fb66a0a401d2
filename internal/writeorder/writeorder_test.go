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

package writeorder

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// A server that holds requests to /slow until release is closed.
func holdingServer(t *testing.T) (*httptest.Server, chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
	}))
	t.Cleanup(srv.Close)
	return srv, release
}

func send(ctx context.Context, c *http.Client, method, url string) <-chan error {
	done := make(chan error, 1)
	go func() {
		req, err := http.NewRequestWithContext(ctx, method, url, http.NoBody)
		if err != nil {
			done <- err
			return
		}
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	return done
}

func finished(ch <-chan error, within time.Duration) bool {
	select {
	case err := <-ch:
		return err == nil
	case <-time.After(within):
		return false
	}
}

func TestAWriteWaitsForAnotherClustersGatingWriteInFlight(t *testing.T) {
	srv, release := holdingServer(t)
	o := New()
	var waited []time.Duration
	o.Waited = func(d time.Duration) { waited = append(waited, d) }
	c := &http.Client{Transport: o.Wrap(http.DefaultTransport)}
	a, b := WithOwner(context.Background(), "ns/a"), WithOwner(context.Background(), "ns/b")

	onWire := make(chan struct{})
	gating := send(OnSend(Gating(a), func() { close(onWire) }), c, http.MethodPost, srv.URL+"/slow")
	select {
	case <-onWire: // told while the server still holds it
	case <-time.After(5 * time.Second):
		t.Fatal("OnSend was not called for a gating write in flight")
	}
	other := send(b, c, http.MethodPatch, srv.URL+"/fast")
	own := send(a, c, http.MethodPatch, srv.URL+"/fast")
	unowned := send(context.Background(), c, http.MethodPost, srv.URL+"/fast")
	read := send(b, c, http.MethodGet, srv.URL+"/fast")

	if !finished(own, 5*time.Second) {
		t.Error("a write waited for its own cluster's gating write")
	}
	if !finished(unowned, 5*time.Second) || !finished(read, 5*time.Second) {
		t.Error("a write outside a reconcile, or a read, waited")
	}
	if finished(other, 200*time.Millisecond) {
		t.Fatal("another cluster's write went ahead of a gating write in flight")
	}
	close(release)
	if !finished(gating, 5*time.Second) || !finished(other, 5*time.Second) {
		t.Fatal("the writes did not complete once the gating write had")
	}
	if len(waited) != 1 || waited[0] < 200*time.Millisecond {
		t.Errorf("waits observed %v, want one of at least 200 ms", waited)
	}
}

func TestAWaitEndsWithItsContext(t *testing.T) {
	srv, release := holdingServer(t)
	defer close(release)
	o := New()
	c := &http.Client{Transport: o.Wrap(http.DefaultTransport)}
	send(Gating(WithOwner(context.Background(), "ns/a")), c, http.MethodPost, srv.URL+"/slow")
	for !inflight(o) {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(WithOwner(context.Background(), "ns/b"))
	w := send(ctx, c, http.MethodPatch, srv.URL+"/fast")
	cancel()
	select {
	case err := <-w:
		if err == nil {
			t.Error("a cancelled write succeeded while a gating write held it")
		}
	case <-time.After(5 * time.Second):
		t.Error("a cancelled write kept waiting")
	}
}

func inflight(o *Order) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.inflight) > 0
}

// An early create (a client Service, whose ClusterIP the API server
// allocates one at a time) goes while another cluster's gating write is in
// flight; an early update, and a write without the mark, still wait.
func TestAnEarlyCreateDoesNotWaitForOtherClusters(t *testing.T) {
	srv, release := holdingServer(t)
	releaseOnce := sync.OnceFunc(func() { close(release) })
	defer releaseOnce() // a failure below must not leave the server holding a request
	o := New()
	c := &http.Client{Transport: o.Wrap(http.DefaultTransport)}
	a, b := WithOwner(context.Background(), "ns/a"), WithOwner(context.Background(), "ns/b")
	gating := send(Gating(a), c, http.MethodPost, srv.URL+"/slow")
	for !inflight(o) {
		time.Sleep(time.Millisecond)
	}
	early := send(Early(b), c, http.MethodPost, srv.URL+"/fast")
	earlyUpdate := send(Early(b), c, http.MethodPatch, srv.URL+"/fast")
	plain := send(b, c, http.MethodPost, srv.URL+"/fast")
	if !finished(early, 5*time.Second) {
		t.Fatal("an early create waited for another cluster's gating write")
	}
	if finished(earlyUpdate, 200*time.Millisecond) || finished(plain, 10*time.Millisecond) {
		t.Fatal("an early update, or a create without the mark, went ahead of another cluster's gating write")
	}
	releaseOnce()
	if !finished(gating, 5*time.Second) || !finished(earlyUpdate, 5*time.Second) || !finished(plain, 5*time.Second) {
		t.Fatal("the writes did not complete once the gating write had")
	}
}
