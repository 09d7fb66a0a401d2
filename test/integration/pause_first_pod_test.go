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

package integration_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// testPauseAtTheFirstPod (issue 50 item 15): BE 6 → 4 and FE and BE
// 3.3.2 → 3.4.1 in one update. The scale-in keeps BE's StatefulSet whole
// while FE decommissions be-4 and be-5, and the rollout order keeps FE's
// behind BE's: no pod of the change can go, so no pause is taken, and the
// drain runs at full speed. Every FE's four keys are read from the
// simulated FE throughout the drain: the user's values. Once the drain is
// done, the pause is set before BE's StatefulSet is written, so each BE pod
// the rollout replaces stops with the leader's clone limit at 0; the user's
// values are back at the end on every FE. Taken out (the pause when the
// change is seen), the keys read 0 during the drain, which then moves one
// tablet per 20 s round.
func testPauseAtTheFirstPod(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns, name = "firstpod", "fp"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src := gatedCluster(ns, name, 1, 6)
	src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:" + upgradeFrom
	src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + upgradeFrom
	// MigrationRate 2: each of be-4 and be-5 drains its 20 replicas in
	// about 10 s at full speed; under the pause, one tablet per 20 s round.
	f := startGated(t, c, dir, src, simstarrocks.Options{Version: "3.3", HeartbeatInterval: 500 * time.Millisecond, CheckpointInterval: checkpointEvery, MigrationRate: 2}, 40)
	setUserScheduling(t, f, name)
	from := len(f.Stops())

	// Every FE's four keys, read from the simulated FE every 100 ms while
	// FE lists be-4 or be-5 decommissioning with tablets on it.
	type seen struct {
		at      time.Duration
		fe, key string
		value   string
		left    int
	}
	var mu sync.Mutex
	var during []seen
	samples, drained := 0, false
	start := time.Now()
	stop := sample(100*time.Millisecond, func() {
		left := 0
		for _, b := range f.Backends() {
			if b.Decommissioned {
				left += b.TabletNum
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if left == 0 {
			drained = drained || samples > 0
			return
		}
		samples++
		for _, fr := range f.Frontends() {
			for k, want := range userValues {
				if got, runs := f.FrontendConfig(fr.Host, k); runs && got != want {
					during = append(during, seen{at: time.Since(start), fe: fr.Host, key: k, value: got, left: left})
				}
			}
		}
	})
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksBeSpec.Replicas = ptr.To[int32](4)
		s.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:" + upgradeTo
		s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + upgradeTo
	})
	eventually(t, 30*time.Second, "FE lists be-4 and be-5 decommissioning", func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return samples > 0, nil
	})
	eventually(t, 90*time.Second, "be-4 and be-5 drained", func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(during) > 0 {
			return false, fmt.Errorf("FE held paused values while BEs drained: %+v", during[0])
		}
		return drained, nil
	})
	drainTook := time.Since(start)
	stop()
	mu.Lock()
	t.Logf("the drain of be-4 and be-5 took %s, FE's four keys read %d times on every FE meanwhile, %d reads not the user's", drainTook.Round(100*time.Millisecond), samples, len(during))
	mu.Unlock()

	eventually(t, 3*time.Minute, "FE and BE rolled to "+upgradeTo, func(ctx context.Context) (bool, error) {
		return rolledTo(ctx, c, ns, name, upgradeTo)
	})
	var rolled []replaced
	for _, st := range f.Stops()[from:] {
		pod, _, _ := strings.Cut(st.Host, ".")
		rolled = append(rolled, replaced{pod: pod, scheduling: st.Scheduling})
	}
	t.Logf("the processes that stopped, with the leader's tablet_sched_max_scheduling_tablets then: %v (the change took %s)", rolled, time.Since(start).Round(100*time.Millisecond))
	var bes []string
	for _, r := range rolled {
		if ord, ok := strings.CutPrefix(r.pod, name+"-be-"); ok && slices.Contains([]string{"0", "1", "2", "3"}, ord) {
			bes = append(bes, r.pod)
			if r.scheduling != "0" {
				t.Errorf("%s replaced with tablet_sched_max_scheduling_tablets %s on the leader, want 0: the pause before the first pod", r.pod, r.scheduling)
			}
		}
	}
	if len(bes) != 4 {
		t.Errorf("BE pods replaced %v, want be-0 to be-3", bes)
	}
	recordRemoved(t, c, src, time.Minute)
	keysRestoredOnEveryFE(t, f, userValues)
}

