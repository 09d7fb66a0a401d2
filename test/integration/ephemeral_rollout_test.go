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
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// testEphemeralBERollout: 3 BEs on the operator's default storage, an
// emptyDir (no storageVolumes), and a table of replication_num 1; the
// simulated BE comes back from a replacement on empty storage
// (WipeOnRestart: the replicas are gone, FE learns it at the next tablet
// report, facts sheet §14). A BE image change is refused: BE's pod
// template is kept, no pod restarts, ReconcileError says
// EphemeralStorageRefused naming the table and the escape, with one
// Warning Event (issue 50 item 20). The control: with
// starrocks.com/rollout-ephemeral-storage: allow the rollout goes, with
// one Warning Event EphemeralStorage, and the first BE it replaces comes
// back without the single-replica tablets it held: lost.
//
// FE runs 3: the table is created right before the change, and a
// follower answers information_schema from the catalog it replayed, a
// second behind the leader's (simstarrocks' FollowerLag). Asked through
// the Service, a follower listed no partition of replication_num 1, and
// the rollout replaced eph-be-2: 2 of 6 single-replica tablets lost. The
// check asks the leader of FE's report, on its own address.
func testEphemeralBERollout(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	const ns, name = "gate-eph", "eph"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src := gatedCluster(ns, name, 3, 3)
	f := startGated(t, c, dir, src, simstarrocks.Options{WipeOnRestart: true, HeartbeatInterval: 500 * time.Millisecond}, 0)
	if err := f.CreateTable("db", "single", 1, 6); err != nil {
		t.Fatal(err)
	}
	before := podUIDs(t, c, ns, name+"-")
	const old, target = "starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.3.3"

	start := time.Now()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec.Image = target })
	var refusal string
	eventually(t, 30*time.Second, "ReconcileError "+srv1.ReasonEphemeralStorageRefused, func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, name, src); err != nil {
			return false, err
		}
		if now := podUIDs(t, c, ns, name+"-be-"); now[name+"-be-2"] != before[name+"-be-2"] {
			// What the refusal must prevent: say it, with what it cost
			// once the BE is back.
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && !backReady(ctx, c, ns, name+"-be-2", before, f); {
				time.Sleep(100 * time.Millisecond)
			}
			return false, fmt.Errorf("%s-be-2 replaced, no refusal (ReconcileError %v); back Ready: %t, %d of 6 single-replica tablets lost",
				name, meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError), backReady(ctx, c, ns, name+"-be-2", before, f), f.LostTablets())
		}
		cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError)
		if cond == nil || cond.Reason != srv1.ReasonEphemeralStorageRefused {
			return false, nil
		}
		refusal = cond.Message
		return true, nil
	})
	t.Logf("refused after %s: %s", time.Since(start).Round(100*time.Millisecond), refusal)
	for _, want := range []string{"/opt/starrocks/be/storage is not on a PersistentVolumeClaim", "replication_num 1", "db.single",
		srv1.RolloutEphemeralStorageAnnotation + "=" + srv1.RolloutEphemeralStorageAllow} {
		if !strings.Contains(refusal, want) {
			t.Errorf("the refusal does not say %q: %s", want, refusal)
		}
	}
	keepsFor(t, c, ns, name, before, func(ctx context.Context) error {
		be := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, ns, name+"-be", be); err != nil {
			return err
		}
		if got := stsImage(be); got != old {
			return fmt.Errorf("BE StatefulSet image %s after the refusal, want %s kept", got, old)
		}
		return nil
	})
	if n := warningsIn(ctx, t, c, ns, name, srv1.ReasonEphemeralStorageRefused); n != 1 {
		t.Errorf("%d Warning Events %s, want 1", n, srv1.ReasonEphemeralStorageRefused)
	}
	if n := f.LostTablets(); n != 0 {
		t.Errorf("%d tablets lost while the rollout is refused", n)
	}

	// The control: the user's word lets the rollout go, and the first BE
	// it replaces comes back empty: the single-replica tablets it held
	// are lost.
	start = time.Now()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[srv1.RolloutEphemeralStorageAnnotation] = srv1.RolloutEphemeralStorageAllow
	})
	var lost int
	eventually(t, 45*time.Second, "the first BE replaced, back Ready and Alive, and its single-replica tablets lost", func(ctx context.Context) (bool, error) {
		be := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, ns, name+"-be", be); err != nil {
			return false, err
		}
		if stsImage(be) != target || !backReady(ctx, c, ns, name+"-be-2", before, f) {
			return false, nil
		}
		lost = f.LostTablets()
		return lost > 0, nil
	})
	t.Logf("with %s=%s the rollout went; %s-be-2 came back empty after %s: %d of 6 single-replica tablets lost",
		srv1.RolloutEphemeralStorageAnnotation, srv1.RolloutEphemeralStorageAllow, name, time.Since(start).Round(100*time.Millisecond), lost)
	if err := get(ctx, c.Client, ns, name, src); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError); cond != nil && cond.Reason == srv1.ReasonEphemeralStorageRefused {
		t.Errorf("ReconcileError still %s with the rollout allowed: %s", cond.Reason, cond.Message)
	}
	if n := warningsIn(ctx, t, c, ns, name, srv1.ReasonEphemeralStorage); n != 1 {
		t.Errorf("%d Warning Events %s, want 1", n, srv1.ReasonEphemeralStorage)
	}
	if err := c.Client.Delete(ctx, src); err != nil {
		t.Fatal(err)
	}
}

// backReady is true when pod is a new one (not the one in before), Ready,
// and FE lists every BE Alive: its BE process runs again (the registrar
// starts it then), so what LostTablets counts is gone with the storage,
// not down.
func backReady(ctx context.Context, c *testcluster.Cluster, ns, pod string, before map[string]string, f *simstarrocks.StarRocks) bool {
	p := &corev1.Pod{}
	if err := get(ctx, c.Client, ns, pod, p); err != nil {
		return false
	}
	return string(p.UID) != before[pod] && podReady(p) && aliveBEs(f) == 3
}
