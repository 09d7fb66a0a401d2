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
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/test/crash"
	"github.com/srscale/starrocks-operator/test/faulttable"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// The compatibility pause of a minor version change (issue 36,
// docs/upgrades.md): tablet clone and balancing off before the first pod of
// the change is replaced, FE's own values recorded on the cluster, and set
// again once every component runs its image and every BE is Alive.
func TestUpgradeProcedure(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	t.Parallel()
	c, dir := simulatedWithStarRocks(t)
	t.Run("3.5 to 3.4, FE first: clone paused as every pod is replaced, set again after FE's restart, FE's own values restored after the last pod; without the pause clone runs throughout", func(t *testing.T) {
		testPauseAroundMinorChange(t, c, dir)
	})
	t.Run("3.2 to 3.4 skips a minor version: a Warning, then BE before FE, each pod replaced with clone paused", func(t *testing.T) {
		testMinorSkipWarnsAndRollsInOrder(t, c, dir)
	})
	t.Run("3.3 to 3.4 on 3 FEs: clone paused, ALTER SYSTEM CREATE IMAGE after the leader, FE's values restored only once every FE has the new image; without the procedure the followers keep the old version's image", func(t *testing.T) {
		testImageAfterChange(t, c, dir)
	})
	t.Run("an operator SIGKILLed just after the pause began, or just after it asked for the image, restores FE's recorded values once; without the record it would restore the paused ones", func(t *testing.T) {
		testPauseAcrossSIGKILL(t, c, dir)
	})
	t.Run("an FE FE lists that never answers: every ADMIN SET fails after applying, the pause and the restore are decided on the leader's word, the upgrade finishes", func(t *testing.T) {
		testPauseWithAnFEThatDoesNotAnswer(t, c, dir)
	})
	t.Run("FE's HTTP port wants other credentials: the image step ends at its limit, clone and balancing restored first, then the record rewritten, why told", func(t *testing.T) {
		testImageStepBounded(t, c, dir)
	})
	t.Run("BE 6 to 4 with an image bump in one update: no pause while the decommission drains (FE's keys at the user's values on every FE), the pause before the first BE pod is replaced", func(t *testing.T) {
		testPauseAtTheFirstPod(t, c, dir)
	})
	t.Run("a BE process stopped mid-upgrade: the rollout finishes, the pause is lifted on every FE all the same, and the restore names the dead BE", func(t *testing.T) {
		testPauseLiftedBesideADeadBE(t, c, dir)
	})
	t.Run("BE's image bumped while a BE's replicas are behind: the gate's first pod waits for them, and the pause with it (FE's keys at the user's values on every FE), then every BE pod replaced under the pause", func(t *testing.T) {
		testPauseWaitsForTheGate(t, c, dir)
	})
}

