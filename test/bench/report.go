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
	"encoding/json"
	"fmt"
	"image/color"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Report is one preset's run.
type Report struct {
	Preset   Preset    `json:"preset"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Command is how the run was started, for the record.
	Command string `json:"command,omitempty"`
	// Variation is how the run differed from the article's setup; Label
	// names the operator binary (Config.Label).
	Variation Variation `json:"variation"`
	Label     string    `json:"label,omitempty"`
	Results   []Result  `json:"results"`
}

// WriteFiles writes <preset>.json, <preset>.md and <preset>.png into dir.
func (r *Report) WriteFiles(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, r.Preset.Name)
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	files := []string{base + ".json", base + ".md", base + ".png"}
	if err := os.WriteFile(files[0], append(raw, '\n'), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(files[1], []byte(r.Markdown()), 0o644); err != nil {
		return nil, err
	}
	return files, r.chart(files[2])
}

// Markdown is the preset's result tables.
func (r *Report) Markdown() string {
	p := r.Preset
	var b strings.Builder
	fmt.Fprintf(&b, "### %s: %s\n\n", p.Name, p.Summary())
	latency := "none"
	if p.Latency > 0 {
		latency = fmt.Sprintf("%s each way (%s round trip)", p.Latency, 2*p.Latency)
	}
	cp := "API only (etcd + kube-apiserver)"
	if p.Simulated {
		cp = "simulated cluster (kube-controller-manager, kube-scheduler, kwok)"
	}
	if p.Latency > 0 && r.Variation.LatencyMode == LatencyRequest {
		latency += ", per request (an L7 proxy)"
	}
	fmt.Fprintf(&b, "N = %d, stage `%s`, added latency %s, %s, steady window %s. Variation: %s. Run %s, %s.\n\n",
		p.N, p.Stage, latency, cp, p.SteadyWindow, r.Variation.Name(), r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Finished.Sub(r.Started).Round(time.Second))
	if r.Label != "" {
		fmt.Fprintf(&b, "Operator: %s.\n\n", r.Label)
	}

	b.WriteString("| setting | knobs | done | all created by the benchmark | completion | every object + status | every object, audit log | upstream v1.11.5: completion, every object | article | last write | requests / cluster | writes / cluster | 409 | writes after completion | throttled requests (s waited) | throttle log lines | steady req/s | steady writes | steady reconciles | CPU s | peak RSS |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, res := range r.Results {
		article := res.Setting.Article
		if article == "" {
			article = "–"
		}
		up := "–"
		if u := res.Setting.Upstream; u != nil {
			up = u.String()
		}
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %s | %s | %s | %s | %s | %s | %.2f s | %.2f | %.2f | %d | %d | %.0f (%.2f) | %d | %.3f (%d in %.0f s) | %d | %.0f | %.1f | %.0f MiB |\n",
			res.Setting.Name, res.Setting.Knobs(), res.Completed, res.N, seconds(res.CreatedSeconds), seconds(res.CompletionSeconds), seconds(res.AllSeconds), seconds(res.Audit.Objects), up, article,
			res.LastWriteSeconds, res.PerCluster(res.Creation.Total), res.PerCluster(res.Creation.Writes), res.Creation.Conflicts,
			res.WritesAfterCompletion, res.ThrottledRequests, res.ThrottledSeconds, res.ThrottleLogLines,
			res.SteadyRate(), res.Steady.Total, res.SteadyWindowSeconds, res.Steady.Writes, res.SteadyReconciles, res.CPUSeconds, res.PeakRSSMiB)
	}
	for _, res := range r.Results {
		if res.Error != "" {
			fmt.Fprintf(&b, "\n**%s failed:** %s\n", res.Setting.Name, res.Error)
		}
	}

	b.WriteString(r.auditTable())
	b.WriteString(r.resourceTable())
	b.WriteString("\nRequests by the operator per cluster, from the first create until it stopped reconciling, by verb and resource (audit log):\n\n")
	b.WriteString(r.verbTable(func(res Result) requestCounts { return res.Creation }, true))
	b.WriteString(r.timingTables())
	for _, res := range r.Results {
		if res.Timeline != nil {
			b.WriteString(timelineMarkdown(res.Setting.Name, res.Timeline))
		}
	}
	b.WriteString("\nRequests in the steady window, in total, by verb and resource:\n\n")
	b.WriteString(r.verbTable(func(res Result) requestCounts { return res.Steady }, false))
	return b.String()
}

// auditTable gives the audit-log marks: the upstream's figures were taken
// this way, so compare with them here, not with the watch's columns.
func (r *Report) auditTable() string {
	var b strings.Builder
	b.WriteString("\nBy the audit log alone (the API server's completion time of each request, after the first create; how the upstream's figures were taken): the last StatefulSet or Service created (201), the last FE StatefulSet, the last Service, and the last status write.\n\n")
	b.WriteString("| setting | every object (STS or Service 201) | FE StatefulSet | Services | last status write | from each cluster's own create: FE StatefulSet, median / slowest | every object, median / slowest |\n|---|--:|--:|--:|--:|--:|--:|\n")
	for _, res := range r.Results {
		a, o := res.Audit, res.OwnCreate
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s / %s | %s / %s |\n", res.Setting.Name, seconds(a.Objects), seconds(a.FEStatefulSet), seconds(a.Services), seconds(a.Status),
			seconds(o.FEStatefulSet.Median), seconds(o.FEStatefulSet.Max), seconds(o.Objects.Median), seconds(o.Objects.Max))
	}
	b.WriteString("\nThe StatefulSet creates and the rest on the API server: when the last StatefulSet create completed, the operator's other writes received before that, the StatefulSet creates' time on the server (median, p90); and the ClusterIP line, the API server's IPAddress creates (one per client Service, one at a time under its allocation lock): how many, the first received, the last done.\n\n")
	b.WriteString("| setting | StatefulSets done | other writes before | StatefulSet on the server | ClusterIP allocations | first received | last done |\n|---|--:|--:|--:|--:|--:|--:|\n")
	for _, res := range r.Results {
		o, a := res.Overlap, res.Allocations
		if a == nil {
			a = &Allocations{}
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.0f / %.0f ms | %d | %s | %s |\n", res.Setting.Name, seconds(o.StatefulSetsDone), o.WritesBefore,
			o.StatefulSetServerMs.Median, o.StatefulSetServerMs.P90, a.Count, seconds(a.FirstReceived), seconds(a.LastCompleted))
	}
	for _, res := range r.Results {
		if c := res.BusyCPU; c != nil {
			fmt.Fprintf(&b, "\n%s, the load alone before the first create, CPU-seconds per second: kube-apiserver %.2f, etcd %.2f, the benchmark %.2f, the hog %.2f.\n",
				res.Setting.Name, c["kube-apiserver"], c["etcd"], c["srbench"], c["hog"])
		}
	}
	return b.String()
}

// resourceTable gives, per setting, the CPU seconds each process used while
// the clusters were created, and the operator's heap with and without them.
func (r *Report) resourceTable() string {
	var b strings.Builder
	for i, res := range r.Results {
		if res.CreationCPU == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\nCPU seconds from the first create until the operator settled, and the operator's live heap (after a GC) with every cluster and once all were deleted:\n\n")
			b.WriteString("| setting | operator | kube-apiserver | etcd | operator / kube-apiserver | heap, created | heap, deleted | settled after the deletes |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
		}
		c := res.CreationCPU
		ratio := "–"
		if c["kube-apiserver"] > 0 {
			ratio = fmt.Sprintf("%.2f", c["operator"]/c["kube-apiserver"])
		}
		heap := func(v float64) string {
			if v == 0 {
				return "–"
			}
			return fmt.Sprintf("%.1f MiB", v)
		}
		del := "–"
		if res.DeleteSettledSeconds > 0 {
			del = seconds(res.DeleteSettledSeconds)
		}
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.1f | %s | %s | %s | %s |\n", r.Results[i].Setting.Name, c["operator"], c["kube-apiserver"], c["etcd"], ratio,
			heap(res.HeapCreatedMiB), heap(res.HeapDeletedMiB), del)
	}
	return b.String()
}

func (r *Report) verbTable(counts func(Result) requestCounts, perCluster bool) string {
	keys := map[string]bool{}
	for _, res := range r.Results {
		for k := range counts(res).ByVerb {
			keys[k] = true
		}
	}
	if len(keys) == 0 {
		return "(none)\n"
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	var b strings.Builder
	b.WriteString("| verb resource |")
	for _, res := range r.Results {
		fmt.Fprintf(&b, " %s |", res.Setting.Name)
	}
	b.WriteString("\n|---|" + strings.Repeat("--:|", len(r.Results)) + "\n")
	for _, k := range sorted {
		fmt.Fprintf(&b, "| %s |", k)
		for _, res := range r.Results {
			n := counts(res).ByVerb[k]
			if perCluster {
				fmt.Fprintf(&b, " %.2f |", res.PerCluster(n))
			} else {
				fmt.Fprintf(&b, " %d |", n)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// timingTables give, per setting, when the creation requests reached the
// API server and how long it took to handle them.
func (r *Report) timingTables() string {
	var b strings.Builder
	for _, res := range r.Results {
		if len(res.Timings) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nAPI server handling time (audit stage timestamp − received) and arrival after the first create, **%s**:\n\n", res.Setting.Name)
		b.WriteString("| verb resource | requests | arrival first | median | last | server median | p90 | max |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, k := range slices.Sorted(maps.Keys(res.Timings)) {
			t := res.Timings[k]
			fmt.Fprintf(&b, "| %s | %d | %.2f s | %.2f s | %.2f s | %.0f ms | %.0f ms | %.0f ms |\n", k, t.Count,
				t.ArrivalSeconds.Min, t.ArrivalSeconds.Median, t.ArrivalSeconds.Max, t.ServerMs.Median, t.ServerMs.P90, t.ServerMs.Max)
		}
	}
	return b.String()
}

func seconds(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// chart draws the preset's headline number per setting as bars.
func (r *Report) chart(path string) error {
	p := plot.New()
	values := make(plotter.Values, len(r.Results))
	names := make([]string, len(r.Results))
	for i, res := range r.Results {
		names[i] = res.Setting.Name
		if r.Preset.Headline == "steady" {
			values[i] = res.SteadyRate()
		} else {
			values[i] = res.CompletionSeconds
		}
	}
	p.Title.Text = fmt.Sprintf("%s: %s", r.Preset.Name, r.Preset.Summary())
	if r.Preset.Headline == "steady" {
		p.Y.Label.Text = "operator requests per second, steady state"
	} else {
		p.Y.Label.Text = fmt.Sprintf("seconds until all %d clusters reached stage %q", r.Preset.N, r.Preset.Stage)
	}
	bars, err := plotter.NewBarChart(values, vg.Points(40))
	if err != nil {
		return err
	}
	bars.Color = color.RGBA{R: 0x2b, G: 0x6c, B: 0xb0, A: 0xff}
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.NominalX(names...)
	labels := make([]string, len(values))
	xys := make(plotter.XYs, len(values))
	top := 0.0
	for i, v := range values {
		top = max(top, v)
		xys[i] = plotter.XY{X: float64(i), Y: v}
		if r.Preset.Headline == "steady" {
			labels[i] = fmt.Sprintf("%.2f req/s", v)
		} else {
			labels[i] = seconds(v)
		}
	}
	p.Y.Min, p.Y.Max = 0, top*1.15+1e-3
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign = -0.5 // centre over the bar
		l.TextStyle[i].YAlign = 0
	}
	p.Add(l)
	width := vg.Length(max(4, 1.6*float64(len(values)))) * vg.Inch
	return p.Save(width, 4*vg.Inch, path)
}
