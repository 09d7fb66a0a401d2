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
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// result is a result set: column names and rows of strings (every FE proc
// result is strings, BaseProcResult).
type result struct {
	columns []string
	rows    [][]string
}

// frontendColumns: FrontendsProcNode.TITLE_NAMES @4ad31e8f, the same 16 in
// real 3.3.10 output (sheet §2). No Id column: that one is ≥4.x and
// unverified (sheet §2), so it stays out.
var frontendColumns = []string{
	"Name", "IP", "EditLogPort", "HttpPort", "QueryPort", "RpcPort", "Role", "ClusterId", "Join", "Alive",
	"ReplayedJournalId", "LastHeartbeat", "IsHelper", "ErrMsg", "StartTime", "Version",
}

// backend23: the 2.5–3.1 docs list (sheet §3).
var backend23 = []string{
	"BackendId", "IP", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "LastStartTime", "LastHeartbeat",
	"Alive", "SystemDecommissioned", "ClusterDecommissioned", "TabletNum", "DataUsedCapacity", "AvailCapacity",
	"TotalCapacity", "UsedPct", "MaxDiskUsedPct", "ErrMsg", "Version", "Status", "DataTotalCapacity",
	"DataUsedPct", "CpuCores",
}

// backendColumns are SHOW BACKENDS' columns for a version and run mode.
func backendColumns(version string, sharedData bool) []string {
	cols := slices.Clone(backend23)
	switch version {
	case "3.1":
		// sheet §3: the 3.1 docs list, 23 columns. No source of 3.1's
		// shared-data extras was read, so none are added.
		return cols
	case "3.2":
		// BackendsProcDir @226b3c7c (≈3.2, sheet §3): the 23, then these,
		// "location" in lower case as in the code.
		cols = append(cols, "NumRunningQueries", "MemUsedPct", "CpuUsedPct", "DataCacheMetrics", "location")
	default:
		// Real 3.3.10 output (sheet §3): MemLimit after CpuCores, Location; 29.
		cols = append(cols, "MemLimit", "NumRunningQueries", "MemUsedPct", "CpuUsedPct", "DataCacheMetrics", "Location")
		if version >= "3.5" {
			// Docs Latest-3.5 (zh) and Latest-4.0: the 29 + StatusCode (sheet §3).
			cols = append(cols, "StatusCode")
		}
	}
	if sharedData {
		// BackendsProcDir @226b3c7c adds StarletPort, WorkerId in shared-data
		// mode (sheet §3). For 3.3 and 3.5 the same two at the end are
		// inferred from that source (UNVERIFIED for those versions).
		cols = append(cols, "StarletPort", "WorkerId")
	}
	return cols
}

// computeNode18: ComputeNodeProcDir TITLE_NAMES (undated, ≈3.1/3.2, sheet §4).
var computeNode18 = []string{
	"ComputeNodeId", "IP", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "LastStartTime", "LastHeartbeat",
	"Alive", "SystemDecommissioned", "ClusterDecommissioned", "ErrMsg", "Version", "CpuCores",
	"NumRunningQueries", "MemUsedPct", "CpuUsedPct", "HasStoragePath",
}

// computeNodeColumns are SHOW COMPUTE NODES' columns. Columns 1–3 are always
// ComputeNodeId, IP, HeartbeatPort (sheet §4: the CN drop helper reads
// them by position).
func computeNodeColumns(version string, sharedData bool) []string {
	cols := slices.Clone(computeNode18)
	if !sharedData {
		// Shared-nothing has no WarehouseName column (sheet §4). For 3.3 the
		// 18 are inferred: the warehouse columns are the shared-data block
		// in every copy read (UNVERIFIED for 3.3 shared-nothing).
		return cols
	}
	if version == "3.1" || version == "3.2" {
		// ≈3.1/3.2 source: + StarletPort, WorkerId if RunMode.allowCreateLakeTable() (sheet §4).
		return append(cols, "StarletPort", "WorkerId")
	}
	// Docs, example from 3.3.0-rc01 (shared-data): … HasStoragePath,
	// StarletPort, WorkerId, WarehouseName, TabletNum (sheet §4). 3.5 has no
	// list of its own in the sheet and uses 3.3's.
	return append(cols, "StarletPort", "WorkerId", "WarehouseName", "TabletNum")
}

