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
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // a test against a local server
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// sheet §10.
func TestHTTP(t *testing.T) {
	t.Run("/api/bootstrap is FAILED 'not ready' with no leader, still 200", func(t *testing.T) {
		s := simstarrocks.Start(t, simstarrocks.Options{})
		code, body := get(t, s.HTTPURL()+"/api/bootstrap")
		want := `{"replayedJournalId":0,"queryPort":0,"rpcPort":0,"feStartTime":0,"status":"FAILED","code":"1","msg":"not ready","message":"not ready"}`
		if code != 200 || body != want {
			t.Errorf("%d %s\nwant 200 %s", code, body, want)
		}
	})

	s, db := started(t, simstarrocks.Options{})
	withBackends(t, s, db, 2)
	mustExec(t, db, `ALTER SYSTEM ADD BACKEND "be-9:9050"`)
	mustExec(t, db, `ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050"`)
	s.SetAlive("cn-0", true)

	t.Run("/api/health counts BEs only (sheet §10)", func(t *testing.T) {
		code, body := get(t, s.HTTPURL()+"/api/health")
		if want := `{"total_backend_num":3,"online_backend_num":2,"status":"OK"}`; code != 200 || body != want {
			t.Errorf("%d %s\nwant 200 %s", code, body, want)
		}
	})
	t.Run("/api/bootstrap once ready: OK, zeros without a token (sheet §10)", func(t *testing.T) {
		_, body := get(t, s.HTTPURL()+"/api/bootstrap")
		if want := `{"replayedJournalId":0,"queryPort":0,"rpcPort":0,"feStartTime":0,"status":"OK","code":"0","msg":"Success","message":"OK"}`; body != want {
			t.Errorf("%s\nwant %s", body, want)
		}
	})
	t.Run("/api/bootstrap with the token fills the journal, ports and feVersion (BootstrapFinishAction @039e00c8)", func(t *testing.T) {
		_, body := get(t, s.HTTPURL()+"/api/bootstrap?token="+s.Token())
		var got map[string]any
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		if got["status"] != "OK" || got["queryPort"] != float64(9030) || got["rpcPort"] != float64(9020) || got["feVersion"] != "3.3.0-0000000" || got["replayedJournalId"].(float64) <= 0 {
			t.Errorf("%s", body)
		}
		if ms := int64(got["feStartTime"].(float64)); time.Since(time.UnixMilli(ms)) > time.Minute {
			t.Errorf("feStartTime %d", ms)
		}
	})
	t.Run("/api/bootstrap with a wrong token: FAILED, invalid parameter (BootstrapFinishAction @039e00c8)", func(t *testing.T) {
		_, body := get(t, s.HTTPURL()+"/api/bootstrap?token=nope")
		if want := `{"replayedJournalId":0,"queryPort":0,"rpcPort":0,"feStartTime":0,"status":"FAILED","code":"0","msg":"invalid parameter","message":"OK"}`; body != want {
			t.Errorf("%s\nwant %s", body, want)
		}
	})
	t.Run("/api/v2/feature on open source: RBAC only (sheet §10)", func(t *testing.T) {
		_, body := get(t, s.HTTPURL()+"/api/v2/feature")
		want := `{"version":"3.3.0","features":[{"name":"RBAC","description":"privilege system with full RBAC functionalities, supporting role inheritance and default roles.","link":"https://docs.starrocks.io/en-us/latest/administration/privilege_overview"}],"status":"OK"}`
		if body != want {
			t.Errorf("%s\nwant %s", body, want)
		}
	})
	t.Run("/api/v2/feature with multi-warehouse (ProductFeature copy with warehouses)", func(t *testing.T) {
		mw := simstarrocks.Start(t, simstarrocks.Options{MultiWarehouse: true, Version: "3.5"})
		_, body := get(t, mw.HTTPURL()+"/api/v2/feature")
		var got struct {
			Version  string `json:"version"`
			Status   string `json:"status"`
			Features []struct {
				Name, Description, Link string
			} `json:"features"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range got.Features {
			names = append(names, f.Name)
		}
		if got.Version != "3.5.0" || got.Status != "OK" || !slices.Equal(names, []string{"RBAC", "multi-warehouse"}) ||
			!strings.HasPrefix(got.Features[1].Description, "StarRocks supports creating multiple warehouses within a single cluster") {
			t.Errorf("%s", body)
		}
	})
	t.Run("other paths: 404", func(t *testing.T) {
		if code, _ := get(t, s.HTTPURL()+"/api/nope"); code != 404 {
			t.Errorf("code %d", code)
		}
	})
}

// sheet §11: root with the configured password; a refusal is 1045 / 28000
// "Access denied for user '<user>' (using password: YES|NO)", the user name
// alone (ErrorCode.ERR_ACCESS_DENIED_ERROR; MysqlProto.authenticate).
func TestAuthentication(t *testing.T) {
	s := simstarrocks.Start(t, simstarrocks.Options{Password: "s3cret"})
	s.BootstrapFrontend("fe-0", 9010)
	for _, c := range []struct{ password, want string }{
		{"wrong", "Access denied for user 'root' (using password: YES)"},
		{"", "Access denied for user 'root' (using password: NO)"},
	} {
		_, _, err := query(connect(t, s, c.password, time.Second), "SHOW FRONTENDS")
		me := mysqlError(err)
		if me == nil || me.Number != 1045 || string(me.SQLState[:]) != "28000" || me.Message != c.want {
			t.Errorf("password %q: %v, want ERROR 1045 (28000): %s", c.password, err, c.want)
		}
	}
	if len(s.Statements()) != 0 || len(s.Logins()) != 0 {
		t.Errorf("refused logins ran statements %v or logged in %v", s.Statements(), s.Logins())
	}
	db := connect(t, s, "s3cret", time.Second)
	mustExec(t, db, "ALTER SYSTEM ADD BACKEND 'be-0:9050';")
	mustQuery(t, db, "show backends")
	if got := s.Statements(); !slices.Equal(got, []string{"ALTER SYSTEM ADD BACKEND 'be-0:9050';", "show backends"}) {
		t.Errorf("statements %q, want them as sent", got)
	}
	if got := s.StatementsLike("SHOW BACK"); !slices.Equal(got, []string{"show backends"}) {
		t.Errorf("StatementsLike %q", got)
	}
	if got := s.Logins(); len(got) == 0 || slices.ContainsFunc(got, func(u string) bool { return u != "root" }) {
		t.Errorf("logins %v", got)
	}

	open := simstarrocks.Start(t, simstarrocks.Options{})
	open.BootstrapFrontend("fe-0", 9010)
	if _, _, err := query(connect(t, open, "", time.Second), "SHOW FRONTENDS"); err != nil {
		t.Errorf("root with no password on a fresh FE (sheet §11): %v", err)
	}
	_, _, err := query(connect(t, open, "x", time.Second), "SHOW FRONTENDS")
	if me := mysqlError(err); me == nil || me.Message != "Access denied for user 'root' (using password: YES)" {
		t.Errorf("a password where none is set: %v", err)
	}
}
