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
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	warehousectl "github.com/srscale/starrocks-operator/internal/controller/warehouse"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/simstarrocks/registrar"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// feDirectory points each cluster's FE Service at its simulated StarRocks:
// the operator runs in the test process and cannot resolve cluster DNS. An
// FE not listed is unreachable (a closed port). The registrar finds a
// cluster's StarRocks here too, to register its pods as their entrypoints do.
type feDirectory struct {
	mu sync.Mutex
	m  map[string]*simstarrocks.StarRocks // namespace/cluster
}

func (d *feDirectory) set(ns, cluster string, f *simstarrocks.StarRocks) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]*simstarrocks.StarRocks{}
	}
	d.m[ns+"/"+cluster] = f
}

func (d *feDirectory) cluster(ns, cluster string) *simstarrocks.StarRocks {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m[ns+"/"+cluster]
}

func (d *feDirectory) resolve(t fe.Target) (string, string) {
	if f := d.cluster(t.Namespace, strings.TrimSuffix(t.Service, "-fe-service")); f != nil {
		if t.Host != "" { // one FE's own ports
			return f.AddressOf(t.Host), f.HTTPURLOf(t.Host)
		}
		return f.QueryAddress(), f.HTTPURL()
	}
	return "127.0.0.1:1", "http://127.0.0.1:1"
}

// The features that talk to StarRocks, against a simulated StarRocks that
// answers as the real FE does (test/simstarrocks), on a simulated cluster
// whose pods register with it as their entrypoint scripts would
// (test/simstarrocks/registrar). Both kinds of FE: an open-source one
// (features: RBAC only) and one with multiple warehouses.
func TestTalkingToFE(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	c, dir := simulatedWithStarRocks(t)
	testutil.CreateNamespace(t, c.Client, "fe")
	op := startOperator(t, c, "fe", operatorOptions{workers: 4, fe: dir.resolve})

	t.Run("multi-warehouse FE: a warehouse is created, runs, scales through its HPA target and is dropped from FE once on deletion", func(t *testing.T) {
		testWarehouseLifecycle(t, c, dir, op)
	})
	t.Run("multi-warehouse FE: deleting a warehouse leaves an FE warehouse of its name a DBA made before it", func(t *testing.T) {
		testWarehouseOfADBAIsKept(t, c, dir)
	})
	t.Run("multi-warehouse FE: a warehouse's scale-in drops its compute nodes FROM its WAREHOUSE", func(t *testing.T) {
		testWarehouseScaleIn(t, c, dir)
	})
	t.Run("a warehouse says which check failed: cluster, name, shared-data mode", func(t *testing.T) {
		testWarehouseChecks(t, c)
	})
	t.Run("open-source FE: a warehouse whose FE is unreachable says so, is refused once FE answers without multi-warehouse, and is deleted", func(t *testing.T) {
		testWarehouseOnOpenSourceFE(t, c, dir)
	})
	t.Run("open-source FE: CN scale-in 3 to 1 drops exactly the 2 removed nodes, in shared-data and shared-nothing mode", func(t *testing.T) {
		testSharedDataScaleIn(t, c, dir)
	})
	t.Run("multi-warehouse FE: a warehouse adopted from the upstream is released from its finalizer on deletion", func(t *testing.T) {
		testAdoptedWarehouseReleased(t, c, dir)
	})
	t.Run("disaster recovery runs todo, doing, done with FE rewritten and BE and CN held, then restores the spec", func(t *testing.T) {
		testDisasterRecovery(t, c)
	})
	t.Run("disaster recovery is ignored on a shared-nothing cluster", func(t *testing.T) {
		testDisasterRecoveryOnSharedNothing(t, c)
	})
	t.Run("disaster recovery without cluster_snapshot.yaml where FE reads it is refused with a condition", func(t *testing.T) {
		testDisasterRecoveryWithoutSnapshot(t, c)
	})
}

// testWarehouseOfADBAIsKept: FE has a warehouse wh_dba a DBA made by hand
// before anyone made StarRocksWarehouse wh-dba. The operator's CREATE
// WAREHOUSE finds it there and records so (FEWarehouseOwnerAnnotation);
// deleting the object drops its compute nodes and leaves the DBA's warehouse.
func testWarehouseOfADBAIsKept(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	f := startFE(t, dir, "fe", "wd", simstarrocks.Options{SharedData: true, MultiWarehouse: true})
	sharedDataCluster(t, c, "fe", "wd", feConfShared, nil, passwordOnFE)
	dba := rootDB(t, f, "pw-wd")
	if _, err := dba.ExecContext(ctx, "CREATE WAREHOUSE wh_dba"); err != nil {
		t.Fatal(err)
	}
	wh := warehouse("fe", "wh-dba", "wd", 1)
	wh.Spec.Template.EnvVars = []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "pw-wd"}}
	if err := c.Client.Create(ctx, wh); err != nil {
		t.Fatal(err)
	}
	got := waitWarehouse(t, c, "fe", "wh-dba", "warehouse running with 1 CN", warehouseRunning(1))
	if owner := got.Annotations[srv1.FEWarehouseOwnerAnnotation]; owner != "existed" {
		t.Errorf("%s = %q, want existed", srv1.FEWarehouseOwnerAnnotation, owner)
	}
	if err := c.Client.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	gone(t, c, "warehouse and its StatefulSet", &srv1.StarRocksWarehouse{ObjectMeta: got.ObjectMeta},
		&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "fe", Name: "wh-dba-warehouse-cn"}})
	t.Logf("statements FE received: %q", f.Statements())
	if got := f.StatementsLike("DROP WAREHOUSE"); len(got) != 0 {
		t.Errorf("DROP WAREHOUSE sent for the DBA's warehouse: %q", got)
	}
	if !slices.Contains(f.Warehouses(), "wh_dba") {
		t.Errorf("FE's warehouses %v: the DBA's wh_dba is gone", f.Warehouses())
	}
	if nodes := hosts(f, "wh_dba"); len(nodes) != 0 {
		t.Errorf("FE still lists the warehouse's compute nodes %v", nodes)
	}
}