// testPauseWithAnFEThatDoesNotAnswer: FE lists a follower that never
// started (added by hand, on no pod of the cluster), so each ADMIN SET
// FRONTEND CONFIG waits for it, fails naming it, and has applied on every
// FE that answered (ConfigBase.setConfig). BE 3.3.2 to 3.4.1 under FE
// 3.3.2, 2 BEs: the operator reads FE's leader after each failure, goes on
// with the pause in force there, and restores FE's values the same way. Without it
// (issue 50, item 14) the change was held for ever with clone throttled,
// and a restore failing so left the values paused.
func testPauseWithAnFEThatDoesNotAnswer(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns, name, ghost = "deadfe", "df", "fe-gone.elsewhere.example"
	row := faulttable.Row{Fault: "an FE that FE lists never answers ADMIN SET FRONTEND CONFIG",
		Injected: "BE 3.3.2 → 3.4.1 under FE 3.3.2, 2 BEs, the user's tablet_sched_max_scheduling_tablets at " + userScheduling +
			"; FE lists a follower that never started, so every ADMIN SET waits 1 s for it and fails after applying on the FEs that answered",
		Control: "before issue 50's fix (the leader not asked): BE not rolled within 2 min, the change held for good while the pause FE applied before failing throttles clone on the FEs that answered"}
	defer func() { recordFault(t, row) }()
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src, f := versionCluster(t, c, dir, ns, name, "3.3", upgradeFrom)
	execFE(t, f, "pw-"+name, `ALTER SYSTEM ADD FOLLOWER "`+ghost+`:9010"`)
	// BE alone goes to the next minor version (BE first, as the pages
	// order it): the pause and its restore, without FE's image step.
	from, start := len(f.Stops()), time.Now()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + upgradeTo })
	eventually(t, 2*time.Minute, "BE rolled to "+upgradeTo, func(ctx context.Context) (bool, error) {
		s := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, ns, name+"-be", s); err != nil {
			return false, err
		}
		return strings.HasSuffix(stsImage(s), ":"+upgradeTo) && rolledOut(s), nil
	})
	took := time.Since(start)
	var seen []replaced
	for _, st := range f.Stops()[from:] {
		pod, _, _ := strings.Cut(st.Host, ".")
		seen = append(seen, replaced{pod: pod, scheduling: st.Scheduling})
	}
	t.Logf("BE %s to %s with %s listed and silent: rolled in %s; tablet_sched_max_scheduling_tablets as each pod's process stopped: %v", upgradeFrom, upgradeTo, ghost, took.Round(100*time.Millisecond), seen)
	if len(seen) != 2 {
		t.Errorf("pods replaced %v, want both BEs", seen)
	}
	for _, r := range seen {
		if r.scheduling != "0" {
			t.Errorf("%s replaced with tablet_sched_max_scheduling_tablets %s on the leader, want 0 (the pause in force on the leader)", r.pod, r.scheduling)
		}
	}
	recordRemoved(t, c, src, 2*time.Minute)
	keysRestoredOnEveryFE(t, f, userValues)
	var failed int
	for _, a := range f.Answers() {
		if strings.HasPrefix(a.Statement, "ADMIN SET") && strings.Contains(a.Error, "fe["+ghost+"]") {
			failed++
		}
	}
	if failed < 8 {
		t.Errorf("%d ADMIN SET statements failed naming %s, want at least 8 (the pause's four and the restore's four)", failed, ghost)
	}
	if n := warningsIn(t.Context(), t, c, ns, name, srv1.ReasonCompatibilityPause); n < 1 {
		t.Errorf("%d Warning Events %s, want the FE that did not take the pause told", n, srv1.ReasonCompatibilityPause)
	}
	if n := warningsIn(t.Context(), t, c, ns, name, srv1.ReasonCompatibilityRestored); n < 1 {
		t.Errorf("%d Warning Events %s, want the FE that did not take the restore told", n, srv1.ReasonCompatibilityRestored)
	}
	got, _ := f.FrontendConfig("", "tablet_sched_max_scheduling_tablets")
	row.Converged = fmt.Sprintf("rolled in %s with every pod replaced at 0 on the leader (the pause confirmed on the leader's ADMIN SHOW FRONTEND CONFIG after %d failed ADMIN SET), FE's values restored the same way, the record removed",
		took.Round(100*time.Millisecond), failed)
	row.Lost = "nothing: the four keys back at the user's values on every FE (tablet_sched_max_scheduling_tablets " + got + ")"
}

// testImageStepBounded: every FE's HTTP port asks for an account the
// operator does not have (enable_http_auth with other credentials), so no
// FE's image can be read. 3.3.2 to 3.4.1 on 1 FE and 2 BEs rolls under the
// pause; the image step after it ends at the limit (shortened to 5 s):
// FE's values restored first, the record then rewritten to the image still
// due, why told in the status and one Warning. Without the bound (issue
// 50, item 13) the pause stayed on for good.
func testImageStepBounded(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns, name = "imagebound", "ib"
	const limit = 5 * time.Second
	row := faulttable.Row{Fault: "FE's HTTP port wants other credentials during the metadata image step",
		Injected: "3.3.2 → 3.4.1 on 1 FE and 2 BE, the user's tablet_sched_max_scheduling_tablets at " + userScheduling +
			"; enable_http_auth with an account the operator does not have: every SHOW_HA answers 401; the image step's limit 5 s (FE's 5 min 10 s)",
		Control: "before issue 50's fix (the image step unbounded): the record kept FE's values and the pause stayed on past 60 s after the rollout"}
	defer func() { recordFault(t, row) }()
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery, imageWaitLimit: limit})
	src, f := versionCluster(t, c, dir, ns, name, "3.3", upgradeFrom)
	f.RequireHTTPAuth("http-admin", "not-the-operators")
	seen, took := changeVersion(t, c, f, src, upgradeTo)
	for _, r := range seen {
		if r.scheduling != "0" {
			t.Errorf("%s replaced with tablet_sched_max_scheduling_tablets %s, want 0", r.pod, r.scheduling)
		}
	}
	var rec string
	eventually(t, time.Minute, "the record rewritten without the values", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, name, src); err != nil {
			return false, err
		}
		rec = src.Annotations[srv1.CompatibilityPauseAnnotation]
		return rec != "" && !strings.Contains(rec, "values"), nil
	})
	t.Logf("rolled in %s; the record now %s", took.Round(100*time.Millisecond), rec)
	keysRestoredOnEveryFE(t, f, userValues)
	if n := warningsIn(t.Context(), t, c, ns, name, srv1.ReasonMetadataImage); n != 1 {
		t.Errorf("%d Warning Events %s, want 1", n, srv1.ReasonMetadataImage)
	}
	cond := ""
	eventually(t, 30*time.Second, "Progressing tells why the image is not confirmed (HTTP 401)", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, name, src); err != nil {
			return false, err
		}
		for _, cd := range src.Status.Conditions {
			if cd.Type == "Progressing" {
				cond = cd.Message
			}
		}
		return strings.Contains(cond, "HTTP 401"), nil
	})
	t.Logf("Progressing: %s", cond)
	got, _ := f.FrontendConfig("", "tablet_sched_max_scheduling_tablets")
	row.Converged = fmt.Sprintf("rolled in %s under the pause; at the limit clone and balancing restored, then the record rewritten to %s; Progressing and one Warning MetadataImage name the 401",
		took.Round(100*time.Millisecond), rec)
	row.Lost = "nothing: the four keys back at the user's values on every FE (tablet_sched_max_scheduling_tablets " + got + "); FE's next image change waits for the image"
}

