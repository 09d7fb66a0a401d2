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

// Package hostilefe is, for tests, the FE of a hostile tenant: it speaks
// the MySQL protocol as an FE does, and answers the operator's reads the
// way a tenant who controls its own FE (spec.image, fe.conf) could. It
// records every statement it received and every packet of every login.
package hostilefe

import (
	"bufio"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Trick is how the FE misbehaves.
type Trick string

// The tricks of docs/reliability.md's hostile-tenant table.
const (
	// Huge answers each node list with Rows rows (default 1,000,000),
	// streamed, and '/statistic' with as many databases.
	Huge Trick = "huge"
	// Slow drips its answers, one row every 2 s, without end.
	Slow Trick = "slow"
	// Forged lists, as its own, the nodes of Forge: other tenants' pods
	// and hosts outside the cluster, alive, decommissioned and drained,
	// and a frontend whose role is SQL.
	Forged Trick = "forged"
	// Auth plays, connection after connection, every login trick of
	// internal/fe/wire.go's doc: caching_sha2_password's full
	// authentication with its own RSA key, sha256_password, cleartext,
	// and an auth switch to each.
	Auth Trick = "auth"
	// Closes closes the connection in the middle of an answer.
	Closes Trick = "closes"
	// Garbage answers with invalid UTF-8 and absurd numbers in every column.
	Garbage Trick = "garbage"
)

// Options of a hostile FE.
type Options struct {
	// Rows is Huge's row count; 0 is 1,000,000.
	Rows int
	// Forge are the hosts Forged lists as its nodes.
	Forge []string
}

// FE is a hostile FE listening on a loopback port.
type FE struct {
	ln    net.Listener
	trick Trick
	opts  Options
	key   *rsa.PrivateKey

	mu         sync.Mutex
	conns      int
	statements []string
	// afterResponse counts the packets clients sent after their handshake
	// response: the answers to an auth switch or to "more data" (a
	// password, in clear or encrypted, when a client gives in).
	afterResponse int
	logins        [][]byte
}

// Start listens on a free loopback port until t ends.
func Start(t testing.TB, trick Trick, opts Options) *FE {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if opts.Rows == 0 {
		opts.Rows = 1_000_000
	}
	f := &FE{ln: ln, trick: trick, opts: opts}
	if trick == Auth {
		if f.key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var cmu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		_ = ln.Close()
		cmu.Lock()
		for _, c := range open {
			_ = c.Close()
		}
		cmu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			cmu.Lock()
			open = append(open, c)
			cmu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				f.serve(c)
			}()
		}
	}()
	return f
}

// Address is host:port.
func (f *FE) Address() string { return f.ln.Addr().String() }

// Statements are the statements received, in order.
func (f *FE) Statements() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.statements...)
}

// Connections counts the connections accepted.
func (f *FE) Connections() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conns
}

// AfterResponse counts the login packets clients sent after their
// handshake response: 0 when every client stopped at the trick.
func (f *FE) AfterResponse() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.afterResponse
}

// LoginPackets are the packets of every login, as received.
func (f *FE) LoginPackets() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.logins...)
}

type conn struct {
	c   net.Conn
	r   *bufio.Reader
	w   *bufio.Writer
	seq byte
}

func (c *conn) read() ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(c.r, h[:]); err != nil {
		return nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	b := make([]byte, n)
	if _, err := io.ReadFull(c.r, b); err != nil {
		return nil, err
	}
	c.seq = h[3] + 1
	return b, nil
}

func (c *conn) write(b []byte) error {
	h := []byte{byte(len(b)), byte(len(b) >> 8), byte(len(b) >> 16), c.seq}
	c.seq++
	if _, err := c.w.Write(h); err != nil {
		return err
	}
	_, err := c.w.Write(b)
	return err
}

func (c *conn) flush() error { return c.w.Flush() }

const nonce = "0123456789abcdefghij"

func greeting(plugin string) []byte {
	caps := uint32(0x1 | 0x200 | 0x2000 | 0x8000 | 0x80000)
	g := []byte{10}
	g = append(g, "8.0.33-starrocks-hostile"...)
	g = append(g, 0, 7, 0, 0, 0)
	g = append(g, nonce[:8]...)
	g = append(g, 0)
	g = binary.LittleEndian.AppendUint16(g, uint16(caps))
	g = append(g, 33, 2, 0)
	g = binary.LittleEndian.AppendUint16(g, uint16(caps>>16))
	g = append(g, 21)
	g = append(g, make([]byte, 10)...)
	g = append(g, nonce[8:]...)
	g = append(g, 0)
	g = append(g, plugin...)
	return append(g, 0)
}

var ok = []byte{0, 0, 0, 2, 0, 0, 0}