// rootDB is a database/sql handle on f as root.
func rootDB(t *testing.T, f *simstarrocks.StarRocks, password string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.Passwd = "tcp", f.QueryAddress(), "root", password
	cfg.Timeout, cfg.ReadTimeout = 5*time.Second, 30*time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// simulatedWithStarRocks starts a simulated cluster and a registrar that
// registers its pods, as their entrypoints do, with the simulated StarRocks
// each cluster has in the directory returned (see startFE).
func simulatedWithStarRocks(t *testing.T) (*testcluster.Cluster, *feDirectory) {
	t.Helper()
	c := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: crdPaths(t), Simulated: true})
	dir := &feDirectory{}
	registrar.Start(t.Context(), t, c.Config, dir.cluster, registrar.Options{Pod0LeaderTimeout: time.Second})
	return c, dir
}

const feConfShared = "run_mode = shared_data\n"

// passwordOn says where a cluster's root password is set.
type passwordOn int

const (
	passwordOnFE passwordOn = iota // FE's env, from a Secret
	passwordOnCN                   // CN's env only, from a Secret: where the upstream reads it
)

// sharedDataCluster creates a cluster named name whose fe.conf (ConfigMap
// <name>-fe-conf) has conf, root's password "pw-<name>" in a Secret, read
// from MYSQL_PWD where pw says, and cn CN replicas (none when nil).
func sharedDataCluster(t *testing.T, c *testcluster.Cluster, ns, name, conf string, cn *int32, pw passwordOn) *srv1.StarRocksCluster {
	t.Helper()
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-fe-conf"}, Data: map[string]string{"fe.conf": conf}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-root"}, Data: map[string][]byte{"password": []byte("pw-" + name)}}
	password := []corev1.EnvVar{{Name: "MYSQL_PWD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret.Name}, Key: "password"}}}}
	src := feOnly(ns, name)
	src.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: cm.Name, ResolveKey: "fe.conf"}
	if pw == passwordOnFE {
		src.Spec.StarRocksFeSpec.FeEnvVars = password
	}
	if cn != nil {
		src.Spec.StarRocksCnSpec = &srv1.StarRocksCnSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/cn-ubuntu:3.3.2", Replicas: cn}}}
		if pw == passwordOnCN {
			src.Spec.StarRocksCnSpec.CnEnvVars = password
		}
	}
	for _, o := range []client.Object{cm, secret, src} {
		if err := c.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	waitRunning(t, c, ns, name, 2*time.Minute)
	return src
}

// startFE runs the simulated StarRocks of a cluster, reachable by the
// operator and the registrar.
// testTabletReportInterval is report_tablet_interval_seconds in these tests.
const testTabletReportInterval = 5 * time.Second

// testSetConfigTimeout is the simulated FE's wait for each FE that does not
// answer ADMIN SET FRONTEND CONFIG in these tests (FE's: 310 s).
const testSetConfigTimeout = time.Second

func startFE(t *testing.T, dir *feDirectory, ns, cluster string, opts simstarrocks.Options) *simstarrocks.StarRocks {
	t.Helper()
	if opts.Password == "" {
		opts.Password = "pw-" + cluster
	}
	if opts.TabletReportInterval == 0 {
		// FE's is 60 s, and a gated BE rollout waits for one report per BE
		// (docs/rollouts.md): a minute per BE would make these tests
		// minutes longer. The test of that wait sets its own interval.
		opts.TabletReportInterval = testTabletReportInterval
	}
	if opts.SetConfigTimeout == 0 {
		// FE's wait for an FE that does not answer ADMIN SET FRONTEND
		// CONFIG is 310 s; the operator gives up on a statement after 10 s
		// and FE goes on without it. Shortened so that FE's answer (its
		// error) comes back within the operator's wait.
		opts.SetConfigTimeout = testSetConfigTimeout
	}
	f := simstarrocks.Start(t, opts)
	// FE-0 as its first start leaves it: the leader (facts sheet §1). The
	// registrar would get there too, after its entrypoint's probe of a
	// leaderless group timed out (15 s).
	f.BootstrapFrontend(fmt.Sprintf("%s-fe-0.%s-fe-search.%s.svc.cluster.local", cluster, cluster, ns), 9010)
	dir.set(ns, cluster, f)
	return f
}

// execFE runs a statement on f as root, as another client would.
func execFE(t *testing.T, f *simstarrocks.StarRocks, password, stmt string) {
	t.Helper()
	db, err := sql.Open("mysql", fmt.Sprintf("root:%s@tcp(%s)/", password, f.QueryAddress()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

func warehouse(ns, name, cluster string, replicas int32) *srv1.StarRocksWarehouse {
	return &srv1.StarRocksWarehouse{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: srv1.StarRocksWarehouseSpec{StarRocksCluster: cluster, Template: &srv1.WarehouseComponentSpec{
			StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/cn-ubuntu:3.3.2", Replicas: ptr.To(replicas)}},
			AutoScalingPolicy:      &srv1.AutoScalingPolicy{MinReplicas: ptr.To(int32(1)), MaxReplicas: 4},
		}},
	}
}

func waitWarehouse(t *testing.T, c *testcluster.Cluster, ns, name, what string, cond func(*srv1.StarRocksWarehouse) bool) *srv1.StarRocksWarehouse {
	t.Helper()
	wh := &srv1.StarRocksWarehouse{}
	eventually(t, 2*time.Minute, what, func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, name, wh); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return cond(wh), nil
	})
	return wh
}

func warehouseRunning(n int32) func(*srv1.StarRocksWarehouse) bool {
	return func(wh *srv1.StarRocksWarehouse) bool {
		return wh.Status.Phase == srv1.PhaseRunning && wh.Status.Replicas == n && len(wh.Status.RunningInstances) == int(n) &&
			meta.IsStatusConditionTrue(wh.Status.Conditions, srv1.ConditionReady)
	}
}

func envValue(sts *appsv1.StatefulSet, name string) (string, bool) {
	for _, e := range sts.Spec.Template.Spec.Containers[0].Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

func gone(t *testing.T, c *testcluster.Cluster, what string, objs ...client.Object) {
	t.Helper()
	eventually(t, time.Minute, what+" gone", func(ctx context.Context) (bool, error) {
		for _, o := range objs {
			if err := c.Client.Get(ctx, client.ObjectKeyFromObject(o), o); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
}

// hosts are the IP column of FE's compute nodes in warehouse wh (any, for
// ""), sorted.
func hosts(f *simstarrocks.StarRocks, wh string) []string {
	var out []string
	for _, n := range f.ComputeNodes() {
		if wh == "" || n.Warehouse == wh {
			out = append(out, n.Host)
		}
	}
	slices.Sort(out)
	return out
}

func cnHost(ns, sts, search string, ordinal int) string {
	return fmt.Sprintf("%s-%d.%s.%s.svc.cluster.local", sts, ordinal, search, ns)
}

func testWarehouseLifecycle(t *testing.T, c *testcluster.Cluster, dir *feDirectory, op *operator) {
	ctx := context.Background()
	// A build that implements warehouses, as StarRocks PR #78027 does: DROP
	// WAREHOUSE with alive compute nodes is refused (facts sheet §14).
	f := startFE(t, dir, "fe", "wc", simstarrocks.Options{SharedData: true, MultiWarehouse: true, RefuseDropWarehouseWithAliveCNs: true})
	sharedDataCluster(t, c, "fe", "wc", feConfShared, nil, passwordOnFE)

	cnConf := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "fe", Name: "wh-a-cn-conf"}, Data: map[string]string{"cn.conf": "sys_log_level = INFO\n"}}
	if err := c.Client.Create(ctx, cnConf); err != nil {
		t.Fatal(err)
	}
	wh := warehouse("fe", "wh-a", "wc", 1)
	wh.Spec.Template.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: cnConf.Name, ResolveKey: "cn.conf"}
	wh.Spec.Template.EnvVars = []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "pw-wc"}} // for its entrypoint, as the init-password chart sets it
	if err := c.Client.Create(ctx, wh); err != nil {
		t.Fatal(err)
	}
	got := waitWarehouse(t, c, "fe", "wh-a", "warehouse running with 1 CN", warehouseRunning(1))
	if !slices.Contains(got.Finalizers, warehousectl.Finalizer) {
		t.Errorf("finalizers %v lack %s", got.Finalizers, warehousectl.Finalizer)
	}
	if got.Status.HorizontalScaler.Name != "wh-a-warehouse-cn-autoscaler" || got.Status.Selector == "" {
		t.Errorf("CN status: %+v", got.Status.StarRocksCnStatus)
	}
	sts := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "fe", "wh-a-warehouse-cn", sts); err != nil {
		t.Fatal(err)
	}
	if v, _ := envValue(sts, resources.MultiWarehouseEnv); v != "wh_a" {
		t.Errorf("%s = %q, want wh_a (FE lists multi-warehouse)", resources.MultiWarehouseEnv, v)
	}
	if v, _ := envValue(sts, "FE_SERVICE_NAME"); v != "wc-fe-service" {
		t.Errorf("FE_SERVICE_NAME = %q", v)
	}
	// Its pod registered as its entrypoint does: the warehouse, then the node in it.
	eventually(t, time.Minute, "the CN registered in wh_a", func(context.Context) (bool, error) {
		return slices.Equal(hosts(f, "wh_a"), []string{cnHost("fe", "wh-a-warehouse-cn", "wh-a-warehouse-cn-search", 0)}), nil
	})
	for _, name := range []string{"wh-a-warehouse-cn-service", "wh-a-warehouse-cn-search"} {
		if err := get(ctx, c.Client, "fe", name, &corev1.Service{}); err != nil {
			t.Errorf("Service %s: %v", name, err)
		}
	}
	hpa := &autoscalingv2.HorizontalPodAutoscaler{}
	if err := get(ctx, c.Client, "fe", "wh-a-warehouse-cn-autoscaler", hpa); err != nil {
		t.Fatal(err)
	}
	if ref := hpa.Spec.ScaleTargetRef; ref.Kind != "StarRocksWarehouse" || ref.Name != "wh-a" || ref.APIVersion != "starrocks.com/v1" {
		t.Errorf("HPA targets %+v", ref)
	}

	// The HPA scales through the scale subresource it targets: do what it does.
	scale := &autoscalingv1.Scale{}
	if err := c.Client.SubResource("scale").Get(ctx, got, scale); err != nil {
		t.Fatal(err)
	}
	if scale.Status.Replicas != 1 || scale.Status.Selector == "" {
		t.Errorf("scale subresource reads %+v", scale.Status)
	}
	scale.Spec.Replicas = 2
	if err := c.Client.SubResource("scale").Update(ctx, got, client.WithSubResourceBody(scale)); err != nil {
		t.Fatal(err)
	}
	waitWarehouse(t, c, "fe", "wh-a", "warehouse running with 2 CN after scaling", warehouseRunning(2))

	// A change of the warehouse's cn.conf rolls its pods, as for clusters.
	hash := sts.Spec.Template.Annotations[resources.ConfigHashAnnotation]
	mutate(t, c.Client, cnConf, func(cm *corev1.ConfigMap) { cm.Data["cn.conf"] = "sys_log_level = WARN\n" })
	eventually(t, time.Minute, "cn.conf change reaches the pod template", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, "fe", "wh-a-warehouse-cn", sts); err != nil {
			return false, err
		}
		// A new template carries no hash; the first change of the .conf adds it (as for clusters).
		now := sts.Spec.Template.Annotations[resources.ConfigHashAnnotation]
		return now != "" && now != hash, nil
	})
	waitWarehouse(t, c, "fe", "wh-a", "warehouse running with 2 CN after the config change", warehouseRunning(2))

	// Quiet: a reconcile of the unchanged warehouse (an annotation edit
	// triggers one) writes nothing and asks FE nothing.
	op.log.waitQuiet(2*time.Second, 30*time.Second)
	statementsBefore, mark := len(f.Statements()), op.log.mark()
	mutate(t, c.Client, got, func(w *srv1.StarRocksWarehouse) {
		if w.Annotations == nil {
			w.Annotations = map[string]string{}
		}
		w.Annotations["touched"] = "1"
	})
	op.log.waitQuiet(2*time.Second, 30*time.Second)
	var writes []request
	for _, r := range op.log.since(mark) {
		if isWrite(r) && !isEvent(r) && !isLease(r) {
			writes = append(writes, r)
		}
	}
	if len(writes) != 0 || len(f.Statements()) != statementsBefore {
		t.Errorf("unchanged warehouse: %d writes, %d FE statements\n%s", len(writes), len(f.Statements())-statementsBefore, summary(writes))
	}

	if n := len(f.StatementsLike("DROP WAREHOUSE")); n != 0 {
		t.Fatalf("DROP WAREHOUSE sent %d times before deletion", n)
	}
	if err := c.Client.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	gone(t, c, "warehouse and its objects", &srv1.StarRocksWarehouse{ObjectMeta: got.ObjectMeta},
		&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "fe", Name: "wh-a-warehouse-cn"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "fe", Name: "wh-a-warehouse-cn-service"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "fe", Name: "wh-a-warehouse-cn-search"}},
		&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "fe", Name: "wh-a-warehouse-cn-autoscaler"}})
	time.Sleep(2 * time.Second) // a late duplicate would arrive now
	if got := f.StatementsLike("DROP WAREHOUSE"); !slices.Equal(got, []string{"DROP WAREHOUSE IF EXISTS `wh_a`"}) {
		t.Errorf("DROP WAREHOUSE statements: %q, want exactly one", got)
	}
	// Issue 34 item 28: the compute nodes' rows go FROM WAREHOUSE, after
	// their pods and before the warehouse.
	if nodes := f.ComputeNodes(); len(nodes) != 0 {
		t.Errorf("FE still lists compute nodes %+v", nodes)
	}
	all := f.Statements()
	lastDrop, dropWh := -1, slices.Index(all, "DROP WAREHOUSE IF EXISTS `wh_a`")
	for i, st := range all {
		if strings.HasPrefix(st, "ALTER SYSTEM DROP COMPUTE NODE") && strings.Contains(st, "FROM WAREHOUSE") {
			lastDrop = i
		}
	}
	if lastDrop < 0 || lastDrop > dropWh {
		t.Errorf("the compute nodes' DROP FROM WAREHOUSE at %d, DROP WAREHOUSE at %d: want the nodes first", lastDrop, dropWh)
	}
	if slices.Contains(f.Warehouses(), "wh_a") {
		t.Errorf("FE still has warehouses %v", f.Warehouses())
	}
	for _, u := range f.Logins() {
		if u != "root" {
			t.Errorf("logged in as %q", u)
		}
	}
	t.Logf("statements FE received: %q", f.Statements())
}

