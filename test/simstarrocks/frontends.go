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
	"net"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// Which FE answers, and from what state.
//
// Every FE process the simulation is told about (BootstrapFrontend,
// StartFrontend, SetAlive of an FE host) is one FE. A connection reaches one
// of them: through the Service address (QueryAddress), the next running FE
// in turn, round robin per connection over the running FEs sorted by host (a
// deterministic stand-in for kube-proxy's random choice of a ready
// endpoint); through an FE's own address (AddressOf), that FE. A
// connection refused is closed before the handshake.
//
// The leader answers from the model. A follower (or observer) answers the
// reads it does not forward (SHOW PROC '/frontends' and '/statistic'
// without forward_to_leader; session.go) from its replayed state: the
// leader's state as it was FollowerLag ago (FrontendsProcNode @161fd09e,
// sheet §14), with its own row Alive=true and its own journal id. The reads
// it forwards (SHOW FRONTENDS, BACKENDS, COMPUTE NODES: FORWARD_NO_SYNC)
// the leader it knows of runs at once; statements that change state are forwarded to the
// leader, and the follower then waits until it has replayed them
// (LeaderOpExecutor.execute: getJournalObservable().waitOn(maxJournalId),
// StarRocks qe/LeaderOpExecutor.java @025b93e8). A follower dropped while it
// runs is a zombie (StarRocks issue #78195, sheet §14): it never replays
// again, answers reads from the state it had when it was dropped, and fails
// what it forwards with "Internal error processing forward".
//
// Before any FE process is known, a connection is answered from the model
// as the leader would answer it (tests that only use the statements).

// defaultFollowerLag is how far a follower's state trails the leader's. A
// follower replays the journal continuously: its replayer wakes every
// REPLAY_INTERVAL_MS = 1 ms and publishes what it replayed after at most
// REPLAYER_MAX_MS_PER_LOOP = 1 s of replay (server/GlobalStateMgr.java,
// StarRocks @1b3e93d7). The simulation takes that 1 s bound as the usual lag;
// meta_delay_toleration_second (300 s, sheet §14) is where a follower calls
// itself out of date, a fault, set by fault tests.
const defaultFollowerLag = time.Second

// forwardFailed is what a zombie's forwarded statement returns (StarRocks
// issue #78195, sheet §14): the leader's Thrift server rejects the forward
// of a node no longer in the group. UNVERIFIED: the error code; the
// simulation sends FE's default, 1064 / HY000 (sheet §0).
const forwardFailed = "Internal error processing forward"

type feProcess struct {
	host    string
	running bool
	// lag overrides Options.FollowerLag for this FE (SetFollowerLag).
	lag    time.Duration
	hasLag bool
	// syncedTo: a forwarded statement made this FE replay up to then.
	syncedTo time.Time
	// frozen is a zombie's state: what it had replayed when it was dropped.
	frozen *cluster
	// member: it was in the group once (so its drop makes a zombie).
	member bool
	// resolveNames: started without --host_type FQDN (SetHostType).
	resolveNames bool
	// config is what ADMIN SET FRONTEND CONFIG set in this process's
	// memory (config.go); a start begins from fe.conf again.
	config feConfig
	// exiting is closed when a graceful exit that began at exitStart ends
	// (gracefulexit.go); nil: none runs.
	exiting   chan struct{}
	exitStart time.Time
}

type snapshot struct {
	at time.Time
	c  *cluster
}

// feViews is the simulation's state of the FE processes; guarded by StarRocks.mu.
type feViews struct {
	procs  map[string]*feProcess
	order  int    // round-robin cursor of the Service
	pinned string // the Service reaches only this FE ("" none)
	pinLdr bool   // the Service reaches only the leader
	// history: the leader's states, oldest first, each from its time on.
	history []snapshot
	gates   map[string]*mysql.Listener
	// conns are the open connections by the FE they reached.
	conns map[string][]*mysql.Conn
	// resolve is the cluster's DNS for FEs that resolve names (SetHostType).
	resolve func(name string) (ip string, ok bool)
}

func (s *StarRocks) followerLag(p *feProcess) time.Duration {
	lag := s.opts.FollowerLag
	if p != nil && p.hasLag {
		lag = p.lag
	}
	if lag < 0 {
		return 0
	}
	return lag
}

