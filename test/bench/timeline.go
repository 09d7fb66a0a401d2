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
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// Timeline is what happened to single clusters during creation, from four
// clocks of one machine: the benchmark's creates and watch, the operator's
// reconcile log and watch events, and the API server's audit log.
type Timeline struct {
	// Median and Last are the median and the last cluster to have every
	// object and its status, as the benchmark saw them.
	Median ClusterTimeline `json:"median"`
	Last   ClusterTimeline `json:"last"`
	// Steps spread each step over every cluster, in seconds after the
	// cluster's own create returned, ordered by median.
	Steps []Step `json:"steps"`
	// Allocations: the API server's ClusterIP allocations meanwhile.
	Allocations *Allocations `json:"clusterIPAllocations,omitempty"`
}

// ClusterTimeline is one cluster's events in the order they happened.
type ClusterTimeline struct {
	Name   string          `json:"name"`
	Events []TimelineEvent `json:"events"`
}

// TimelineEvent is one thing that happened to a cluster.
type TimelineEvent struct {
	What string `json:"what"`
	// Seconds after the run's first create; SinceCreate after this cluster's.
	Seconds     float64 `json:"seconds"`
	SinceCreate float64 `json:"sinceCreate"`
	// Ms is the API server's handling time, for a write's completion.
	Ms float64 `json:"serverMs,omitempty"`
}

// Step is one kind of event over every cluster that had it.
type Step struct {
	What     string `json:"what"`
	Clusters int    `json:"clusters"`
	// SinceCreate: seconds after each cluster's own create returned.
	SinceCreate spread `json:"sinceCreate"`
}

var partNames = map[part]string{
	partFEStatefulSet: "benchmark sees StatefulSet -fe",
	partFESearch:      "benchmark sees Service -fe-search",
	partFEService:     "benchmark sees Service -fe-service",
	partStatus:        "benchmark sees status (observedGeneration current)",
}

type logLine struct {
	TS          time.Time `json:"ts"`
	Msg         string    `json:"msg"`
	Logger      string    `json:"logger"`
	Name        string    `json:"name"`
	Namespace   string    `json:"namespace"`
	ReconcileID string    `json:"reconcileID"`
	Event       string    `json:"event"`
	Kind        string    `json:"kind"`
}

// clusterOf is the cluster an object of the benchmark's belongs to, by its
// name: sr-0001, sr-0001-fe, sr-0001-fe-service, sr-0001.18a2b (an Event).
func clusterOf(name string) string {
	name, _, _ = strings.Cut(name, ".")
	for _, suffix := range []string{"-fe-service", "-fe-search", "-fe"} {
		if c, ok := strings.CutSuffix(name, suffix); ok {
			return c
		}
	}
	return name
}

// suffixOf is the part of an object's name after its cluster's.
func suffixOf(name string) string {
	if strings.Contains(name, ".") {
		return ""
	}
	return strings.TrimPrefix(name, clusterOf(name))
}