// A warehouse's compute nodes live in its warehouse: dropping them without
// FROM WAREHOUSE fails on a real FE (facts sheet §8).
func testWarehouseScaleIn(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	f := startFE(t, dir, "fe", "ws", simstarrocks.Options{SharedData: true, MultiWarehouse: true})
	sharedDataCluster(t, c, "fe", "ws", feConfShared, nil, passwordOnFE)
	wh := warehouse("fe", "wh-s", "ws", 3)
	wh.Spec.Template.AutoScalingPolicy = nil
	wh.Spec.Template.EnvVars = []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "pw-ws"}}
	if err := c.Client.Create(ctx, wh); err != nil {
		t.Fatal(err)
	}
	waitWarehouse(t, c, "fe", "wh-s", "warehouse running with 3 CN", warehouseRunning(3))
	waitBudget(t, c, "fe", "wh-s-warehouse-cn-pdb", "the warehouse's, one of 3 CN may go", func(p *policyv1.PodDisruptionBudget) bool {
		return allows("1")(p) && metav1.IsControlledBy(p, wh)
	})
	host := func(i int) string { return cnHost("fe", "wh-s-warehouse-cn", "wh-s-warehouse-cn-search", i) }
	eventually(t, time.Minute, "3 CN registered in wh_s", func(context.Context) (bool, error) {
		return len(hosts(f, "wh_s")) == 3, nil
	})
	mutate(t, c.Client, wh, func(w *srv1.StarRocksWarehouse) { w.Spec.Template.Replicas = ptr.To(int32(1)) })
	waitWarehouse(t, c, "fe", "wh-s", "warehouse running with 1 CN", warehouseRunning(1))
	waitNoBudget(t, c, "fe", "wh-s-warehouse-cn-pdb", "the warehouse went down to one CN")
	eventually(t, time.Minute, "the removed nodes dropped from wh_s", func(context.Context) (bool, error) {
		return slices.Equal(hosts(f, "wh_s"), []string{host(0)}), nil
	})
	want := []string{
		fmt.Sprintf("ALTER SYSTEM DROP COMPUTE NODE '%s:9050' FROM WAREHOUSE `wh_s`", host(1)),
		fmt.Sprintf("ALTER SYSTEM DROP COMPUTE NODE '%s:9050' FROM WAREHOUSE `wh_s`", host(2)),
	}
	if got := f.StatementsLike("ALTER SYSTEM DROP COMPUTE NODE"); !slices.Equal(got, want) {
		t.Errorf("DROP COMPUTE NODE statements %q, want %q", got, want)
	}
}

