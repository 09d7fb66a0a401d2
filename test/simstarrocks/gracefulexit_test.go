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
	"net/http"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// threeFEsOn is fe-0 (leader), fe-1 and fe-2 (followers) on a fake clock
// that can make timers, so that a graceful exit's rounds are stepped.
func threeFEsOn(t *testing.T, opts simstarrocks.Options) (*simstarrocks.StarRocks, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	opts.Clock = clk
	s := simstarrocks.Start(t, opts)
	s.BootstrapFrontend("fe-0", 9010)
	leader := connectTo(t, s.AddressOf("fe-0"))
	for _, h := range []string{"fe-1", "fe-2"} {
		mustExec(t, leader, `ALTER SYSTEM ADD FOLLOWER "`+h+`:9010"`)
		if err := s.StartFrontend(h, 9010); err != nil {
			t.Fatal(err)
		}
	}
	return s, clk
}

// stepRound lets the drain's next round run: it waits until the round
// waits on the clock, then moves it one second on.
func stepRound(t *testing.T, clk *clocktesting.FakeClock) {
	t.Helper()
	waitFor(t, "the drain to wait on the clock", 5*time.Second, clk.HasWaiters)
	clk.Step(time.Second)
}

func ended(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-time.After(200 * time.Millisecond):
		return false
	}
}

// StarRocksFE.handleGracefulExit @00b5f391, Config.java @0002bfd8.
func TestGracefulExit(t *testing.T) {
	t.Run("health answers 500 at once; FE answers until min_graceful_exit_time_second has passed with no connection", func(t *testing.T) {
		s, clk := threeFEsOn(t, simstarrocks.Options{})
		if got := s.FrontendHealth("fe-2"); got != http.StatusOK {
			t.Fatalf("health before the signal: %d", got)
		}
		done, ok := s.GracefulExit("fe-2")
		if !ok {
			t.Fatal("no graceful exit")
		}
		if got := s.FrontendHealth("fe-2"); got != http.StatusInternalServerError {
			t.Errorf("health after the signal: %d, want 500", got)
		}
		fe2 := connectTo(t, s.AddressOf("fe-2"))
		for i := 1; i <= 15; i++ {
			if i <= 5 {
				// New connections are answered; each is closed after its
				// statement (connectTo), so none is left by the 15th round.
				mustQuery(t, fe2, "SHOW FRONTENDS")
			}
			stepRound(t, clk)
			if ended(done) {
				t.Fatalf("FE stopped %d s after the signal, before min_graceful_exit_time_second (15 s)", i)
			}
		}
		stepRound(t, clk)
		if !ended(done) {
			t.Fatal("FE still runs 16 s after the signal with no connection")
		}
		if got := s.FrontendHealth("fe-2"); got != 0 {
			t.Errorf("health after the exit: %d, want refused", got)
		}
		if _, _, err := query(fe2, "SHOW FRONTENDS"); err == nil {
			t.Error("the exited FE answered")
		}
	})
	t.Run("max_graceful_exit_time_second ends the exit whatever is left", func(t *testing.T) {
		// A minimum longer than the cap: only the cap can end it.
		s, clk := threeFEsOn(t, simstarrocks.Options{MinGracefulExit: time.Hour})
		done, _ := s.GracefulExit("fe-1")
		for range 59 {
			stepRound(t, clk)
		}
		if ended(done) {
			t.Fatal("FE stopped before the 60 s cap")
		}
		stepRound(t, clk)
		if !ended(done) {
			t.Fatal("FE runs past the 60 s cap")
		}
	})
	t.Run("control: an FE whose exit would leave no majority of followers alive exits at once", func(t *testing.T) {
		s, _ := threeFEsOn(t, simstarrocks.Options{})
		s.SetAlive("fe-1", false) // 2 of 3 followers alive: (2 - 1) < 3/2 + 1
		done, ok := s.GracefulExit("fe-2")
		if !ok || !ended(done) {
			t.Fatal("FE did not exit at once")
		}
	})
}
