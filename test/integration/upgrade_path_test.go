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
	"maps"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// testRefusedDowngrade: the simulated FE reports every node at the release
// of its pod's image, 3.3.2; BE's image goes to 3.2.1 (issue 36 names it), a downgrade the
// docs refuse from 3.3 ("will cause metadata loss", docs/upgrades.md). The
// pre-flight keeps BE's pod template, restarts no pod, and says
// UpgradePathRefused with one Warning Event; the same change with
// starrocks.com/upgrade-path-check: "off" rolls both BE pods.
func testRefusedDowngrade(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	const ns, name = "gate-path", "dg"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src := gatedCluster(ns, name, 1, 2)
	startGated(t, c, dir, src, simstarrocks.Options{HeartbeatInterval: 500 * time.Millisecond}, 0)
	before := podUIDs(t, c, ns, name+"-")
	const old, target = "starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.2.1"

	start := time.Now()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec.Image = target })
	refusal := waitRefused(t, c, src)
	t.Logf("refused after %s: %s", time.Since(start).Round(100*time.Millisecond), refusal)
	for _, want := range []string{"BE image " + target, "3.3.2 to 3.2.1 refused", "metadata loss", "Next:"} {
		if !strings.Contains(refusal, want) {
			t.Errorf("the refusal does not say %q: %s", want, refusal)
		}
	}
	// Nothing rolls while it stays refused: the StatefulSet keeps the old
	// image, and every pod is the one that ran before.
	keepsFor(t, c, ns, name, before, func(ctx context.Context) error {
		be := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, ns, name+"-be", be); err != nil {
			return err
		}
		if got := stsImage(be); got != old {
			return fmt.Errorf("BE StatefulSet image %s after the refusal, want %s kept", got, old)
		}
		return nil
	})
	if n := warningsIn(ctx, t, c, ns, name, srv1.ReasonUpgradePathRefused); n != 1 {
		t.Errorf("%d Warning Events %s, want 1", n, srv1.ReasonUpgradePathRefused)
	}

	// The control: the user's word lets the same change roll.
	start = time.Now()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[srv1.UpgradePathCheckAnnotation] = srv1.UpgradePathCheckOff
	})
	eventually(t, 45*time.Second, "BE rolled to "+target+" with the check off", func(ctx context.Context) (bool, error) {
		be := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, ns, name+"-be", be); err != nil {
			return false, err
		}
		if stsImage(be) != target || !rolledOut(be) {
			return false, nil
		}
		now := podUIDs(t, c, ns, name+"-be-")
		return len(now) == 2 && now[name+"-be-0"] != before[name+"-be-0"] && now[name+"-be-1"] != before[name+"-be-1"], nil
	})
	if err := get(ctx, c.Client, ns, name, src); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError); cond != nil && cond.Reason == srv1.ReasonUpgradePathRefused {
		t.Errorf("ReconcileError still %s after the check was turned off: %s", cond.Reason, cond.Message)
	}
	if now := podUIDs(t, c, ns, name+"-fe-"); !maps.Equal(now, podUIDsOf(before, name+"-fe-")) {
		t.Errorf("FE pods changed, though FE's image did not: %v, were %v", now, before)
	}
	t.Logf("with %s=%s both BE pods rolled to %s in %s", srv1.UpgradePathCheckAnnotation, srv1.UpgradePathCheckOff, target, time.Since(start).Round(100*time.Millisecond))
}

