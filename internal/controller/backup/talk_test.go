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

package backup

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/feaccess"
)

// An answer that waited in a long reconcile queue is still taken once:
// counted from the conversation's start, a queue longer than Every found
// every answer stale, asked again, and never converged (1,000 repositories
// at the API's rate: 37 ready after 8 minutes).
func TestFreshTakesAnAnswerThatWaited(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	const every = 10 * time.Second
	talk := NewTalk(feaccess.Door{}, 1, every, clk)
	repo := &srv1.StarRocksBackupRepository{ObjectMeta: metav1.ObjectMeta{UID: "u1"}}
	talk.last[repo.UID] = &Answer{Topic: "read", At: clk.Now()}

	clk.Step(5 * every) // the reconcile queue's wait
	if talk.Fresh(repo, "send") != nil {
		t.Fatal("an answer about another topic was taken")
	}
	if talk.Fresh(repo, "read") == nil {
		t.Fatal("an answer no reconcile took yet was stale after waiting 5×Every in the queue")
	}
	clk.Step(every / 2)
	if talk.Fresh(repo, "read") == nil {
		t.Fatal("the answer was not fresh Every/2 after its first use")
	}
	clk.Step(every / 2)
	if talk.Fresh(repo, "read") != nil {
		t.Fatal("the answer was still fresh Every after its first use: FE would never be asked again")
	}
}

// A question asked again while the same one is queued is not asked twice.
func TestAskTheSameQuestionOnce(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	talk := NewTalk(feaccess.Door{}, 1, time.Second, clk)
	repo := &srv1.StarRocksBackupRepository{ObjectMeta: metav1.ObjectMeta{UID: "u1"}}
	// A conversation of repo runs (its goroutine is not started here).
	talk.running[repo.UID], talk.asked[repo.UID] = true, "read"
	talk.Ask(repositoryKind, repo, &srv1.StarRocksCluster{}, "", "read", nil)
	if talk.next[repo.UID] != nil {
		t.Fatal("the running question was queued again")
	}
	talk.Ask(repositoryKind, repo, &srv1.StarRocksCluster{}, "", "send", nil)
	if talk.next[repo.UID] == nil {
		t.Fatal("another question asked meanwhile was dropped")
	}
}
