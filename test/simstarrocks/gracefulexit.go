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
	"net/http"
	"time"

	"k8s.io/utils/clock"
)

// FE's graceful exit, what `stop_fe.sh -g` (SIGUSR1; bin/stop_fe.sh
// @14b1dfcb) starts: StarRocksFE.handleGracefulExit @00b5f391
// (fe/fe-core/src/main/java/com/starrocks/StarRocksFE.java).
//
//   - canGracefulExit: unless the FOLLOWER rows would keep a majority alive
//     without this FE ((alive - 1) >= followers/2 + 1), the process exits at
//     once ("can only exit forcefully").
//   - GracefulExitFlag.markGracefulExit: from then on /api/health answers
//     500 (HealthAction).
//   - waitForDraining: every second the idle connections are closed
//     (ConnectScheduler.closeAllIdleConnection); the process exits once no
//     connection is left and more than min_graceful_exit_time_second
//     passed since the signal.
//   - the signal handler joins that for max_graceful_exit_time_second, then
//     exits whatever is left.
//
// Defaults: Config.min_graceful_exit_time_second = 15,
// max_graceful_exit_time_second = 60 (Config.java @0002bfd8).
//
// Not modelled: a leader's handover at the signal (transferLeader closes
// BDBJE and waits for a new leader; here the leader leads until its
// process ends); statements that run long (a connection is closed on the
// next round whether a statement holds it or not: unkinder than FE, which
// waits for a running statement); and the later FE copies whose
// stopAccept refuses new MySQL connections at the signal
// (GracefulExitFlag @9c4caa1e's comments): here, as @00b5f391, the FE's
// own address accepts new connections until the process ends.
const (
	defaultMinGracefulExit = 15 * time.Second
	defaultMaxGracefulExit = 60 * time.Second
)

// drainRound is waitForDraining's waitInterval (1000 ms).
const drainRound = time.Second

// GracefulExit is SIGUSR1 to the FE process at host (`stop_fe.sh -g`). It
// returns a channel closed when the process has ended, and false when no
// FE process runs at host or one exit already runs.
func (s *StarRocks) GracefulExit(host string) (<-chan struct{}, bool) {
	s.mu.Lock()
	p := s.views.procs[host]
	if p == nil || !p.running || p.exiting != nil {
		s.mu.Unlock()
		return nil, false
	}
	done := make(chan struct{})
	p.exiting = done
	p.exitStart = s.opts.Clock.Now()
	graceful := s.canGracefulExit()
	s.mu.Unlock()
	if !graceful {
		s.endExit(host, done)
		return done, true
	}
	go s.drain(host, done)
	return done, true
}

// canGracefulExit is StarRocksFE.canGracefulExit over the FOLLOWER rows;
// the caller holds s.mu.
func (s *StarRocks) canGracefulExit() bool {
	var followers, alive int
	for _, fe := range s.state.frontends {
		if fe.role != "FOLLOWER" {
			continue
		}
		followers++
		if fe.alive {
			alive++
		}
	}
	return alive > followers/2+1 // StarRocks: (aliveCnt - 1) >= size/2 + 1
}

// drain is waitForDraining and the signal handler's join.
func (s *StarRocks) drain(host string, done chan struct{}) {
	defer s.endExit(host, done)
	for {
		if cl, ok := s.opts.Clock.(clock.Clock); ok {
			select {
			case <-cl.After(drainRound):
			case <-s.stopped:
				return
			}
		} else {
			select {
			case <-time.After(drainRound):
			case <-s.stopped:
				return
			}
		}
		s.mu.Lock()
		p := s.views.procs[host]
		if p == nil || p.exiting != done {
			s.mu.Unlock()
			return // the process ended otherwise (StopFrontend, SetAlive)
		}
		elapsed := s.opts.Clock.Since(p.exitStart)
		conns := s.views.conns[host]
		delete(s.views.conns, host)
		s.mu.Unlock()
		if elapsed >= s.opts.MaxGracefulExit {
			return
		}
		for _, c := range conns {
			c.Close()
		}
		if len(conns) == 0 && elapsed > s.opts.MinGracefulExit {
			return
		}
	}
}

// endExit ends the exiting process at host, unless it ended already.
func (s *StarRocks) endExit(host string, done chan struct{}) {
	s.mu.Lock()
	p := s.views.procs[host]
	current := p != nil && p.exiting == done
	s.mu.Unlock()
	if current {
		s.StopFrontend(host)
	}
	select {
	case <-done:
	default:
		close(done)
	}
}

// FrontendHealth is the HTTP status /api/health of the FE at host answers
// (HealthAction): 200, 500 while it exits gracefully, 0 (connection
// refused) while its process does not run.
func (s *StarRocks) FrontendHealth(host string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.views.procs[host]
	switch {
	case p == nil || !p.running:
		return 0
	case p.exiting != nil:
		return http.StatusInternalServerError
	}
	return http.StatusOK
}
