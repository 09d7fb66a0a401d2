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
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// The tests talk to the simulation with the client the operator uses,
// go-sql-driver/mysql, through database/sql.

func connect(t *testing.T, s *simstarrocks.StarRocks, password string, readTimeout time.Duration) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = s.QueryAddress()
	cfg.User = "root"
	cfg.Passwd = password
	cfg.Timeout = 2 * time.Second
	cfg.ReadTimeout = readTimeout
	cfg.AllowNativePasswords = true
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// query runs a statement and returns its columns and rows as strings, or the
// MySQL error.
func query(db *sql.DB, stmt string) (cols []string, rows [][]string, err error) {
	r, err := db.QueryContext(context.Background(), stmt)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	cols, err = r.Columns()
	if err != nil {
		return nil, nil, err
	}
	for r.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		rows = append(rows, row)
	}
	return cols, rows, r.Err()
}

func mustQuery(t *testing.T, db *sql.DB, stmt string) (cols []string, rows [][]string) {
	t.Helper()
	cols, rows, err := query(db, stmt)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return cols, rows
}

func mustExec(t *testing.T, db *sql.DB, stmt string) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// mysqlError is the error packet behind err, or nil.
func mysqlError(err error) *mysql.MySQLError {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me
	}
	return nil
}

// byName reads one row by column name.
func byName(cols, row []string) map[string]string {
	m := map[string]string{}
	for i, c := range cols {
		m[c] = row[i]
	}
	return m
}

// rowOf finds the row whose column col is val.
func rowOf(t *testing.T, cols []string, rows [][]string, col, val string) map[string]string {
	t.Helper()
	i := slices.Index(cols, col)
	if i < 0 {
		t.Fatalf("no column %s in %v", col, cols)
	}
	for _, r := range rows {
		if r[i] == val {
			return byName(cols, r)
		}
	}
	t.Fatalf("no row with %s = %s in %v", col, val, rows)
	return nil
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// started is a simulation with a leader, fe-0:9010.
func started(t *testing.T, opts simstarrocks.Options) (*simstarrocks.StarRocks, *sql.DB) {
	t.Helper()
	s := simstarrocks.Start(t, opts)
	s.BootstrapFrontend("fe-0", 9010)
	return s, connect(t, s, opts.Password, 5*time.Second)
}

// withBackends adds n alive BEs be-0..be-(n-1) on heartbeat port 9050.
func withBackends(t *testing.T, s *simstarrocks.StarRocks, db *sql.DB, n int) {
	t.Helper()
	for i := range n {
		h := beHost(i)
		mustExec(t, db, "ALTER SYSTEM ADD BACKEND '"+h+":9050'")
		if !s.SetAlive(h, true) {
			t.Fatalf("no node %s", h)
		}
	}
}

func beHost(i int) string { return "be-" + string(rune('0'+i)) }
