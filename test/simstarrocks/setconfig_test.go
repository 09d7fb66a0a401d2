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

package simstarrocks_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// fourFEs is fe-0 (leader) and fe-1..fe-3 (followers, started) on a fake
// clock, with ADMIN SET FRONTEND CONFIG's wait for an FE that does not
// answer set to timeout (on the real clock: the fake one is passive).
func fourFEs(t *testing.T, timeout time.Duration) *simstarrocks.StarRocks {
	t.Helper()
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	s := simstarrocks.Start(t, simstarrocks.Options{FollowerLag: time.Second, Clock: clk, SetConfigTimeout: timeout})
	s.BootstrapFrontend("fe-0", 9010)
	leader := connectTo(t, s.AddressOf("fe-0"))
	for _, h := range []string{"fe-1", "fe-2", "fe-3"} {
		mustExec(t, leader, `ALTER SYSTEM ADD FOLLOWER "`+h+`:9010"`)
		if err := s.StartFrontend(h, 9010); err != nil {
			t.Fatal(err)
		}
	}
	clk.SetTime(clk.Now().Add(2 * time.Second))
	return s
}

// ADMIN SET FRONTEND CONFIG with one FE of the list down, as
// ConfigBase.setConfig does it: the leader sets its own value, then calls
// every other FE in list order, alive or not; the one that does not answer
// costs the whole timeout, the FEs after it are called all the same, and
// the statement fails naming it, every FE that answered holding the value.
// The control: with every FE up, it succeeds at once.
func TestSetConfigFailsPartwayAfterApplying(t *testing.T) {
	const timeout = 300 * time.Millisecond
	t.Run("control: every FE up, set everywhere at once", func(t *testing.T) {
		s := fourFEs(t, timeout)
		leader := connectTo(t, s.AddressOf("fe-0"))
		start := time.Now()
		mustExec(t, leader, `ADMIN SET FRONTEND CONFIG ("disable_colocate_balance" = "true")`)
		if took := time.Since(start); took >= timeout {
			t.Errorf("took %s with every FE up, want no wait", took)
		}
		for _, h := range []string{"fe-0", "fe-1", "fe-2", "fe-3"} {
			if v, _ := s.FrontendConfig(h, "disable_colocate_balance"); v != "true" {
				t.Errorf("%s: %q, want true", h, v)
			}
		}
	})
	t.Run("fe-1 down: the leader, fe-2 and fe-3 take it, then the statement fails naming fe-1", func(t *testing.T) {
		s := fourFEs(t, timeout)
		leader := connectTo(t, s.AddressOf("fe-0"))
		s.StopFrontend("fe-1")
		start := time.Now()
		_, err := leader.ExecContext(context.Background(), `ADMIN SET FRONTEND CONFIG ("disable_colocate_balance" = "true")`)
		took := time.Since(start)
		me := mysqlError(err)
		if me == nil || !strings.Contains(me.Message, "Set config failed: set config for fe[fe-1] failed") || strings.Contains(me.Message, "fe-2") {
			t.Fatalf("error %v, want one naming fe-1 alone", err)
		}
		t.Logf("answer after %s: %v", took.Round(time.Millisecond), err)
		if took < timeout {
			t.Errorf("failed after %s, want the %s timeout waited (no instant refusal)", took, timeout)
		}
		for _, h := range []string{"fe-0", "fe-2", "fe-3"} {
			if v, _ := s.FrontendConfig(h, "disable_colocate_balance"); v != "true" {
				t.Errorf("%s after the failed statement: %q, want true (applied before the failure)", h, v)
			}
		}
		// fe-1 back: its memory is fe.conf's.
		if err := s.StartFrontend("fe-1", 9010); err != nil {
			t.Fatal(err)
		}
		if v, _ := s.FrontendConfig("fe-1", "disable_colocate_balance"); v != "false" {
			t.Errorf("fe-1 after its restart: %q, want fe.conf's false", v)
		}
	})
}

