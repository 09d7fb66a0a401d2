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
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// doorAt is a door whose clock is *now and that never starts a read: the
// test places FE's reports.
func doorAt(now *time.Time) Door {
	d := New(nil, Options{Resolve: func(fe.Target) (string, string) { return "127.0.0.1:1", "http://127.0.0.1:1" }})
	d.d.views.now = func() time.Time { return *now }
	d.d.views.reads = NewReads(0)
	return d
}

// A statement sent through the door that may have changed FE (here: it got
// no answer, so FE may have run it) makes what FE said before it useless to
// decide on; nothing sent keeps it. No caller has to remember either. That
// an answered error changes nothing is fe.Client's to tell
// (TestAClientKnowsWhetherItsStatementsMayHaveChangedFE, on the simulated FE).
func TestExecMarksTheViewStaleWhenFEMayHaveChanged(t *testing.T) {
	now := time.Unix(1000, 0)
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "u1"}, Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{}}}
	for _, tt := range []struct {
		name  string
		do    func(t *testing.T, c *fe.Client) error
		stale bool
	}{
		{name: "a statement without an answer", stale: true, do: func(t *testing.T, c *fe.Client) error {
			c.Attempts = 1
			return c.DropBackend(t.Context(), "be-0:9050")
		}},
		{name: "nothing sent", do: func(*testing.T, *fe.Client) error { return errors.New("decided not to") }},
	} {
		d := doorAt(&now)
		d.d.views.last["ns/c"] = &Report{UID: "u1", Done: now.Add(-time.Second), Report: starrocks.Report{At: now.Add(-time.Second)}}
		if d.Look(src, "") == nil {
			t.Fatal("a report of 1 s ago was not returned: the test proves nothing")
		}
		now = now.Add(time.Millisecond)
		ran := false
		err := d.Exec(t.Context(), src, "", func(c *fe.Client) error {
			ran = c != nil && c.Address == "127.0.0.1:1"
			return tt.do(t, c)
		})
		if !ran || err == nil {
			t.Fatalf("%s: Exec ran %v, returned %v; want it run on the cluster's FE and its error returned", tt.name, ran, err)
		}
		rep, _ := d.Word(src, "", Cadence{Health: time.Minute})
		if got := d.Look(src, "") == nil && rep == nil; got != tt.stale {
			t.Errorf("%s: FE's report from before is out of date: %v, want %v", tt.name, got, tt.stale)
		}
	}
}

// A change to FE's topology made other than by a statement (a pod
// deleted) makes FE's earlier report useless to decide on, even when the
// act returned an error: it may have done part of its work.
func TestChangingMarksTheViewStaleWhateverTheActReturned(t *testing.T) {
	now := time.Unix(1000, 0)
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "u1"}}
	for _, actErr := range []error{nil, errors.New("timed out after the server took it")} {
		d := doorAt(&now)
		d.d.views.last["ns/c"] = &Report{UID: "u1", Done: now.Add(-time.Second), Report: starrocks.Report{At: now.Add(-time.Second)}}
		if d.Look(src, "") == nil {
			t.Fatal("a report of 1 s ago was not returned: the test proves nothing")
		}
		now = now.Add(time.Millisecond)
		ran := false
		if err := d.Changing(src, func() error { ran = true; return actErr }); !ran || !errors.Is(err, actErr) {
			t.Errorf("Changing ran the act %v and returned %v; want it run and %v returned", ran, err, actErr)
		}
		if d.Look(src, "") != nil {
			t.Errorf("act returning %v: FE's report from before the change is still decided on", actErr)
		}
	}
}

// An Exec whose client cannot be built sends nothing, and FE's last report stands.
func TestExecThatCannotConnectSendsNothing(t *testing.T) {
	now := time.Unix(1000, 0)
	d := doorAt(&now)
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "u1",
		Annotations: map[string]string{srv1.FESSLModeAnnotation: "on"}}}
	d.d.views.last["ns/c"] = &Report{UID: "u1", Done: now.Add(-time.Second), Report: starrocks.Report{At: now.Add(-time.Second)}}
	now = now.Add(time.Millisecond)
	err := d.Exec(t.Context(), src, "", func(*fe.Client) error { t.Error("a statement ran without a valid SSL mode"); return nil })
	if KindOf(err) != NotAsked || d.Look(src, "") == nil {
		t.Errorf("Exec = %v (kind %d), report %v; want NotAsked and the report kept", err, KindOf(err), d.Look(src, ""))
	}
}

// The zero door reaches no FE and keeps nothing, as an operator without FE.
func TestTheZeroDoorReachesNoFE(t *testing.T) {
	var d Door
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
	if d.Configured() || d.Look(src, "") != nil || d.Every() != DefaultLookEvery {
		t.Error("the zero door is configured, reads, or has no rate")
	}
	if rep, again := d.Word(src, "", Cadence{Rolling: true}); rep != nil || again != 0 {
		t.Errorf("Word = %v, %v; want nothing, and no look again", rep, again)
	}
	if err := d.Exec(t.Context(), src, "", func(*fe.Client) error { return nil }); !errors.Is(err, ErrNoFE) {
		t.Errorf("Exec = %v, want ErrNoFE", err)
	}
	if err := d.Changing(src, func() error { return nil }); err != nil {
		t.Errorf("Changing = %v", err)
	}
	d.Forget(types.NamespacedName{Namespace: "ns", Name: "c"})
}

// Forget drops all the door keeps of a cluster, and only of it.
func TestForgetDropsWhatTheDoorKeepsOfACluster(t *testing.T) {
	now := time.Unix(1000, 0)
	d := doorAt(&now)
	gone, kept := types.NamespacedName{Namespace: "ns", Name: "c"}, types.NamespacedName{Namespace: "ns", Name: "other"}
	for _, nn := range []types.NamespacedName{gone, kept} {
		d.d.features[nn] = featureList{key: "uid/image", features: []string{fe.FeatureMultiWarehouse}}
		d.d.views.last[nn.String()] = &Report{Report: starrocks.Report{At: now}}
		_ = d.Changing(&srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: nn.Namespace, Name: nn.Name}}, func() error { return nil })
	}
	d.Forget(gone)
	if d.Remembers(gone) || !d.Remembers(kept) {
		t.Errorf("remembers the forgotten cluster %v, the other %v; want false, true", d.Remembers(gone), d.Remembers(kept))
	}
}
