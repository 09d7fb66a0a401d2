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

package helm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// rbacKinds are the objects of the operator chart that grant the operator its
// permissions; the test creates them for real.
var rbacKinds = []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}

// TestOperatorRunsWithTheChartsRBAC runs the real operator binary as the
// chart's ServiceAccount, under the real RBAC authorizer, with the arguments
// the chart renders, and expects it to create a cluster's FE StatefulSet
// without a single "forbidden" in its log: the chart grants what the code needs.
func TestOperatorRunsWithTheChartsRBAC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the operator and starts etcd and kube-apiserver")
	}
	bin := buildOperator(t)
	cl := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: []string{filepath.Join(chartPath(t, operatorChart), "crds")}})

	cases := []struct {
		name string
		// watch is the operator's watchNamespace; empty: cluster-wide.
		watch string
		// clusterNamespace is where the StarRocksCluster is created.
		clusterNamespace string
		operatorNS       string
		wantKinds        []string
	}{{
		name:             "cluster-wide",
		clusterNamespace: "analytics-wide",
		operatorNS:       "starrocks-system-wide",
		wantKinds:        []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"},
	}, {
		name:             "namespace-scoped",
		watch:            "analytics-scoped",
		clusterNamespace: "analytics-scoped",
		operatorNS:       "starrocks-system-scoped",
		wantKinds:        []string{"ServiceAccount", "Role", "RoleBinding"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			for _, ns := range []string{tc.operatorNS, tc.clusterNamespace} {
				if err := cl.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
					t.Fatalf("creating namespace %s: %v", ns, err)
				}
			}
			values := ""
			if tc.watch != "" {
				values = "starrocksOperator:\n  watchNamespace: " + tc.watch + "\n"
			}
			objs := mustRender(t, operatorChart, tc.operatorNS, values)

			for _, kind := range tc.wantKinds {
				if len(find(objs, kind)) == 0 {
					t.Fatalf("the chart renders no %s: %s", kind, describe(objs))
				}
			}
			if tc.watch != "" && len(clusterWideGrants(objs)) > 0 {
				t.Errorf("a namespace-scoped operator is granted more than reading its CRDs cluster-wide: %v", clusterWideGrants(objs))
			}
			for _, obj := range objs {
				if slices.Contains(rbacKinds, obj.GetKind()) {
					// The metrics ClusterRoles have the same names in both cases.
					err := cl.Client.Create(ctx, obj)
					createdBefore := apierrors.IsAlreadyExists(err) && obj.GetNamespace() == ""
					if err != nil && !createdBefore {
						t.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
					}
				}
			}

			dep := only(t, objs, "Deployment")
			sa, _, _ := unstructured.NestedString(dep.Object, "spec", "template", "spec", "serviceAccountName")
			_, kubeconfig, err := cl.AddUser("system:serviceaccount:"+tc.operatorNS+":"+sa, "system:serviceaccounts", "system:serviceaccounts:"+tc.operatorNS)
			if err != nil {
				t.Fatalf("adding the operator's user: %v", err)
			}
			kubeconfigPath := filepath.Join(t.TempDir(), "kubeconfig")
			if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
				t.Fatal(err)
			}

			args := localArgs(t, operatorArgs(t, objs))
			args = append(args, "--kubeconfig="+kubeconfigPath)
			t.Logf("operator arguments: %q", args)
			op := startOperator(t, bin, args)

			src := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "starrocks.com/v1",
				"kind":       "StarRocksCluster",
				"metadata":   map[string]any{"name": "e2e", "namespace": tc.clusterNamespace},
				"spec": map[string]any{
					"starRocksFeSpec": map[string]any{"image": "starrocks/fe-ubuntu:latest"},
				},
			}}
			if err := cl.Client.Create(ctx, src); err != nil {
				t.Fatalf("creating the StarRocksCluster: %v", err)
			}
			cluster := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "e2e"}}
			key := client.ObjectKey{Namespace: tc.clusterNamespace, Name: cluster.FeStatefulSetName()}
			if err := waitForStatefulSet(ctx, cl.Client, key, op, 60*time.Second); err != nil {
				t.Errorf("%v\noperator output:\n%s", err, op.output())
			}
			// It reconciled as the elected leader, holding the Lease in its own namespace.
			var lease coordinationv1.Lease
			if err := cl.Client.Get(ctx, client.ObjectKey{Namespace: tc.operatorNS, Name: "c6c79638.starrocks.com"}, &lease); err != nil {
				t.Errorf("leader election Lease in %s: %v", tc.operatorNS, err)
			}
			op.stop()
			if lines := forbiddenLines(op.output()); len(lines) > 0 {
				t.Errorf("the operator was denied access with the chart's RBAC:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// buildOperator builds ./cmd/starrocks-operator into a temporary directory.
func buildOperator(t *testing.T) string {
	t.Helper()
	bin, err := testcluster.BuildOperator(t.Context(), repoRoot(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// localArgs adapts the chart's arguments to a process on this machine: the
// bind addresses become free loopback ports. The rest stays as rendered.
func localArgs(t *testing.T, rendered []string) []string {
	t.Helper()
	var args []string
	replaced := 0
	for _, a := range rendered {
		for _, flag := range []string{"--metrics-bind-address=", "--health-probe-bind-address="} {
			if strings.HasPrefix(a, flag) {
				a = flag + testutil.FreeAddrT(t)
				replaced++
			}
		}
		args = append(args, a)
	}
	if replaced != 2 {
		t.Fatalf("the chart's arguments %q lack a bind address", rendered)
	}
	return args
}

// operatorProcess is the operator running as a subprocess.
type operatorProcess struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // set before done is closed
	out  testutil.SyncBuffer
}

func (p *operatorProcess) output() string { return p.out.String() }

// stop asks the operator to stop, as the kubelet would, and waits for it.
func (p *operatorProcess) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func startOperator(t *testing.T, bin string, args []string) *operatorProcess {
	t.Helper()
	p := &operatorProcess{done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	// Only --kubeconfig may choose the cluster.
	p.cmd.Env = slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "KUBECONFIG=") })
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting the operator: %v", err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.stop)
	return p
}

// waitForStatefulSet waits until the StatefulSet exists, failing early when
// the operator exits.
func waitForStatefulSet(ctx context.Context, c client.Client, key client.ObjectKey, op *operatorProcess, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		err := c.Get(ctx, key, &appsv1.StatefulSet{})
		switch {
		case err == nil:
			return nil
		case !apierrors.IsNotFound(err) && !errors.Is(err, context.DeadlineExceeded):
			return fmt.Errorf("reading StatefulSet %s: %w", key, err)
		}
		select {
		case <-op.done:
			return fmt.Errorf("the operator exited (%w) before StatefulSet %s existed", op.err, key)
		case <-ctx.Done():
			return fmt.Errorf("StatefulSet %s did not appear within %s", key, timeout)
		case <-tick.C:
		}
	}
}

// forbiddenLines returns the log lines that report an authorization failure.
func forbiddenLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(strings.ToLower(l), "forbidden") {
			lines = append(lines, l)
		}
	}
	return lines
}
