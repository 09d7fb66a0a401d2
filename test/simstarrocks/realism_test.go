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
	"strings"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// The behaviours of sheet §14, each on a fake clock (Options.Clock): the
// tests pass 900 s or 24 h without waiting for them.

var epoch = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// onFakeClock starts a simulation on a fake clock, with fe-0 leading.
func onFakeClock(t *testing.T, opts simstarrocks.Options) (*simstarrocks.StarRocks, *sql.DB, *clocktesting.FakeClock) {
	t.Helper()
	fc := clocktesting.NewFakeClock(epoch)
	opts.Clock = fc
	s, db := started(t, opts)
	return s, db, fc
}

// unhealthyIn is UnhealthyTabletNum of one DB in SHOW PROC '/statistic'.
func unhealthyIn(t *testing.T, db *sql.DB, name string) int {
	t.Helper()
	return statIn(t, db, name, "UnhealthyTabletNum")
}

func statIn(t *testing.T, db *sql.DB, name, col string) int {
	t.Helper()
	cols, rows := mustQuery(t, db, "SHOW PROC '/statistic'")
	n, err := strconv.Atoi(rowOf(t, cols, rows, "DbName", name)[col])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func aliveOf(t *testing.T, s *simstarrocks.StarRocks, host string) simstarrocks.Backend {
	t.Helper()
	for _, be := range s.Backends() {
		if be.Host == host {
			return be
		}
	}
	t.Fatalf("no BE %s", host)
	return simstarrocks.Backend{}
}

// LocalTablet.isReplicaBackendDead (@00b57d40) with
// tablet_sched_be_down_tolerate_time_s = 900 (sheet §14): a dead BE's
// replicas stay healthy in SHOW PROC '/statistic' for DownTolerance after
// its last good heartbeat, then turn unhealthy; a load that fails on them
// makes them unhealthy at once. The oracles count the truth throughout.
func TestDownTolerance(t *testing.T) {
	t.Run("a dead BE's replicas stay healthy for DownTolerance, then turn unhealthy", func(t *testing.T) {
		s, db, fc := onFakeClock(t, simstarrocks.Options{})
		withBackends(t, s, db, 3)
		if err := s.CreateTable("db", "t", 3, 6); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateTable("db", "single", 1, 3); err != nil {
			t.Fatal(err)
		}
		lastGood := fc.Now()
		s.StopProcess("be-0", false)
		fc.Step(30 * time.Second)
		if aliveOf(t, s, "be-0").Alive {
			t.Fatal("be-0 still Alive 30 s after its process stopped")
		}
		if n := unhealthyIn(t, db, "db"); n != 0 {
			t.Errorf("within DownTolerance: %d unhealthy tablets, want 0 (FE tolerates the dead BE)", n)
		}
		// The truth: be-0's replicas are gone while FE tolerates them.
		if got := s.TabletsBelow(3); got != 9 {
			t.Errorf("TabletsBelow(3) = %d, want 9: each of t's 6 lost its replica on be-0, single's 3 have 1 or none", got)
		}
		if got := s.LostTablets(); got != 1 {
			t.Errorf("LostTablets = %d, want the 1 single-replica tablet on be-0", got)
		}
		fc.SetTime(lastGood.Add(900 * time.Second))
		if n := unhealthyIn(t, db, "db"); n != 0 {
			t.Errorf("at DownTolerance: %d unhealthy, want 0", n)
		}
		fc.Step(6 * time.Second)
		if n := unhealthyIn(t, db, "db"); n != 7 {
			t.Errorf("past DownTolerance: %d unhealthy, want 7 (every tablet with a replica on be-0)", n)
		}
	})
	t.Run("a load that fails on a dead BE's replicas makes them unhealthy at once", func(t *testing.T) {
		s, db, fc := onFakeClock(t, simstarrocks.Options{})
		withBackends(t, s, db, 3)
		if err := s.CreateTable("db", "t", 3, 6); err != nil {
			t.Fatal(err)
		}
		s.StopProcess("be-0", false)
		fc.Step(30 * time.Second)
		if n := unhealthyIn(t, db, "db"); n != 0 {
			t.Fatalf("before the load: %d unhealthy", n)
		}
		if n := s.Load(); n != 6 {
			t.Errorf("Load: %d replicas missed it, want 6", n)
		}
		if n := unhealthyIn(t, db, "db"); n != 6 {
			t.Errorf("after a load failed on be-0: %d unhealthy, want 6 (VERSION_INCOMPLETE)", n)
		}
		// Back: the replicas catch up at its first good heartbeat.
		s.StartProcess("be-0")
		fc.Step(5 * time.Second)
		if n := unhealthyIn(t, db, "db"); n != 0 || s.TabletsBelow(3) != 0 {
			t.Errorf("be-0 back: %d unhealthy, %d below 3", n, s.TabletsBelow(3))
		}
	})
}

// ComputeNode.handleHbResponse (@0139a862), heartbeat_timeout_second = 5,
// heartbeat_retry_times = 3 (sheet §14): Alive follows the process through
// heartbeats.
func TestHeartbeats(t *testing.T) {
	t.Run("alive at the first good heartbeat, dead after more than 3 failed ones", func(t *testing.T) {
		s, db, fc := onFakeClock(t, simstarrocks.Options{})
		mustExec(t, db, `ALTER SYSTEM ADD BACKEND "be-0:9050"`)
		s.StartProcess("be-0")
		if be := aliveOf(t, s, "be-0"); be.Alive || !be.Running {
			t.Fatalf("before any heartbeat: %+v", be)
		}
		fc.Step(5 * time.Second)
		if !aliveOf(t, s, "be-0").Alive {
			t.Fatal("not Alive after a heartbeat round")
		}
		s.StopProcess("be-0", false)
		fc.Step(15 * time.Second) // three failed heartbeats
		if !aliveOf(t, s, "be-0").Alive {
			t.Error("dead after 3 failed heartbeats; FE waits for more than heartbeat_retry_times")
		}
		fc.Step(5 * time.Second) // the fourth
		if aliveOf(t, s, "be-0").Alive {
			t.Error("still Alive after 4 failed heartbeats")
		}
	})
	t.Run("a quick restart never shows Alive=false; LastStartTime changes", func(t *testing.T) {
		s, db, fc := onFakeClock(t, simstarrocks.Options{})
		withBackends(t, s, db, 1)
		fc.Step(5 * time.Second)
		first := aliveOf(t, s, "be-0").LastStart
		s.StopProcess("be-0", true) // SIGTERM; 3.3 reports no SHUTDOWN
		for range 2 {
			fc.Step(5 * time.Second)
			if !aliveOf(t, s, "be-0").Alive {
				t.Fatal("Alive=false during a 10 s restart")
			}
		}
		s.StartProcess("be-0")
		fc.Step(5 * time.Second)
		be := aliveOf(t, s, "be-0")
		if !be.Alive || !be.LastStart.After(first) {
			t.Errorf("after the restart: Alive=%t, LastStart %s (was %s)", be.Alive, be.LastStart, first)
		}
		r := backendRow(t, db, "be-0")
		if r["LastStartTime"] != be.LastStart.UTC().Format("2006-01-02 15:04:05") {
			t.Errorf("LastStartTime %q, want the restart %s", r["LastStartTime"], be.LastStart)
		}
	})
	t.Run("a graceful stop is dead at once from 3.4 (SHUTDOWN), not before", func(t *testing.T) {
		for _, tc := range []struct {
			version string
			dead    bool
		}{{"3.3", false}, {"3.5", true}} {
			s, db, _ := onFakeClock(t, simstarrocks.Options{Version: tc.version})
			withBackends(t, s, db, 1)
			s.StopProcess("be-0", true)
			if got := !aliveOf(t, s, "be-0").Alive; got != tc.dead {
				t.Errorf("%s: dead right after a graceful stop = %t, want %t", tc.version, got, tc.dead)
			}
		}
	})
	t.Run("SetAlive is FE's verdict at once, and a crash is not", func(t *testing.T) {
		s, db, _ := onFakeClock(t, simstarrocks.Options{})
		withBackends(t, s, db, 2)
		s.SetAlive("be-0", false)
		s.StopProcess("be-1", false)
		if aliveOf(t, s, "be-0").Alive || aliveOf(t, s, "be-0").Running {
			t.Error("SetAlive(false): still Alive or running")
		}
		if !aliveOf(t, s, "be-1").Alive {
			t.Error("StopProcess(crash): dead before any heartbeat failed")
		}
	})
}

// LocalTablet.getHealthStatusWithPriority (@00b57d40, sheet §14): a tablet
// with a replica on a decommissioned BE is REPLICA_RELOCATING, unhealthy,
// for the whole decommission; its clone takes CloneDuration, then the old
// replica goes and the BE is dropped with its last one.
func TestDecommissionRelocates(t *testing.T) {
	s, db, fc := onFakeClock(t, simstarrocks.Options{CloneDuration: 10 * time.Minute, MigrationRate: 100})
	withBackends(t, s, db, 4)
	if err := s.CreateTable("db", "t", 3, 4); err != nil {
		t.Fatal(err)
	}
	if n := unhealthyIn(t, db, "db"); n != 0 {
		t.Fatalf("before: %d unhealthy", n)
	}
	onBE3, _ := strconv.Atoi(backendRow(t, db, "be-3")["TabletNum"])
	if onBE3 == 0 {
		t.Fatal("be-3 holds nothing")
	}
	mustExec(t, db, `ALTER SYSTEM DECOMMISSION BACKEND "be-3:9050"`)
	if n := unhealthyIn(t, db, "db"); n != onBE3 {
		t.Errorf("right after DECOMMISSION: %d unhealthy, want the %d tablets on be-3", n, onBE3)
	}
	fc.Step(time.Second)
	if n, c := unhealthyIn(t, db, "db"), statIn(t, db, "db", "CloningTabletNum"); n != onBE3 || c != onBE3 {
		t.Errorf("while cloning: %d unhealthy, %d cloning; want %d, %d", n, c, onBE3, onBE3)
	}
	if s.TabletsBelow(3) != 0 || s.LostTablets() != 0 {
		t.Errorf("while cloning the data is all there: below 3 %d, lost %d", s.TabletsBelow(3), s.LostTablets())
	}
	fc.Step(9 * time.Minute)
	if backendRow(t, db, "be-3") == nil {
		t.Fatal("be-3 dropped before its clones ended")
	}
	fc.Step(time.Minute)
	if n := unhealthyIn(t, db, "db"); n != 0 {
		t.Errorf("after the clones: %d unhealthy", n)
	}
	if backendRow(t, db, "be-3") != nil {
		t.Error("be-3 still listed after its last replica left")
	}
}

// catalog_trash_expire_second = 86400 and SystemHandler.runAlterJobV2
// (sheet §14, StarRocks PR #62781): a dropped table's tablets stay on their
// BEs in the recycle bin, are not relocated, and keep a decommissioned BE
// from its auto-drop until they expire; DROP TABLE ... FORCE skips the bin.
func TestRecycleBinBlocksDecommission(t *testing.T) {
	for _, force := range []bool{false, true} {
		t.Run("force="+strconv.FormatBool(force), func(t *testing.T) {
			s, db, fc := onFakeClock(t, simstarrocks.Options{})
			withBackends(t, s, db, 4)
			if err := s.CreateTable("db", "t", 3, 4); err != nil {
				t.Fatal(err)
			}
			held, _ := strconv.Atoi(backendRow(t, db, "be-3")["TabletNum"])
			if force {
				s.DropTableForce("db", "t")
			} else {
				s.DropTable("db", "t")
			}
			mustExec(t, db, `ALTER SYSTEM DECOMMISSION BACKEND "be-3:9050"`)
			fc.Step(time.Hour)
			r := backendRow(t, db, "be-3")
			if force {
				if r != nil {
					t.Errorf("DROP TABLE FORCE: be-3 still listed an hour on: %v", r)
				}
				return
			}
			if r == nil || r["TabletNum"] != strconv.Itoa(held) {
				t.Fatalf("the bin's %d replicas should hold be-3 and stay on it: %v", held, r)
			}
			fc.Step(23 * time.Hour)
			if backendRow(t, db, "be-3") != nil {
				t.Error("be-3 still listed once the bin expired")
			}
		})
	}
}

// StatisticsMetaManager (sheet §14): _statistics_ exists once a BE does, at
// min(3, BEs) replicas, shared-nothing only. The older decommission check
// (SystemHandler.checkDecommission) counts it and subtracts a dead target
// twice; the newest (SystemInfoService.decommissionBackend) skips both.
// UNVERIFIED: which release changed it; the simulation gives 3.5 the newest.
func TestStatisticsAndDecommissionRules(t *testing.T) {
	t.Run("_statistics_ is created at min(3, BEs) replicas, shared-nothing only", func(t *testing.T) {
		for _, shared := range []bool{false, true} {
			s, db, fc := onFakeClock(t, simstarrocks.Options{SharedData: shared})
			if shared {
				mustExec(t, db, `ALTER SYSTEM ADD BACKEND "be-0:9050"`)
				s.SetAlive("be-0", true)
			} else {
				withBackends(t, s, db, 2)
			}
			fc.Step(2 * time.Minute)
			cols, rows := mustQuery(t, db, "SHOW PROC '/statistic'")
			i := slices.Index(cols, "DbName")
			has := slices.ContainsFunc(rows, func(r []string) bool { return r[i] == "_statistics_" })
			if has == shared {
				t.Errorf("shared-data %t: _statistics_ listed %t", shared, has)
			}
			if !shared {
				tablets, replicas := statIn(t, db, "_statistics_", "TabletNum"), statIn(t, db, "_statistics_", "ReplicaNum")
				if replicas != 2*tablets {
					t.Errorf("_statistics_: %d replicas of %d tablets, want 2 each (min(3, 2 BEs))", replicas, tablets)
				}
			}
		}
	})
	t.Run("3 -> 2 BEs: the older rule refuses naming _statistics_, the newest does not", func(t *testing.T) {
		for _, version := range []string{"3.3", "3.5"} {
			s, db, fc := onFakeClock(t, simstarrocks.Options{Version: version})
			withBackends(t, s, db, 3)
			fc.Step(2 * time.Minute)
			_, err := db.ExecContext(context.Background(), `ALTER SYSTEM DECOMMISSION BACKEND "be-2:9050"`)
			want := ""
			if version == "3.3" {
				want = "It will cause insufficient BE number if these BEs are decommissioned because the table _statistics_.table_statistic_v1 requires 3 replicas."
			}
			if got := errText(err); got != want {
				t.Errorf("%s: %q, want %q", version, got, want)
			}
		}
	})
	t.Run("a dead target: the older rule refuses spuriously, the newest does not", func(t *testing.T) {
		for _, version := range []string{"3.3", "3.5"} {
			s, db, _ := onFakeClock(t, simstarrocks.Options{Version: version})
			withBackends(t, s, db, 4)
			if err := s.CreateTable("db", "t", 3, 4); err != nil {
				t.Fatal(err)
			}
			s.SetAlive("be-3", false)
			_, err := db.ExecContext(context.Background(), `ALTER SYSTEM DECOMMISSION BACKEND "be-3:9050"`)
			want := ""
			if version == "3.3" {
				want = "It will cause insufficient BE number if these BEs are decommissioned because the table db.t requires 3 replicas."
			}
			if got := errText(err); got != want {
				t.Errorf("%s: %q, want %q", version, got, want)
			}
		}
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	if me := mysqlError(err); me != nil {
		return me.Message
	}
	return err.Error()
}

// StatementDelay, StatementError, AfterStatement: a slow '/statistic'
// (sheet §14, StarRocks issue #51715), a DECOMMISSION that fails once, a
// statement that hangs; the observer sees each answered statement.
func TestStatementHooks(t *testing.T) {
	t.Run("a slow /statistic answers once the delay has passed on the clock", func(t *testing.T) {
		fc := clocktesting.NewFakeClock(epoch)
		var answered []string
		var mu sync.Mutex
		s, db := started(t, simstarrocks.Options{
			Clock: fc,
			StatementDelay: func(stmt string) time.Duration {
				if strings.Contains(stmt, "/statistic") {
					return 12 * time.Second
				}
				return 0
			},
			AfterStatement: func(stmt string) {
				mu.Lock()
				answered = append(answered, stmt)
				mu.Unlock()
			},
		})
		withBackends(t, s, db, 1)
		done := make(chan error, 1)
		go func() {
			_, _, err := query(db, "SHOW PROC '/statistic'")
			done <- err
		}()
		waitFor(t, "the statement to be held", 10*time.Second, fc.HasWaiters)
		select {
		case err := <-done:
			t.Fatalf("answered before the clock moved: %v", err)
		default:
		}
		fc.Step(12 * time.Second)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(answered) == 0 || answered[len(answered)-1] != "SHOW PROC '/statistic'" {
			t.Errorf("AfterStatement saw %q", answered)
		}
	})
	t.Run("DECOMMISSION fails once with the given error, then runs", func(t *testing.T) {
		failed := false
		s, db := started(t, simstarrocks.Options{
			StatementError: func(stmt string) *simstarrocks.SQLError {
				if strings.Contains(stmt, "DECOMMISSION") && !failed {
					failed = true
					return &simstarrocks.SQLError{Code: 1064, State: "HY000", Message: "Failed to acquire lock"}
				}
				return nil
			},
		})
		withBackends(t, s, db, 2)
		_, err := db.ExecContext(context.Background(), `ALTER SYSTEM DECOMMISSION BACKEND "be-1:9050"`)
		if me := mysqlError(err); me == nil || me.Number != 1064 || me.Message != "Failed to acquire lock" {
			t.Fatalf("first DECOMMISSION: %v", err)
		}
		if aliveOf(t, s, "be-1").Decommissioned {
			t.Fatal("the failed DECOMMISSION took effect")
		}
		mustExec(t, db, `ALTER SYSTEM DECOMMISSION BACKEND "be-1:9050"`)
		if r := backendRow(t, db, "be-1"); r != nil && r["SystemDecommissioned"] != "true" {
			t.Errorf("second DECOMMISSION: %v", r)
		}
	})
	t.Run("a hung statement ends when its client gives up, having done nothing", func(t *testing.T) {
		s := simstarrocks.Start(t, simstarrocks.Options{
			StatementDelay: func(stmt string) time.Duration {
				if strings.Contains(stmt, "ADD BACKEND") {
					return simstarrocks.Hang
				}
				return 0
			},
		})
		s.BootstrapFrontend("fe-0", 9010)
		db := connect(t, s, "", 300*time.Millisecond)
		_, err := db.ExecContext(context.Background(), `ALTER SYSTEM ADD BACKEND "be-0:9050"`)
		if err == nil {
			t.Fatal("a hung statement answered")
		}
		if len(s.Backends()) != 0 {
			t.Errorf("the hung ADD BACKEND took effect: %v", s.Backends())
		}
	})
}

// report_tablet_interval_seconds = 60 (sheet §14): a BE restarted on empty
// storage is believed to hold its replicas until its next tablet report;
// then FE forgets them, and SHOW BACKENDS' lastSuccessReportTabletsTime
// moves (sheet §3).
func TestWipeOnRestart(t *testing.T) {
	s, db, fc := onFakeClock(t, simstarrocks.Options{WipeOnRestart: true})
	withBackends(t, s, db, 3)
	if err := s.CreateTable("db", "t", 3, 3); err != nil {
		t.Fatal(err)
	}
	fc.Step(90 * time.Second) // the first reports
	before := backendRow(t, db, "be-0")
	if !strings.Contains(before["Status"], epoch.Add(60*time.Second).Format("2006-01-02 15:04:05")) {
		t.Fatalf("no first tablet report at the first good heartbeat + 60 s: %s", before["Status"])
	}
	s.StopProcess("be-0", true)
	fc.Step(time.Second)
	s.StartProcess("be-0")
	fc.Step(4 * time.Second) // the next heartbeat: Alive, never seen dead
	// The truth: every tablet (db.t's 3 and _statistics_' 6, created at
	// 60 s on the 3 BEs) lost its replica on be-0.
	if s.TabletsBelow(3) != 9 || s.LostTablets() != 0 {
		t.Errorf("the truth: %d tablets below 3 replicas, want 9; %d lost", s.TabletsBelow(3), s.LostTablets())
	}
	r := backendRow(t, db, "be-0")
	if r["Alive"] != "true" || r["TabletNum"] != before["TabletNum"] || unhealthyIn(t, db, "db") != 0 {
		t.Errorf("before the report FE believes in the replicas: %v, %d unhealthy", r, unhealthyIn(t, db, "db"))
	}
	fc.Step(60 * time.Second)
	r = backendRow(t, db, "be-0")
	if r["TabletNum"] != "0" || unhealthyIn(t, db, "db") != 3 || r["Status"] == before["Status"] {
		t.Errorf("after the report: %v, %d unhealthy", r, unhealthyIn(t, db, "db"))
	}
}

// The pending multi-warehouse implementation (StarRocks PR #78027, sheet
// §14): DROP WAREHOUSE refuses while a compute node of it is Alive.
func TestRefuseDropWarehouseWithAliveCNs(t *testing.T) {
	for _, refuse := range []bool{true, false} {
		s, db, _ := onFakeClock(t, simstarrocks.Options{SharedData: true, MultiWarehouse: true, RefuseDropWarehouseWithAliveCNs: refuse})
		mustExec(t, db, "CREATE WAREHOUSE w1")
		mustExec(t, db, `ALTER SYSTEM ADD COMPUTE NODE "cn-0:9050" INTO WAREHOUSE w1`)
		s.SetAlive("cn-0", true)
		_, err := db.ExecContext(context.Background(), "DROP WAREHOUSE w1")
		want := ""
		if refuse {
			want = "Cannot drop warehouse 'w1' while there are alive compute nodes: cn-0:9050"
		}
		if got := errText(err); got != want {
			t.Errorf("refuse=%t: %q, want %q", refuse, got, want)
		}
		if refuse {
			s.SetAlive("cn-0", false)
			if _, err := db.ExecContext(context.Background(), "DROP WAREHOUSE w1"); err != nil {
				t.Errorf("with its CN dead: %v", err)
			}
		}
	}
}

// LocalTablet.getHealthStatusWithPriority (sheet §14): a tablet on a
// decommissioned BE that no other BE can take is FORCE_REDUNDANT, and its
// replica there is deleted: 3.5 lets a 3 -> 2 scale-in through with
// _statistics_ at 3 replicas, which end at 2.
func TestForceRedundant(t *testing.T) {
	s, db, fc := onFakeClock(t, simstarrocks.Options{Version: "3.5"})
	withBackends(t, s, db, 3)
	fc.Step(2 * time.Minute)
	mustExec(t, db, `ALTER SYSTEM DECOMMISSION BACKEND "be-2:9050"`)
	if n := unhealthyIn(t, db, "_statistics_"); n == 0 {
		t.Error("no _statistics_ tablet unhealthy right after DECOMMISSION")
	}
	fc.Step(time.Minute)
	if backendRow(t, db, "be-2") != nil {
		t.Error("be-2 still listed: its _statistics_ replicas were not deleted")
	}
	tablets, replicas := statIn(t, db, "_statistics_", "TabletNum"), statIn(t, db, "_statistics_", "ReplicaNum")
	if replicas != 2*tablets || unhealthyIn(t, db, "_statistics_") != tablets {
		t.Errorf("_statistics_ after: %d replicas of %d tablets, %d unhealthy; want 2 each, all unhealthy", replicas, tablets, unhealthyIn(t, db, "_statistics_"))
	}
}
