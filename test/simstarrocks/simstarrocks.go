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

// Package simstarrocks is a simulated StarRocks FE for tests: a MySQL-wire
// server (vitess's protocol library) and an HTTP server in the test process,
// over a model of the FE group, the backends and their tablets, the compute
// nodes and the warehouses.
//
// It answers as the real FE does. Every column list, value format, error
// text and state change comes from the facts sheet
// /work/shared/reference/starrocks-fe-protocol.md ("sheet §N") or from
// StarRocks' own source (StarRocks/starrocks, paths under
// fe/fe-core/src/main/java/com/starrocks/, "@commit" where the copy read had
// one); the comment beside each answer names it. What neither verifies is
// marked UNVERIFIED where it is used.
//
// Each FE process is an FE of its own: the Service address reaches one of
// them per connection, AddressOf reaches one; a follower answers from its
// replayed state (frontends.go). Time moves on its own: decommission migrations and catch-up are
// advanced from the wall clock whenever a statement, an HTTP request or an
// API call looks at the state.
package simstarrocks

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"
	"k8s.io/utils/clock"
)

// Options configure a simulated FE.
type Options struct {
	// Version picks the column lists: "3.3" (default), and "3.1", "3.2",
	// "3.5" where the sheet gives their columns (SHOW BACKENDS has all four;
	// other statements use 3.3's lists where a version has none).
	Version string
	// SharedData is run_mode = shared_data: the extra shared-data columns,
	// no decommission checks, cloud-native tablets never unhealthy.
	SharedData bool
	// MultiWarehouse makes /api/v2/feature list "multi-warehouse" beside
	// "RBAC" and enables CREATE/DROP WAREHOUSE; without it the FE is
	// open-source (features: RBAC only).
	MultiWarehouse bool
	// Password of root; "" accepts root with no password.
	Password string
	// KeepDrainedBackends turns drop_backend_after_decommission off: a
	// drained BE stays SystemDecommissioned=true, TabletNum=0 until DROP
	// BACKEND (sheet §5). Default false = FE's default (true): the row
	// vanishes at 0 tablets.
	KeepDrainedBackends bool
	// MigrationRate is how many tablet replicas per second leave each
	// decommissioning BE (default 20).
	MigrationRate float64
	// CatchUp is how long the replicas of a BE that comes back alive stay
	// unhealthy (catching up on versions) before they are healthy again
	// (default 0).
	CatchUp time.Duration
	// AfterStatement, when set, is called with each statement as sent,
	// once FE has answered it (a result or an error, every change already
	// made), before the answer is complete on the wire: vitess writes the
	// result's last packet, or the error, after the handler returns. So
	// the client has not read the answer when it runs, and a crash test
	// that kills the client here kills it after FE acted and before the
	// client could act on the answer. It runs on the statement's
	// connection goroutine, which waits for it.
	AfterStatement func(stmt string)
	// TLS is FE's SSL keystore (ssl_keystore_location, 3.4.1+): the MySQL
	// handshake offers SSL with this certificate (tls.go). Nil is FE's
	// default, no keystore: no SSL offered.
	TLS *tls.Config
	// ForceSecureTransport is ssl_force_secure_transport = true: a client
	// that does not switch to SSL is refused with 5205 (tls.go). FE's
	// default is false.
	ForceSecureTransport bool
	// FollowerLag is how far a follower's replayed state trails the
	// leader's (frontends.go): default 1 s, the bound of one replayer loop;
	// negative: no lag. Fault tests set more, up to
	// meta_delay_toleration_second (300 s, sheet §14).
	FollowerLag time.Duration
	// Clock is the simulation's time; nil is the real clock. A test passes
	// minutes or hours by stepping a fake one.
	Clock clock.PassiveClock
}

// Backend is a snapshot of one backend.
type Backend struct {
	ID             int64
	Host           string // the IP column
	HeartbeatPort  int
	Alive          bool
	Decommissioned bool // SystemDecommissioned
	TabletNum      int  // replicas on this BE
	Warehouse      string
	DataUsedBytes  int64
	AvailBytes     int64
	TotalBytes     int64
}

// ComputeNode is a snapshot of one compute node.
type ComputeNode struct {
	ID            int64
	Host          string
	HeartbeatPort int
	Alive         bool
	Warehouse     string
}

// Frontend is a snapshot of one FE row.
type Frontend struct {
	// ID is the simulation's own sequence; SHOW FRONTENDS shows no Id column
	// in 3.x (sheet §2).
	ID          int64
	Name        string // <host>_<edit_log_port>_<epoch-ms>
	Host        string
	EditLogPort int
	// Role is the Role column: LEADER for the leader, else Type.
	Role string
	// Type is what the FE was added as: FOLLOWER or OBSERVER.
	Type              string
	Join              bool
	Alive             bool
	IsHelper          bool
	ReplayedJournalID int64
}