// An open-source FE lists only RBAC: it cannot run a warehouse, and answers
// DROP WAREHOUSE with "Multi-Warehouse is not implemented" (facts sheet §13).
func testWarehouseOnOpenSourceFE(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	sharedDataCluster(t, c, "fe", "wu", feConfShared, nil, passwordOnFE)
	wh := warehouse("fe", "wh-u", "wu", 1)
	if err := c.Client.Create(ctx, wh); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := waitWarehouse(t, c, "fe", "wh-u", "condition FEUnreachable", func(wh *srv1.StarRocksWarehouse) bool {
		cond := meta.FindStatusCondition(wh.Status.Conditions, srv1.ConditionReady)
		return cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == srv1.ReasonFEUnreachable
	})
	t.Logf("FEUnreachable reported %.1fs after creation: %s", time.Since(start).Seconds(), meta.FindStatusCondition(got.Status.Conditions, srv1.ConditionReconcileError).Message)
	if err := get(ctx, c.Client, "fe", "wh-u-warehouse-cn", &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
		t.Errorf("StatefulSet created while FE could not say whether it has multi-warehouse: %v", err)
	}
	// Other work is not held up: a new cluster in the same operator still runs.
	other := feOnly("fe", "wu-other")
	if err := c.Client.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, "fe", "wu-other", time.Minute)

	f := startFE(t, dir, "fe", "wu", simstarrocks.Options{SharedData: true}) // open source: no multi-warehouse
	waitWarehouse(t, c, "fe", "wh-u", "condition MultiWarehouseUnsupported", func(wh *srv1.StarRocksWarehouse) bool {
		cond := meta.FindStatusCondition(wh.Status.Conditions, srv1.ConditionReconcileError)
		return cond != nil && cond.Status == metav1.ConditionTrue && cond.Reason == srv1.ReasonMultiWarehouseUnsupported
	})
	time.Sleep(2 * time.Second) // a StatefulSet would be made by now
	if err := get(ctx, c.Client, "fe", "wh-u-warehouse-cn", &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
		t.Errorf("compute nodes deployed on an FE without multi-warehouse (they would join default_warehouse): %v", err)
	}
	if err := c.Client.Delete(ctx, wh); err != nil {
		t.Fatal(err)
	}
	gone(t, c, "warehouse", wh)
	if got := f.StatementsLike("DROP WAREHOUSE"); len(got) != 1 {
		t.Errorf("DROP WAREHOUSE statements %q, want one", got)
	}
}

