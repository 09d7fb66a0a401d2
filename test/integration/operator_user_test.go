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
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// The operator user of docs/security.md, granted as
// documented: cluster_admin as a default role (NODE on SYSTEM, for ALTER
// SYSTEM and CANCEL DECOMMISSION) and OPERATE on SYSTEM (SHOW PROC).
func documentedUser(password string) simstarrocks.User {
	return simstarrocks.User{Name: "k8s_operator", Password: password,
		Roles: []string{"cluster_admin"}, DefaultRoles: []string{"cluster_admin"}, Privileges: []string{"OPERATE"}}
}

// TestOperatorUser: with --fe-credentials-secret and the documented grants a
// gated BE rollout and a BE scale-in do what they do as root; a user
// missing one grant holds the scale-in with FEPermissionDenied naming the
// statement FE refused, not FEUnreachable nor FE's capacity refusal.
func TestOperatorUser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	// Mostly waiting on StarRocks' clocks: beside the longest tests.
	t.Parallel()
	c, dir := simulatedWithStarRocks(t)
	testutil.CreateNamespace(t, c.Client, "opuser")
	// A bare name: the Secret of that name in each cluster's namespace.
	startOperator(t, c, "opuser", operatorOptions{workers: 4, fe: dir.resolve, feLookEvery: gateLookEvery,
		feCredentials: types.NamespacedName{Name: "starrocks-operator-fe"}})
	for name, pw := range map[string]string{"starrocks-operator-fe": "op-pw", "no-default-role": "nd-pw", "no-operate": "no-pw"} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "opuser", Name: name}, Type: corev1.SecretTypeBasicAuth,
			StringData: map[string]string{"username": strings.ReplaceAll(name, "-", "_"), "password": pw}}
		if name == "starrocks-operator-fe" {
			s.StringData["username"] = "k8s_operator"
		}
		if err := c.Client.Create(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("documented grants: a gated BE rollout keeps 2 healthy replicas, a BE scale-in loses nothing", func(t *testing.T) {
		testOperatorUserGranted(t, c, dir)
	})
	t.Run("cluster_admin granted but not a default role: DECOMMISSION is refused, FEPermissionDenied names it, BE keeps its replicas", func(t *testing.T) {
		held := withUser(t, c, dir, "nodefault", "no-default-role", simstarrocks.User{Name: "no_default_role", Password: "nd-pw",
			Roles: []string{"cluster_admin"}, Privileges: []string{"OPERATE"}})
		testPermissionDenied(t, c, held, "nodefault", "ALTER SYSTEM DECOMMISSION BACKEND", "Inactivated role(s): [cluster_admin].")
	})
	// Issue 34 item 25: the decommission needs only SHOW BACKENDS (NODE
	// suffices) and the DECOMMISSION (NODE); '/statistic' (OPERATE) is for
	// the health and the rollout gate. Without OPERATE the scale-in goes
	// on, and StarRocksHealthy names the missing privilege.
	t.Run("no OPERATE: SHOW PROC is refused and StarRocksHealthy names it; the decommission, which does not need it, goes on and loses nothing", func(t *testing.T) {
		ctx := context.Background()
		held := withUser(t, c, dir, "nooperate", "no-operate", simstarrocks.User{Name: "no_operate", Password: "no-pw",
			Roles: []string{"cluster_admin"}, DefaultRoles: []string{"cluster_admin"}})
		if err := held.CreateTable("db", "single", 1, 20); err != nil {
			t.Fatal(err)
		}
		lost := watchLost(held)
		src := &srv1.StarRocksCluster{}
		if err := get(ctx, c.Client, "opuser", "nooperate", src); err != nil {
			t.Fatal(err)
		}
		var cond *metav1.Condition
		eventually(t, time.Minute, "StarRocksHealthy FEPermissionDenied", func(ctx context.Context) (bool, error) {
			if err := get(ctx, c.Client, "opuser", "nooperate", src); err != nil {
				return false, err
			}
			cond = meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionStarRocksHealthy)
			return cond != nil && cond.Reason == srv1.ReasonFEPermissionDenied, nil
		})
		if !strings.Contains(cond.Message, "lacks a privilege for SHOW PROC '/statistic'") || !strings.Contains(cond.Message, "the OPERATE privilege(s) on SYSTEM") {
			t.Errorf("StarRocksHealthy message %q does not name SHOW PROC '/statistic' and FE's missing OPERATE", cond.Message)
		}
		setBEReplicas(t, c, src, 1)
		waitStatefulSet(t, c, "opuser", "nooperate-be", "BE shrunk to 1", 2*time.Minute, shrunkTo(1))
		if n := len(held.StatementsLike("ALTER SYSTEM DECOMMISSION")); n != 1 {
			t.Errorf("%d DECOMMISSION statements, want 1", n)
		}
		if n := lost(); n != 0 {
			t.Errorf("%d tablets lost, want 0", n)
		}
	})
}

// withUser starts a cluster of FE 1 and BE 2 whose annotation points at
// secret, and whose simulated FE knows user; it returns once FE lists both
// BEs Alive.
func withUser(t *testing.T, c *testcluster.Cluster, dir *feDirectory, name, secret string, user simstarrocks.User) *simstarrocks.StarRocks {
	t.Helper()
	f := startFE(t, dir, "opuser", name, simstarrocks.Options{})
	f.CreateUser(user)
	src := beCluster("opuser", name, 2)
	src.Annotations = map[string]string{srv1.FECredentialsAnnotation: secret}
	if err := c.Client.Create(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, "opuser", name, 2*time.Minute)
	eventually(t, time.Minute, "2 BEs Alive", func(context.Context) (bool, error) { return aliveBEs(f) == 2, nil })
	return f
}