// checkpointEvery is the simulated FE's checkpoint round in these tests:
// FE's is 60 s (FeConstants.checkpoint_interval_second); shortened to save
// time, as the heartbeat is. The 10 s time printer that rolls the journal
// after ALTER SYSTEM CREATE IMAGE stays FE's.
const checkpointEvery = 2 * time.Second

const (
	upgradeFrom    = "3.3.2"
	upgradeTo      = "3.4.1"
	userScheduling = "2000" // a user's own tablet_sched_max_scheduling_tablets, set before the change
)

// versionCluster is a 1 FE, 2 BE cluster whose images carry tag and whose
// simulated FE reports every node at simVersion, running, with a table of
// 4 tablets of 2 replicas, and the user's own scheduling limit set on FE.
func versionCluster(t *testing.T, c *testcluster.Cluster, dir *feDirectory, ns, name, simVersion, tag string) (*srv1.StarRocksCluster, *simstarrocks.StarRocks) {
	t.Helper()
	src := gatedCluster(ns, name, 1, 2)
	src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:" + tag
	src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + tag
	f := startGated(t, c, dir, src, simstarrocks.Options{Version: simVersion, HeartbeatInterval: 500 * time.Millisecond, CheckpointInterval: checkpointEvery}, 0)
	if err := f.CreateTable("db", "t", 2, 4); err != nil {
		t.Fatal(err)
	}
	setUserScheduling(t, f, name)
	return src, f
}

// setUserScheduling sets the user's own tablet_sched_max_scheduling_tablets
// on the FE of cluster name, as root.
func setUserScheduling(t *testing.T, f *simstarrocks.StarRocks, name string) {
	t.Helper()
	feClient := &fe.Client{Address: f.QueryAddress(), Password: "pw-" + name}
	if err := (fe.SetFrontendConfig{Key: "tablet_sched_max_scheduling_tablets", Value: userScheduling}).Send(t.Context(), feClient); err != nil {
		t.Fatal(err)
	}
}

// rolledTo is true once FE's and BE's StatefulSets carry tag and rolled out.
func rolledTo(ctx context.Context, c *testcluster.Cluster, ns, name, tag string) (bool, error) {
	for _, sts := range []string{name + "-fe", name + "-be"} {
		s := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, ns, sts, s); err != nil {
			return false, err
		}
		if !strings.HasSuffix(stsImage(s), ":"+tag) || !rolledOut(s) {
			return false, nil
		}
	}
	return true, nil
}

// replaced is a pod whose process stopped as it was replaced, and the
// scheduling limit its repairs obeyed then (simstarrocks.Stop: an FE's own
// memory, the leader's for a BE), recorded by the simulation as it
// stopped: no sampler can miss the moment.
type replaced struct{ pod, scheduling string }

// changeVersion changes FE's and BE's image to tag, waits until both rolled
// out, and returns the processes that stopped meanwhile, in order.
func changeVersion(t *testing.T, c *testcluster.Cluster, f *simstarrocks.StarRocks, src *srv1.StarRocksCluster, tag string) (seen []replaced, took time.Duration) {
	t.Helper()
	ns, name := src.Namespace, src.Name
	from := len(f.Stops())
	start := time.Now()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:" + tag
		s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + tag
	})
	eventually(t, 3*time.Minute, "FE and BE rolled to "+tag, func(ctx context.Context) (bool, error) {
		return rolledTo(ctx, c, ns, name, tag)
	})
	for _, st := range f.Stops()[from:] {
		pod, _, _ := strings.Cut(st.Host, ".")
		seen = append(seen, replaced{pod: pod, scheduling: st.Scheduling})
	}
	return seen, time.Since(start)
}

