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
	"strings"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// configOf is the Value of key in ADMIN SHOW FRONTEND CONFIG as db's FE
// answers it, and how many rows the LIKE pattern matched.
func configOf(t *testing.T, db *sql.DB, pattern string) (string, int) {
	t.Helper()
	cols, rows := mustQuery(t, db, "ADMIN SHOW FRONTEND CONFIG LIKE '"+pattern+"'")
	if len(rows) == 0 {
		return "", 0
	}
	return byName(cols, rows[0])["Value"], len(rows)
}

// ADMIN SET FRONTEND CONFIG reaches every running FE of the group (the one
// that runs it sets the others, ConfigBase.setConfig), SHOW answers from
// the FE reached, and a restarted FE is back at fe.conf's value.
func TestFrontendConfig(t *testing.T) {
	s, _ := threeFEs(t, time.Second)
	leader, follower, other := connectTo(t, s.AddressOf("fe-0")), connectTo(t, s.AddressOf("fe-1")), connectTo(t, s.AddressOf("fe-2"))

	if v, n := configOf(t, other, "tablet_sched_max_scheduling_tablets"); v != "10000" || n != 1 {
		t.Fatalf("default on fe-2: %q (%d rows), want 10000 (Config.java)", v, n)
	}
	mustExec(t, follower, `ADMIN SET FRONTEND CONFIG ("tablet_sched_max_scheduling_tablets" = "0")`)
	for name, db := range map[string]*sql.DB{"fe-0": leader, "fe-1": follower, "fe-2": other} {
		if v, _ := configOf(t, db, "tablet_sched_max_scheduling_tablets"); v != "0" {
			t.Errorf("%s after the SET through fe-1: %q, want 0", name, v)
		}
	}

	// An alias sets the field; LIKE matches the alias, Key is the field name.
	mustExec(t, leader, `ADMIN SET FRONTEND CONFIG ("disable_balance" = "true")`)
	cols, rows := mustQuery(t, other, "ADMIN SHOW FRONTEND CONFIG LIKE 'disable_balance'")
	if len(rows) != 1 || byName(cols, rows[0])["Key"] != "tablet_sched_disable_balance" || byName(cols, rows[0])["Value"] != "true" {
		t.Errorf("LIKE 'disable_balance' on fe-2: %v %v", cols, rows)
	}
	if strings.Join(cols, ",") != "Key,AliasNames,Value,Type,IsMutable,Comment" {
		t.Errorf("columns %v", cols)
	}

	// fe-2 restarts: its memory is fe.conf's again; the others keep theirs.
	s.StopFrontend("fe-2")
	if err := s.StartFrontend("fe-2", 9010); err != nil {
		t.Fatal(err)
	}
	restarted := connectTo(t, s.AddressOf("fe-2"))
	if v, _ := configOf(t, restarted, "tablet_sched_max_scheduling_tablets"); v != "10000" {
		t.Errorf("fe-2 after its restart: %q, want fe.conf's 10000", v)
	}
	if v, _ := configOf(t, leader, "tablet_sched_max_scheduling_tablets"); v != "0" {
		t.Errorf("fe-0 after fe-2's restart: %q, want 0", v)
	}

	for stmt, want := range map[string]string{
		`ADMIN SET FRONTEND CONFIG ("no_such_key" = "1")`:                          "Config 'no_such_key' does not exist or is not mutable",
		`ADMIN SET FRONTEND CONFIG ("tablet_sched_max_scheduling_tablets" = "x")`:  "Failed to set config 'tablet_sched_max_scheduling_tablets'",
		`ADMIN SET FRONTEND CONFIG ("a" = "1", "b" = "2")`:                         "Getting syntax error",
		`ADMIN SET FRONTEND CONFIG "tablet_sched_max_scheduling_tablets" = "0"`:    "Getting syntax error",
		`ADMIN SHOW FRONTEND CONFIG LIKE tablet_sched_max_scheduling_tablets`:      "Getting syntax error",
		`ADMIN SHOW FRONTEND CONFIGS`:                                              "Getting syntax error",
		`ADMIN SET FRONTEND CONFIG ('tablet_sched_disable_balance' = 'sometimes')`: "Failed to set config 'tablet_sched_disable_balance'",
	} {
		if _, _, err := query(leader, stmt); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", stmt, err, want)
		}
	}
}

