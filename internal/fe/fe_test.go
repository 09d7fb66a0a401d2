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

package fe

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/internal/test/silentfe"
)

func TestStatementsQuoteWhatTheyAreGiven(t *testing.T) {
	cases := []struct{ name, got, want string }{
		{"drop compute node by FQDN", DropComputeNodeSQL("c-cn-2.c-cn-search.ns.svc.cluster.local", 9050, ""), "ALTER SYSTEM DROP COMPUTE NODE 'c-cn-2.c-cn-search.ns.svc.cluster.local:9050'"},
		{"drop compute node from its warehouse", DropComputeNodeSQL("w-cn-2.w-cn-search.ns.svc.cluster.local", 9050, "wh_1"), "ALTER SYSTEM DROP COMPUTE NODE 'w-cn-2.w-cn-search.ns.svc.cluster.local:9050' FROM WAREHOUSE `wh_1`"},
		{"drop compute node by IPv6", DropComputeNodeSQL("fd00::1", 9050, ""), "ALTER SYSTEM DROP COMPUTE NODE '[fd00::1]:9050'"},
		{"quote in a host cannot end the literal", DropComputeNodeSQL("a'; DROP DATABASE x; --", 1, ""), `ALTER SYSTEM DROP COMPUTE NODE 'a\'; DROP DATABASE x; --:1'`},
		{"drop warehouse quotes the identifier, if it exists", DropWarehouseSQL("wh_1"), "DROP WAREHOUSE IF EXISTS `wh_1`"},
		{"backquote in a warehouse name is doubled", DropWarehouseSQL("a`b"), "DROP WAREHOUSE IF EXISTS `a``b`"},
		{"backslash and newline escaped", QuoteString("a\\b\nc"), `'a\\b\nc'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %s, want %s", c.got, c.want)
			}
		})
	}
}

func TestWarehouseNameReplacesDashes(t *testing.T) {
	if got := WarehouseName("my-wh-1"); got != "my_wh_1" {
		t.Errorf("WarehouseName = %q", got)
	}
}

func TestSharedDataReadsRunMode(t *testing.T) {
	cases := map[string]bool{
		"":                                      false,
		"run_mode = shared_data\n":              true,
		"run_mode=shared_data":                  true,
		"run_mode = \"shared_data\"  # comment": true,
		"# run_mode = shared_data\n":            false,
		"run_mode = shared_data\nrun_mode = shared_nothing": false,
		"cloud_native_meta_port = 6090\n":                   false,
	}
	for conf, want := range cases {
		if got := SharedData(conf); got != want {
			t.Errorf("SharedData(%q) = %v, want %v", conf, got, want)
		}
	}
}

func TestFeaturesReadsFEsAnswer(t *testing.T) {
	answers := map[string][]string{
		`{"code":"0","message":"OK","data":{"version":"3.3","features":[{"name":"multi-warehouse","description":"d"},{"name":"x"}]}}`: {"multi-warehouse", "x"},
		`{"code":"0","message":"OK","result":{"features":["multi-warehouse"]}}`:                                                       {"multi-warehouse"},
		`{"features":[]}`: {},
	}
	for body, want := range answers {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != FeaturePath {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write([]byte(body))
		}))
		got, err := Features(context.Background(), nil, srv.URL)
		srv.Close()
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Features(%s) = %v, %v; want %v", body, got, err, want)
		}
	}
}

func TestFeaturesFailsOnABadAnswer(t *testing.T) {
	for _, h := range []http.HandlerFunc{
		func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusInternalServerError) },
		func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) },
		func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"code":"0"}`)) },
	} {
		srv := httptest.NewServer(h)
		_, err := Features(context.Background(), nil, srv.URL)
		srv.Close()
		if err == nil {
			t.Error("Features accepted a bad answer")
		}
	}
}

// A FE that accepts connections but never speaks: every attempt ends at the
// read timeout, the attempts are bounded, and the call returns an error.
func TestSilentFEIsRetriedBoundedThenFails(t *testing.T) {
	silent := silentfe.Start(t)
	c := &Client{Address: silent.Address(), DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, Attempts: 3, Backoff: 10 * time.Millisecond}
	if _, err := c.ShowComputeNodes(context.Background()); err == nil {
		t.Fatal("a silent FE answered")
	}
	if n := silent.Accepted(); n != 3 {
		t.Errorf("FE saw %d connections, want 3 (Attempts)", n)
	}
}

func TestCancelledContextStopsRetrying(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: connection refused
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &Client{Address: addr, Attempts: 100, Backoff: time.Hour}
	if err := c.DropWarehouse(ctx, "w"); err == nil {
		t.Fatal("no error from a refused connection")
	}
}