// adminStatements are the ADMIN statements FE was sent, in order.
func adminStatements(f *simstarrocks.StarRocks) []string { return f.StatementsLike("ADMIN") }

// procedureStatements are the statements of the upgrade procedure FE was
// sent, in order: the ADMIN ones and ALTER SYSTEM CREATE IMAGE.
func procedureStatements(f *simstarrocks.StarRocks) []string {
	var out []string
	for _, s := range f.StatementsLike("A") {
		if strings.HasPrefix(s, "ADMIN") || s == fe.CreateImageSQL {
			out = append(out, s)
		}
	}
	return out
}

// testPauseAroundMinorChange: a minor downgrade, 3.5.0 to 3.4.6, rolls FE
// first: FE's restart puts its memory back at fe.conf's values, and the
// pause must be set again before the BE pods go. Every pod is replaced
// with clone at 0 on the leader, and the user's own 2000 is back at the
// end. The control, the same downgrade with the check (and so the pause)
// off: clone runs as each pod is replaced.
func testPauseAroundMinorChange(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns, name = "pause", "dn"
	const simVersion, from, to = "3.5", "3.5.0", "3.4.6"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src, f := versionCluster(t, c, dir, ns, name, simVersion, from)
	// FE goes down a line: the pages ask ignore_unknown_log_id = true in
	// fe.conf first, which the user confirms here (docs/upgrades.md).
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Annotations = map[string]string{srv1.UpgradePathConfirmAnnotation: srv1.ConfirmIgnoreUnknownLogID}
	})

	seen, took := changeVersion(t, c, f, src, to)
	t.Logf("%s to %s rolled in %s; tablet_sched_max_scheduling_tablets as each pod's process stopped: %v", from, to, took.Round(100*time.Millisecond), seen)
	if len(seen) != 3 || !strings.HasPrefix(seen[0].pod, name+"-fe-") {
		t.Errorf("pods replaced %v, want FE's first, then both BEs (a downgrade)", seen)
	}
	for _, r := range seen {
		if r.scheduling != "0" {
			t.Errorf("%s replaced with tablet_sched_max_scheduling_tablets %s on the leader, want 0 (clone paused)", r.pod, r.scheduling)
		}
	}
	eventually(t, time.Minute, "the record removed", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, name, src); err != nil {
			return false, err
		}
		return src.Annotations[srv1.CompatibilityPauseAnnotation] == "", nil
	})
	keysRestoredOnEveryFE(t, f, userValues)
	stmts := adminStatements(f)
	t.Logf("statements of the procedure, in order:\n  %s", strings.Join(procedureStatements(f), "\n  "))
	// A downgrade of FE: an image before FE's pod (Downgrade StarRocks,
	// "Downgrade FE" step 1) and one after the change.
	if n := countPrefix(procedureStatements(f), fe.CreateImageSQL); n != 2 {
		t.Errorf("ALTER SYSTEM CREATE IMAGE sent %d times, want 2 (before FE's downgrade, after the change)", n)
	}
	if n := countPrefix(stmts, "ADMIN SHOW FRONTEND CONFIG"); n != 4 {
		t.Errorf("%d ADMIN SHOW statements, want 4 (one read of each key, once)", n)
	}
	pauses := countPrefix(stmts, `ADMIN SET FRONTEND CONFIG ('tablet_sched_max_scheduling_tablets' = '0')`)
	restores := countPrefix(stmts, `ADMIN SET FRONTEND CONFIG ('tablet_sched_max_scheduling_tablets' = '`+userScheduling+`')`)
	if pauses < 2 || restores != 2 {
		t.Errorf("%d pauses and %d SETs of FE's own value, want at least 2 (before FE, after FE's restart) and 2 (the test's, the restore)", pauses, restores)
	}
	for _, reason := range []string{srv1.ReasonCompatibilityPause, srv1.ReasonCompatibilityRestored} {
		if n := eventsIn(t.Context(), t, c, ns, name, reason); n != 1 {
			t.Errorf("%d Events %s, want 1", n, reason)
		}
	}
	// A minor downgrade: the pages ask for fe.conf's ignore_unknown_log_id,
	// which the operator does not edit; told as a Warning, for FE's change
	// and BE's. The events library folds Events of one reason on one object
	// into a series it writes later: one or two are seen.
	if n := warningsIn(t.Context(), t, c, ns, name, srv1.ReasonUpgradeRequires); n < 1 || n > 2 {
		t.Errorf("%d Warning Events %s, want 1 or 2 (FE's and BE's change)", n, srv1.ReasonUpgradeRequires)
	}

	const ctl = "dn-control"
	src2, f2 := versionCluster(t, c, dir, ns, ctl, simVersion, from)
	mutate(t, c.Client, src2, func(s *srv1.StarRocksCluster) {
		s.Annotations = map[string]string{srv1.UpgradePathCheckAnnotation: srv1.UpgradePathCheckOff}
	})
	seen2, took2 := changeVersion(t, c, f2, src2, to)
	t.Logf("control (no pause): rolled in %s; tablet_sched_max_scheduling_tablets as each pod's process stopped: %v", took2.Round(100*time.Millisecond), seen2)
	for _, r := range seen2 {
		if r.scheduling == "0" {
			t.Errorf("the control paused clone: %v", seen2)
		}
	}
	if n := countPrefix(adminStatements(f2), "ADMIN SET"); n != 1 {
		t.Errorf("the control sent %d ADMIN SET statements, want the test's own 1", n)
	}
	if n := eventsIn(t.Context(), t, c, ns, ctl, srv1.ReasonUpgradeRequires); n != 0 {
		t.Errorf("the control (check off) told %d Events %s, want none", n, srv1.ReasonUpgradeRequires)
	}
}

