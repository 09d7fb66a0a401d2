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
// replayed state, FollowerLag behind the leader, except for the reads FE
// forwards to the leader (SHOW FRONTENDS, BACKENDS, COMPUTE NODES, and SHOW
// PROC with forward_to_leader or on a forwarded root; session.go), which
// the leader answers at once (frontends.go). Time comes from Options.Clock (the real clock unless a test gives
// a fake one) and the model is advanced to it whenever a statement, an HTTP
// request or an API call looks at the state, event by event: FE's heartbeat
// rounds, the statistics daemon, clones, tablet reports, the recycle bin.
//
// It is as unkind as a real FE where an operator's safety depends on it
// (sheet §14), each with the real default:
//   - a BE or CN is a process (StartProcess, StopProcess) and Alive is what
//     FE's heartbeats make of it: alive at the first good heartbeat, dead
//     after more than HeartbeatFailures failed ones (about 20 s), at once on
//     a graceful stop from 3.4; a quick restart shows only a new
//     LastStartTime. SetAlive is FE's verdict at once, for tests not about
//     the lag;
//   - so is an FE member (StopFrontend): the leader's rounds keep a stopped
//     FE Alive, its LastHeartbeat stopped at its last good round, until
//     more than HeartbeatFailures rounds failed, while the leader's own row
//     is stamped each round; BDBJE's election follows the processes at
//     once. An FE start is seen at once (not at the next round);
//   - a dead BE's replicas count healthy in SHOW PROC '/statistic' for
//     DownTolerance (900 s) after its last good heartbeat, unless a load
//     failed on them (Load);
//   - a tablet with a replica on a decommissioned BE is unhealthy
//     (REPLICA_RELOCATING) until its clone (CloneDuration) ends and the old
//     replica goes;
//   - dropped tables stay in the recycle bin for TrashExpire (24 h), their
//     tablets on their BEs, blocking a decommissioned BE's auto-drop
//     (DropTableForce skips it);
//   - shared-nothing FEs create _statistics_ at min(3, BEs) replicas, and
//     the decommission check of 3.1-3.3 counts it and subtracts dead
//     targets twice where 3.5's does neither;
//   - a BE restarted on empty storage (WipeOnRestart) keeps its replicas in
//     FE's eyes until its next tablet report (TabletReportInterval, 60 s);
//   - DROP WAREHOUSE with alive compute nodes can be refused
//     (RefuseDropWarehouseWithAliveCNs, a pending implementation).
//
// The oracles LostTablets and TabletsBelow count the truth, not FE's view.
// Tests inject faults per statement with StatementDelay and StatementError
// and observe answered statements with AfterStatement.
package simstarrocks

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"
	"k8s.io/utils/clock"
)

