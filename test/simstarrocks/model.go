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
	"fmt"
	"slices"
	"strings"
	"time"
)

// The model: the FE group, the nodes, the tablets and the warehouses.

const (
	// clusterID and clusterToken are simulated values (the FE generates
	// both when the first FE bootstraps).
	clusterID    = 1647598232
	clusterToken = "5f8bc1b6-0c52-4bd4-9a3e-simstarrocks"

	// defaultWarehouse is WarehouseManager.DEFAULT_WAREHOUSE_NAME
	// (server/WarehouseManager.java @006750c6).
	defaultWarehouse = "default_warehouse"

	// The FE's own ports (fe.conf defaults, sheet §1: http_port 8030,
	// query_port 9030) and rpc_port (fe.conf default 9020).
	feHTTPPort  = 8030
	feQueryPort = 9030
	feRPCPort   = 9020

	// What a BE/CN reports in its first heartbeat: be_port 9060,
	// webserver_port 8040, brpc 8060 (sheet §1). The hardware numbers are
	// simulated.
	beBePort     = 9060
	beHTTPPort   = 8040
	beBrpcPort   = 8060
	beCPUCores   = 8
	beMemLimit   = 16 << 30
	starletPort  = 9070 // UNVERIFIED: the starlet_port a shared-data node reports
	firstID      = 10001
	commitHash   = "0000000"
	roleFollower = "FOLLOWER"
	roleObserver = "OBSERVER"
	roleLeader   = "LEADER"
)

// The ComputeNode.Status names (system/ComputeNode.java @0139a862):
// CONNECTING for a new node with no heartbeat yet, OK while alive,
// DISCONNECTED once an alive node stops answering.
const (
	statusConnecting   = "CONNECTING"
	statusOK           = "OK"
	statusDisconnected = "DISCONNECTED"
)

type feNode struct {
	id          int64
	name        string
	host        string
	editLogPort int
	role        string // FOLLOWER | OBSERVER
	join        bool
	alive       bool
	helper      bool
	// From heartbeats: 0/zero until the first one (Frontend fields default).
	queryPort, rpcPort int
	lastHeartbeat      time.Time
	startTime          time.Time
	version            string
	// The process as it really is: whether it runs (what BDBJE's election
	// and the leader's heartbeats reach), when it started (the
	// feStartTime it reports), and the leader's failed heartbeats to it in
	// a row (Frontend.heartbeatRetryTimes).
	running          bool
	procStart        time.Time
	failedHeartbeats int
}

// node is what BEs and CNs share (a Backend is a ComputeNode in the FE).
type node struct {
	id               int64
	host             string
	hbPort           int
	alive, everAlive bool // FE's view, from heartbeats
	status           string
	// The process as it really is: whether it runs, when it started, and
	// whether it ever ran (so a start is a restart).
	running, everRan           bool
	procStart                  time.Time
	failedHeartbeats           int // in a row
	bePort, httpPort, brpcPort int // -1 until the first heartbeat (ComputeNode(id, host, port))
	lastStart, lastHeartbeat   time.Time
	version                    string
	cpuCores                   int
	memLimit                   int64
	warehouse                  string
	workerID                   int64
	starletPort                int
}

type beNode struct {
	node
	decommissioned         bool
	dataUsed, avail, total int64
	credit                 float64 // replicas it may move now
	// lastReport is the last tablet report FE processed; reportFrom is the
	// first good heartbeat of the running process, zero while it does not
	// run (reports come every TabletReportInterval after it).
	lastReport, reportFrom time.Time
}

type cnNode struct {
	node
}

type replica struct {
	beID         int64
	catchUpUntil time.Time
	// behind: the replica missed a version (a load failed on it, its
	// lastFailedVersion is set): VERSION_INCOMPLETE until its BE is back and
	// it has caught up.
	behind bool
	// wiped: its BE restarted on empty storage; the data is gone, FE learns
	// it at the BE's next tablet report.
	wiped bool
	// cloneDone is non-zero while the replica is a CLONE being copied, from
	// the replica on relocates (a decommissioned BE), which goes when it is
	// done.
	cloneDone time.Time
	relocates int64
}

func (r *replica) cloning() bool { return !r.cloneDone.IsZero() }

type tablet struct {
	id       int64
	cloud    bool
	replicas []*replica
}

type table struct {
	id             int64
	name           string
	replicationNum int
	tablets        []*tablet
	// colocate: the table is in a colocate group (tablets.go): its
	// replicas stay on their bucket's BEs, and only ColocateTableBalancer
	// moves them.
	colocate bool
	// restoring is the label of the restore that holds the table in state
	// RESTORE; restoredFrom the label of the last restore that finished
	// into it (backup.go).
	restoring, restoredFrom string
}

type database struct {
	id     int64
	name   string
	tables []*table
}

