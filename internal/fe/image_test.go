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
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestParseHAInfo(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       HAInfo
		err        string
	}{
		{"a follower", `{"role":"FOLLOWER","current_journal_id":"120","last_checkpoint_version":"118","can_read":"true"}`,
			HAInfo{Role: "FOLLOWER", JournalID: 120, ImageVersion: 118}, ""},
		{"an FE that could not read its image directory", `{"role":"LEADER","current_journal_id":"7"}`,
			HAInfo{Role: "LEADER", JournalID: 7, ImageVersion: -1}, ""},
		{"not a number", `{"role":"LEADER","last_checkpoint_version":"x"}`, HAInfo{}, "last_checkpoint_version"},
		{"not a map of strings", `{"role":1}`, HAInfo{}, "not a JSON map"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseHAInfo([]byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// ReadHAInfo sends basic authentication only when given one (FE's
// endpoint is anonymous unless enable_http_auth).
func TestReadHAInfoAuth(t *testing.T) {
	var sawAuth []bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _, ok := r.BasicAuth()
		sawAuth = append(sawAuth, ok)
		if r.URL.Query().Get("action") != "SHOW_HA" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{"role":"LEADER","last_checkpoint_version":"3"}`))
	}))
	defer srv.Close()
	if _, err := ReadHAInfo(t.Context(), nil, srv.URL, Auth{}); err != nil {
		t.Fatal(err)
	}
	if info, err := ReadHAInfo(t.Context(), nil, srv.URL, Auth{User: "op", Password: "pw"}); err != nil || info.ImageVersion != 3 {
		t.Fatalf("%+v %v", info, err)
	}
	if len(sawAuth) != 2 || sawAuth[0] || !sawAuth[1] {
		t.Fatalf("basic auth sent: %v, want [false true]", sawAuth)
	}
}
