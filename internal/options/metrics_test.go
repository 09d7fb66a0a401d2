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
	"context"
	"crypto/tls"
	"testing"
	"time"

	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The secure metrics server, as controller-runtime builds it from these
// options, negotiates HTTP/1.1 with a client that offers h2 first.
func TestTheMetricsServerSpeaksNoHTTP2(t *testing.T) {
	o := Default()
	o.MetricsBindAddress = "127.0.0.1:0"
	mo := o.metricsServerOptions()
	mo.FilterProvider = nil // the authentication filter asks an API server; the handshake comes before it
	srv, err := metricsserver.NewServer(mo, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Start(ctx) }()
	type bound interface{ GetBindAddr() string }
	var addr string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if addr = srv.(bound).GetBindAddr(); addr != "" {
			break
		}
	}
	if addr == "" {
		t.Fatal("the metrics server did not start")
	}
	conn, err := tls.Dial("tcp", addr, &tls.Config{NextProtos: []string{"h2", "http/1.1"}, InsecureSkipVerify: true}) //nolint:gosec // a self-signed test server
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if p := conn.ConnectionState().NegotiatedProtocol; p == "h2" {
		t.Errorf("the metrics server negotiated %q; want HTTP/1.1 only (CVE-2023-44487)", p)
	}
}
