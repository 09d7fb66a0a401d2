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
	"slices"
	"time"
)

// Processes and heartbeats: what a node really does, and what FE makes of
// it. FE's heartbeat daemon probes every BE, CN and FE each
// HeartbeatInterval; Alive, LastStartTime and LastHeartbeat are what the
// probes found (system/ComputeNode.java @0139a862 handleHbResponse; sheet
// §14; for FEs system/Frontend.java @01037dd6 and system/HeartbeatMgr.java
// @000defc9, model.go frontendHeartbeats).

// statisticsInterval is how often StatisticsMetaManager looks for the
// _statistics_ tables to create. UNVERIFIED: the period of the daemon
// (statistic_manager_sleep_time_sec, believed 60 s) was not read in source.
const statisticsInterval = 60 * time.Second

// statisticsDB is StatsConstants.STATISTICS_DB_NAME (sheet §14).
const statisticsDB = "_statistics_"

// supportsShutdownReport: a BE/CN that exits gracefully reports SHUTDOWN in
// its heartbeat and FE marks it dead at once, from 3.4 (sheet §14). Of the
// simulated versions, 3.5.
func (c *cluster) supportsShutdownReport() bool { return c.opts.Version >= "3.4" }

// setAlive is the SetAlive API: a process change and FE's verdict at once,
// for FEs, BEs and CNs alike. Alive starts the process if it does not run
// (a restart if it ran before) and FE sees it answer now; not alive stops
// it and FE marks it dead now, as if the failed heartbeats had all
// happened. The last good heartbeat stays where it was, so DownTolerance
// (and an FE's LastHeartbeat) still runs from it.
func (c *cluster) setAlive(host string, alive bool) bool {
	found := false
	for _, fe := range c.frontends {
		if fe.host == host {
			if alive {
				c.startFEProcess(fe)
			} else {
				c.stopFEProcess(fe)
			}
			c.heartbeatFE(fe, alive)
			found = true
		}
	}
	if found {
		c.elect()
	}
	for _, n := range c.nodesAt(host) {
		if alive {
			c.startProcess(n)
			c.goodHeartbeat(n)
		} else {
			c.stopProcess(n)
			c.heartbeatNode(n, false)
		}
		found = true
	}
	return found
}

// nodesAt is every BE and CN whose IP column is host (exact string).
func (c *cluster) nodesAt(host string) []*node {
	var out []*node
	for _, be := range c.backends {
		if be.host == host {
			out = append(out, &be.node)
		}
	}
	for _, cn := range c.cns {
		if cn.host == host {
			out = append(out, &cn.node)
		}
	}
	return out
}

// processes is the StartProcess/StopProcess API: false when no BE or CN has
// that IP.
func (c *cluster) processes(host string, start, graceful bool) bool {
	nodes := c.nodesAt(host)
	for _, n := range nodes {
		if start {
			c.startProcess(n)
			continue
		}
		c.stopProcess(n)
		if graceful && c.supportsShutdownReport() && n.alive {
			// The exiting node answers the heartbeat with SHUTDOWN: dead
			// at once (3.4+, sheet §14).
			c.heartbeatNode(n, false)
		}
	}
	return len(nodes) > 0
}

// startProcess starts the node's process if it does not run. A BE that ran
// before restarts: with WipeOnRestart its storage is empty (its replicas
// are gone, FE learns at the next tablet report); with CatchUp its replicas
// missed the loads that ran meanwhile.
func (c *cluster) startProcess(n *node) {
	if n.running {
		return
	}
	restart := n.everRan
	n.running, n.everRan = true, true
	n.procStart = c.now
	n.failedHeartbeats = 0
	be := c.backendByID(n.id)
	if be == nil {
		return
	}
	be.reportFrom = time.Time{}
	if !restart {
		return
	}
	for _, r := range c.replicasOnBE(be.id) {
		if c.opts.WipeOnRestart {
			r.wiped = true
		} else if c.opts.CatchUp > 0 {
			r.behind = true
		}
	}
}

// stopProcess stops the node's process. FE notices through the failed
// heartbeats that follow (or at once, stopping gracefully on 3.4+). With
// CatchUp, loads run all the time: the next fails on the BE's replicas,
// which the simulation takes as at once.
func (c *cluster) stopProcess(n *node) {
	if !n.running {
		return
	}
	n.running = false
	n.failedHeartbeats = 0
	be := c.backendByID(n.id)
	if be == nil {
		return
	}
	be.reportFrom = time.Time{}
	if c.opts.CatchUp > 0 {
		for _, r := range c.replicasOnBE(be.id) {
			r.behind = true
		}
	}
}

// load is a load into every table: the replicas on BEs whose process does
// not run miss its version (their lastFailedVersion is set), so FE counts
// their tablets VERSION_INCOMPLETE even within DownTolerance (sheet §14).
func (c *cluster) load() int {
	n := 0
	for _, tb := range c.liveTablets() {
		for _, r := range tb.replicas {
			if be := c.backendByID(r.beID); be != nil && !be.running && !r.behind {
				r.behind = true
				n++
			}
		}
	}
	return n
}

