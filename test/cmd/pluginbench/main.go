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

// pluginbench measures `kubectl starrocks status -A` at fleet scale: it
// starts a real kube-apiserver and etcd (test/testcluster), creates --n
// StarRocksClusters in every state the operator reports (their status
// written through the status subresource; every --backup-every'th with a
// StarRocksBackup that succeeded), then times, each round under
// an exclusive flock of --lock (a quiet machine): the plugin binary end to
// end (process start, one paginated list of the clusters and one of each
// backup kind, render), and in-process the lists alone and the render alone. docs/benchmark.md has its results.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/plugin"
	"github.com/srscale/starrocks-operator/internal/plugin/cli"
	"github.com/srscale/starrocks-operator/internal/plugin/examples"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

func main() {
	n := flag.Int("n", 10000, "clusters to create")
	namespaces := flag.Int("namespaces", 100, "spread over this many namespaces")
	rounds := flag.Int("rounds", 3, "measured rounds")
	workers := flag.Int("workers", 16, "parallel creates")
	backupEvery := flag.Int("backup-every", 4, "every this many clusters has a backup that succeeded (status lists the backups too); 0 for none")
	lock := flag.String("lock", "/tmp/cpu.lock", "flock file: shared while creating, exclusive for each measured round (\"\" for none)")
	flag.StringVar(&baseline, "baseline", "", "other kubectl-starrocks binaries (an earlier build, a wrapper setting GOGC or a flag), comma-separated, run in each round beside this tree's, the order turning each round, for ratios within one run")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the first round's in-process lists and render (this process: the plugin's side, not the API server's) to this file")
	flag.BoolVar(&withoutSummary, "without-summary", false, "write the clusters' status without status.summary, as an operator that writes none leaves it: status then reads them whole")
	shared := flag.Bool("shared-rounds", false, "measure the rounds under the shared lock, beside other work (noisy: when no exclusive hold comes in time)")
	flag.Parse()
	roundMode = syscall.LOCK_EX
	if *shared {
		roundMode = syscall.LOCK_SH
	}
	if err := run(*n, *namespaces, *rounds, *workers, *backupEvery, *lock); err != nil {
		fmt.Fprintln(os.Stderr, "pluginbench:", err)
		os.Exit(1)
	}
}

// roundMode is how each measured round holds the lock.
var roundMode int

// cpuProfile is -cpuprofile's file ("" for none).
var cpuProfile string

// baseline is the -baseline binaries, comma-separated ("" for none).
var baseline string

// withoutSummary is -without-summary.
var withoutSummary bool