// Options configure a simulated FE.
type Options struct {
	// Version picks the column lists: "3.3" (default), and "3.1", "3.2",
	// "3.5" where the sheet gives their columns (SHOW BACKENDS has all four;
	// other statements use 3.3's lists where a version has none). "3.4"
	// and "4.2" add the backup grammar of their release (backup_parse.go)
	// and take 3.3's and 3.5's lists.
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
	// CatchUp is how long the replicas of a BE whose process restarted stay
	// unhealthy (catching up on the versions they missed) once FE sees the
	// BE alive again (default 0).
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

	// SetConfigTimeout is how long ADMIN SET FRONTEND CONFIG waits for each
	// other FE of its list whose process does not answer (config.go):
	// query_timeout (300 s) * 1000 + thrift_rpc_timeout_ms (10000), 310 s,
	// the default (ConfigBase.setConfig; common/Config.java). Tests
	// shorten it to save time, never to zero.
	SetConfigTimeout time.Duration

	// Clock is the simulation's time: every time the model reads (heartbeats,
	// tolerances, clones, the recycle bin, tablet reports, the columns'
	// times) comes from it. nil = the real clock; a test passes 900 s or 24 h
	// at once with k8s.io/utils/clock/testing's FakeClock. Statement delays
	// wait on it too when it can make timers (clock.Clock).
	Clock clock.PassiveClock

	// DownTolerance is tablet_sched_be_down_tolerate_time_s (default 900 s,
	// common/Config.java; LocalTablet.isReplicaBackendDead @00b57d40, sheet
	// §14): a replica on a BE that is not Alive still counts healthy in SHOW
	// PROC '/statistic' until the BE's last good heartbeat plus this, unless
	// a load failed on it (Load).
	DownTolerance time.Duration
	// HeartbeatInterval is heartbeat_timeout_second, the period of FE's
	// heartbeats to BEs, CNs and FEs (default 5 s), and HeartbeatFailures
	// is heartbeat_retry_times (default 3): a node turns Alive=false after
	// more than HeartbeatFailures failed heartbeats in a row, and
	// Alive=true on the first good one (ComputeNode.handleHbResponse
	// @0139a862, sheet §14; Frontend.handleHbResponse @01037dd6).
	HeartbeatInterval time.Duration
	HeartbeatFailures int
	// CloneDuration is how long one clone task of the decommission takes
	// (default 0: the clone ends at once and MigrationRate alone paces the
	// drain). A real clone copies the tablet's data, up to
	// tablet_sched_max_clone_task_timeout_sec (2 h, sheet §14).
	CloneDuration time.Duration
	// TrashExpire is catalog_trash_expire_second (default 24 h, sheet §14):
	// a dropped table's tablets stay on their BEs in the recycle bin this
	// long; they are not relocated and they block the auto-drop of a
	// decommissioned BE. DropTableForce skips the bin.
	TrashExpire time.Duration
	// TabletReportInterval is report_tablet_interval_seconds (default 60 s,
	// sheet §14): how often a BE reports its tablets; FE learns that a BE
	// lost its replicas (WipeOnRestart) only from a report.
	TabletReportInterval time.Duration
	// CheckpointInterval is how often the leader's CheckpointController
	// runs (image.go): FeConstants.checkpoint_interval_second, 60 s, a
	// constant in FE that no fe.conf changes; tests shorten it only to
	// save time.
	CheckpointInterval time.Duration
	// MinGracefulExit and MaxGracefulExit are FE's
	// min_graceful_exit_time_second (default 15 s) and
	// max_graceful_exit_time_second (default 60 s): a graceful exit
	// (GracefulExit) ends no earlier than the first, once its connections
	// are gone, and at the second whatever is left (Config.java @0002bfd8).
	MinGracefulExit, MaxGracefulExit time.Duration
	// WipeOnRestart: a BE process restarted (StartProcess after a stop)
	// comes back on empty storage: its replicas are gone at once, and FE
	// keeps believing in them until the BE's next tablet report (sheet §14).
	WipeOnRestart bool
	// RefuseDropWarehouseWithAliveCNs is the pending multi-warehouse
	// implementation (StarRocks PR #78027, open 2026-08; sheet §14): DROP
	// WAREHOUSE refuses while a compute node of it is Alive. Default off, as
	// no release has it.
	RefuseDropWarehouseWithAliveCNs bool

	// StatementDelay is asked before each statement runs (the text as
	// sent): a positive duration holds the statement that long before it
	// runs (a slow '/statistic', sheet §14, issue #51715), Hang holds it
	// until the client goes away or the simulation stops, 0 runs it now.
	StatementDelay func(stmt string) time.Duration
	// StatementError is asked before each statement runs, after
	// StatementDelay: a non-nil *SQLError is sent instead of running it.
	StatementError func(stmt string) *SQLError
	// LoseAnswer is asked once a statement ran: true closes the
	// connection instead of answering, so that the statement's effect
	// happened though the client saw an error (a read timeout, a
	// connection reset: backup-design §3.3, "a statement whose outcome is
	// unknown").
	LoseAnswer func(stmt string) bool

	// ClusterID is the FE's cluster id (the ClusterId column, and what
	// 4.2 records in each snapshot it makes, backup §5); 0 is a fixed
	// simulated value. Two clusters sharing a Store need two ids.
	ClusterID int
	// Store is the object store the repositories live in (backup_store.go):
	// clusters given the same one see each other's repositories. nil: a
	// store of this FE's own.
	Store *ObjectStore
	// BackupTabletTime and RestoreTabletTime are how long a BE takes to
	// upload, or to download, one tablet (backup.go: the simulation's
	// speeds, no source gives one); default 100 ms each.
	BackupTabletTime, RestoreTabletTime time.Duration
	// HistoryJobKeep is history_job_keep_max_second (default 7 days,
	// backup §2.4): a finished or cancelled job leaves SHOW BACKUP and
	// SHOW RESTORE this long after it ended.
	HistoryJobKeep time.Duration
	// ClusterSnapshotInterval is automated_cluster_snapshot_interval_seconds
	// (default 600 s, backup §9).
	ClusterSnapshotInterval time.Duration
}

