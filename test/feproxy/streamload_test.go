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

package feproxy

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
)

// A Stream Load through the FE proxy, with a real nginx: the client PUTs to the
// proxy with Expect: 100-continue and a column_separator header; the follower
// FE redirects to the leader FE, which redirects to a BE (307 both times, as
// StarRocks does); the BE insists on both headers. nginx must follow both
// redirects itself and deliver the body intact.
func TestStreamLoadThroughNginx(t *testing.T) {
	nginx := findNginx(t)

	t.Run("the generated config loads with the body intact", func(t *testing.T) {
		env := newStarRocks(t, 2)
		conf := resources.NginxConf(resources.NginxConfInput{
			Cluster: "test/sr", Resolver: "127.0.0.1", FE: env.fe, FEHosts: strings.ReplaceAll(env.fe, ".", `\.`), Listen: env.listen,
		})
		proxy := startNginx(t, nginx, conf, env.listen)

		resp, err := http.Get(proxy + resources.NginxHealthPath)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", resources.NginxHealthPath, resp, err)
		}
		resp.Body.Close()

		body := csv(200_000) // about 3 MB: more than nginx keeps in memory
		status, answer := load(t, proxy, body)
		if status != http.StatusOK {
			t.Fatalf("load answered %d: %s", status, answer)
		}
		got := env.be.received()
		if len(got) != 1 {
			t.Fatalf("BE received %d loads, want 1", len(got))
		}
		if sha256.Sum256(got[0]) != sha256.Sum256(body) {
			t.Errorf("BE received %d bytes, not the %d sent", len(got[0]), len(body))
		}
		if n := env.feBodies(); n != 0 {
			t.Errorf("FE was sent %d bytes of load data; it only redirects", n)
		}
	})

	t.Run("the config before issue 11 fails the same load", func(t *testing.T) {
		testPreviousConfigFails(t, nginx, newStarRocks(t, 2))
	})
	t.Run("the config before issue 11 fails even with a single redirect", func(t *testing.T) {
		testPreviousConfigFails(t, nginx, newStarRocks(t, 1))
	})
}

func testPreviousConfigFails(t *testing.T, nginx string, env *starRocks) {
	{
		tmpl, err := os.ReadFile(filepath.Join("testdata", "previous-nginx.conf"))
		if err != nil {
			t.Fatal(err)
		}
		conf := strings.NewReplacer("{{CLUSTER}}", "test/sr", "{{RESOLVER}}", "127.0.0.1", "{{LISTEN}}", fmt.Sprint(env.listen), "{{FE}}", env.fe).Replace(string(tmpl))
		proxy := startNginx(t, nginx, conf, env.listen)
		status, answer := load(t, proxy, csv(1000))
		if status == http.StatusOK && len(env.be.received()) == 1 {
			t.Fatalf("the previous config loaded successfully (%d %s): this test would prove nothing", status, answer)
		}
		t.Logf("previous config: load answered %d %q", status, strings.TrimSpace(answer))
	}
}

// findNginx is the nginx binary; without one the test skips, or fails under CI.
func findNginx(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	msg := "nginx not found: install Debian's nginx package (apt-get install nginx) to run the FE proxy Stream Load test"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// starRocks is a follower FE, a leader FE (the same server, told apart by a
// query parameter) and a BE.
type starRocks struct {
	fe     string // host:port
	listen int32  // a free port for nginx
	be     *backend

	mu     sync.Mutex
	feSent int
}

func (s *starRocks) feBodies() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.feSent
}

// newStarRocks starts FE and BE; FE redirects a load hops times (2: follower
// to leader, leader to BE; 1: straight to BE).
func newStarRocks(t *testing.T, hops int) *starRocks {
	t.Helper()
	s := &starRocks{be: &backend{}, listen: int32(netip.MustParseAddrPort(testutil.FreeAddrT(t)).Port())}
	be := httptest.NewServer(s.be)
	t.Cleanup(be.Close)
	var fe *httptest.Server
	fe = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut || r.URL.Path != "/api/db/tbl/_stream_load" {
			http.NotFound(w, r)
			return
		}
		n, _ := io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		s.mu.Lock()
		s.feSent += int(n)
		s.mu.Unlock()
		target := fe.URL + r.URL.Path + "?leader=1" // a follower sends the load to the leader FE
		if hops == 1 || r.URL.Query().Get("leader") == "1" {
			target = be.URL + r.URL.Path // the leader picks a BE
		}
		w.Header().Set("Location", target)
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	t.Cleanup(fe.Close)
	s.fe = strings.TrimPrefix(fe.URL, "http://")
	return s
}

// backend answers Stream Load like a BE: only with Expect: 100-continue and
// the load's options, which the client sends as headers with underscores.
type backend struct {
	mu    sync.Mutex
	loads [][]byte
}

func (b *backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method != http.MethodPut || r.URL.Path != "/api/db/tbl/_stream_load":
		http.NotFound(w, r)
	case !strings.EqualFold(r.Header.Get("Expect"), "100-continue"):
		http.Error(w, `{"Status":"Fail","Message":"There is no 100-continue header"}`, http.StatusBadRequest)
	case r.Header.Get("column_separator") != ",":
		http.Error(w, `{"Status":"Fail","Message":"no column_separator"}`, http.StatusBadRequest)
	default:
		data, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		b.mu.Lock()
		b.loads = append(b.loads, data)
		b.mu.Unlock()
		fmt.Fprintf(w, `{"Status":"Success","LoadBytes":%d}`, len(data))
	}
}

func (b *backend) received() [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([][]byte(nil), b.loads...)
}

// load sends a Stream Load to the proxy as curl --location-trusted would,
// except that the client never follows a redirect itself: the proxy must.
func load(t *testing.T, proxy string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, proxy+"/api/db/tbl/_stream_load", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Expect", "100-continue")
	req.Header.Set("column_separator", ",")
	req.Header.Set("label", "load-1")
	req.SetBasicAuth("root", "")
	client := &http.Client{
		Transport:     &http.Transport{ExpectContinueTimeout: 5 * time.Second},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       30 * time.Second,
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(answer)
}

// startNginx runs nginx in the foreground with conf, its /tmp paths moved into
// the test's directory, and returns its URL once it accepts connections.
func startNginx(t *testing.T, nginx, conf string, port int32) string {
	t.Helper()
	dir := t.TempDir()
	conf = strings.ReplaceAll(conf, "/tmp/", dir+"/")
	global := "daemon off;"
	if os.Geteuid() == 0 {
		// As root, nginx would run its workers as nobody; in the pod master and
		// workers are one user (101), so keep them one user here too.
		global += " user root;"
	}
	if !strings.Contains(conf, "pid ") {
		global += " pid " + dir + "/nginx.pid;"
	}
	file := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd := exec.Command(nginx, "-p", dir, "-c", file, "-e", "stderr", "-g", global)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("nginx output:\n%s", logs.String())
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx does not listen on %s: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// csv is rows lines of CSV, the kind of data Stream Load carries.
func csv(rows int) []byte {
	var b bytes.Buffer
	for i := range rows {
		fmt.Fprintf(&b, "%d,name-%d,%d.%02d\n", i, i, i%1000, i%100)
	}
	return b.Bytes()
}