// flock takes the lock file in mode (syscall.LOCK_SH or LOCK_EX) and returns its release.
func flock(path string, mode int) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), mode); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func run(n, namespaces, rounds, workers, backupEvery int, lock string) error {
	// Ctrl-C or SIGTERM stops the control plane too (Stop below).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	release, err := flock(lock, syscall.LOCK_SH)
	if err != nil {
		return err
	}
	root, err := testcluster.RepoRoot()
	if err != nil {
		return err
	}
	c, err := testcluster.Start(ctx, testcluster.Options{CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")}, Progress: os.Stderr})
	if err != nil {
		return err
	}
	defer func() { _ = c.Stop() }()
	kubeconfig, err := c.WriteKubeconfig("bench", "system:masters")
	if err != nil {
		return err
	}
	bin := filepath.Join(c.Dir, "kubectl-starrocks")
	build := exec.Command("go", "build", "-o", bin, "./cmd/kubectl-starrocks")
	build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return err
	}

	// The fleet: the examples' states in turn, over the namespaces.
	now := time.Now()
	started := time.Now()
	for i := range namespaces {
		if err := c.Client.Create(ctx, nsObject(fmt.Sprintf("team-%03d", i))); err != nil {
			return err
		}
	}
	jobs := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				all := examples.All(fmt.Sprintf("team-%03d", i%namespaces), now)
				src := all[i%len(all)].Cluster
				src.Name = fmt.Sprintf("sr-%05d", i)
				st := src.Status
				src.Status, src.CreationTimestamp, src.Generation = srv1.StarRocksClusterStatus{}, metav1.Time{}, 0
				if err := c.Client.Create(ctx, src); err != nil {
					errs <- err
					return
				}
				src.Status = st
				src.Status.ObservedGeneration = src.Generation
				if !withoutSummary {
					src.Status.Summary = plugin.Summarize(src) // as the operator writes it (internal/status)
				}
				if err := c.Client.Status().Update(ctx, src); err != nil {
					errs <- err
					return
				}
				if backupEvery > 0 && i%backupEvery == 0 {
					b := examples.Backup(src.Namespace, src.Name, src.Name+"-daily", "sales", srv1.BackupSucceeded, 3*time.Hour, now)
					bst := b.Status
					b.CreationTimestamp, b.Generation, b.Status = metav1.Time{}, 0, srv1.StarRocksBackupStatus{}
					if err := c.Client.Create(ctx, b); err != nil {
						errs <- err
						return
					}
					b.Status = bst
					if err := c.Client.Status().Update(ctx, b); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	for i := range n {
		select {
		case jobs <- i:
		case err := <-errs:
			return err
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	fmt.Fprintf(os.Stderr, "pluginbench: %d clusters in %d namespaces created (spec and status) in %s\n", n, namespaces, time.Since(started).Round(time.Millisecond))
	release()

	var endToEnd, cpu, rowsAlone, fetch, fetchPlain, fetchH1, list, listSerial, render, renderJSON []time.Duration
	others := strings.FieldsFunc(baseline, func(r rune) bool { return r == ',' })
	baseEnd, baseCPU := map[string][]time.Duration{}, map[string][]time.Duration{}
	var bytesOut int
	for r := range rounds {
		release, err := flock(lock, roundMode)
		if err != nil {
			return err
		}
		// The binary as a person runs it, and the baselines, the order turning each round.
		order := append([]string{bin}, others...)
		k := r % len(order)
		order = slices.Concat(order[k:], order[:k])
		var out []byte
		for _, b := range order {
			var o bytes.Buffer
			took, used, err := timeBinary(b, kubeconfig, &o)
			if err != nil {
				release()
				return err
			}
			if b == bin {
				out, endToEnd, cpu = o.Bytes(), append(endToEnd, took), append(cpu, used)
			} else {
				baseEnd[b], baseCPU[b] = append(baseEnd[b], took), append(baseCPU[b], used)
			}
		}
		bytesOut = len(out)
		load, _ := os.ReadFile("/proc/loadavg")
		// In-process: the rows of the server-side table status reads,
		// the cluster pages fetched and not decoded (the API server's
		// part of -o wide|json|yaml), the paginated list, then the render
		// alone.
		t0 := time.Now()
		rows, err := cli.ListRows(ctx, c.Config, c.Client, "", "", 500)
		if err != nil || len(rows) != n {
			release()
			return fmt.Errorf("rows: %d, want %d: %w", len(rows), n, err)
		}
		rowsAlone = append(rowsAlone, time.Since(t0))
		t0 = time.Now()
		fetched := 0
		if err := cli.ListPages(ctx, c.Config, "", "", 500, func(raw []byte) error { fetched += len(raw); return nil }); err != nil {
			release()
			return err
		}
		fetch = append(fetch, time.Since(t0))
		plain := rest.CopyConfig(c.Config)
		plain.DisableCompression = true
		t0 = time.Now()
		if err := cli.ListPages(ctx, plain, "", "", 500, func([]byte) error { return nil }); err != nil {
			release()
			return err
		}
		fetchPlain = append(fetchPlain, time.Since(t0))
		h1 := rest.CopyConfig(c.Config)
		h1.NextProtos = []string{"http/1.1"}
		t0 = time.Now()
		if err := cli.ListPages(ctx, h1, "", "", 500, func([]byte) error { return nil }); err != nil {
			release()
			return err
		}
		fetchH1 = append(fetchH1, time.Since(t0))
		stopProfile := func() {}
		if cpuProfile != "" && r == 0 {
			f, err := os.Create(cpuProfile)
			if err != nil {
				release()
				return err
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				release()
				return err
			}
			stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
		}
		t0 = time.Now()
		clusters, err := cli.List(ctx, c.Config, "", "", 500)
		if err != nil {
			release()
			return err
		}
		backups, err := cli.ListBackups(ctx, c.Client, "", 500)
		if err != nil {
			release()
			return err
		}
		list = append(list, time.Since(t0))
		t0 = time.Now()
		serial, err := serialList(ctx, c.Client)
		if err != nil || len(serial) != n {
			release()
			return fmt.Errorf("serial list: %d clusters, want %d: %w", len(serial), n, err)
		}
		listSerial = append(listSerial, time.Since(t0))
		if len(clusters) != n {
			release()
			return fmt.Errorf("listed %d clusters, want %d", len(clusters), n)
		}
		t0 = time.Now()
		if err := cli.RenderStatus(io.Discard, clusters, backups, nil, true, false, time.Now()); err != nil {
			release()
			return err
		}
		render = append(render, time.Since(t0))
		stopProfile()
		t0 = time.Now()
		format := "json"
		if err := cli.RenderStatus(io.Discard, clusters, backups, &genericclioptions.PrintFlags{OutputFormat: &format, JSONYamlPrintFlags: genericclioptions.NewJSONYamlPrintFlags()}, true, false, time.Now()); err != nil {
			release()
			return err
		}
		renderJSON = append(renderJSON, time.Since(t0))
		release()
		var bases []string
		for _, b := range others {
			bases = append(bases, fmt.Sprintf("%s %s (CPU %s)", filepath.Base(b), baseEnd[b][r].Round(time.Millisecond), baseCPU[b][r].Round(time.Millisecond)))
		}
		fmt.Fprintf(os.Stderr, "pluginbench: round %d: order %s; baselines: %s\n", r+1, strings.Join(names(order), ", "), strings.Join(bases, "; "))
		fmt.Fprintf(os.Stderr, "pluginbench: round %d: rows of the table alone %s\n", r+1, rowsAlone[r].Round(time.Millisecond))
		fmt.Fprintf(os.Stderr, "pluginbench: round %d: binary %s (CPU %s), fetch alone %s (%d bytes; uncompressed %s; HTTP/1.1 %s), list %s (serial %s), render %s, render -o json %s; load before %s", r+1,
			endToEnd[r].Round(time.Millisecond), cpu[r].Round(time.Millisecond), fetch[r].Round(time.Millisecond), fetched, fetchPlain[r].Round(time.Millisecond), fetchH1[r].Round(time.Millisecond), list[r].Round(time.Millisecond), listSerial[r].Round(time.Millisecond), render[r].Round(time.Millisecond), renderJSON[r].Round(time.Millisecond), load)
		if r == 0 {
			lines := bytes.Split(out, []byte("\n"))
			fmt.Fprintf(os.Stderr, "pluginbench: first lines and the summary:\n%s\n%s\n", bytes.Join(lines[:min(4, len(lines))], []byte("\n")), lines[len(lines)-2])
		}
	}
	fmt.Printf("| clusters | rounds | binary | `kubectl-starrocks status -A`, wall (process, 1 paginated list of %d pages of clusters and one of each backup kind beside it, render) | its CPU (user+sys) | the clusters' rows of a server-side table alone, in-process | cluster pages fetched, not decoded (the API server's part) | the same, uncompressed | the same, HTTP/1.1 | lists alone, in-process (clusters pipelined, then the backup kinds) | cluster list alone, decode then ask (controller-runtime's client) | render alone (table) | render alone (`-o json`) | output |\n", (n+499)/500)
	fmt.Printf("|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	fmt.Printf("| %d | %d | this tree | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d lines, %d bytes |\n", n, rounds, spread(endToEnd), spread(cpu), spread(rowsAlone), spread(fetch), spread(fetchPlain), spread(fetchH1), spread(list), spread(listSerial), spread(render), spread(renderJSON), n+2, bytesOut)
	for _, b := range others {
		fmt.Printf("| %d | %d | %s | %s | %s | | | | | | | | | |\n", n, rounds, filepath.Base(b), spread(baseEnd[b]), spread(baseCPU[b]))
	}
	return nil
}

// timeBinary runs `bin status -A` as a person does, its output in out.
func timeBinary(bin, kubeconfig string, out *bytes.Buffer) (took, cpu time.Duration, err error) {
	out.Reset()
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "status", "-A")
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", bin, err)
	}
	return time.Since(t0), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// serialList is the list as controller-runtime's client does it: a page
// decoded before the next is asked for (the plugin's List before issue 53's
// pipelining), for the ratio.
func serialList(ctx context.Context, c client.Client) ([]srv1.StarRocksCluster, error) {
	var out []srv1.StarRocksCluster
	token := ""
	for {
		var page srv1.StarRocksClusterList
		if err := c.List(ctx, &page, client.Limit(500), client.Continue(token)); err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
		if token = page.Continue; token == "" {
			return out, nil
		}
	}
}

// names are the binaries' file names.
func names(bins []string) []string {
	out := make([]string, len(bins))
	for i, b := range bins {
		out[i] = filepath.Base(b)
	}
	return out
}

// spread is "median (min–max)" of ds.
func spread(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	r := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	return fmt.Sprintf("%s (%s–%s)", r(s[len(s)/2]), r(s[0]), r(s[len(s)-1]))
}

func nsObject(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}
