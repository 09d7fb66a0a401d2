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
	"context"
	"sync"
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
	if rep := v.look(nil, src, "", false); rep != nil {
		t.Fatalf("a report before any read: %+v", rep)
	}
	v.last[key] = &Report{UID: "u1", Done: now.Add(-5 * time.Second), Report: starrocks.Report{At: now.Add(-5 * time.Second)}}
	if rep := v.look(nil, src, "", false); rep == nil {
		t.Error("a report of 5 s ago was not returned")
	}
	v.changed(key)
	if rep := v.look(nil, src, "", false); rep != nil {
		t.Error("a report read before the operator's last change was returned")
	}
	v.last[key] = &Report{UID: "u1", Done: now.Add(time.Second), Report: starrocks.Report{At: now.Add(time.Second)}}
	now = now.Add(15 * time.Second)
	if rep := v.look(nil, src, "", false); rep == nil {
		t.Error("a report newer than the change, 14 s old, was not returned")
	}
	now = now.Add(10 * time.Second)
	if rep := v.look(nil, src, "", false); rep != nil {
		t.Error("a report 24 s old (over two periods of 10 s) was returned")
	}
	// A read as slow as a hung '/statistic' (it began 25 s ago, ended 5 s
	// ago) counts from its end: its node lists are what FE said then.
	v.last[key] = &Report{UID: "u1", Done: now.Add(-5 * time.Second), Report: starrocks.Report{At: now.Add(-25 * time.Second)}}
	if rep := v.look(nil, src, "", false); rep == nil {
		t.Error("a report that ended 5 s ago, begun 25 s ago, was not returned")
	}
	v.last[key] = &Report{UID: "u0", Done: now, Report: starrocks.Report{At: now}}
	if rep := v.look(nil, src, "", false); rep != nil {
		t.Error("the report of another cluster of the same name was returned")
	}
	v.forget(key)
	if len(v.last) != 0 || len(v.stale) != 0 {
		t.Errorf("forget left %d reports and %d changes", len(v.last), len(v.stale))
	}
}

// A cluster looked at every 2.5 periods (reconciles slowed by a slow API
// server, or a long work queue) finds each time that the read its last
// look asked for ended over two periods ago. A deciding look waits for the
// read it asks of an FE that answered quickly, and decides on it; without
// the wait (the control, as the door was before) it decides on nothing.
func TestFEViewsLookSpacedOverTwoPeriods(t *testing.T) {
	for _, decide := range []bool{true, false} {
		var mu sync.Mutex
		now := time.Unix(1000, 0)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		v := newViews(time.Second)
		v.now = clock
		v.fetch = func(context.Context, *door, *srv1.StarRocksCluster, string, *Report) {} // FE answers at once
		src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "u1"}}
		if rep := v.look(nil, src, "", decide); rep != nil {
			t.Fatalf("a report before any read: %+v", rep)
		}
		for deadline := time.Now().Add(5 * time.Second); v.latest(src) == nil; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the first read did not end")
			}
		}
		got := 0
		for range 5 {
			mu.Lock()
			now = now.Add(2500 * time.Millisecond)
			mu.Unlock()
			if rep := v.look(nil, src, "", decide); rep != nil {
				got++
				if !rep.Done.Equal(clock()) {
					t.Errorf("decided on a report that ended at %s, the look at %s", rep.Done, clock())
				}
			}
			for deadline := time.Now().Add(5 * time.Second); v.reads.Running() > 0; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("a read did not end")
				}
			}
		}
		switch {
		case decide && got != 5:
			t.Errorf("looks 2.5 periods apart, each waiting for its read: %d of 5 had a report to decide on", got)
		case !decide && got != 0:
			t.Errorf("control: looks 2.5 periods apart without the wait decided on %d of 5 reports; want none (the starvation the wait ends)", got)
		}
	}
}

// Only an FE that answered its last read in full, and quickly, is waited
// for: a look at a cluster whose FE failed or dripped its last answer
// starts the read and returns at once, holding no reconcile worker.
func TestFEViewsLookHoldsNoWorkerForAnFEThatFailsOrDrips(t *testing.T) {
	now := time.Unix(1000, 0)
	for name, last := range map[string]*Report{
		"failed":  {UID: "u1", Done: now.Add(-3 * time.Second), Report: starrocks.Report{At: now.Add(-3 * time.Second), Err: context.DeadlineExceeded}},
		"dripped": {UID: "u1", Done: now.Add(-3 * time.Second), Report: starrocks.Report{At: now.Add(-23 * time.Second)}},
	} {
		v := newViews(time.Second)
		v.now = func() time.Time { return now }
		v.wait = time.Second // the bound, not how long this test waits
		release := make(chan struct{})
		v.fetch = func(context.Context, *door, *srv1.StarRocksCluster, string, *Report) { <-release }
		src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "u1"}}
		v.last["ns/c"] = last
		start := time.Now()
		if rep := v.look(nil, src, "", true); rep != nil {
			t.Errorf("%s: decided on a report 3 s old (over two periods of 1 s)", name)
		}
		if took := time.Since(start); took >= v.wait {
			t.Errorf("%s: the look waited %s for a read of an FE that %s its last one", name, took, name)
		}
		if v.reads.Running() != 1 {
			t.Errorf("%s: %d reads running, want the one the look asked for", name, v.reads.Running())
		}
		close(release)
	}
}
