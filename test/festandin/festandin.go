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

// Package festandin is a StarRocks FE for tests: a MySQL-wire server (the
// vitess protocol library, the same server code Dolt and go-mysql-server
// use) and an HTTP server, both in the test process. It answers the
// statements the operator sends as StarRocks does, from a compute-node table
// and a warehouse list the test controls, and records every statement.
//
// Facts it follows (StarRocks documentation): SHOW COMPUTE NODES returns the
// columns ComputeNodeId, IP, HeartbeatPort, BePort, HttpPort, BrpcPort,
// LastStartTime, LastHeartbeat, Alive, SystemDecommissioned,
// ClusterDecommissioned, ErrMsg, Version, CpuCores, NumRunningQueries,
// MemUsedPct, CpuUsedPct, HasStoragePath, StarletPort, WorkerId,
// WarehouseName, TabletNum, StatusCode; ALTER SYSTEM DROP COMPUTE NODE takes
// one or more "host:heartbeat_port" strings; DROP WAREHOUSE takes a name;
// GET /api/v2/feature returns a RestResult listing the product features.
package festandin

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// ComputeNode is one row of the compute-node table.
type ComputeNode struct {
	Host          string
	HeartbeatPort int
	Alive         bool
	Warehouse     string
}

// Options configure a stand-in.
type Options struct {
	// Password of root; empty accepts root without one.
	Password string
	// Features are the names GET /api/v2/feature lists.
	Features []string
}

// FE is a running stand-in.
type FE struct {
	listener *mysql.Listener
	http     *httptest.Server

	mu         sync.Mutex
	nodes      []ComputeNode
	nextID     int
	ids        map[string]int
	warehouses []string
	features   []string
	statements []string
	logins     []string
}

// Start runs a stand-in until the test ends.
func Start(t testing.TB, opts Options) *FE {
	t.Helper()
	f := &FE{features: opts.Features, ids: map[string]int{}, nextID: 10001}
	users, err := json.Marshal(map[string][]map[string]string{"root": {{"Password": opts.Password}}})
	if err != nil {
		t.Fatal(err)
	}
	auth := mysql.NewAuthServerStatic("", string(users), 0)
	l, err := mysql.NewListener("tcp", "127.0.0.1:0", auth, f, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.listener = l
	go l.Accept()
	f.http = httptest.NewServer(http.HandlerFunc(f.serveHTTP))
	t.Cleanup(f.Stop)
	return f
}

// Stop closes both servers; the addresses then refuse connections.
func (f *FE) Stop() {
	f.listener.Close()
	f.http.Close()
}

// QueryAddress is host:port of the MySQL port.
func (f *FE) QueryAddress() string { return f.listener.Addr().String() }

// HTTPURL is http://host:port of the HTTP port.
func (f *FE) HTTPURL() string { return f.http.URL }

// SetComputeNodes replaces the compute-node table.
func (f *FE) SetComputeNodes(nodes ...ComputeNode) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nodes = slices.Clone(nodes)
}

// ComputeNodes returns the compute-node table.
func (f *FE) ComputeNodes() []ComputeNode {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.nodes)
}

// AddWarehouse makes FE know a warehouse, as the CN entrypoint's CREATE WAREHOUSE would.
func (f *FE) AddWarehouse(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !slices.Contains(f.warehouses, name) {
		f.warehouses = append(f.warehouses, name)
	}
}

// Warehouses returns the warehouses FE knows.
func (f *FE) Warehouses() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.warehouses)
}

// Statements returns every statement received, in order.
func (f *FE) Statements() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.statements)
}

// StatementsLike returns the statements that start with prefix (case-insensitive).
func (f *FE) StatementsLike(prefix string) []string {
	var out []string
	for _, s := range f.Statements() {
		if strings.HasPrefix(strings.ToUpper(s), strings.ToUpper(prefix)) {
			out = append(out, s)
		}
	}
	return out
}

// Logins returns the user of every accepted connection.
func (f *FE) Logins() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.logins)
}

func (f *FE) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || r.URL.Path != "/api/v2/feature" {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	type feature struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Link        string `json:"link"`
	}
	fs := make([]feature, 0, len(f.features))
	for _, n := range f.features {
		fs = append(fs, feature{Name: n, Description: n + " (stand-in)"})
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"code": "0", "message": "OK",
		"data": map[string]any{"version": "3.3.0-standin", "features": fs},
	})
}