// Hang is what StatementDelay returns to hold a statement until its client
// goes away or the simulation stops.
const Hang time.Duration = -1

// SQLError is a MySQL error packet StatementError makes the FE send: FE's
// exceptions arrive as 1064 / HY000 (sheet §0).
type SQLError struct {
	Code    int
	State   string
	Message string
}

func (e *SQLError) Error() string {
	return fmt.Sprintf("ERROR %d (%s): %s", e.Code, e.State, e.Message)
}

// Backend is a snapshot of one backend.
type Backend struct {
	ID             int64
	Host           string // the IP column
	HeartbeatPort  int
	Alive          bool // FE's view, from heartbeats
	Running        bool // the process runs (the truth)
	LastStart      time.Time
	Decommissioned bool // SystemDecommissioned
	TabletNum      int  // replicas on this BE
	Warehouse      string
	DataUsedBytes  int64
	AvailBytes     int64
	TotalBytes     int64
	Version        string // the Version column ("" before a good heartbeat)
}

// ComputeNode is a snapshot of one compute node.
type ComputeNode struct {
	ID            int64
	Host          string
	HeartbeatPort int
	Alive         bool // FE's view, from heartbeats
	Running       bool // the process runs (the truth)
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
	// LastHeartbeat is the leader's clock at its last good heartbeat round
	// (zero: never); Running is the truth: its process runs. Alive lags
	// Running by up to HeartbeatFailures+1 rounds after a stop
	// (StopFrontend).
	LastHeartbeat time.Time
	Running       bool
}

// StarRocks is a running simulated FE.
type StarRocks struct {
	opts     Options
	listener *mysql.Listener
	http     *httptest.Server
	stopOnce sync.Once
	stopped  chan struct{}

	// zombieStatements counts the statements a zombie FE (dropped from
	// the group, its process still running) was sent; zombieAnswers those
	// it answered without an error, from the state it had when dropped.
	zombieStatements, zombieAnswers atomic.Int64

	mu    sync.Mutex
	state *cluster
	views feViews
	// statements and logins, in order; answers as answered (Answers).
	statements []string
	answers    []Answer
	logins     []string
	// tlsLogins and plainLogins count logins by transport.
	tlsLogins, plainLogins int
	users                  map[string]User // besides root (users.go)
	// hashes holds the passwords SET PASSWORD stored, per user (users.go).
	hashes map[string][]byte
	// config is the FE configuration set before any FE process is known
	// (config.go).
	config feConfig
	// stops are the processes that stopped (Stops).
	stops []Stop
	// httpClosedTo are the FEs whose own HTTP port is closed (CloseHTTP);
	// httpUser and httpPassword the HTTP port's account (RequireHTTPAuth).
	httpClosedTo           map[string]bool
	httpUser, httpPassword string
}

