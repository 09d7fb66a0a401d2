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
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/srscale/starrocks-operator/test/testcluster"
)

// The harness end to end at a small size: every cluster completes under every
// setting, the audit log attributes requests to the operator, and the report
// is written. No timing is asserted: the machine may be busy.
func TestHarnessSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the operator and starts two control planes")
	}
	ctrllog.SetLogger(logr.Discard())
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	p := Presets["latency"]
	p.N, p.Latency, p.SteadyWindow = 5, 20*time.Millisecond, 2*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{Preset: p, RepoRoot: root, WorkDir: t.TempDir(), Timeout: time.Minute, Quiet: 2 * time.Second, Progress: testWriter{t}, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != len(p.Settings) {
		t.Fatalf("%d results for %d settings", len(rep.Results), len(p.Settings))
	}
	for _, res := range rep.Results {
		if res.Error != "" {
			t.Errorf("%s: %s", res.Setting.Name, res.Error)
		}
		if res.Completed != p.N {
			t.Errorf("%s: %d of %d clusters reached the stage", res.Setting.Name, res.Completed, p.N)
		}
		if res.Creation.Total == 0 || res.Creation.Writes == 0 {
			t.Errorf("%s: the audit log shows no requests (%+v) or writes by the operator", res.Setting.Name, res.Creation)
		}
		if res.AllCompleted != p.N || res.AllSeconds < res.CompletionSeconds {
			t.Errorf("%s: %d of %d clusters complete with every object and status, at %.2f s (FE StatefulSets at %.2f s)",
				res.Setting.Name, res.AllCompleted, p.N, res.AllSeconds, res.CompletionSeconds)
		}
		if tm := res.Timings["patch starrocksclusters/status"]; tm.Count == 0 || tm.ServerMs.Max <= 0 {
			t.Errorf("%s: no server time for the status writes: %+v", res.Setting.Name, res.Timings)
		}
		if a := res.Audit; a.FEStatefulSet <= 0 || a.Services <= 0 || a.Status <= 0 || a.Objects < a.FEStatefulSet {
			t.Errorf("%s: audit-log marks %+v, want each after the first create", res.Setting.Name, a)
		}
		if tl := res.Timeline; tl == nil || tl.Allocations == nil || tl.Allocations.Count != p.N {
			t.Errorf("%s: ClusterIP allocations %+v, want one per client Service (%d)", res.Setting.Name, tl, p.N)
		}
		if res.CPUSeconds <= 0 || res.PeakRSSMiB <= 0 {
			t.Errorf("%s: no CPU (%v s) or memory (%v MiB) measured", res.Setting.Name, res.CPUSeconds, res.PeakRSSMiB)
		}
	}
	out := t.TempDir()
	files, err := rep.WriteFiles(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("report file %s missing or empty: %v", f, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "latency.md"))
	if !strings.Contains(string(md), "| default |") {
		t.Errorf("the Markdown report lacks the default setting's row:\n%s", md)
	}

	// The variations, all at once on the tuned setting: paced creates,
	// latency per request (an L7 proxy) and another tenant's churn.
	p.Settings = p.Settings[1:]
	v := Variation{Pace: 10, LatencyMode: LatencyRequest, Busy: BusyChurn, ChurnRate: 20}
	rep, err = Run(ctx, Config{Preset: p, RepoRoot: root, WorkDir: t.TempDir(), Timeout: time.Minute, Quiet: 2 * time.Second, Progress: testWriter{t}, Variation: v, Label: "smoke"})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results[0]
	if res.Error != "" || res.Completed != p.N {
		t.Fatalf("%s: %d of %d clusters reached the stage; %s", v.Name(), res.Completed, p.N, res.Error)
	}
	if res.CreatedSeconds < float64(p.N-1)/v.Pace {
		t.Errorf("%d clusters created in %.2f s at %g per second", p.N, res.CreatedSeconds, v.Pace)
	}
	if res.Creation.Writes == 0 || res.OwnCreate.FEStatefulSet.Max <= 0 || res.OwnCreate.Objects.Max < res.OwnCreate.FEStatefulSet.Max {
		t.Errorf("%s: the audit log shows %+v writes by the operator's user through the request proxy, marks from each create %+v", v.Name(), res.Creation, res.OwnCreate)
	}
	if res.BusyCPU["kube-apiserver"] <= 0 {
		t.Errorf("%s: no CPU measured for the load before the first create: %v", v.Name(), res.BusyCPU)
	}
	if sum := Summarize([]*Report{rep}).Markdown(); !strings.Contains(sum, v.Name()) {
		t.Errorf("the summary does not name the variation:\n%s", sum)
	}
}

