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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"k8s.io/client-go/rest"
)

// requestProxy delays each HTTP request and its response by the same
// latency, as an L7 load balancer or API gateway in front of the API server
// does: it ends the operator's TLS and HTTP/2 connections and sends each
// request on over connections of its own. The latency proxy (proxy.go)
// instead delays the bytes of each TCP connection, as a network path does.
// Requests reach the API server with the operator's client certificate, so
// the audit log still names the operator's user.
type requestProxy struct {
	srv *http.Server
	// Addr is the listener, 127.0.0.1:<port>; CA is its certificate (PEM).
	Addr string
	CA   []byte
}

// startRequestProxy serves on a free loopback port and forwards to the API
// server at upstream as the user of cfg (its client certificate).
func startRequestProxy(upstream *url.URL, cfg *rest.Config, latency time.Duration) (*requestProxy, error) {
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("the request proxy's transport: %w", err)
	}
	cert, caPEM, err := selfSigned()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			r.Out.Host = upstream.Host
		},
		Transport:     delayed{next: rt, latency: latency},
		FlushInterval: -1, // watches stream
		ErrorLog:      log.New(io.Discard, "", 0),
	}
	srv := &http.Server{Handler: rp, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}, ReadHeaderTimeout: time.Minute}
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	return &requestProxy{srv: srv, Addr: ln.Addr().String(), CA: caPEM}, nil
}

func (p *requestProxy) Stop() { _ = p.srv.Close() }

// delayed sends each request latency after it came, and gives its answer,
// headers and every chunk of the body, latency after the API server sent it.
type delayed struct {
	next    http.RoundTripper
	latency time.Duration
}

func (d delayed) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := sleepCtx(req, d.latency); err != nil {
		return nil, err
	}
	resp, err := d.next.RoundTrip(req)
	if err != nil || d.latency == 0 {
		return resp, err
	}
	if err := sleepCtx(req, d.latency); err != nil {
		resp.Body.Close()
		return nil, err
	}
	resp.Body = newDelayLine(resp.Body, d.latency)
	return resp, nil
}

func sleepCtx(req *http.Request, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-req.Context().Done():
		return req.Context().Err()
	}
}

// delayLine passes what it reads from body on latency after it was read.
type delayLine struct {
	body    io.ReadCloser
	latency time.Duration
	chunks  chan chunk
	rest    []byte
	err     error
}

type chunk struct {
	data []byte
	at   time.Time
	err  error
}

func newDelayLine(body io.ReadCloser, latency time.Duration) *delayLine {
	l := &delayLine{body: body, latency: latency, chunks: make(chan chunk, 1024)}
	go func() {
		for {
			buf := make([]byte, 32<<10)
			n, err := body.Read(buf)
			if n > 0 {
				l.chunks <- chunk{data: buf[:n], at: time.Now()}
			}
			if err != nil {
				l.chunks <- chunk{err: err, at: time.Now()}
				close(l.chunks)
				return
			}
		}
	}()
	return l
}

func (l *delayLine) Read(p []byte) (int, error) {
	if len(l.rest) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		c, ok := <-l.chunks
		if !ok {
			return 0, io.EOF
		}
		time.Sleep(time.Until(c.at.Add(l.latency)))
		if c.err != nil {
			l.err = c.err
			return 0, c.err
		}
		l.rest = c.data
	}
	n := copy(p, l.rest)
	l.rest = l.rest[n:]
	return n, nil
}

func (l *delayLine) Close() error {
	err := l.body.Close()
	go func() { // let the reader goroutine end
		for range l.chunks {
		}
	}()
	return err
}

// selfSigned makes a certificate for 127.0.0.1, valid for a day, and
// returns it with its PEM (the kubeconfig's certificate authority).
func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "srbench request proxy"},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	cert, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		return tls.Certificate{}, nil, errors.Join(errors.New("the request proxy's certificate"), err)
	}
	return cert, certPEM, nil
}