// testPauseLiftedBesideADeadBE (issue 50 item 12): FE and BE 3.3.2 →
// 3.4.1 on 1 FE and 2 BEs; once both BE pods run the new image, be-1's
// process stops (the simulation's stop: FE marks it dead after its missed
// heartbeats, as FE does). FE's pod is replaced, the rollout is done, and
// the pause is lifted all the same: FE's four keys back at the user's
// values on every FE, read from the simulated FE, and the restore's Event
// names the dead BE. Taken out (the restore waits for every BE Alive), the
// keys stay paused, repair crawling at one tablet per 20 s round for good.
func testPauseLiftedBesideADeadBE(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns, name = "deadbe", "db"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src, f := versionCluster(t, c, dir, ns, name, "3.3", upgradeFrom)
	dead := beHost(ns, name, 1)
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:" + upgradeTo
		s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + upgradeTo
	})
	eventually(t, 3*time.Minute, "both BE pods run "+upgradeTo, func(ctx context.Context) (bool, error) {
		s := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, ns, name+"-be", s); err != nil {
			return false, err
		}
		return strings.HasSuffix(stsImage(s), ":"+upgradeTo) && rolledOut(s), nil
	})
	if rec := currentRecord(t, c, src); rec == "" {
		t.Fatal("no pause recorded while the upgrade runs")
	}
	if !f.StopProcess(dead, false) {
		t.Fatalf("no BE process at %s to stop", dead)
	}
	eventually(t, 3*time.Minute, "FE rolled to "+upgradeTo, func(ctx context.Context) (bool, error) {
		return rolledTo(ctx, c, ns, name, upgradeTo)
	})
	eventually(t, time.Minute, "FE lists be-1 not Alive", func(context.Context) (bool, error) {
		for _, b := range f.Backends() {
			if b.Host == dead {
				return !b.Alive, nil
			}
		}
		return false, nil
	})
	keysBackWithin(t, f, userValues, time.Minute)
	recordRemoved(t, c, src, 10*time.Second)
	// The Event is written by the events library's broadcaster, after the
	// record is removed: read until it lands.
	var notes []string
	eventually(t, 30*time.Second, "the restore's Event naming the dead BE", func(context.Context) (bool, error) {
		notes = eventNotes(t, c, ns, name, srv1.ReasonCompatibilityRestored)
		return slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "FE lists BE "+dead+" not Alive") }), nil
	})
	t.Logf("the restore's Events: %q", notes)
}

// keysBackWithin waits up to d for an FE of f to run and every FE that
// runs to hold want for FE's four compatibility keys, read from the
// simulated FE, then checks them (keysRestoredOnEveryFE says which key of
// which FE is not back).
func keysBackWithin(t *testing.T, f *simstarrocks.StarRocks, want map[string]string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		back, running := true, 0
		for _, fr := range f.Frontends() {
			for k, v := range want {
				got, runs := f.FrontendConfig(fr.Host, k)
				if runs {
					running++
				}
				if runs && got != v {
					back = false
				}
			}
		}
		if back && running > 0 {
			break
		}
	}
	keysRestoredOnEveryFE(t, f, want)
}

// currentRecord is the compatibility pause's record on src now.
func currentRecord(t *testing.T, c *testcluster.Cluster, src *srv1.StarRocksCluster) string {
	t.Helper()
	got := &srv1.StarRocksCluster{}
	if err := get(t.Context(), c.Client, src.Namespace, src.Name, got); err != nil {
		t.Fatal(err)
	}
	return got.Annotations[srv1.CompatibilityPauseAnnotation]
}

// eventNotes are the notes of the Events of reason on the cluster name.
func eventNotes(t *testing.T, c *testcluster.Cluster, ns, name, reason string) []string {
	t.Helper()
	var list eventsv1.EventList
	if err := c.Client.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Name == name && e.Reason == reason {
			out = append(out, e.Note)
		}
	}
	return out
}

