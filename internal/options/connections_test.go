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

package options

import (
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// streamServer is an HTTP/2 server that, like kube-apiserver, allows 100
// streams per connection, and records the connection of each request.
type streamServer struct {
	*httptest.Server
	mu      sync.Mutex
	byConn  map[string]int
	agents  map[string]bool
	hold    chan struct{} // closed when enough requests are in flight
	want    int
	arrived int
}

func newStreamServer(t *testing.T) *streamServer {
	t.Helper()
	s := &streamServer{byConn: map[string]int{}, agents: map[string]bool{}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.byConn[r.RemoteAddr]++
		s.agents[r.UserAgent()] = true
		s.arrived++
		hold := s.hold
		if hold != nil && s.arrived == s.want {
			close(hold)
		}
		s.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-time.After(5 * time.Second):
			}
		}
		_, _ = w.Write([]byte("{}"))
	}))
	s.EnableHTTP2 = true
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the control's extra dials end in handshake errors at Close
	s.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 100}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *streamServer) config() *rest.Config {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	return &rest.Config{Host: s.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
}

// reset starts counting anew; with want > 0, each request is answered only
// once want requests are in flight together (or after 5 s).
func (s *streamServer) reset(want int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byConn, s.agents, s.arrived, s.want = map[string]int{}, map[string]bool{}, 0, want
	s.hold = nil
	if want > 0 {
		s.hold = make(chan struct{})
	}
}

func (s *streamServer) conns() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.byConn))
	for k, v := range s.byConn {
		out[k] = v
	}
	return out
}

func get(t *testing.T, c *http.Client, addr string) {
	t.Helper()
	resp, err := c.Get(addr)
	if err != nil {
		t.Error(err)
		return
	}
	_ = resp.Body.Close()
}

// burst sends n requests at once and waits for their answers.
func burst(t *testing.T, c *http.Client, addr string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { get(t, c, addr) })
	}
	wg.Wait()
}

func TestHTTPClientCarriesABurstOnItsOpenConnections(t *testing.T) {
	srv := newStreamServer(t)
	const inFlight = 300 // 100 clusters' Services and status at once

	warm := func(c *http.Client) map[string]int {
		srv.reset(0)
		for range 2 * APIConnections {
			get(t, c, srv.URL+"/api")
		}
		return srv.conns()
	}

	t.Run("spread over the operator's connections", func(t *testing.T) {
		c, err := HTTPClient(srv.config())
		if err != nil {
			t.Fatal(err)
		}
		opened := warm(c)
		if len(opened) != APIConnections {
			t.Fatalf("%d requests in turn used %d connections, want %d: %v", 2*APIConnections, len(opened), APIConnections, opened)
		}
		srv.reset(APIConnections)
		burst(t, c, srv.URL+"/api/v1/pods?watch=true", APIConnections)
		if got := srv.conns(); len(got) != APIConnections {
			t.Errorf("%d watches went over %d connections, want one on each: %v", APIConnections, len(got), got)
		}

		srv.reset(inFlight)
		burst(t, c, srv.URL+"/api", inFlight)
		got := srv.conns()
		for addr, n := range got {
			if opened[addr] == 0 {
				t.Errorf("the burst dialled a new connection (%s, %d requests); opened before: %v", addr, n, opened)
			}
			if n != inFlight/APIConnections {
				t.Errorf("connection %s carried %d of %d requests, want %d", addr, n, inFlight, inFlight/APIConnections)
			}
		}
		program, _, _ := strings.Cut(rest.DefaultKubernetesUserAgent(), "/")
		for agent := range srv.agents {
			if !strings.HasPrefix(agent, program+"/") {
				t.Errorf("user agent %q, want client-go's default %q", agent, rest.DefaultKubernetesUserAgent())
			}
		}
	})

	// Control: client-go's own client shares one connection and dials more
	// while the burst is in flight, each new one costing a TLS handshake.
	t.Run("control: client-go's default client", func(t *testing.T) {
		c, err := rest.HTTPClientFor(srv.config())
		if err != nil {
			t.Fatal(err)
		}
		opened := warm(c)
		if len(opened) != 1 {
			t.Fatalf("client-go's client used %d connections in turn, want 1: %v", len(opened), opened)
		}
		srv.reset(inFlight)
		burst(t, c, srv.URL+"/api", inFlight)
		dialled := 0
		for addr := range srv.conns() {
			if opened[addr] == 0 {
				dialled++
			}
		}
		if dialled == 0 {
			t.Errorf("%d requests at once over one 100-stream connection dialled no other; the spread would be pointless", inFlight)
		}
		t.Logf("client-go's default client: %d requests at once dialled %d new connections", inFlight, dialled)
	})
}

func TestHTTPClientKeepsTheKubeconfigsProxy(t *testing.T) {
	srv := newStreamServer(t)
	cfg := srv.config()
	var asked atomic.Int32
	cfg.Proxy = func(*http.Request) (*url.URL, error) { asked.Add(1); return nil, nil } // proxy-url, answering "direct"
	c, err := HTTPClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get(t, c, srv.URL+"/api")
	if asked.Load() == 0 {
		t.Error("the kubeconfig's proxy was never asked: HTTPClient replaced it")
	}
}