// heartbeatRound is one round of FE's heartbeats at c.now: a running
// process answers, a stopped one fails; more than HeartbeatFailures
// failures in a row and FE marks the node dead (ComputeNode
// .handleHbResponse @0139a862, heartbeat_retry_times, sheet §14). The FEs
// are heartbeaten in the same round (frontendHeartbeats).
func (c *cluster) heartbeatRound() {
	c.frontendHeartbeats()
	beat := func(n *node) {
		if n.running {
			c.goodHeartbeat(n)
			return
		}
		n.failedHeartbeats++
		if n.alive && n.failedHeartbeats > c.opts.HeartbeatFailures {
			c.heartbeatNode(n, false)
		}
	}
	for _, be := range c.backends {
		beat(&be.node)
	}
	for _, cn := range c.cns {
		beat(&cn.node)
	}
}

// goodHeartbeat: the node answered at c.now. Alive at once, LastStartTime
// is the process's start time it reports (so a quick restart shows only as
// a new LastStartTime), and a BE's replicas that missed versions start
// catching up.
func (c *cluster) goodHeartbeat(n *node) {
	c.heartbeatNode(n, true)
	n.lastStart = n.procStart
	n.failedHeartbeats = 0
	be := c.backendByID(n.id)
	if be == nil {
		return
	}
	if be.reportFrom.IsZero() {
		be.reportFrom = c.now
	}
	if c.repairsLimited() {
		return // the scheduler takes them at TabletChecker's rounds (tabletCheck)
	}
	for _, r := range c.replicasOnBE(be.id) {
		if r.behind && !r.wiped {
			r.behind = false
			r.catchUpUntil = c.now.Add(c.opts.CatchUp)
		}
	}
}

// heartbeatNode follows ComputeNode (system/ComputeNode.java @0139a862):
// the first good heartbeat sets the ports; setAlive moves the status
// CONNECTING/DISCONNECTED -> OK and OK -> DISCONNECTED; LastHeartbeat is the
// last good one (getLastUpdateMs).
func (c *cluster) heartbeatNode(n *node, alive bool) {
	if alive {
		n.alive, n.everAlive = true, true
		n.status = statusOK
		n.lastHeartbeat = c.now
		n.bePort, n.httpPort, n.brpcPort = beBePort, beHTTPPort, beBrpcPort
		n.version = c.versionOf(n.host)
		n.cpuCores, n.memLimit = beCPUCores, beMemLimit
		if c.opts.SharedData {
			n.starletPort = starletPort
		}
		return
	}
	if n.alive && n.status == statusOK {
		n.status = statusDisconnected
	}
	n.alive = false
}

// tabletReports: a running BE reports its tablets every
// TabletReportInterval after its first good heartbeat (UNVERIFIED: that the
// first report comes a whole interval after it; sheet §14 says "up to
// 60 s"). FE then forgets the replicas the BE no longer has
// (ReportHandler): the tablets lose them.
func (c *cluster) tabletReports() {
	iv := c.opts.TabletReportInterval
	for _, be := range c.backends {
		if !be.running || be.reportFrom.IsZero() {
			continue
		}
		k := c.now.Sub(be.reportFrom) / iv
		if k < 1 {
			continue
		}
		at := be.reportFrom.Add(k * iv)
		if !at.After(be.lastReport) {
			continue
		}
		be.lastReport = at
		for _, tb := range c.allTablets() {
			n := len(tb.replicas)
			tb.replicas = slices.DeleteFunc(tb.replicas, func(r *replica) bool { return r.beID == be.id && r.wiped })
			if len(tb.replicas) != n {
				c.journal++
			}
		}
	}
}

// statisticsDaemon is StatisticsMetaManager in shared-nothing mode: once a
// BE exists it creates the _statistics_ tables with replication_num =
// min(3, BEs) (AutoInferUtil.calDefaultReplicationNum, sheet §14). A
// creation that finds too few alive BEs fails and is tried again at the next
// run. UNVERIFIED: the tables' bucket numbers; the simulation gives each
// table two tablets.
func (c *cluster) statisticsDaemon() {
	if c.opts.SharedData || c.db(statisticsDB) != nil || len(c.backends) == 0 {
		return
	}
	rep := min(3, len(c.backends))
	tables := []string{"table_statistic_v1", "column_statistics", "histogram_statistics"}
	alive := 0
	for _, be := range c.backends {
		if be.alive && !be.decommissioned {
			alive++
		}
	}
	if alive < rep {
		return
	}
	for _, t := range tables {
		_ = c.createTable(statisticsDB, t, rep, 2)
	}
}

// advance moves the model to now, event by event: each heartbeat round and
// statistics run at its time, and between them the tablet scheduler, the
// clones, the tablet reports and the recycle bin.
func (c *cluster) advance(now time.Time) {
	for {
		next := c.nextHeartbeat
		if c.nextStatistics.Before(next) {
			next = c.nextStatistics
		}
		if c.nextCheck.Before(next) {
			next = c.nextCheck
		}
		if t := c.img.next(); t.Before(next) {
			next = t
		}
		if c.bk.next.Before(next) {
			next = c.bk.next
		}
		if next.After(now) {
			break
		}
		c.run(next)
		if !c.nextHeartbeat.After(next) {
			c.heartbeatRound()
			c.nextHeartbeat = c.nextHeartbeat.Add(c.opts.HeartbeatInterval)
		}
		if !c.nextStatistics.After(next) {
			c.statisticsDaemon()
			c.nextStatistics = c.nextStatistics.Add(statisticsInterval)
		}
		if !c.nextCheck.After(next) {
			c.tabletCheck()
			c.nextCheck = c.nextCheck.Add(checkerInterval)
		}
		c.imageRounds(next)
		if !c.bk.next.After(next) {
			c.backupRounds(next) // backup.go
			c.bk.next = c.bk.next.Add(backupInterval)
		}
	}
	c.run(now)
}