func (d *database) table(name string) *table {
	for _, t := range d.tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

// binned is a dropped table in the recycle bin: its tablets stay in FE's
// inverted index (and on their BEs) until it expires (sheet §14).
type binned struct {
	t       *table
	expires time.Time
}

type cluster struct {
	opts       Options
	now        time.Time
	nextID     int64
	journal    int64
	frontends  []*feNode
	leader     *feNode
	removedFEs map[string]bool
	lastNameMs int64
	feSeq      int64
	backends   []*beNode
	cns        []*cnNode
	dbs        []*database
	warehouses []string
	rr         int // round-robin cursor for CreateTable
	history    int // replicas the simulated tablet scheduler has moved
	// self is the host of the FE whose state this is ("" the leader's).
	self string
	bin  []binned
	// The next heartbeat round and the next run of the statistics daemon.
	nextHeartbeat, nextStatistics time.Time
	// sched is the leading FE's configuration, which its tablet scheduler
	// obeys (config.go); nextCheck is TabletChecker's next round.
	sched     feConfig
	nextCheck time.Time
	// The metadata images (image.go).
	img imageState
	// releases is, by host, the release the process there runs (its
	// pod's image, SetRelease); "" is Options.Version's.
	releases map[string]string
	// bk is what FE keeps of backups (backup.go); objects the object
	// store its repositories live in, shared with the followers' copies
	// and with other simulated clusters.
	bk      backupModel
	objects storeRef
	// replay: this state is a follower's replayed copy, which runs no
	// daemon with effects outside FE (BackupHandler runs on the leader).
	replay bool
}

// clusterID is the ClusterId column and what 4.2 records in a snapshot.
func (c *cluster) clusterID() int {
	if c.opts.ClusterID != 0 {
		return c.opts.ClusterID
	}
	return clusterID
}

func newCluster(opts Options, now time.Time) *cluster {
	return &cluster{
		opts: opts, now: now, nextID: firstID,
		removedFEs:     map[string]bool{},
		warehouses:     []string{defaultWarehouse},
		nextHeartbeat:  now.Add(opts.HeartbeatInterval),
		nextStatistics: now.Add(statisticsInterval),
		nextCheck:      now.Add(checkerInterval),
		img:            newImageState(now, opts.CheckpointInterval),
		releases:       map[string]string{},
		bk:             backupModel{jobs: map[string]*bjob{}, next: now.Add(backupInterval)},
		objects:        opts.Store,
	}
}

func (c *cluster) newID() int64 {
	id := c.nextID
	c.nextID++
	return id
}

// release is the version string the simulated nodes report: Version.
// STARROCKS_VERSION, and with the commit hash where the FE shows both
// ("3.3.10-227b0b3", sheet §2).
func (c *cluster) release() string { return c.opts.Version + ".0" }

func (c *cluster) fullVersion() string { return c.release() + "-" + commitHash }

// versionOf is the Version FE shows for the process at host, learnt from
// its heartbeats: the release it runs (SetRelease), else Options.Version's.
func (c *cluster) versionOf(host string) string {
	if r := c.releases[host]; r != "" {
		return r + "-" + commitHash
	}
	return c.fullVersion()
}

// Frontends.

func (c *cluster) frontendAt(host string, port int) *feNode {
	for _, fe := range c.frontends {
		if fe.host == host && fe.editLogPort == port {
			return fe
		}
	}
	return nil
}

// nodeName is GlobalStateMgr.genFeNodeName's new style, <host>_<port>_<ms>
// (sheet §1). The simulation keeps the milliseconds strictly increasing.
func (c *cluster) nodeName(host string, port int) string {
	ms := c.now.UnixMilli()
	if ms <= c.lastNameMs {
		ms = c.lastNameMs + 1
	}
	c.lastNameMs = ms
	return fmt.Sprintf("%s_%d_%d", host, port, ms)
}

func (c *cluster) bootstrapFrontend(host string, port int) {
	if fe := c.frontendAt(host, port); fe != nil {
		c.startFEProcess(fe)
		c.heartbeatFE(fe, true)
		c.elect()
		return
	}
	if len(c.frontends) > 0 {
		return
	}
	// The first FE: a FOLLOWER in its own BDBJE group, the helper of the
	// others (sheet §1 step 3, §2 IsHelper).
	c.feSeq++
	fe := &feNode{id: c.feSeq, name: c.nodeName(host, port), host: host, editLogPort: port, role: roleFollower, join: true, helper: true}
	c.frontends = append(c.frontends, fe)
	c.startFEProcess(fe)
	c.heartbeatFE(fe, true)
	c.journal++
	c.elect()
	c.img.versions[host] = 0 // a new cluster's image.0 (Storage)
}

func (c *cluster) startFrontend(host string, port int) error {
	fe := c.frontendAt(host, port)
	if fe == nil {
		return fmt.Errorf("simstarrocks: no FE row %s:%d: start_fe.sh --helper would fail (ADD FOLLOWER/OBSERVER first, sheet §7)", host, port)
	}
	// The node joins BDBJE when it starts with --helper (sheet §7).
	fe.join = true
	c.startFEProcess(fe)
	c.heartbeatFE(fe, true)
	c.elect()
	c.firstImage(host)
	return nil
}

// heartbeatFE is FE's verdict on fe: alive is a good heartbeat at c.now
// (Frontend.handleHbResponse @01037dd6: isAlive, the ports, lastUpdateTime
// = the leader's hbTime, startTime = the feStartTime the FE reports, the
// retries reset); not alive marks it dead now. StartFrontend,
// BootstrapFrontend and SetAlive give it at once; the leader's rounds
// give it otherwise (heartbeatRound).
func (c *cluster) heartbeatFE(fe *feNode, alive bool) {
	if alive {
		fe.alive = true
		fe.lastHeartbeat = c.now
		fe.startTime = fe.procStart
		if fe.startTime.IsZero() {
			fe.startTime = c.now
		}
		fe.queryPort, fe.rpcPort = feQueryPort, feRPCPort
		fe.version = c.versionOf(fe.host)
		fe.failedHeartbeats = 0
		return
	}
	fe.alive = false
}

// startFEProcess and stopFEProcess are the FE process at fe's host
// starting and ending. Its row's Alive is FE's verdict, which follows at
// the leader's heartbeat rounds (heartbeatRound), or at once through
// SetAlive; the election follows the process (BDBJE's, not FE's heartbeats).
func (c *cluster) startFEProcess(fe *feNode) {
	if !fe.running {
		fe.running, fe.procStart = true, c.now
	}
	fe.failedHeartbeats = 0
}

func (c *cluster) stopFEProcess(fe *feNode) {
	fe.running = false
	fe.failedHeartbeats = 0
}

// frontendHeartbeats is the FE part of the leader's HeartbeatMgr round
// (system/HeartbeatMgr.java @000defc9 runAfterCatalogReady, a
// LeaderDaemon every heartbeat_timeout_second): to itself the leader
// answers at once (FrontendHeartbeatHandler: "heartbeat to self"), to
// every other FE it calls /api/bootstrap; an OK answer is stamped
// System.currentTimeMillis() on the leader, so every LastHeartbeat is the
// leader's clock at a round, its own row's too. A failure counts a retry;
// past heartbeat_retry_times retries the FE is marked dead
// (Frontend.handleHbResponse @01037dd6). Until then FE lists it Alive with
// its LastHeartbeat stopped at its last good round. No leader, no rounds.
func (c *cluster) frontendHeartbeats() {
	if c.leader == nil {
		return
	}
	for _, fe := range c.frontends {
		switch {
		case fe.running && fe.alive && fe.failedHeartbeats == 0:
			fe.lastHeartbeat = c.now // the rest came with its first good answer
			continue
		case fe.running:
			c.heartbeatFE(fe, true)
			continue
		}
		fe.failedHeartbeats++
		if fe.alive && fe.failedHeartbeats > c.opts.HeartbeatFailures {
			c.heartbeatFE(fe, false)
		}
	}
}

// elect keeps or chooses the leader. The electable members are the
// FOLLOWERs in the BDBJE group (Join=true); a leader exists while the
// processes of a majority of them run (a dead member still counts, sheet
// §7). A leader whose process ended is replaced by the first electable
// member whose process runs. BDBJE elects on its own replication group,
// not on FE's heartbeat verdict, which may still list a dead member Alive.
func (c *cluster) elect() {
	var electable []*feNode
	alive := 0
	for _, fe := range c.frontends {
		if fe.role == roleFollower && fe.join {
			electable = append(electable, fe)
			if fe.running {
				alive++
			}
		}
	}
	if len(electable) == 0 || 2*alive <= len(electable) {
		c.leader = nil
		return
	}
	if c.leader != nil && c.leader.running && slices.Contains(electable, c.leader) {
		return
	}
	for _, fe := range electable {
		if fe.running {
			c.leader = fe
			return
		}
	}
}

// isSelf: fe is the FE answering, whose state this is (the leader's when
// the state is the leader's).
func (c *cluster) isSelf(fe *feNode) bool {
	if c.self == "" {
		return fe == c.leader
	}
	return fe.host == c.self
}

// feAlive is the Alive column: the FE answering shows itself alive; the
// others as heartbeats found them (FrontendsProcNode @161fd09e, sheet §2, §14).
func (c *cluster) feAlive(fe *feNode) bool { return c.isSelf(fe) || fe.alive }

// replayedJournalID: the answering FE's own max journal id (what it has
// replayed); an alive member has replayed it all as far as this state
// knows; a dead one sits at 0 (sheet §2, operator #789).
func (c *cluster) replayedJournalID(fe *feNode) int64 {
	if c.feAlive(fe) {
		return c.journal
	}
	return 0
}

// roleColumn is LEADER for the leader, else FOLLOWER or OBSERVER
// (FrontendsProcNode.getFrontendsInfo @4ad31e8f: host equals leaderIp).
func (c *cluster) roleColumn(fe *feNode) string {
	if c.leader != nil && fe.host == c.leader.host {
		return roleLeader
	}
	return fe.role
}

// Backends and compute nodes.

func (c *cluster) backendAt(host string, port int) *beNode {
	for _, be := range c.backends {
		if be.host == host && be.hbPort == port {
			return be
		}
	}
	return nil
}

func (c *cluster) computeNodeAt(host string, port int) *cnNode {
	for _, cn := range c.cns {
		if cn.host == host && cn.hbPort == port {
			return cn
		}
	}
	return nil
}

func (c *cluster) newNode(host string, port int) node {
	id := c.newID()
	return node{
		id: id, host: host, hbPort: port, status: statusConnecting,
		bePort: -1, httpPort: -1, brpcPort: -1,
		warehouse: defaultWarehouse, workerID: id - firstID + 1,
	}
}

func (c *cluster) removeBackend(be *beNode) {
	c.backends = slices.DeleteFunc(c.backends, func(b *beNode) bool { return b == be })
	// The dropped BE's replicas go with it.
	for _, tb := range c.allTablets() {
		tb.replicas = slices.DeleteFunc(tb.replicas, func(r *replica) bool { return r.beID == be.id })
	}
	c.journal++
}

// sortedBackends is the SHOW BACKENDS order: ListComparator(1, 3), the IP
// then the BePort column, both compared as strings (BackendsProcDir
// @226b3c7c; sheet §3).
func (c *cluster) sortedBackends() []*beNode {
	out := slices.Clone(c.backends)
	slices.SortStableFunc(out, func(a, b *beNode) int { return compareNodes(&a.node, &b.node) })
	return out
}

func (c *cluster) sortedComputeNodes() []*cnNode {
	out := slices.Clone(c.cns)
	slices.SortStableFunc(out, func(a, b *cnNode) int { return compareNodes(&a.node, &b.node) })
	return out
}

func compareNodes(a, b *node) int {
	if x := strings.Compare(a.host, b.host); x != 0 {
		return x
	}
	return strings.Compare(fmt.Sprint(a.bePort), fmt.Sprint(b.bePort))
}

// available is Backend.isAvailable: status OK and not decommissioned
// (ComputeNode.isAvailable @0139a862).
func (be *beNode) available() bool { return be.status == statusOK && !be.decommissioned }

func (c *cluster) backendByID(id int64) *beNode {
	for _, be := range c.backends {
		if be.id == id {
			return be
		}
	}
	return nil
}

// Tablets.

func (c *cluster) db(name string) *database {
	for _, d := range c.dbs {
		if d.name == name {
			return d
		}
	}
	return nil
}

func (c *cluster) createTable(dbName, tableName string, replicationNum, tablets int) error {
	if replicationNum < 1 || tablets < 1 {
		return fmt.Errorf("simstarrocks: replication number %d and tablets %d must be positive", replicationNum, tablets)
	}
	d := c.db(dbName)
	if d != nil && slices.ContainsFunc(d.tables, func(t *table) bool { return t.name == tableName }) {
		return fmt.Errorf("simstarrocks: table %s.%s exists", dbName, tableName)
	}
	var candidates []*beNode
	if !c.opts.SharedData {
		for _, be := range c.backends {
			if be.alive && !be.decommissioned {
				candidates = append(candidates, be)
			}
		}
		if len(candidates) < replicationNum {
			return fmt.Errorf("simstarrocks: %s.%s needs %d alive, not decommissioned BEs, there are %d", dbName, tableName, replicationNum, len(candidates))
		}
	}
	if d == nil {
		d = &database{id: c.newID(), name: dbName}
		c.dbs = append(c.dbs, d)
	}
	tb := &table{id: c.newID(), name: tableName, replicationNum: replicationNum}
	// A table has one partition and one (base) index here; their ids are
	// taken as the FE would take them.
	c.newID()
	c.newID()
	for range tablets {
		t := &tablet{id: c.newID(), cloud: c.opts.SharedData}
		if !t.cloud {
			for k := range replicationNum {
				be := candidates[(c.rr+k)%len(candidates)]
				t.replicas = append(t.replicas, &replica{beID: be.id})
			}
			c.rr = (c.rr + 1) % len(candidates)
		}
		tb.tablets = append(tb.tablets, t)
	}
	d.tables = append(d.tables, tb)
	c.journal++
	return nil
}