// process is the FE process at host, made on first mention; the caller
// holds s.mu.
func (s *StarRocks) process(host string) *feProcess {
	if s.views.procs == nil {
		s.views.procs = map[string]*feProcess{}
	}
	p := s.views.procs[host]
	if p == nil {
		p = &feProcess{host: host}
		s.views.procs[host] = p
	}
	return p
}

// isFrontendHost: some FE row or FE process has this host; the caller holds s.mu.
func (s *StarRocks) isFrontendHost(host string) bool {
	if _, ok := s.views.procs[host]; ok {
		return true
	}
	return slices.ContainsFunc(s.state.frontends, func(fe *feNode) bool { return fe.host == host })
}

// afterChange runs after every look at or change of the state (locked): it
// records the leader's state for the followers' replay and turns a running
// member that left the group into a zombie; the caller holds s.mu.
func (s *StarRocks) afterChange() {
	c := s.state
	var followers bool
	for _, p := range s.views.procs {
		inGroup := slices.ContainsFunc(c.frontends, func(fe *feNode) bool { return fe.host == p.host && fe.join })
		if inGroup {
			p.member = true
		}
		if p.running && p.member && !inGroup && p.frozen == nil {
			// Dropped while it runs: it keeps what it had replayed.
			p.frozen = s.replayed(p, c.now)
			p.frozen.self = p.host
		}
		if p.running && inGroup && (c.leader == nil || c.leader.host != p.host) {
			followers = true
		}
	}
	if !followers {
		s.views.history = nil
		return
	}
	s.views.history = append(s.views.history, snapshot{at: c.now, c: c.deepCopy()})
	// Keep what the most lagging follower may still need.
	var maxLag time.Duration
	for _, p := range s.views.procs {
		maxLag = max(maxLag, s.followerLag(p))
	}
	cut := c.now.Add(-maxLag)
	for len(s.views.history) > 1 && !s.views.history[1].at.After(cut) {
		s.views.history = s.views.history[1:]
	}
}

// replayed is the state FE p has replayed at now: the leader's as of
// now - lag (or as of its last forwarded statement, if later), advanced to
// then; the caller holds s.mu.
func (s *StarRocks) replayed(p *feProcess, now time.Time) *cluster {
	at := now.Add(-s.followerLag(p))
	if p.syncedTo.After(at) {
		at = p.syncedTo
	}
	i := sort.Search(len(s.views.history), func(i int) bool { return s.views.history[i].at.After(at) })
	var view *cluster
	if i == 0 {
		// Nothing recorded that early: the oldest state known (a follower
		// that just started replays from its helper's image).
		if len(s.views.history) == 0 {
			view = s.state.deepCopy()
		} else {
			view = s.views.history[0].c.deepCopy()
		}
	} else {
		view = s.views.history[i-1].c.deepCopy()
		view.replay = true
		view.advance(at)
	}
	view.replay = true
	view.self = p.host
	return view
}

// route picks the FE a new connection to the Service (fe "") or to an FE's
// own address reaches; ok false: refused (no ready endpoint, or that FE's
// process does not run).
func (s *StarRocks) route(fe string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fe != "" {
		p := s.views.procs[fe]
		return fe, p != nil && p.running
	}
	if len(s.views.procs) == 0 {
		return "", true
	}
	var running []string
	for h, p := range s.views.procs {
		if p.running {
			running = append(running, h)
		}
	}
	sort.Strings(running)
	switch {
	case s.views.pinLdr && s.state.leader != nil && slices.Contains(running, s.state.leader.host):
		return s.state.leader.host, true
	case s.views.pinned != "":
		return s.views.pinned, slices.Contains(running, s.views.pinned)
	case len(running) == 0:
		return "", false
	}
	h := running[s.views.order%len(running)]
	s.views.order++
	return h, true
}

