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
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
)

const (
	pollInterval   = 200 * time.Millisecond
	redrawInterval = 500 * time.Millisecond
	// maxRows bounds the redrawn table so that it fits a terminal; the rest is counted.
	maxRows = 20
)

// component is one component's ready pods out of those its spec asks for.
type component struct {
	label       string
	present     bool
	ready, want int32
}

// clusterState is what the demo shows of one StarRocksCluster.
type clusterState struct {
	key        string // the name; namespace/name outside the demo's namespace
	phase      string
	reason     string
	components []component
	running    bool
	// readyIn is the time from the demo's create call to running (0 until then).
	readyIn time.Duration
}

func stateOf(src *srv1.StarRocksCluster) clusterState {
	st := clusterState{key: src.Name, phase: string(src.Status.Phase), reason: src.Status.Reason}
	if src.Namespace != namespace {
		st.key = src.Namespace + "/" + src.Name
	}
	if st.phase == "" {
		st.phase = "pending" // the operator has not written a status yet
	}
	spec, status := src.Spec, src.Status
	var cn *srv1.StarRocksComponentStatus
	if status.StarRocksCnStatus != nil {
		cn = &status.StarRocksCnStatus.StarRocksComponentStatus
	}
	add := func(label string, present bool, replicas *int32, cs *srv1.StarRocksComponentStatus) {
		c := component{label: label, present: present, want: ptr.Deref(replicas, 1)}
		if cs != nil {
			c.ready = int32(len(cs.RunningInstances))
		}
		st.components = append(st.components, c)
	}
	add("FE", spec.StarRocksFeSpec != nil, replicasOf(spec.StarRocksFeSpec, func(s *srv1.StarRocksFeSpec) *int32 { return s.Replicas }), status.StarRocksFeStatus)
	add("BE", spec.StarRocksBeSpec != nil, replicasOf(spec.StarRocksBeSpec, func(s *srv1.StarRocksBeSpec) *int32 { return s.Replicas }), status.StarRocksBeStatus)
	add("CN", spec.StarRocksCnSpec != nil, replicasOf(spec.StarRocksCnSpec, func(s *srv1.StarRocksCnSpec) *int32 { return s.Replicas }), cn)
	add("proxy", spec.StarRocksFeProxySpec != nil, replicasOf(spec.StarRocksFeProxySpec, func(s *srv1.StarRocksFeProxySpec) *int32 { return s.Replicas }), status.StarRocksFeProxyStatus)

	// Running means the status describes the current spec and every pod it asks for is ready.
	st.running = src.Status.Phase == srv1.PhaseRunning && src.Status.ObservedGeneration == src.Generation
	for _, c := range st.components {
		if c.present && c.ready != c.want {
			st.running = false
		}
	}
	return st
}

func replicasOf[T any](spec *T, get func(*T) *int32) *int32 {
	if spec == nil {
		return nil
	}
	return get(spec)
}

