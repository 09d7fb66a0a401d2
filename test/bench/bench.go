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

// Package bench measures the operator the way the motivating article did:
// a real kube-apiserver with its audit log on, a latency proxy between the
// operator and the API server, N clusters created at once, and the operator
// binary itself under each knob setting. cmd/srbench is its command line.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

const (
	// OperatorUser is the operator's identity in the audit log.
	OperatorUser = "starrocks-operator"
	namespace    = "bench"
)

// Config is one run of one preset. Zero values take the preset's.
type Config struct {
	Preset Preset
	// RepoRoot holds config/crd/bases and cmd/starrocks-operator.
	RepoRoot string
	// OperatorBinary is a built operator; empty builds one into WorkDir.
	OperatorBinary string
	// WorkDir keeps audit logs, kubeconfigs and operator logs (default: a temp dir).
	WorkDir string
	// Timeout bounds the wait for every cluster to reach the stage, per setting.
	Timeout time.Duration
	// Quiet is how long the operator must not reconcile for creation to count as settled.
	Quiet time.Duration
	// Progress receives a progress line (clusters done / N, elapsed) and
	// start-up messages; TTY redraws one line in place.
	Progress io.Writer
	TTY      bool
	// CPUProfile, when positive, records CPU profiles of the operator and of
	// kube-apiserver for this long from the first create, into cpu.pprof and
	// apiserver.pprof in the setting's directory.
	CPUProfile time.Duration
	// Timeline runs the operator with controller-runtime's reconcile log
	// (level 5) and reports the timeline of the median and the last
	// cluster: its create, reconciles, writes and watch events.
	Timeline bool
	// HeapProfile, after the steady window, saves the operator's heap
	// (heap-created.pprof), deletes every cluster and its objects, waits
	// for the operator to settle, and saves it again (heap-deleted.pprof).
	HeapProfile bool
	// Variation is how the API server and the creation differ from the
	// article's setup (see Variation); the zero value is that setup.
	Variation Variation
	// Label names the operator binary in the report (summaries compare
	// runs by label), e.g. "now" and "base".
	Label string
}

