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

package integration_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// testFEDropOnStaleHeartbeat: FE 3 → 2 right after a follower's process
// stopped, its pod still Ready (a readiness probe notices only after
// periodSeconds × failureThreshold), FE's report read every second (issue
// 50 item 18, the heartbeat). FE's leader lists hb-fe-1 Alive for about
// 20 s, more than heartbeat_retry_times failed rounds of 5 s
// (Frontend.handleHbResponse), its LastHeartbeat stopped at its last good
// round while the leader's own row moves on: FE's report and its leader,
// asked right before, both say Alive. A DROP of hb-fe-2 then leaves hb-fe-0
// alone of two voters: no majority, no leader. The scale-down is asked for
// once the leader's round has missed hb-fe-1 and while FE still lists it
// Alive. The operator counts it not alive by its heartbeat and holds FE at
// 3, saying so; it still holds on FE's verdict; it drops hb-fe-2 once
// hb-fe-1 runs again. FE's own defaults throughout: the lag is the point.
func testFEDropOnStaleHeartbeat(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	f := startFE(t, dir, "scale", "hb", simstarrocks.Options{})
	src := feCluster("scale", "hb", 3)
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, "scale", "hb", 2*time.Minute)
	eventually(t, time.Minute, "3 FEs in the group", func(context.Context) (bool, error) { return groupOf(f, "scale", "hb", 3), nil })
	fe1 := feHost("scale", "hb", 1)
	leaderless := watchLeaderless(f)
	stopped := time.Now()
	f.StopFrontend(fe1)
	eventually(t, 30*time.Second, "hb-fe-1 Alive in FE's list, a heartbeat round behind the leader's own", func(context.Context) (bool, error) {
		m, behind := staleness(f, fe1)
		return m.Alive && behind >= 5*time.Second, nil
	})
	_, behind := staleness(f, fe1)
	behind = behind.Round(time.Second)
	setFEReplicas(t, c, src, 2)
	asked := time.Since(stopped)
	progressing := func(ctx context.Context) string {
		got := &srv1.StarRocksCluster{}
		if get(ctx, c.Client, "scale", "hb", got) != nil {
			return ""
		}
		if p := meta.FindStatusCondition(got.Status.Conditions, srv1.ConditionProgressing); p != nil {
			return p.Message
		}
		return ""
	}
	// Until FE's verdict: Alive in FE's eyes, dead in truth.
	var held string
	eventually(t, 45*time.Second, "FE's verdict on hb-fe-1", func(ctx context.Context) (bool, error) {
		if msg := progressing(ctx); held == "" && strings.Contains(msg, "hb-fe-1 counted not alive") {
			held = msg
		}
		m, _ := staleness(f, fe1)
		return !m.Alive || len(f.StatementsLike("ALTER SYSTEM DROP FOLLOWER")) > 0, nil
	})
	verdict := time.Since(stopped) // FE's verdict, or a DROP before it
	// Then on FE's verdict: still no DROP.
	var after string
	if len(f.StatementsLike("ALTER SYSTEM DROP FOLLOWER")) == 0 {
		eventually(t, 30*time.Second, "the hold decided on FE's verdict", func(ctx context.Context) (bool, error) {
			after = progressing(ctx)
			return strings.Contains(after, "not a majority") && !strings.Contains(after, "counted not alive") || len(f.StatementsLike("ALTER SYSTEM DROP FOLLOWER")) > 0, nil
		})
	}
	drops := f.StatementsLike("ALTER SYSTEM DROP FOLLOWER")
	t.Logf("hb-fe-1's process stopped; FE 3 → 2 asked %s later, hb-fe-1 Alive %s behind the leader's own heartbeat; FE's verdict (or a DROP) %s after the stop; DROP FOLLOWER while it was dead: %q; held: %q; then: %q",
		asked.Round(100*time.Millisecond), behind, verdict.Round(100*time.Millisecond), drops, held, after)
	if len(drops) > 0 {
		time.Sleep(time.Second) // what the DROP left
		none, all := leaderless()
		t.Fatalf("DROP FOLLOWER %q sent while hb-fe-1's process was stopped, FE listing it Alive: FE's group kept %q, leader %q, without a leader in %d of %d samples", drops, frontendHosts(f), f.Leader(), none, all)
	}
	if held == "" {
		t.Errorf("no hold named hb-fe-1 by its heartbeat while FE listed it Alive")
	}
	f.SetAlive(fe1, true)
	waitStatefulSet(t, c, "scale", "hb-fe", "FE shrunk to 2 once hb-fe-1 runs again", 2*time.Minute, shrunkTo(2))
	eventually(t, time.Minute, "FE's group is hb-fe-0 and hb-fe-1", func(context.Context) (bool, error) { return groupOf(f, "scale", "hb", 2), nil })
	if none, all := leaderless(); none > 0 {
		t.Errorf("FE's group had no leader in %d of %d samples", none, all)
	}
	controlStaleHeartbeat(t)
	if err := c.Client.Delete(ctx, src); err != nil {
		t.Fatal(err)
	}
}

// staleness is host's row as FE lists it, and how far its LastHeartbeat
// trails the leader's own row's.
func staleness(f *simstarrocks.StarRocks, host string) (simstarrocks.Frontend, time.Duration) {
	var m, leader simstarrocks.Frontend
	for _, fe := range f.Frontends() {
		if fe.Host == host {
			m = fe
		}
		if fe.Role == "LEADER" {
			leader = fe
		}
	}
	if m.LastHeartbeat.IsZero() || leader.LastHeartbeat.IsZero() {
		return m, 0
	}
	return m, leader.LastHeartbeat.Sub(m.LastHeartbeat)
}

// controlStaleHeartbeat (item 18, the heartbeat): c-1's process stopped and
// the leader's round missed it; FE still lists it Alive, and the DROP of
// c-2 FE's word allows leaves c-0 alone of two voters: no leader.
func controlStaleHeartbeat(t *testing.T) {
	t.Helper()
	f, leader := feGroup(t, 3)
	f.StopFrontend("c-1")
	end := time.Now().Add(15 * time.Second)
	m, behind := staleness(f, "c-1")
	for (!m.Alive || behind < 5*time.Second) && time.Now().Before(end) {
		time.Sleep(100 * time.Millisecond)
		m, behind = staleness(f, "c-1")
	}
	if !m.Alive || behind < 5*time.Second {
		t.Fatalf("control: c-1 Alive %t, %s behind the leader: not the case", m.Alive, behind)
	}
	dropFollower(t, leader, "c-2")
	behind = behind.Round(time.Second)
	t.Logf("control: c-2 dropped while FE listed c-1 Alive, %s behind the leader, its process stopped: FE's group %q, leader %q", behind, frontendHosts(f), f.Leader())
	if f.Leader() != "" {
		t.Error("control: FE kept a leader with one of its two voters' processes stopped")
	}
}