// testMinorSkipWarnsAndRollsInOrder: the simulated FE reports every node at
// 3.2.0; FE and BE go to 3.4.1, which the docs allow but recommend against
// (one minor version at a time). A Warning Event UpgradePathWarning for
// each component's change, then
// the upgrade order (both BE pods before FE's), each pod replaced with the
// pause in force.
func testMinorSkipWarnsAndRollsInOrder(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns, name = "skip", "sk"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src, f := versionCluster(t, c, dir, ns, name, "3.2", "3.2.0")
	seen, took := changeVersion(t, c, f, src, "3.4.1")
	t.Logf("3.2.0 to 3.4.1 rolled in %s; tablet_sched_max_scheduling_tablets as each pod's process stopped: %v", took.Round(100*time.Millisecond), seen)
	if len(seen) != 3 || !strings.HasPrefix(seen[2].pod, name+"-fe-") {
		t.Errorf("pods replaced %v, want both BEs, then FE (an upgrade)", seen)
	}
	for _, r := range seen {
		if r.scheduling != "0" {
			t.Errorf("%s replaced with tablet_sched_max_scheduling_tablets %s, want 0", r.pod, r.scheduling)
		}
	}
	// One for FE's change and one for BE's; the events library folds Events
	// of one reason on one object into a series it writes later.
	if n := warningsIn(t.Context(), t, c, ns, name, srv1.ReasonUpgradePathWarning); n < 1 || n > 2 {
		t.Errorf("%d Warning Events %s, want 1 or 2 (FE's and BE's change)", n, srv1.ReasonUpgradePathWarning)
	}
	recordRemoved(t, c, src, time.Minute)
	keysRestoredOnEveryFE(t, f, userValues)
}

// recordRemoved waits until the compatibility pause's record is off src.
func recordRemoved(t *testing.T, c *testcluster.Cluster, src *srv1.StarRocksCluster, within time.Duration) {
	t.Helper()
	eventually(t, within, src.Name+": the record removed", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, src.Namespace, src.Name, src); err != nil {
			return false, err
		}
		return src.Annotations[srv1.CompatibilityPauseAnnotation] == "", nil
	})
}