// A colocate table keeps the replicas a lost BE held short while the
// leader's tablet_sched_disable_colocate_balance is true; once it is
// false again, ColocateTableBalancer relocates them. The control: the
// same loss with the switch at its default relocates at once.
func TestColocateShortWhileColocateBalanceOff(t *testing.T) {
	run := func(t *testing.T, off bool) (*simstarrocks.StarRocks, *clocktesting.FakePassiveClock, int) {
		clk := clocktesting.NewFakePassiveClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
		s := simstarrocks.Start(t, simstarrocks.Options{Clock: clk, DownTolerance: 60 * time.Second})
		s.BootstrapFrontend("fe-0", 9010)
		leader := connectTo(t, s.AddressOf("fe-0"))
		for _, h := range []string{"be-0", "be-1", "be-2"} {
			mustExec(t, leader, `ALTER SYSTEM ADD BACKEND "`+h+`:9050"`)
			s.SetAlive(h, true)
		}
		if err := s.CreateColocateTable("db", "c", 2, 6); err != nil {
			t.Fatal(err)
		}
		if off {
			mustExec(t, leader, `ADMIN SET FRONTEND CONFIG ("disable_colocate_balance" = "true")`)
		}
		s.SetAlive("be-2", false)
		clk.SetTime(clk.Now().Add(2 * time.Minute)) // past the down tolerance
		short := s.ColocateShort()
		return s, clk, short
	}
	t.Run("control: colocate balance on, the lost replicas relocated", func(t *testing.T) {
		if _, _, n := run(t, false); n != 0 {
			t.Errorf("%d colocate tablets short, want 0", n)
		}
	})
	t.Run("colocate balance off: short for as long as it is off", func(t *testing.T) {
		s, clk, n := run(t, true)
		if n == 0 {
			t.Fatal("no colocate tablet short after be-2 was lost with colocate balance off")
		}
		clk.SetTime(clk.Now().Add(time.Hour))
		if m := s.ColocateShort(); m != n {
			t.Errorf("%d short an hour later, want still %d", m, n)
		}
		mustExec(t, connectTo(t, s.AddressOf("fe-0")), `ADMIN SET FRONTEND CONFIG ("disable_colocate_balance" = "false")`)
		if m := s.ColocateShort(); m != 0 {
			t.Errorf("%d short after colocate balance is back on, want 0", m)
		}
	})
}

// An FE's own HTTP port closed drops the connection; with
// enable_http_auth, SHOW_HA wants the HTTP account (401 otherwise). The
// control: open and anonymous, it answers.
func TestHTTPClosedOrOtherCredentials(t *testing.T) {
	s, _ := threeFEs(t, time.Second)
	get := func(url, user, pw string) (int, error) {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url+"/api/show_meta_info?action=SHOW_HA", http.NoBody)
		if user != "" {
			req.SetBasicAuth(user, pw)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := get(s.HTTPURLOf("fe-1"), "", ""); err != nil || code != http.StatusOK {
		t.Fatalf("control: fe-1 open, anonymous: %d %v", code, err)
	}
	s.CloseHTTP("fe-1", true)
	if _, err := get(s.HTTPURLOf("fe-1"), "", ""); err == nil {
		t.Error("fe-1's closed HTTP port answered")
	}
	if code, err := get(s.HTTPURLOf("fe-2"), "", ""); err != nil || code != http.StatusOK {
		t.Errorf("fe-2 (open) answered %d %v", code, err)
	}
	s.RequireHTTPAuth("http-admin", "secret")
	for _, tc := range []struct{ user, pw string }{{"", ""}, {"root", ""}, {"http-admin", "wrong"}} {
		if code, err := get(s.HTTPURLOf("fe-2"), tc.user, tc.pw); err != nil || code != http.StatusUnauthorized {
			t.Errorf("enable_http_auth, as %q/%q: %d %v, want 401", tc.user, tc.pw, code, err)
		}
	}
	if code, err := get(s.HTTPURLOf("fe-2"), "http-admin", "secret"); err != nil || code != http.StatusOK {
		t.Errorf("enable_http_auth, the account: %d %v, want 200", code, err)
	}
}
