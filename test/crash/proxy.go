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

package crash

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/srscale/starrocks-operator/test/testcluster"
)

// When says when a write kill point kills.
type When int

const (
	// BeforeSent kills when the request reaches the proxy: the API server
	// never sees the write, as if the process died just before sending it.
	BeforeSent When = iota
	// AfterAccepted sends the request on and kills once the API server
	// answered it with 2xx: the write is stored, and the process dies
	// before it reads the answer. A refused write (a conflict, say) is
	// answered as usual, and the point waits for the next one.
	AfterAccepted
)

// Write names the writes of one namespaced object that a kill point waits
// for: a create (POST), update (PUT) or patch (PATCH, server-side apply
// included) of it; deletes and dry runs are not writes here.
type Write struct {
	// Resource is the plural resource, for example "statefulsets".
	Resource string
	// Namespace and Name of the object.
	Namespace, Name string
	// Subresource, for example "status"; "" is the object itself.
	Subresource string
	When        When
}

type writePoint struct {
	Write
	fired  bool
	killed chan Killed
}

// KillOnWrite arms a kill point on the first matching write the operator
// process sends while it runs. The returned channel receives the kill.
func (o *Operator) KillOnWrite(w Write) <-chan Killed {
	p := &writePoint{Write: w, killed: make(chan Killed, 1)}
	o.proxy.mu.Lock()
	defer o.proxy.mu.Unlock()
	o.proxy.points = append(o.proxy.points, p)
	return p.killed
}

// proxy is a TLS reverse proxy in front of kube-apiserver that the
// operator process talks to; it forwards with the operator user's own
// credentials.
type proxy struct {
	o      *Operator
	server *httptest.Server
	rp     *httputil.ReverseProxy
	// raw is the operator user's kubeconfig for the API server itself.
	raw []byte

	mu     sync.Mutex
	points []*writePoint
}

type pointKey struct{}

func startProxy(t testing.TB, c *testcluster.Cluster, o *Operator) *proxy {
	t.Helper()
	user, raw, err := c.AddUser("starrocks-operator", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	upstream, err := url.Parse(user.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(user)
	if err != nil {
		t.Fatal(err)
	}
	px := &proxy{o: o, raw: raw}
	px.rp = &httputil.ReverseProxy{
		Rewrite:        func(r *httputil.ProxyRequest) { r.SetURL(upstream) },
		Transport:      transport,
		FlushInterval:  -1, // watches stream
		ModifyResponse: px.afterAccepted,
		ErrorLog:       log.New(io.Discard, "", 0), // a killed client's requests end in errors
	}
	px.server = httptest.NewUnstartedServer(px)
	px.server.EnableHTTP2 = true // as kube-apiserver, which client-go reaches over HTTP/2
	px.server.StartTLS()
	t.Cleanup(px.server.Close)
	return px
}

// kubeconfig writes the operator user's kubeconfig with the proxy as its
// server, trusting the proxy's certificate.
func (px *proxy) kubeconfig(t testing.TB) string {
	t.Helper()
	cfg, err := clientcmd.Load(px.raw)
	if err != nil {
		t.Fatal(err)
	}
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: px.server.Certificate().Raw})
	for _, cl := range cfg.Clusters {
		cl.Server = px.server.URL
		cl.CertificateAuthority, cl.CertificateAuthorityData = "", ca
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func (px *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := px.claim(r)
	if p == nil {
		px.rp.ServeHTTP(w, r)
		return
	}
	if p.When == AfterAccepted {
		px.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), pointKey{}, p)))
		return
	}
	k, ok := px.o.Kill(r.Method + " " + r.URL.Path)
	if !ok {
		px.release(p)
		px.rp.ServeHTTP(w, r)
		return
	}
	p.killed <- k
	panic(http.ErrAbortHandler) // the client is gone; the API server never sees the write
}

// afterAccepted kills the process once the API server accepted a write a
// point waits for.
func (px *proxy) afterAccepted(resp *http.Response) error {
	p, _ := resp.Request.Context().Value(pointKey{}).(*writePoint)
	if p == nil {
		return nil
	}
	if resp.StatusCode/100 != 2 {
		px.release(p)
		return nil
	}
	k, ok := px.o.Kill(resp.Request.Method + " " + resp.Request.URL.Path)
	if !ok {
		px.release(p)
		return nil
	}
	p.killed <- k
	return nil
}

// claim returns the armed point r is a write for, marked fired, or nil.
func (px *proxy) claim(r *http.Request) *writePoint {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return nil
	}
	if r.URL.Query().Has("dryRun") {
		return nil
	}
	px.mu.Lock()
	armed := false
	for _, p := range px.points {
		armed = armed || !p.fired
	}
	px.mu.Unlock()
	if !armed {
		return nil
	}
	ns, resource, name, sub, ok := objectOf(r.URL.Path)
	if !ok {
		return nil
	}
	if r.Method == http.MethodPost && name == "" {
		name = nameInBody(r)
	}
	px.mu.Lock()
	defer px.mu.Unlock()
	for _, p := range px.points {
		if !p.fired && p.Resource == resource && p.Namespace == ns && p.Name == name && p.Subresource == sub {
			p.fired = true
			return p
		}
	}
	return nil
}

func (px *proxy) release(p *writePoint) {
	px.mu.Lock()
	defer px.mu.Unlock()
	p.fired = false
}

// objectOf reads a namespaced request path, /api/v1/namespaces/<ns>/<resource>[/<name>[/<sub>]]
// or /apis/<group>/<version>/namespaces/...
func objectOf(path string) (ns, resource, name, sub string, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return "", "", "", "", false
	}
	if len(parts) < 3 || parts[0] != "namespaces" || len(parts) > 5 {
		return "", "", "", "", false
	}
	ns, resource = parts[1], parts[2]
	if len(parts) > 3 {
		name = parts[3]
	}
	if len(parts) > 4 {
		sub = parts[4]
	}
	return ns, resource, name, sub, true
}

// nameInBody is metadata.name of a create, which names its object in the
// body, JSON or protobuf (the operator creates built-in kinds as protobuf);
// the body is left for the proxy to send.
func nameInBody(r *http.Request) string {
	if r.Body == nil {
		return ""
	}
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return ""
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), runtime.ContentTypeProtobuf) {
		obj, _, err := clientscheme.Codecs.UniversalDeserializer().Decode(b, nil, nil)
		if err != nil {
			return ""
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return ""
		}
		return m.GetName()
	}
	var obj struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(b, &obj) != nil {
		return ""
	}
	return obj.Metadata.Name
}
