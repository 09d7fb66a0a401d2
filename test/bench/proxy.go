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

package bench

import (
	"fmt"
	"strings"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// latencyProxy is an in-process toxiproxy between the operator and the API
// server that delays every chunk of bytes by the same latency in each
// direction, as the article did (a latency toxic upstream and downstream).
type latencyProxy struct {
	proxy *toxiproxy.Proxy
	// Addr is the listener, 127.0.0.1:<port>.
	Addr string
}

// startLatencyProxy listens on a free loopback port and forwards to upstream
// (host:port). A latency of 0 adds no toxic: the path stays the same, so that
// runs with and without latency differ only in the delay.
func startLatencyProxy(upstream string, latency time.Duration) (*latencyProxy, error) {
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(server, "kube-apiserver", "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("starting the latency proxy to %s: %w", upstream, err)
	}
	if latency > 0 {
		for _, stream := range []string{"upstream", "downstream"} {
			toxic := fmt.Sprintf(`{"name":"latency_%s","type":"latency","stream":%q,"attributes":{"latency":%d}}`,
				stream, stream, latency.Milliseconds())
			if _, err := p.Toxics.AddToxicJson(strings.NewReader(toxic)); err != nil {
				p.Stop()
				return nil, fmt.Errorf("adding the %s latency toxic: %w", stream, err)
			}
		}
	}
	return &latencyProxy{proxy: p, Addr: p.Listen}, nil
}

func (p *latencyProxy) Stop() { p.proxy.Stop() }