// answering says how the FE of session sess answers st now; the caller
// holds s.mu with the state advanced. All nil/false: the leader's model
// answers (the FE is the leader, no FE is known, or a follower forwarded a
// read to the leader, which runs it at once: FORWARD_NO_SYNC). view: a
// follower's or zombie's replayed state answers a read. forward: a follower
// forwards st to the leader, whose model answers, and waits for its replay.
// refuse: an error packet instead.
func (s *StarRocks) answering(sess *session, st *statement) (view *cluster, forward bool, refuse *sqlError) {
	c := s.state
	fe := sess.fe
	p := s.views.procs[fe]
	if fe == "" || p == nil || (c.leader != nil && c.leader.host == fe) {
		return nil, false, nil
	}
	if !p.running {
		return nil, false, &sqlError{code: mysql.CRServerLost, state: mysql.SSUnknownSQLState, msg: "simstarrocks: FE " + fe + " stopped"}
	}
	read := st.readOnly()
	toLeader := read && st.forwarded(sess)
	switch {
	case p.frozen != nil && toLeader:
		return nil, false, ddlError("%s", forwardFailed)
	case p.frozen != nil && read:
		return p.frozen, false, nil
	case p.frozen != nil:
		return nil, false, ddlError("%s", forwardFailed)
	case toLeader:
		// The follower forwards to the leader it knows of, from what it
		// has replayed (LeaderOpExecutor: getLeaderIpAndRpcPort). Right
		// after an election that is the old leader, no longer leading:
		// the forward fails. UNVERIFIED: the text the client sees.
		if known := s.replayed(p, c.now).leader; known == nil || c.leader == nil || known.host != c.leader.host {
			return nil, false, ddlError("simstarrocks: FE %s forwarded to a leader that no longer leads", fe)
		}
		return nil, false, nil
	case read:
		return s.replayed(p, c.now), false, nil
	}
	return nil, true, nil
}

// readOnly: the statement reads; anything else runs on the leader.
func (st *statement) readOnly() bool {
	switch st.kind {
	case stShowFrontends, stShowBackends, stShowComputeNodes, stShowProc, stAdminShowConfig,
		stShowBackup, stShowRestore, stShowRepositories, stShowSnapshot, stShowDatabases, stShowTables, stSelectInfo:
		return true
	}
	return false
}

// feConn is a connection accepted for an FE: the handler reads fe from it.
type feConn struct {
	*net.TCPConn
	fe string
}

// gate accepts the connections of one address: the Service's (fe "") or one FE's.
type gate struct {
	net.Listener
	s  *StarRocks
	fe string
}

func (g *gate) Accept() (net.Conn, error) {
	for {
		conn, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		fe, ok := g.s.route(g.fe)
		tcp, isTCP := conn.(*net.TCPConn)
		if !ok || !isTCP {
			_ = conn.Close()
			continue
		}
		return &feConn{TCPConn: tcp, fe: fe}, nil
	}
}

func (s *StarRocks) listen(fe string) (*mysql.Listener, error) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l, err := mysql.NewFromListener(&gate{Listener: raw, s: s, fe: fe}, &authServer{s: s}, &handler{s: s}, 0, 0)
	if err != nil {
		_ = raw.Close()
		return nil, err
	}
	// sheet §0: "Server version: 5.1.0" (mysql_server_version = "5.1.0").
	l.ServerVersion = "5.1.0"
	// Every FE of the group has the same keystore (Options.TLS).
	l.TLSConfig = s.opts.TLS
	go l.Accept()
	return l, nil
}

// AddressOf is host:port of the query port of the FE whose host (the IP
// column: its FQDN or IP) is host, as its pod's address would be: a client
// that dials it talks to that FE alone, and is refused while that FE's
// process does not run. The address is made on first call and kept.
func (s *StarRocks) AddressOf(host string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.views.gates[host]; l != nil {
		return l.Addr().String()
	}
	select {
	case <-s.stopped:
		return "127.0.0.1:1"
	default:
	}
	l, err := s.listen(host)
	if err != nil {
		return "127.0.0.1:1"
	}
	if s.views.gates == nil {
		s.views.gates = map[string]*mysql.Listener{}
	}
	s.views.gates[host] = l
	return l.Addr().String()
}

// PinFrontend makes the Service reach only the FE at host (while its process
// runs; refused otherwise); "" lets it pick again.
func (s *StarRocks) PinFrontend(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.views.pinned, s.views.pinLdr = host, false
}

// PinLeader makes the Service reach the FE that leads when a connection is
// made (any, while none leads): for tests of something else than which FE
// answers.
func (s *StarRocks) PinLeader() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.views.pinned, s.views.pinLdr = "", true
}

// SetFollowerLag sets how far the FE at host trails the leader, for fault
// tests (a follower near meta_delay_toleration_second, 300 s, sheet §14).
func (s *StarRocks) SetFollowerLag(host string, lag time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.process(host)
	p.lag, p.hasLag = lag, true
}

