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

package plugin_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/plugin"
	"github.com/srscale/starrocks-operator/internal/plugin/examples"
)

// The table's line (LineOf of the summary the operator wrote, with what
// changes without it beside it) is the object's line, in every state, with
// the spec seen or not, paused or not; and the summary holds no time
// relative to when it was computed: a steady cluster's does not change.
func TestLineOfTheSummaryIsTheObjectsLine(t *testing.T) {
	for _, e := range append(examples.All("ns", now), examples.Example{State: "BE replaced", Cluster: examples.BEReplaced("ns", "r", now)}) {
		for _, variant := range []struct {
			name   string
			change func(*srv1.StarRocksCluster)
		}{
			{"as written", func(*srv1.StarRocksCluster) {}},
			{"a new generation not seen yet", func(src *srv1.StarRocksCluster) { src.Generation = src.Status.ObservedGeneration + 1 }},
			{"paused", func(src *srv1.StarRocksCluster) { src.Annotations = map[string]string{srv1.IgnoredAnnotation: "true"} }},
			{"resumed", func(src *srv1.StarRocksCluster) { delete(src.Annotations, srv1.IgnoredAnnotation) }},
		} {
			src := e.Cluster.DeepCopy()
			written := plugin.Summarize(src) // when the operator wrote it
			variant.change(src)
			later := now.Add(7 * time.Minute)
			object := plugin.StatusLine(src, later)
			r := plugin.RowOf(src, written)
			r.Phase, r.Created = "", metav1.Time{} // no column gives them
			table := plugin.LineOf(r, later)
			// The table gives no exact times and no reason: -o wide, json and yaml read the objects.
			object.Phase, object.Created, object.Since, object.Reason = "", metav1.Time{}, nil, ""
			table.Since, table.Reason = nil, ""
			if got, want := fmt.Sprintf("%+v", table), fmt.Sprintf("%+v", object); got != want {
				t.Errorf("%s, %s:\ntable  %s\nobject %s", e.State, variant.name, got, want)
			}
			if again := plugin.Summarize(src.DeepCopy()); variant.name == "as written" && fmt.Sprintf("%+v", again) != fmt.Sprintf("%+v", written) {
				t.Errorf("%s: summarized again %+v, first %+v", e.State, again, written)
			}
		}
	}
}

// Times in a summary's words are absolute; Relative makes each one
// relative to the moment it is shown.
func TestRelative(t *testing.T) {
	at := plugin.At(now.Add(-3 * time.Minute))
	for words, want := range map[string]string{
		"":                           "",
		"FE unreachable since " + at: "FE unreachable since 3m ago",
		"rollout stalled since " + at + ": BE: pod": "rollout stalled since 3m ago: BE: pod",
		"since " + at + " and since " + at:          "since 3m ago and since 3m ago",
		"since 2026-13-01T00:00:00Z":                "since 2026-13-01T00:00:00Z",
		"starting: FE: 0/1 ready":                   "starting: FE: 0/1 ready",
	} {
		if got := plugin.Relative(words, now); got != want {
			t.Errorf("Relative(%q) = %q, want %q", words, got, want)
		}
	}
	if at != "2026-12-06T09:57:00Z" {
		t.Errorf("At = %q, want UTC to the second", at)
	}
}