// The rest of vitess's mysql.Handler: FE keeps no per-connection state and
// speaks only the text protocol.

// NewConnection is called when a client connects; nothing to set up.
func (f *FE) NewConnection(*mysql.Conn) {}

// ConnectionClosed is called when a client disconnects; nothing to clean up.
func (f *FE) ConnectionClosed(*mysql.Conn) {}

// ConnectionAborted is called when a handshake fails; nothing to clean up.
func (f *FE) ConnectionAborted(*mysql.Conn, string) error { return nil }

// ComInitDB accepts USE of any database.
func (f *FE) ComInitDB(*mysql.Conn, string) error { return nil }

// ComMultiQuery answers the whole text as one statement, as ComQuery does.
func (f *FE) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	return "", f.ComQuery(ctx, c, query, callback)
}

// ComPrepare refuses prepared statements, which the operator never sends.
func (f *FE) ComPrepare(context.Context, *mysql.Conn, string, *mysql.PrepareData) ([]*querypb.Field, error) {
	return nil, mysql.NewSQLError(mysql.ERUnknownComError, mysql.SSUnknownSQLState, "prepared statements are not supported by the stand-in")
}

// ComStmtExecute refuses prepared statements, which the operator never sends.
func (f *FE) ComStmtExecute(context.Context, *mysql.Conn, *mysql.PrepareData, func(*sqltypes.Result) error) error {
	return mysql.NewSQLError(mysql.ERUnknownComError, mysql.SSUnknownSQLState, "prepared statements are not supported by the stand-in")
}

// WarningCount is always 0: the stand-in raises no warnings.
func (f *FE) WarningCount(*mysql.Conn) uint16 { return 0 }

// ComResetConnection has no session state to reset.
func (f *FE) ComResetConnection(*mysql.Conn) error { return nil }

// ParserOptionsForConnection is vitess's default parser for every connection.
func (f *FE) ParserOptionsForConnection(*mysql.Conn) (sqlparser.ParserOptions, error) {
	return sqlparser.ParserOptions{}, nil
}

// ComQuery answers one statement.
func (f *FE) ComQuery(_ context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	stmt := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(query), ";"))
	f.mu.Lock()
	f.statements = append(f.statements, stmt)
	if len(f.logins) == 0 || f.logins[len(f.logins)-1] != c.User {
		f.logins = append(f.logins, c.User)
	}
	f.mu.Unlock()
	words := strings.Fields(strings.ToUpper(stmt))
	switch {
	case hasWords(words, "SHOW", "COMPUTE", "NODES") && len(words) == 3:
		return callback(f.showComputeNodes(), false)
	case hasWords(words, "ALTER", "SYSTEM", "DROP", "COMPUTE", "NODE"):
		return f.dropComputeNodes(stmt, callback)
	case hasWords(words, "DROP", "WAREHOUSE"):
		return f.dropWarehouse(stmt, callback)
	}
	return mysql.NewSQLError(mysql.ERParseError, sqlStateSyntaxError, "Getting syntax error. Detail message: stand-in does not know %q.", stmt)
}

func hasWords(words []string, want ...string) bool {
	return len(words) >= len(want) && slices.Equal(words[:len(want)], want)
}

var computeNodeColumns = []string{"ComputeNodeId", "IP", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "LastStartTime", "LastHeartbeat", "Alive", "SystemDecommissioned", "ClusterDecommissioned", "ErrMsg", "Version", "CpuCores", "NumRunningQueries", "MemUsedPct", "CpuUsedPct", "HasStoragePath", "StarletPort", "WorkerId", "WarehouseName", "TabletNum", "StatusCode"}