// The versions whose column lists the simulation knows.
// 3.4 and 4.2 differ from 3.3 and 3.5 only where the backup model says
// (backup_parse.go, backup.go): their node column lists are 3.3's and 3.5's.
var knownVersions = []string{"3.1", "3.2", "3.3", "3.4", "3.5", "4.2"}

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
	if opts.DownTolerance <= 0 {
		opts.DownTolerance = 900 * time.Second
	}
	if opts.HeartbeatInterval <= 0 {
		opts.HeartbeatInterval = 5 * time.Second
	}
	if opts.HeartbeatFailures <= 0 {
		opts.HeartbeatFailures = 3
	}
	if opts.TrashExpire <= 0 {
		opts.TrashExpire = 24 * time.Hour
	}
	if opts.TabletReportInterval <= 0 {
		opts.TabletReportInterval = 60 * time.Second
	}
	if opts.SetConfigTimeout <= 0 {
		opts.SetConfigTimeout = defaultSetConfigTimeout
	}
	if opts.CheckpointInterval <= 0 {
		opts.CheckpointInterval = defaultCheckpointInterval
	}
	if opts.MinGracefulExit <= 0 {
		opts.MinGracefulExit = defaultMinGracefulExit
	}
	if opts.MaxGracefulExit <= 0 {
		opts.MaxGracefulExit = defaultMaxGracefulExit
	}
	if opts.Store == nil {
		opts.Store = NewObjectStore()
	}
	if opts.BackupTabletTime <= 0 {
		opts.BackupTabletTime = defaultTabletTime
	}
	if opts.RestoreTabletTime <= 0 {
		opts.RestoreTabletTime = defaultTabletTime
	}
	if opts.HistoryJobKeep <= 0 {
		opts.HistoryJobKeep = defaultHistoryJobKeep
	}
	if opts.ClusterSnapshotInterval <= 0 {
		opts.ClusterSnapshotInterval = defaultClusterSnapshotInterval
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

// Answer is a statement and the error FE answered it with ("" none).
type Answer struct {
	Statement, Error string
}

// Answers are the statements FE answered, in the order it answered them,
// each with its error: a statement sent to an FE that stopped, or while no
// leader could run it, is in Statements but answered with an error.
func (s *StarRocks) Answers() []Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.answers)
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