func testOperatorUserGranted(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	src := gatedCluster("opuser", "granted", 1, 3)
	f := startFE(t, dir, "opuser", "granted", simstarrocks.Options{CatchUp: catchUp, MigrationRate: 2})
	f.CreateUser(documentedUser("op-pw"))
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, "opuser", "granted", 2*time.Minute)
	eventually(t, time.Minute, "3 BEs Alive", func(context.Context) (bool, error) { return aliveBEs(f) == 3, nil })
	if err := f.CreateTable("db", "t", 3, 30); err != nil {
		t.Fatal(err)
	}
	run := &beRollout{src: src, sim: f}
	rollBE(t, c, "starrocks/be-ubuntu:3.3.3", run)
	t.Logf("gated BE rollout as k8s_operator: at most %d tablets below 2 healthy replicas, %s", run.worst, run.end.Sub(run.start).Round(100*time.Millisecond))
	if run.worst != 0 || !run.sawGate {
		t.Errorf("gated rollout as the operator user: %d tablets below 2 healthy replicas (want 0), gate seen %t (want true)", run.worst, run.sawGate)
	}

	// BE 3 → 2 with a 1-replica table: FE drains be-2 first. The rollout's
	// table is dropped with FORCE: in the recycle bin its tablets would keep
	// be-2 from its auto-drop for a day (sheet §14), which this test is not about.
	f.DropTableForce("db", "t")
	if err := f.CreateTable("db", "single", 1, 30); err != nil {
		t.Fatal(err)
	}
	lost := watchLost(f)
	replicas := stsReplicas(c, "opuser", "granted-be")
	setBEReplicas(t, c, src, 2)
	waitStatefulSet(t, c, "opuser", "granted-be", "BE shrunk to 2", 2*time.Minute, shrunkTo(2))
	if seen := replicas(); !slices.Equal(seen, []int32{3, 2}) {
		t.Errorf("BE StatefulSet replicas went %v, want [3 2]: held at 3 until FE let be-2 go", seen)
	}
	if n := lost(); n != 0 {
		t.Errorf("%d tablets lost by the scale-in as the operator user, want 0", n)
	}
	if n := len(f.StatementsLike("ALTER SYSTEM DECOMMISSION")); n == 0 {
		t.Errorf("no DECOMMISSION sent: %q", f.Statements())
	}
	logins := f.Logins()
	if !slices.Contains(logins, "k8s_operator") {
		t.Errorf("the operator never logged in as k8s_operator: logins %q", logins)
	}
	got := waitRunning(t, c, "opuser", "granted", time.Minute)
	if cond := meta.FindStatusCondition(got.Status.Conditions, srv1.ConditionStarRocksHealthy); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("StarRocksHealthy %+v, want True read as the operator user", cond)
	}
}

// testPermissionDenied scales BE 2 → 1 and expects the scale-in held with
// FEPermissionDenied naming stmt, and no other reason for the hold.
func testPermissionDenied(t *testing.T, c *testcluster.Cluster, f *simstarrocks.StarRocks, name, stmt, detail string) {
	ctx := context.Background()
	src := &srv1.StarRocksCluster{}
	if err := get(ctx, c.Client, "opuser", name, src); err != nil {
		t.Fatal(err)
	}
	setBEReplicas(t, c, src, 1)
	var cond *metav1.Condition
	eventually(t, time.Minute, "Progressing FEPermissionDenied", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, "opuser", name, src); err != nil {
			return false, err
		}
		cond = meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionProgressing)
		return cond != nil && cond.Reason == srv1.ReasonFEPermissionDenied, nil
	})
	if !strings.Contains(cond.Message, "lacks a privilege for "+stmt) || !strings.Contains(cond.Message, detail) {
		t.Errorf("Progressing message %q does not name %s and FE's %q", cond.Message, stmt, detail)
	}
	time.Sleep(3 * time.Second) // more looks at FE: the hold stays what it is
	if err := get(ctx, c.Client, "opuser", name, src); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionProgressing); cond == nil || cond.Reason != srv1.ReasonFEPermissionDenied {
		t.Errorf("Progressing %+v, want FEPermissionDenied still", cond)
	}
	if cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError); cond != nil && cond.Reason == srv1.ReasonScaleInRefused {
		t.Errorf("ReconcileError %s: a denied statement was taken for FE refusing the scale-in: %s", cond.Reason, cond.Message)
	}
	if n := warningsIn(ctx, t, c, "opuser", name, srv1.ReasonScaleInRefused); n != 0 {
		t.Errorf("%d ScaleInRefused Warnings for a denied statement, want 0", n)
	}
	sts := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "opuser", name+"-be", sts); err != nil || ptr.Deref(sts.Spec.Replicas, -1) != 2 {
		t.Errorf("BE StatefulSet replicas %v (%v) while FE denies the operator, want 2", sts.Spec.Replicas, err)
	}
	if n := aliveBEs(f); n != 2 {
		t.Errorf("%d BEs alive in FE, want both", n)
	}
}
