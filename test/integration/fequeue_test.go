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
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/test/silentfe"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// TestFEWorkAndTheQueue measures what FEs that do not answer cost the
// reconcile queue: N shared-data clusters whose CN was scaled in, so that
// an operator that starts checks each with FE (the compute-node cleanup),
// and new clusters created meanwhile, which must not wait behind them. It is
// a measurement, not a pass/fail test: it runs only with
// SRSCALE_MEASURE_FE_QUEUE=1 (N from SRSCALE_MEASURE_FE_QUEUE_N, default
// 200) and logs, per FE mode, for the first minute of a new operator: the
// reconciles done, their time, the queue's depth, and how long the new
// clusters' FE StatefulSets took.
func TestFEWorkAndTheQueue(t *testing.T) {
	if os.Getenv("SRSCALE_MEASURE_FE_QUEUE") != "1" {
		t.Skip("a measurement: set SRSCALE_MEASURE_FE_QUEUE=1 to run it")
	}
	n := 200
	if v, err := strconv.Atoi(os.Getenv("SRSCALE_MEASURE_FE_QUEUE_N")); err == nil && v > 0 {
		n = v
	}
	c := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: crdPaths(t), Simulated: true})
	ctx := context.Background()
	const ns = "fequeue"
	testutil.CreateNamespace(t, c.Client, ns)
	conf := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fe-conf"}, Data: map[string]string{"fe.conf": feConfShared}}
	if err := c.Client.Create(ctx, conf); err != nil {
		t.Fatal(err)
	}
	// N clusters, their CN scaled 2 -> 1 while no operator talks to FE.
	setup := startOperator(t, c, ns, operatorOptions{workers: 8})
	for i := range n {
		src := feOnly(ns, fmt.Sprintf("q%d", i))
		src.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: conf.Name, ResolveKey: "fe.conf"}
		src.Spec.StarRocksCnSpec = &srv1.StarRocksCnSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/cn-ubuntu:3.3.2", Replicas: ptr.To(int32(2))}}}
		if err := c.Client.Create(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	cnSettled := func(replicas int32) {
		eventually(t, 5*time.Minute, fmt.Sprintf("every CN at %d", replicas), func(ctx context.Context) (bool, error) {
			var list appsv1.StatefulSetList
			if err := c.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
				return false, err
			}
			settled := 0
			for _, s := range list.Items {
				if s.Name[len(s.Name)-3:] == "-cn" && ptr.Deref(s.Spec.Replicas, 0) == replicas && s.Status.ObservedGeneration == s.Generation && s.Status.Replicas == replicas {
					settled++
				}
			}
			return settled == n, nil
		})
	}
	cnSettled(2)
	for i := range n {
		src := &srv1.StarRocksCluster{}
		if err := get(ctx, c.Client, ns, fmt.Sprintf("q%d", i), src); err != nil {
			t.Fatal(err)
		}
		mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksCnSpec.Replicas = ptr.To(int32(1)) })
	}
	cnSettled(1)
	setup.stop()

	hung := silentfe.Start(t).Address()
	healthy := simstarrocks.Start(t, simstarrocks.Options{SharedData: true})
	for round, mode := range []struct {
		name    string
		resolve fe.Resolver
	}{
		{"FE answers", func(fe.Target) (string, string) { return healthy.QueryAddress(), healthy.HTTPURL() }},
		{"FE hangs", func(fe.Target) (string, string) { return hung, "http://" + hung }},
	} {
		done0, hist0 := reconcileTotals(t)
		op := startOperator(t, c, ns, operatorOptions{fe: mode.resolve}) // 1 worker: the default, and the worst case
		start := time.Now()
		var newClusters []string
		for i := range 10 {
			name := fmt.Sprintf("new%d-%d", round, i)
			newClusters = append(newClusters, name)
			if err := c.Client.Create(ctx, feOnly(ns, name)); err != nil {
				t.Fatal(err)
			}
		}
		var created []time.Duration
		deadline := start.Add(time.Minute)
		for time.Now().Before(deadline) {
			created = created[:0]
			for _, name := range newClusters {
				sts := &appsv1.StatefulSet{}
				if err := get(ctx, c.Client, ns, name+"-fe", sts); err == nil {
					created = append(created, sts.CreationTimestamp.Sub(start))
				}
			}
			time.Sleep(500 * time.Millisecond)
		}
		done1, hist1 := reconcileTotals(t)
		slices.Sort(created)
		last := "not all within 60 s"
		if len(created) == len(newClusters) {
			last = fmt.Sprintf("last %.1f s", created[len(created)-1].Seconds())
		}
		t.Logf("%s, %d clusters to check, 1 worker, first 60 s: %.0f reconciles done (%d clusters in all), reconcile time median %s, p99 %s, queue depth now %.0f; 10 new clusters' FE StatefulSets: %d created, %s",
			mode.name, n, done1-done0, n+10, quantile(hist0, hist1, 0.5), quantile(hist0, hist1, 0.99), queueDepth(t), len(created), last)
		op.stop()
	}
}

// reconcileTotals is the StarRocksCluster controller's count of finished
// reconciles and its reconcile-time histogram (upper bound -> count).
func reconcileTotals(t *testing.T) (float64, map[float64]uint64) {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total, hist := 0.0, map[float64]uint64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if !labelIs(m, "controller", "starrockscluster") {
				continue
			}
			switch f.GetName() {
			case "controller_runtime_reconcile_total":
				total += m.GetCounter().GetValue()
			case "controller_runtime_reconcile_time_seconds":
				for _, b := range m.GetHistogram().GetBucket() {
					hist[b.GetUpperBound()] += b.GetCumulativeCount()
				}
			}
		}
	}
	return total, hist
}

// quantile is the upper bound of the bucket holding quantile q of the
// reconciles between two histogram readings.
func quantile(before, after map[float64]uint64, q float64) string {
	bounds := make([]float64, 0, len(after))
	for b := range after {
		bounds = append(bounds, b)
	}
	slices.Sort(bounds)
	if len(bounds) == 0 {
		return "-"
	}
	all := after[bounds[len(bounds)-1]] - before[bounds[len(bounds)-1]]
	if all == 0 {
		return "-"
	}
	for _, b := range bounds {
		if float64(after[b]-before[b]) >= q*float64(all) {
			return fmt.Sprintf("<= %gs", b)
		}
	}
	return "> the largest bucket"
}

// queueDepth is the StarRocksCluster controller's work queue depth.
func queueDepth(t *testing.T) float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "workqueue_depth" {
			continue
		}
		for _, m := range f.GetMetric() {
			if labelIs(m, "name", "starrockscluster") {
				return m.GetGauge().GetValue()
			}
		}
	}
	return 0
}

func labelIs(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}