// StarRocks is a running simulated FE.
type StarRocks struct {
	opts     Options
	listener *mysql.Listener
	http     *httptest.Server
	stopOnce sync.Once
	stopped  chan struct{}

	mu    sync.Mutex
	state *cluster
	views feViews
	// statements and logins, in order.
	statements []string
	logins     []string
	// tlsLogins and plainLogins count logins by transport.
	tlsLogins, plainLogins int
	users                  map[string]User // besides root (users.go)
}

// The versions whose column lists the simulation knows.
var knownVersions = []string{"3.1", "3.2", "3.3", "3.5"}

// Start runs a simulated FE on 127.0.0.1 ephemeral ports until the test ends.
func Start(t testing.TB, opts Options) *StarRocks {
	t.Helper()
	if opts.Version == "" {
		opts.Version = "3.3"
	}
	if !slices.Contains(knownVersions, opts.Version) {
		t.Fatalf("simstarrocks: unknown version %q (known: %s)", opts.Version, strings.Join(knownVersions, ", "))
	}
	if opts.MigrationRate <= 0 {
		opts.MigrationRate = 20
	}
	if opts.FollowerLag == 0 {
		opts.FollowerLag = defaultFollowerLag
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	s := &StarRocks{opts: opts, stopped: make(chan struct{})}
	s.state = newCluster(opts, opts.Clock.Now())
	l, err := s.listen("")
	if err != nil {
		t.Fatal(err)
	}
	s.listener = l
	s.http = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	t.Cleanup(s.Stop)
	return s
}

// Stop closes both servers; the addresses then refuse connections, and
// statements waiting for a leader end.
func (s *StarRocks) Stop() {
	s.stopOnce.Do(func() {
		close(s.stopped)
		s.listener.Close()
		s.mu.Lock()
		for _, g := range s.views.gates {
			g.Close()
		}
		s.mu.Unlock()
		s.http.Close()
	})
}

// QueryAddress is host:port of the MySQL port (as the FE Service's query port).
func (s *StarRocks) QueryAddress() string { return s.listener.Addr().String() }

// HTTPURL is http://host:port of the HTTP port.
func (s *StarRocks) HTTPURL() string { return s.http.URL }

// Statements returns every statement received, in order, as sent.
func (s *StarRocks) Statements() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.statements)
}

// StatementsLike returns the statements that start with prefix (case-insensitive).
func (s *StarRocks) StatementsLike(prefix string) []string {
	var out []string
	for _, st := range s.Statements() {
		if len(st) >= len(prefix) && strings.EqualFold(st[:len(prefix)], prefix) {
			out = append(out, st)
		}
	}
	return out
}

// Logins returns the user name of every connection that logged in.
func (s *StarRocks) Logins() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.logins)
}

// locked runs fn on the state, advanced to now, under the lock; the
// followers' replay then records it.
func (s *StarRocks) locked(fn func(c *cluster)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.advance(s.opts.Clock.Now())
	fn(s.state)
	s.afterChange()
}

// BootstrapFrontend makes host the first FE (pod ordinal 0's first start
// with no members, sheet §1 FE start logic step 3): a FOLLOWER that is
// LEADER, Join=true, Alive=true. With members present it only marks host's
// row alive if it has one: a real FE started this way would found a cluster
// of its own, which the simulation does not model.
func (s *StarRocks) BootstrapFrontend(host string, editLogPort int) {
	s.locked(func(c *cluster) {
		c.bootstrapFrontend(host, editLogPort)
		if c.frontendAt(host, editLogPort) != nil {
			s.markRunning(host, true)
		}
	})
}

// StartFrontend is `start_fe.sh --helper`: an FE row added by ADD
// FOLLOWER/OBSERVER joins the group (Join=true) and answers heartbeats
// (Alive=true). It returns an error if there is no such row: a real FE
// would fail to start.
func (s *StarRocks) StartFrontend(host string, editLogPort int) error {
	var err error
	s.locked(func(c *cluster) {
		if err = c.startFrontend(host, editLogPort); err == nil {
			s.markRunning(host, true)
		}
	})
	return err
}

// SetAlive is heartbeats: every node (FE, BE or CN) whose IP column is host
// (exact string) is Alive or not. It returns false, and changes nothing, if
// there is none. For an FE it is also its process running or not (its pod
// Ready or not: the Service's endpoints), row or no row.
func (s *StarRocks) SetAlive(host string, alive bool) bool {
	var found bool
	s.locked(func(c *cluster) {
		if s.isFrontendHost(host) {
			s.markRunning(host, alive)
		}
		found = c.setAlive(host, alive)
	})
	return found
}

// Leader is the IP of the LEADER row, "" when there is none.
func (s *StarRocks) Leader() string {
	var h string
	s.locked(func(c *cluster) {
		if c.leader != nil {
			h = c.leader.host
		}
	})
	return h
}

