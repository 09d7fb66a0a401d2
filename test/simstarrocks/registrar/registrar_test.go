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

package registrar_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the database/sql driver of connectTo
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/simstarrocks/registrar"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// directory is a registrar.Directory that tests fill as they go.
type directory struct {
	mu   sync.Mutex
	sims map[string]*simstarrocks.StarRocks
}

func (d *directory) lookup(namespace, cluster string) *simstarrocks.StarRocks {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sims[namespace+"/"+cluster]
}

// add starts a simulated StarRocks for cluster c in namespace ns.
func (d *directory) add(t *testing.T, ns, c string, opts simstarrocks.Options) *simstarrocks.StarRocks {
	t.Helper()
	sim := simstarrocks.Start(t, opts)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sims[ns+"/"+c] = sim
	return sim
}

// On a simulated cluster, the registrar does for the operator's pods what
// their entrypoint scripts would do.
func TestRegistrar(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	c := testcluster.ForTest(t, testcluster.Options{Simulated: true})
	dir := &directory{sims: map[string]*simstarrocks.StarRocks{}}
	// FE pod 0 waits PROBE_LEADER_POD0_TIMEOUT (30 s) before it bootstraps; the rule is the same shorter.
	reg := registrar.Start(context.Background(), t, c.Config, dir.lookup, registrar.Options{CNSelfDrop: true, Pod0LeaderTimeout: 4 * time.Second})
	t.Run("BE", func(t *testing.T) { t.Parallel(); testBE(t, c, dir, reg) })
	t.Run("FE", func(t *testing.T) { t.Parallel(); testFE(t, c, dir, reg) })
	t.Run("CN", func(t *testing.T) { t.Parallel(); testCN(t, c, dir, reg) })
	t.Run("custom DNS domain and FE host type", func(t *testing.T) { t.Parallel(); testHostNames(t, c) })
}

func testBE(t *testing.T, c *testcluster.Cluster, dir *directory, reg *registrar.Registrar) {
	const ns = "reg-be"
	// root has a password, which the pods get from a Secret as MYSQL_PWD (sheet §11).
	// Heartbeats every 500 ms instead of 5 s: these tests are about Alive
	// once FE has seen a pod's process stop or start, which at the real
	// default takes about 20 s to go dead (sheet §14).
	sim := dir.add(t, ns, "c", simstarrocks.Options{Password: "s3cret", HeartbeatInterval: 500 * time.Millisecond})
	leadingFE(sim, ns)
	src := cluster(ns)
	src.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: replicas(2), BeEnvVars: []corev1.EnvVar{{
		Name: "MYSQL_PWD",
		ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "root"}, Key: "password",
		}},
	}}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "root"}, StringData: map[string]string{"password": "s3cret"}}
	create(t, c, ns, secret)
	create(t, c, ns, resources.BE(src, resources.Config{}).Objects()...)
	be0, be1 := fqdn(ns, "c-be-0", "c-be-search"), fqdn(ns, "c-be-1", "c-be-search")

	t.Run("every BE pod becomes a SHOW BACKENDS row, Alive once Ready", func(t *testing.T) {
		waitNode(t, func() []node { return backends(sim) }, be0, true)
		waitNode(t, func() []node { return backends(sim) }, be1, true)
		if got := sent(reg, ns+"/c-be-0", "ALTER SYSTEM ADD BACKEND"); len(got) != 1 || got[0].SQL != `ALTER SYSTEM ADD BACKEND "`+be0+`:9050";` || got[0].Err != "" {
			t.Errorf("ADD BACKEND of c-be-0: %+v", got)
		}
	})
	t.Run("a container restart adds the BE again and ignores 'already exists'", func(t *testing.T) {
		restartContainer(t, c, ns, "c-be-0")
		waitSent(t, reg, ns+"/c-be-0", "ALTER SYSTEM ADD BACKEND", 2)
		if got := sent(reg, ns+"/c-be-0", "ALTER SYSTEM ADD BACKEND"); !strings.Contains(got[1].Err, "already exists") {
			t.Errorf("second ADD BACKEND: %+v", got[1])
		}
		waitNode(t, func() []node { return backends(sim) }, be0, true)
	})
	t.Run("a re-created pod adds the BE again", func(t *testing.T) {
		uid := pod(t, c, ns, "c-be-0").UID
		if err := c.Client.Delete(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c-be-0"}}); err != nil {
			t.Fatal(err)
		}
		poll(t, 30*time.Second, "c-be-0 re-created and Ready", func() bool { return recreated(c, ns, "c-be-0", uid) })
		waitSent(t, reg, ns+"/c-be-0", "ALTER SYSTEM ADD BACKEND", 3)
		if got := sent(reg, ns+"/c-be-0", "ALTER SYSTEM ADD BACKEND"); !strings.Contains(got[2].Err, "already exists") {
			t.Errorf("third ADD BACKEND: %+v", got[2])
		}
		waitNode(t, func() []node { return backends(sim) }, be0, true)
	})
	t.Run("Alive follows readiness", func(t *testing.T) {
		setReady(t, c, ns, "c-be-1", false)
		waitNode(t, func() []node { return backends(sim) }, be1, false)
		setReady(t, c, ns, "c-be-1", true)
		waitNode(t, func() []node { return backends(sim) }, be1, true)
	})
	t.Run("a deleted BE pod's row stays, not Alive", func(t *testing.T) {
		scale(t, c, ns, "c-be", 1)
		waitNode(t, func() []node { return backends(sim) }, be1, false)
		if n := len(sim.Backends()); n != 2 {
			t.Errorf("%d BE rows, want 2", n)
		}
	})
}