func buildTimeline(first time.Time, created map[string]time.Time, seen map[string]map[part]time.Time, reqs []request, operatorLog string) (*Timeline, error) {
	events := map[string][]TimelineEvent{}
	add := func(cluster, what string, at time.Time, ms float64) {
		c, ok := created[cluster]
		if !ok {
			return
		}
		events[cluster] = append(events[cluster], TimelineEvent{What: what, Seconds: at.Sub(first).Seconds(), SinceCreate: at.Sub(c).Seconds(), Ms: ms})
	}
	for name, t := range created {
		add(name, "CR created (the benchmark's create returned)", t, 0)
	}
	for name, parts := range seen {
		for pt, t := range parts {
			add(name, partNames[pt], t, 0)
		}
	}
	for _, r := range reqs {
		if r.Namespace != namespace || !r.write() {
			continue
		}
		what := r.Verb + " " + r.Resource
		if s := suffixOf(r.Name); s != "" {
			what += " " + s
		}
		add(clusterOf(r.Name), what+": received", r.Received, 0)
		add(clusterOf(r.Name), what+": done", r.Received.Add(r.Server), float64(r.Server.Microseconds())/1000)
	}
	f, err := os.Open(operatorLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	reconciles := map[string]int{}  // per cluster, reconciles started so far
	number := map[string]int{}      // reconcileID -> its number within its cluster
	watchEvents := map[string]int{} // per cluster and object, watch events so far
	for sc.Scan() {
		var l logLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.TS.IsZero() || l.Namespace != namespace {
			continue
		}
		switch {
		case l.Msg == "Reconciling":
			reconciles[l.Name]++
			number[l.ReconcileID] = reconciles[l.Name]
			add(l.Name, fmt.Sprintf("reconcile %d starts", reconciles[l.Name]), l.TS, 0)
		case strings.HasPrefix(l.Msg, "Reconcile done") || l.Msg == "Reconcile successful" || l.Msg == "Reconciler error":
			if n, ok := number[l.ReconcileID]; ok {
				add(l.Name, fmt.Sprintf("reconcile %d ends", n), l.TS, 0)
			}
		case l.Logger == "followup" && l.Msg == "watch event":
			kind := l.Kind[strings.LastIndex(l.Kind, ".")+1:]
			key := clusterOf(l.Name) + " " + kind + suffixOf(l.Name) + " " + l.Event
			watchEvents[key]++
			what := fmt.Sprintf("operator gets watch event: %s %s %s", l.Event, kind, suffixOf(l.Name))
			if n := watchEvents[key]; n > 1 {
				what += fmt.Sprintf(" (%d)", n)
			}
			add(clusterOf(l.Name), what, l.TS, 0)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, evs := range events {
		slices.SortStableFunc(evs, func(a, b TimelineEvent) int { return cmpFloat(a.Seconds, b.Seconds) })
	}
	// The median and the last cluster by when the benchmark saw all of it.
	var order []string
	for name := range created {
		order = append(order, name)
	}
	complete := func(name string) float64 {
		latest := 0.0
		for pt := range partNames {
			t, ok := seen[name][pt]
			if !ok {
				return 1e9
			}
			latest = max(latest, t.Sub(first).Seconds())
		}
		return latest
	}
	slices.SortFunc(order, func(a, b string) int { return cmpFloat(complete(a), complete(b)) })
	tl := &Timeline{}
	if len(order) > 0 {
		med, last := order[(len(order)-1)/2], order[len(order)-1]
		tl.Median = ClusterTimeline{Name: med, Events: events[med]}
		tl.Last = ClusterTimeline{Name: last, Events: events[last]}
	}
	byStep := map[string][]float64{}
	for _, evs := range events {
		for _, e := range evs {
			byStep[e.What] = append(byStep[e.What], e.SinceCreate)
		}
	}
	for what, v := range byStep {
		tl.Steps = append(tl.Steps, Step{What: what, Clusters: len(v), SinceCreate: spreadOf(v)})
	}
	slices.SortFunc(tl.Steps, func(a, b Step) int { return cmpFloat(a.SinceCreate.Median, b.SinceCreate.Median) })
	return tl, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// timelineMarkdown gives the median and the last cluster's timelines, and each step's spread.
func timelineMarkdown(name string, tl *Timeline) string {
	var b strings.Builder
	for _, ct := range []struct {
		which string
		c     ClusterTimeline
	}{{"median", tl.Median}, {"last", tl.Last}} {
		fmt.Fprintf(&b, "\nTimeline of the %s cluster (%s), **%s**: seconds after the run's first create, and after this cluster's:\n\n", ct.which, ct.c.Name, name)
		b.WriteString("| event | after first create | after its create | server |\n|---|--:|--:|--:|\n")
		for _, e := range ct.c.Events {
			ms := ""
			if e.Ms > 0 {
				ms = fmt.Sprintf("%.0f ms", e.Ms)
			}
			fmt.Fprintf(&b, "| %s | %.3f s | %.3f s | %s |\n", e.What, e.Seconds, e.SinceCreate, ms)
		}
	}
	fmt.Fprintf(&b, "\nEach step over every cluster, **%s**: seconds after the cluster's own create:\n\n", name)
	b.WriteString("| event | clusters | min | median | p90 | max |\n|---|--:|--:|--:|--:|--:|\n")
	for _, s := range tl.Steps {
		fmt.Fprintf(&b, "| %s | %d | %.3f s | %.3f s | %.3f s | %.3f s |\n", s.What, s.Clusters, s.SinceCreate.Min, s.SinceCreate.Median, s.SinceCreate.P90, s.SinceCreate.Max)
	}
	if a := tl.Allocations; a != nil {
		fmt.Fprintf(&b, "\nThe API server's ClusterIP allocations, **%s** (its IPAddress creates in the audit log; it makes them one at a time, under one lock): %d, received from %.3f s after the first create, one every %.1f ms (median gap), each %.1f ms on the server (median); the last done at %.3f s.\n",
			name, a.Count, a.FirstReceived, a.GapMs, a.ServerMs, a.LastCompleted)
	}
	return b.String()
}
