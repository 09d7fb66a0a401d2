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
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// A grace period that kills FE before its graceful exit can end (60 s,
// max_graceful_exit_time_second) is told in GracefulExitCutShort, and the
// condition turns False once the user takes the value back
// (docs/upgrades.md, "Pod termination and the graceful exit").
func testGracefulExitCutShort(t *testing.T, c *testcluster.Cluster) {
	const ns = "grace"
	testutil.CreateNamespace(t, c.Client, ns)
	refused := func(fe.Target) (string, string) { return "127.0.0.1:1", "http://127.0.0.1:1" }
	startOperator(t, c, ns, operatorOptions{fe: refused})
	src := feOnly(ns, "g1")
	src.Spec.StarRocksFeSpec.TerminationGracePeriodSeconds = ptr.To[int64](30)
	if err := c.Client.Create(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	waitCondition := func(what string, ok func(*metav1.Condition) bool) {
		t.Helper()
		var last *metav1.Condition
		eventually(t, 30*time.Second, what, func(ctx context.Context) (bool, error) {
			if err := get(ctx, c.Client, ns, "g1", src); err != nil {
				return false, err
			}
			last = meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionGracefulExitCutShort)
			return last != nil && ok(last), nil
		})
	}
	waitCondition("GracefulExitCutShort True for a grace of 30 s", func(c *metav1.Condition) bool {
		return c.Status == metav1.ConditionTrue && c.Reason == srv1.ReasonTimingFightsGracefulExit &&
			strings.Contains(c.Message, "FE: terminationGracePeriodSeconds 30 kills FE")
	})
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksFeSpec.TerminationGracePeriodSeconds = nil })
	waitCondition("GracefulExitCutShort False with the default grace", func(c *metav1.Condition) bool {
		return c.Status == metav1.ConditionFalse && c.Reason == srv1.ReasonTimingFitsGracefulExit
	})
}