// CN holds no data in either mode: the removed nodes are dropped in both,
// a shared-nothing FE's too (upstream #775: ghost nodes fail queries now and then).
func testSharedDataScaleIn(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	for _, tc := range []struct {
		name, conf string
		// clause is what a drop says of the node's warehouse: FE lists one only in shared-data mode (facts sheet §4).
		clause string
	}{{"sd", feConfShared, " FROM WAREHOUSE `default_warehouse`"}, {"sn", "run_mode = shared_nothing\n", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			f := startFE(t, dir, "fe", tc.name, simstarrocks.Options{SharedData: tc.conf == feConfShared})
			// The password is on CN only: the operator must find it there, as the upstream does.
			src := sharedDataCluster(t, c, "fe", tc.name, tc.conf, ptr.To(int32(3)), passwordOnCN)
			host := func(cluster string, i int) string { return cnHost("fe", cluster+"-cn", cluster+"-cn-search", i) }
			eventually(t, time.Minute, "3 CN registered", func(context.Context) (bool, error) {
				return len(hosts(f, "")) == 3, nil
			})
			// Another cluster's node shares FE's table; it must stay.
			execFE(t, f, "pw-"+tc.name, fmt.Sprintf("ALTER SYSTEM ADD COMPUTE NODE '%s:9050'", host("other", 2)))
			before := len(f.Statements())
			mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksCnSpec.Replicas = ptr.To(int32(1)) })
			got := waitRunning(t, c, "fe", tc.name, 2*time.Minute)
			if cn := got.Status.StarRocksCnStatus; cn == nil || cn.Replicas != 1 {
				t.Fatalf("CN status %+v", cn)
			}
			eventually(t, time.Minute, "stale nodes dropped", func(context.Context) (bool, error) {
				return slices.Equal(hosts(f, ""), []string{host("other", 2), host(tc.name, 0)}), nil
			})
			wantStatements := []string{"SHOW COMPUTE NODES",
				fmt.Sprintf("ALTER SYSTEM DROP COMPUTE NODE '%s:9050'%s", host(tc.name, 1), tc.clause),
				fmt.Sprintf("ALTER SYSTEM DROP COMPUTE NODE '%s:9050'%s", host(tc.name, 2), tc.clause)}
			if got := f.Statements()[before:]; !slices.Equal(got, wantStatements) {
				t.Errorf("statements FE received %q, want %q", got, wantStatements)
			}
			eventually(t, 30*time.Second, "a ComputeNodesDropped event", func(ctx context.Context) (bool, error) {
				var evs eventsv1.EventList
				if err := c.Client.List(ctx, &evs, client.InNamespace("fe")); err != nil {
					return false, err
				}
				for _, e := range evs.Items {
					if e.Regarding.Name == tc.name && e.Reason == "ComputeNodesDropped" {
						return strings.Contains(e.Note, tc.name+"-cn-1.") && strings.Contains(e.Note, tc.name+"-cn-2."), nil
					}
				}
				return false, nil
			})
		})
	}
}

