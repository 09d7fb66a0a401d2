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

package bench

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// Stage is what a cluster must reach to count as done.
type Stage string

const (
	// StageFE means the FE StatefulSet exists, as the article measured on envtest.
	StageFE Stage = "fe"
	// StageReady means, on the simulated cluster, phase running with every FE, BE and CN pod Ready.
	StageReady Stage = "ready"
)

// Setting is one combination of the operator's knobs, passed as its flags.
type Setting struct {
	Name string `json:"name"`
	// Key names the setting on srbench's command line (--settings).
	Key        string        `json:"key"`
	Workers    int           `json:"maxConcurrentReconciles"`
	SyncPeriod time.Duration `json:"syncPeriod"`
	// QPS and Burst are the flags as given: 0 means 20/30, QPS -1 no client-side limit.
	QPS   float64 `json:"kubeApiQps"`
	Burst int     `json:"kubeApiBurst"`
	// Article is the motivating article's number for this setting, if it measured one.
	Article string `json:"article,omitempty"`
	// Upstream are the upstream operator v1.11.5's times for this setting,
	// measured on this machine with this harness (audit log, --done = the FE
	// StatefulSet exists) on the date they carry (issues 13 and 26). They
	// are reference rows: the upstream cannot be run here.
	Upstream *Reference `json:"upstream,omitempty"`
}

// Reference is a recorded result of another operator, as table cells.
type Reference struct {
	// FE: until every FE StatefulSet existed; All: every StatefulSet and Service.
	FE, All string
	// Measured is the date of the measurement.
	Measured string `json:",omitempty"`
}

// String is the reference as a table cell.
func (r Reference) String() string {
	s := r.FE + ", " + r.All
	if r.Measured != "" {
		s += " (" + r.Measured + ")"
	}
	return s
}

// Args are the operator flags of s.
func (s Setting) Args() []string {
	return []string{
		"--max-concurrent-reconciles=" + strconv.Itoa(s.Workers),
		"--sync-period=" + s.SyncPeriod.String(),
		"--kube-api-qps=" + strconv.FormatFloat(s.QPS, 'f', -1, 64),
		"--kube-api-burst=" + strconv.Itoa(s.Burst),
	}
}

// Knobs is a short description, as a table cell.
func (s Setting) Knobs() string {
	qps := "20/30"
	switch {
	case s.QPS < 0:
		qps = "off"
	case s.QPS > 0 || s.Burst > 0:
		qps = fmt.Sprintf("%s/%d", strconv.FormatFloat(s.QPS, 'f', -1, 64), s.Burst)
	}
	return fmt.Sprintf("%d workers, sync %s, QPS %s", s.Workers, shortDuration(s.SyncPeriod), qps)
}

// Preset is one experiment: several settings run one after another, each
// against a fresh control plane and a fresh operator.
type Preset struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	N     int    `json:"n"`
	// Latency is added by the proxy in each direction (round trip: twice this).
	Latency time.Duration `json:"latencyEachWay"`
	Stage   Stage         `json:"stage"`
	// Simulated runs kube-controller-manager, kube-scheduler and kwok, and
	// creates FE+BE+CN clusters whose pods become Ready.
	Simulated bool `json:"simulated"`
	// SteadyWindow is how long requests are counted once creation has settled.
	SteadyWindow time.Duration `json:"steadyWindow"`
	// Headline is the metric the chart shows: "completion" or "steady".
	Headline string    `json:"headline"`
	Settings []Setting `json:"settings"`
}

var (
	defaults = Setting{Name: "default", Workers: 1, SyncPeriod: 2 * time.Minute}
	tuned    = Setting{Name: "tuned", Workers: 50, SyncPeriod: 30 * time.Minute, QPS: 100, Burst: 200}
)

func with(s Setting, key, name, article string) Setting {
	s.Key, s.Name, s.Article = key, name, article
	return s
}

func upstream(s Setting, fe, all string) Setting {
	s.Upstream = &Reference{FE: fe, All: all}
	return s
}

