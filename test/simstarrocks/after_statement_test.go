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
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// AfterStatement sees every statement once FE has acted on it, whatever the
// answer, and before the client has that answer: a crash test that kills
// the client there kills it between FE's change and the client's next step.
func TestAfterStatementRunsOnceFEActedBeforeTheClientHasTheAnswer(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []string
		// backends FE listed when the hook saw each statement
		listed []int
	)
	entered, release := make(chan string, 1), make(chan struct{})
	var s *simstarrocks.StarRocks
	s = simstarrocks.Start(t, simstarrocks.Options{AfterStatement: func(stmt string) {
		mu.Lock()
		seen = append(seen, stmt)
		listed = append(listed, len(s.Backends()))
		mu.Unlock()
		if stmt == "ALTER SYSTEM ADD BACKEND 'be-0:9050'" {
			entered <- stmt
			<-release
		}
	}})
	s.BootstrapFrontend("fe-0", 9010)
	db := connect(t, s, "", 5*time.Second)

	answered := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(context.Background(), "ALTER SYSTEM ADD BACKEND 'be-0:9050'")
		answered <- err
	}()
	<-entered
	// Held in the hook: had the answer been complete on the wire, the
	// client would return meanwhile.
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-answered:
		t.Fatalf("the client had its answer (%v) while AfterStatement was still running", err)
	default:
	}
	close(release)
	if err := <-answered; err != nil {
		t.Fatalf("ADD BACKEND: %v", err)
	}

	// A refusal and a syntax error are answers too.
	_, err := db.ExecContext(context.Background(), "ALTER SYSTEM ADD BACKEND 'be-0:9050'")
	if mysqlError(err) == nil {
		t.Fatalf("adding be-0 twice: %v, want FE's refusal", err)
	}
	if _, err := db.ExecContext(context.Background(), "ALTER SYSTEM FLY"); mysqlError(err) == nil {
		t.Fatalf("ALTER SYSTEM FLY: %v, want a syntax error", err)
	}

	mu.Lock()
	defer mu.Unlock()
	if want := s.Statements(); !slices.Equal(seen, want) {
		t.Errorf("AfterStatement saw %q, want every statement FE received, in order: %q", seen, want)
	}
	if want := []int{1, 1, 1}; !slices.Equal(listed, want) {
		t.Errorf("backends listed when the hook ran: %v, want %v (be-0 added before the hook saw its ADD)", listed, want)
	}
}