// authTricks are Auth's logins, one per connection in turn: the greeting's
// plugin, and a switch after the response ("" none; "more" is caching_sha2's
// "perform full authentication" without a switch).
var authTricks = []struct{ greeting, then string }{
	{"caching_sha2_password", "more"},
	{"sha256_password", ""},
	{"mysql_clear_password", ""},
	{"mysql_native_password", "caching_sha2_password"},
	{"mysql_native_password", "sha256_password"},
	{"mysql_native_password", "mysql_clear_password"},
	{"mysql_native_password", "more"},
}

func (f *FE) serve(nc net.Conn) {
	_ = nc.SetDeadline(time.Now().Add(10 * time.Minute))
	c := &conn{c: nc, r: bufio.NewReader(nc), w: bufio.NewWriterSize(nc, 64<<10)}
	f.mu.Lock()
	n := f.conns
	f.conns++
	f.mu.Unlock()
	plugin, then := "mysql_native_password", ""
	if f.trick == Auth {
		t := authTricks[n%len(authTricks)]
		plugin, then = t.greeting, t.then
	}
	if c.write(greeting(plugin)) != nil || c.flush() != nil {
		return
	}
	resp, err := c.read()
	if err != nil {
		return
	}
	f.login(resp, false)
	if f.trick == Auth && !f.harvest(c, plugin, then) {
		return
	}
	if c.write(ok) != nil || c.flush() != nil {
		return
	}
	for {
		c.seq = 0
		cmd, err := c.read()
		if err != nil || len(cmd) == 0 || cmd[0] != 0x03 {
			return
		}
		q := string(cmd[1:])
		f.mu.Lock()
		f.statements = append(f.statements, q)
		f.mu.Unlock()
		if !f.answer(c, q) {
			return
		}
		if c.flush() != nil {
			return
		}
	}
}

func (f *FE) login(p []byte, after bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logins = append(f.logins, append([]byte(nil), p...))
	if after {
		f.afterResponse++
	}
}

// harvest asks for the password as the trick's plugin allows; it reports
// whether the client went along to the end.
func (f *FE) harvest(c *conn, plugin, then string) bool {
	switch {
	case then == "more":
		if c.write([]byte{0x01, 0x04}) != nil || c.flush() != nil { // perform full authentication
			return false
		}
	case then != "":
		plugin = then
		sw := append([]byte{0xfe}, then...)
		sw = append(append(append(sw, 0), nonce...), 0)
		if c.write(sw) != nil || c.flush() != nil {
			return false
		}
	case plugin == "sha256_password" || plugin == "mysql_clear_password":
		// the response carried the client's answer already
	default:
		return true
	}
	for range 3 {
		p, err := c.read()
		if err != nil {
			return false
		}
		f.login(p, true)
		if len(p) == 1 && (p[0] == 0x01 || p[0] == 0x02) { // the client asks for the key
			der, _ := x509.MarshalPKIXPublicKey(&f.key.PublicKey)
			if c.write(append([]byte{0x01}, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})...)) != nil || c.flush() != nil {
				return false
			}
			continue
		}
		if plugin == "caching_sha2_password" && then != "more" {
			if c.write([]byte{0x01, 0x04}) != nil || c.flush() != nil {
				return false
			}
			then = "more"
			continue
		}
		return true
	}
	return true
}

// Columns of the answers, the ones FE prints (facts sheet §2–§4, §9).
var (
	frontendCols = []string{"Name", "IP", "EditLogPort", "HttpPort", "QueryPort", "RpcPort", "Role", "ClusterId", "Join", "Alive", "ReplayedJournalId", "LastHeartbeat", "IsHelper", "ErrMsg", "StartTime", "Version"}
	backendCols  = []string{"BackendId", "IP", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "LastStartTime", "LastHeartbeat", "Alive", "SystemDecommissioned", "ClusterDecommissioned", "TabletNum", "DataUsedCapacity", "Status", "Version"}
	cnCols       = []string{"ComputeNodeId", "IP", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "LastStartTime", "LastHeartbeat", "Alive", "Version"}
	statCols     = []string{"DbId", "DbName", "TableNum", "PartitionNum", "IndexNum", "TabletNum", "ReplicaNum", "UnhealthyTabletNum", "InconsistentTabletNum", "CloningTabletNum", "ErrorStateTabletNum"}
)