// testPauseWaitsForTheGate (issue 50 item 15, a gated rollout): 1 FE and
// 3 BEs; be-0's process stops, a load misses its replicas, and BE's image
// goes 3.3.2 → 3.4.1 before be-0's process is back. Every BE pod is Ready
// (its process is not what readiness sees), so BE's gate would write the
// template at once and let its first pod go only once FE counts every
// tablet healthy: be-0's replicas must catch up first. The template and
// the pause wait for the gate's go, so the catch-up runs at the user's
// limit (all at the next TabletChecker round); FE's four keys are read on
// every FE while be-0's replicas are behind and no BE pod was replaced
// yet: the user's values. Then every BE pod is replaced with the leader's
// clone limit at 0, and the user's values are back at the end. Taken out
// (the pause as the gated template is written), the keys read 0 while the
// gate waits, and be-0's replicas catch up one per 20 s round.
func testPauseWaitsForTheGate(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns, name, tablets = "gatefirst", "gf", 30
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src := gatedCluster(ns, name, 1, 3)
	src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:" + upgradeFrom
	src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + upgradeFrom
	f := startGated(t, c, dir, src, simstarrocks.Options{Version: "3.3", HeartbeatInterval: 500 * time.Millisecond, CheckpointInterval: checkpointEvery}, tablets)
	setUserScheduling(t, f, name)

	behind := beHost(ns, name, 0)
	if !f.StopProcess(behind, false) {
		t.Fatalf("no BE process at %s to stop", behind)
	}
	// One load while be-0 is down (no loads after it: the replicas of the
	// BEs the rollout restarts miss none).
	if missed := f.Load(); missed != tablets {
		t.Fatalf("the load missed %d replicas on %s, want %d", missed, behind, tablets)
	}
	from := len(f.Stops())

	type seen struct {
		at      time.Duration
		fe, key string
		value   string
		below   int
	}
	var mu sync.Mutex
	var during []seen
	samples, caughtUp := 0, false
	start := time.Now()
	var once sync.Once
	sampler := sample(100*time.Millisecond, func() {
		below := f.TabletsBelow(3)
		mu.Lock()
		defer mu.Unlock()
		if below == 0 || len(f.Stops()) > from {
			caughtUp = caughtUp || samples > 0
			return
		}
		samples++
		for _, fr := range f.Frontends() {
			for k, want := range userValues {
				if got, runs := f.FrontendConfig(fr.Host, k); runs && got != want {
					during = append(during, seen{at: time.Since(start), fe: fr.Host, key: k, value: got, below: below})
				}
			}
		}
	})
	stop := func() { once.Do(sampler) }
	defer stop()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + upgradeTo
	})
	// A few reconciles with be-0 down in FE's eyes and its replicas behind.
	time.Sleep(3 * time.Second)
	if !f.StartProcess(behind) {
		t.Fatalf("no BE process at %s to start", behind)
	}
	var told string
	eventually(t, 90*time.Second, "be-0's replicas caught up before any BE pod was replaced", func(context.Context) (bool, error) {
		if p := progressing(t, c, ns, name); strings.Contains(p.Message, "waits for FE to report every tablet healthy; the image change, and the compatibility pause it takes, wait with it") {
			told = p.Message
		}
		mu.Lock()
		defer mu.Unlock()
		if len(during) > 0 {
			return false, fmt.Errorf("FE held paused values while the gate waited for be-0's replicas: %+v", during[0])
		}
		return caughtUp, nil
	})
	stop()
	if told == "" {
		t.Error("Progressing never said that BE's first pod, and the pause, wait for every tablet healthy")
	}
	mu.Lock()
	t.Logf("Progressing meanwhile: %q", told)
	t.Logf("be-0's %d replicas caught up %s after the update, FE's four keys read %d times on every FE meanwhile, %d reads not the user's",
		tablets, time.Since(start).Round(100*time.Millisecond), samples, len(during))
	mu.Unlock()

	eventually(t, 3*time.Minute, "BE rolled to "+upgradeTo, func(ctx context.Context) (bool, error) {
		s := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, ns, name+"-be", s); err != nil {
			return false, err
		}
		return strings.HasSuffix(stsImage(s), ":"+upgradeTo) && rolledOut(s), nil
	})
	var bes []string
	for _, st := range f.Stops()[from:] {
		pod, _, _ := strings.Cut(st.Host, ".")
		if strings.HasPrefix(pod, name+"-be-") {
			bes = append(bes, pod)
			if st.Scheduling != "0" {
				t.Errorf("%s replaced with tablet_sched_max_scheduling_tablets %s on the leader, want 0: the pause before the first pod", pod, st.Scheduling)
			}
		}
	}
	if len(bes) != 3 {
		t.Errorf("BE pods replaced %v, want be-0 to be-2", bes)
	}
	recordRemoved(t, c, src, time.Minute)
	keysRestoredOnEveryFE(t, f, userValues)
}
