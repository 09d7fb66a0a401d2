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

// Package observability tests the dashboard and alerts shipped in the operator
// chart against the metrics the operator really serves.
package observability_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// TestDashboardAndAlertsNameServedMetrics runs the operator binary against a
// real API server, makes it write objects, scrapes /metrics and checks that
// every query of the dashboard and the alerts names a metric it serves, and
// that the write actions queried are the ones the operator counts.
func TestDashboardAndAlertsNameServedMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the operator and starts a control plane")
	}
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	queries := chartQueries(t, root)
	if len(queries) < 10 {
		t.Fatalf("found %d queries in the dashboard and alerts, want at least 10", len(queries))
	}

	cluster := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")}})
	kubeconfig, err := cluster.WriteKubeconfig("starrocks-operator", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := testcluster.BuildOperator(context.Background(), root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	addr := testutil.FreeAddrT(t)
	cmd := exec.CommandContext(t.Context(), bin, "--kubeconfig="+kubeconfig, "--metrics-bind-address="+addr, "--metrics-secure=false", "--health-probe-bind-address=0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	src := &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics", Namespace: "default"},
		Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{
			StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/fe-ubuntu:3.3", ResourceRequirements: corev1.ResourceRequirements{}},
		}}},
	}
	if err := cluster.Client.Create(t.Context(), src); err != nil {
		t.Fatal(err)
	}

	// Served once the operator has written the cluster's objects.
	served := map[string]bool{}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	if _, err := testutil.WaitHTTP(ctx, "http://"+addr+"/metrics", testutil.HTTPWait{Interval: 300 * time.Millisecond, Until: func(body []byte) bool {
		served = sampleNames(body)
		return served["starrocks_operator_object_writes_total"] && served["workqueue_depth"]
	}}); err != nil {
		t.Fatalf("the operator did not count an object write within 90s; it serves %d metrics (%v)", len(served), err)
	}

	// The backup metrics have a series per cluster and database, made when
	// a backup ends (the operator here runs none): they are served from
	// then on, and named by their descriptions.
	for _, c := range []prometheus.Collector{metrics.BackupLastSuccess, metrics.BackupConsecutiveFailures, metrics.ClusterSnapshotLastSuccess} {
		ch := make(chan *prometheus.Desc, 1)
		c.Describe(ch)
		if m := regexp.MustCompile(`fqName: "([^"]+)"`).FindStringSubmatch((<-ch).String()); m != nil {
			served[m[1]] = true
		}
	}

	actions := map[string]bool{}
	for _, a := range []apply.Action{apply.Created, apply.Updated, apply.Restored, apply.Deleted} {
		actions[string(a)] = true
	}
	for _, q := range queries {
		names := metricNames(q.expr)
		if len(names) == 0 {
			t.Errorf("%s: no metric selector in %q", q.where, q.expr)
		}
		for _, n := range names {
			if !served[n] {
				t.Errorf("%s: %s is not a metric the operator serves (query %q)", q.where, n, q.expr)
			}
		}
		for _, m := range regexp.MustCompile(`action=~?"([^"]*)"`).FindAllStringSubmatch(q.expr, -1) {
			for _, a := range strings.Split(m[1], "|") {
				if !actions[a] {
					t.Errorf("%s: action %q is not one the operator counts (%v)", q.where, a, actions)
				}
			}
		}
	}
}

type query struct{ where, expr string }

// chartQueries returns every PromQL expression of the dashboard and the alerts.
func chartQueries(t *testing.T, root string) []query {
	t.Helper()
	var qs []query
	data, err := os.ReadFile(filepath.Join(root, "charts", "operator", "files", "starrocks-operator-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			qs = append(qs, query{"dashboard panel " + p.Title, tg.Expr})
		}
	}
	data, err = os.ReadFile(filepath.Join(root, "charts", "operator", "files", "prometheus-rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct{ Alert, Expr string }
		}
	}
	if err := yaml.Unmarshal(data, &rules); err != nil {
		t.Fatalf("rules: %v", err)
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			qs = append(qs, query{"alert " + r.Alert, r.Expr})
		}
	}
	return qs
}

var (
	selector = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{`)
	braces   = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]|"[^"]*"`)
	ident    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promQL   = map[string]bool{"sum": true, "by": true, "rate": true, "histogram_quantile": true, "min_over_time": true, "le": true,
		"outcome": true, "kind": true, "action": true, "verb": true, "resource": true, "namespace": true, "pod": true, "max": true, "without": true,
		"time": true, "cluster": true, "database": true, "result": true}
)

// metricNames returns the metrics a PromQL expression selects. Every selector
// must be written with braces, so a bare name that is not PromQL is an error.
func metricNames(expr string) []string {
	var names []string
	for _, m := range selector.FindAllStringSubmatch(expr, -1) {
		names = append(names, m[1])
	}
	rest := selector.ReplaceAllString(expr, "{")
	for _, id := range ident.FindAllString(braces.ReplaceAllString(rest, ""), -1) {
		if !promQL[id] {
			names = append(names, id) // a bare selector or an unknown function: must be served to pass
		}
	}
	return names
}

// sampleNames returns the names of the samples in an answer of /metrics
// (with _bucket, _sum, _count).
func sampleNames(body []byte) map[string]bool {
	names := map[string]bool{}
	s := bufio.NewScanner(bytes.NewReader(body))
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.IndexAny(line, "{ "); i > 0 {
			names[line[:i]] = true
		}
	}
	return names
}
