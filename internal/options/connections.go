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
	"fmt"
	"net/http"
	"sync/atomic"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
)

// APIConnections is how many HTTP/2 connections to the API server the
// operator keeps open.
//
// kube-apiserver lets one connection carry 100 streams at a time, and
// client-go shares one connection between every client of a process. When
// more requests are in flight (a burst of new clusters: each sends its
// Services and status at once, and the watches hold a stream each), Go's
// HTTP/2 transport dials a new TLS connection for the request that does not
// fit, and that request reaches the API server one round trip or more late.
// Four connections, opened at start by the informers and kept open by the
// watches spread over them, carry 400 streams without a dial.
const APIConnections = 4

// HTTPClient returns the HTTP client for the manager: cfg's transport, its
// wrappers (write order, request metrics) applied once on top, over
// APIConnections separate connections. Requests go to them in turn; watches
// have their own turn, so that every connection holds a watch and is never
// closed as idle.
func HTTPClient(cfg *rest.Config) (*http.Client, error) {
	base := rest.CopyConfig(cfg)
	base.WrapTransport = nil
	if base.UserAgent == "" {
		base.UserAgent = rest.DefaultKubernetesUserAgent() // as controller-runtime's own client does
	}
	// A config with a Proxy is never served from client-go's transport
	// cache, so each call below gets a transport, and a connection, of its
	// own. A kubeconfig's proxy-url is kept; otherwise this is the Proxy
	// client-go sets by default.
	if base.Proxy == nil {
		base.Proxy = utilnet.NewProxierWithNoProxyCIDR(http.ProxyFromEnvironment)
	}
	s := &spread{conns: make([]http.RoundTripper, APIConnections)}
	for i := range s.conns {
		rt, err := rest.TransportFor(base)
		if err != nil {
			return nil, fmt.Errorf("building API connection %d: %w", i, err)
		}
		s.conns[i] = rt
	}
	var rt http.RoundTripper = s
	if cfg.WrapTransport != nil {
		rt = cfg.WrapTransport(rt)
	}
	return &http.Client{Transport: rt, Timeout: cfg.Timeout}, nil
}

// UseConnections makes the manager's client and its informers talk to the
// API server over one HTTPClient(cfg). (Events, the API reader and
// discovery keep client-go's own connection.)
func UseConnections(mo *ctrl.Options, cfg *rest.Config) error {
	hc, err := HTTPClient(cfg)
	if err != nil {
		return err
	}
	mo.Client.HTTPClient, mo.Cache.HTTPClient = hc, hc
	return nil
}

// spread sends each request over the next of its transports, watches and the
// rest in separate turns.
type spread struct {
	conns           []http.RoundTripper
	next, nextWatch atomic.Uint64
}

func (s *spread) RoundTrip(req *http.Request) (*http.Response, error) {
	turn := &s.next
	if req.URL.Query().Get("watch") == "true" {
		turn = &s.nextWatch
	}
	return s.conns[(turn.Add(1)-1)%uint64(len(s.conns))].RoundTrip(req)
}