// ADMIN SET and SHOW FRONTEND CONFIG need OPERATE (checkStmtOperatePrivilege).
func TestFrontendConfigNeedsOperate(t *testing.T) {
	s, _ := started(t, simstarrocks.Options{})
	s.CreateUser(simstarrocks.User{Name: "node_only", Password: "pw", Roles: []string{"cluster_admin"}, DefaultRoles: []string{"cluster_admin"}})
	db := connectAs(t, s, "node_only", "pw")
	for _, stmt := range []string{`ADMIN SET FRONTEND CONFIG ("disable_balance" = "true")`, "ADMIN SHOW FRONTEND CONFIG"} {
		_, _, err := query(db, stmt)
		if me := mysqlError(err); me == nil || me.Number != 5203 || !strings.Contains(me.Message, "OPERATE") {
			t.Errorf("%s as a user without OPERATE: %v", stmt, err)
		}
	}
}

// With tablet_sched_max_scheduling_tablets at 0 on the leader, the
// scheduler starts one repair per TabletChecker round (20 s) while none
// runs: a decommission moves one tablet per round. At fe.conf's value
// again, the rest go at once. The control: the same
// decommission without the limit moves every tablet at once.
func TestMaxSchedulingTabletsZeroThrottlesRepairs(t *testing.T) {
	tablets := func(t *testing.T, db *sql.DB, host string) string {
		t.Helper()
		return hosts(t, db, "SHOW BACKENDS")[host]["TabletNum"]
	}
	step := func(s *simstarrocks.StarRocks, clk interface {
		Now() time.Time
		SetTime(time.Time)
	}, d time.Duration) {
		for end := clk.Now().Add(d); clk.Now().Before(end); {
			clk.SetTime(clk.Now().Add(time.Second))
			s.Frontends() // the model moves with each look
		}
	}

	t.Run("control: no limit, the decommission drains at once", func(t *testing.T) {
		s, clk := threeFEs(t, time.Second)
		leader := connectTo(t, s.AddressOf("fe-0"))
		twoBackendsWithTablets(t, s, clk, leader)
		mustExec(t, leader, `ALTER SYSTEM DECOMMISSION BACKEND "be-1:9050"`)
		step(s, clk, time.Second)
		if _, ok := hosts(t, leader, "SHOW BACKENDS")["be-1"]; ok {
			t.Errorf("be-1 still listed 1 s into its decommission without a limit: %s tablets", tablets(t, leader, "be-1"))
		}
	})

	t.Run("at 0, one tablet per 20 s round; restored, the rest at once", func(t *testing.T) {
		s, clk := threeFEs(t, time.Second)
		leader := connectTo(t, s.AddressOf("fe-0"))
		twoBackendsWithTablets(t, s, clk, leader)
		before := tablets(t, leader, "be-1")
		mustExec(t, leader, `ADMIN SET FRONTEND CONFIG ("tablet_sched_max_scheduling_tablets" = "0")`)
		mustExec(t, leader, `ALTER SYSTEM DECOMMISSION BACKEND "be-1:9050"`)
		step(s, clk, 5*time.Second)
		if got := tablets(t, leader, "be-1"); got != before {
			t.Fatalf("be-1 holds %s tablets 5 s in, before any checker round; had %s", got, before)
		}
		step(s, clk, 20*time.Second)
		if got := tablets(t, leader, "be-1"); got == before || got == "0" {
			t.Errorf("be-1 holds %s tablets after one round (had %s): want one fewer", got, before)
		}
		mustExec(t, leader, `ADMIN SET FRONTEND CONFIG ("tablet_sched_max_scheduling_tablets" = "10000")`)
		step(s, clk, time.Second)
		if _, ok := hosts(t, leader, "SHOW BACKENDS")["be-1"]; ok {
			t.Errorf("be-1 still listed 1 s after the limit was restored: %s tablets", tablets(t, leader, "be-1"))
		}
	})
}
