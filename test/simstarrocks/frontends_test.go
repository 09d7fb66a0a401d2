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

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// connectTo is a client of one address (the Service's or one FE's) that
// makes a new connection for every statement, as the operator's short-lived
// reads and the entrypoints' mysql runs do.
func connectTo(t *testing.T, addr string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", addr, "root"
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
	t.Run("a lagging follower answers SHOW FRONTENDS without the FE added 2 s ago, with its own row alive at its own journal id", func(t *testing.T) {
		s, clk := threeFEs(t, 5*time.Second)
		leader, follower := connectTo(t, s.AddressOf("fe-0")), connectTo(t, s.AddressOf("fe-1"))
		mustExec(t, leader, `ALTER SYSTEM ADD OBSERVER "fe-3:9010"`)
		clk.SetTime(clk.Now().Add(2 * time.Second))

		onLeader := hosts(t, leader, "SHOW FRONTENDS")
		if onLeader["fe-3"] == nil {
			t.Fatalf("control: the leader does not list the FE it added: %v", onLeader)
		}
		onFollower := hosts(t, follower, "SHOW FRONTENDS")
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

		clk.SetTime(clk.Now().Add(4 * time.Second))
		if hosts(t, follower, "SHOW FRONTENDS")["fe-3"] == nil {
			t.Errorf("6 s later the follower 5 s behind still lacks fe-3")
		}
	})

	t.Run("a follower sees a decommission only after its lag; what it forwards it sees at once", func(t *testing.T) {
		s, clk := threeFEs(t, 5*time.Second)
		leader, f1, f2 := connectTo(t, s.AddressOf("fe-0")), connectTo(t, s.AddressOf("fe-1")), connectTo(t, s.AddressOf("fe-2"))
		mustExec(t, leader, `ALTER SYSTEM ADD BACKEND "be-0:9050"`)
		mustExec(t, leader, `ALTER SYSTEM ADD BACKEND "be-1:9050"`)
		s.SetAlive("be-0", true)
		s.SetAlive("be-1", true)
		// Tablets on be-1 keep it decommissioning while the clock stands.
		if err := s.CreateTable("db1", "t1", 1, 4); err != nil {
			t.Fatal(err)
		}
		clk.SetTime(clk.Now().Add(10 * time.Second))

		// Forwarded by fe-1: run on the leader, replayed by fe-1 before it answers.
		mustExec(t, f1, `ALTER SYSTEM DECOMMISSION BACKEND "be-1:9050"`)
		if got := hosts(t, leader, "SHOW BACKENDS")["be-1"]["SystemDecommissioned"]; got != "true" {
			t.Fatalf("the forwarded DECOMMISSION did not run on the leader: %q", got)
		}
		if got := hosts(t, f1, "SHOW BACKENDS")["be-1"]["SystemDecommissioned"]; got != "true" {
			t.Errorf("fe-1 does not see the DECOMMISSION it forwarded: %q", got)
		}
		if got := hosts(t, f2, "SHOW BACKENDS")["be-1"]["SystemDecommissioned"]; got != "false" {
			t.Errorf("fe-2, 5 s behind, sees the DECOMMISSION of a moment ago: %q", got)
		}
		clk.SetTime(clk.Now().Add(6 * time.Second))
		if got := hosts(t, f2, "SHOW BACKENDS")["be-1"]; got != nil && got["SystemDecommissioned"] != "true" {
			t.Errorf("fe-2 6 s later: %v", got)
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
		if hosts(t, follower, "SHOW FRONTENDS")["fe-1"] != nil {
			t.Error("control: a follower an hour later still lists the dropped FE")
		}
		if hosts(t, zombie, "SHOW FRONTENDS")["fe-1"] == nil {
			t.Error("the zombie, an hour later, does not list itself: it never learns it was dropped")
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
			if hosts(t, svc, "SHOW FRONTENDS")["fe-1"] != nil {
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
		mustExec(t, connectTo(t, s.AddressOf("fe-0")), `ALTER SYSTEM ADD BACKEND "be-0:9050"`)
		clk.SetTime(clk.Now().Add(2 * time.Second)) // fe-2 has replayed it
		svc := connectTo(t, s.QueryAddress())
		missing := func() int {
			n := 0
			for range 6 {
				if hosts(t, svc, "SHOW BACKENDS")["be-0"] == nil {
					n++
				}
			}
			return n
		}
		if n := missing(); n != 2 {
			t.Errorf("%d of 6 connections lacked be-0, want 2 (fe-1, an hour behind, one in three)", n)
		}
		s.PinFrontend("fe-1")
		if n := missing(); n != 6 {
			t.Errorf("pinned to fe-1: %d of 6 lacked be-0, want 6", n)
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
