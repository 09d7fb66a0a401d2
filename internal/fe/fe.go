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

// Package fe talks to a StarRocks FE: SQL over its MySQL port and the HTTP
// feature list. Every statement the operator sends to StarRocks is written in
// this package, and only here; identifiers are quoted and string literals
// escaped, never pasted in raw.
//
// Each call opens one connection with a connect and a read timeout, and is
// retried a bounded number of times with back-off, all within the caller's
// context: a dead FE costs a reconcile a few seconds, never a hung worker.
package fe

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Defaults of Client.
const (
	DefaultDialTimeout = 3 * time.Second
	DefaultReadTimeout = 10 * time.Second
	DefaultAttempts    = 3
	DefaultBackoff     = 200 * time.Millisecond
	// RootUser is the user the operator connects as, as the upstream does.
	RootUser = "root"
)

// Client runs statements on one FE. The zero values of the timeouts,
// attempts and back-off take the defaults above.
type Client struct {
	// Address is host:port of FE's MySQL (query) port.
	Address  string
	User     string
	Password string
	// TLS secures the connection; the zero value is PREFERRED, unverified.
	TLS TLS

	// DialTimeout bounds the whole connection: TCP, TLS, FE's greeting and
	// the login. An FE that accepts and says nothing (a hung process) then
	// costs DialTimeout, not ReadTimeout. ReadTimeout bounds each answer.
	DialTimeout, ReadTimeout time.Duration
	// Attempts bounds how often a statement is tried; Backoff is the first
	// wait between attempts, doubled after each.
	Attempts int
	Backoff  time.Duration

	// MaxRows bounds the rows of one answer, MaxBytes the bytes FE sends
	// on one connection after the login; 0 is no bound. An answer beyond
	// either fails with AnswerTooLargeError, and nothing of it is used.
	MaxRows  int
	MaxBytes int64

	// acted is set once a statement succeeded, or got no answer (FE may
	// have run it): what FE said of its nodes before may be out of date.
	acted bool
}

// ComputeNode is one row of SHOW COMPUTE NODES, the columns the operator reads.
type ComputeNode struct {
	ID            string
	Host          string // the IP column: an address or, with HOST_TYPE=FQDN, the pod's DNS name
	HeartbeatPort int
	Alive         bool
	Warehouse     string // WarehouseName; empty on versions without warehouses
	// LastHeartbeat is as Backend's.
	LastHeartbeat string
	// Version is the Version column (facts sheet §4: every column list
	// has it), as Backend's.
	Version string
	// SharedData is FE's word that it runs in shared-data mode: the row
	// has the shared-data columns (StarletPort; facts sheet §4), as
	// Backend's.
	SharedData bool
}

// Statements the operator sends; tests compare what FE received with them.
const (
	ShowComputeNodesSQL = "SHOW COMPUTE NODES"
)

// DropComputeNodeSQL is the statement that removes one compute node from FE.
// A node FE lists in a warehouse is dropped FROM that WAREHOUSE: without the
// clause FE looks in default_warehouse and answers "compute node [h:p] does
// not exist in warehouse default_warehouse" (facts sheet §8). FE versions
// without warehouses list no WarehouseName, and get no clause.
func DropComputeNodeSQL(host string, heartbeatPort int, warehouse string) string {
	stmt := "ALTER SYSTEM DROP COMPUTE NODE " + QuoteString(net.JoinHostPort(host, strconv.Itoa(heartbeatPort)))
	if warehouse != "" {
		stmt += " FROM WAREHOUSE " + QuoteIdentifier(warehouse)
	}
	return stmt
}

// CreateWarehouseSQL makes a warehouse, without IF NOT EXISTS: that FE had
// one of the name already is what the caller wants to know.
func CreateWarehouseSQL(name string) string {
	return "CREATE WAREHOUSE " + QuoteIdentifier(name)
}

// ErrorWarehouseExists is ERR_WAREHOUSE_EXISTS, 5902 / 42000, "Warehouse %s
// already exists." (common/ErrorCode.java).
const ErrorWarehouseExists = 5902