func testFE(t *testing.T, c *testcluster.Cluster, dir *directory, reg *registrar.Registrar) {
	const ns = "reg-fe"
	sim := dir.add(t, ns, "c", simstarrocks.Options{})
	src := cluster(ns)
	src.Spec.StarRocksFeSpec.Replicas = ptr.To[int32](3)
	// ROLE lives in fe-meta, on a claim: it survives the pod's re-creation.
	src.Spec.StarRocksFeSpec.StorageVolumes = []srv1.StorageVolume{{Name: "fe-meta", StorageSize: "1Gi", MountPath: "/opt/starrocks/fe/meta"}}
	create(t, c, ns, resources.FE(src, resources.Config{}).Objects()...)
	fe := func(i int) string { return fqdn(ns, fmt.Sprintf("c-fe-%d", i), "c-fe-search") }

	t.Run("FE-0 becomes the leader, FE-1 and FE-2 join it as followers", func(t *testing.T) {
		poll(t, 40*time.Second, "FE-0 leads", func() bool { return sim.Leader() == fe(0) })
		for i := range 3 {
			role := "FOLLOWER"
			if i == 0 {
				role = "LEADER"
			}
			waitFrontend(t, sim, fe(i), role)
		}
		if got := sent(reg, ns+"/c-fe-0", "ALTER SYSTEM ADD FOLLOWER"); len(got) != 0 {
			t.Errorf("FE-0 added itself: %+v", got)
		}
		for i := 1; i < 3; i++ {
			got := sent(reg, fmt.Sprintf("%s/c-fe-%d", ns, i), "ALTER SYSTEM ADD FOLLOWER")
			if len(got) == 0 || got[0].SQL != `ALTER SYSTEM ADD FOLLOWER "`+fe(i)+`:9010";` || got[0].Err != "" {
				t.Errorf("ADD FOLLOWER of FE-%d: %+v", i, got)
			}
			// The script's `show frontends` goes through the Service: a
			// follower a moment behind does not list the FE yet, and the
			// script adds it again, which the leader refuses.
			for _, again := range got[min(1, len(got)):] {
				if again.SQL != got[0].SQL || !strings.Contains(again.Err, "already exists") {
					t.Errorf("ADD FOLLOWER of FE-%d again: %+v", i, again)
				}
			}
		}
	})
	t.Run("a restarted or re-created FE sends no SQL", func(t *testing.T) {
		before1, before2 := len(sent(reg, ns+"/c-fe-1", "")), len(sent(reg, ns+"/c-fe-2", ""))
		restartContainer(t, c, ns, "c-fe-1")
		uid := pod(t, c, ns, "c-fe-2").UID
		if err := c.Client.Delete(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c-fe-2"}}); err != nil {
			t.Fatal(err)
		}
		poll(t, 30*time.Second, "both FEs started again with their meta", func() bool {
			return recreated(c, ns, "c-fe-2", uid) && logged(reg, ns+"/c-fe-1", "ROLE exists") == 1 && logged(reg, ns+"/c-fe-2", "ROLE exists") == 1
		})
		if n := len(sent(reg, ns+"/c-fe-1", "")); n != before1 {
			t.Errorf("FE-1 sent %d statements after its restart", n-before1)
		}
		if n := len(sent(reg, ns+"/c-fe-2", "")); n != before2 {
			t.Errorf("FE-2 sent %d statements after its re-creation", n-before2)
		}
		waitFrontend(t, sim, fe(1), "FOLLOWER")
		waitFrontend(t, sim, fe(2), "FOLLOWER")
	})
	// StarRocks #78195, sheet §14: a follower dropped while it runs is a
	// zombie; restarted on its old metadata it exits, and the kubelet keeps
	// the pod not Ready and restarts it with a back-off.
	t.Run("a dropped FE restarted on its meta exits: its pod is not Ready and crash-loops", func(t *testing.T) {
		leader := connectTo(t, sim.AddressOf(fe(0)))
		if _, err := leader.ExecContext(context.Background(), `ALTER SYSTEM DROP FOLLOWER "`+fe(2)+`:9010"`); err != nil {
			t.Fatal(err)
		}
		if !sim.Zombie(fe(2)) {
			t.Fatal("FE-2 dropped while running is no zombie")
		}
		restartContainer(t, c, ns, "c-fe-2")
		poll(t, 30*time.Second, "FE-2 not Ready, in CrashLoopBackOff", func() bool {
			p := pod(t, c, ns, "c-fe-2")
			s := p.Status.ContainerStatuses[0]
			return !ready(p) && s.State.Waiting != nil && s.State.Waiting.Reason == "CrashLoopBackOff"
		})
		if sim.Zombie(fe(2)) {
			t.Error("the zombie's process outlived its container's restart")
		}
		// After the 10 s back-off the kubelet starts it again; it exits again.
		restarts := pod(t, c, ns, "c-fe-2").Status.ContainerStatuses[0].RestartCount
		poll(t, 40*time.Second, "FE-2 restarted by its back-off and exited again", func() bool {
			p := pod(t, c, ns, "c-fe-2")
			return p.Status.ContainerStatuses[0].RestartCount > restarts && logged(reg, ns+"/c-fe-2", "container exited 1") >= 2
		})
		if ready(pod(t, c, ns, "c-fe-2")) {
			t.Error("FE-2 is Ready while it crash-loops")
		}
		// Control: FE-1, in the group, restarts and stays Ready.
		restartContainer(t, c, ns, "c-fe-1")
		poll(t, 30*time.Second, "FE-1 started again", func() bool { return logged(reg, ns+"/c-fe-1", "ROLE exists") == 2 })
		if p := pod(t, c, ns, "c-fe-1"); !ready(p) || logged(reg, ns+"/c-fe-1", "container exited 1") != 0 {
			t.Errorf("FE-1, in the group, crashed on restart: ready %t", ready(p))
		}
	})
}

