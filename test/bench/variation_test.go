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
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

func TestMain(m *testing.M) {
	MaybeHog() // a test that starts the hog runs this binary as it
	os.Exit(m.Run())
}

// The hog is this program again, spinning, until stopped.
func TestTheHogTakesCPU(t *testing.T) {
	stop, err := startHog()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	deadline := time.Now().Add(10 * time.Second)
	for controlPlaneCPU()["hog"] < 0.1 {
		if time.Now().After(deadline) {
			t.Fatalf("the hog took %.2f CPU-seconds in 10 s", controlPlaneCPU()["hog"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	if cpu, ok := controlPlaneCPU()["hog"]; ok {
		t.Errorf("the hog still runs after its stop (%.2f CPU-seconds)", cpu)
	}
}

// Each cluster's marks count from its own create, found by the names of
// its objects; other objects, refused creates and other verbs do not count.
func TestClusterMarksCountFromEachClustersOwnCreate(t *testing.T) {
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return from.Add(time.Duration(s * float64(time.Second))) }
	req := func(res, name string, code int, completed float64) request {
		return request{Verb: "create", Resource: res, Name: name, Code: code, Received: at(completed - 0.01), Completed: at(completed)}
	}
	created := map[string]time.Time{"sr-0000": at(0), "sr-0001": at(1)}
	reqs := []request{
		req("statefulsets", "sr-0000-fe", 201, 0.3),
		req("services", "sr-0000-fe-search", 201, 0.35),
		req("services", "sr-0000-fe-service", 201, 0.6),
		req("statefulsets", "sr-0001-fe", 201, 1.2),
		req("services", "sr-0001-fe-service", 201, 1.5),
		req("services", "sr-0001-fe-search", 409, 1.9), // refused
		req("services", "other-fe-service", 201, 2.5),  // not a cluster of this run
		{Verb: "patch", Resource: "starrocksclusters/status", Name: "sr-0001", Code: 200, Received: at(2), Completed: at(2.1)},
	}
	m := clusterMarks(reqs, created, from, from.Add(time.Minute))
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !near(m.FEStatefulSet.Max, 0.3) || !near(m.FEStatefulSet.Min, 0.2) || !near(m.Objects.Max, 0.6) || !near(m.Objects.Min, 0.5) {
		t.Errorf("marks %+v, want FE StatefulSets at 0.2 and 0.3 s, every object at 0.5 and 0.6 s after each cluster's create", m)
	}
}

// The request proxy delays each request and its answer, each chunk of a
// streamed answer too, and passes the rest through unchanged.
func TestTheRequestProxyDelaysEachRequestAndAnswer(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			for i := range 3 {
				fmt.Fprintf(w, "%d\n", i)
				w.(http.Flusher).Flush()
				time.Sleep(50 * time.Millisecond)
			}
			return
		}
		fmt.Fprintf(w, "%s %s", r.Method, r.URL.Path)
	}))
	defer srv.Close()
	upstream, _ := url.Parse(srv.URL)
	cfg := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	const latency = 100 * time.Millisecond
	p, err := startRequestProxy(upstream, cfg, latency)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	hc, err := rest.HTTPClientFor(&rest.Config{Host: "https://" + p.Addr, TLSClientConfig: rest.TLSClientConfig{CAData: p.CA}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := hc.Post("https://"+p.Addr+"/api/v1/namespaces", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 64)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	if got := string(body[:n]); got != "POST /api/v1/namespaces" {
		t.Errorf("answer %q, want the server's", got)
	}
	if took := time.Since(start); took < 2*latency {
		t.Errorf("a request through the proxy took %s, want at least %s (its way there and back)", took, 2*latency)
	}
	if resp.ProtoMajor != 2 {
		t.Errorf("the proxy spoke %s, want HTTP/2 as the API server does", resp.Proto)
	}

	// A streamed answer: each line comes latency after the server sent it, in order.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+p.Addr+"/stream", http.NoBody)
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if strings.Join(lines, ",") != "0,1,2" {
		t.Errorf("streamed lines %q, want 0,1,2", lines)
	}
}

func TestVariationNamesAndValidation(t *testing.T) {
	for _, tt := range []struct {
		v    Variation
		name string
	}{
		{Variation{}, "burst"},
		{Variation{Pace: 50}, "paced 50/s"},
		{Variation{LatencyMode: LatencyRequest}, "burst, latency per request"},
		{Variation{Busy: BusyChurn}, fmt.Sprintf("burst, busy: churn %d/s", DefaultChurnRate)},
		{Variation{Busy: BusyHog}, "burst, busy: CPU hog"},
	} {
		if got := tt.v.Name(); got != tt.name {
			t.Errorf("%+v named %q, want %q", tt.v, got, tt.name)
		}
		if err := tt.v.Validate(); err != nil {
			t.Errorf("%+v: %v", tt.v, err)
		}
	}
	if err := (Variation{Pace: -1, LatencyMode: "bytes", Busy: "noisy"}).Validate(); err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("three faults gave %v, want three errors", err)
	}
}

// A summary gives each metric's median over the rounds of each label, and
// the ratio of the labels' medians.
func TestSummaryMediansOverRounds(t *testing.T) {
	run := func(label string, fe float64) *Report {
		return &Report{Preset: Preset{Name: "latency"}, Label: label, Results: []Result{{Setting: Setting{Name: "tuned"}, N: 50, Audit: AuditMarks{FEStatefulSet: fe}}}}
	}
	s := Summarize([]*Report{run("now", 0.30), run("base", 0.40), run("now", 0.36), run("base", 0.44), run("now", 0.31), run("base", 0.38)})
	md := s.Markdown()
	if !strings.Contains(md, "| FE StatefulSet, audit log (s) | 0.31 [0.30–0.36] (3) | 0.40 [0.38–0.44] (3) | 0.77 |") {
		t.Errorf("summary lacks the medians and their ratio:\n%s", md)
	}
	if Median([]float64{4, 1, 3, 2}) != 2.5 || Median(nil) != 0 {
		t.Error("Median is not the middle value")
	}
}
