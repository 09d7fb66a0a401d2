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
	"net"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/test/silentfe"
)

// countingFE accepts connections and closes them: every attempt to talk to
// FE is counted and fails. The integration tests speak to a real MySQL-wire
// stand-in; this one only proves when FE is asked at all.
func countingFE(t *testing.T) (*atomic.Int32, fe.Resolver) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n, func(fe.Target) (string, string) { return ln.Addr().String(), "http://" + ln.Addr().String() }
}

func cnStatefulSet(replicas, statusReplicas int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c-cn", UID: "sts-uid", Generation: 2},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)},
		Status:     appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: statusReplicas},
	}
}

// cleanup is one reconciler's compute-node cleanup: its executor, with a
// door to the FE resolve names, and its memory.
type cleanup struct {
	x    Steps
	memo *reconcile.Memo[starrocks.Cleanup]
	src  *srv1.StarRocksCluster
}

func newCleanup(resolve fe.Resolver) cleanup {
	memos := reconcile.NewMemos()
	door := feaccess.New(nil, feaccess.Options{Resolve: resolve, TLS: fe.TLS{}})
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}, Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{}}}
	return cleanup{x: Steps{Door: door, Recorder: events.NewFakeRecorder(10), Memory: NewMemory(memos, func(types.NamespacedName) []types.NamespacedName { return nil })},
		memo: reconcile.NewMemo[starrocks.Cleanup](memos), src: src}
}

// run runs the cleanup of sts once, as a reconcile does; it returns how
// soon the reconcile looks again.
func (c cleanup) run(sts *appsv1.StatefulSet) time.Duration {
	var after time.Duration
	t := Target{Cluster: c.src, FEConf: "run_mode = shared_data", On: c.src, StatefulSet: sts, // either mode: CN holds no data in both
		Hold: func(starrocks.Hold) {}, Later: func(d time.Duration) { after = d }, Fail: func(error) {}, Note: func(string) {}}
	Run(context.Background(), c.x, t, c.memo, client.ObjectKeyFromObject(c.src), ComputeNodes(sts, sts.Name, sts.Namespace, "c-cn-search", c.x.Door.Every()), starrocks.CleanUpComputeNodes)
	return after
}

// eventually waits for ok.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for range 500 {
		if ok() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal(what)
}

func TestFEIsAskedOnlyAfterASettledScaleIn(t *testing.T) {
	calls, resolve := countingFE(t)
	c := newCleanup(resolve)
	key := client.ObjectKeyFromObject(c.src)

	first := cnStatefulSet(3, 3)
	first.Generation, first.Status.ObservedGeneration = 1, 1
	c.run(first)
	if m, _ := c.memo.Get(key); calls.Load() != 0 || m.Checked.Of("sts-uid") != (starrocks.Checked{Replicas: 3, Known: true}) {
		t.Fatal("FE asked about a StatefulSet that was never scaled")
	}
	restarted := newCleanup(resolve)                         // an operator restart forgets; a scaled StatefulSet is checked once
	soon := max(c.x.Door.Every()/10, starrocks.MinLookAgain) // FE is read off the workers: the reconcile looks again soon
	if after := restarted.run(cnStatefulSet(3, 3)); after != soon {
		t.Fatalf("after a restart: look again in %v, want %v", after, soon)
	}
	eventually(t, "after a restart, a StatefulSet whose spec changed was not checked", func() bool { return calls.Load() > 0 })
	calls.Store(0)
	c.run(cnStatefulSet(5, 3))
	if calls.Load() != 0 {
		t.Fatal("FE asked on a scale-out")
	}
	c.run(cnStatefulSet(1, 5))
	if calls.Load() != 0 {
		t.Fatal("FE asked before the scale-in settled")
	}
	if after := c.run(cnStatefulSet(1, 1)); after != soon {
		t.Fatalf("settled scale-in: look again in %v, want %v", after, soon)
	}
	eventually(t, "settled scale-in: FE not asked", func() bool { return calls.Load() > 0 })
	// FE's answer (it closes every connection) is in: the cleanup failed.
	var after time.Duration
	eventually(t, "the failed read is not told", func() bool { after = c.run(cnStatefulSet(1, 1)); return after != soon })
	if m, _ := c.memo.Get(key); m.Checked.Of("sts-uid").Replicas != 5 {
		t.Errorf("a failed cleanup must not be remembered as clean, got %+v", m.Checked)
	}
	// Failed: the next look backs off instead of asking again.
	calls.Store(0)
	if after := c.run(cnStatefulSet(1, 1)); after <= 0 || after > 30*time.Second || calls.Load() != 0 {
		t.Errorf("right after a failure: look again in %v with %d connections; want a back-off and none", after, calls.Load())
	}
}

func TestACleanupAgainstAHungFEHoldsNoWorkerAndRunsOncePerStatefulSet(t *testing.T) {
	hung := silentfe.Start(t)
	c := newCleanup(func(fe.Target) (string, string) { return hung.Address(), "http://" + hung.Address() })
	if soon := max(c.x.Door.Every()/10, starrocks.MinLookAgain); c.run(cnStatefulSet(1, 1)) != soon {
		t.Fatalf("look again not in %v", soon)
	}
	// Run returned while FE has not answered: its read goes on off the worker.
	eventually(t, "FE was not asked", func() bool { return hung.Accepted() > 0 })
	// The next reconcile of the same StatefulSet starts no second talk.
	c.run(cnStatefulSet(1, 1))
	time.Sleep(200 * time.Millisecond) // a second read would connect within it
	if n := hung.Accepted(); n != 1 {
		t.Errorf("%d connections after a second look; want 1: one talk per cluster", n)
	}
}

// Issue 34 item 29: without a live reader (unit tests) the cleanup trusts
// the cache's StatefulSet; with one, it reads the StatefulSet the API
// server has right before the DROPs (starrocks.CleanUpComputeNodes
// decides whether it changed).
func TestTheStatefulSetIsReadAgainRightBeforeTheDrops(t *testing.T) {
	ctx := context.Background()
	decided := cnStatefulSet(2, 2)
	if got, err := (Steps{}).live(ctx, decided); got != decided || err != nil {
		t.Errorf("without a live reader: %v, %v; want the decision trusted", got, err)
	}
	now := cnStatefulSet(3, 2)
	door := feaccess.New(fake.NewClientBuilder().WithObjects(now).Build(), feaccess.Options{})
	if got, err := (Steps{Door: door}).live(ctx, decided); err != nil || got == nil || *got.Spec.Replicas != 3 {
		t.Errorf("with a live reader: %v, %v; want the API server's StatefulSet", got, err)
	}
	gone := feaccess.New(fake.NewClientBuilder().Build(), feaccess.Options{})
	if got, err := (Steps{Door: gone}).live(ctx, decided); got != nil || err != nil {
		t.Errorf("a StatefulSet gone: %v, %v; want none", got, err)
	}
}
