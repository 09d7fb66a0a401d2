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

package frontend

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/scheme"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// A record is written before the statements it records: a statement that
// fails finds it written, and a record that cannot be written sends no
// statement. That order is what survives a SIGKILL between the two (the
// compatibility pause's record, docs/upgrades.md).
func TestARecordIsWrittenBeforeItsStatements(t *testing.T) {
	ctx := context.Background()
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
	step := func(memo string) starrocks.Planner[struct{}, string] {
		return func(struct{}, string, starrocks.Reads) (starrocks.Step[string], string) {
			return starrocks.Step[string]{Record: &starrocks.Record{Annotation: "example.com/record", Value: "v"},
				Statements: []fe.Statement{fe.SetFrontendConfig{Key: "k", Value: "0"}},
				Failed: func(err error) (starrocks.Step[string], string) {
					return starrocks.Step[string]{Err: err}, "failed"
				}}, memo
		}
	}
	run := func(c client.Client, door feaccess.Door) (*reconcile.Memo[string], error) {
		memos := reconcile.NewMemos()
		memo := reconcile.NewMemo[string](memos)
		x := Steps{Door: door, Client: c, Recorder: events.NewFakeRecorder(10), Memory: NewMemory(memos, func(types.NamespacedName) []types.NamespacedName { return nil })}
		var failed error
		t := Target{Cluster: src, On: src, Hold: func(starrocks.Hold) {}, Later: func(time.Duration) {}, Fail: func(err error) { failed = err }, Note: func(string) {}}
		Run(ctx, x, t, memo, client.ObjectKeyFromObject(src), struct{}{}, step("done"))
		return memo, failed
	}

	// The statements fail (FE cannot be reached): the record is on the cluster.
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(src.DeepCopy()).Build()
	memo, failed := run(c, feaccess.Door{})
	got := &srv1.StarRocksCluster{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(src), got); err != nil {
		t.Fatal(err)
	}
	if got.Annotations["example.com/record"] != "v" || !errors.Is(failed, feaccess.ErrNoFE) {
		t.Errorf("record %q, failure %v; want the record written before the statement that failed", got.Annotations["example.com/record"], failed)
	}
	if m, _ := memo.Get(client.ObjectKeyFromObject(src)); m != "failed" {
		t.Errorf("memory %q, want the failed step's", m)
	}
	if v := (Steps{Memory: NewMemory(reconcile.NewMemos(), func(types.NamespacedName) []types.NamespacedName { return nil })}).Recorded(got, "example.com/record"); v != "v" {
		t.Errorf("recorded %q", v)
	}

	// The record cannot be written (the cluster is gone): no statement is sent.
	calls, resolve := countingFE(t)
	_, failed = run(fake.NewClientBuilder().WithScheme(scheme.New()).Build(), feaccess.New(nil, feaccess.Options{Resolve: resolve}))
	var record *starrocks.RecordError
	if !errors.As(failed, &record) || calls.Load() != 0 {
		t.Errorf("failure %v, %d connections to FE; want the record's failure and no statement sent", failed, calls.Load())
	}
}

// Independent statements are each their own attempt: one that fails does
// not stop the next (an ADMIN SET FRONTEND CONFIG FE fails after applying
// it, issue 50), and the step fails with the errors joined. The control:
// the same statements in one attempt stop at the first failure.
func TestIndependentStatementsEachTheirOwnAttempt(t *testing.T) {
	ctx := context.Background()
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
	run := func(independent bool) (int32, error) {
		calls, resolve := countingFE(t)
		memos := reconcile.NewMemos()
		x := Steps{Door: feaccess.New(nil, feaccess.Options{Resolve: resolve}), Client: fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(src.DeepCopy()).Build(),
			Recorder: events.NewFakeRecorder(10), Memory: NewMemory(memos, func(types.NamespacedName) []types.NamespacedName { return nil })}
		var failed error
		tg := Target{Cluster: src, On: src, Hold: func(starrocks.Hold) {}, Later: func(time.Duration) {}, Fail: func(err error) { failed = err }, Note: func(string) {}}
		plan := func(struct{}, struct{}, starrocks.Reads) (starrocks.Step[struct{}], struct{}) {
			return starrocks.Step[struct{}]{Independent: independent, Statements: []fe.Statement{
				fe.SetFrontendConfig{Key: "a", Value: "0"}, fe.SetFrontendConfig{Key: "b", Value: "0"}, fe.SetFrontendConfig{Key: "c", Value: "0"}},
				Failed: func(err error) (starrocks.Step[struct{}], struct{}) {
					return starrocks.Step[struct{}]{Err: err}, struct{}{}
				}}, struct{}{}
		}
		Run(ctx, x, tg, reconcile.NewMemo[struct{}](memos), client.ObjectKeyFromObject(src), struct{}{}, plan)
		return calls.Load(), failed
	}
	one, oneErr := run(false)
	each, eachErr := run(true)
	t.Logf("connections: %d in one attempt, %d each its own", one, each)
	if oneErr == nil || eachErr == nil {
		t.Fatalf("errors %v, %v; want both to fail", oneErr, eachErr)
	}
	if each < 3*one {
		t.Errorf("%d connections for three independent statements, %d for one attempt: want each tried", each, one)
	}
}
