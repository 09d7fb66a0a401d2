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

package crash_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/crash"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// A write kill point kills the operator process where it says: BeforeSent
// before the API server stores the write, AfterAccepted after (each is the
// other's control case), and the next process carries on from there.
func TestKillOnWriteKillsBeforeOrAfterTheAPIServerStoresIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the operator and starts a control plane")
	}
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	bin, err := crash.Build(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built %s in %s", bin, time.Since(start).Round(time.Millisecond))
	c := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")}})
	const ns = "crash"
	testutil.CreateNamespace(t, c.Client, ns)
	op := crash.New(t, crash.Options{Binary: bin, Cluster: c, Args: []string{"--namespace=" + ns}})

	// BeforeSent: killed with the StatefulSet's write in its hand.
	before := op.KillOnWrite(crash.Write{Resource: "statefulsets", Namespace: ns, Name: "before-fe", When: crash.BeforeSent})
	op.Start()
	create(t, c, feOnly(ns, "before"))
	k := killed(t, before)
	if err := c.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "before-fe"}, &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
		t.Errorf("before-fe after a kill BeforeSent its write: %v, want NotFound", err)
	}
	t.Logf("killed process %d at %q", k.Pid, k.What)

	// AfterAccepted: killed with the StatefulSet stored, its answer unread.
	after := op.KillOnWrite(crash.Write{Resource: "statefulsets", Namespace: ns, Name: "after-fe", When: crash.AfterAccepted})
	op.Start()
	converged(t, c, ns, "before")
	create(t, c, feOnly(ns, "after"))
	k = killed(t, after)
	stored := &appsv1.StatefulSet{}
	if err := c.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "after-fe"}, stored); err != nil {
		t.Fatalf("after-fe after a kill AfterAccepted its write: %v, want it stored", err)
	}
	t.Logf("killed process %d at %q", k.Pid, k.What)

	op.Start()
	converged(t, c, ns, "after")
	got := &appsv1.StatefulSet{}
	if err := c.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "after-fe"}, got); err != nil || got.UID != stored.UID {
		t.Errorf("after-fe once the next process converged: UID %s, %v; want the stored %s, kept", got.UID, err, stored.UID)
	}
}

func feOnly(ns, name string) *srv1.StarRocksCluster {
	return &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{
			StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/fe-ubuntu:3.3.2"}}}},
	}
}

func create(t *testing.T, c *testcluster.Cluster, o client.Object) {
	t.Helper()
	if err := c.Client.Create(t.Context(), o); err != nil {
		t.Fatal(err)
	}
}

func killed(t *testing.T, point <-chan crash.Killed) crash.Killed {
	t.Helper()
	select {
	case k := <-point:
		if !k.BySIGKILL {
			t.Errorf("process %d did not end by SIGKILL", k.Pid)
		}
		return k
	case <-time.After(time.Minute):
		t.Fatal("the kill point did not fire within a minute")
	}
	return crash.Killed{}
}

// converged waits until the cluster's status is of its generation and its
// FE StatefulSet and Services exist.
func converged(t *testing.T, c *testcluster.Cluster, ns, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		src := &srv1.StarRocksCluster{}
		if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, src); err != nil {
			return false, err
		}
		if src.Status.ObservedGeneration != src.Generation {
			return false, nil
		}
		for key, o := range map[string]client.Object{src.FeStatefulSetName(): &appsv1.StatefulSet{}, src.FeServiceName(): &corev1.Service{}, src.FeSearchServiceName(): &corev1.Service{}} {
			if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: key}, o); err != nil {
				return false, client.IgnoreNotFound(err)
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("cluster %s/%s did not converge: %v", ns, name, err)
	}
}

func init() {
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
}
