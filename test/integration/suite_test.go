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
	"flag"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap/zapcore"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller"
	"github.com/srscale/starrocks-operator/internal/controller/backup"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/options"
	"github.com/srscale/starrocks-operator/internal/scheme"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

func init() {
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
}

// integrationParallel is how many tests marked t.Parallel run at once when
// -parallel is not given. Each runs a control plane of its own and mostly
// waits on StarRocks' clocks (heartbeats, decommissions, catch-up): a run
// of this package kept the 2 cores under a third busy at go test's
// default of GOMAXPROCS (2), and the longest test could start last.
const integrationParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", fmt.Sprint(integrationParallel)); err != nil {
			panic(err)
		}
	}
	m.Run()
}

func crdPaths(t testing.TB) []string {
	t.Helper()
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return []string{filepath.Join(root, "config", "crd", "bases")}
}

// request is one request the operator sent, as a counting transport saw it.
type request struct {
	verb, resource, path string
	code                 int
	// start is when the request was sent, end when its response came.
	start, end time.Time
}

// requestLog counts the operator's requests at its client: what the API server receives from it.
type requestLog struct {
	mu   sync.Mutex
	reqs []request
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		verb, res := metrics.Classify(req.Method, req.URL.Path, req.URL.Query().Get("watch") == "true")
		start := time.Now()
		resp, err := rt.RoundTrip(req)
		end := time.Now()
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		l.mu.Lock()
		l.reqs = append(l.reqs, request{verb: verb, resource: res, path: req.URL.Path, code: code, start: start, end: end})
		l.mu.Unlock()
		return resp, err
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (l *requestLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.reqs)
}

func (l *requestLog) since(mark int) []request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]request(nil), l.reqs[mark:]...)
}

// waitQuiet waits until the operator sent nothing for quiet, at most limit.
func (l *requestLog) waitQuiet(quiet, limit time.Duration) {
	deadline := time.Now().Add(limit)
	last, lastChange := l.mark(), time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		if n := l.mark(); n != last {
			last, lastChange = n, time.Now()
		} else if time.Since(lastChange) >= quiet {
			return
		}
	}
}

func isWrite(r request) bool {
	switch r.verb {
	case "create", "update", "patch", "delete":
		return true
	}
	return false
}

func isEvent(r request) bool { return r.resource == "events" }
func isLease(r request) bool { return r.resource == "leases" }
func summary(rs []request) string {
	counts := map[string]int{}
	for _, r := range rs {
		counts[fmt.Sprintf("%s %s %d", r.verb, r.resource, r.code)]++
	}
	var lines []string
	for k, n := range counts {
		lines = append(lines, fmt.Sprintf("%3d × %s", n, k))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// operator is a running manager with the StarRocksCluster controller, limited to one namespace.
type operator struct {
	log    *requestLog
	cancel context.CancelFunc
	done   chan error
}

type operatorOptions struct {
	syncPeriod time.Duration
	workers    int
	denyList   []string
	// fe locates FE for the features that talk to StarRocks; nil means DNS.
	fe fe.Resolver
	// feLookEvery spaces the reads of a cluster's FE; zero is the operator's default.
	feLookEvery time.Duration
	// feCredentials is --fe-credentials-secret; empty logs in as root.
	feCredentials types.NamespacedName
	// imageWaitLimit bounds each metadata image step of a version change;
	// zero is the operator's (starrocks.ImageWaitLimit).
	imageWaitLimit time.Duration
	// backup, when set, is --enable-backup with these settings.
	backup *backup.Config
	// api, when set, is a toxiproxy the operator reaches its API server through.
	api *apiProxy
}

func startOperator(t *testing.T, c *testcluster.Cluster, namespace string, oo operatorOptions) *operator {
	t.Helper()
	opts := options.Default()
	opts.Namespace = namespace
	opts.MetricsBindAddress, opts.HealthProbeBindAddress = "0", "0"
	if oo.syncPeriod > 0 {
		opts.SyncPeriod = oo.syncPeriod
	}
	if oo.workers > 0 {
		opts.MaxConcurrentReconciles = oo.workers
	}
	cfg := rest.CopyConfig(c.Config)
	if oo.api != nil {
		cfg = oo.api.config(cfg)
	}
	opts.ApplyToRESTConfig(cfg)
	log := &requestLog{}
	cfg.Wrap(log.wrap)
	mo := opts.ManagerOptions(scheme.New())
	if err := options.UseConnections(&mo, cfg); err != nil {
		t.Fatal(err)
	}
	controller.ScopeCache(&mo.Cache)
	mo.Controller.SkipNameValidation = ptr.To(true) // several managers in one test process
	mgr, err := ctrl.NewManager(cfg, mo)
	if err != nil {
		t.Fatal(err)
	}
	cc := controller.Config{Controller: opts.ControllerOptions(), Namespace: namespace, DenyList: oo.denyList, FE: oo.fe, FELookEvery: oo.feLookEvery, SyncPeriod: opts.SyncPeriod, FECredentials: oo.feCredentials, ImageWaitLimit: oo.imageWaitLimit}
	if oo.backup != nil {
		cc.EnableBackup, cc.Backup = true, *oo.backup
	}
	if err := controller.SetupWithManager(mgr, cc); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	op := &operator{log: log, cancel: cancel, done: make(chan error, 1)}
	go func() { op.done <- mgr.Start(ctx) }()
	t.Cleanup(op.stop)
	return op
}

func (o *operator) stop() {
	if o.cancel == nil {
		return
	}
	o.cancel()
	o.cancel = nil
	<-o.done
}

func reconciles() float64 {
	var n float64
	for _, outcome := range []string{"unchanged", "changed", "error"} {
		n += testutil.ToFloat64(metrics.ReconcileOutcomes.WithLabelValues(outcome))
	}
	return n
}

func feOnly(ns, name string) *srv1.StarRocksCluster {
	return &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: srv1.StarRocksClusterSpec{
			StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/fe-ubuntu:3.3.2"}}},
		},
	}
}

// eventually polls cond every 100 ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func get(ctx context.Context, c client.Client, ns, name string, obj client.Object) error {
	return c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj)
}

// mutate re-reads obj and applies change until the update does not conflict
// with the operator's own writes.
func mutate[T client.Object](t *testing.T, c client.Client, obj T, change func(T)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change(obj)
		return c.Update(context.Background(), obj)
	})
	if err != nil {
		t.Fatal(err)
	}
}