func testAdoptedWarehouseReleased(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	ctx := context.Background()
	f := startFE(t, dir, "fe", "wa", simstarrocks.Options{SharedData: true, MultiWarehouse: true})
	sharedDataCluster(t, c, "fe", "wa", feConfShared, nil, passwordOnFE)
	execFE(t, f, "pw-wa", "CREATE WAREHOUSE IF NOT EXISTS wh_adopted") // what the upstream's CN entrypoint did

	wh := warehouse("fe", "wh-adopted", "wa", 1)
	wh.Spec.Template.AutoScalingPolicy = nil
	// The upstream operator made the StatefulSet, with its finalizer, before
	// we ran: the warehouse is ignored until the StatefulSet exists.
	wh.Annotations = map[string]string{srv1.IgnoredAnnotation: "true"}
	if err := c.Client.Create(ctx, wh); err != nil {
		t.Fatal(err)
	}
	sel := map[string]string{resources.OwnerLabel: "wh-adopted-warehouse-cn", resources.ComponentLabel: "cn"}
	upstream := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "fe", Name: "wh-adopted-warehouse-cn", Labels: sel,
			Finalizers:      []string{warehousectl.UpstreamFinalizer},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "starrocks.com/v1", Kind: "StarRocksWarehouse", Name: wh.Name, UID: wh.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(int32(1)), ServiceName: "wh-adopted-warehouse-cn-search", Selector: &metav1.LabelSelector{MatchLabels: sel},
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Template:            corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "cn", Image: "starrocks/cn-ubuntu:3.3.2"}}}},
		},
	}
	if err := c.Client.Create(ctx, upstream, client.FieldOwner("sroperator")); err != nil {
		t.Fatal(err)
	}
	mutate(t, c.Client, wh, func(w *srv1.StarRocksWarehouse) { delete(w.Annotations, srv1.IgnoredAnnotation) })
	waitWarehouse(t, c, "fe", "wh-adopted", "adopted warehouse running", warehouseRunning(1))
	sts := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "fe", "wh-adopted-warehouse-cn", sts); err != nil {
		t.Fatal(err)
	}
	if sts.UID != upstream.UID {
		t.Fatal("the upstream's StatefulSet was replaced, not adopted")
	}
	if err := c.Client.Delete(ctx, wh); err != nil {
		t.Fatal(err)
	}
	gone(t, c, "adopted warehouse and its StatefulSet", &srv1.StarRocksWarehouse{ObjectMeta: wh.ObjectMeta}, sts)
	if got := f.StatementsLike("DROP WAREHOUSE"); !slices.Equal(got, []string{"DROP WAREHOUSE IF EXISTS `wh_adopted`"}) {
		t.Errorf("DROP WAREHOUSE statements %q", got)
	}
	if slices.Contains(f.Warehouses(), "wh_adopted") {
		t.Errorf("FE still has wh_adopted: %v", f.Warehouses())
	}
}