// podUIDsOf is the entries of uids whose pod name starts with prefix.
func podUIDsOf(uids map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range uids {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

// testRefusedRunMode: a shared-nothing cluster (the simulated FE lists its
// BE without the shared-data columns) is given an fe.conf with run_mode =
// shared_data. StarRocks converts neither way (docs/upgrades.md): FE's pod
// template is kept, no pod restarts, ReconcileError says
// UpgradePathRefused. The control: with the check off, FE's pod rolls.
func testRefusedRunMode(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	const ns, name = "gate-mode", "rm"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src := gatedCluster(ns, name, 1, 1)
	startGated(t, c, dir, src, simstarrocks.Options{HeartbeatInterval: 500 * time.Millisecond}, 0)
	// FE's mode shows in its BE rows: wait until the operator read one
	// (StarRocksHealthy counts the BE), or there is nothing to refuse on.
	eventually(t, 30*time.Second, "StarRocksHealthy with the BE", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, name, src); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionStarRocksHealthy)
		return cond != nil && cond.Status == metav1.ConditionTrue, nil
	})
	before := podUIDs(t, c, ns, name+"-")
	feSts := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, ns, name+"-fe", feSts); err != nil {
		t.Fatal(err)
	}
	oldHash := feSts.Spec.Template.Annotations[resources.ConfigHashAnnotation]
	conf := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fe-shared-data"}, Data: map[string]string{"fe.conf": "run_mode = shared_data\n"}}
	if err := c.Client.Create(ctx, conf); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: conf.Name, ResolveKey: "fe.conf"}
	})
	refusal := waitRefused(t, c, src)
	t.Logf("refused after %s: %s", time.Since(start).Round(100*time.Millisecond), refusal)
	for _, want := range []string{"shared-data", "FE runs shared-nothing", "converts neither way"} {
		if !strings.Contains(refusal, want) {
			t.Errorf("the refusal does not say %q: %s", want, refusal)
		}
	}
	keepsFor(t, c, ns, name, before, func(ctx context.Context) error {
		if err := get(ctx, c.Client, ns, name+"-fe", feSts); err != nil {
			return err
		}
		if got := feSts.Spec.Template.Annotations[resources.ConfigHashAnnotation]; got != oldHash {
			return fmt.Errorf("FE's template carries config hash %s after the refusal, want %s kept", got, oldHash)
		}
		return nil
	})

	// The control: the user's word lets the same change roll FE's pod.
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[srv1.UpgradePathCheckAnnotation] = srv1.UpgradePathCheckOff
	})
	eventually(t, 45*time.Second, "FE rolled with the check off", func(ctx context.Context) (bool, error) {
		now := podUIDs(t, c, ns, name+"-fe-")
		return len(now) == 1 && now[name+"-fe-0"] != "" && now[name+"-fe-0"] != before[name+"-fe-0"], nil
	})
}

// testRefusedMajorSkip: every node runs 2.5.22 (its pod's image; the
// simulated FE answers with 3.1's column lists, the oldest it has); FE and
// BE go to 3.1.2, which skips 3.0, the only way into 3 from 2.5
// (docs/upgrades.md). Both templates are kept and no pod restarts.
func testRefusedMajorSkip(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns, name = "gate-major", "mj"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src := gatedCluster(ns, name, 1, 1)
	src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:2.5.22"
	src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:2.5.22"
	f := startGated(t, c, dir, src, simstarrocks.Options{Version: "3.1", HeartbeatInterval: 500 * time.Millisecond}, 0)
	eventually(t, 30*time.Second, "FE reports every node at 2.5.22", func(context.Context) (bool, error) {
		for _, b := range f.Backends() {
			if !strings.HasPrefix(b.Version, "2.5.22-") {
				return false, nil
			}
		}
		return true, nil
	})
	before := podUIDs(t, c, ns, name+"-")
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:3.1.2"
		s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:3.1.2"
	})
	refusal := waitRefused(t, c, src)
	t.Logf("refused: %s", refusal)
	if !strings.Contains(refusal, "2.5.22 to 3.1.2") {
		t.Errorf("the refusal does not name the path 2.5.22 to 3.1.2: %s", refusal)
	}
	keepsFor(t, c, ns, name, before, func(ctx context.Context) error {
		for _, sts := range []string{name + "-fe", name + "-be"} {
			obj := &appsv1.StatefulSet{}
			if err := get(ctx, c.Client, ns, sts, obj); err != nil {
				return err
			}
			if img := stsImage(obj); !strings.HasSuffix(img, ":2.5.22") {
				return fmt.Errorf("%s carries %s after the refusal, want 2.5.22 kept", sts, img)
			}
		}
		return nil
	})
}

