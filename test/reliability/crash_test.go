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

package reliability_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/test/internal/testutil"
)

// SIGKILL the operator while clusters are being created, halfway through;
// start it again: every cluster converges, and no object is created twice.
func TestCrashWhileCreating(t *testing.T) {
	needCluster(t)
	const ns = "crash"
	n := size.crash
	fault, injected, clusters := "operator crash", "SIGKILL of the operator binary once a third of the FE StatefulSets exist, while clusters are still being created; restarted 2 s later", fmt.Sprintf("%d created", n)
	recorded := false
	defer func() {
		if !recorded {
			report.add(row{fault, injected, clusters, "**FAILED** (see the test log)", "-", "see the test log"})
		}
	}()
	testutil.CreateNamespace(t, cluster.Client, ns)
	l := startLedger(t, cluster, ns)
	kc := kubeconfig(t, cluster, "")
	op := startOperator(t, kc, "--namespace="+ns)

	ctx, cancel := context.WithTimeout(context.Background(), size.converge)
	defer cancel()
	// Created at about the pace the operator can follow, so that the kill
	// lands with some clusters done, some half-done and some not yet created.
	creates := spread(n, time.Duration(n)*100*time.Millisecond, func(i int) error {
		return createUntil(ctx, cluster, feOnly(ns, fmt.Sprintf("c-%d", i)))
	})
	var stss appsv1.StatefulSetList
	for len(stss.Items) < n/3 {
		if ctx.Err() != nil {
			t.Fatalf("only %d of %d FE StatefulSets before the deadline", len(stss.Items), n)
		}
		time.Sleep(20 * time.Millisecond)
		if err := cluster.Client.List(ctx, &stss, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
	}
	op.kill()
	killed := time.Now()
	before := snapshotUIDs(t, cluster.Client, ns)
	problems, err := divergence(ctx, cluster.Client, ns, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("killed with %d children existing; %d things not yet converged", len(before), len(problems))
	if len(problems) == 0 {
		t.Fatal("everything had converged before the kill: the test did not kill the operator in the middle of its work")
	}
	time.Sleep(2 * time.Second)
	startOperator(t, kc, "--namespace="+ns)
	restarted := time.Now()
	if err := creates(); err != nil {
		t.Fatal(err)
	}
	waitConverged(t, cluster, ns, n, size.converge)
	took := time.Since(restarted) // creations go on after the restart: counted in
	after := snapshotUIDs(t, cluster.Client, ns)
	for name, uid := range before {
		if after[name] != uid {
			t.Errorf("%s had UID %s before the kill, %q after", name, uid, after[name])
		}
	}
	if again := l.recreated(); len(again) > 0 {
		t.Fatalf("children deleted or created twice:\n%s", strings.Join(again, "\n"))
	}
	if got, want := l.objectsBy(3*n, 30*time.Second), 3*n; got != want {
		t.Fatalf("%d children ever seen, want %d", got, want)
	}
	if t.Failed() {
		return
	}
	t.Logf("converged %s after the restart (%s after the kill)", took.Round(time.Millisecond), time.Since(killed).Round(time.Millisecond))
	recorded = true
	report.add(row{fault, injected, clusters,
		fmt.Sprintf("killed with %d of %d children existing and %d divergences; after the restart all %d converged, the %d children kept their UIDs, %d children in all, each created once",
			len(before), 3*n, len(problems), n, len(before), 3*n),
		seconds(took) + " after the restart", "nothing"})
}