// drCluster is a 3-FE cluster with BE and CN asking for recovery generation
// 7 from the ConfigMaps it returns: fe.conf (run_mode per feConf) and the
// snapshot, whose key and mount path are what FE reads unless changed.
func drCluster(name, feConf string) (*srv1.StarRocksCluster, []*corev1.ConfigMap) {
	src := threeComponents("fe", name, "3.3.2")
	src.Spec.StarRocksFeSpec.Replicas = ptr.To(int32(3))
	src.Spec.DisasterRecovery = &srv1.DisasterRecovery{Enabled: true, Generation: 7}
	// No StarRocks answers for these clusters: FE's return to 3 pods after
	// the recovery rolls without waiting for FE's word.
	src.Annotations = map[string]string{srv1.RolloutGateAnnotation: srv1.RolloutGateOff}
	conf := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "fe", Name: name + "-fe-conf"}, Data: map[string]string{"fe.conf": feConf}}
	src.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: conf.Name, ResolveKey: "fe.conf"}
	snap := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "fe", Name: name + "-snapshot"}, Data: map[string]string{resources.ClusterSnapshotFile: "cluster_snapshot:\n  cluster_snapshot_path: s3://bucket/snap\n"}}
	src.Spec.StarRocksFeSpec.ConfigMaps = []srv1.ConfigMapReference{{Name: snap.Name, MountPath: "/opt/starrocks/fe/conf/" + resources.ClusterSnapshotFile, SubPath: resources.ClusterSnapshotFile}}
	return src, []*corev1.ConfigMap{conf, snap}
}