// testImageAfterChange: 3.3.2 to 3.4.1 on 3 FEs and 2 BEs. After the
// leader's pod, ALTER SYSTEM CREATE IMAGE; FE's recorded values come back
// only once every FE has an image past the journal the operator read
// (before the change every FE had image.0: the journal never rolled). The
// control, the same change with the check (and so the procedure) off: the
// followers still hold the old version's image, which StarRocks' pages say
// makes the next upgrade fail on them ("metadata upgrade failure for some
// Follower FEs").
func testImageAfterChange(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns = "image"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	run := func(name string, checkOff bool) (images, atRestore map[string]int64, stmts []string) {
		src := gatedCluster(ns, name, 3, 2)
		src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:" + upgradeFrom
		src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + upgradeFrom
		hosts := []string{feHost(ns, name, 0), feHost(ns, name, 1), feHost(ns, name, 2)}
		var mu sync.Mutex // guards seenUser and atRestore
		var sim atomic.Pointer[simstarrocks.StarRocks]
		snapshot := func() map[string]int64 {
			out := map[string]int64{}
			for _, h := range hosts {
				pod, _, _ := strings.Cut(h, ".")
				out[pod] = sim.Load().ImageVersion(h)
			}
			return out
		}
		restore := `ADMIN SET FRONTEND CONFIG ('tablet_sched_max_scheduling_tablets' = '` + userScheduling + `')`
		seenUser := 0
		opts := simstarrocks.Options{HeartbeatInterval: 500 * time.Millisecond, CheckpointInterval: checkpointEvery, AfterStatement: func(stmt string) {
			if stmt != restore || sim.Load() == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			seenUser++
			if seenUser == 2 { // the test's own SET first, then the restore
				atRestore = snapshot()
			}
		}}
		f := startGated(t, c, dir, src, opts, 0)
		sim.Store(f)
		if err := f.CreateTable("db", "t", 2, 4); err != nil {
			t.Fatal(err)
		}
		setUserScheduling(t, f, name)
		if checkOff {
			mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
				s.Annotations = map[string]string{srv1.UpgradePathCheckAnnotation: srv1.UpgradePathCheckOff}
			})
		}
		before := snapshot()
		seen, took := changeVersion(t, c, f, src, upgradeTo)
		eventually(t, 2*time.Minute, name+": the record removed", func(ctx context.Context) (bool, error) {
			if err := get(ctx, c.Client, ns, name, src); err != nil {
				return false, err
			}
			return src.Annotations[srv1.CompatibilityPauseAnnotation] == "", nil
		})
		if !checkOff {
			// The control has no pause to restore: each FE its pod
			// restarted is back at fe.conf's values, as FE is.
			keysRestoredOnEveryFE(t, f, userValues)
		}
		mu.Lock()
		defer mu.Unlock()
		t.Logf("%s: images before %v; pods rolled in %s: %v; images at the restore %v, now %v", name, before, took.Round(100*time.Millisecond), seen, atRestore, snapshot())
		for pod, v := range before {
			if v != 0 {
				t.Fatalf("%s: %s had image %d before the change, want image.0 (nothing rolled the journal)", name, pod, v)
			}
		}
		return snapshot(), atRestore, procedureStatements(f)
	}

	images, atRestore, stmts := run("im", false)
	t.Logf("statements of the procedure, in order:\n  %s", strings.Join(stmts, "\n  "))
	if len(atRestore) != 3 {
		t.Fatalf("no restore of FE's own value seen (images at the restore %v)", atRestore)
	}
	for pod, v := range atRestore {
		if v <= 0 {
			t.Errorf("FE's values restored while %s still had image %d, the old version's", pod, v)
		}
	}
	if n := countPrefix(stmts, fe.CreateImageSQL); n != 1 {
		t.Errorf("ALTER SYSTEM CREATE IMAGE sent %d times, want once", n)
	}
	if i, j := slices.Index(stmts, fe.CreateImageSQL), slices.Index(stmts, `ADMIN SET FRONTEND CONFIG ('disable_colocate_balance' = 'false')`); i < 0 || j < i {
		t.Errorf("CREATE IMAGE at %d, the restore's last statement at %d: want the image first", i, j)
	}
	for _, reason := range []string{srv1.ReasonCompatibilityPause, srv1.ReasonMetadataImage, srv1.ReasonCompatibilityRestored} {
		// client-go's events recorder posts each Event from a goroutine of
		// its own and retries a failed post 10 s later: an Event told
		// before another may land after it.
		_ = wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			return eventsIn(ctx, t, c, ns, "im", reason) > 0, nil
		})
		if n := eventsIn(t.Context(), t, c, ns, "im", reason); n != 1 {
			t.Errorf("%d Events %s, want 1", n, reason)
		}
	}

	ctlImages, _, ctlStmts := run("im-control", true)
	if n := countPrefix(ctlStmts, fe.CreateImageSQL); n != 0 {
		t.Errorf("the control sent ALTER SYSTEM CREATE IMAGE %d times", n)
	}
	stale := 0
	for _, v := range ctlImages {
		if v == 0 {
			stale++
		}
	}
	t.Logf("with the procedure: images %v; the control: %v", images, ctlImages)
	if stale == 0 {
		t.Errorf("the control: every FE has a new image %v without CREATE IMAGE; the test shows nothing", ctlImages)
	}
}

