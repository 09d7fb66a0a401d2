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
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// The leader's heartbeats to the FEs (system/HeartbeatMgr.java @000defc9,
// system/Frontend.java @01037dd6): a round every heartbeat_timeout_second
// (5 s); an OK answer is stamped with the leader's clock, the leader's own
// row each round; a follower whose process stopped stays Alive until more
// than heartbeat_retry_times (3) rounds failed, its LastHeartbeat stopped
// at its last good round. SetAlive is FE's verdict at once.
func TestFrontendHeartbeats(t *testing.T) {
	s, _, fc := onFakeClock(t, simstarrocks.Options{})
	leader := connectTo(t, s.AddressOf("fe-0"))
	for _, h := range []string{"fe-1", "fe-2"} {
		mustExec(t, leader, `ALTER SYSTEM ADD FOLLOWER "`+h+`:9010"`)
		if err := s.StartFrontend(h, 9010); err != nil {
			t.Fatal(err)
		}
	}
	at := func(d time.Duration) string { return epoch.Add(d).UTC().Format("2006-01-02 15:04:05") }
	fc.Step(5 * time.Second) // a good round for all three
	for h, r := range hosts(t, leader, "SHOW FRONTENDS") {
		if r["Alive"] != "true" || r["LastHeartbeat"] != at(5*time.Second) {
			t.Errorf("%s after a good round: Alive %s, LastHeartbeat %s; want true, %s", h, r["Alive"], r["LastHeartbeat"], at(5*time.Second))
		}
	}
	s.StopFrontend("fe-2")
	if s.Leader() != "fe-0" {
		t.Fatalf("leader %q after a follower stopped, want fe-0", s.Leader())
	}
	for round := 1; round <= 4; round++ {
		fc.Step(5 * time.Second)
		now := time.Duration(5+5*round) * time.Second
		rows := hosts(t, leader, "SHOW FRONTENDS")
		fe2, ldr, fe1 := rows["fe-2"], rows["fe-0"], rows["fe-1"]
		wantAlive := "true"
		if round > 3 {
			wantAlive = "false" // more than heartbeat_retry_times failures
		}
		if fe2["Alive"] != wantAlive {
			t.Errorf("fe-2 after %d failed rounds: Alive %s, want %s", round, fe2["Alive"], wantAlive)
		}
		if fe2["LastHeartbeat"] != at(5*time.Second) {
			t.Errorf("fe-2 after %d failed rounds: LastHeartbeat %s, want its last good round %s", round, fe2["LastHeartbeat"], at(5*time.Second))
		}
		if ldr["LastHeartbeat"] != at(now) || fe1["LastHeartbeat"] != at(now) {
			t.Errorf("round %d: the leader's row at %s, fe-1's at %s; want both at the round, %s", round, ldr["LastHeartbeat"], fe1["LastHeartbeat"], at(now))
		}
	}
	t.Run("SetAlive is FE's verdict at once; the election follows the processes", func(t *testing.T) {
		s.SetAlive("fe-1", false)
		for _, f := range s.Frontends() {
			if f.Host == "fe-1" && f.Alive {
				t.Error("SetAlive(false): fe-1 still Alive")
			}
		}
		if s.Leader() != "" {
			t.Errorf("two of three followers' processes ended: leader %q, want none", s.Leader())
		}
	})
}