func createAll(t *testing.T, c *testcluster.Cluster, src *srv1.StarRocksCluster, cms []*corev1.ConfigMap) {
	t.Helper()
	for _, cm := range cms {
		if err := c.Client.Create(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Client.Create(context.Background(), src); err != nil {
		t.Fatal(err)
	}
}

func testDisasterRecovery(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	src, cms := drCluster("dr", feConfShared)
	for _, cm := range cms {
		if err := c.Client.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	// Every status version, so that no phase goes unseen.
	wc, err := client.NewWithWatch(c.Config, client.Options{Scheme: c.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(ctx, &srv1.StarRocksClusterList{}, client.InNamespace("fe"), client.MatchingFields{"metadata.name": "dr"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := c.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	var phases []srv1.DisasterRecoveryPhase
	sawDoingShape := false
	deadline := time.After(2 * time.Minute)
	for len(phases) == 0 || phases[len(phases)-1] != srv1.DisasterRecoveryDone {
		select {
		case ev := <-w.ResultChan():
			got, ok := ev.Object.(*srv1.StarRocksCluster)
			if !ok || got.Status.DisasterRecoveryStatus == nil {
				continue
			}
			p := got.Status.DisasterRecoveryStatus.Phase
			if len(phases) == 0 || phases[len(phases)-1] != p {
				phases = append(phases, p)
			}
			if p == srv1.DisasterRecoveryDoing && !sawDoingShape {
				checkRecoveryFE(t, c, 7)
				sawDoingShape = true
			}
		case <-deadline:
			t.Fatalf("recovery phases so far %v", phases)
		}
	}
	if want := []srv1.DisasterRecoveryPhase{srv1.DisasterRecoveryTodo, srv1.DisasterRecoveryDoing, srv1.DisasterRecoveryDone}; !slices.Equal(phases, want) {
		t.Errorf("recovery phases %v, want %v", phases, want)
	}
	// Back to the spec: 3 FE with the usual probes, BE and CN created.
	got := waitRunning(t, c, "fe", "dr", 2*time.Minute)
	st := got.Status.DisasterRecoveryStatus
	if st == nil || st.Phase != srv1.DisasterRecoveryDone || st.ObservedGeneration != 7 || st.StartTimestamp == 0 || st.EndTimestamp < st.StartTimestamp {
		t.Errorf("recovery status %+v", st)
	}
	feSts := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "fe", "dr-fe", feSts); err != nil {
		t.Fatal(err)
	}
	main := feSts.Spec.Template.Spec.Containers[0]
	if *feSts.Spec.Replicas != 3 || main.StartupProbe == nil || main.LivenessProbe == nil || main.ReadinessProbe.HTTPGet == nil {
		t.Errorf("FE not restored: replicas %d, startup %v, liveness %v, readiness %+v", *feSts.Spec.Replicas, main.StartupProbe, main.LivenessProbe, main.ReadinessProbe)
	}
	if _, ok := envValue(feSts, resources.RestoreSnapshotEnv); ok {
		t.Error("FE still restores a snapshot")
	}
	for _, name := range []string{"dr-be", "dr-cn"} {
		if err := get(ctx, c.Client, "fe", name, &appsv1.StatefulSet{}); err != nil {
			t.Errorf("%s after recovery: %v", name, err)
		}
	}
}

// checkRecoveryFE checks FE as it restores: what upstream v1.11.5 runs, and BE and CN held.
func checkRecoveryFE(t *testing.T, c *testcluster.Cluster, generation int) {
	t.Helper()
	ctx := context.Background()
	feSts := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "fe", "dr-fe", feSts); err != nil {
		t.Fatal(err)
	}
	main := feSts.Spec.Template.Spec.Containers[0]
	if *feSts.Spec.Replicas != 1 {
		t.Errorf("FE replicas %d during recovery, want 1", *feSts.Spec.Replicas)
	}
	if main.StartupProbe != nil || main.LivenessProbe != nil {
		t.Error("FE has startup or liveness probes during recovery")
	}
	if p := main.ReadinessProbe; p == nil || p.TCPSocket == nil || p.TCPSocket.Port.IntValue() != 9030 {
		t.Errorf("FE readiness during recovery %+v, want TCP on 9030", p)
	}
	if v, _ := envValue(feSts, resources.RestoreGenerationEnv); v != fmt.Sprint(generation) {
		t.Errorf("%s = %q", resources.RestoreGenerationEnv, v)
	}
	if v, _ := envValue(feSts, resources.RestoreSnapshotEnv); v != "true" {
		t.Errorf("%s = %q", resources.RestoreSnapshotEnv, v)
	}
	for _, name := range []string{"dr-be", "dr-cn"} {
		if err := get(ctx, c.Client, "fe", name, &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s exists during recovery (%v): BE and CN must be held", name, err)
		}
	}
}

// A shared-nothing cluster has no snapshot to restore: the upstream ignores
// spec.disasterRecovery there (facts sheet §13), and so do we.
func testDisasterRecoveryOnSharedNothing(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	src, cms := drCluster("drn", "run_mode = shared_nothing\n")
	src.Spec.StarRocksBeSpec.Replicas = ptr.To(int32(1))
	createAll(t, c, src, cms)
	got := waitRunning(t, c, "fe", "drn", 2*time.Minute)
	if got.Status.DisasterRecoveryStatus != nil {
		t.Errorf("a recovery status on a shared-nothing cluster: %+v", got.Status.DisasterRecoveryStatus)
	}
	feSts := &appsv1.StatefulSet{}
	if err := get(ctx, c.Client, "fe", "drn-fe", feSts); err != nil {
		t.Fatal(err)
	}
	if _, ok := envValue(feSts, resources.RestoreSnapshotEnv); ok || *feSts.Spec.Replicas != 3 {
		t.Errorf("FE rewritten for a recovery: replicas %d, %s set %v", *feSts.Spec.Replicas, resources.RestoreSnapshotEnv, ok)
	}
}

// FE reads only $STARROCKS_HOME/conf/cluster_snapshot.yaml: a ConfigMap
// without the key, or the key mounted anywhere else, restores nothing.
func testDisasterRecoveryWithoutSnapshot(t *testing.T, c *testcluster.Cluster) {
	for _, tc := range []struct {
		name   string
		change func(*srv1.StarRocksCluster, *corev1.ConfigMap)
	}{
		{"drx", func(_ *srv1.StarRocksCluster, snap *corev1.ConfigMap) {
			snap.Data = map[string]string{"something-else.yaml": "x"}
		}},
		{"dry", func(src *srv1.StarRocksCluster, _ *corev1.ConfigMap) {
			src.Spec.StarRocksFeSpec.ConfigMaps[0].MountPath = "/etc/starrocks/" + resources.ClusterSnapshotFile
		}},
	} {
		src, cms := drCluster(tc.name, feConfShared)
		tc.change(src, cms[1])
		createAll(t, c, src, cms)
		eventually(t, time.Minute, tc.name+": ClusterSnapshotMissing reported", func(ctx context.Context) (bool, error) {
			got := &srv1.StarRocksCluster{}
			if err := get(ctx, c.Client, "fe", tc.name, got); err != nil {
				return false, err
			}
			cond := meta.FindStatusCondition(got.Status.Conditions, srv1.ConditionReconcileError)
			return cond != nil && cond.Status == metav1.ConditionTrue && cond.Reason == srv1.ReasonClusterSnapshotMissing, nil
		})
		if err := get(context.Background(), c.Client, "fe", tc.name+"-fe", &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s: FE created without a snapshot to restore: %v", tc.name, err)
		}
	}
}

func testWarehouseChecks(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	sn := feOnly("fe", "wn") // no fe.conf: shared-nothing
	if err := c.Client.Create(ctx, sn); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cluster, reason string
	}{
		{"wh-orphan", "no-such-cluster", srv1.ReasonClusterNotFound},
		{"wn", "wn", srv1.ReasonNameConflict},
		{"wh-sn", "wn", srv1.ReasonNotSharedData},
	} {
		wh := warehouse("fe", tc.name, tc.cluster, 1)
		if err := c.Client.Create(ctx, wh); err != nil {
			t.Fatal(err)
		}
		got := waitWarehouse(t, c, "fe", tc.name, tc.reason, func(wh *srv1.StarRocksWarehouse) bool {
			cond := meta.FindStatusCondition(wh.Status.Conditions, srv1.ConditionReconcileError)
			return cond != nil && cond.Status == metav1.ConditionTrue && cond.Reason == tc.reason
		})
		if got.Status.Phase != srv1.PhaseFailed || !meta.IsStatusConditionFalse(got.Status.Conditions, srv1.ConditionReady) {
			t.Errorf("%s: phase %q, conditions %+v", tc.name, got.Status.Phase, got.Status.Conditions)
		}
		if err := get(ctx, c.Client, "fe", wh.CnStatefulSetName(), &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s: StatefulSet built although %s: %v", tc.name, tc.reason, err)
		}
		if err := c.Client.Delete(ctx, wh); err != nil {
			t.Fatal(err)
		}
		gone(t, c, tc.name, wh)
	}
}