// The custom DNS domain (registrar Options.DNSDomain) is every `hostname -f`
// (sheet §1 Identity); an FE started with HOST_TYPE other than FQDN
// registers its IP and resolves the names of ADD statements to IPs (sheet
// §0, §1): a BE that registers by FQDN then finds no row of its name.
func testHostNames(t *testing.T, c *testcluster.Cluster) {
	const ns = "reg-dns"
	dir := &directory{sims: map[string]*simstarrocks.StarRocks{}}
	reg := registrar.Start(context.Background(), t, c.Config, dir.lookup, registrar.Options{DNSDomain: "example.org", Pod0LeaderTimeout: 2 * time.Second})
	sim := dir.add(t, ns, "c", simstarrocks.Options{})
	src := cluster(ns)
	src.Spec.StarRocksFeSpec.FeEnvVars = []corev1.EnvVar{{Name: "HOST_TYPE", Value: "IP"}}
	src.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: replicas(1)}
	create(t, c, ns, resources.FE(src, resources.Config{}).Objects()...)
	create(t, c, ns, resources.BE(src, resources.Config{}).Objects()...)

	poll(t, 40*time.Second, "FE-0 leads", func() bool { return sim.Leader() != "" })
	if fe0 := pod(t, c, ns, "c-fe-0"); sim.Leader() != fe0.Status.PodIP {
		t.Errorf("FE-0 with HOST_TYPE=IP leads as %q, want its IP %s", sim.Leader(), fe0.Status.PodIP)
	}
	be0 := "c-be-0.c-be-search." + ns + ".svc.example.org"
	waitSent(t, reg, ns+"/c-be-0", "ALTER SYSTEM ADD BACKEND", 1)
	if got := sent(reg, ns+"/c-be-0", "ALTER SYSTEM ADD BACKEND")[0].SQL; got != `ALTER SYSTEM ADD BACKEND "`+be0+`:9050";` {
		t.Errorf("BE-0 registers as %s, want its name in example.org", got)
	}
	ip := pod(t, c, ns, "c-be-0").Status.PodIP
	poll(t, 30*time.Second, "the BE row under its IP "+ip, func() bool {
		return slices.ContainsFunc(sim.Backends(), func(b simstarrocks.Backend) bool { return b.Host == ip })
	})
	if logged(reg, ns+"/c-be-0", "is registered") != 0 {
		t.Error("BE-0 found its FQDN in SHOW BACKENDS, which lists its IP")
	}
}