// waitRefused waits until src's ReconcileError is UpgradePathRefused and
// returns its message.
func waitRefused(t *testing.T, c *testcluster.Cluster, src *srv1.StarRocksCluster) string {
	t.Helper()
	var refusal string
	eventually(t, 30*time.Second, "ReconcileError UpgradePathRefused", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, src.Namespace, src.Name, src); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError)
		if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != srv1.ReasonUpgradePathRefused {
			return false, nil
		}
		refusal = cond.Message
		return true, nil
	})
	return refusal
}

// keepsFor checks, for 3 s, that the pods of cluster name are the ones in
// before and that keeps holds (an error says what changed).
func keepsFor(t *testing.T, c *testcluster.Cluster, ns, name string, before map[string]string, keeps func(context.Context) error) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err := keeps(context.Background()); err != nil {
			t.Fatal(err)
		}
		if now := podUIDs(t, c, ns, name+"-"); !maps.Equal(now, before) {
			t.Fatalf("pods changed after the refusal: %v, were %v", now, before)
		}
	}
}

// testNoImageBefore253: every node runs 2.5.1 (its pod's image; the
// simulated FE answers with 3.1's column lists, the oldest it has), and FE
// and BE go to 2.5.2, a patch. ALTER SYSTEM CREATE IMAGE exists from 2.5.3
// (Downgrade StarRocks, "Downgrade FE" step 1), and the simulated FE before
// it answers the statement with its parser's syntax error (image.go), so
// the operator takes no image: both roll, no CREATE IMAGE is sent and no
// record of the procedure stays on the cluster. Without the check, the
// operator sent it once FE ran 2.5.2, FE refused it, and the record stayed
// for good (issue 50 item 10). The cluster's status.highestVersion records
// the highest release FE reported, 2.5.1, once FE answered (item 3).
func testNoImageBefore253(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns, name = "gate-253", "old"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery})
	src := gatedCluster(ns, name, 1, 1)
	src.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:2.5.1"
	src.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:2.5.1"
	f := startGated(t, c, dir, src, simstarrocks.Options{Version: "3.1", HeartbeatInterval: 500 * time.Millisecond, CheckpointInterval: checkpointEvery}, 0)
	highest := func(want string) {
		t.Helper()
		eventually(t, 30*time.Second, "status.highestVersion "+want, func(ctx context.Context) (bool, error) {
			if err := get(ctx, c.Client, ns, name, src); err != nil {
				return false, err
			}
			return src.Status.HighestVersion == want, nil
		})
	}
	highest("2.5.1")
	start := time.Now()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksFeSpec.Image = "starrocks/fe-ubuntu:2.5.2"
		s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:2.5.2"
	})
	eventually(t, time.Minute, "FE and BE rolled to 2.5.2, and no record left", func(ctx context.Context) (bool, error) {
		if ok, err := rolledTo(ctx, c, ns, name, "2.5.2"); !ok || err != nil {
			return false, err
		}
		if err := get(ctx, c.Client, ns, name, src); err != nil {
			return false, err
		}
		return src.Annotations[srv1.CompatibilityPauseAnnotation] == "", nil
	})
	t.Logf("2.5.1 to 2.5.2 rolled in %s", time.Since(start).Round(100*time.Millisecond))
	// Two looks at FE later, still nothing asked of FE that it lacks.
	time.Sleep(2 * gateLookEvery)
	for _, a := range f.Answers() {
		if a.Statement == fe.CreateImageSQL {
			t.Errorf("%s sent to FE 2.5.2, which answered %q", a.Statement, a.Error)
		}
	}
	if err := get(context.Background(), c.Client, ns, name, src); err != nil {
		t.Fatal(err)
	}
	if rec := src.Annotations[srv1.CompatibilityPauseAnnotation]; rec != "" {
		t.Errorf("the procedure's record stays: %s", rec)
	}
}
