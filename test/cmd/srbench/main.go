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

// Command srbench benchmarks the operator under several knob settings: see
// docs/benchmark.md for what it measures and the latest results.
//
//	cd test && go run ./cmd/srbench --preset=latency,burst --out=../docs/benchmark
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/srscale/starrocks-operator/test/bench"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

func main() {
	bench.MaybeHog()                  // when this process is a busy variation's CPU hog, it never returns
	ctrllog.SetLogger(logr.Discard()) // the benchmark's own watch has nothing to say
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("srbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	presets := fs.String("preset", "latency", "Comma-separated presets to run, in order ("+strings.Join(bench.PresetNames(), ", ")+"), or all.")
	n := fs.Int("n", 0, "Clusters to create (0: the preset's).")
	var latency, steady optionalDuration
	fs.Var(&latency, "latency", "Latency the proxy adds in each direction, e.g. 100ms (default: the preset's).")
	fs.Var(&steady, "steady-window", "How long to count requests once creation settled (default: the preset's).")
	only := fs.String("settings", "", "Comma-separated keys of the preset's settings to run, e.g. tuned (default: all of them; a preset's keys are in its .json).")
	cpuProfile := fs.Duration("cpu-profile", 0, "Record CPU profiles of the operator and of kube-apiserver for this long from the first create, into cpu.pprof and apiserver.pprof in each setting's work directory (0: none).")
	heap := fs.Bool("heap-profile", false, "After the steady window, save the operator's heap profile, delete every cluster and its objects, and save it again once the operator settled (heap-created.pprof, heap-deleted.pprof in each setting's work directory).")
	timeline := fs.Bool("timeline", false, "Log the operator's reconciles (level 5) and report the timeline of the median and the last cluster.")
	timeout := fs.Duration("timeout", 15*time.Minute, "Per setting: how long to wait for every cluster to reach the stage.")
	quiet := fs.Duration("quiet", 6*time.Second, "Creation has settled when the operator did not reconcile for this long.")
	out := fs.String("out", "docs/benchmark", "Directory for <preset>.md, .json and .png.")
	workDir := fs.String("work-dir", "", "Keep audit logs, kubeconfigs and operator logs here (default: a temporary directory).")
	operatorBin := fs.String("operator-binary", "", "A built operator binary (default: go build ./cmd/starrocks-operator once).")
	label := fs.String("label", "", "Names the operator binary in the report, for --summarize (e.g. now, base).")
	var v bench.Variation
	fs.Float64Var(&v.Pace, "pace", 0, "Create the clusters at this many per second (0: all at once, as fast as the benchmark can).")
	fs.StringVar(&v.LatencyMode, "latency-mode", bench.LatencyConnection, "Where --latency sits: connection (every byte of each TCP connection, toxiproxy) or request (each HTTP request and its answer, an L7 proxy).")
	fs.StringVar(&v.Busy, "busy", "", "A steady load beside the API server from before the first create: churn (another tenant's ClusterIP Services and a ConfigMap, --churn-rate writes/s) or hog (a process spinning on CPU 0).")
	fs.Float64Var(&v.ChurnRate, "churn-rate", bench.DefaultChurnRate, "Writes per second of --busy=churn.")
	costs := fs.Int("request-costs", 0, "Instead of a preset, measure what each request of a new FE-only cluster costs the API server in CPU, JSON against protobuf, this many of each, on a fresh control plane.")
	summarize := fs.Bool("summarize", false, "Read the reports (<preset>.json) named by the arguments instead of running, and print each setting's median and spread over them, per --label and variation.")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *summarize {
		return summarizeReports(fs.Args(), stdout, stderr)
	}
	if *costs > 0 {
		root, err := testcluster.RepoRoot()
		if err == nil {
			var c []bench.Cost
			if c, err = bench.RequestCosts(ctx, root, *costs, stderr); err == nil {
				fmt.Fprint(stdout, bench.CostsMarkdown(c))
				return 0
			}
		}
		fmt.Fprintf(stderr, "srbench: %v\n", err)
		return 1
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "srbench: unexpected arguments %q (reports are read with --summarize)\n", fs.Args())
		return 2
	}
	if err := v.Validate(); err != nil {
		fmt.Fprintf(stderr, "srbench: %v\n", err)
		return 2
	}
	var selected []bench.Preset
	names := strings.Split(*presets, ",")
	if *presets == "all" {
		names = bench.PresetNames()
	}
	for _, name := range names {
		p, ok := bench.Presets[strings.TrimSpace(name)]
		if !ok {
			fmt.Fprintf(stderr, "srbench: unknown preset %q; known: %s\n", name, strings.Join(bench.PresetNames(), ", "))
			return 2
		}
		if *n > 0 {
			p.N = *n
		}
		if latency.set {
			p.Latency = latency.d
		}
		if steady.set {
			p.SteadyWindow = steady.d
		}
		if *only != "" {
			var keep []bench.Setting
			for _, s := range p.Settings {
				if slices.Contains(strings.Split(*only, ","), s.Key) {
					keep = append(keep, s)
				}
			}
			if len(keep) == 0 {
				keys := make([]string, 0, len(p.Settings))
				for _, s := range p.Settings {
					keys = append(keys, s.Key)
				}
				fmt.Fprintf(stderr, "srbench: preset %s has no setting among %q; its keys: %s\n", p.Name, *only, strings.Join(keys, ", "))
				return 2
			}
			p.Settings = keep
		}
		selected = append(selected, p)
	}
	root, err := testcluster.RepoRoot()
	if err != nil {
		fmt.Fprintf(stderr, "srbench: %v\n", err)
		return 1
	}
	if *workDir == "" {
		if *workDir, err = os.MkdirTemp("", "srbench-"); err != nil {
			fmt.Fprintf(stderr, "srbench: %v\n", err)
			return 1
		}
	}
	fi, _ := os.Stderr.Stat()
	tty := stderr == os.Stderr && fi != nil && fi.Mode()&os.ModeCharDevice != 0
	cfg := bench.Config{RepoRoot: root, OperatorBinary: *operatorBin, WorkDir: *workDir, Timeout: *timeout, Quiet: *quiet, CPUProfile: *cpuProfile, Timeline: *timeline, HeapProfile: *heap, Progress: stderr, TTY: tty,
		Variation: v, Label: *label}
	if cfg.OperatorBinary == "" {
		fmt.Fprintf(stderr, "srbench: building the operator into %s\n", *workDir)
		if cfg.OperatorBinary, err = testcluster.BuildOperator(ctx, root, *workDir); err != nil {
			fmt.Fprintf(stderr, "srbench: %v\n", err)
			return 1
		}
	}
	failed := false
	for _, p := range selected {
		cfg.Preset = p
		rep, err := bench.Run(ctx, cfg)
		if rep != nil {
			rep.Command = "srbench " + strings.Join(args, " ")
			files, werr := rep.WriteFiles(*out)
			if werr != nil {
				fmt.Fprintf(stderr, "srbench: writing the report: %v\n", werr)
				return 1
			}
			fmt.Fprintln(stdout, rep.Markdown())
			fmt.Fprintf(stderr, "srbench: wrote %s\n", strings.Join(files, ", "))
			for _, r := range rep.Results {
				failed = failed || r.Error != ""
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "srbench: preset %s: %v\n", p.Name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "srbench: logs of every setting are in %s\n", filepath.Clean(*workDir))
	if failed {
		return 1
	}
	return 0
}

// summarizeReports prints the summary of the reports at paths (globs allowed).
func summarizeReports(paths []string, stdout, stderr io.Writer) int {
	var reports []*bench.Report
	for _, p := range paths {
		matches, err := filepath.Glob(p)
		if err != nil || len(matches) == 0 {
			fmt.Fprintf(stderr, "srbench: no report at %s\n", p)
			return 2
		}
		for _, m := range matches {
			r, err := bench.ReadReport(m)
			if err != nil {
				fmt.Fprintf(stderr, "srbench: %v\n", err)
				return 1
			}
			reports = append(reports, r)
		}
	}
	fmt.Fprint(stdout, bench.Summarize(reports).Markdown())
	return 0
}

// optionalDuration is a duration flag that knows whether it was given.
type optionalDuration struct {
	d   time.Duration
	set bool
}

func (o *optionalDuration) String() string { return o.d.String() }

func (o *optionalDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if d < 0 {
		return fmt.Errorf("must not be negative: %s", s)
	}
	o.d, o.set = d, true
	return nil
}
