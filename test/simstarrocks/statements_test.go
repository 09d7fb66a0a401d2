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
	"database/sql"
	"slices"
	"strings"
	"testing"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// Column lists, per version and mode.
var (
	// sheet §2: FrontendsProcNode.TITLE_NAMES @4ad31e8f, real 3.3.10 output; no Id.
	frontendCols = []string{"Name", "IP", "EditLogPort", "HttpPort", "QueryPort", "RpcPort", "Role", "ClusterId", "Join", "Alive", "ReplayedJournalId", "LastHeartbeat", "IsHelper", "ErrMsg", "StartTime", "Version"}
	// sheet §3: the 3.1 docs, 23.
	backendCols31 = []string{"BackendId", "IP", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "LastStartTime", "LastHeartbeat", "Alive", "SystemDecommissioned", "ClusterDecommissioned", "TabletNum", "DataUsedCapacity", "AvailCapacity", "TotalCapacity", "UsedPct", "MaxDiskUsedPct", "ErrMsg", "Version", "Status", "DataTotalCapacity", "DataUsedPct", "CpuCores"}
	// sheet §3: BackendsProcDir @226b3c7c.
	backendCols32 = append(slices.Clone(backendCols31), "NumRunningQueries", "MemUsedPct", "CpuUsedPct", "DataCacheMetrics", "location")
	// sheet §3: real 3.3.10 output, 29.
	backendCols33 = append(slices.Clone(backendCols31), "MemLimit", "NumRunningQueries", "MemUsedPct", "CpuUsedPct", "DataCacheMetrics", "Location")
	// sheet §3: docs Latest-3.5, 30.
	backendCols35 = append(slices.Clone(backendCols33), "StatusCode")
	// sheet §4: ComputeNodeProcDir ≈3.1/3.2.
	cnCols = []string{"ComputeNodeId", "IP", "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "LastStartTime", "LastHeartbeat", "Alive", "SystemDecommissioned", "ClusterDecommissioned", "ErrMsg", "Version", "CpuCores", "NumRunningQueries", "MemUsedPct", "CpuUsedPct", "HasStoragePath"}
	// sheet §9: StatisticProcDir.TITLE_NAMES @673e1a09.
	statisticCols = []string{"DbId", "DbName", "TableNum", "PartitionNum", "IndexNum", "TabletNum", "ReplicaNum", "UnhealthyTabletNum", "InconsistentTabletNum", "CloningTabletNum", "ErrorStateTabletNum"}
)

type statementCase struct {
	name  string
	opts  simstarrocks.Options
	setup func(t *testing.T, s *simstarrocks.StarRocks, db *sql.DB)
	stmt  string
	// An error: its exact text; code 1064 / HY000 unless given.
	wantErr   string
	errPrefix bool // wantErr is a prefix (the rest is unverified)
	code      uint16
	state     string
	// A result: its columns, and a check of its rows.
	wantCols []string
	check    func(t *testing.T, cols []string, rows [][]string)
}

func oneBackend(t *testing.T, s *simstarrocks.StarRocks, db *sql.DB) {
	t.Helper()
	withBackends(t, s, db, 1)
}

func threeBackends(t *testing.T, s *simstarrocks.StarRocks, db *sql.DB) {
	t.Helper()
	withBackends(t, s, db, 3)
}

// singleReplicaTables: db.one, db.other and db.third of 1 replica, db.two of 2.
func singleReplicaTables(t *testing.T, s *simstarrocks.StarRocks, _ *sql.DB) {
	t.Helper()
	for _, tb := range []struct {
		name string
		n    int
	}{{"one", 1}, {"two", 2}, {"other", 1}, {"third", 1}} {
		if err := s.CreateTable("db", tb.name, tb.n, 2); err != nil {
			t.Fatal(err)
		}
	}
}

func addCN(stmt string, alive ...string) func(*testing.T, *simstarrocks.StarRocks, *sql.DB) {
	return func(t *testing.T, s *simstarrocks.StarRocks, db *sql.DB) {
		mustExec(t, db, stmt)
		for _, h := range alive {
			s.SetAlive(h, true)
		}
	}
}

func steps(fns ...func(*testing.T, *simstarrocks.StarRocks, *sql.DB)) func(*testing.T, *simstarrocks.StarRocks, *sql.DB) {
	return func(t *testing.T, s *simstarrocks.StarRocks, db *sql.DB) {
		for _, f := range fns {
			f(t, s, db)
		}
	}
}

func execs(stmts ...string) func(*testing.T, *simstarrocks.StarRocks, *sql.DB) {
	return func(t *testing.T, _ *simstarrocks.StarRocks, db *sql.DB) {
		for _, st := range stmts {
			mustExec(t, db, st)
		}
	}
}

func table(dbName, name string, rep, tablets int) func(*testing.T, *simstarrocks.StarRocks, *sql.DB) {
	return func(t *testing.T, s *simstarrocks.StarRocks, _ *sql.DB) {
		if err := s.CreateTable(dbName, name, rep, tablets); err != nil {
			t.Fatal(err)
		}
	}
}

func wantRows(n int) func(*testing.T, []string, [][]string) {
	return func(t *testing.T, _ []string, rows [][]string) {
		if len(rows) != n {
			t.Errorf("%d rows, want %d: %v", len(rows), n, rows)
		}
	}
}

var v35 = simstarrocks.Options{Version: "3.5"}

var statementCases = []statementCase{
	// --- SHOW FRONTENDS (sheet §2) ---
	{
		name: "SHOW FRONTENDS: 16 columns; the bootstrapped FE is the LEADER, joined, alive, a helper (sheet §1 step 3, §2)",
		stmt: "SHOW FRONTENDS", wantCols: frontendCols,
		check: func(t *testing.T, cols []string, rows [][]string) {
			r := rowOf(t, cols, rows, "IP", "fe-0")
			want := map[string]string{"EditLogPort": "9010", "HttpPort": "8030", "QueryPort": "9030", "RpcPort": "9020", "Role": "LEADER", "Join": "true", "Alive": "true", "IsHelper": "true", "ErrMsg": ""}
			for k, v := range want {
				if r[k] != v {
					t.Errorf("%s = %q, want %q", k, r[k], v)
				}
			}
			if !strings.HasPrefix(r["Name"], "fe-0_9010_") || r["StartTime"] == "NULL" || r["Version"] == "NULL" {
				t.Errorf("row %v: Name <host>_<port>_<ms> (sheet §1), StartTime and Version set when alive (sheet §2)", r)
			}
		},
	},
	{
		name: "SHOW PROC '/frontends' is SHOW FRONTENDS (ProcService registers frontends)",
		stmt: "SHOW PROC '/frontends'", wantCols: frontendCols, check: wantRows(1),
	},
	{
		name:    "SHOW PROC '/frontends/': FrontendsProcNode is no directory (ProcService.open)",
		stmt:    "SHOW PROC '/frontends/'",
		wantErr: "/frontends/ is not a directory",
	},
	{
		name:  "an added FOLLOWER: Alive=false, Join=false, helper, QueryPort 0, StartTime and Version NULL (sheet §2, §7)",
		setup: execs(`ALTER SYSTEM ADD FOLLOWER "fe-1:9010"`),
		stmt:  "show frontends;", wantCols: frontendCols,
		check: func(t *testing.T, cols []string, rows [][]string) {
			r := rowOf(t, cols, rows, "IP", "fe-1")
			want := map[string]string{"Role": "FOLLOWER", "Join": "false", "Alive": "false", "IsHelper": "true", "QueryPort": "0", "RpcPort": "0", "ReplayedJournalId": "0", "StartTime": "NULL", "Version": "NULL", "HttpPort": "8030"}
			for k, v := range want {
				if r[k] != v {
					t.Errorf("%s = %q, want %q", k, r[k], v)
				}
			}
		},
	},
	{
		name:  "an added OBSERVER is no helper (NodeMgr.addFrontend: FOLLOWERs join helperNodes)",
		setup: execs(`ALTER SYSTEM ADD OBSERVER 'fe-1:9010'`),
		stmt:  "SHOW FRONTENDS", wantCols: frontendCols,
		check: func(t *testing.T, cols []string, rows [][]string) {
			if r := rowOf(t, cols, rows, "IP", "fe-1"); r["Role"] != "OBSERVER" || r["IsHelper"] != "false" {
				t.Errorf("row %v", r)
			}
		},
	},

	// --- ADD/DROP FOLLOWER|OBSERVER (sheet §7) ---
	{
		name:    "ADD FOLLOWER of a host already in the group, whatever the port (sheet §7)",
		stmt:    `ALTER SYSTEM ADD FOLLOWER "fe-0:9011"`,
		wantErr: "FE with the same host: fe-0 already exists",
	},
	{
		name:    "DROP FOLLOWER of the leader itself (sheet §7)",
		stmt:    `ALTER SYSTEM DROP FOLLOWER "fe-0:9010"`,
		wantErr: "can not drop current master node.",
	},
	{
		name:    "DROP FOLLOWER of an unknown FE (sheet §7)",
		stmt:    `ALTER SYSTEM DROP FOLLOWER "fe-9:9010"`,
		wantErr: "frontend does not exist[fe-9:9010]",
	},
	{
		name:    "DROP OBSERVER of a FOLLOWER: <ROLE> does not exist (sheet §7)",
		setup:   execs(`ALTER SYSTEM ADD FOLLOWER "fe-1:9010"`),
		stmt:    `ALTER SYSTEM DROP OBSERVER "fe-1:9010"`,
		wantErr: "OBSERVER does not exist[fe-1:9010]",
	},
	{
		name:  "DROP FOLLOWER removes the row (sheet §7)",
		setup: execs(`ALTER SYSTEM ADD FOLLOWER "fe-1:9010"`, `ALTER SYSTEM DROP FOLLOWER "fe-1:9010"`),
		stmt:  "SHOW FRONTENDS", wantCols: frontendCols, check: wantRows(1),
	},
	{
		name:    "ADD FOLLOWER takes one string only (sheet §7); the FE then expects the statement's end",
		stmt:    `ALTER SYSTEM ADD FOLLOWER "fe-1:9010", "fe-2:9010"`,
		wantErr: "Getting syntax error at line 1, column 37. Detail message: Unexpected input ',', the most similar input is {<EOF>, ';'}.",
	},
	{
		name:    "a FOLLOWER's host:port is validated as FRONTEND (AlterSystemStmtAnalyzer, ParserErrorMsg.invalidHostOrPort)",
		stmt:    `ALTER SYSTEM ADD FOLLOWER "fe-1"`,
		wantErr: "Getting analyzing error. Detail message: FRONTEND host or port is wrong. Invalid host port: fe-1.",
	},

	// --- SHOW BACKENDS (sheet §3) ---
	{name: "SHOW BACKENDS 3.1: 23 columns (sheet §3)", opts: simstarrocks.Options{Version: "3.1"}, stmt: "SHOW BACKENDS", wantCols: backendCols31},
	{name: "SHOW BACKENDS 3.2: @226b3c7c, lower-case location (sheet §3)", opts: simstarrocks.Options{Version: "3.2"}, stmt: "SHOW BACKENDS", wantCols: backendCols32},
	{name: "SHOW BACKENDS 3.2 shared-data: + StarletPort, WorkerId (sheet §3 @226b3c7c)", opts: simstarrocks.Options{Version: "3.2", SharedData: true}, stmt: "SHOW BACKENDS", wantCols: append(slices.Clone(backendCols32), "StarletPort", "WorkerId")},
	{name: "SHOW BACKENDS 3.3: 29 columns (sheet §3, real 3.3.10 output)", stmt: "SHOW BACKENDS", wantCols: backendCols33},
	{name: "SHOW BACKENDS 3.3 shared-data: + StarletPort, WorkerId (inferred from @226b3c7c)", opts: simstarrocks.Options{SharedData: true}, stmt: "SHOW BACKENDS", wantCols: append(slices.Clone(backendCols33), "StarletPort", "WorkerId")},
	{name: "SHOW BACKENDS 3.5: 30 columns, StatusCode (sheet §3)", opts: v35, stmt: "SHOW BACKENDS", wantCols: backendCols35},
	{name: "SHOW PROC '/backends' is SHOW BACKENDS", stmt: "SHOW PROC '/backends'", setup: oneBackend, wantCols: backendCols33, check: wantRows(1)},
	{name: "SHOW PROC '/backends/' (a directory, ProcService.open)", stmt: "SHOW PROC '/backends/'", wantCols: backendCols33},
	{
		name:  "a new BE: Alive=false, ports -1, times NULL, no version, CONNECTING (sheet §1; ComputeNode @0139a862)",
		opts:  v35,
		setup: execs(`ALTER SYSTEM ADD BACKEND "be-0:9050"`),
		stmt:  "SHOW BACKENDS", wantCols: backendCols35,
		check: func(t *testing.T, cols []string, rows [][]string) {
			r := byName(cols, rows[0])
			want := map[string]string{
				"BackendId": "10001", "IP": "be-0", "HeartbeatPort": "9050", "BePort": "-1", "HttpPort": "-1", "BrpcPort": "-1",
				"LastStartTime": "NULL", "LastHeartbeat": "NULL", "Alive": "false", "SystemDecommissioned": "false",
				"ClusterDecommissioned": "false", "TabletNum": "0", "DataUsedCapacity": "0.000 B", "AvailCapacity": "0.000 B",
				"TotalCapacity": "0.000 B", "UsedPct": "0.00 %", "MaxDiskUsedPct": "0.00 %", "ErrMsg": "", "Version": "",
				"DataTotalCapacity": "0.000 B", "DataUsedPct": "0.00 %", "CpuCores": "0", "MemLimit": "0.000B",
				"NumRunningQueries": "0", "MemUsedPct": "0.00 %", "CpuUsedPct": "0.0 %", "DataCacheMetrics": "N/A",
				"Location": "", "StatusCode": "CONNECTING",
			}
			for k, v := range want {
				if r[k] != v {
					t.Errorf("%s = %q, want %q", k, r[k], v)
				}
			}
		},
	},
	{
		name: "an alive BE: heartbeat ports 9060/8040/8060, OK; capacities '76.209 GB', percentages '58.19 %' (sheet §1, §3)",
		opts: v35,
		setup: func(t *testing.T, s *simstarrocks.StarRocks, db *sql.DB) {
			withBackends(t, s, db, 1)
			s.SetCapacity("be-0", 9050, 81828003430, 4181, 10000)
		},
		stmt: "SHOW BACKENDS", wantCols: backendCols35,
		check: func(t *testing.T, cols []string, rows [][]string) {
			r := byName(cols, rows[0])
			want := map[string]string{"BePort": "9060", "HttpPort": "8040", "BrpcPort": "8060", "Alive": "true", "StatusCode": "OK",
				"DataUsedCapacity": "76.208 GB", "AvailCapacity": "4.083 KB", "TotalCapacity": "9.766 KB", "UsedPct": "58.19 %"}
			for k, v := range want {
				if r[k] != v {
					t.Errorf("%s = %q, want %q", k, r[k], v)
				}
			}
			if r["LastStartTime"] == "NULL" || !strings.HasPrefix(r["Status"], `{"lastSuccessReportTabletsTime":"`) {
				t.Errorf("row %v", r)
			}
		},
	},
	{
		name:  "rows sorted by (IP, BePort) (sheet §3; ListComparator(1, 3))",
		setup: execs(`ALTER SYSTEM ADD BACKEND "be-b:9050", "be-a:9051", "be-a:9050"`),
		stmt:  "SHOW BACKENDS", wantCols: backendCols33,
		check: func(t *testing.T, cols []string, rows [][]string) {
			var got []string
			for _, r := range rows {
				m := byName(cols, r)
				got = append(got, m["IP"]+":"+m["HeartbeatPort"])
			}
			// BePort is -1 for all three: IP decides; ties keep the simulation's
			// insertion order (the FE's: its id map's).
			if want := []string{"be-a:9051", "be-a:9050", "be-b:9050"}; !slices.Equal(got, want) {
				t.Errorf("order %v, want %v", got, want)
			}
		},
	},

	// --- ADD / DROP BACKEND (sheet §1, §6) ---
	{
		name:    "ADD BACKEND of an existing BE (sheet §1 checkSameNodeExist)",
		setup:   oneBackend,
		stmt:    `ALTER SYSTEM ADD BACKEND "be-0:9050"`,
		wantErr: "Backend already exists with same host be-0 and port 9050",
	},
	{
		name:    "ADD BACKEND on a CN's host:port: BE and CN share the space (sheet §1)",
		setup:   execs(`ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050"`),
		stmt:    `ALTER SYSTEM ADD BACKEND "cn-0:9050"`,
		wantErr: "Compute node already exists with same host cn-0 and port 9050",
	},
	{
		name:    "ADD BACKEND without a port (validateHostAndPort via invalidHostOrPort)",
		stmt:    `ALTER SYSTEM ADD BACKEND "be-0"`,
		wantErr: "Getting analyzing error. Detail message: BACKEND host or port is wrong. Invalid host port: be-0.",
	},
	{
		name:    "ADD BACKEND with a port out of range (sheet §0 'Port is out of range: N')",
		stmt:    `ALTER SYSTEM ADD BACKEND "be-0:70000"`,
		wantErr: "Getting analyzing error. Detail message: BACKEND host or port is wrong. Encounter unknown exception: Port is out of range: 70000.",
	},
	{
		name:    "ADD BACKEND unquoted: the grammar wants a string (sheet §0; StarRocksDefaultErrorStrategy)",
		stmt:    "ALTER SYSTEM ADD BACKEND be-0:9050",
		wantErr: "Getting syntax error at line 1, column 25. Detail message: Unexpected input 'be', the most similar input is {DOUBLE_QUOTED_TEXT, SINGLE_QUOTED_TEXT}.",
	},
	{
		name:    "DROP BACKEND of an unknown BE: lower case, 'exists' (sheet §6)",
		stmt:    `ALTER SYSTEM DROP BACKEND "be-9:9050"`,
		wantErr: "backend does not exists[be-9:9050]",
	},
	{
		name:  "DROP BACKEND holding a replication_num = 1 tablet, without FORCE (sheet §6, trailing space)",
		setup: steps(oneBackend, table("db1", "t1", 1, 2)),
		stmt:  `ALTER SYSTEM DROP BACKEND "be-0:9050"`,
		wantErr: "Tables such as [db1.t1] on the backend[be-0:9050] have only one replica. To avoid data loss, please change the " +
			"replication_num of [db1.t1] to three. ALTER SYSTEM DROP BACKEND <backends> FORCE can be used to forcibly drop the backend. ",
	},
	{
		name:  "DROP BACKEND ... FORCE drops it at once (sheet §6)",
		setup: steps(oneBackend, table("db1", "t1", 1, 2), execs(`ALTER SYSTEM DROP BACKEND 'be-0:9050' FORCE`)),
		stmt:  "SHOW BACKENDS", wantCols: backendCols33, check: wantRows(0),
	},

	// --- DECOMMISSION / CANCEL (sheet §5) ---
	{
		name:    "DECOMMISSION of an unknown BE (sheet §5 check 1)",
		stmt:    `ALTER SYSTEM DECOMMISSION BACKEND "be-9:9050"`,
		wantErr: "Backend does not exist[be-9:9050]",
	},
	{
		name: "DECOMMISSION that would not fit the data (sheet §5 check 2)",
		setup: func(t *testing.T, s *simstarrocks.StarRocks, db *sql.DB) {
			withBackends(t, s, db, 2)
			s.SetCapacity("be-0", 9050, 1000, 1000, 2000)
			s.SetCapacity("be-1", 9050, 1000, 500, 1500)
		},
		stmt:    `ALTER SYSTEM DECOMMISSION BACKEND "be-0:9050"`,
		wantErr: "It will cause insufficient disk space if these BEs are decommissioned.",
	},
	{
		name:    "DECOMMISSION below a table's replication number names <db>.<table> and N (sheet §5 check 2)",
		setup:   steps(threeBackends, table("db1", "t3", 3, 1)),
		stmt:    `ALTER SYSTEM DECOMMISSION BACKEND "be-0:9050"`,
		wantErr: "It will cause insufficient BE number if these BEs are decommissioned because the table db1.t3 requires 3 replicas.",
	},
	{
		name:  "DECOMMISSION in shared-data skips the checks (sheet §5 step 3)",
		opts:  simstarrocks.Options{SharedData: true, KeepDrainedBackends: true},
		setup: steps(threeBackends, table("db1", "t3", 3, 1), execs(`ALTER SYSTEM DECOMMISSION BACKEND "be-0:9050"`)),
		stmt:  "SHOW BACKENDS",
		check: func(t *testing.T, cols []string, rows [][]string) {
			if r := rowOf(t, cols, rows, "IP", "be-0"); r["SystemDecommissioned"] != "true" || r["TabletNum"] != "0" {
				t.Errorf("row %v", r)
			}
		},
	},
	{
		name:  "DECOMMISSION of an already decommissioned BE is skipped, OK (sheet §5 check 1)",
		opts:  simstarrocks.Options{KeepDrainedBackends: true},
		setup: steps(threeBackends, execs(`ALTER SYSTEM DECOMMISSION BACKEND "be-0:9050"`)),
		stmt:  `ALTER SYSTEM DECOMMISSION BACKEND "be-0:9050"`,
	},
	{
		name:    "CANCEL DECOMMISSION of an unknown BE, 3.3: host only (SystemHandler.cancel @00f64430)",
		stmt:    `CANCEL DECOMMISSION BACKEND "be-9:9050"`,
		wantErr: "Backend does not exists[be-9]",
	},
	{
		name:    "CANCEL DECOMMISSION of an unknown BE, 3.5: host:port (sheet §5, newest)",
		opts:    v35,
		stmt:    `CANCEL DECOMMISSION BACKEND "be-9:9050"`,
		wantErr: "Backend does not exist[be-9:9050]",
	},
	{
		name:  "CANCEL DECOMMISSION of a BE not decommissioned is OK (sheet §5)",
		setup: oneBackend,
		stmt:  `CANCEL DECOMMISSION BACKEND "be-0:9050"`,
	},
	{
		name:    "CANCEL DECOMMISSION's host:port is reported as FRONTEND (sheet §0)",
		stmt:    `CANCEL DECOMMISSION BACKEND "be-0"`,
		wantErr: "Getting analyzing error. Detail message: FRONTEND host or port is wrong. Invalid host port: be-0.",
	},

	// --- SHOW COMPUTE NODES, ADD/DROP COMPUTE NODE (sheet §4, §8) ---
	{name: "SHOW COMPUTE NODES shared-nothing: no WarehouseName (sheet §4)", stmt: "SHOW COMPUTE NODES", wantCols: cnCols},
	{name: "SHOW COMPUTE NODES 3.2 shared-data: + StarletPort, WorkerId (sheet §4)", opts: simstarrocks.Options{Version: "3.2", SharedData: true}, stmt: "SHOW COMPUTE NODES", wantCols: append(slices.Clone(cnCols), "StarletPort", "WorkerId")},
	{
		name:  "SHOW COMPUTE NODES 3.3 shared-data: + StarletPort, WorkerId, WarehouseName, TabletNum (sheet §4)",
		opts:  simstarrocks.Options{SharedData: true},
		setup: addCN(`ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050"`, "cn-0"),
		stmt:  "SHOW COMPUTE NODES", wantCols: append(slices.Clone(cnCols), "StarletPort", "WorkerId", "WarehouseName", "TabletNum"),
		check: func(t *testing.T, cols []string, rows [][]string) {
			r := byName(cols, rows[0])
			if r["IP"] != "cn-0" || r["HeartbeatPort"] != "9050" || r["Alive"] != "true" || r["WarehouseName"] != "default_warehouse" {
				t.Errorf("row %v", r)
			}
		},
	},
	{name: "SHOW PROC '/compute_nodes' is SHOW COMPUTE NODES (ProcService registers compute_nodes)", stmt: "SHOW PROC '/compute_nodes'", wantCols: cnCols},
	{
		name:    "ADD COMPUTE NODE INTO an unknown warehouse on an open-source 3.3 (sheet §8: only default_warehouse exists)",
		stmt:    `ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050" INTO WAREHOUSE wh_1`,
		wantErr: "Warehouse name: wh_1 not exist.",
	},
	{
		name:    "ADD COMPUTE NODE INTO WAREHOUSE does not parse on 3.2 (sheet §8 grammar ≤3.2)",
		opts:    simstarrocks.Options{Version: "3.2"},
		stmt:    `ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050" INTO WAREHOUSE wh_1`,
		wantErr: "Getting syntax error at line 1, column 42. Detail message: Unexpected input 'INTO', the most similar input is {<EOF>, ',', ';'}.",
	},
	{
		name:    "ADD COMPUTE NODE twice (sheet §1)",
		setup:   execs(`ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050"`),
		stmt:    `ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050"`,
		wantErr: "Compute node already exists with same host cn-0 and port 9050",
	},
	{
		name:    "DROP COMPUTE NODE of an unknown CN (sheet §8)",
		stmt:    `ALTER SYSTEM DROP COMPUTE NODE "cn-9:9050"`,
		wantErr: "compute node does not exists[cn-9:9050]",
	},
	{
		name:    "DROP COMPUTE NODE FROM an unknown warehouse (sheet §8)",
		setup:   execs(`ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050"`),
		stmt:    `ALTER SYSTEM DROP COMPUTE NODE "cn-0:9050" FROM WAREHOUSE nope`,
		wantErr: "Warehouse name: nope not exist.",
	},
	{
		name:    "a bare DROP COMPUTE NODE of a CN in another warehouse (sheet §8)",
		opts:    simstarrocks.Options{MultiWarehouse: true, SharedData: true},
		setup:   execs("CREATE WAREHOUSE IF NOT EXISTS wh_1", `ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050" INTO WAREHOUSE wh_1`),
		stmt:    `ALTER SYSTEM DROP COMPUTE NODE "cn-0:9050"`,
		wantErr: "compute node [cn-0:9050] does not exist in warehouse default_warehouse",
	},
	{
		name:  "DROP COMPUTE NODE ... FROM WAREHOUSE of its warehouse drops it (sheet §8, the upstream operator's statement)",
		opts:  simstarrocks.Options{MultiWarehouse: true, SharedData: true},
		setup: execs("CREATE WAREHOUSE IF NOT EXISTS wh_1", `ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050" INTO WAREHOUSE wh_1`, `ALTER SYSTEM DROP COMPUTE NODE "cn-0:9050" FROM WAREHOUSE wh_1`),
		stmt:  "SHOW COMPUTE NODES", check: wantRows(0),
	},

	// --- CREATE / DROP WAREHOUSE (sheet §13) ---
	{name: "CREATE WAREHOUSE on open source (WarehouseManager)", stmt: "CREATE WAREHOUSE wh_1", wantErr: "Multi-Warehouse is not implemented"},
	{name: "CREATE WAREHOUSE IF NOT EXISTS on open source: the same (WarehouseManager throws whatever the clause)", stmt: "CREATE WAREHOUSE IF NOT EXISTS wh_1;", wantErr: "Multi-Warehouse is not implemented"},
	{name: "DROP WAREHOUSE on open source (WarehouseManager)", stmt: "DROP WAREHOUSE `wh_1`", wantErr: "Multi-Warehouse is not implemented"},
	{name: "DROP WAREHOUSE IF EXISTS on open source: the same", stmt: "DROP WAREHOUSE IF EXISTS wh_1", wantErr: "Multi-Warehouse is not implemented"},
	{name: "DROP WAREHOUSE default_warehouse (WarehouseAnalyzer @039e00c8)", stmt: "DROP WAREHOUSE default_warehouse", wantErr: "Getting analyzing error. Detail message: Can't drop the default_warehouse."},
	{name: "CREATE WAREHOUSE with a bad name (FeNameFormat.checkWarehouseName)", opts: simstarrocks.Options{MultiWarehouse: true}, stmt: "CREATE WAREHOUSE 'wh-1'", wantErr: "Getting analyzing error. Detail message: Incorrect warehouse name 'wh-1'."},
	{name: "DROP WAREHOUSE of an unknown one, multi-warehouse (sheet §13, indicative)", opts: simstarrocks.Options{MultiWarehouse: true}, stmt: "DROP WAREHOUSE nope", wantErr: "Warehouse name: nope not exist."},
	{name: "DROP WAREHOUSE IF EXISTS of an unknown one, multi-warehouse: OK", opts: simstarrocks.Options{MultiWarehouse: true}, stmt: "DROP WAREHOUSE IF EXISTS nope"},
	{name: "DROP WAREHOUSE without a name: an identifier is expected (StarRocksDefaultErrorStrategy)", stmt: "DROP WAREHOUSE", wantErr: "Getting syntax error at line 1, column 14. Detail message: Unexpected input '<EOF>', the most similar input is {a legal identifier}."},

	// --- SHOW PROC '/statistic', '/cluster_balance' (sheet §9) ---
	{name: "SHOW PROC '/statistic' with no DB: no rows at all, not even Total (sheet §9)", stmt: "SHOW PROC '/statistic'", wantCols: statisticCols, check: wantRows(0)},
	{
		name:  "SHOW PROC '/statistic': per DB by name, then Total with DbName = the number of DBs (sheet §9)",
		setup: steps(threeBackends, table("zeta", "t", 3, 4), table("alpha", "a", 2, 2), table("alpha", "b", 1, 1)),
		stmt:  "SHOW PROC '/statistic'", wantCols: statisticCols,
		check: func(t *testing.T, cols []string, rows [][]string) {
			if len(rows) != 3 {
				t.Fatalf("rows %v", rows)
			}
			if a := byName(cols, rows[0]); a["DbName"] != "alpha" || a["TableNum"] != "2" || a["TabletNum"] != "3" || a["ReplicaNum"] != "5" {
				t.Errorf("alpha %v", a)
			}
			if z := byName(cols, rows[1]); z["DbName"] != "zeta" || z["ReplicaNum"] != "12" {
				t.Errorf("zeta %v", z)
			}
			tot := byName(cols, rows[2])
			if tot["DbId"] != "Total" || tot["DbName"] != "2" || tot["TabletNum"] != "7" || tot["ReplicaNum"] != "17" || tot["UnhealthyTabletNum"] != "0" {
				t.Errorf("Total %v", tot)
			}
		},
	},
	{
		name:  "shared-data tablets count in TabletNum only, never unhealthy (sheet §9)",
		opts:  simstarrocks.Options{SharedData: true},
		setup: table("db1", "t", 3, 4),
		stmt:  "SHOW PROC '/statistic'", wantCols: statisticCols,
		check: func(t *testing.T, cols []string, rows [][]string) {
			if tot := byName(cols, rows[1]); tot["TabletNum"] != "4" || tot["ReplicaNum"] != "0" || tot["UnhealthyTabletNum"] != "0" {
				t.Errorf("Total %v", tot)
			}
		},
	},
	{
		name: "SHOW PROC '/cluster_balance': Item | Number, rows in order (sheet §9, @161fd09e)",
		stmt: "SHOW PROC '/cluster_balance'", wantCols: []string{"Item", "Number"},
		check: func(t *testing.T, _ []string, rows [][]string) {
			var items []string
			for _, r := range rows {
				items = append(items, r[0])
			}
			if want := []string{"cluster_load_stat", "working_slots", "sched_stat", "priority_repair", "pending_tablets", "running_tablets", "history_tablets"}; !slices.Equal(items, want) {
				t.Errorf("items %v, want %v", items, want)
			}
		},
	},
	{name: "SHOW PROC of an unknown path (ProcService.open)", stmt: "SHOW PROC '/nope'", wantErr: "Cannot find path: /nope"},
	{name: "SHOW PROC of a path not starting with '/' (ProcService.open)", stmt: "SHOW PROC 'backends'", wantErr: "Path(backends) does not start with '/'"},

	// --- anything else (sheet §0) ---
	{
		name: "an unknown statement: the FE's syntax error; the suggestion list is the simulation's (UNVERIFIED)",
		stmt: "INSERT INTO t VALUES (1)", wantErr: "Getting syntax error at line 1, column 0. Detail message: Unexpected input 'INSERT', the most similar input is {", errPrefix: true,
	},
	{
		name: "a SELECT other than the cluster snapshot views and partitions_meta: the simulation says it is not simulated",
		stmt: "SELECT 1", wantErr: "simstarrocks: only SELECT * FROM information_schema.cluster_snapshots or cluster_snapshot_jobs, and SELECT columns FROM information_schema.partitions_meta, are simulated",
	},
	{
		name:  "partitions_meta of replication_num 1 (PartitionsMetaSystemTable.java): one row per table, the partition named after it; LIMIT bounds it",
		setup: steps(threeBackends, singleReplicaTables), stmt: "SELECT DB_NAME, TABLE_NAME, PARTITION_NAME FROM information_schema.partitions_meta WHERE REPLICATION_NUM = 1 AND DB_NAME != '_statistics_' LIMIT 2",
		wantCols: []string{"DB_NAME", "TABLE_NAME", "PARTITION_NAME"},
		check: func(t *testing.T, _ []string, rows [][]string) {
			if want := [][]string{{"db", "one"}, {"db", "other"}}; len(rows) != 2 || rows[0][1] != want[0][1] || rows[1][1] != want[1][1] || rows[0][2] != "one" {
				t.Errorf("rows %v, want db.one and db.other (not db.two: 2 replicas), at most 2", rows)
			}
		},
	},
	{
		name: "partitions_meta: DB_NAME <> leaves a database out; one BE makes _statistics_ at 1 replica (sheet §14)",
		setup: steps(oneBackend, func(t *testing.T, s *simstarrocks.StarRocks, _ *sql.DB) {
			if err := s.CreateTable("db", "one", 1, 2); err != nil {
				t.Fatal(err)
			}
		}), stmt: "SELECT DB_NAME, REPLICATION_NUM FROM information_schema.partitions_meta WHERE DB_NAME <> '_statistics_'",
		check: func(t *testing.T, _ []string, rows [][]string) {
			if len(rows) != 1 || rows[0][0] != "db" || rows[0][1] != "1" {
				t.Errorf("rows %v, want db's one table alone", rows)
			}
		},
	},
	{
		name: "partitions_meta: a column the simulation does not have is said so",
		stmt: "SELECT STORAGE_PATH FROM information_schema.partitions_meta", wantErr: "simstarrocks: partitions_meta column STORAGE_PATH is not simulated",
	},
	{
		name: "DROP WAREHOUSE of a number: digits lex as INTEGER_VALUE, not an identifier",
		stmt: "DROP WAREHOUSE 123", wantErr: "Getting syntax error at line 1, column 15. Detail message: Unexpected input '123', the most similar input is {a legal identifier}.",
	},
	{
		name: "two statements in one query: the simulation says it runs one",
		stmt: "SHOW BACKENDS; SHOW FRONTENDS", wantErr: "simstarrocks: one statement per query is simulated",
	},
	{
		name: "comments are skipped (StarRocksLex.g4 hidden channel)",
		stmt: "/* probe */ SHOW BACKENDS -- the BEs", wantCols: backendCols33,
	},
	{
		name: "DROPP BACKEND is a syntax error on 3.x (sheet §6)",
		stmt: `ALTER SYSTEM DROPP BACKEND "be-0:9050"`, wantErr: "Getting syntax error at line 1, column 13. Detail message: Unexpected input 'DROPP', the most similar input is {", errPrefix: true,
	},
}

// Every statement, column list and error text against the sheet or the
// source named beside it.
func TestStatements(t *testing.T) {
	for _, tc := range statementCases {
		t.Run(tc.name, func(t *testing.T) {
			s, db := started(t, tc.opts)
			if tc.setup != nil {
				tc.setup(t, s, db)
			}
			cols, rows, err := query(db, tc.stmt)
			if tc.wantErr != "" {
				me := mysqlError(err)
				if me == nil {
					t.Fatalf("%s: got %v (rows %v), want ERROR %q", tc.stmt, err, rows, tc.wantErr)
				}
				code, state := tc.code, tc.state
				if code == 0 {
					code, state = 1064, "HY000"
				}
				if me.Number != code || string(me.SQLState[:]) != state {
					t.Errorf("code %d (%s), want %d (%s)", me.Number, me.SQLState, code, state)
				}
				if tc.errPrefix && !strings.HasPrefix(me.Message, tc.wantErr) || !tc.errPrefix && me.Message != tc.wantErr {
					t.Errorf("message\n%q\nwant\n%q", me.Message, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.stmt, err)
			}
			if tc.wantCols != nil && !slices.Equal(cols, tc.wantCols) {
				t.Errorf("columns (%d)\n%v\nwant (%d)\n%v", len(cols), cols, len(tc.wantCols), tc.wantCols)
			}
			for _, r := range rows {
				if len(r) != len(cols) {
					t.Errorf("row of %d values for %d columns: %v", len(r), len(cols), r)
				}
			}
			if tc.check != nil {
				tc.check(t, cols, rows)
			}
		})
	}
}
