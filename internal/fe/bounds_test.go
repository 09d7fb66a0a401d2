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
	"strconv"
	"strings"
	"testing"
	"time"
)

// A hostile FE answers SHOW BACKENDS with far more than a cluster has:
// many rows, or one row of 12 MiB. The bounded client takes none of it.
func TestFEsAnswersAreBounded(t *testing.T) {
	backendCols := []string{"BackendId", "IP", "HeartbeatPort", "Alive", "TabletNum"}
	many := func(p *pktConn, _ string) {
		resultSet(p, backendCols, 100_000, func(i int) []string {
			return []string{strconv.Itoa(i), "10.0.0." + strconv.Itoa(i%250), "9050", "true", "0"}
		})
	}
	huge := func(p *pktConn, _ string) {
		resultSet(p, backendCols, 1, func(int) []string {
			return []string{"1", strings.Repeat("x", 12<<20), "9050", "true", "0"}
		})
	}
	cases := []struct {
		name   string
		answer func(*pktConn, string)
		rows   int
		bytes  int64
		unit   string // "" : the control, unbounded, takes it all
	}{
		{"100,000 rows against a cap of 280", many, 280, 5 << 20, "rows"},
		{"a 12 MiB row against 5 MiB", huge, 280, 5 << 20, "bytes"},
		{"control: unbounded, 100,000 rows are taken", many, 0, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeFE(t, trick{greeting: NativePassword}, false)
			f.answer = tc.answer
			c := &Client{Address: f.ln.Addr().String(), Password: hostilePassword, TLS: TLS{Mode: SSLDisabled},
				Attempts: 1, DialTimeout: 3 * time.Second, ReadTimeout: 10 * time.Second, MaxRows: tc.rows, MaxBytes: tc.bytes}
			got, err := c.ShowBackends(context.Background())
			var large *AnswerTooLargeError
			if tc.unit == "" {
				if err != nil || len(got) != 100_000 {
					t.Fatalf("unbounded: %d rows, %v", len(got), err)
				}
				t.Logf("without the bound the operator holds all %d rows", len(got))
				return
			}
			if !errors.As(err, &large) || large.Unit != tc.unit {
				t.Fatalf("got %d rows, error %v; want an AnswerTooLargeError in %s", len(got), err, tc.unit)
			}
			if got != nil {
				t.Errorf("a partial answer was returned: %d rows", len(got))
			}
			t.Logf("%v", err)
		})
	}
}

// ALTER SYSTEM DROP takes the role as a keyword, unquoted: a role FE's row
// names that is not FOLLOWER or OBSERVER (LEADER as FOLLOWER) is sent never.
func TestDropFrontendSendsOnlyFollowerOrObserver(t *testing.T) {
	f := newFakeFE(t, trick{greeting: NativePassword}, false)
	var got []string
	f.answer = func(p *pktConn, query string) {
		got = append(got, query)
		_ = p.write([]byte{0, 0, 0, 2, 0, 0, 0})
	}
	c := &Client{Address: f.ln.Addr().String(), Password: hostilePassword, TLS: TLS{Mode: SSLDisabled}, Attempts: 1}
	for _, role := range []string{"FOLLOWER 'x:1'; ADMIN SET FRONTEND CONFIG ('a'='b') --", "BACKEND", ""} {
		err := c.DropFrontend(context.Background(), Frontend{Host: "10.0.0.1", EditLogPort: 9010, Role: role})
		if !errors.Is(err, ErrUnknownFrontendRole) {
			t.Errorf("role %q: %v, want ErrUnknownFrontendRole", role, err)
		}
	}
	if c.MayHaveActed() || len(got) != 0 {
		t.Errorf("FE received %q", got)
	}
	if err := c.DropFrontend(context.Background(), Frontend{Host: "10.0.0.1", EditLogPort: 9010, Role: "LEADER"}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "ALTER SYSTEM DROP FOLLOWER '10.0.0.1:9010'" {
		t.Errorf("FE received %q", got)
	}
}
