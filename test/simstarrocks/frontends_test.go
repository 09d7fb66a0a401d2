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
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	clocktesting "k8s.io/utils/clock/testing"

	"errors"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// connectTo is a client of one address (the Service's or one FE's) that
// makes a new connection for every statement, as the operator's short-lived
// reads and the entrypoints' mysql runs do.
func connectTo(t *testing.T, addr string) *sql.DB {
	t.Helper()
	return connectWith(t, addr, nil)
}

// connectWith is connectTo with session variables, set on every connection
// (the driver sends SET name=value after the handshake).
func connectWith(t *testing.T, addr string, vars map[string]string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", addr, "root"
	cfg.Params = vars
	cfg.Timeout, cfg.ReadTimeout = 2*time.Second, 5*time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxIdleConns(0)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// threeFEs is fe-0 (leader), fe-1 and fe-2 (followers, started), with the
// fake clock past the followers' lag so that they have replayed the group.
func threeFEs(t *testing.T, lag time.Duration) (*simstarrocks.StarRocks, *clocktesting.FakePassiveClock) {
	t.Helper()
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	s := simstarrocks.Start(t, simstarrocks.Options{FollowerLag: lag, Clock: clk})
	s.BootstrapFrontend("fe-0", 9010)
	leader := connectTo(t, s.AddressOf("fe-0"))
	for _, h := range []string{"fe-1", "fe-2"} {
		mustExec(t, leader, `ALTER SYSTEM ADD FOLLOWER "`+h+`:9010"`)
		if err := s.StartFrontend(h, 9010); err != nil {
			t.Fatal(err)
		}
	}
	clk.SetTime(clk.Now().Add(2 * lag))
	return s, clk
}

// twoBackendsWithTablets adds be-0 and be-1, alive, and a table of 4
// single-replica tablets spread over them (so a decommission of be-1 has
// tablets to move while the clock stands), then moves the clock 10 s on.
func twoBackendsWithTablets(t *testing.T, s *simstarrocks.StarRocks, clk *clocktesting.FakePassiveClock, leader *sql.DB) {
	t.Helper()
	mustExec(t, leader, `ALTER SYSTEM ADD BACKEND "be-0:9050"`)
	mustExec(t, leader, `ALTER SYSTEM ADD BACKEND "be-1:9050"`)
	s.SetAlive("be-0", true)
	s.SetAlive("be-1", true)
	if err := s.CreateTable("db1", "t1", 1, 4); err != nil {
		t.Fatal(err)
	}
	clk.SetTime(clk.Now().Add(10 * time.Second))
}

func hosts(t *testing.T, db *sql.DB, stmt string) map[string]map[string]string {
	t.Helper()
	cols, rows := mustQuery(t, db, stmt)
	out := map[string]map[string]string{}
	for _, r := range rows {
		m := byName(cols, r)
		out[m["IP"]] = m
	}
	return out
}

// Which FE answers (sheet §14; FrontendsProcNode @161fd09e; follower replay,
// GlobalStateMgr @1b3e93d7; forwarding, LeaderOpExecutor @025b93e8).
func TestFollowerViews(t *testing.T) {
	t.Run("a lagging follower answers SHOW PROC '/frontends' without the FE added 2 s ago, with its own row alive at its own journal id; SHOW FRONTENDS it forwards", func(t *testing.T) {
		s, clk := threeFEs(t, 5*time.Second)
		leader, follower := connectTo(t, s.AddressOf("fe-0")), connectTo(t, s.AddressOf("fe-1"))
		mustExec(t, leader, `ALTER SYSTEM ADD OBSERVER "fe-3:9010"`)
		clk.SetTime(clk.Now().Add(2 * time.Second))

		onLeader := hosts(t, leader, "SHOW PROC '/frontends'")
		if onLeader["fe-3"] == nil {
			t.Fatalf("control: the leader does not list the FE it added: %v", onLeader)
		}
		onFollower := hosts(t, follower, "SHOW PROC '/frontends'")
		if onFollower["fe-3"] != nil {
			t.Errorf("a follower 5 s behind lists the FE added 2 s ago: %v", onFollower["fe-3"])
		}
		self := onFollower["fe-1"]
		if self["Alive"] != "true" || self["Role"] != "FOLLOWER" {
			t.Errorf("the follower's own row: %v", self)
		}
		leaderJournal, _ := strconv.Atoi(onLeader["fe-0"]["ReplayedJournalId"])
		ownJournal, _ := strconv.Atoi(self["ReplayedJournalId"])
		if ownJournal >= leaderJournal {
			t.Errorf("the follower's own journal id %d, the leader's %d: it should trail", ownJournal, leaderJournal)
		}
		// SHOW FRONTENDS is FORWARD_NO_SYNC (ShowFrontendsStmt), and so is
		// SHOW PROC with forward_to_leader: the leader answers at once.
		if hosts(t, follower, "SHOW FRONTENDS")["fe-3"] == nil {
			t.Error("SHOW FRONTENDS through the follower is not the leader's answer")
		}
		forwarding := connectWith(t, s.AddressOf("fe-1"), map[string]string{"forward_to_leader": "true"})
		if hosts(t, forwarding, "SHOW PROC '/frontends'")["fe-3"] == nil {
			t.Error("SHOW PROC '/frontends' with forward_to_leader through the follower is not the leader's answer")
		}

		clk.SetTime(clk.Now().Add(4 * time.Second))
		if hosts(t, follower, "SHOW PROC '/frontends'")["fe-3"] == nil {
			t.Errorf("6 s later the follower 5 s behind still lacks fe-3")
		}
	})

	t.Run("a follower's SHOW PROC '/statistic' sees a decommission only after its lag; SHOW BACKENDS, forwarded, at once", func(t *testing.T) {
		s, clk := threeFEs(t, 5*time.Second)
		leader, f1, f2 := connectTo(t, s.AddressOf("fe-0")), connectTo(t, s.AddressOf("fe-1")), connectTo(t, s.AddressOf("fe-2"))
		twoBackendsWithTablets(t, s, clk, leader)
		unhealthy := func(db *sql.DB) string {
			t.Helper()
			cols, rows := mustQuery(t, db, "SHOW PROC '/statistic'")
			return byName(cols, rows[len(rows)-1])["UnhealthyTabletNum"]
		}

		// Forwarded by fe-1: run on the leader, replayed by fe-1 before it answers.
		mustExec(t, f1, `ALTER SYSTEM DECOMMISSION BACKEND "be-1:9050"`)
		if got := hosts(t, leader, "SHOW BACKENDS")["be-1"]["SystemDecommissioned"]; got != "true" {
			t.Fatalf("the forwarded DECOMMISSION did not run on the leader: %q", got)
		}
		if got := hosts(t, f2, "SHOW BACKENDS")["be-1"]["SystemDecommissioned"]; got != "true" {
			t.Errorf("SHOW BACKENDS through fe-2, 5 s behind, is not the leader's answer: %q", got)
		}
		onLeader := unhealthy(leader)
		if onLeader == "0" || unhealthy(f1) != onLeader {
			t.Errorf("unhealthy tablets on the leader %s, on fe-1 which forwarded the DECOMMISSION %s: want the same, above 0", onLeader, unhealthy(f1))
		}
		if got := unhealthy(f2); got != "0" {
			t.Errorf("fe-2, 5 s behind, counts %s unhealthy tablets a moment after the DECOMMISSION, want 0", got)
		}
		forwarding := connectWith(t, s.AddressOf("fe-2"), map[string]string{"forward_to_leader": "true"})
		if got := unhealthy(forwarding); got != onLeader {
			t.Errorf("fe-2 with forward_to_leader counts %s unhealthy tablets, the leader %s", got, onLeader)
		}
	})

	t.Run("a zombie FE (dropped while running) answers its stale view and fails forwarded DDL, StarRocks #78195", func(t *testing.T) {
		s, clk := threeFEs(t, time.Second)
		leader, zombie, follower := connectTo(t, s.AddressOf("fe-0")), connectTo(t, s.AddressOf("fe-1")), connectTo(t, s.AddressOf("fe-2"))
		mustExec(t, leader, `ALTER SYSTEM DROP FOLLOWER "fe-1:9010"`)
		if !s.Zombie("fe-1") {
			t.Fatal("fe-1 dropped while running is no zombie")
		}
		clk.SetTime(clk.Now().Add(time.Hour))

		if hosts(t, leader, "SHOW FRONTENDS")["fe-1"] != nil {
			t.Error("the leader still lists the dropped FE")
		}
		if hosts(t, follower, "SHOW PROC '/frontends'")["fe-1"] != nil {
			t.Error("control: a follower an hour later still lists the dropped FE")
		}
		if hosts(t, zombie, "SHOW PROC '/frontends'")["fe-1"] == nil {
			t.Error("the zombie, an hour later, does not list itself: it never learns it was dropped")
		}
		// What it forwards fails, reads included (SHOW FRONTENDS is FORWARD_NO_SYNC).
		if _, _, err := query(zombie, "SHOW FRONTENDS"); mysqlError(err) == nil || mysqlError(err).Message != "Internal error processing forward" {
			t.Errorf("SHOW FRONTENDS through the zombie: %v, want Internal error processing forward", err)
		}
		_, _, err := query(zombie, `ALTER SYSTEM ADD BACKEND "be-9:9050"`)
		if me := mysqlError(err); me == nil || me.Number != 1064 || me.Message != "Internal error processing forward" {
			t.Errorf("DDL through the zombie: %v, want 1064 Internal error processing forward", err)
		}
		mustExec(t, follower, `ALTER SYSTEM ADD BACKEND "be-8:9050"`)
		if hosts(t, leader, "SHOW BACKENDS")["be-8"] == nil || hosts(t, leader, "SHOW BACKENDS")["be-9"] != nil {
			t.Error("control: a follower's forward runs on the leader, the zombie's does not")
		}

		// The Service still reaches the zombie: one connection in three.
		svc := connectTo(t, s.QueryAddress())
		stale := 0
		for range 3 {
			if hosts(t, svc, "SHOW PROC '/frontends'")["fe-1"] != nil {
				stale++
			}
		}
		if stale != 1 {
			t.Errorf("%d of 3 connections through the Service answered the zombie's view, want 1 (round robin over fe-0, fe-1, fe-2)", stale)
		}
	})

	t.Run("the Service spreads connections over the running FEs; pinned, it reaches one; a stopped FE is refused", func(t *testing.T) {
		s, clk := threeFEs(t, time.Second)
		s.SetFollowerLag("fe-1", time.Hour)
		mustExec(t, connectTo(t, s.AddressOf("fe-0")), `ALTER SYSTEM ADD OBSERVER "fe-9:9010"`)
		clk.SetTime(clk.Now().Add(2 * time.Second)) // fe-2 has replayed it
		svc := connectTo(t, s.QueryAddress())
		missing := func() int {
			n := 0
			for range 6 {
				if hosts(t, svc, "SHOW PROC '/frontends'")["fe-9"] == nil {
					n++
				}
			}
			return n
		}
		if n := missing(); n != 2 {
			t.Errorf("%d of 6 connections lacked fe-9, want 2 (fe-1, an hour behind, one in three)", n)
		}
		s.PinFrontend("fe-1")
		if n := missing(); n != 6 {
			t.Errorf("pinned to fe-1: %d of 6 lacked fe-9, want 6", n)
		}
		s.PinFrontend("")
		s.StopFrontend("fe-1")
		if n := missing(); n != 0 {
			t.Errorf("fe-1 stopped: %d of 6 reached it", n)
		}
		if _, _, err := query(connectTo(t, s.AddressOf("fe-1")), "SHOW FRONTENDS"); err == nil {
			t.Error("a stopped FE's own address answered")
		}
	})
}

// SET takes the session variables the simulation reads, as booleans
// (ON/TRUE/1, OFF/FALSE/0); a variable it does not read is refused as not
// simulated, not ignored.
func TestSetSessionVariables(t *testing.T) {
	s := simstarrocks.Start(t, simstarrocks.Options{})
	db := connectTo(t, s.QueryAddress())
	for _, stmt := range []string{"SET forward_to_leader = true", "SET SESSION forward_to_master = 0", "set forward_to_leader='ON'"} {
		if _, _, err := query(db, stmt); err != nil {
			t.Errorf("%s: %v", stmt, err)
		}
	}
	for stmt, want := range map[string]string{
		"SET forward_to_leader = maybe": "Variable 'forward_to_leader' can't be set to the value of 'maybe'",
		"SET query_timeout = 10":        "simstarrocks: SET query_timeout is not simulated",
	} {
		if _, _, err := query(db, stmt); mysqlError(err) == nil || mysqlError(err).Message != want {
			t.Errorf("%s: %v, want %q", stmt, err, want)
		}
	}
}

// An FE not started with --host_type FQDN resolves a name to its IP on ADD
// (AlterSystemStmtAnalyzer: resolveHost = clause instanceof Add* &&
// !FrontendOptions.isUseFqdn(), sheet §0); with it, the name stays.
func TestHostTypeOfTheLeader(t *testing.T) {
	dns := func(name string) (string, bool) {
		ip, ok := map[string]string{"c-be-0.c-be-search.ns.svc.cluster.local": "10.1.0.7"}[name]
		return ip, ok
	}
	for _, tc := range []struct {
		fqdn bool
		want string
	}{{false, "10.1.0.7"}, {true, "c-be-0.c-be-search.ns.svc.cluster.local"}} {
		s, db := started(t, simstarrocks.Options{})
		s.SetHostType("fe-0", tc.fqdn, dns)
		mustExec(t, db, `ALTER SYSTEM ADD BACKEND "c-be-0.c-be-search.ns.svc.cluster.local:9050"`)
		if b := s.Backends(); len(b) != 1 || b[0].Host != tc.want {
			t.Errorf("--host_type FQDN %t: backends %+v, want the IP column %s", tc.fqdn, b, tc.want)
		}
		_, _, err := query(db, `ALTER SYSTEM ADD BACKEND "nowhere.example:9050"`)
		if me := mysqlError(err); tc.fqdn != (me == nil) {
			t.Errorf("--host_type FQDN %t: ADD of a name no DNS knows: %v", tc.fqdn, err)
		}
	}
}

// One read of the operator is one connection: through the Service, a
// dropped FE still running (whose forwards fail) fails the read that
// reaches it, and the next read reaches another FE (round robin here; at
// random behind kube-proxy). With a connection per statement every read of
// four statements over four FEs would reach it.
func TestAReadIsOneConnection(t *testing.T) {
	s, _ := threeFEs(t, time.Second)
	leader := connectTo(t, s.AddressOf("fe-0"))
	mustExec(t, leader, `ALTER SYSTEM ADD FOLLOWER "fe-3:9010"`)
	if err := s.StartFrontend("fe-3", 9010); err != nil {
		t.Fatal(err)
	}
	mustExec(t, leader, `ALTER SYSTEM DROP FOLLOWER "fe-3:9010"`)
	if !s.Zombie("fe-3") {
		t.Fatal("fe-3 dropped while running is no zombie")
	}
	client := &fe.Client{Address: s.QueryAddress(), User: "root", Attempts: 1}
	answered := 0
	for range 8 {
		if _, errs := client.ReadView(t.Context()); errors.Join(errs[:]...) == nil {
			answered++
		}
	}
	if answered != 6 {
		t.Errorf("%d of 8 reads through the Service answered, want 6 (the zombie reached by one in four)", answered)
	}
}

// The operator's FE client reads what it decides on from the leader, even
// through a lagging follower: SHOW FRONTENDS and SHOW BACKENDS FE forwards
// itself, and SHOW PROC '/statistic' with forward_to_leader. The control is
// the same statements without it, through the same follower.
func TestTheOperatorsReadsAreTheLeaders(t *testing.T) {
	s, clk := threeFEs(t, 5*time.Second)
	leader := connectTo(t, s.AddressOf("fe-0"))
	twoBackendsWithTablets(t, s, clk, leader)
	mustExec(t, leader, `ALTER SYSTEM DECOMMISSION BACKEND "be-1:9050"`)
	mustExec(t, leader, `ALTER SYSTEM DROP FOLLOWER "fe-2:9010"`)

	client := &fe.Client{Address: s.AddressOf("fe-1"), User: "root"}
	st, err := client.TabletStatistic(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cols, rows := mustQuery(t, leader, fe.StatisticSQL)
	onLeader, _ := strconv.Atoi(byName(cols, rows[len(rows)-1])["UnhealthyTabletNum"])
	cols, rows = mustQuery(t, connectTo(t, s.AddressOf("fe-1")), fe.StatisticSQL)
	onFollower, _ := strconv.Atoi(byName(cols, rows[len(rows)-1])["UnhealthyTabletNum"])
	if onLeader == 0 || onFollower != 0 {
		t.Fatalf("control: unhealthy tablets on the leader %d, on fe-1 5 s behind without forward_to_leader %d; want above 0 and 0", onLeader, onFollower)
	}
	if st.UnhealthyTablets != onLeader {
		t.Errorf("the operator's read through fe-1 counts %d unhealthy tablets, the leader %d", st.UnhealthyTablets, onLeader)
	}
	v, errs := client.ReadView(t.Context())
	if errors.Join(errs[:]...) != nil || v.Statistic.UnhealthyTablets != onLeader || len(v.Frontends) != 2 || len(v.Backends) != 2 {
		t.Errorf("the operator's view through fe-1: %+v, %v; want the leader's: %d unhealthy tablets, 2 FEs, 2 BEs", v, errs, onLeader)
	}
	fes, err := client.ShowFrontends(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fes {
		if f.Host == "fe-2" {
			t.Errorf("the operator's read through fe-1 lists fe-2, dropped a moment ago: %+v", f)
		}
	}
	bes, err := client.ShowBackends(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bes {
		if b.Host == "be-1" && !b.Decommissioned {
			t.Errorf("the operator's read through fe-1 shows be-1 not decommissioned: %+v", b)
		}
	}
}
