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

package simstarrocks

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The FE's HTTP port (sheet §10).

type feature struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Link        string `json:"link"`
}

// rbacFeature is ProductFeature's one open-source entry (sheet §10; the
// ProductFeature.java copy with RBAC only).
var rbacFeature = feature{
	Name:        "RBAC",
	Description: "privilege system with full RBAC functionalities, supporting role inheritance and default roles.",
	Link:        "https://docs.starrocks.io/en-us/latest/administration/privilege_overview",
}

// multiWarehouseFeature is the entry a build with warehouses lists, from a
// ProductFeature.java copy (com.starrocks.feature, undated; the repository
// of that build was not identified) that lists RBAC, multi-warehouse,
// warehouse-query-queue and more. The simulation lists only the two.
var multiWarehouseFeature = feature{
	Name: "multi-warehouse",
	Description: "StarRocks supports creating multiple warehouses within a single cluster, with each warehouse " +
		"using different computing resources. It supports assigning import, query and other tasks to a " +
		"designated warehouse.",
	Link: "",
}

func (s *StarRocks) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	path, host := r.URL.Path, ""
	if rest, ok := strings.CutPrefix(path, frontendPathPrefix); ok {
		// One FE's own HTTP port (HTTPURLOf).
		host, path, _ = strings.Cut(rest, "/")
		path = "/" + path
		if !s.frontendRuns(host) {
			dropConnection(w)
			return
		}
	}
	if host != "" && s.httpClosed(host) {
		dropConnection(w)
		return
	}
	switch path {
	case "/api/show_meta_info":
		if !s.httpAuthorized(r) {
			// RestBaseAction.handleRequest (sheet §10): 401 with a Basic challenge.
			w.Header().Set("WWW-Authenticate", `Basic realm=""`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if host == "" {
			// The Service: the next running FE answers, as for a connection.
			var ok bool
			if host, ok = s.route(""); !ok {
				dropConnection(w)
				return
			}
		}
		s.showMetaInfo(w, r, host)
	case "/api/health":
		s.health(w)
	case "/api/bootstrap":
		s.bootstrap(w, r)
	case "/api/v2/feature":
		s.features(w)
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// health is HealthAction (sheet §10): 200, BEs only (not CNs), total and
// alive. The FE's RestResult is a map, key order unspecified.
func (s *StarRocks) health(w http.ResponseWriter) {
	var total, online int
	s.locked(func(c *cluster) {
		total = len(c.backends)
		for _, be := range c.backends {
			if be.alive {
				online++
			}
		}
	})
	writeJSON(w, struct {
		Total  int    `json:"total_backend_num"`
		Online int    `json:"online_backend_num"`
		Status string `json:"status"`
	}{total, online, "OK"})
}

// bootstrapResult is BootstrapFinishAction.BootstrapResult serialized by
// Gson: its own fields, then RestBaseResult's (status, code, msg, message);
// feVersion only when set (sheet §10).
type bootstrapResult struct {
	ReplayedJournalID int64  `json:"replayedJournalId"`
	QueryPort         int    `json:"queryPort"`
	RPCPort           int    `json:"rpcPort"`
	FeStartTime       int64  `json:"feStartTime"`
	FeVersion         string `json:"feVersion,omitempty"`
	Status            string `json:"status"`
	Code              string `json:"code"`
	Msg               string `json:"msg"`
	Message           string `json:"message"`
}

// bootstrap is BootstrapFinishAction.execute (http/rest/BootstrapFinishAction
// .java @039e00c8, a 3.3-branch copy): not ready (no leader here) gives
// RestBaseResult("not ready"): status FAILED, code "1" (ActionStatus.FAILED
// .ordinal()), msg = message = "not ready", HTTP 200. Ready: OK, code "0",
// "Success", "OK"; with a token, a wrong one sets status FAILED and msg
// "invalid parameter" (code and message stay), a right one fills the journal
// id, ports, start time and feVersion (STARROCKS_VERSION-COMMIT_HASH).
// UNVERIFIED for 3.3: the sheet's copy @d2a6b70f also checks cluster_id
// ("invalid cluster id: <id>"); this copy does not.
func (s *StarRocks) bootstrap(w http.ResponseWriter, r *http.Request) {
	res := bootstrapResult{Status: "OK", Code: "0", Msg: "Success", Message: "OK"}
	s.locked(func(c *cluster) {
		if c.leader == nil {
			res = bootstrapResult{Status: "FAILED", Code: "1", Msg: "not ready", Message: "not ready"}
			return
		}
		token := r.URL.Query().Get("token")
		if token == "" {
			return
		}
		if token != clusterToken {
			res.Status, res.Msg = "FAILED", "invalid parameter"
			return
		}
		res.ReplayedJournalID = c.journal
		res.QueryPort, res.RPCPort = feQueryPort, feRPCPort
		res.FeStartTime = c.leader.startTime.UnixMilli()
		res.FeVersion = c.fullVersion()
	})
	writeJSON(w, res)
}

// features is FeatureAction (sheet §10): RestResult with version =
// Version.STARROCKS_VERSION and the product features; key order unspecified
// in the FE.
func (s *StarRocks) features(w http.ResponseWriter) {
	fs := []feature{rbacFeature}
	if s.opts.MultiWarehouse {
		fs = append(fs, multiWarehouseFeature)
	}
	var version string
	s.locked(func(c *cluster) { version = c.release() })
	writeJSON(w, struct {
		Version  string    `json:"version"`
		Features []feature `json:"features"`
		Status   string    `json:"status"`
	}{version, fs, "OK"})
}

// frontendRuns: the FE process at host runs.
func (s *StarRocks) frontendRuns(host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.views.procs[host]
	return p != nil && p.running
}

// CloseHTTP closes (or opens again) the HTTP port of the FE at host as
// its own address reaches it (HTTPURLOf): a NetworkPolicy that lets only
// the query port through, say. The connection is dropped unanswered.
func (s *StarRocks) CloseHTTP(host string, closed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.httpClosedTo == nil {
		s.httpClosedTo = map[string]bool{}
	}
	s.httpClosedTo[host] = closed
}

// RequireHTTPAuth is enable_http_auth = true in every FE's fe.conf, with
// user and password the only account the HTTP port takes: GET
// /api/show_meta_info then needs Basic authentication
// (ShowMetaInfoAction.needAuth), and other credentials, or none, get 401.
// An empty user turns it off again (FE's default, false).
func (s *StarRocks) RequireHTTPAuth(user, password string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.httpUser, s.httpPassword = user, password
}

func (s *StarRocks) httpClosed(host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.httpClosedTo[host]
}

func (s *StarRocks) httpAuthorized(r *http.Request) bool {
	s.mu.Lock()
	want, pw := s.httpUser, s.httpPassword
	s.mu.Unlock()
	if want == "" {
		return true
	}
	user, password, ok := r.BasicAuth()
	return ok && user == want && password == pw
}