// connectTo is a root client of one address.
func connectTo(t *testing.T, addr string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", "root@tcp("+addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func testCN(t *testing.T, c *testcluster.Cluster, dir *directory, reg *registrar.Registrar) {
	const ns = "reg-cn"
	sim := dir.add(t, ns, "c", simstarrocks.Options{MultiWarehouse: true})
	leadingFE(sim, ns)
	src := cluster(ns)
	src.Spec.StarRocksCnSpec = &srv1.StarRocksCnSpec{StarRocksComponentSpec: replicas(1)}
	create(t, c, ns, resources.CN(src, resources.Config{}).Objects()...)
	wh := &srv1.StarRocksWarehouse{
		ObjectMeta: metav1.ObjectMeta{Name: "wh-a", Namespace: ns},
		Spec:       srv1.StarRocksWarehouseSpec{StarRocksCluster: "c", Template: &srv1.WarehouseComponentSpec{StarRocksComponentSpec: replicas(1)}},
	}
	create(t, c, ns, resources.Warehouse(wh, src, resources.WarehouseConfig{MultiWarehouse: true}).Objects()...)
	cn0, whcn0 := fqdn(ns, "c-cn-0", "c-cn-search"), fqdn(ns, "wh-a-warehouse-cn-0", "wh-a-warehouse-cn-search")

	var firstID int64
	t.Run("a CN registers itself", func(t *testing.T) {
		firstID = waitNode(t, func() []node { return computeNodes(sim) }, cn0, true).id
		if got := sent(reg, ns+"/c-cn-0", "ALTER SYSTEM ADD COMPUTE NODE"); len(got) != 1 || got[0].SQL != `ALTER SYSTEM ADD COMPUTE NODE "`+cn0+`:9050";` {
			t.Errorf("ADD COMPUTE NODE of c-cn-0: %+v", got)
		}
	})
	t.Run("a warehouse CN creates its warehouse, then registers into it", func(t *testing.T) {
		waitNode(t, func() []node { return computeNodes(sim) }, whcn0, true)
		for _, n := range sim.ComputeNodes() {
			if n.Host == whcn0 && n.Warehouse != "wh_a" {
				t.Errorf("the warehouse CN is in warehouse %q", n.Warehouse)
			}
		}
		var sqls []string
		for _, s := range sent(reg, ns+"/wh-a-warehouse-cn-0", "") {
			sqls = append(sqls, s.SQL)
		}
		want := []string{"CREATE WAREHOUSE IF NOT EXISTS wh_a;", `ALTER SYSTEM ADD COMPUTE NODE "` + whcn0 + `:9050" INTO WAREHOUSE wh_a;`, "SHOW COMPUTE NODES;"}
		if !slices.Equal(sqls, want) {
			t.Errorf("warehouse CN sent %q, want %q", sqls, want)
		}
	})
	t.Run("a deleted CN drops itself, and its successor registers again", func(t *testing.T) {
		uid := pod(t, c, ns, "c-cn-0").UID
		if err := c.Client.Delete(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c-cn-0"}}); err != nil {
			t.Fatal(err)
		}
		waitSent(t, reg, ns+"/c-cn-0", "ALTER SYSTEM DROP COMPUTE NODE", 1)
		if got := sent(reg, ns+"/c-cn-0", "ALTER SYSTEM DROP COMPUTE NODE"); got[0].SQL != `ALTER SYSTEM DROP COMPUTE NODE "`+cn0+`:9050";` || got[0].Err != "" {
			t.Errorf("self-drop: %+v", got[0])
		}
		poll(t, 30*time.Second, "c-cn-0 re-created", func() bool { return recreated(c, ns, "c-cn-0", uid) })
		waitSent(t, reg, ns+"/c-cn-0", "ALTER SYSTEM ADD COMPUTE NODE", 2)
		if again := waitNode(t, func() []node { return computeNodes(sim) }, cn0, true); again.id == firstID {
			t.Errorf("the re-added CN kept ComputeNodeId %d; a dropped node comes back with a new one (sheet §12)", again.id)
		}
	})
}

// leadingFE makes FE-0 of cluster "c" the leader, as if it ran: ALTER SYSTEM
// needs one (sheet §0 Leader forwarding).
func leadingFE(sim *simstarrocks.StarRocks, ns string) {
	sim.BootstrapFrontend(fqdn(ns, "c-fe-0", "c-fe-search"), 9010)
}

// cluster is a StarRocksCluster "c" with one FE; BE and CN pods need its FE spec.
func cluster(ns string) *srv1.StarRocksCluster {
	return &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: ns},
		Spec:       srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: replicas(1)}},
	}
}

