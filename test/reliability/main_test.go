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

// Package reliability_test injects faults between the operator binary and a
// real kube-apiserver (latency, connection resets, a blackout, an API server
// restart), kills the operator while it works, and kills the leader of two
// replicas; after each fault every cluster must converge to its latest spec
// with nothing created twice, deleted or orphaned.
//
// `go test ./reliability/` runs short versions (a few clusters, windows of
// seconds). RELIABILITY_FULL=1 runs the sizes of issue 14 (50 clusters created
// and 10 changed during each API fault, a 30 s blackout, 100 clusters for the
// crash), and RELIABILITY_REPORT=<file> writes the measured table there:
// `make reliability` does both and writes docs/reliability.md.
package reliability_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/srscale/starrocks-operator/test/testcluster"
)

// sizes are the fleet sizes and fault windows of one run.
type sizes struct {
	created, changed int           // clusters created, and existing clusters changed, during an API fault
	window           time.Duration // how long latency and reset faults last
	blackout         time.Duration
	crash            int // clusters being created when the operator is killed
	converge         time.Duration
}

var (
	short = sizes{created: 10, changed: 3, window: 5 * time.Second, blackout: 5 * time.Second, crash: 20, converge: 2 * time.Minute}
	full  = sizes{created: 50, changed: 10, window: 30 * time.Second, blackout: 30 * time.Second, crash: 100, converge: 5 * time.Minute}
	size  = short

	operatorBinary string
	cluster        *testcluster.Cluster
	report         = &results{}
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
	if os.Getenv("RELIABILITY_FULL") != "" {
		size = full
	}
	// -short skips the control plane altogether, as the other test packages do.
	if testing.Short() {
		return m.Run()
	}
	ctx := context.Background()
	root, err := testcluster.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "srscale-reliability-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if operatorBinary, err = testcluster.BuildOperator(ctx, root, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	report.start(size)
	cluster, err = testcluster.Start(ctx, testcluster.Options{
		CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")},
		Progress:          os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if err := cluster.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
	}
	if path := os.Getenv("RELIABILITY_REPORT"); path != "" {
		if code != 0 {
			fmt.Fprintf(os.Stderr, "reliability: tests failed, %s left unchanged\n", path)
		} else if err := report.write(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return code
}

func needCluster(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a control plane and the operator binary")
	}
}