// Issue 34 item 25: an FE that accepts and says nothing (a hung process)
// costs the dial timeout, not the read timeout: the greeting and the login
// are part of the connection. Before, each read of such an FE held its
// slot for the whole read timeout.
func TestAnFEThatSaysNothingCostsTheDialTimeoutNotTheReadTimeout(t *testing.T) {
	hung := silentfe.Start(t)
	c := &Client{Address: hung.Address(), Attempts: 1, DialTimeout: 200 * time.Millisecond, ReadTimeout: 5 * time.Second}
	start := time.Now()
	_, errs := c.ReadView(context.Background())
	took := time.Since(start)
	if errs[0] == nil || hung.Accepted() != 1 {
		t.Fatalf("read of a silent FE: %v, %d connections; want one connection, failed", errs[0], hung.Accepted())
	}
	if took >= c.ReadTimeout/2 {
		t.Errorf("the read of a silent FE took %s, with a dial timeout of %s and a read timeout of %s", took, c.DialTimeout, c.ReadTimeout)
	}
}

// SHOW BACKENDS' Status column is a JSON object whose
// lastSuccessReportTabletsTime tells when FE last processed the BE's tablet
// report (facts sheet §3).
func TestTheTabletReportTimeIsReadFromTheStatusColumn(t *testing.T) {
	for _, tc := range []struct {
		status, reported string
		reports          bool
	}{
		{`{"lastSuccessReportTabletsTime":"2025-10-17 04:12:47"}`, "2025-10-17 04:12:47", true},
		{`{"lastSuccessReportTabletsTime":"N/A"}`, "N/A", true},
		{`{}`, "", false},
		{"", "", false},
		{"not json", "", false},
	} {
		bs, err := parseBackends([]row{{"ip": "be-0", "heartbeatport": "9050", "status": tc.status}})
		if err != nil || len(bs) != 1 || bs[0].TabletsReported != tc.reported || bs[0].Reports != tc.reports {
			t.Errorf("Status %q: %+v, %v; want reported %q, %v", tc.status, bs, err, tc.reported, tc.reports)
		}
	}
}

// The Version column of SHOW FRONTENDS, BACKENDS and COMPUTE NODES
// ("3.3.10-227b0b3", or NULL: facts sheet §2-§4) is read as printed; NULL and
// a missing column read as "".
func TestTheVersionColumnIsRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  row
		want string
	}{
		{"a version is read as printed", row{"version": "3.3.10-227b0b3"}, "3.3.10-227b0b3"},
		{"FE's printed NULL reads as none", row{"version": "NULL"}, ""},
		{"a SQL NULL reads as none", row{"version": ""}, ""},
		{"no Version column reads as none", row{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr, br, cr := row{"ip": "fe-0", "editlogport": "9010", "role": "LEADER"}, row{"ip": "be-0", "heartbeatport": "9050"}, row{"ip": "cn-0", "heartbeatport": "9050"}
			for k, v := range tc.row {
				fr[k], br[k], cr[k] = v, v, v
			}
			fs, err1 := parseFrontends([]row{fr})
			bs, err2 := parseBackends([]row{br})
			cs, err3 := parseComputeNodes([]row{cr})
			if err := errors.Join(err1, err2, err3); err != nil {
				t.Fatal(err)
			}
			if fs[0].Version != tc.want || bs[0].Version != tc.want || cs[0].Version != tc.want {
				t.Errorf("versions %q, %q, %q; want %q", fs[0].Version, bs[0].Version, cs[0].Version, tc.want)
			}
		})
	}
}

// LastHeartbeat (facts sheet §2, column 12) is kept as FE printed it,
// NULL as "", and read as a wall time only when it reads.
func TestFrontendLastHeartbeatIsRead(t *testing.T) {
	for _, tc := range []struct {
		printed, kept string
		reads         bool
	}{
		{"2026-12-06 16:00:05", "2026-12-06 16:00:05", true},
		{"NULL", "", false},
		{"", "", false},
		{"yesterday", "yesterday", false},
	} {
		fs, err := parseFrontends([]row{{"ip": "fe-0", "editlogport": "9010", "role": "LEADER", "lastheartbeat": tc.printed}})
		if err != nil {
			t.Fatal(err)
		}
		at, ok := fs[0].Heard()
		if fs[0].LastHeartbeat != tc.kept || ok != tc.reads || (ok && at.Second() != 5) {
			t.Errorf("%q: kept %q, reads %t at %s; want %q, %t", tc.printed, fs[0].LastHeartbeat, ok, at, tc.kept, tc.reads)
		}
	}
}
