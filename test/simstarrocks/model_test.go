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
	"context"
	"database/sql"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// backendRow is be-N's SHOW BACKENDS row, or nil when it is gone.
func backendRow(t *testing.T, db *sql.DB, host string) map[string]string {
	t.Helper()
	cols, rows := mustQuery(t, db, "SHOW BACKENDS")
	for _, r := range rows {
		if m := byName(cols, r); m["IP"] == host {
			return m
		}
	}
	return nil
}

// sheet §5: ACTIVE → DECOMMISSIONING (SystemDecommissioned=true, TabletNum
// falling, Alive unchanged) → gone, with drop_backend_after_decommission on
// (the default); no tablet is lost on the way; CANCEL after the drop is
// refused because the row is gone.
func TestDecommissionToGone(t *testing.T) {
	s, db := started(t, simstarrocks.Options{MigrationRate: 60})
	withBackends(t, s, db, 4)
	if err := s.CreateTable("db1", "t1", 3, 40); err != nil {
		t.Fatal(err)
	}
	before, _ := strconv.Atoi(backendRow(t, db, "be-0")["TabletNum"])
	if before == 0 {
		t.Fatal("be-0 holds no tablet")
	}
	mustExec(t, db, `ALTER SYSTEM DECOMMISSION BACKEND "be-0:9050"`)
	r := backendRow(t, db, "be-0")
	if r == nil || r["SystemDecommissioned"] != "true" || r["ClusterDecommissioned"] != "false" || r["Alive"] != "true" {
		t.Fatalf("right after DECOMMISSION: %v", r)
	}
	first, _ := strconv.Atoi(r["TabletNum"])
	seen := map[int]bool{first: true}
	waitFor(t, "be-0 to vanish from SHOW BACKENDS", 5*time.Second, func() bool {
		r := backendRow(t, db, "be-0")
		if r == nil {
			return true
		}
		n, _ := strconv.Atoi(r["TabletNum"])
		if n > before {
			t.Errorf("TabletNum rose to %d from %d", n, before)
		}
		seen[n] = true
		return false
	})
	if len(seen) < 2 {
		t.Errorf("TabletNum did not fall step by step: saw %v", seen)
	}
	if s.LostTablets() != 0 || s.TabletsBelow(3) != 0 {
		t.Errorf("lost %d, below 3 healthy %d", s.LostTablets(), s.TabletsBelow(3))
	}
	_, err := db.ExecContext(context.Background(), `CANCEL DECOMMISSION BACKEND "be-0:9050"`)
	if me := mysqlError(err); me == nil || me.Message != "Backend does not exists[be-0]" {
		t.Errorf("CANCEL after the drop: %v", err)
	}
}

// sheet §5: with drop_backend_after_decommission off the drained BE stays
// (SystemDecommissioned=true, TabletNum=0) until DROP BACKEND, which, with
// no tablet left, needs no FORCE (sheet §6).
func TestDecommissionDrainedThenDropped(t *testing.T) {
	s, db := started(t, simstarrocks.Options{MigrationRate: 500, KeepDrainedBackends: true})
	withBackends(t, s, db, 3)
	if err := s.CreateTable("db1", "t1", 1, 9); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `ALTER SYSTEM DECOMMISSION BACKEND 'be-2:9050'`)
	waitFor(t, "be-2 drained", 5*time.Second, func() bool { return backendRow(t, db, "be-2")["TabletNum"] == "0" })
	time.Sleep(50 * time.Millisecond)
	if r := backendRow(t, db, "be-2"); r == nil || r["SystemDecommissioned"] != "true" {
		t.Fatalf("drained BE: %v", r)
	}
	mustExec(t, db, `ALTER SYSTEM DROP BACKEND 'be-2:9050'`)
	if r := backendRow(t, db, "be-2"); r != nil {
		t.Errorf("after DROP: %v", r)
	}
	if got := s.Backends(); len(got) != 2 || s.LostTablets() != 0 {
		t.Errorf("backends %v, lost %d", got, s.LostTablets())
	}
}

// sheet §5: CANCEL returns a DECOMMISSIONING BE to ACTIVE; migration stops.
func TestDecommissionCancelled(t *testing.T) {
	s, db := started(t, simstarrocks.Options{MigrationRate: 1})
	withBackends(t, s, db, 3)
	if err := s.CreateTable("db1", "t1", 2, 30); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `ALTER SYSTEM DECOMMISSION BACKEND "be-1:9050"`)
	mustExec(t, db, `CANCEL DECOMMISSION BACKEND "be-1:9050"`)
	r := backendRow(t, db, "be-1")
	if r == nil || r["SystemDecommissioned"] != "false" {
		t.Fatalf("after CANCEL: %v", r)
	}
	time.Sleep(1100 * time.Millisecond)
	if r2 := backendRow(t, db, "be-1"); r2 == nil || r2["TabletNum"] != r["TabletNum"] {
		t.Errorf("TabletNum moved after CANCEL: %v then %v", r, r2)
	}
}