// statisticColumns: StatisticProcDir.TITLE_NAMES @673e1a09 (sheet §9).
var statisticColumns = []string{
	"DbId", "DbName", "TableNum", "PartitionNum", "IndexNum", "TabletNum", "ReplicaNum",
	"UnhealthyTabletNum", "InconsistentTabletNum", "CloningTabletNum", "ErrorStateTabletNum",
}

// Value formats.

// timeString is TimeUtils.longToTimeString: "yyyy-MM-dd HH:mm:ss" in the
// session time zone (the simulation's is UTC, what a pod's FE defaults to).
// A time that never happened (0 or -1 in the FE) is FeConstants.NULL_STRING,
// rendered "NULL" here (UNVERIFIED: the constant's value in 3.x; older
// copies used "\N").
func timeString(t time.Time) string {
	if t.IsZero() {
		return "NULL"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// byteString is DebugUtil.getByteUint + DECIMAL_FORMAT_SCALE_3 ("0.000")
// and a space: "76.209 GB", "0.000 B" (DebugUtil.java @07aef8ff; sheet §3).
func byteString(b int64) string {
	v, unit := byteUnit(b)
	return strconv.FormatFloat(v, 'f', 3, 64) + " " + unit
}

// prettyBytes is DebugUtil.getPrettyStringBytes: "%.3f%s", no space
// ("100.000B" in the newest ComputeNodeProcDir test).
func prettyBytes(b int64) string {
	v, unit := byteUnit(b)
	return strconv.FormatFloat(v, 'f', 3, 64) + unit
}

func byteUnit(b int64) (float64, string) {
	const kb, mb, gb, tb = 1 << 10, 1 << 20, 1 << 30, 1 << 40
	v := float64(b)
	switch {
	case b >= tb:
		return v / tb, "TB"
	case b >= gb:
		return v / gb, "GB"
	case b >= mb:
		return v / mb, "MB"
	case b >= kb:
		return v / kb, "KB"
	}
	return v, "B"
}

// pct is String.format("%.2f", x) + " %": "58.19 %" (sheet §3).
func pct(x float64) string { return fmt.Sprintf("%.2f %%", x) }

func boolString(b bool) string { return strconv.FormatBool(b) }

// Rows.

// frontendRows is FrontendsProcNode.getFrontendsInfo (@4ad31e8f). The FE
// lists its frontends map (keyed by node name) in hash order; the
// simulation lists them in the order they were added.
func (c *cluster) frontendRows() *result {
	res := &result{columns: frontendColumns}
	for _, fe := range c.frontends {
		self := c.isSelf(fe)
		queryPort, rpcPort := fe.queryPort, fe.rpcPort
		if self {
			// Self: the local config; others: from heartbeat (sheet §2).
			queryPort, rpcPort = feQueryPort, feRPCPort
		}
		alive := c.feAlive(fe)
		// LastHeartbeat is lastUpdateTime, the leader's clock at the FE's
		// last good round, for every row, the answering FE's own too
		// (FrontendsProcNode @161fd09e; model.go frontendHeartbeats).
		lastHB := fe.lastHeartbeat
		start, version := "NULL", "NULL" // sheet §2: StartTime NULL when not alive; Version NULL when unknown
		if alive {
			start = timeString(fe.startTime)
		}
		if fe.version != "" {
			version = fe.version
		}
		res.rows = append(res.rows, []string{
			fe.name, fe.host, strconv.Itoa(fe.editLogPort),
			strconv.Itoa(feHTTPPort), // the local Config.http_port for every row (sheet §2)
			strconv.Itoa(queryPort), strconv.Itoa(rpcPort),
			c.roleColumn(fe), strconv.Itoa(c.clusterID()), boolString(fe.join), boolString(alive),
			strconv.FormatInt(c.replayedJournalID(fe), 10), timeString(lastHB), boolString(fe.helper),
			"", // ErrMsg: the heartbeat error. UNVERIFIED: the text for a dead node; the simulation leaves it empty.
			start, version,
		})
	}
	return res
}

// nodeValues are the columns BEs and CNs share, by name, as
// BackendsProcDir @226b3c7c and ComputeNodeProcDir render them.
func (c *cluster) nodeValues(n *node) map[string]string {
	// LastHeartbeat is the last good heartbeat (getLastUpdateMs); FE's
	// heartbeats come every HeartbeatInterval (sheet §14).
	lastHB := n.lastHeartbeat
	memUsed := 0.0 // getMemUsedPct: used/limit; the simulated nodes run nothing
	return map[string]string{
		"IP": n.host, "HeartbeatPort": strconv.Itoa(n.hbPort), "BePort": strconv.Itoa(n.bePort),
		"HttpPort": strconv.Itoa(n.httpPort), "BrpcPort": strconv.Itoa(n.brpcPort),
		"LastStartTime": timeString(n.lastStart), "LastHeartbeat": timeString(lastHB),
		"Alive":   boolString(n.alive),
		"ErrMsg":  "", // UNVERIFIED: the heartbeat error text of a dead node; left empty
		"Version": n.version, "CpuCores": strconv.Itoa(n.cpuCores),
		"MemLimit":          prettyBytes(n.memLimit), // UNVERIFIED for 3.3 BEs: the newest CN code's format
		"NumRunningQueries": "0", "MemUsedPct": pct(memUsed * 100),
		"CpuUsedPct": fmt.Sprintf("%.1f %%", 0.0), // String.format("%.1f", permille / 10.0) + " %"
		// "N/A" = no datacache report received (BackendsProcDir @226b3c7c).
		"DataCacheMetrics": "N/A",
		// StatusCode is the ComputeNode status name.
		"StatusCode":  n.status,
		"StarletPort": strconv.Itoa(n.starletPort),
		// UNVERIFIED: the StarOS worker id; the simulation numbers its workers.
		"WorkerId": strconv.FormatInt(n.workerID, 10),
	}
}

func (c *cluster) backendRows() *result {
	cols := backendColumns(c.opts.Version, c.opts.SharedData)
	res := &result{columns: cols}
	for _, be := range c.sortedBackends() {
		v := c.nodeValues(&be.node)
		v["BackendId"] = strconv.FormatInt(be.id, 10)
		// SystemDecommission sets SystemDecommissioned=true,
		// ClusterDecommissioned=false (sheet §3).
		v["SystemDecommissioned"], v["ClusterDecommissioned"] = boolString(be.decommissioned), "false"
		v["TabletNum"] = strconv.Itoa(c.replicasOn(be.id))
		v["DataUsedCapacity"], v["AvailCapacity"], v["TotalCapacity"] = byteString(be.dataUsed), byteString(be.avail), byteString(be.total)
		used := 0.0
		if be.total > 0 {
			used = float64(be.total-be.avail) * 100 / float64(be.total)
		}
		v["UsedPct"] = pct(used)
		// One simulated disk: the most used disk is the disk.
		v["MaxDiskUsedPct"] = pct(used)
		// Gson of BackendStatus (sheet §3): the last tablet report FE
		// processed, one every TabletReportInterval (sheet §14).
		// UNVERIFIED: "N/A" before the first tablet report.
		reported := "N/A"
		if !be.lastReport.IsZero() {
			reported = timeString(be.lastReport)
		}
		status, _ := json.Marshal(map[string]string{"lastSuccessReportTabletsTime": reported})
		v["Status"] = string(status)
		// UNVERIFIED: DataTotalCapacity as data used + available.
		dataTotal := be.dataUsed + be.avail
		v["DataTotalCapacity"] = byteString(dataTotal)
		dataUsedPct := 0.0
		if dataTotal > 0 {
			dataUsedPct = float64(be.dataUsed) * 100 / float64(dataTotal)
		}
		v["DataUsedPct"] = pct(dataUsedPct)
		// Location: may be empty (sheet §3); no labels are set here.
		v["Location"], v["location"] = "", ""
		res.rows = append(res.rows, pick(cols, v))
	}
	return res
}

func (c *cluster) computeNodeRows() *result {
	cols := computeNodeColumns(c.opts.Version, c.opts.SharedData)
	res := &result{columns: cols}
	for _, cn := range c.sortedComputeNodes() {
		v := c.nodeValues(&cn.node)
		v["ComputeNodeId"] = strconv.FormatInt(cn.id, 10)
		// CNs cannot be decommissioned (sheet §5).
		v["SystemDecommissioned"], v["ClusterDecommissioned"] = "false", "false"
		// UNVERIFIED: isSetStoragePath; the simulated CNs report none.
		v["HasStoragePath"] = "false"
		v["WarehouseName"] = cn.warehouse
		v["TabletNum"] = "0" // compute nodes hold no data in the simulation
		res.rows = append(res.rows, pick(cols, v))
	}
	return res
}

func pick(cols []string, v map[string]string) []string {
	row := make([]string, len(cols))
	for i, col := range cols {
		val, ok := v[col]
		if !ok {
			panic("simstarrocks: no value for column " + col)
		}
		row[i] = val
	}
	return row
}

// statisticRows is SHOW PROC '/statistic' (StatisticProcDir @673e1a09,
// sheet §9): one row per DB sorted by name, then Total with DbName = the
// number of DBs; no DB at all gives no rows, not even Total.
func (c *cluster) statisticRows() *result {
	res := &result{columns: statisticColumns}
	if len(c.dbs) == 0 {
		return res
	}
	type line struct {
		name string
		vals []int
		id   int64
	}
	var lines []line
	total := make([]int, 9)
	for _, d := range c.dbs {
		vals := make([]int, 9) // TableNum .. ErrorStateTabletNum
		for _, t := range d.tables {
			vals[0]++ // TableNum
			vals[1]++ // PartitionNum: one partition per table here
			vals[2]++ // IndexNum: the base index
			for _, tb := range t.tablets {
				vals[3]++ // TabletNum
				if tb.cloud {
					// Cloud-native tablets count in TabletNum only (sheet §9).
					continue
				}
				vals[4] += len(tb.replicas) // ReplicaNum
				if c.unhealthy(t, tb) {
					vals[5]++ // UnhealthyTabletNum
				}
				if tb.cloning() {
					vals[7]++ // CloningTabletNum: a CLONE task in flight
				}
				// Inconsistent and error-state: 0.
			}
		}
		for i := range vals {
			total[i] += vals[i]
		}
		lines = append(lines, line{name: d.name, vals: vals, id: d.id})
	}
	slices.SortStableFunc(lines, func(a, b line) int { return strings.Compare(a.name, b.name) })
	for _, l := range lines {
		row := []string{strconv.FormatInt(l.id, 10), l.name}
		for _, v := range l.vals {
			row = append(row, strconv.Itoa(v))
		}
		res.rows = append(res.rows, row)
	}
	row := []string{"Total", strconv.Itoa(len(lines))}
	for _, v := range total {
		row = append(row, strconv.Itoa(v))
	}
	res.rows = append(res.rows, row)
	return res
}

// clusterBalanceRows is SHOW PROC '/cluster_balance' (ClusterBalanceProcDir
// @161fd09e, sheet §9): Item | Number, in this order; all_tablets only in
// the newer copy (3.5 here). The numbers are the simulated scheduler's:
// working_slots = the BEs it schedules on, pending_tablets = tablets to move
// off decommissioned BEs or unhealthy with no clone running,
// running_tablets = tablets with a clone running (CloneDuration),
// history_tablets = clones started so far.
func (c *cluster) clusterBalanceRows() *result {
	pending := c.pendingTablets()
	res := &result{columns: []string{"Item", "Number"}}
	res.rows = [][]string{
		{"cluster_load_stat", "1"},
		{"working_slots", strconv.Itoa(len(c.backends))},
		{"sched_stat", "1"}, // "1" once the scheduler has a stat snapshot
		{"priority_repair", "0"},
		{"pending_tablets", strconv.Itoa(pending)},
		{"running_tablets", strconv.Itoa(c.runningTablets())},
		{"history_tablets", strconv.Itoa(c.history)},
	}
	if c.opts.Version >= "3.5" {
		res.rows = append(res.rows, []string{"all_tablets", strconv.Itoa(pending)})
	}
	return res
}