// ZombieStatements counts the statements sent to a zombie FE (dropped
// from the group while its process runs, sheet §14), and those it
// answered without an error.
func (s *StarRocks) ZombieStatements() (sent, answered int) {
	return int(s.zombieStatements.Load()), int(s.zombieAnswers.Load())
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
	s.state.sched = s.leaderConfig()
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

// SetAlive states FE's heartbeat verdict now, for every node (FE, BE or CN)
// whose IP column is host (exact string). It returns false, and changes
// nothing, if there is none.
//
// It is a process change that FE notices at once, skipping the heartbeat
// lag: alive=true starts the process if it does not run (a restart if it
// ran before) and FE sees its heartbeat now; alive=false stops it and FE
// marks it dead now. The last good heartbeat stays where it was, so
// DownTolerance runs from it (and an FE's LastHeartbeat stays there). It is
// for tests about the verdict, not the lag; tests that are about the lag
// use StartProcess and StopProcess (BE, CN) and StopFrontend (FE), as the
// registrar does.
//
// For an FE it is also its process running or not (its pod Ready or not:
// the Service's endpoints), row or no row.
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

// StartProcess starts the BE or CN process of every node whose IP column is
// host, if it does not run; a start of a process that ran before is a
// restart (WipeOnRestart, CatchUp). FE sees it Alive at its next heartbeat,
// which may come before the pod is Ready, and may never have seen it dead
// (sheet §14). False if no BE or CN has that IP.
func (s *StarRocks) StartProcess(host string) bool {
	var found bool
	s.locked(func(c *cluster) { found = c.processes(host, true, false) })
	return found
}

// SetRelease says which release ("3.4.1") the FE, BE or CN process at host
// runs from its next start: FE's Version column shows it, with the commit
// hash, from the next heartbeat that reaches it. The column lists stay
// Options.Version's. "" goes back to Options.Version.
func (s *StarRocks) SetRelease(host, release string) {
	s.locked(func(c *cluster) { c.releases[host] = release })
}

// StopProcess stops the BE or CN process of every node whose IP column is
// host. FE marks it dead after more than HeartbeatFailures failed heartbeats
// (about 20 s), or at once when graceful (SIGTERM) and the Version is 3.4 or
// later, where the exiting node reports SHUTDOWN (sheet §14). Its replicas
// stay healthy in FE's eyes for DownTolerance; the oracles count them lost
// at once. False if no BE or CN has that IP.
func (s *StarRocks) StopProcess(host string, graceful bool) bool {
	var found bool
	s.locked(func(c *cluster) {
		for _, n := range c.nodesAt(host) {
			if n.running {
				s.noteStop(host, c.sched)
				break
			}
		}
		found = c.processes(host, false, graceful)
	})
	return found
}

// Load is a load into every table now: the replicas on BEs whose process
// does not run miss its version, so FE counts their tablets unhealthy
// (VERSION_INCOMPLETE) even within DownTolerance (sheet §14); they catch up
// once their BE is back (CatchUp). It returns how many replicas missed it.
func (s *StarRocks) Load() int {
	var n int
	s.locked(func(c *cluster) { n = c.load() })
	return n
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
			if fe.host == host && fe.role == roleFollower && fe.join && fe.running && c.leader != nil {
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

// CreateColocateTable is CREATE TABLE ... PROPERTIES ("colocate_with" =
// ...): a table in a colocate group, placed as CreateTable places one; a
// replica it loses with a BE comes back only through ColocateTableBalancer
// (ColocateShort).
func (s *StarRocks) CreateColocateTable(db, table string, replicationNum, tablets int) error {
	var err error
	s.locked(func(c *cluster) {
		if err = c.createTable(db, table, replicationNum, tablets); err == nil {
			d := c.db(db)
			d.tables[len(d.tables)-1].colocate = true
		}
	})
	return err
}

// ColocateShort counts the tablets of colocate tables FE holds short of
// their replication number now: after a BE is lost, those that stay so
// while the leader's tablet_sched_disable_colocate_balance is true.
func (s *StarRocks) ColocateShort() int {
	var n int
	s.locked(func(c *cluster) { n = c.colocateShort() })
	return n
}

// DropTable is DROP TABLE: the table goes to the recycle bin, where its
// tablets stay on their BEs for TrashExpire, are not relocated, and block
// the auto-drop of a decommissioned BE (sheet §14). The database stays.
func (s *StarRocks) DropTable(db, table string) {
	s.locked(func(c *cluster) { c.dropTable(db, table, false) })
}

// DropTableForce is DROP TABLE ... FORCE: the table and its tablets are gone
// at once, skipping the recycle bin (sheet §14).
func (s *StarRocks) DropTableForce(db, table string) {
	s.locked(func(c *cluster) { c.dropTable(db, table, true) })
}

// LostTablets counts the tablets of existing tables with no readable
// replica now: none on a registered BE whose process runs, with its data.
// It counts the truth, not FE's view: a replica on a stopped process is
// lost here at once, whatever DownTolerance lets FE believe.
func (s *StarRocks) LostTablets() int {
	var n int
	s.locked(func(c *cluster) {
		for _, tb := range c.liveTablets() {
			if !tb.cloud && c.liveReplicas(tb) == 0 {
				n++
			}
		}
	})
	return n
}

// TabletsBelow counts the tablets of existing tables with fewer than
// healthy healthy replicas now. Healthy is the truth: readable (as in
// LostTablets), not a clone in flight, holding every version (no failed
// load, not catching up).
func (s *StarRocks) TabletsBelow(healthy int) int {
	var n int
	s.locked(func(c *cluster) {
		for _, tb := range c.liveTablets() {
			if !tb.cloud && c.healthyReplicas(tb) < healthy {
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
				ID: be.id, Host: be.host, HeartbeatPort: be.hbPort, Alive: be.alive, Running: be.running, LastStart: be.lastStart,
				Decommissioned: be.decommissioned, TabletNum: c.replicasOn(be.id),
				Warehouse: be.warehouse, DataUsedBytes: be.dataUsed, AvailBytes: be.avail, TotalBytes: be.total, Version: be.version,
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
			out = append(out, ComputeNode{ID: cn.id, Host: cn.host, HeartbeatPort: cn.hbPort, Alive: cn.alive, Running: cn.running, Warehouse: cn.warehouse})
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
				LastHeartbeat: fe.lastHeartbeat, Running: fe.running,
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
func (s *StarRocks) ClusterID() int {
	if s.opts.ClusterID != 0 {
		return s.opts.ClusterID
	}
	return clusterID
}

// Token is the FE's token, which GET /api/bootstrap?token= checks.
func (s *StarRocks) Token() string { return clusterToken }

// String names the simulation in test output.
func (s *StarRocks) String() string {
	return fmt.Sprintf("simstarrocks %s at %s", s.opts.Version, s.QueryAddress())
}