// sheet §5: the BE-number check names the first table whose replication
// number, raising the running maximum, exceeds the BEs left; N is that
// number. Decommissioning two at once counts both.
func TestDecommissionRefusals(t *testing.T) {
	s, db := started(t, simstarrocks.Options{})
	withBackends(t, s, db, 4)
	for _, tb := range []struct {
		name string
		rep  int
	}{{"t1", 1}, {"t2", 2}, {"t3", 3}} {
		if err := s.CreateTable("sales", tb.name, tb.rep, 2); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		stmt, want string
	}{
		{`ALTER SYSTEM DECOMMISSION BACKEND "be-0:9050"`, ""},
		{`ALTER SYSTEM DECOMMISSION BACKEND "be-1:9050", "be-2:9050"`, "It will cause insufficient BE number if these BEs are decommissioned because the table sales.t2 requires 2 replicas."},
		{`ALTER SYSTEM DECOMMISSION BACKEND "be-1:9050"`, "It will cause insufficient BE number if these BEs are decommissioned because the table sales.t3 requires 3 replicas."},
	} {
		_, err := db.ExecContext(context.Background(), c.stmt)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.stmt, err)
			}
			continue
		}
		if me := mysqlError(err); me == nil || me.Number != 1064 || me.Message != c.want {
			t.Errorf("%s: %v, want %q", c.stmt, err, c.want)
		}
	}
}