// StopFrontend is the FE process at host ending (its container killed, or
// exiting): its connections and address are refused, and BDBJE elects
// without it at once. FE's verdict lags as the real one does: the leader's
// heartbeat rounds fail to reach it, and FE lists it Alive, its
// LastHeartbeat stopped at its last good round, until more than
// HeartbeatFailures rounds failed (about 20 s; model.go
// frontendHeartbeats). SetAlive(host, false) is the verdict at once.
// It returns false when no FE row or process has that host.
func (s *StarRocks) StopFrontend(host string) bool {
	var found bool
	s.locked(func(c *cluster) {
		if found = s.isFrontendHost(host); found {
			s.markRunning(host, false)
		}
		for _, fe := range c.frontends {
			if fe.host == host {
				c.stopFEProcess(fe)
			}
		}
		c.elect()
	})
	return found
}

// Zombie says whether the FE process at host runs though dropped from the group.
func (s *StarRocks) Zombie(host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.views.procs[host]
	return p != nil && p.running && p.frozen != nil
}

// markRunning records that the FE process at host runs (or not); a process
// that starts again has replayed nothing stale; the caller holds s.mu.
func (s *StarRocks) markRunning(host string, running bool) {
	p := s.process(host)
	if running && !p.running {
		p.frozen, p.member, p.config = nil, false, nil
	}
	if !running {
		p.exiting = nil // the process is gone, exiting or not
	}
	if !running && p.running {
		s.noteStop(host, p.config)
	}
	p.running = running
	if !running {
		// The process is gone: so are its connections (a client sees a
		// broken connection and dials again).
		for _, c := range s.views.conns[host] {
			c.Close()
		}
		delete(s.views.conns, host)
	}
}

// connected and disconnected keep conns.
func (s *StarRocks) connected(fe string, c *mysql.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.views.conns == nil {
		s.views.conns = map[string][]*mysql.Conn{}
	}
	s.views.conns[fe] = append(s.views.conns[fe], c)
}

func (s *StarRocks) disconnected(fe string, c *mysql.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.views.conns[fe] = slices.DeleteFunc(s.views.conns[fe], func(x *mysql.Conn) bool { return x == c })
}

// SetHostType records how the FE process at host was started: with
// --host_type FQDN (fqdn true) it keeps host names as given; without it, an
// ADD BACKEND, COMPUTE NODE, FOLLOWER or OBSERVER it runs resolves a name to
// its IP with resolve (the cluster's DNS), as AlterSystemStmtAnalyzer does:
// resolveHost = clause instanceof Add* && !FrontendOptions.isUseFqdn()
// (sheet §0). The leader's setting applies: ALTER SYSTEM runs there.
func (s *StarRocks) SetHostType(host string, fqdn bool, resolve func(name string) (ip string, ok bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.process(host).resolveNames = !fqdn
	if resolve != nil {
		s.views.resolve = resolve
	}
}

// resolvedAdd is st with its host names resolved to IPs when st is an ADD
// and the leader resolves names (SetHostType); the caller holds s.mu.
func (s *StarRocks) resolvedAdd(st *statement) (*statement, *sqlError) {
	switch st.kind {
	case stAddBackend, stAddComputeNode, stAddFrontend:
	default:
		return st, nil
	}
	ldr := s.state.leader
	if ldr == nil {
		return st, nil
	}
	p := s.views.procs[ldr.host]
	if p == nil || !p.resolveNames {
		return st, nil
	}
	kind := map[stmtKind]string{stAddBackend: "BACKEND", stAddComputeNode: "COMPUTE NODE", stAddFrontend: "FRONTEND"}[st.kind]
	cp := *st
	cp.hostPorts = nil
	for _, hp := range st.hostPorts {
		host, port, msg := validateHostPort(hp)
		if msg != "" || net.ParseIP(host) != nil {
			cp.hostPorts = append(cp.hostPorts, hp) // the analyzer's own refusal, or an IP already
			continue
		}
		ip, ok := "", false
		if s.views.resolve != nil {
			ip, ok = s.views.resolve(host)
		}
		if !ok {
			// InetAddress.getByName's UnknownHostException inside
			// validateHostAndPort's catch (Exception e). UNVERIFIED: the
			// exception text, here glibc's "Name or service not known".
			return nil, analyzeError("%s host or port is wrong. Encounter unknown exception: %s: Name or service not known", kind, host)
		}
		cp.hostPorts = append(cp.hostPorts, net.JoinHostPort(ip, strconv.Itoa(port)))
	}
	return &cp, nil
}
