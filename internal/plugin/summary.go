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

package plugin

// The line as the operator writes it (status.summary) and as status reads
// it back: from a server-side table's row, or from the object.

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// Summarize is src's line as its status gives it, what the operator
// writes to status.summary: a pure function of the status (and the spec
// it describes), its times absolute, so that a steady cluster's summary
// does not change. The pause and a generation not seen yet are not in it:
// they change without the operator (LineOf).
func Summarize(src *srv1.StarRocksCluster) *srv1.StarRocksClusterSummary {
	st := &src.Status
	out := &srv1.StarRocksClusterSummary{Version: versionWords(src), Healthy: healthy(src)}
	if src.Spec.StarRocksFeSpec != nil {
		out.FE = ready(src.Spec.StarRocksFeSpec.Replicas, st.StarRocksFeStatus).String()
	}
	if src.Spec.StarRocksBeSpec != nil {
		out.BE = ready(src.Spec.StarRocksBeSpec.Replicas, st.StarRocksBeStatus).String()
	}
	if cn := src.Spec.StarRocksCnSpec; cn != nil {
		var cs *srv1.StarRocksComponentStatus
		if st.StarRocksCnStatus != nil {
			cs = &st.StarRocksCnStatus.StarRocksComponentStatus
		}
		r := ready(cn.Replicas, cs)
		if cn.AutoScalingPolicy != nil && st.StarRocksCnStatus != nil && st.StarRocksCnStatus.Replicas > 0 {
			r.Desired = st.StarRocksCnStatus.Replicas // the autoscaler's count, not the spec's
		}
		out.CN = r.String()
	}
	var state State
	state, out.Doing, out.Reason, out.Since = doing(src)
	out.State = state.String()
	return out
}

// Row is what status reads of one cluster: its summary, and what changes
// without the operator beside it. A server-side table's row gives it
// (the CRD's printer columns), or the object (RowOf).
type Row struct {
	Namespace, Name string
	Phase           string
	Paused          bool
	// Generation and ObservedGeneration: the spec and the one the status describes.
	Generation, ObservedGeneration int64
	Created                        metav1.Time
	// Summary is status.summary; nil when the status has none (an
	// operator that does not write it): the object must be read.
	Summary *srv1.StarRocksClusterSummary
}

// RowOf is src's row, with sum as its summary.
func RowOf(src *srv1.StarRocksCluster, sum *srv1.StarRocksClusterSummary) Row {
	return Row{Namespace: src.Namespace, Name: src.Name, Phase: string(src.Status.Phase), Paused: Paused(src),
		Generation: src.Generation, ObservedGeneration: src.Status.ObservedGeneration, Created: src.CreationTimestamp, Summary: sum}
}

// LineOf is the line status shows of r at now: its summary, unless the
// operator leaves the cluster alone (paused) or has not seen its spec yet
// while the summary names no condition (every state but a failed phase, a
// phase not set and a healthy cluster names one); its words' times made
// relative to now.
func LineOf(r Row, now time.Time) Line {
	sum := r.Summary
	if sum == nil {
		sum = &srv1.StarRocksClusterSummary{}
	}
	l := Line{
		Namespace: r.Namespace, Name: r.Name, Phase: r.Phase, Created: r.Created,
		Generation: r.Generation, ObservedGeneration: r.ObservedGeneration,
		FE: readyOf(sum.FE), BE: readyOf(sum.BE), CN: readyOf(sum.CN),
		Version: sum.Version, Healthy: sum.Healthy, Doing: Relative(sum.Doing, now), Reason: sum.Reason, Since: sum.Since,
	}
	l.state = stateOf(sum.State)
	switch {
	case r.Paused:
		l.state, l.Doing, l.Reason, l.Since = Attention, "paused: the operator leaves it alone (kubectl starrocks resume "+r.Name+")", "Paused", nil
	case sum.Reason == "" && r.ObservedGeneration < r.Generation:
		l.state, l.Doing, l.Reason, l.Since = Progressing, fmt.Sprintf("generation %d not yet seen by the operator (status is of %d)", r.Generation, r.ObservedGeneration), "", nil
	}
	l.State = l.state.String()
	return l
}

// stateOf reads State.String's word back; an unknown one is Attention.
func stateOf(s string) State {
	for _, st := range []State{Healthy, Progressing} {
		if s == st.String() {
			return st
		}
	}
	return Attention
}

// readyOf reads Ready.String's "2/3" back; nil for "" (no such component).
func readyOf(s string) *Ready {
	var r Ready
	if _, err := fmt.Sscanf(s, "%d/%d", &r.Ready, &r.Desired); err != nil {
		return nil
	}
	return &r
}

// At is how the words of a summary say a time: absolute, in UTC to the
// second, for Relative to make relative when shown.
func At(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}

// atForm is a time At wrote after "since ".
var atForm = regexp.MustCompile(`since (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)`)

// Relative is words with each "since <At>" made relative to now ("since 3m ago").
func Relative(words string, now time.Time) string {
	return atForm.ReplaceAllStringFunc(words, func(m string) string {
		t, err := time.Parse(time.RFC3339, strings.TrimPrefix(m, "since "))
		if err != nil {
			return m
		}
		return "since " + Ago(t, now)
	})
}