// ElectLeader makes the alive FOLLOWER in the group at host the leader, as
// the election BDBJE holds when the leader stops would, had host won it: a
// test's way to place the leader on a chosen pod. False, changing nothing,
// when host is no alive follower in the group.
func (s *StarRocks) ElectLeader(host string) bool {
	var ok bool
	s.locked(func(c *cluster) {
		for _, fe := range c.frontends {
			if fe.host == host && fe.role == roleFollower && fe.join && fe.alive && c.leader != nil {
				c.leader, ok = fe, true
			}
		}
	})
	return ok
}

// SetCapacity sets what the BE at host:heartbeatPort reports of its disks:
// the data it holds, the space still available, and the disks' total
// (DataUsedCapacity, AvailCapacity, TotalCapacity; the decommission disk
// check, sheet §5). A new BE reports zeros. False if there is no such BE.
func (s *StarRocks) SetCapacity(host string, heartbeatPort int, dataUsed, avail, total int64) bool {
	var found bool
	s.locked(func(c *cluster) {
		if be := c.backendAt(host, heartbeatPort); be != nil {
			be.dataUsed, be.avail, be.total = dataUsed, avail, total
			found = true
		}
	})
	return found
}

// CreateTable creates db (if new) and a table in it with the given number
// of tablets, each with replicationNum replicas on distinct alive, not
// decommissioned BEs, round robin. CREATE TABLE is not in the sheet, so
// tests set data up here. In shared-data mode the tablets are cloud-native:
// no replicas, never unhealthy (sheet §9).
func (s *StarRocks) CreateTable(db, table string, replicationNum, tablets int) error {
	var err error
	s.locked(func(c *cluster) { err = c.createTable(db, table, replicationNum, tablets) })
	return err
}

// DropTable removes a table and its tablets; the database stays.
func (s *StarRocks) DropTable(db, table string) {
	s.locked(func(c *cluster) { c.dropTable(db, table) })
}

// LostTablets counts the tablets with no replica on a registered, alive BE, now.
func (s *StarRocks) LostTablets() int {
	var n int
	s.locked(func(c *cluster) {
		for _, tb := range c.allTablets() {
			if !tb.cloud && c.liveReplicas(tb) == 0 {
				n++
			}
		}
	})
	return n
}

// TabletsBelow counts the tablets with fewer than healthy healthy replicas
// now (a replica is healthy on a registered alive BE, not catching up).
func (s *StarRocks) TabletsBelow(healthy int) int {
	var n int
	s.locked(func(c *cluster) {
		now := c.now
		for _, tb := range c.allTablets() {
			if !tb.cloud && c.healthyReplicas(tb, now) < healthy {
				n++
			}
		}
	})
	return n
}

// Backends returns a snapshot of the backends, in SHOW BACKENDS order.
func (s *StarRocks) Backends() []Backend {
	var out []Backend
	s.locked(func(c *cluster) {
		for _, be := range c.sortedBackends() {
			out = append(out, Backend{
				ID: be.id, Host: be.host, HeartbeatPort: be.hbPort, Alive: be.alive,
				Decommissioned: be.decommissioned, TabletNum: c.replicasOn(be.id),
				Warehouse: be.warehouse, DataUsedBytes: be.dataUsed, AvailBytes: be.avail, TotalBytes: be.total,
			})
		}
	})
	return out
}

// ComputeNodes returns a snapshot of the compute nodes, in SHOW COMPUTE NODES order.
func (s *StarRocks) ComputeNodes() []ComputeNode {
	var out []ComputeNode
	s.locked(func(c *cluster) {
		for _, cn := range c.sortedComputeNodes() {
			out = append(out, ComputeNode{ID: cn.id, Host: cn.host, HeartbeatPort: cn.hbPort, Alive: cn.alive, Warehouse: cn.warehouse})
		}
	})
	return out
}

// Frontends returns a snapshot of the FE rows, in SHOW FRONTENDS order.
func (s *StarRocks) Frontends() []Frontend {
	var out []Frontend
	s.locked(func(c *cluster) {
		for _, fe := range c.frontends {
			out = append(out, Frontend{
				ID: fe.id, Name: fe.name, Host: fe.host, EditLogPort: fe.editLogPort,
				Role: c.roleColumn(fe), Type: fe.role, Join: fe.join, Alive: c.feAlive(fe),
				IsHelper: fe.helper, ReplayedJournalID: c.replayedJournalID(fe),
			})
		}
	})
	return out
}

// Warehouses returns the warehouse names FE knows: default_warehouse first.
func (s *StarRocks) Warehouses() []string {
	var out []string
	s.locked(func(c *cluster) { out = slices.Clone(c.warehouses) })
	return out
}

// ClusterID is the FE's cluster id (the ClusterId column).
func (s *StarRocks) ClusterID() int { return clusterID }

// Token is the FE's token, which GET /api/bootstrap?token= checks.
func (s *StarRocks) Token() string { return clusterToken }

// String names the simulation in test output.
func (s *StarRocks) String() string {
	return fmt.Sprintf("simstarrocks %s at %s", s.opts.Version, s.QueryAddress())
}