// The FE group: a leader while a majority of the joined FOLLOWERs is alive;
// a dead member stays, Alive=false, ReplayedJournalId=0 (sheet §7); with no
// leader SHOW FRONTENDS and ALTER SYSTEM hang until the client's timeout
// (sheet §1 step 5), and answer once a leader is back.
func TestLeaderElection(t *testing.T) {
	s, db := started(t, simstarrocks.Options{})
	// The group as its leader sees it: followers' views are TestFollowerViews'.
	s.PinLeader()
	mustExec(t, db, `ALTER SYSTEM ADD FOLLOWER "fe-1:9010"`)
	mustExec(t, db, `ALTER SYSTEM ADD FOLLOWER "fe-2:9010"`)
	if err := s.StartFrontend("fe-9", 9010); err == nil {
		t.Error("StartFrontend of an FE never added succeeded")
	}
	for _, h := range []string{"fe-1", "fe-2"} {
		if err := s.StartFrontend(h, 9010); err != nil {
			t.Fatal(err)
		}
	}
	if s.Leader() != "fe-0" {
		t.Fatalf("leader %q", s.Leader())
	}

	s.SetAlive("fe-0", false)
	if s.Leader() != "fe-1" {
		t.Fatalf("after fe-0 died: leader %q, want fe-1 (2 of 3 alive)", s.Leader())
	}
	cols, rows := mustQuery(t, db, "SHOW FRONTENDS")
	if r := rowOf(t, cols, rows, "IP", "fe-0"); r["Alive"] != "false" || r["ReplayedJournalId"] != "0" || r["Join"] != "true" || r["Role"] != "FOLLOWER" {
		t.Errorf("dead member: %v", r)
	}
	if r := rowOf(t, cols, rows, "IP", "fe-1"); r["Role"] != "LEADER" || r["Alive"] != "true" {
		t.Errorf("new leader: %v", r)
	}

	s.SetAlive("fe-1", false)
	if s.Leader() != "" {
		t.Fatalf("1 of 3 alive: leader %q, want none", s.Leader())
	}
	short := connect(t, s, "", 300*time.Millisecond)
	for _, stmt := range []string{"SHOW FRONTENDS", `ALTER SYSTEM ADD BACKEND "be-0:9050"`} {
		start := time.Now()
		if _, _, err := query(short, stmt); err == nil {
			t.Errorf("%s answered with no leader", stmt)
		}
		if d := time.Since(start); d < 250*time.Millisecond {
			t.Errorf("%s returned after %s: it should hang until the client's timeout", stmt, d)
		}
	}
	if n := len(s.StatementsLike("show frontends")); n != 2 {
		t.Errorf("%d SHOW FRONTENDS recorded, want 2", n)
	}

	// A waiting statement answers when a leader is back.
	done := make(chan error, 1)
	go func() {
		_, _, err := query(db, "SHOW FRONTENDS")
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	s.SetAlive("fe-0", true)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("SHOW FRONTENDS once a leader is back: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("SHOW FRONTENDS still waiting with a leader back")
	}
	if s.Leader() != "fe-0" {
		t.Errorf("leader %q, want fe-0", s.Leader())
	}
	// The ADD BACKEND whose client gave up while there was no leader never ran.
	if got := s.Backends(); len(got) != 0 {
		t.Errorf("an abandoned statement ran: %+v", got)
	}

	// Dropping the dead follower shrinks the group: 2 of 2 alive.
	mustExec(t, db, `ALTER SYSTEM DROP FOLLOWER "fe-1:9010"`)
	s.SetAlive("fe-2", false)
	if s.Leader() != "" {
		t.Errorf("1 of 2 alive: leader %q, want none", s.Leader())
	}
	s.SetAlive("fe-2", true)
	if got := s.Frontends(); len(got) != 2 || s.Leader() == "" {
		t.Errorf("frontends %+v, leader %q", got, s.Leader())
	}
}

// A BE that comes back alive: its replicas catch up for CatchUp, counted in
// SHOW PROC '/statistic' UnhealthyTabletNum meanwhile (sheet §9); a tablet
// with a replica on a dead BE is unhealthy too, but not lost.
func TestCatchUpInStatistic(t *testing.T) {
	s, db := started(t, simstarrocks.Options{CatchUp: time.Second})
	withBackends(t, s, db, 3)
	if err := s.CreateTable("db1", "t1", 3, 10); err != nil {
		t.Fatal(err)
	}
	unhealthy := func() string {
		cols, rows := mustQuery(t, db, "SHOW PROC '/statistic'")
		return rowOf(t, cols, rows, "DbId", "Total")["UnhealthyTabletNum"]
	}
	if u := unhealthy(); u != "0" {
		t.Fatalf("unhealthy %s at start", u)
	}
	s.SetAlive("be-0", false)
	if u := unhealthy(); u != "10" || s.LostTablets() != 0 || s.TabletsBelow(3) != 10 || s.TabletsBelow(2) != 0 {
		t.Errorf("be-0 dead: unhealthy %s, lost %d, below 3: %d, below 2: %d", u, s.LostTablets(), s.TabletsBelow(3), s.TabletsBelow(2))
	}
	s.SetAlive("be-0", true)
	if u := unhealthy(); u != "10" || s.TabletsBelow(3) != 10 {
		t.Errorf("be-0 back, catching up: unhealthy %s, below 3: %d", u, s.TabletsBelow(3))
	}
	cols, rows := mustQuery(t, db, "SHOW PROC '/cluster_balance'")
	if p := rowOf(t, cols, rows, "Item", "pending_tablets")["Number"]; p != "10" {
		t.Errorf("pending_tablets %s while catching up", p)
	}
	waitFor(t, "the replicas to catch up", 5*time.Second, func() bool { return unhealthy() == "0" })
	if s.TabletsBelow(3) != 0 {
		t.Errorf("below 3 after catch-up: %d", s.TabletsBelow(3))
	}
	s.SetAlive("be-0", false)
	s.SetAlive("be-1", false)
	s.SetAlive("be-2", false)
	if s.LostTablets() != 10 {
		t.Errorf("all BEs dead: lost %d, want 10", s.LostTablets())
	}
}

// The API's snapshots follow the statements; SetAlive on an unknown host
// changes nothing.
func TestSnapshots(t *testing.T) {
	s, db := started(t, simstarrocks.Options{SharedData: true, MultiWarehouse: true})
	withBackends(t, s, db, 1)
	mustExec(t, db, "CREATE WAREHOUSE IF NOT EXISTS wh_1")
	mustExec(t, db, `ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050" INTO WAREHOUSE wh_1`)
	if s.SetAlive("nope", true) {
		t.Error("SetAlive of an unknown host found a node")
	}
	if got := s.Warehouses(); !slices.Equal(got, []string{"default_warehouse", "wh_1"}) {
		t.Errorf("warehouses %v", got)
	}
	cns := s.ComputeNodes()
	if len(cns) != 1 || cns[0].Host != "cn-0" || cns[0].Warehouse != "wh_1" || cns[0].Alive || cns[0].ID == 0 {
		t.Errorf("compute nodes %+v", cns)
	}
	bes := s.Backends()
	if len(bes) != 1 || bes[0].Host != "be-0" || !bes[0].Alive || bes[0].HeartbeatPort != 9050 {
		t.Errorf("backends %+v", bes)
	}
	fes := s.Frontends()
	if len(fes) != 1 || fes[0].Role != "LEADER" || fes[0].Type != "FOLLOWER" || !fes[0].Join || !fes[0].Alive || !fes[0].IsHelper {
		t.Errorf("frontends %+v", fes)
	}
}

// The operator's own FE client reads SHOW COMPUTE NODES by column name.
func TestOperatorClient(t *testing.T) {
	s, db := started(t, simstarrocks.Options{SharedData: true, MultiWarehouse: true, Password: "s3cret"})
	mustExec(t, db, "CREATE WAREHOUSE IF NOT EXISTS wh_1")
	mustExec(t, db, `ALTER SYSTEM ADD COMPUTE NODE "c-cn-0.c-cn-search.ns.svc.cluster.local:9050" INTO WAREHOUSE wh_1`)
	s.SetAlive("c-cn-0.c-cn-search.ns.svc.cluster.local", true)
	nodes, err := (&fe.Client{Address: s.QueryAddress(), Password: "s3cret"}).ShowComputeNodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1 || nodes[0].Host != "c-cn-0.c-cn-search.ns.svc.cluster.local" || nodes[0].HeartbeatPort != 9050 || !nodes[0].Alive || nodes[0].Warehouse != "wh_1" {
		t.Errorf("nodes %+v", nodes)
	}
}