// row is the one-line view of a cluster: "running      FE 1/1  BE 3/3  CN 1/1  proxy 1/1".
func (s clusterState) row() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s", s.phase)
	for _, c := range s.components {
		if c.present {
			fmt.Fprintf(&b, "  %s %-5s", c.label, fmt.Sprintf("%d/%d", c.ready, c.want))
		} else {
			fmt.Fprintf(&b, "  %s %-5s", c.label, "-")
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// display shows the clusters' progress: redrawn in place on a terminal, one
// line per change otherwise (CI logs, pipes).
type display interface {
	update(states []clusterState, elapsed time.Duration, final bool)
}

func newDisplay(w io.Writer) display {
	if isTerminal(w) {
		return &redrawDisplay{w: w}
	}
	return &lineDisplay{w: w, last: map[string]string{}}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

type redrawDisplay struct {
	w     io.Writer
	lines int
	drawn time.Time
}

func (d *redrawDisplay) update(states []clusterState, elapsed time.Duration, final bool) {
	if !final && time.Since(d.drawn) < redrawInterval {
		return
	}
	d.drawn = time.Now()
	lines := tableLines(states, elapsed)
	var b strings.Builder
	if d.lines > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", d.lines) // back to the table's first line
	}
	for _, l := range lines {
		b.WriteString("\x1b[2K" + l + "\n")
	}
	d.lines = len(lines)
	_, _ = io.WriteString(d.w, b.String())
}

// tableLines is the redrawn view: a header, then a line per cluster up to maxRows.
func tableLines(states []clusterState, elapsed time.Duration) []string {
	width, running := 0, 0
	for _, s := range states {
		width = max(width, len(s.key))
		if s.running {
			running++
		}
	}
	lines := []string{fmt.Sprintf("    %d of %d running after %s", running, len(states), formatSeconds(elapsed))}
	for i, s := range states {
		if i == maxRows {
			lines = append(lines, fmt.Sprintf("    ... and %d more", len(states)-maxRows))
			break
		}
		line := fmt.Sprintf("    %-*s  %s", width, s.key, s.row())
		if s.running {
			line += "  ready in " + formatSeconds(s.readyIn)
		}
		lines = append(lines, line)
	}
	return lines
}

type lineDisplay struct {
	w    io.Writer
	last map[string]string
}

func (d *lineDisplay) update(states []clusterState, elapsed time.Duration, _ bool) {
	for _, s := range states {
		row := s.row()
		if d.last[s.key] == row {
			continue
		}
		d.last[s.key] = row
		line := fmt.Sprintf("    [%6s] %s  %s", formatSeconds(elapsed), s.key, row)
		if s.running && s.readyIn > 0 {
			line += "  ready in " + formatSeconds(s.readyIn)
		}
		fmt.Fprintln(d.w, line)
	}
}

// waitRunning polls the clusters until every one is running, the timeout
// passes, the operator exits or ctx ends, and returns what it last saw.
func waitRunning(ctx context.Context, c client.Client, clusters []applied, timeout time.Duration, operatorExited <-chan struct{}, d display) ([]clusterState, error) {
	states := make([]clusterState, len(clusters))
	index := map[string]int{}
	for i, a := range clusters {
		states[i] = clusterState{key: a.name, phase: "pending"}
		index[a.name] = i
	}
	start := clusters[0].at
	deadline := start.Add(timeout)
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		var list srv1.StarRocksClusterList
		if err := c.List(ctx, &list, client.InNamespace(namespace)); err != nil && ctx.Err() == nil {
			return states, fmt.Errorf("listing StarRocksClusters: %w", err)
		}
		now := time.Since(start)
		for i := range list.Items {
			j, ok := index[list.Items[i].Name]
			if !ok {
				continue
			}
			st := stateOf(&list.Items[i])
			st.readyIn = states[j].readyIn
			if st.running && st.readyIn == 0 {
				st.readyIn = time.Since(clusters[j].at)
			}
			states[j] = st
		}
		done := true
		for _, s := range states {
			done = done && s.running
		}
		timedOut := time.Now().After(deadline)
		d.update(states, now, done || timedOut)
		if done {
			return states, nil
		}
		if timedOut {
			return states, fmt.Errorf("not every cluster was running within --timeout=%s", timeout)
		}
		select {
		case <-ctx.Done():
			return states, ctx.Err()
		case <-operatorExited:
			d.update(states, now, true)
			return states, errors.New("the operator exited while the clusters were reconciling")
		case <-tick.C:
		}
	}
}

// printSummary prints the final table and the operator's API traffic from its /metrics.
func printSummary(ctx context.Context, w io.Writer, states []clusterState, metricsURL string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"CLUSTER", "PHASE"}
	if len(states) > 0 {
		for _, c := range states[0].components {
			header = append(header, strings.ToUpper(c.label))
		}
	}
	fmt.Fprintln(tw, "    "+strings.Join(append(header, "READY IN"), "\t"))
	running := 0
	for _, s := range states {
		cols := []string{s.key, s.phase}
		for _, c := range s.components {
			if c.present {
				cols = append(cols, fmt.Sprintf("%d/%d", c.ready, c.want))
			} else {
				cols = append(cols, "-")
			}
		}
		readyIn := "-"
		if s.running {
			running++
			readyIn = formatSeconds(s.readyIn)
		}
		fmt.Fprintln(tw, "    "+strings.Join(append(cols, readyIn), "\t"))
	}
	tw.Flush()
	fmt.Fprintf(w, "    %d of %d clusters running.\n", running, len(states))
	for _, s := range states {
		if !s.running && s.reason != "" {
			fmt.Fprintf(w, "    %s: %s\n", s.key, s.reason)
		}
	}
	body, err := testutil.Fetch(ctx, nil, metricsURL, "")
	if err != nil {
		fmt.Fprintf(w, "    (operator metrics unavailable: %v)\n", err)
		return
	}
	t := summariseMetrics(parseMetrics(string(body)))
	fmt.Fprintf(w, "    Operator API requests so far (%s): %g writes (%s); %g reads (%s)\n",
		metricsURL, t.writes, breakdown(t.writesByVerb), t.reads, breakdown(t.readsByVerb))
	if len(t.objectWritesByKind) > 0 {
		fmt.Fprintf(w, "    Objects written, by kind: %s\n", breakdown(t.objectWritesByKind))
	}
	if t.readyCount > 0 {
		fmt.Fprintf(w, "    Operator-measured time to ready: mean %s over %g cluster(s) (from creationTimestamp, whole seconds)\n",
			formatSeconds(time.Duration(t.readySum/t.readyCount*float64(time.Second))), t.readyCount)
	}
}

// clock is the time of day, to match the demo's lines with what was typed in another terminal.
func clock() string { return time.Now().Format("15:04:05.0") }

// followChanges prints a line whenever a StarRocksCluster (in any namespace)
// changes, until ctx ends or the operator exits, so that edits made with
// kubectl can be watched rolling out from the demo's terminal.
func followChanges(ctx context.Context, c client.Client, initial []clusterState, operatorExited <-chan struct{}, w io.Writer) error {
	last := map[string]clusterState{}
	for _, s := range initial {
		last[s.key] = s
	}
	since := map[string]time.Time{} // when each cluster left running
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-operatorExited:
			return errors.New("the operator exited")
		case <-tick.C:
		}
		var list srv1.StarRocksClusterList
		if err := c.List(ctx, &list); err != nil {
			continue // the API server may be busy; the next tick retries
		}
		seen := map[string]bool{}
		for i := range list.Items {
			st := stateOf(&list.Items[i])
			seen[st.key] = true
			prev, known := last[st.key]
			last[st.key] = st
			if known && prev.row() == st.row() && prev.running == st.running {
				continue
			}
			note := ""
			switch {
			case !st.running && (!known || prev.running):
				since[st.key] = time.Now()
			case st.running && !since[st.key].IsZero():
				note = "  ready again in " + formatSeconds(time.Since(since[st.key]))
				delete(since, st.key)
			}
			fmt.Fprintf(w, "    [%s] %s  %s%s\n", clock(), st.key, st.row(), note)
		}
		for key := range last {
			if !seen[key] {
				delete(last, key)
				delete(since, key)
				fmt.Fprintf(w, "    [%s] %s  deleted\n", clock(), key)
			}
		}
	}
}
