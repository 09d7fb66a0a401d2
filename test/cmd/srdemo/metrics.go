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

package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// sample is one line of the Prometheus text format: name{labels} value.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseMetrics reads the Prometheus text exposition format, enough for the
// operator's counters and histograms; lines it cannot read are skipped.
func parseMetrics(text string) []sample {
	var out []sample
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, rest, ok := parseSeries(line)
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			continue
		}
		s.value = v
		out = append(out, s)
	}
	return out
}

// parseSeries reads the name and labels at the start of line and returns the rest.
func parseSeries(line string) (sample, string, bool) {
	end := strings.IndexAny(line, "{ ")
	if end <= 0 {
		return sample{}, "", false
	}
	s := sample{name: line[:end], labels: map[string]string{}}
	rest := line[end:]
	if !strings.HasPrefix(rest, "{") {
		return s, rest, true
	}
	rest = rest[1:]
	for {
		rest = strings.TrimLeft(rest, " ,")
		if strings.HasPrefix(rest, "}") {
			return s, rest[1:], true
		}
		eq := strings.Index(rest, `="`)
		if eq <= 0 {
			return s, "", false
		}
		key := rest[:eq]
		rest = rest[eq+2:]
		var val strings.Builder
		closed := false
		for i := 0; i < len(rest); i++ {
			switch c := rest[i]; {
			case c == '\\' && i+1 < len(rest):
				i++
				if rest[i] == 'n' {
					val.WriteByte('\n')
				} else {
					val.WriteByte(rest[i])
				}
			case c == '"':
				rest, closed = rest[i+1:], true
			default:
				val.WriteByte(c)
			}
			if closed {
				break
			}
		}
		if !closed {
			return s, "", false
		}
		s.labels[key] = val.String()
	}
}

// sumBy adds up the named series by the value of one label.
func sumBy(samples []sample, name, label string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range samples {
		if s.name == name {
			out[s.labels[label]] += s.value
		}
	}
	return out
}

func total(samples []sample, name string) float64 {
	var t float64
	for _, s := range samples {
		if s.name == name {
			t += s.value
		}
	}
	return t
}

var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}

// operatorTraffic summarises the operator's requests to the API server.
type operatorTraffic struct {
	writes, reads      float64
	writesByVerb       map[string]float64
	readsByVerb        map[string]float64
	objectWritesByKind map[string]float64
	readyCount         float64
	readySum           float64
}

func summariseMetrics(samples []sample) operatorTraffic {
	t := operatorTraffic{writesByVerb: map[string]float64{}, readsByVerb: map[string]float64{}}
	for verb, n := range sumBy(samples, "starrocks_operator_api_requests_total", "verb") {
		if slices.Contains(writeVerbs, verb) {
			t.writes += n
			t.writesByVerb[verb] = n
		} else {
			t.reads += n
			t.readsByVerb[verb] = n
		}
	}
	t.objectWritesByKind = sumBy(samples, "starrocks_operator_object_writes_total", "kind")
	t.readyCount = total(samples, "starrocks_operator_cluster_time_to_ready_seconds_count")
	t.readySum = total(samples, "starrocks_operator_cluster_time_to_ready_seconds_sum")
	return t
}

// breakdown formats counts as "create 12, patch 3", largest first.
func breakdown(m map[string]float64) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			if m[a] > m[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %g", k, m[k]))
		}
	}
	return strings.Join(parts, ", ")
}