// CreateWarehouse makes a warehouse in FE. existed is true when FE had one
// of the name already (5902, or the error's text).
func (c *Client) CreateWarehouse(ctx context.Context, name string) (existed bool, err error) {
	err = c.exec(ctx, CreateWarehouseSQL(name))
	var refused *mysql.MySQLError
	if errors.As(err, &refused) && (refused.Number == ErrorWarehouseExists || strings.Contains(strings.ToLower(refused.Message), "already exists")) {
		return true, nil
	}
	return false, err
}

// DropWarehouseSQL is the statement that removes a warehouse from FE: with
// IF EXISTS, which the grammar has (DROP WAREHOUSE (IF EXISTS)?
// identifierOrString, facts sheet §13), so that a warehouse already gone is
// no error.
func DropWarehouseSQL(name string) string {
	return "DROP WAREHOUSE IF EXISTS " + QuoteIdentifier(name)
}

// WarehouseName is the name FE knows a StarRocksWarehouse by: the object's
// name with '-' turned into '_' (FE names allow no '-'), as the CN entrypoint
// registers it from KUBE_STARROCKS_MULTI_WAREHOUSE.
func WarehouseName(objectName string) string {
	return strings.ReplaceAll(objectName, "-", "_")
}

// QuoteIdentifier quotes a MySQL identifier with backquotes, doubling any inside.
func QuoteIdentifier(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// QuoteString makes s a single-quoted MySQL string literal, escaping what
// MySQL treats specially inside one.
func QuoteString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1a:
			b.WriteString(`\Z`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// ShowComputeNodes lists the compute nodes FE knows.
func (c *Client) ShowComputeNodes(ctx context.Context) ([]ComputeNode, error) {
	rows, err := c.query(ctx, ShowComputeNodesSQL, computeNodeColumns...)
	if err != nil {
		return nil, err
	}
	return parseComputeNodes(rows)
}

var computeNodeColumns = []string{"ip", "heartbeatport"}

func parseComputeNodes(rows []row) ([]ComputeNode, error) {
	out := make([]ComputeNode, 0, len(rows))
	for _, r := range rows {
		port, err := r.int("heartbeatport")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ShowComputeNodesSQL, err)
		}
		out = append(out, ComputeNode{ID: r["computenodeid"], Host: r["ip"], HeartbeatPort: port, Alive: r.bool("alive"), Warehouse: r["warehousename"], LastHeartbeat: r["lastheartbeat"], Version: r.version(), SharedData: r.has("starletport")})
	}
	return out, nil
}

// DropComputeNode removes one compute node from FE, from the warehouse FE
// lists it in (the node's Warehouse; empty without warehouses). A node
// already gone is no error: the CN's own stop script may have dropped it
// meanwhile (facts sheet §12), and FE then answers "compute node does not
// exists[<h>:<p>]" (§8). A node FE lists in another warehouse is an error.
func (c *Client) DropComputeNode(ctx context.Context, n ComputeNode) error {
	err := c.exec(ctx, DropComputeNodeSQL(n.Host, n.HeartbeatPort, n.Warehouse))
	var refused *mysql.MySQLError
	if errors.As(err, &refused) && strings.HasPrefix(refused.Message, "compute node does not exists[") {
		return c.doneAlready()
	}
	return err
}

// DropWarehouse removes a warehouse (FE's name, see WarehouseName) from FE.
// What FE has no such warehouse to drop is no error: an earlier drop may
// have succeeded just before the operator lost its answer or restarted,
// and an FE without warehouses never had it.
func (c *Client) DropWarehouse(ctx context.Context, name string) error {
	err := c.exec(ctx, DropWarehouseSQL(name))
	var refused *mysql.MySQLError
	if errors.As(err, &refused) && nothingToDrop(refused.Message) {
		return c.doneAlready()
	}
	return err
}

// nothingToDrop recognises FE's answers that it has no such warehouse
// (facts sheet §13): an open-source FE's "Multi-Warehouse is not
// implemented", and "Warehouse name: <wh> not exist." or "Warehouse '<wh>'
// doesn't exist" from builds with warehouses.
func nothingToDrop(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "multi-warehouse is not implemented") ||
		(strings.Contains(m, "warehouse") && (strings.Contains(m, "not exist") || strings.Contains(m, "doesn't exist")))
}