func replicas(n int32) srv1.StarRocksComponentSpec {
	return srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Replicas: ptr.To(n)}}
}

func fqdn(ns, pod, service string) string {
	return fmt.Sprintf("%s.%s.%s.svc.cluster.local", pod, service, ns)
}

// create makes the namespace if needed and the operator's objects in it, owned by nothing.
func create(t *testing.T, c *testcluster.Cluster, ns string, objs ...client.Object) {
	t.Helper()
	ctx := context.Background()
	if err := c.Client.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{}); err != nil {
		testutil.CreateNamespace(t, c.Client, ns)
		// Pods are refused until the namespace's default ServiceAccount exists.
		poll(t, 30*time.Second, "the default ServiceAccount of "+ns, func() bool {
			return c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &corev1.ServiceAccount{}) == nil
		})
	}
	for _, o := range objs {
		o.SetOwnerReferences(nil)
		if err := c.Client.Create(ctx, o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

func pod(t *testing.T, c *testcluster.Cluster, ns, name string) *corev1.Pod {
	t.Helper()
	p := &corev1.Pod{}
	if err := c.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// recreated: the pod called name is another than uid, and Ready.
func recreated(c *testcluster.Cluster, ns, name string, uid types.UID) bool {
	p := &corev1.Pod{}
	return c.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, p) == nil && p.UID != uid && ready(p)
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// restartContainer does what the kubelet reports of a container restart (kwok runs none).
func restartContainer(t *testing.T, c *testcluster.Cluster, ns, name string) {
	t.Helper()
	updateStatus(t, c, ns, name, func(p *corev1.Pod) {
		for i := range p.Status.ContainerStatuses {
			p.Status.ContainerStatuses[i].RestartCount++
		}
	})
}

func setReady(t *testing.T, c *testcluster.Cluster, ns, name string, isReady bool) {
	t.Helper()
	status := corev1.ConditionFalse
	if isReady {
		status = corev1.ConditionTrue
	}
	updateStatus(t, c, ns, name, func(p *corev1.Pod) {
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == corev1.PodReady || p.Status.Conditions[i].Type == corev1.ContainersReady {
				p.Status.Conditions[i].Status = status
			}
		}
	})
}

func updateStatus(t *testing.T, c *testcluster.Cluster, ns, name string, change func(*corev1.Pod)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		p := &corev1.Pod{}
		if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p); err != nil {
			return false, nil
		}
		change(p)
		return c.Client.Status().Update(ctx, p) == nil, nil
	})
	if err != nil {
		t.Fatalf("updating the status of %s/%s: %v", ns, name, err)
	}
}