func (f *FE) showComputeNodes() *sqltypes.Result {
	res := &sqltypes.Result{}
	for _, c := range computeNodeColumns {
		res.Fields = append(res.Fields, &querypb.Field{Name: c, Type: querypb.Type_VARCHAR, Charset: 33})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.nodes {
		key := n.Host + ":" + strconv.Itoa(n.HeartbeatPort)
		if f.ids[key] == 0 {
			f.ids[key] = f.nextID
			f.nextID++
		}
		wh := n.Warehouse
		if wh == "" {
			wh = "default_warehouse"
		}
		status := "OK"
		if !n.Alive {
			status = "DISCONNECTED"
		}
		vals := []string{strconv.Itoa(f.ids[key]), n.Host, strconv.Itoa(n.HeartbeatPort), "9060", "8040", "8060", "2026-01-01 00:00:00", "2026-01-01 00:00:05",
			strconv.FormatBool(n.Alive), "false", "false", "", "3.3.0-standin", "4", "0", "1.00 %", "0.0 %", "true", "9070", strconv.Itoa(f.ids[key] - 10000), wh, "0", status}
		row := make([]sqltypes.Value, len(vals))
		for i, v := range vals {
			row[i] = sqltypes.NewVarChar(v)
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}

func (f *FE) dropComputeNodes(stmt string, callback mysql.ResultSpoolFn) error {
	rest := strings.TrimSpace(stmt[len("ALTER SYSTEM DROP COMPUTE NODE"):])
	var targets []string
	for rest != "" {
		lit, tail, err := stringLiteral(rest)
		if err != nil {
			return mysql.NewSQLError(mysql.ERParseError, sqlStateSyntaxError, "Getting syntax error. Detail message: %v.", err)
		}
		targets = append(targets, lit)
		rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(tail), ","))
	}
	if len(targets) == 0 {
		return mysql.NewSQLError(mysql.ERParseError, sqlStateSyntaxError, "Getting syntax error. Detail message: no compute node given.")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range targets {
		host, port, err := net.SplitHostPort(t)
		p, perr := strconv.Atoi(port)
		if err != nil || perr != nil {
			return mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "Invalid host port format: %s", t)
		}
		i := slices.IndexFunc(f.nodes, func(n ComputeNode) bool { return n.Host == host && n.HeartbeatPort == p })
		if i < 0 {
			return mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "compute node does not exist[%s:%d]", host, p)
		}
		f.nodes = slices.Delete(f.nodes, i, i+1)
	}
	return callback(&sqltypes.Result{}, false)
}

func (f *FE) dropWarehouse(stmt string, callback mysql.ResultSpoolFn) error {
	rest := strings.TrimSpace(stmt[len("DROP WAREHOUSE"):])
	ifExists := false
	if up := strings.ToUpper(rest); strings.HasPrefix(up, "IF EXISTS ") {
		ifExists, rest = true, strings.TrimSpace(rest[len("IF EXISTS "):])
	}
	name, tail, err := identifier(rest)
	if err != nil || strings.TrimSpace(tail) != "" {
		return mysql.NewSQLError(mysql.ERParseError, sqlStateSyntaxError, "Getting syntax error. Detail message: bad warehouse name in %q.", stmt)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	i := slices.Index(f.warehouses, name)
	switch {
	case i >= 0:
		f.warehouses = slices.Delete(f.warehouses, i, i+1)
	case !ifExists:
		return mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "Warehouse %s not exist.", name)
	}
	return callback(&sqltypes.Result{}, false)
}

// stringLiteral reads a quoted MySQL string at the start of s.
func stringLiteral(s string) (value, rest string, err error) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", s, fmt.Errorf("expected a quoted string at %q", s)
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'Z':
				b.WriteByte(0x1a)
			default:
				b.WriteByte(s[i])
			}
		case c == q && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case c == q:
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("unterminated string %q", s)
}

// identifier reads a backquoted or bare identifier at the start of s.
func identifier(s string) (name, rest string, err error) {
	if strings.HasPrefix(s, "`") {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '`' {
				if i+1 < len(s) && s[i+1] == '`' {
					b.WriteByte('`')
					i++
					continue
				}
				return b.String(), s[i+1:], nil
			}
			b.WriteByte(s[i])
		}
		return "", "", fmt.Errorf("unterminated identifier %q", s)
	}
	end := strings.IndexFunc(s, func(r rune) bool { return !isIdentRune(r) })
	if end == 0 {
		return "", s, fmt.Errorf("no identifier at %q", s)
	}
	if end < 0 {
		end = len(s)
	}
	return s[:end], s[end:], nil
}

// isIdentRune reports whether r may appear in a bare identifier.
func isIdentRune(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// sqlStateSyntaxError is MySQL's SQLSTATE for a syntax error or access violation.
const sqlStateSyntaxError = "42000"