// Result is one setting's measurements.
type Result struct {
	Setting Setting `json:"setting"`
	N       int     `json:"n"`
	// Completed clusters reached the stage within the timeout.
	Completed int `json:"completed"`
	// CreatedSeconds: first create until the benchmark had created all N; no
	// operator can finish before it.
	CreatedSeconds float64 `json:"createdSeconds"`
	// CompletionSeconds: first create until the last cluster reached the stage.
	CompletionSeconds float64 `json:"completionSeconds"`
	// DoneSeconds are each cluster's times to the stage, sorted.
	DoneSeconds []float64 `json:"doneSeconds"`
	// AllSeconds: first create until the last cluster had every object (FE
	// StatefulSet and both FE Services) and its status written
	// (observedGeneration current); for stage ready, the same as completion.
	AllSeconds   float64 `json:"allSeconds"`
	AllCompleted int     `json:"allCompleted"`
	// Audit: the last object created and status written, by the audit log.
	Audit AuditMarks `json:"audit"`
	// OwnCreate: the same, each cluster from its own create (what a paced
	// creation is measured by).
	OwnCreate ClusterMarks `json:"fromOwnCreate"`
	// Allocations: the API server's ClusterIP allocations meanwhile (its
	// IPAddress creates, which the audit policy logs for every user).
	Allocations *Allocations `json:"clusterIPAllocations,omitempty"`
	// Overlap: how the operator's StatefulSet creates and its other writes
	// met on the API server.
	Overlap Overlap `json:"overlap"`
	// BusyCPU is, for a busy variation, the CPU seconds per second each
	// process took in the second before the first create (the load alone).
	BusyCPU map[string]float64 `json:"busyCpu,omitempty"`
	// LastWriteSeconds: first create until the operator's last write before the steady window.
	LastWriteSeconds float64 `json:"lastWriteSeconds"`
	// SettledSeconds: first create until the operator stopped reconciling.
	SettledSeconds float64 `json:"settledSeconds"`
	// Creation counts the operator's requests from the first create until settled.
	Creation requestCounts `json:"creation"`
	// Timings are the API server's handling time and the arrival times of
	// those requests, by verb and resource.
	Timings map[string]timing `json:"timings"`
	// WritesAfterCompletion: writes from completion to the end of the steady window.
	WritesAfterCompletion int `json:"writesAfterCompletion"`
	// Steady counts requests in the window after settling.
	SteadyWindowSeconds float64       `json:"steadyWindowSeconds"`
	Steady              requestCounts `json:"steady"`
	// CreationReconciles ran from the start until creation settled.
	CreationReconciles float64 `json:"creationReconciles"`
	// SteadyReconciles ran in the steady window (resyncs): they should cost no request.
	SteadyReconciles float64 `json:"steadyReconciles"`
	// ThrottledRequests and ThrottledSeconds come from the operator's own
	// metrics: every request that waited for the client-side rate limiter.
	ThrottledRequests float64 `json:"throttledRequests"`
	ThrottledSeconds  float64 `json:"throttledSeconds"`
	// ThrottleLogLines counts client-go's "client-side throttling" log lines
	// (client-go logs only waits over 1 s, at most once per 10 s, at default verbosity).
	ThrottleLogLines int `json:"throttleLogLines"`
	// CPUSeconds (user+system, /proc) and PeakRSSMiB (VmHWM) of the operator process over the whole setting.
	CPUSeconds       float64 `json:"cpuSeconds"`
	CPUSecondsMetric float64 `json:"cpuSecondsMetric"`
	PeakRSSMiB       float64 `json:"peakRssMiB"`
	// CreationCPU is the CPU seconds of the operator, kube-apiserver and
	// etcd from the first create until the operator settled.
	CreationCPU map[string]float64 `json:"creationCpuSeconds,omitempty"`
	// HeapCreatedMiB and HeapDeletedMiB are, with Config.HeapProfile, the
	// operator's live heap (after a GC) with every cluster, and after they
	// were all deleted; DeleteSettledSeconds how long the operator took to
	// settle after the deletes.
	HeapCreatedMiB       float64 `json:"heapCreatedMiB,omitempty"`
	HeapDeletedMiB       float64 `json:"heapDeletedMiB,omitempty"`
	DeleteSettledSeconds float64 `json:"deleteSettledSeconds,omitempty"`
	// Timeline is, with Config.Timeline, what happened to the median and
	// the last cluster to have every object, and each step's spread over all.
	Timeline *Timeline `json:"timeline,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// PerCluster is a creation count divided by N.
func (r Result) PerCluster(n int) float64 { return float64(n) / float64(max(r.N, 1)) }

// SteadyRate is requests per second in the steady window.
func (r Result) SteadyRate() float64 {
	if r.SteadyWindowSeconds == 0 {
		return 0
	}
	return float64(r.Steady.Total) / r.SteadyWindowSeconds
}

// Run runs every setting of the preset, each against a fresh control plane
// and a fresh operator, one after another.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Timeout == 0 {
		cfg.Timeout = 15 * time.Minute
	}
	if cfg.Quiet == 0 {
		cfg.Quiet = 6 * time.Second // longer than the operator's 5 s requeue of a pending write
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "srbench-")
		if err != nil {
			return nil, err
		}
		cfg.WorkDir = dir
	}
	if cfg.OperatorBinary == "" {
		fmt.Fprintf(cfg.Progress, "srbench: building the operator into %s\n", cfg.WorkDir)
		bin, err := testcluster.BuildOperator(ctx, cfg.RepoRoot, cfg.WorkDir)
		if err != nil {
			return nil, err
		}
		cfg.OperatorBinary = bin
	}
	if err := cfg.Variation.Validate(); err != nil {
		return nil, err
	}
	rep := &Report{Preset: cfg.Preset, Started: time.Now(), Variation: cfg.Variation, Label: cfg.Label}
	for i, s := range cfg.Preset.Settings {
		dir := filepath.Join(cfg.WorkDir, fmt.Sprintf("%s-%d", cfg.Preset.Name, i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		res, err := runSetting(ctx, cfg, s, dir)
		if err != nil {
			res.Error = err.Error()
			fmt.Fprintf(cfg.Progress, "srbench: %s/%s failed: %v\n", cfg.Preset.Name, s.Name, err)
		}
		rep.Results = append(rep.Results, res)
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	rep.Finished = time.Now()
	return rep, nil
}

func runSetting(ctx context.Context, cfg Config, s Setting, dir string) (Result, error) {
	p := cfg.Preset
	res := Result{Setting: s, N: p.N}
	label := p.Name + "/" + s.Name
	fmt.Fprintf(cfg.Progress, "srbench: %s: starting a fresh control plane (%s)\n", label, s.Knobs())

	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy(OperatorUser, true)), 0o600); err != nil {
		return res, err
	}
	auditLog := filepath.Join(dir, "audit.log")
	cluster, err := testcluster.Start(ctx, testcluster.Options{
		CRDDirectoryPaths: []string{filepath.Join(cfg.RepoRoot, "config", "crd", "bases")},
		AuditPolicyFile:   policy,
		AuditLogPath:      auditLog,
		Simulated:         p.Simulated,
		Nodes:             3,
	})
	if err != nil {
		return res, err
	}
	defer func() {
		if err := cluster.Stop(); err != nil {
			fmt.Fprintf(cfg.Progress, "srbench: %s: stopping the control plane: %v\n", label, err)
		}
	}()

	upstream, err := url.Parse(cluster.Config.Host)
	if err != nil {
		return res, fmt.Errorf("parsing the API server address %q: %w", cluster.Config.Host, err)
	}
	kubeconfig, err := operatorKubeconfig(cluster, filepath.Join(dir, "operator.kubeconfig"), func(user *rest.Config) (string, []byte, func(), error) {
		if cfg.Variation.LatencyMode == LatencyRequest {
			rp, err := startRequestProxy(upstream, user, p.Latency)
			if err != nil {
				return "", nil, nil, err
			}
			return rp.Addr, rp.CA, rp.Stop, nil
		}
		proxy, err := startLatencyProxy(upstream.Host, p.Latency)
		if err != nil {
			return "", nil, nil, err
		}
		return proxy.Addr, nil, proxy.Stop, nil
	})
	if err != nil {
		return res, err
	}
	defer kubeconfig.stop()
	if err := cluster.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		return res, err
	}
	watcher, err := startWatcher(ctx, cluster, p)
	if err != nil {
		return res, err
	}
	defer watcher.stop()

	var pprofAddr string
	if cfg.CPUProfile > 0 || cfg.HeapProfile {
		if pprofAddr, err = testutil.FreeAddr(); err != nil {
			return res, err
		}
	}
	var extra []string
	if cfg.Timeline {
		extra = []string{"--zap-log-level=5", "--zap-time-encoding=rfc3339nano"}
	}
	op, err := startOperator(cfg.OperatorBinary, kubeconfig.path, filepath.Join(dir, "operator.log"), s, pprofAddr, extra...)
	if err != nil {
		return res, err
	}
	defer op.stop()
	if err := op.waitStarted(ctx, 2*time.Minute); err != nil {
		return res, err
	}

	profiled := make(chan error, 2)
	if cfg.CPUProfile > 0 {
		go func() {
			profiled <- cpuProfile(ctx, http.DefaultClient, "http://"+pprofAddr, cfg.CPUProfile, filepath.Join(dir, "cpu.pprof"))
		}()
		go func() {
			hc, err := rest.HTTPClientFor(cluster.Config)
			if err == nil {
				err = cpuProfile(ctx, hc, strings.TrimSuffix(cluster.Config.Host, "/"), cfg.CPUProfile, filepath.Join(dir, "apiserver.pprof"))
			}
			profiled <- err
		}()
	} else {
		profiled <- nil
		profiled <- nil
	}
	// In 2 of 11 rounds of burst on 2026-12-01 the benchmark's own creates
	// took 2.2-2.3 s instead of 0.12 s, right after an operator that had
	// started its workers early: the API server was not ready for them yet.
	// One dry-run create first, untimed and never seen by the operator, so
	// that the clock measures the operator and not the API server's warm-up.
	if d, err := warmCreate(ctx, cluster.Client, p); err != nil {
		return res, err
	} else if d > 100*time.Millisecond {
		fmt.Fprintf(cfg.Progress, "srbench: %s: a dry-run create waited %s for the API server before the clock started\n", label, d.Round(time.Millisecond))
	}
	if cfg.Variation.Busy != "" {
		stopBusy, err := startBusy(ctx, cfg.Variation, cluster.Client)
		if err != nil {
			return res, err
		}
		defer stopBusy()
		time.Sleep(time.Second) // steady before measuring it
		before := controlPlaneCPU()
		time.Sleep(time.Second)
		res.BusyCPU = controlPlaneCPU()
		for k, v := range before {
			res.BusyCPU[k] -= v
		}
		fmt.Fprintf(cfg.Progress, "srbench: %s: %s: kube-apiserver %.2f, etcd %.2f, the benchmark %.2f, the hog %.2f CPU-seconds per second before the first create\n",
			label, cfg.Variation.Name(), res.BusyCPU["kube-apiserver"], res.BusyCPU["etcd"], res.BusyCPU["srbench"], res.BusyCPU["hog"])
	}
	// Creation: as fast as the benchmark's own (unproxied, high-QPS) client
	// can, or at the variation's pace.
	cpuBefore := controlPlaneCPU()
	if st, err := op.procStats(); err == nil {
		cpuBefore["operator"] = st.CPUSeconds
	}
	first := time.Now()
	created, err := createClusters(ctx, cluster.Client, p, cfg.Variation.Pace)
	if err != nil {
		return res, err
	}
	res.CreatedSeconds = time.Since(first).Seconds()
	stopProgress := progress(cfg, label, p.N, first, watcher)
	completed, err := watcher.wait(ctx, p.N, first.Add(cfg.Timeout), op, false)
	stopProgress()
	res.Completed = len(completed)
	for _, t := range completed {
		res.DoneSeconds = append(res.DoneSeconds, t.Sub(first).Seconds())
	}
	var completion time.Time
	if len(completed) > 0 {
		completion = completed[len(completed)-1]
		res.CompletionSeconds = completion.Sub(first).Seconds()
	}
	if err != nil {
		return res, err
	}
	allDone, err := watcher.wait(ctx, p.N, first.Add(cfg.Timeout), op, true)
	res.AllCompleted = len(allDone)
	if len(allDone) > 0 {
		res.AllSeconds = allDone[len(allDone)-1].Sub(first).Seconds()
	}
	if err != nil {
		return res, fmt.Errorf("every object and the status: %w", err)
	}

	settled, settledReconciles, err := waitSettled(ctx, op, cfg.Quiet, 3*time.Minute)
	if err != nil {
		return res, err
	}
	if err := errors.Join(<-profiled, <-profiled); err != nil {
		return res, err
	}
	res.SettledSeconds = settled.Sub(first).Seconds()
	res.CreationReconciles = settledReconciles
	res.CreationCPU = controlPlaneCPU()
	if st, err := op.procStats(); err == nil {
		res.CreationCPU["operator"] = st.CPUSeconds
	}
	for k, v := range cpuBefore {
		res.CreationCPU[k] -= v
	}
	fmt.Fprintf(cfg.Progress, "srbench: %s: all %d at %s in %.2f s, settled after %.1f s; steady window %s\n",
		label, p.N, p.Stage, res.CompletionSeconds, res.SettledSeconds, p.SteadyWindow)
	// Creation is counted up to here; the steady window starts Quiet after the last reconcile.
	steadyFrom := time.Now()
	select {
	case <-time.After(p.SteadyWindow):
	case <-ctx.Done():
		return res, ctx.Err()
	}
	steadyTo := time.Now()

	if cfg.HeapProfile {
		if err := deleteAndProfile(ctx, cfg, cluster, op, "http://"+pprofAddr, dir, &res); err != nil {
			return res, err
		}
	}
	metrics, err := op.scrape(ctx)
	if err != nil {
		return res, err
	}
	// A throttled request waited 5 ms or more for the client-side rate limiter.
	res.ThrottledRequests = metrics["rest_client_rate_limiter_duration_seconds_over_5ms"]
	res.ThrottledSeconds = metrics["rest_client_rate_limiter_duration_seconds_sum"]
	res.CPUSecondsMetric = metrics["process_cpu_seconds_total"]
	res.SteadyReconciles = metrics["starrocks_operator_reconciles_total"] - settledReconciles
	st, err := op.procStats()
	if err != nil {
		return res, err
	}
	res.CPUSeconds, res.PeakRSSMiB = st.CPUSeconds, st.PeakRSSMiB
	op.stop()
	res.ThrottleLogLines = op.throttleLogLines()

	reqs, err := readAudit(auditLog, OperatorUser)
	if err != nil {
		return res, err
	}
	res.Creation = countRequests(reqs, first, steadyFrom)
	res.Timings = timings(reqs, first, steadyFrom)
	if lw := lastWrite(reqs, first, steadyFrom); !lw.IsZero() {
		res.LastWriteSeconds = lw.Sub(first).Seconds()
	}
	res.Audit = auditMarks(reqs, first, steadyFrom)
	res.OwnCreate = clusterMarks(reqs, created, first, steadyFrom)
	res.WritesAfterCompletion = countRequests(reqs, completion, steadyTo).Writes
	res.SteadyWindowSeconds = steadyTo.Sub(steadyFrom).Seconds()
	res.Steady = countRequests(reqs, steadyFrom, steadyTo)
	if res.Creation.Total == 0 {
		return res, errors.New("the audit log holds no request of the operator: is the audit policy right?")
	}
	all, err := readAudit(auditLog, "")
	if err != nil {
		return res, err
	}
	res.Allocations = allocationsOf(all, first, steadyFrom)
	res.Overlap = overlapOf(reqs, first, steadyFrom)
	if cfg.Timeline {
		tl, err := buildTimeline(first, created, watcher.seen(), reqs, filepath.Join(dir, "operator.log"))
		if err != nil {
			return res, fmt.Errorf("timeline: %w", err)
		}
		res.Timeline = tl
		tl.Allocations = res.Allocations
	}
	return res, nil
}

// deleteAndProfile saves the operator's heap, deletes every cluster and its
// objects (no garbage collector runs without kube-controller-manager),
// waits for the operator to settle, and saves its heap again.
func deleteAndProfile(ctx context.Context, cfg Config, cluster *testcluster.Cluster, op *operatorProcess, pprof, dir string, res *Result) error {
	heap := func(name string) (float64, error) {
		if err := heapProfile(ctx, pprof, filepath.Join(dir, name)); err != nil {
			return 0, err
		}
		m, err := op.scrape(ctx)
		return m["go_memstats_heap_alloc_bytes"] / (1 << 20), err
	}
	var err error
	if res.HeapCreatedMiB, err = heap("heap-created.pprof"); err != nil {
		return err
	}
	start := time.Now()
	fmt.Fprintf(cfg.Progress, "srbench: %s: deleting the %d clusters and their objects\n", cfg.Preset.Name, cfg.Preset.N)
	// One by one, 32 at once: a delete of 20,000 Services as one collection
	// outlasts the API server's request timeout.
	lists := []client.ObjectList{&srv1.StarRocksClusterList{}, &appsv1.StatefulSetList{}, &corev1.ServiceList{}}
	for _, list := range lists {
		if err := cluster.Client.List(ctx, list, client.InNamespace(namespace)); err != nil {
			return fmt.Errorf("listing %T: %w", list, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		if err := forEach(len(items), 32, func(i int) error {
			return client.IgnoreNotFound(cluster.Client.Delete(ctx, items[i].(client.Object)))
		}); err != nil {
			return fmt.Errorf("deleting %T: %w", list, err)
		}
	}
	settled, _, err := waitSettled(ctx, op, cfg.Quiet, 10*time.Minute)
	if err != nil {
		return err
	}
	res.DeleteSettledSeconds = settled.Sub(start).Seconds()
	res.HeapDeletedMiB, err = heap("heap-deleted.pprof")
	return err
}

// forEach calls f for 0..n-1 from parallel goroutines and returns the errors.
func forEach(n, parallel int, f func(int) error) error {
	var (
		next int64 = -1
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for range parallel {
		wg.Go(func() {
			for i := int(atomic.AddInt64(&next, 1)); i < n; i = int(atomic.AddInt64(&next, 1)) {
				if err := f(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// kubeconfigFile is the operator's kubeconfig and the proxy it points at.
type kubeconfigFile struct {
	path string
	stop func()
}

// operatorKubeconfig gives the operator a user of its own (so that the audit
// log can tell its requests apart) whose server is a proxy that proxy
// starts for that user: its address, and the certificate authority of its
// serving certificate (nil: the API server's own, valid for 127.0.0.1, so
// that TLS through a TCP proxy still verifies).
func operatorKubeconfig(c *testcluster.Cluster, path string, proxy func(user *rest.Config) (addr string, ca []byte, stop func(), err error)) (*kubeconfigFile, error) {
	user, raw, err := c.AddUser(OperatorUser, "system:masters")
	if err != nil {
		return nil, err
	}
	kc, err := clientcmd.Load(raw)
	if err != nil {
		return nil, err
	}
	addr, ca, stop, err := proxy(user)
	if err != nil {
		return nil, err
	}
	for _, cl := range kc.Clusters {
		cl.Server = "https://" + addr
		if ca != nil {
			cl.CertificateAuthorityData, cl.CertificateAuthority = ca, ""
		}
	}
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		stop()
		return nil, err
	}
	return &kubeconfigFile{path: path, stop: stop}, nil
}

func newCluster(p Preset, i int) *srv1.StarRocksCluster {
	load := func(image string) srv1.StarRocksComponentSpec {
		return srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: image, Replicas: ptr.To[int32](1)}}
	}
	src := &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("sr-%04d", i)},
		Spec: srv1.StarRocksClusterSpec{
			StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: load("starrocks/fe-ubuntu:3.3.2")},
		},
	}
	if p.Simulated {
		src.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: load("starrocks/be-ubuntu:3.3.2")}
		src.Spec.StarRocksCnSpec = &srv1.StarRocksCnSpec{StarRocksComponentSpec: load("starrocks/cn-ubuntu:3.3.2")}
	}
	return src
}

// warmCreate sends one server-side dry-run create of a cluster, which the
// operator never sees, and says how long it took.
func warmCreate(ctx context.Context, c client.Client, p Preset) (time.Duration, error) {
	start := time.Now()
	if err := c.Create(ctx, newCluster(p, 0), client.DryRunAll); err != nil {
		return 0, fmt.Errorf("dry-run create before the clock: %w", err)
	}
	return time.Since(start), nil
}

// createClusters creates the preset's clusters, at pace per second if
// positive, and returns when each create returned, by name.
func createClusters(ctx context.Context, c client.Client, p Preset, pace float64) (map[string]time.Time, error) {
	start := time.Now()
	const parallel = 32
	var (
		next    int64 = -1
		wg      sync.WaitGroup
		mu      sync.Mutex
		errs    []error
		created = make(map[string]time.Time, p.N)
	)
	for range parallel {
		wg.Go(func() {
			for i := int(atomic.AddInt64(&next, 1)); i < p.N; i = int(atomic.AddInt64(&next, 1)) {
				src := newCluster(p, i)
				err := pacedSlot(ctx, start, i, pace)
				if err == nil {
					err = c.Create(ctx, src)
				}
				now := time.Now()
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("creating cluster %d: %w", i, err))
					mu.Unlock()
					return
				}
				created[src.Name] = now
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return created, errors.Join(errs...)
}

// watcher records when each cluster first reached the stage, and when every
// object of it existed with its status written, from informers of the
// benchmark's own (unproxied, unaudited) client.
type watcher struct {
	cache  crcache.Cache
	cancel context.CancelFunc
	mu     sync.Mutex
	done   map[string]time.Time
	// parts has a bit per object of the cluster seen so far (see allParts);
	// all holds when the last of them appeared.
	parts map[string]part
	all   map[string]time.Time
	// partSeen is when each part of each cluster was first seen.
	partSeen map[string]map[part]time.Time
	change   chan struct{}
}

// part is one thing that must exist for a cluster to count as complete.
type part uint8

const (
	partFEStatefulSet part = 1 << iota
	partFEService
	partFESearch
	partStatus
	allParts = partFEStatefulSet | partFEService | partFESearch | partStatus
)

// partOf says which cluster an object belongs to and which part it is.
func partOf(o any) (string, part) {
	cut := func(name, suffix string) (string, bool) {
		if len(name) <= len(suffix) || name[len(name)-len(suffix):] != suffix {
			return "", false
		}
		return name[:len(name)-len(suffix)], true
	}
	switch t := o.(type) {
	case *appsv1.StatefulSet:
		if c, ok := cut(t.Name, "-fe"); ok {
			return c, partFEStatefulSet
		}
	case *corev1.Service:
		if c, ok := cut(t.Name, "-fe-service"); ok {
			return c, partFEService
		}
		if c, ok := cut(t.Name, "-fe-search"); ok {
			return c, partFESearch
		}
	case *srv1.StarRocksCluster:
		if t.Status.Phase != "" && t.Status.ObservedGeneration == t.Generation {
			return t.Name, partStatus
		}
	}
	return "", 0
}

func startWatcher(ctx context.Context, c *testcluster.Cluster, p Preset) (*watcher, error) {
	cache, err := crcache.New(c.Config, crcache.Options{Scheme: c.Scheme, DefaultNamespaces: map[string]crcache.Config{namespace: {}}})
	if err != nil {
		return nil, err
	}
	w := &watcher{cache: cache, done: map[string]time.Time{}, parts: map[string]part{}, all: map[string]time.Time{},
		partSeen: map[string]map[part]time.Time{}, change: make(chan struct{}, 1)}
	record := func(o any) {
		now := time.Now()
		name, pt := partOf(o)
		w.mu.Lock()
		if pt != 0 {
			if w.partSeen[name] == nil {
				w.partSeen[name] = map[part]time.Time{}
			}
			if _, ok := w.partSeen[name][pt]; !ok {
				w.partSeen[name][pt] = now
			}
			w.parts[name] |= pt
			if pt == partFEStatefulSet && p.Stage == StageFE {
				setOnce(w.done, name, now)
			}
			if w.parts[name] == allParts && p.Stage == StageFE {
				setOnce(w.all, name, now)
			}
		}
		if src, ok := o.(*srv1.StarRocksCluster); ok && p.Stage == StageReady && running(src) {
			setOnce(w.done, src.Name, now)
			setOnce(w.all, src.Name, now) // running implies every object and the status
		}
		w.mu.Unlock()
		select {
		case w.change <- struct{}{}:
		default:
		}
	}
	handler := toolscache.ResourceEventHandlerFuncs{AddFunc: func(o any) { record(o) }, UpdateFunc: func(_, o any) { record(o) }}
	for _, obj := range []client.Object{&appsv1.StatefulSet{}, &corev1.Service{}, &srv1.StarRocksCluster{}} {
		inf, err := cache.GetInformer(ctx, obj)
		if err != nil {
			return nil, err
		}
		if _, err := inf.AddEventHandler(handler); err != nil {
			return nil, err
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	go func() { _ = cache.Start(cctx) }()
	if !cache.WaitForCacheSync(cctx) {
		cancel()
		return nil, errors.New("the benchmark's watch never synced")
	}
	return w, nil
}

func setOnce(m map[string]time.Time, k string, t time.Time) {
	if _, seen := m[k]; !seen {
		m[k] = t
	}
}

func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.done)
}

func (w *watcher) countAll() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.all)
}

// wait returns the sorted times the clusters reached the stage (or, with
// all, every object and the status), once all n did or at the deadline
// (with an error).
func (w *watcher) wait(ctx context.Context, n int, deadline time.Time, op *operatorProcess, all bool) ([]time.Time, error) {
	count, times := w.count, &w.done
	if all {
		count, times = w.countAll, &w.all
	}
	var err error
	for count() < n {
		if err = op.exited(); err != nil {
			break
		}
		select {
		case <-w.change:
		case <-time.After(time.Until(deadline)):
			err = fmt.Errorf("only %d of %d clusters reached the stage by the deadline", count(), n)
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			break
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]time.Time, 0, len(*times))
	for _, t := range *times {
		out = append(out, t)
	}
	slices.SortFunc(out, time.Time.Compare)
	return out, err
}

func (w *watcher) stop() { w.cancel() }

// seen returns when each part of each cluster was first seen.
func (w *watcher) seen() map[string]map[part]time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]map[part]time.Time, len(w.partSeen))
	for k, v := range w.partSeen {
		out[k] = maps.Clone(v)
	}
	return out
}

// running is the ready stage: phase running, status current, and every
// component's pods running, none being created.
func running(src *srv1.StarRocksCluster) bool {
	st := src.Status
	if st.Phase != srv1.PhaseRunning || st.ObservedGeneration != src.Generation {
		return false
	}
	ok := func(want *int32, c *srv1.StarRocksComponentStatus) bool {
		return c != nil && c.Phase == srv1.PhaseRunning && int32(len(c.RunningInstances)) == ptr.Deref(want, 1) && len(c.CreatingInstances) == 0
	}
	s := src.Spec
	if s.StarRocksFeSpec != nil && !ok(s.StarRocksFeSpec.Replicas, st.StarRocksFeStatus) {
		return false
	}
	if s.StarRocksBeSpec != nil && !ok(s.StarRocksBeSpec.Replicas, st.StarRocksBeStatus) {
		return false
	}
	if s.StarRocksCnSpec != nil && (st.StarRocksCnStatus == nil || !ok(s.StarRocksCnSpec.Replicas, &st.StarRocksCnStatus.StarRocksComponentStatus)) {
		return false
	}
	return true
}

// waitSettled waits until the operator's reconcile count has not moved for
// quiet, and returns when it last moved and the count.
func waitSettled(ctx context.Context, op *operatorProcess, quiet, limit time.Duration) (time.Time, float64, error) {
	deadline := time.Now().Add(limit)
	last, reconciles, lastChange := -1.0, 0.0, time.Now()
	for {
		m, err := op.scrape(ctx)
		if err != nil {
			return time.Time{}, 0, err
		}
		reconciles = m["starrocks_operator_reconciles_total"]
		if n := reconciles + m["controller_runtime_active_workers"]; n != last {
			last, lastChange = n, time.Now()
		}
		switch {
		case time.Since(lastChange) >= quiet:
			return lastChange, reconciles, nil
		case time.Now().After(deadline):
			return time.Now(), reconciles, nil // an operator that never settles still gets its steady window measured
		}
		select {
		case <-time.After(250 * time.Millisecond):
		case <-ctx.Done():
			return time.Time{}, 0, ctx.Err()
		}
	}
}

func progress(cfg Config, label string, n int, start time.Time, w *watcher) func() {
	stop := make(chan struct{})
	done := make(chan struct{})
	line := func() string {
		return fmt.Sprintf("srbench: %s: %d/%d clusters at %s, %.1f s", label, w.count(), n, cfg.Preset.Stage, time.Since(start).Seconds())
	}
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		if !cfg.TTY {
			tick.Reset(5 * time.Second)
		}
		for {
			select {
			case <-stop:
				if cfg.TTY {
					fmt.Fprintf(cfg.Progress, "\r%s\033[K\n", line())
				}
				return
			case <-tick.C:
				if cfg.TTY {
					fmt.Fprintf(cfg.Progress, "\r%s\033[K", line())
				} else {
					fmt.Fprintln(cfg.Progress, line())
				}
			}
		}
	}()
	return func() { close(stop); <-done }
}