// testPauseAcrossSIGKILL: the operator binary is SIGKILLed right after FE
// answered the pause's first statement. The record is on the cluster
// already: the next process sets the pause again, rolls, and restores FE's
// recorded values once. The control: the same kill, with the record taken
// off the cluster before the next process starts (as if it had been kept
// in memory): the next process records what FE shows then, the paused 0,
// and "restores" clone to 0 at the end: clone stays off.
func testPauseAcrossSIGKILL(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	bin := operatorBinary(t)
	row := faulttable.Row{Fault: "operator SIGKILL right after the compatibility pause began",
		Injected: "3.3.2 → 3.4.1 on 1 FE and 2 BE, the user's tablet_sched_max_scheduling_tablets at " + userScheduling +
			"; the operator binary SIGKILLed as FE answered the first pause statement, restarted"}
	defer func() { recordFault(t, row) }()
	imageRow := faulttable.Row{Fault: "operator SIGKILL right after it asked FE for the metadata image",
		Injected: "3.3.2 → 3.4.1 on 1 FE and 2 BE, the user's tablet_sched_max_scheduling_tablets at " + userScheduling +
			"; the operator binary SIGKILLed as FE answered ALTER SYSTEM CREATE IMAGE, restarted"}
	defer func() { recordFault(t, imageRow) }()
	const pauseStmt = `ADMIN SET FRONTEND CONFIG ('tablet_sched_max_scheduling_tablets' = '0')`
	for _, tc := range []struct {
		name, killAfter string
		dropRecord      bool
		want            string
	}{
		{name: "kill", killAfter: pauseStmt, want: userScheduling},
		{name: "kill-control", killAfter: pauseStmt, dropRecord: true, want: "0"},
		{name: "kill-image", killAfter: fe.CreateImageSQL, want: userScheduling},
	} {
		ns := "pause-" + tc.name
		testutil.CreateNamespace(t, c.Client, ns)
		op := crash.New(t, crash.Options{Binary: bin, Cluster: c, Args: []string{"--namespace=" + ns}})
		src := gatedCluster(ns, "k", 1, 2)
		src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:" + upgradeFrom
		src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + upgradeFrom
		f := startFE(t, dir, ns, src.Name, simstarrocks.Options{HeartbeatInterval: 500 * time.Millisecond, CheckpointInterval: checkpointEvery, AfterStatement: op.Statement})
		op.SetFEHosts(ns, src.FeServiceName(), f.QueryAddress(), f.HTTPURL(), feHosts(f, ns, src.Name, 1))
		op.Start()
		if err := c.Client.Create(t.Context(), src); err != nil {
			t.Fatal(err)
		}
		waitRunning(t, c, ns, src.Name, 2*time.Minute)
		eventually(t, time.Minute, "every node Alive in FE", func(context.Context) (bool, error) { return aliveFEs(f) == 1 && aliveBEs(f) == 2, nil })
		if err := f.CreateTable("db", "t", 2, 4); err != nil {
			t.Fatal(err)
		}
		setUserScheduling(t, f, src.Name)
		paused := op.KillAfterStatement(tc.killAfter)
		mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
			s.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:" + upgradeTo
			s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:" + upgradeTo
		})
		var k crash.Killed
		select {
		case k = <-paused:
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s: no %q within 2 minutes of the upgrade", tc.name, tc.killAfter)
		}
		if !k.BySIGKILL {
			t.Fatalf("%s: process %d did not end by SIGKILL", tc.name, k.Pid)
		}
		if err := get(t.Context(), c.Client, ns, src.Name, src); err != nil {
			t.Fatal(err)
		}
		record := src.Annotations[srv1.CompatibilityPauseAnnotation]
		if !strings.Contains(record, `"tablet_sched_max_scheduling_tablets":"`+userScheduling+`"`) {
			t.Fatalf("%s: the record at the kill is %q, want FE's own %s in it", tc.name, record, userScheduling)
		}
		if tc.dropRecord {
			mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { delete(s.Annotations, srv1.CompatibilityPauseAnnotation) })
		}
		restarted := time.Now()
		op.Start()
		eventually(t, 3*time.Minute, tc.name+": rolled to "+upgradeTo+" and the record removed", func(ctx context.Context) (bool, error) {
			if ok, err := rolledTo(ctx, c, ns, src.Name, upgradeTo); !ok || err != nil {
				return false, err
			}
			if err := get(ctx, c.Client, ns, src.Name, src); err != nil {
				return false, err
			}
			return src.Annotations[srv1.CompatibilityPauseAnnotation] == "", nil
		})
		got, _ := f.FrontendConfig("", "tablet_sched_max_scheduling_tablets")
		stmts := procedureStatements(f)
		t.Logf("%s: killed process %d after %q; the next process finished %s after it started; tablet_sched_max_scheduling_tablets = %s; ADMIN statements:\n  %s",
			tc.name, k.Pid, k.What, time.Since(restarted).Round(100*time.Millisecond), got, strings.Join(stmts, "\n  "))
		if got != tc.want {
			t.Errorf("%s: tablet_sched_max_scheduling_tablets = %q after the upgrade, want %q", tc.name, got, tc.want)
		}
		if !tc.dropRecord {
			keysRestoredOnEveryFE(t, f, userValues)
		}
		switch {
		case tc.killAfter == fe.CreateImageSQL:
			images := f.ImageVersion(feHost(ns, src.Name, 0))
			if n := countPrefix(stmts, fe.CreateImageSQL); n != 2 {
				t.Errorf("%s: ALTER SYSTEM CREATE IMAGE sent %d times, want 2 (once by each process: the memory of the first is gone)", tc.name, n)
			}
			if images <= 0 {
				t.Errorf("%s: FE's image is %d after the change, want a new one (past image.0)", tc.name, images)
			}
			imageRow.Converged = fmt.Sprintf("the next process found the record, read FE's image, asked for one again, waited for it (image %d), restored FE's values once %s after it started",
				images, time.Since(restarted).Round(100*time.Millisecond))
			imageRow.Lost = fmt.Sprintf("nothing: tablet_sched_max_scheduling_tablets back at the user's %s", got)
			imageRow.Control = "the record's control above: without the record on the cluster, the next process restores the paused values"
		case tc.dropRecord:
			row.Control = fmt.Sprintf("the record removed at the kill: the next process recorded the paused values and left tablet_sched_max_scheduling_tablets at %s (clone off) after the upgrade", got)
		default:
			row.Converged = fmt.Sprintf("the next process found the record on the cluster, set the pause again, rolled FE and BE, restored FE's values once %s after it started",
				time.Since(restarted).Round(100*time.Millisecond))
			row.Lost = fmt.Sprintf("nothing: tablet_sched_max_scheduling_tablets back at the user's %s", got)
		}
		// Restored once; again only after FE answered one of the pause's or
		// the restore's statements with an error (a restore retried).
		var failed []string
		for _, a := range f.Answers() {
			if strings.HasPrefix(a.Statement, "ADMIN SET") && a.Error != "" {
				failed = append(failed, a.Statement+": "+a.Error)
			}
		}
		if n := countPrefix(stmts, `ADMIN SET FRONTEND CONFIG ('tablet_sched_max_scheduling_tablets' = '`+userScheduling+`')`); !tc.dropRecord && n != 2 && (n < 2 || len(failed) == 0) {
			t.Errorf("%s: FE's own value set %d times, want 2 (the test's, then the restore once), or more only after an ADMIN SET FE failed (none did)", tc.name, n)
		}
		if len(failed) > 0 {
			t.Logf("%s: ADMIN SET statements FE answered with an error: %q", tc.name, failed)
		}
	}
}