// Only the operator's completed requests count, leases excluded, and conflicts are found.
func TestReadAuditCountsTheOperatorsCompletedRequests(t *testing.T) {
	lines := []string{
		`{"stage":"ResponseComplete","verb":"patch","user":{"username":"starrocks-operator"},"objectRef":{"resource":"starrocksclusters","subresource":"status"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-01-01T00:00:01.000000Z","stageTimestamp":"2026-01-01T00:00:01.250000Z"}`,
		`{"stage":"ResponseComplete","verb":"update","user":{"username":"starrocks-operator"},"objectRef":{"resource":"statefulsets"},"responseStatus":{"code":409},"requestReceivedTimestamp":"2026-01-01T00:00:02.000000Z"}`,
		`{"stage":"ResponseStarted","verb":"watch","user":{"username":"starrocks-operator"},"objectRef":{"resource":"pods"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-01-01T00:00:02.000000Z"}`,
		`{"stage":"ResponseComplete","verb":"update","user":{"username":"starrocks-operator"},"objectRef":{"resource":"leases"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-01-01T00:00:03.000000Z"}`,
		`{"stage":"ResponseComplete","verb":"create","user":{"username":"admin"},"objectRef":{"resource":"starrocksclusters"},"responseStatus":{"code":201},"requestReceivedTimestamp":"2026-01-01T00:00:03.000000Z"}`,
		`{"stage":"ResponseComplete","verb":"get","user":{"username":"starrocks-operator"},"objectRef":{"resource":"statefulsets"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-01-01T00:00:04.000000Z"}`,
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reqs, err := readAudit(path, "starrocks-operator")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := countRequests(reqs, from, from.Add(time.Minute))
	if c.Total != 3 || c.Writes != 2 || c.Conflicts != 1 || c.ByVerb["patch starrocksclusters/status"] != 1 {
		t.Errorf("counts %+v, want 3 requests, 2 writes, 1 conflict, 1 status patch", c)
	}
	if c := countRequests(reqs, from.Add(3*time.Second), from.Add(time.Minute)); c.Total != 1 || c.Writes != 0 {
		t.Errorf("window from 3 s: %+v, want only the get", c)
	}
	if lw := lastWrite(reqs, from, from.Add(time.Minute)); !lw.Equal(from.Add(2 * time.Second)) {
		t.Errorf("last write at %s, want 00:00:02", lw)
	}
	tm := timings(reqs, from, from.Add(time.Minute))
	if st := tm["patch starrocksclusters/status"]; st.Count != 1 || st.ServerMs.Median != 250 || st.ArrivalSeconds.Min != 1 {
		t.Errorf("status patch timing %+v, want 1 request, 250 ms on the server, arriving 1 s after the start", st)
	}
	if _, ok := tm["watch pods"]; ok {
		t.Errorf("a watch's time open counted as handling time: %+v", tm)
	}
}

// The audit-log marks count only what the API server did: a create that
// answered 201, a status write that succeeded, timed at its completion.
func TestAuditMarksTimeTheLastCreateAndStatusWrite(t *testing.T) {
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return from.Add(time.Duration(s * float64(time.Second))) }
	req := func(verb, res, name string, code int, received, completed float64) request {
		return request{Verb: verb, Resource: res, Name: name, Code: code, Received: at(received), Completed: at(completed)}
	}
	reqs := []request{
		req("create", "statefulsets", "sr-0001-fe", 201, 0.2, 0.3),
		req("create", "services", "sr-0001-fe-service", 201, 0.5, 0.6),
		req("patch", "starrocksclusters/status", "sr-0001", 200, 0.4, 0.45),
		req("create", "statefulsets", "sr-0002-be", 201, 0.7, 0.8),
		req("create", "services", "sr-0002-fe-search", 409, 0.9, 1.0),      // not created
		req("patch", "starrocksclusters/status", "sr-0002", 409, 1.1, 1.2), // not written
		req("update", "statefulsets", "sr-0001-fe", 200, 1.3, 1.4),         // not a create
		req("create", "services", "sr-0003-fe-service", 201, 61, 61.1),     // after the window
	}
	got := auditMarks(reqs, from, from.Add(time.Minute))
	want := AuditMarks{Objects: 0.8, FEStatefulSet: 0.3, Services: 0.6, Status: 0.45}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !near(got.Objects, want.Objects) || !near(got.FEStatefulSet, want.FEStatefulSet) || !near(got.Services, want.Services) || !near(got.Status, want.Status) {
		t.Errorf("marks %+v, want %+v", got, want)
	}
}

// The API server's ClusterIP allocations are its IPAddress creates, in the
// window, one after the other: the median gap between receipts and the
// median time on the server.
func TestAllocationsAreTheAPIServersIPAddressCreates(t *testing.T) {
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return from.Add(time.Duration(s * float64(time.Second))) }
	ip := func(received, completed float64) request {
		return request{Verb: "create", Resource: "ipaddresses", Code: 201, Received: at(received), Completed: at(completed), Server: at(completed).Sub(at(received))}
	}
	reqs := []request{
		ip(-3, -2.99), // the kubernetes Service's, at start-up
		ip(0.30, 0.31), ip(0.32, 0.325), ip(0.36, 0.365),
		{Verb: "create", Resource: "ipaddresses", Code: 409, Received: at(0.33), Completed: at(0.331)}, // refused, retried
		{Verb: "create", Resource: "services", Received: at(0.29), Completed: at(0.33)},
	}
	a := allocationsOf(reqs, from, from.Add(time.Minute))
	near := func(x, y float64) bool { return x-y < 1e-6 && y-x < 1e-6 }
	if a == nil || a.Count != 3 || !near(a.FirstReceived, 0.30) || !near(a.LastCompleted, 0.365) || !near(a.GapMs, 40) || !near(a.ServerMs, 5) {
		t.Errorf("allocations %+v, want 3 from 0.30 s to 0.365 s, 40 ms apart (median), 5 ms each (median)", a)
	}
	if allocationsOf(reqs[5:], from, from.Add(time.Minute)) != nil {
		t.Error("allocations found with no IPAddress create")
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