func (f *FE) answer(c *conn, q string) bool {
	u := strings.ToUpper(strings.TrimSpace(q))
	var cols []string
	var row func(i int) []string
	rows := 1
	switch {
	case strings.HasPrefix(u, "SHOW FRONTENDS"):
		cols, row = frontendCols, f.frontend
	case strings.HasPrefix(u, "SHOW BACKENDS"):
		cols, row = backendCols, f.backend
	case strings.HasPrefix(u, "SHOW COMPUTE NODES"):
		cols, row = cnCols, f.computeNode
	case strings.HasPrefix(u, "SHOW PROC"):
		cols, row = statCols, f.statistic
	default:
		return c.write(ok) == nil
	}
	switch f.trick {
	case Huge:
		rows = f.opts.Rows
	case Forged:
		rows = len(f.opts.Forge) + 1
	case Garbage:
		rows = 3
	case Slow, Closes:
		rows = 1 << 30
	}
	if c.write([]byte{byte(len(cols))}) != nil {
		return false
	}
	for _, col := range cols {
		if c.write(columnDef(col)) != nil {
			return false
		}
	}
	if c.write([]byte{0xfe, 0, 0, 2, 0}) != nil {
		return false
	}
	for i := range rows {
		switch {
		case f.trick == Slow:
			if c.flush() != nil {
				return false
			}
			time.Sleep(2 * time.Second)
		case f.trick == Closes && i == 2:
			_ = c.flush()
			return false
		}
		var r []byte
		for _, v := range row(i) {
			r = lenenc(r, v)
		}
		if c.write(r) != nil {
			return false
		}
	}
	return c.write([]byte{0xfe, 0, 0, 2, 0}) == nil
}

func columnDef(name string) []byte {
	d := lenenc(nil, "def")
	for _, s := range []string{"", "", "", name, name} {
		d = lenenc(d, s)
	}
	return append(d, 0x0c, 33, 0, 0, 1, 0, 0, 0xfd, 0, 0, 0, 0, 0)
}

func lenenc(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 251:
		b = append(b, byte(n))
	case n < 1<<16:
		b = append(b, 0xfc, byte(n), byte(n>>8))
	default:
		b = append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return append(b, s...)
}

// host is the IP column of row i: a forged host, garbage, or one of many.
func (f *FE) host(i int, kind string) string {
	switch f.trick {
	case Forged:
		if i < len(f.opts.Forge) {
			return f.opts.Forge[i]
		}
		return "collector.example.com"
	case Garbage:
		return []string{"\xff\xfe\xfd", "a\x00b'; DROP WAREHOUSE w; --", strings.Repeat("\xc3\x28", 100)}[i%3]
	}
	return fmt.Sprintf("%s-%d.example.invalid", kind, i)
}

func (f *FE) number(i int) string {
	if f.trick == Garbage {
		return []string{"99999999999999999999999", "-1", "1e30"}[i%3]
	}
	return strconv.Itoa(9000 + i%1000)
}

func (f *FE) frontend(i int) []string {
	role := []string{"LEADER", "FOLLOWER", "OBSERVER"}[i%3]
	if f.trick == Forged && i == len(f.opts.Forge) {
		role = "FOLLOWER 'x:1'; ADMIN SET FRONTEND CONFIG ('a' = 'b') --"
	}
	if f.trick == Garbage {
		role = "\xff" + role
	}
	return []string{"fe_" + strconv.Itoa(i), f.host(i, "fe"), f.number(i), "8030", "9030", "9020", role, "1", "true", "true", "100", "2026-01-01 00:00:00", "true", "", "2026-01-01 00:00:00", "3.3.2-hostile"}
}

func (f *FE) backend(i int) []string {
	decommissioned, tablets := "false", "10"
	if f.trick == Forged {
		decommissioned, tablets = "true", "0" // drained: a DROP would follow
	}
	if f.trick == Garbage {
		tablets = f.number(i + 1)
	}
	return []string{strconv.Itoa(10000 + i), f.host(i, "be"), f.number(i), "9060", "8040", "8060", "2026-01-01 00:00:00", "2026-01-01 00:00:00", "true", decommissioned, "false", tablets, "0 B",
		`{"lastSuccessReportTabletsTime":"2026-01-01 00:00:00"}`, "3.3.2-hostile"}
}

func (f *FE) computeNode(i int) []string {
	return []string{strconv.Itoa(20000 + i), f.host(i, "cn"), f.number(i), "9060", "8040", "8060", "2026-01-01 00:00:00", "2026-01-01 00:00:00", "true", "3.3.2-hostile"}
}

func (f *FE) statistic(i int) []string {
	id, unhealthy := strconv.Itoa(10000+i), "0"
	if i == 0 && f.trick != Huge {
		id = "Total"
	}
	if f.trick == Garbage {
		unhealthy = f.number(i)
	}
	return []string{id, "db" + strconv.Itoa(i), "1", "1", "1", "1", "1", unhealthy, "0", "0", "0"}
}