func (c *Client) exec(ctx context.Context, stmt string) error {
	err := c.retry(ctx, func(conn driver.Conn) error {
		e, ok := conn.(driver.ExecerContext)
		if !ok {
			return errors.New("the MySQL driver cannot execute")
		}
		_, err := e.ExecContext(ctx, stmt, nil)
		return err
	})
	var answered *mysql.MySQLError
	if err == nil || !errors.As(err, &answered) {
		c.acted = true
	}
	if err != nil {
		return &StatementError{Statement: stmt, Address: c.Address, Err: err}
	}
	return nil
}

// MayHaveActed reports whether FE may not be what it was before the
// statements sent through c: one succeeded, got no answer, or was answered
// that it had nothing left to do (FE changed meanwhile, so what it said
// before is out of date). A statement FE refused (a refusal, a missing
// privilege) changed nothing.
func (c *Client) MayHaveActed() bool { return c.acted }

// doneAlready is a statement FE answered had nothing left to do: no error,
// and FE is not what its last report said.
func (c *Client) doneAlready() error {
	c.acted = true
	return nil
}

// retry runs fn on a fresh connection up to Attempts times. A statement FE
// refused (a MySQL error) is not retried: it would be refused again. The
// driver is used without database/sql, whose own hidden retries would
// multiply the attempts.
func (c *Client) retry(ctx context.Context, fn func(driver.Conn) error) error {
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	wait := c.Backoff
	if wait <= 0 {
		wait = DefaultBackoff
	}
	cfg, err := c.config()
	if err != nil {
		return err
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	for i := range attempts {
		if i > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return errors.Join(err, ctx.Err())
			case <-t.C:
			}
			wait *= 2
		}
		err = once(ctx, orDefault(c.DialTimeout, DefaultDialTimeout), connector, fn)
		var (
			refused *mysql.MySQLError
			plugin  *AuthPluginError
			large   *AnswerTooLargeError
		)
		// A refusal, a TLS failure, a login the operator does not speak or
		// an answer too large would be the same next time.
		if err == nil || errors.As(err, &refused) || TLSFailed(err) || errors.As(err, &plugin) || errors.As(err, &large) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// once runs fn on one connection. When wire ended the connection (a login
// it refused, a TLS failure, an answer too large), its reason is the error:
// the driver reports only "invalid connection".
func once(ctx context.Context, connect time.Duration, connector driver.Connector, fn func(driver.Conn) error) error {
	h := &dialed{}
	cctx, cancel := context.WithTimeout(context.WithValue(ctx, dialedKey{}, h), connect)
	conn, err := connector.Connect(cctx) // the driver lets go of cctx once connected
	cancel()
	if err != nil {
		if why := h.why(); why != nil {
			return why
		}
		return err
	}
	defer conn.Close()
	if err := fn(conn); err != nil {
		if why := h.why(); why != nil {
			return why
		}
		return err
	}
	return nil
}

func (c *Client) config() (*mysql.Config, error) {
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = c.Address
	cfg.User = c.User
	if cfg.User == "" {
		cfg.User = RootUser
	}
	cfg.Passwd = c.Password
	cfg.Timeout = orDefault(c.DialTimeout, DefaultDialTimeout)
	cfg.ReadTimeout = orDefault(c.ReadTimeout, DefaultReadTimeout)
	cfg.WriteTimeout = cfg.ReadTimeout
	// FE speaks the MySQL protocol but is not MySQL: ask for nothing at connect.
	cfg.InterpolateParams = false
	// mysql_native_password only (wire.go): the driver's own switches
	// refuse the cleartext and old plugins, wire the rest.
	cfg.AllowNativePasswords = true
	cfg.AllowCleartextPasswords = false
	cfg.AllowOldPasswords = false
	if err := c.TLS.apply(cfg, c.Address, c.MaxBytes); err != nil {
		return nil, err
	}
	return cfg, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// quietDriver keeps the MySQL driver from printing connection errors to
// stderr behind the operator's structured log: every error it meets is
// returned to the caller, which reports it.
type quietDriver struct{}

func (quietDriver) Print(...any) {}

func init() { _ = mysql.SetLogger(quietDriver{}) }
