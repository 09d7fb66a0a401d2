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
	"os"
	"slices"
	"strings"
)

// ReadReport reads a report srbench wrote (<preset>.json).
func ReadReport(path string) (*Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Metric is one figure of a setting's run, for summaries over rounds.
type Metric struct {
	Name string
	// Of returns the figure; ok is false when the run has none.
	Of func(Result) (v float64, ok bool)
	// Format prints a value.
	Format func(float64) string
}

func secondsMetric(name string, of func(Result) float64) Metric {
	return Metric{Name: name, Of: func(r Result) (float64, bool) { v := of(r); return v, v > 0 }, Format: func(v float64) string { return fmt.Sprintf("%.2f", v) }}
}

// SummaryMetrics are the figures a summary gives, seconds first.
var SummaryMetrics = []Metric{
	secondsMetric("FE StatefulSet, audit log (s)", func(r Result) float64 { return r.Audit.FEStatefulSet }),
	secondsMetric("every object, audit log (s)", func(r Result) float64 { return r.Audit.Objects }),
	secondsMetric("last status write, audit log (s)", func(r Result) float64 { return r.Audit.Status }),
	secondsMetric("every object + status, watch (s)", func(r Result) float64 { return r.AllSeconds }),
	secondsMetric("slowest cluster from its own create: FE StatefulSet (s)", func(r Result) float64 { return r.OwnCreate.FEStatefulSet.Max }),
	secondsMetric("slowest cluster from its own create: every object (s)", func(r Result) float64 { return r.OwnCreate.Objects.Max }),
	{Name: "other writes received before the last StatefulSet was created", Of: func(r Result) (float64, bool) {
		return float64(r.Overlap.WritesBefore), r.Overlap.StatefulSetsDone > 0
	}, Format: func(v float64) string { return fmt.Sprintf("%.0f", v) }},
	{Name: "StatefulSet create on the server, median (ms)", Of: func(r Result) (float64, bool) {
		return r.Overlap.StatefulSetServerMs.Median, r.Overlap.StatefulSetsDone > 0
	}, Format: func(v float64) string { return fmt.Sprintf("%.0f", v) }},
	secondsMetric("ClusterIP line: first allocation received (s)", func(r Result) float64 {
		if r.Allocations == nil {
			return 0
		}
		return r.Allocations.FirstReceived
	}),
	secondsMetric("ClusterIP line: last allocation done (s)", func(r Result) float64 {
		if r.Allocations == nil {
			return 0
		}
		return r.Allocations.LastCompleted
	}),
	{Name: "writes per cluster", Of: func(r Result) (float64, bool) { return r.PerCluster(r.Creation.Writes), r.N > 0 }, Format: func(v float64) string { return fmt.Sprintf("%.2f", v) }},
	{Name: "409 conflicts", Of: func(r Result) (float64, bool) { return float64(r.Creation.Conflicts), r.N > 0 }, Format: func(v float64) string { return fmt.Sprintf("%.0f", v) }},
	{Name: "requests in the steady window", Of: func(r Result) (float64, bool) { return float64(r.Steady.Total), r.N > 0 }, Format: func(v float64) string { return fmt.Sprintf("%.0f", v) }},
	{Name: "kube-apiserver CPU per cluster (ms)", Of: func(r Result) (float64, bool) {
		v, ok := r.CreationCPU["kube-apiserver"]
		return 1000 * v / float64(max(r.N, 1)), ok
	}, Format: func(v float64) string { return fmt.Sprintf("%.1f", v) }},
	{Name: "operator CPU per cluster (ms)", Of: func(r Result) (float64, bool) {
		v, ok := r.CreationCPU["operator"]
		return 1000 * v / float64(max(r.N, 1)), ok
	}, Format: func(v float64) string { return fmt.Sprintf("%.1f", v) }},
}

// Summary groups runs by variation, preset and setting, and gives each
// metric's median and spread over the rounds of each label.
type Summary struct {
	Groups []SummaryGroup
	Labels []string
}

// SummaryGroup is one variation's, preset's and setting's runs.
type SummaryGroup struct {
	Variation, Preset, Setting string
	// Values by label, then by metric: one value per round.
	Values map[string]map[string][]float64
}

// Summarize groups the results of reports; labels come in the order first seen.
func Summarize(reports []*Report) *Summary {
	s := &Summary{}
	index := map[string]int{}
	for _, r := range reports {
		label := r.Label
		if label == "" {
			label = "operator"
		}
		if !slices.Contains(s.Labels, label) {
			s.Labels = append(s.Labels, label)
		}
		for _, res := range r.Results {
			if res.Error != "" {
				continue
			}
			key := r.Variation.Name() + "\x00" + r.Preset.Name + "\x00" + res.Setting.Name
			i, ok := index[key]
			if !ok {
				i = len(s.Groups)
				index[key] = i
				s.Groups = append(s.Groups, SummaryGroup{Variation: r.Variation.Name(), Preset: r.Preset.Name, Setting: res.Setting.Name, Values: map[string]map[string][]float64{}})
			}
			g := &s.Groups[i]
			if g.Values[label] == nil {
				g.Values[label] = map[string][]float64{}
			}
			for _, m := range SummaryMetrics {
				if v, ok := m.Of(res); ok {
					g.Values[label][m.Name] = append(g.Values[label][m.Name], v)
				}
			}
		}
	}
	return s
}

// Median of v (the mean of the middle two for an even count); 0 for none.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Markdown gives, per group, each metric's median [min–max] (rounds) per
// label, and with two labels the first's median over the second's.
func (s *Summary) Markdown() string {
	var b strings.Builder
	for _, g := range s.Groups {
		fmt.Fprintf(&b, "\n#### %s / %s, %s\n\n| metric |", g.Preset, g.Setting, g.Variation)
		for _, l := range s.Labels {
			fmt.Fprintf(&b, " %s: median [min–max] (rounds) |", l)
		}
		ratio := len(s.Labels) == 2
		if ratio {
			fmt.Fprintf(&b, " %s ÷ %s |", s.Labels[0], s.Labels[1])
		}
		b.WriteString("\n|---|" + strings.Repeat("--:|", len(s.Labels)))
		if ratio {
			b.WriteString("--:|")
		}
		b.WriteString("\n")
		for _, m := range SummaryMetrics {
			fmt.Fprintf(&b, "| %s |", m.Name)
			for _, l := range s.Labels {
				v := g.Values[l][m.Name]
				if len(v) == 0 {
					b.WriteString(" – |")
					continue
				}
				fmt.Fprintf(&b, " %s [%s–%s] (%d) |", m.Format(Median(v)), m.Format(slices.Min(v)), m.Format(slices.Max(v)), len(v))
			}
			if ratio {
				a, c := g.Values[s.Labels[0]][m.Name], g.Values[s.Labels[1]][m.Name]
				if len(a) > 0 && len(c) > 0 && Median(c) != 0 {
					fmt.Fprintf(&b, " %.2f |", Median(a)/Median(c))
				} else {
					b.WriteString(" – |")
				}
			}
			b.WriteString("\n")
		}
	}
	b.WriteString(s.acrossVariations())
	return b.String()
}

// acrossVariations gives, per label, preset and setting, each metric's
// median in every variation and the worst of them: which figures hold in
// all of them.
func (s *Summary) acrossVariations() string {
	var variations []string
	for _, g := range s.Groups {
		if !slices.Contains(variations, g.Variation) {
			variations = append(variations, g.Variation)
		}
	}
	if len(variations) < 2 {
		return ""
	}
	var b strings.Builder
	type ps struct{ preset, setting string }
	var keys []ps
	for _, g := range s.Groups {
		if k := (ps{g.Preset, g.Setting}); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, l := range s.Labels {
		for _, k := range keys {
			fmt.Fprintf(&b, "\n#### %s / %s, %s: medians in every variation\n\n| metric |", k.preset, k.setting, l)
			for _, v := range variations {
				fmt.Fprintf(&b, " %s |", v)
			}
			b.WriteString(" highest |\n|---|" + strings.Repeat("--:|", len(variations)+1) + "\n")
			for _, m := range SummaryMetrics[:6] { // the times
				fmt.Fprintf(&b, "| %s |", m.Name)
				worst, seen := 0.0, false
				for _, v := range variations {
					i := slices.IndexFunc(s.Groups, func(g SummaryGroup) bool {
						return g.Variation == v && g.Preset == k.preset && g.Setting == k.setting
					})
					if i < 0 || len(s.Groups[i].Values[l][m.Name]) == 0 {
						b.WriteString(" – |")
						continue
					}
					med := Median(s.Groups[i].Values[l][m.Name])
					worst, seen = max(worst, med), true
					fmt.Fprintf(&b, " %s |", m.Format(med))
				}
				if seen {
					fmt.Fprintf(&b, " %s |\n", m.Format(worst))
				} else {
					b.WriteString(" – |\n")
				}
			}
		}
	}
	return b.String()
}
