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

package feaccess

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// A report is decided on only while it is newer than the operator's last
// change to FE's topology and at most two periods old; a cluster made again
// under the same name starts afresh.
func TestFEViewsDecideOnlyOnFreshReports(t *testing.T) {
	now := time.Unix(1000, 0)
	v := newViews(10 * time.Second)
	v.now = func() time.Time { return now }
	v.reads = NewReads(0) // no read ever starts: the test places the reports
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "u1"}}
	key := "ns/c"
	if rep := v.look(nil, src, ""); rep != nil {
		t.Fatalf("a report before any read: %+v", rep)
	}
	v.last[key] = &Report{UID: "u1", Done: now.Add(-5 * time.Second), Report: starrocks.Report{At: now.Add(-5 * time.Second)}}
	if rep := v.look(nil, src, ""); rep == nil {
		t.Error("a report of 5 s ago was not returned")
	}
	v.changed(key)
	if rep := v.look(nil, src, ""); rep != nil {
		t.Error("a report read before the operator's last change was returned")
	}
	v.last[key] = &Report{UID: "u1", Done: now.Add(time.Second), Report: starrocks.Report{At: now.Add(time.Second)}}
	now = now.Add(15 * time.Second)
	if rep := v.look(nil, src, ""); rep == nil {
		t.Error("a report newer than the change, 14 s old, was not returned")
	}
	now = now.Add(10 * time.Second)
	if rep := v.look(nil, src, ""); rep != nil {
		t.Error("a report 24 s old (over two periods of 10 s) was returned")
	}
	// A read as slow as a hung '/statistic' (it began 25 s ago, ended 5 s
	// ago) counts from its end: its node lists are what FE said then.
	v.last[key] = &Report{UID: "u1", Done: now.Add(-5 * time.Second), Report: starrocks.Report{At: now.Add(-25 * time.Second)}}
	if rep := v.look(nil, src, ""); rep == nil {
		t.Error("a report that ended 5 s ago, begun 25 s ago, was not returned")
	}
	v.last[key] = &Report{UID: "u0", Done: now, Report: starrocks.Report{At: now}}
	if rep := v.look(nil, src, ""); rep != nil {
		t.Error("the report of another cluster of the same name was returned")
	}
	v.forget(key)
	if len(v.last) != 0 || len(v.stale) != 0 {
		t.Errorf("forget left %d reports and %d changes", len(v.last), len(v.stale))
	}
}
