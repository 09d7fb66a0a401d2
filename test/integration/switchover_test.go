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
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/test/upstreamref"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// upstreamManager is the upstream operator's field manager (managed-fields.tsv).
const upstreamManager = "sroperator"

// switchover is one upstream example as the upstream operator left it.
type switchover struct {
	example, ns string
	src         *srv1.StarRocksCluster
	pods        map[string]string // pod name -> UID before our operator started
	templates   map[string]corev1.PodTemplateSpec
}

// testSwitchover recreates, for every upstream example, the objects the
// upstream operator v1.11.5 wrote (upstream-rendered/), as it wrote them
// (create by manager sroperator), lets the pods become Ready, then starts our
// operator binary: no pod may be replaced, no pod template change, no
// container or volume be doubled, no error be logged, and every cluster must
// report running within 30 s.
func testSwitchover(t *testing.T, c *testcluster.Cluster) {
	ctx := context.Background()
	root := upstreamref.Path(t, "upstream-rendered")
	dirs, err := filepath.Glob(filepath.Join(root, "*", "managed-fields.tsv"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no examples in %s: %v", root, err)
	}
	var all []*switchover
	for i, f := range dirs {
		sw := &switchover{example: filepath.Base(filepath.Dir(f)), ns: fmt.Sprintf("switchover-%d", i)}
		createUpstreamObjects(t, c, filepath.Dir(f), sw)
		all = append(all, sw)
	}
	for _, sw := range all {
		waitWorkloadsReady(t, c, sw.ns, 2*time.Minute)
		sw.pods, sw.templates = snapshot(t, c, sw.ns)
	}

	repo, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := testcluster.BuildOperator(ctx, repo, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := c.WriteKubeconfig("switchover-operator", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--kubeconfig="+kubeconfig, "--metrics-bind-address=0", "--health-probe-bind-address=0", "--max-concurrent-reconciles=4")
	var logs testutil.SyncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("operator output:\n%s", logs.String())
		}
	})

	for _, sw := range all {
		src := &srv1.StarRocksCluster{}
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second-time.Since(started), true, func(ctx context.Context) (bool, error) {
			if err := get(ctx, c.Client, sw.ns, sw.src.Name, src); err != nil {
				return false, nil
			}
			return src.Status.Phase == srv1.PhaseRunning && src.Status.ObservedGeneration == src.Generation, nil
		})
		if err != nil {
			t.Errorf("%s: not running within 30 s of the switchover: phase %q, reason %q", sw.example, src.Status.Phase, src.Status.Reason)
			continue
		}
		t.Logf("%s: running %s after the operator started", sw.example, time.Since(started).Round(time.Millisecond))
	}
	time.Sleep(5 * time.Second) // let any late write (and the pods it would replace) show

	for _, sw := range all {
		pods, templates := snapshot(t, c, sw.ns)
		replaced := 0
		for name, uid := range sw.pods {
			if pods[name] != uid {
				replaced++
				t.Errorf("%s: pod %s replaced (UID %s -> %q)", sw.example, name, uid, pods[name])
			}
		}
		changed := 0
		for name, before := range sw.templates {
			after := templates[name]
			if !equality.Semantic.DeepEqual(before, after) {
				changed++
				b, _ := yaml.Marshal(before)
				a, _ := yaml.Marshal(after)
				t.Errorf("%s: %s .spec.template changed:\n--- upstream\n%s\n--- after switchover\n%s", sw.example, name, b, a)
			}
			if d := duplicates(after); d != "" {
				t.Errorf("%s: %s has %s", sw.example, name, d)
			}
		}
		t.Logf("%s: %d pods, %d replaced; %d workloads, %d templates changed; budgets %v", sw.example, len(sw.pods), replaced, len(sw.templates), changed,
			newBudgets(t, c, sw))
	}

	var errorLines []string
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"level":"error"`) {
			errorLines = append(errorLines, sc.Text())
		}
	}
	if len(errorLines) > 0 {
		t.Errorf("%d error log lines:\n%s", len(errorLines), strings.Join(errorLines, "\n"))
	}
}

// createUpstreamObjects creates the example's cluster, ConfigMaps and every
// object the upstream wrote, in a namespace of its own, with the upstream's
// field manager: what the API server holds after the upstream reconciled it.
func createUpstreamObjects(t *testing.T, c *testcluster.Cluster, dir string, sw *switchover) {
	t.Helper()
	ctx := context.Background()
	testutil.CreateNamespace(t, c.Client, sw.ns)
	read := func(file string) []*unstructured.Unstructured {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// The upstream rendered into namespace bench; the same objects in ours.
		text := strings.ReplaceAll(string(data), "bench", sw.ns)
		var out []*unstructured.Unstructured
		for _, doc := range strings.Split(text, "\n---") {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(u.Object) > 0 {
				u.SetNamespace(sw.ns)
				out = append(out, u)
			}
		}
		return out
	}
	if extra := filepath.Join(dir, "input.extra.yaml"); fileExists(extra) {
		for _, cm := range read(extra) {
			if err := c.Client.Create(ctx, cm, client.FieldOwner("opbench")); err != nil {
				t.Fatal(err)
			}
		}
	}
	cr := read(filepath.Join(dir, "input.cr.yaml"))[0]
	if err := c.Client.Create(ctx, cr); err != nil {
		t.Fatal(err)
	}
	sw.src = &srv1.StarRocksCluster{}
	if err := get(ctx, c.Client, sw.ns, cr.GetName(), sw.src); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.*.yaml"))
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "input.") {
			continue
		}
		for _, o := range read(f) {
			refs := o.GetOwnerReferences()
			for i := range refs {
				refs[i].UID = sw.src.UID
			}
			o.SetOwnerReferences(refs)
			if o.GetKind() == "Service" {
				// Cluster IPs are the API server's to allocate; node ports stay as written.
				if ip, _, _ := unstructured.NestedString(o.Object, "spec", "clusterIP"); ip != "None" {
					unstructured.RemoveNestedField(o.Object, "spec", "clusterIP")
					unstructured.RemoveNestedField(o.Object, "spec", "clusterIPs")
				}
			}
			err := c.Client.Create(ctx, o, client.FieldOwner(upstreamManager))
			if o.GetKind() == "ConfigMap" && apierrors.IsAlreadyExists(err) {
				continue // a user ConfigMap of input.extra.yaml
			}
			if err != nil {
				t.Fatalf("%s: creating %s %s: %v", sw.example, o.GetKind(), o.GetName(), err)
			}
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func waitWorkloadsReady(t *testing.T, c *testcluster.Cluster, ns string, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, "upstream's pods ready in "+ns, func(ctx context.Context) (bool, error) {
		var stss appsv1.StatefulSetList
		var deps appsv1.DeploymentList
		if err := c.Client.List(ctx, &stss, client.InNamespace(ns)); err != nil {
			return false, err
		}
		if err := c.Client.List(ctx, &deps, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, s := range stss.Items {
			if s.Status.ReadyReplicas != *s.Spec.Replicas || s.Status.UpdatedReplicas != *s.Spec.Replicas {
				return false, nil
			}
		}
		for _, d := range deps.Items {
			if d.Status.ReadyReplicas != *d.Spec.Replicas {
				return false, nil
			}
		}
		return len(stss.Items) > 0, nil
	})
}

// snapshot is every pod's UID and every workload's pod template in ns.
func snapshot(t *testing.T, c *testcluster.Cluster, ns string) (map[string]string, map[string]corev1.PodTemplateSpec) {
	t.Helper()
	ctx := context.Background()
	var pods corev1.PodList
	var stss appsv1.StatefulSetList
	var deps appsv1.DeploymentList
	for _, l := range []client.ObjectList{&pods, &stss, &deps} {
		if err := c.Client.List(ctx, l, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
	}
	uids := map[string]string{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			uids[p.Name] = string(p.UID)
		}
	}
	templates := map[string]corev1.PodTemplateSpec{}
	for _, s := range stss.Items {
		templates["StatefulSet/"+s.Name] = s.Spec.Template
	}
	for _, d := range deps.Items {
		templates["Deployment/"+d.Name] = d.Spec.Template
	}
	return uids, templates
}

// newBudgets checks that every StatefulSet of more than one pod got a
// disruption budget, an object the upstream never made, beside the pods it
// replaced none of; it returns their names.
func newBudgets(t *testing.T, c *testcluster.Cluster, sw *switchover) []string {
	t.Helper()
	ctx := context.Background()
	var stss appsv1.StatefulSetList
	if err := c.Client.List(ctx, &stss, client.InNamespace(sw.ns)); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range stss.Items {
		if ptr.Deref(s.Spec.Replicas, 1) <= 1 {
			continue
		}
		pdb := &policyv1.PodDisruptionBudget{}
		if err := get(ctx, c.Client, sw.ns, s.Name+"-pdb", pdb); err != nil || !metav1.IsControlledBy(pdb, sw.src) {
			t.Errorf("%s: StatefulSet %s of %d pods has no budget of the cluster's: %v", sw.example, s.Name, *s.Spec.Replicas, err)
			continue
		}
		names = append(names, pdb.Name)
	}
	return names
}

// duplicates names a doubled container or volume of a template; "" when none.
func duplicates(tmpl corev1.PodTemplateSpec) string {
	var containers, volumes []string
	for _, ct := range tmpl.Spec.Containers {
		containers = append(containers, ct.Name)
	}
	for _, v := range tmpl.Spec.Volumes {
		volumes = append(volumes, v.Name)
	}
	for _, l := range [][]string{containers, volumes} {
		slices.Sort(l)
		for i := 1; i < len(l); i++ {
			if l[i] == l[i-1] {
				return "a duplicate " + l[i]
			}
		}
	}
	return ""
}