// upstreamOn is upstream with the date the figures were measured.
func upstreamOn(date string, s Setting, fe, all string) Setting {
	s = upstream(s, fe, all)
	s.Upstream.Measured = date
	return s
}

// reference26 is the date of the upstream's side-by-side rounds of issue 26:
// three or four rounds each, back to back with this operator, on this machine.
const reference26 = "2026-12-01"

// Summary is the preset's title with its size and latency.
func (p Preset) Summary() string {
	s := fmt.Sprintf("%d clusters", p.N)
	if p.Latency > 0 {
		s += fmt.Sprintf(", +%s each way", p.Latency)
	}
	return s + ": " + p.Title
}

// Presets are the article's experiments, and two it could not run.
var Presets = map[string]Preset{
	"latency": {
		Name: "latency", Title: "creation with API latency", N: 50, Latency: 100 * time.Millisecond,
		Stage: StageFE, SteadyWindow: 30 * time.Second, Headline: "completion",
		Settings: []Setting{
			upstream(with(defaults, "default", "default", "41.1 s"), "42.0 s", "42.4 s"),
			upstreamOn(reference26, with(Setting{Workers: 50, SyncPeriod: 2 * time.Minute, QPS: 100, Burst: 200}, "tuned", "50 workers, QPS 100/200", "0.22 s"), "0.34–0.40 s", "0.93–1.07 s"),
		},
	},
	"burst": {
		Name: "burst", Title: "creation burst, no added latency", N: 100,
		Stage: StageFE, SteadyWindow: 30 * time.Second, Headline: "completion",
		Settings: []Setting{
			upstream(with(defaults, "default", "default", "8.9 s, 0 throttling"), "8.6–8.7 s", "8.8 s"),
			with(Setting{Workers: 50, SyncPeriod: 2 * time.Minute}, "workers", "50 workers only", "5.99 s, 1 throttling event"),
			upstreamOn(reference26, with(tuned, "tuned", "all tuned, QPS 100/200", "0.60 s, 0 throttling"), "1.52–1.72 s", "2.09–2.57 s"),
			with(Setting{Workers: 50, SyncPeriod: 30 * time.Minute, QPS: -1}, "qps-off", "all tuned, QPS off", ""),
		},
	},
	"steady": {
		Name: "steady", Title: "steady state of unchanged clusters", N: 100,
		Stage: StageFE, SteadyWindow: 5 * time.Minute, Headline: "steady",
		Settings: []Setting{
			with(defaults, "sync-2m", "sync 2m", "345 requests, 1.15 req/s"),
			with(Setting{Workers: 1, SyncPeriod: 30 * time.Minute}, "sync-30m", "sync 30m", "95 requests, 0.32 req/s"),
		},
	},
	"full": {
		Name: "full", Title: "FE+BE+CN clusters on a simulated cluster, until every pod is Ready", N: 100,
		Stage: StageReady, Simulated: true, SteadyWindow: 60 * time.Second, Headline: "completion",
		Settings: []Setting{with(defaults, "default", "default", ""), with(tuned, "tuned", "tuned", "")},
	},
	"scale": {
		Name: "scale", Title: "FE-only clusters at scale: completion, CPU and memory", N: 1000,
		Stage: StageFE, SteadyWindow: 60 * time.Second, Headline: "completion",
		Settings: []Setting{
			upstream(with(defaults, "default", "default", ""), "100.3 s", "–"),
			upstream(with(tuned, "tuned", "tuned", ""), "19.3 s", "–"),
			// At QPS 100 the core group's bucket carries the 2000 Service
			// writes: (2000 − 200) / 100 = 18 s. Without the limit, the API server bounds it.
			with(Setting{Workers: 50, SyncPeriod: 30 * time.Minute, QPS: -1}, "qps-off", "tuned, QPS off", ""),
		},
	},
}

// PresetNames lists the presets in the order they are meant to be run.
func PresetNames() []string {
	order := map[string]int{"latency": 0, "burst": 1, "steady": 2, "full": 3, "scale": 4}
	names := make([]string, 0, len(Presets))
	for n := range Presets {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return order[names[i]] < order[names[j]] })
	return names
}

func shortDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	default:
		return d.String()
	}
}
