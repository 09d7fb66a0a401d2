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

package controller

import (
	"context"
	"net"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
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

func TestFEIsAskedOnlyAfterASettledScaleInInSharedDataMode(t *testing.T) {
	ctx := context.Background()
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}, Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{}}}
	calls, resolve := countingFE(t)
	access := newFEAccess(nil, resolve)
	cleanup := access.cleanup
	shared := "run_mode = shared_data"

	if _, after := cleanup.run(ctx, access, src, "", cnStatefulSet(3, 3), "c-cn-search"); after != 0 || calls.Load() != 0 {
		t.Fatal("a shared-nothing cluster's FE was asked")
	}
	first := cnStatefulSet(3, 3)
	first.Generation, first.Status.ObservedGeneration = 1, 1
	cleanup.run(ctx, access, src, shared, first, "c-cn-search")
	if calls.Load() != 0 || cleanup.clean["sts-uid"] != 3 {
		t.Fatal("FE asked about a StatefulSet that was never scaled")
	}
	restarted := newFEAccess(nil, resolve).cleanup // an operator restart forgets; a scaled StatefulSet is checked once
	if _, after := restarted.run(ctx, access, src, shared, cnStatefulSet(3, 3), "c-cn-search"); calls.Load() == 0 || after != cleanupRetry {
		t.Fatal("after a restart, a StatefulSet whose spec changed was not checked")
	}
	calls.Store(0)
	cleanup.run(ctx, access, src, shared, cnStatefulSet(5, 3), "c-cn-search")
	if calls.Load() != 0 {
		t.Fatal("FE asked on a scale-out")
	}
	cleanup.run(ctx, access, src, shared, cnStatefulSet(1, 5), "c-cn-search")
	if calls.Load() != 0 {
		t.Fatal("FE asked before the scale-in settled")
	}
	if _, after := cleanup.run(ctx, access, src, shared, cnStatefulSet(1, 1), "c-cn-search"); calls.Load() == 0 || after != cleanupRetry {
		t.Fatalf("settled scale-in: %d connections, retry in %v; want FE asked and a retry after a failure", calls.Load(), after)
	}
	if cleanup.clean["sts-uid"] != 5 {
		t.Errorf("a failed cleanup must not be remembered as clean, got %d", cleanup.clean["sts-uid"])
	}
}
