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
	"net"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
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

// newFEAccess is a door to the FE resolve names, with a cleanup of its own.
func newFEAccess(live client.Reader, resolve fe.Resolver, tls fe.TLS) Access {
	return NewAccess(feaccess.New(live, feaccess.Options{Resolve: resolve, TLS: tls}), nil)
}

func cnStatefulSet(replicas, statusReplicas int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c-cn", UID: "sts-uid", Generation: 2},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)},
		Status:     appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: statusReplicas},
	}
}

// settle waits for the cleanup of the StatefulSet sts-uid to end.
func settle(t *testing.T, c *ComputeNodeCleanup) {
	t.Helper()
	for range 500 {
		if !c.jobs.Busy("sts-uid") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the cleanup did not end")
}

func TestFEIsAskedOnlyAfterASettledScaleIn(t *testing.T) {
	ctx := context.Background()
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}, Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{}}}
	calls, resolve := countingFE(t)
	access := newFEAccess(nil, resolve, fe.TLS{})
	cleanup := access.Cleanup
	shared := "run_mode = shared_data" // either mode: CN holds no data in both

	first := cnStatefulSet(3, 3)
	first.Generation, first.Status.ObservedGeneration = 1, 1
	cleanup.Run(ctx, access, src, shared, first, "c-cn-search")
	if calls.Load() != 0 || cleanup.clean["sts-uid"] != 3 {
		t.Fatal("FE asked about a StatefulSet that was never scaled")
	}
	restarted := newFEAccess(nil, resolve, fe.TLS{}) // an operator restart forgets; a scaled StatefulSet is checked once
	if after := restarted.Cleanup.Run(ctx, restarted, src, shared, cnStatefulSet(3, 3), "c-cn-search"); after != cleanupRetry {
		t.Fatalf("after a restart: look again in %v, want %v", after, cleanupRetry)
	}
	settle(t, restarted.Cleanup)
	if calls.Load() == 0 {
		t.Fatal("after a restart, a StatefulSet whose spec changed was not checked")
	}
	calls.Store(0)
	cleanup.Run(ctx, access, src, shared, cnStatefulSet(5, 3), "c-cn-search")
	if calls.Load() != 0 {
		t.Fatal("FE asked on a scale-out")
	}
	cleanup.Run(ctx, access, src, shared, cnStatefulSet(1, 5), "c-cn-search")
	if calls.Load() != 0 {
		t.Fatal("FE asked before the scale-in settled")
	}
	if after := cleanup.Run(ctx, access, src, shared, cnStatefulSet(1, 1), "c-cn-search"); after != cleanupRetry {
		t.Fatalf("settled scale-in: look again in %v, want %v", after, cleanupRetry)
	}
	settle(t, cleanup)
	if calls.Load() == 0 {
		t.Fatal("settled scale-in: FE not asked")
	}
	if cleanup.clean["sts-uid"] != 5 {
		t.Errorf("a failed cleanup must not be remembered as clean, got %d", cleanup.clean["sts-uid"])
	}
	// Failed: the next look backs off instead of asking again.
	calls.Store(0)
	if after := cleanup.Run(ctx, access, src, shared, cnStatefulSet(1, 1), "c-cn-search"); after <= 0 || after > cleanupBackoff || calls.Load() != 0 {
		t.Errorf("right after a failure: look again in %v with %d connections; want a back-off and none", after, calls.Load())
	}
}

func TestACleanupAgainstAHungFEHoldsNoWorkerAndRunsOncePerStatefulSet(t *testing.T) {
	ctx := context.Background()
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}, Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{}}}
	hung := silentfe.Start(t).Address()
	access := newFEAccess(nil, func(fe.Target) (string, string) { return hung, "http://" + hung }, fe.TLS{})
	c := access.Cleanup
	if after := c.Run(ctx, access, src, "run_mode = shared_data", cnStatefulSet(1, 1), "c-cn-search"); after != cleanupRetry {
		t.Fatalf("look again in %v, want %v", after, cleanupRetry)
	}
	// Run returned while FE has not answered: its talk goes on off the worker.
	busy, taken := c.jobs.Busy("sts-uid"), c.jobs.Running()
	if !busy || taken != 1 {
		t.Fatalf("busy %v, slots taken %d; want the cleanup still running in one slot", busy, taken)
	}
	// The next reconcile of the same StatefulSet starts no second talk.
	c.Run(ctx, access, src, "run_mode = shared_data", cnStatefulSet(1, 1), "c-cn-search")
	if taken := c.jobs.Running(); taken != 1 {
		t.Errorf("slots taken %d after a second look; want 1: one talk per StatefulSet", taken)
	}
}

// Issue 34 item 29: a cleanup decided at one replica count runs off the
// worker, later. An HPA that scaled the StatefulSet up meanwhile has new
// pods registering under the ordinals about to be dropped: the cleanup
// checks the StatefulSet on the API server before each DROP and leaves off.
func TestACleanupLeavesOffWhenTheStatefulSetChangedSinceItWasDecided(t *testing.T) {
	ctx := context.Background()
	sts := func(uid string, replicas int32, deleting bool) *appsv1.StatefulSet {
		s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c-cn", UID: types.UID(uid)}, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)}}
		if deleting {
			s.DeletionTimestamp, s.Finalizers = &metav1.Time{Time: time.Now()}, []string{"foregroundDeletion"}
		}
		return s
	}
	decided := sts("u1", 2, false)
	for _, tc := range []struct {
		name       string
		live       *appsv1.StatefulSet // nil: not found
		want       int32
		superseded bool
	}{
		{"unchanged", sts("u1", 2, false), 2, false},
		{"scaled up by the HPA since", sts("u1", 3, false), 2, true},
		{"scaled down further since: what is above still goes", sts("u1", 1, false), 2, false},
		{"made again under the same name", sts("u2", 2, false), 2, true},
		{"gone while a scale-in cleanup was due", nil, 2, true},
		{"a removed CN spec: its StatefulSet gone", nil, 0, false},
		{"a removed CN spec: its StatefulSet going", sts("u1", 2, true), 0, false},
		{"a removed CN spec whose StatefulSet still runs", sts("u1", 2, false), 0, true},
	} {
		b := fake.NewClientBuilder()
		if tc.live != nil {
			b = b.WithObjects(tc.live)
		}
		err := stillWants(ctx, b.Build(), decided, tc.want)
		if got := errors.Is(err, errSuperseded); got != tc.superseded || (err != nil && !got) {
			t.Errorf("%s: %v, want superseded %v", tc.name, err, tc.superseded)
		}
	}
	if err := stillWants(ctx, nil, decided, 2); err != nil {
		t.Errorf("without a live reader: %v, want the decision trusted", err)
	}
}