// userValues are FE's four compatibility keys at the user's values in these
// tests: the scheduling limit the test set, the others at fe.conf's.
var userValues = map[string]string{"tablet_sched_max_scheduling_tablets": userScheduling, "tablet_sched_max_balancing_tablets": "500",
	"disable_balance": "false", "disable_colocate_balance": "false"}

// keysRestoredOnEveryFE checks, read back from the simulated FE, that every
// FE process that runs holds want for FE's four compatibility keys (issue
// 50: after every upgrade, downgrade, rollback, timeout and SIGKILL test).
func keysRestoredOnEveryFE(t *testing.T, f *simstarrocks.StarRocks, want map[string]string) {
	t.Helper()
	checked := 0
	for _, fr := range f.Frontends() {
		for k, v := range want {
			got, runs := f.FrontendConfig(fr.Host, k)
			if !runs {
				break
			}
			checked++
			if got != v {
				t.Errorf("FE %s holds %s = %q after the change, want the user's %q", fr.Host, k, got, v)
			}
		}
	}
	if checked == 0 {
		t.Error("no running FE to read the four keys back from")
	}
}

// eventsIn counts the Events of reason on the cluster name, of any type.
func eventsIn(ctx context.Context, t *testing.T, c *testcluster.Cluster, ns, name, reason string) int {
	t.Helper()
	return eventsOf(ctx, t, c, ns, name, reason, "")
}

func countPrefix(stmts []string, prefix string) int {
	n := 0
	for _, s := range stmts {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}