func scale(t *testing.T, c *testcluster.Cluster, ns, name string, n int32) {
	t.Helper()
	patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, n))
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := c.Client.Patch(context.Background(), sts, patch); err != nil {
		t.Fatal(err)
	}
}

// sent are the statements the pod's scripts sent that start with prefix.
func sent(reg *registrar.Registrar, pod, prefix string) []registrar.Statement {
	var out []registrar.Statement
	for _, s := range reg.Statements() {
		if s.Pod == pod && strings.HasPrefix(s.SQL, prefix) {
			out = append(out, s)
		}
	}
	return out
}

func waitSent(t *testing.T, reg *registrar.Registrar, pod, prefix string, n int) {
	t.Helper()
	poll(t, 30*time.Second, fmt.Sprintf("%d statements %q from %s", n, prefix, pod), func() bool { return len(sent(reg, pod, prefix)) >= n })
}

// logged counts the log entries of pod that hold text.
func logged(reg *registrar.Registrar, pod, text string) int {
	n := 0
	for _, l := range reg.Log() {
		if strings.HasPrefix(l, pod+": ") && strings.Contains(l, text) {
			n++
		}
	}
	return n
}

// node is what the tests check of a BE or CN row.
type node struct {
	host  string
	alive bool
	id    int64
}

func backends(sim *simstarrocks.StarRocks) []node {
	var out []node
	for _, b := range sim.Backends() {
		out = append(out, node{b.Host, b.Alive, b.ID})
	}
	return out
}

func computeNodes(sim *simstarrocks.StarRocks) []node {
	var out []node
	for _, cn := range sim.ComputeNodes() {
		out = append(out, node{cn.Host, cn.Alive, cn.ID})
	}
	return out
}

// waitNode waits for the row of host (its IP column) with the given Alive.
func waitNode(t *testing.T, rows func() []node, host string, alive bool) node {
	t.Helper()
	var last []node
	var found node
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		last = rows()
		i := slices.IndexFunc(last, func(n node) bool { return n.host == host && n.alive == alive })
		if i >= 0 {
			found = last[i]
		}
		return i >= 0, nil
	})
	if err != nil {
		t.Fatalf("no row of %s with Alive=%t; rows: %+v", host, alive, last)
	}
	return found
}

func waitFrontend(t *testing.T, sim *simstarrocks.StarRocks, host, role string) {
	t.Helper()
	var last []simstarrocks.Frontend
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		last = sim.Frontends()
		return slices.ContainsFunc(last, func(f simstarrocks.Frontend) bool {
			return f.Host == host && f.Role == role && f.Alive && f.Join
		}), nil
	})
	if err != nil {
		t.Fatalf("no alive %s %s in SHOW FRONTENDS; rows: %+v", role, host, last)
	}
}

func poll(t *testing.T, timeout time.Duration, what string, done func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) { return done(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
