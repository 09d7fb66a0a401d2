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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/srscale/starrocks-operator/internal/crdcheck"
	"github.com/srscale/starrocks-operator/internal/test/upstreamref"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

var crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// readCRDs parses every CRD file of dir.
func readCRDs(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s: %v", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(b, &u.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, u)
	}
	return out
}

// withoutOurStatusFields is a CRD as the upstream ships it: its status has no
// conditions, no observedGeneration, no nodes figures.
func withoutOurStatusFields(crd *unstructured.Unstructured) *unstructured.Unstructured {
	crd = crd.DeepCopy()
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		vm := v.(map[string]any)
		props, _, _ := unstructured.NestedMap(vm, "schema", "openAPIV3Schema", "properties", "status", "properties")
		delete(props, "conditions")
		delete(props, "observedGeneration")
		unstructured.RemoveNestedField(props, "starRocksFeStatus", "properties", "nodes")
		_ = unstructured.SetNestedMap(vm, props, "schema", "openAPIV3Schema", "properties", "status", "properties")
	}
	_ = unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions")
	return crd
}

// installCRDs makes the cluster serve exactly these CRDs, as a user's cluster
// would after installing a chart: created, or replaced when they exist.
func installCRDs(t *testing.T, c client.Client, crds []*unstructured.Unstructured) {
	t.Helper()
	ctx := t.Context()
	for _, crd := range crds {
		crd = crd.DeepCopy()
		existing := &unstructured.Unstructured{}
		existing.SetGroupVersionKind(crdGVK)
		err := c.Get(ctx, client.ObjectKey{Name: crd.GetName()}, existing)
		switch {
		case apierrors.IsNotFound(err):
			err = c.Create(ctx, crd, client.FieldOwner("helm"))
		case err == nil:
			crd.SetResourceVersion(existing.GetResourceVersion())
			err = c.Update(ctx, crd, client.FieldOwner("helm"))
		}
		if err != nil {
			t.Fatalf("installing CRD %s: %v", crd.GetName(), err)
		}
	}
	waitEstablished(t, c, crds)
}

// applyCRDsServerSide is the documented upgrade step:
// kubectl apply --server-side --force-conflicts -f charts/operator/crds/
func applyCRDsServerSide(t *testing.T, c client.Client, crds []*unstructured.Unstructured) {
	t.Helper()
	for _, crd := range crds {
		crd = crd.DeepCopy()
		crd.SetGroupVersionKind(crdGVK)
		if err := c.Apply(t.Context(), client.ApplyConfigurationFromUnstructured(crd), client.FieldOwner("kubectl"), client.ForceOwnership); err != nil {
			t.Fatalf("kubectl apply --server-side of CRD %s: %v", crd.GetName(), err)
		}
	}
	waitEstablished(t, c, crds)
}

func waitEstablished(t *testing.T, c client.Client, crds []*unstructured.Unstructured) {
	t.Helper()
	for _, crd := range crds {
		err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(crdGVK)
			if err := c.Get(ctx, client.ObjectKey{Name: crd.GetName()}, got); err != nil {
				return false, nil
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, cond := range conds {
				m := cond.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("CRD %s not established: %v", crd.GetName(), err)
		}
	}
}

// conditionsSurvive writes a condition into the cluster's status and says
// whether the API server kept it (a CRD without status.conditions prunes it).
func conditionsSurvive(t *testing.T, c client.Client, key client.ObjectKey) bool {
	t.Helper()
	ctx := t.Context()
	cr := &unstructured.Unstructured{}
	cr.SetGroupVersionKind(schema.GroupVersionKind{Group: "starrocks.com", Version: "v1", Kind: "StarRocksCluster"})
	// The client's discovery may not know a type that was just (re)installed.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return c.Get(ctx, key, cr) == nil, nil
	})
	if err != nil {
		t.Fatalf("reading StarRocksCluster %s: %v", key, err)
	}
	cond := map[string]any{"type": "Ready", "status": "False", "reason": "Probe", "message": "written by the test",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339), "observedGeneration": int64(1)}
	_ = unstructured.SetNestedSlice(cr.Object, []any{cond}, "status", "conditions")
	_ = unstructured.SetNestedField(cr.Object, "pending", "status", "phase")
	if err := c.Status().Update(ctx, cr); err != nil {
		t.Fatalf("writing the status of %s: %v", key, err)
	}
	if err := c.Get(ctx, key, cr); err != nil {
		t.Fatal(err)
	}
	conds, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	return len(conds) == 1
}

// TestCRDsOnUpgrade proves the documented CRD step against a real API server:
// with the upstream CRDs (no status.conditions) in place, which is what
// `helm upgrade` leaves behind, the operator's start-up check names what is
// missing and the API server drops the conditions it writes; after
// `kubectl apply --server-side --force-conflicts -f charts/operator/crds/`
// the check is clean, the conditions stay, and the existing cluster is the
// same object.
func TestCRDsOnUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	cl := testcluster.ForTest(t, testcluster.Options{})
	ctx := t.Context()
	ours := readCRDs(t, vendoredCRDs(t))
	var old []*unstructured.Unstructured
	for _, crd := range ours {
		old = append(old, withoutOurStatusFields(crd))
	}
	installCRDs(t, cl.Client, old)

	ns := "crd-step"
	if err := cl.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	cr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "starrocks.com/v1", "kind": "StarRocksCluster",
		"metadata": map[string]any{"name": "kube-starrocks", "namespace": ns},
		"spec":     map[string]any{"starRocksFeSpec": map[string]any{"image": "starrocks/fe-ubuntu:3.3.9"}},
	}}
	// The client discovers the new type on a miss; the API server may take a moment to serve it.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := cl.Client.Create(ctx, cr)
		return err == nil, client.IgnoreNotFound(ignoreNoMatch(err))
	}); err != nil {
		t.Fatalf("creating the StarRocksCluster: %v", err)
	}
	uid := cr.GetUID()
	key := client.ObjectKeyFromObject(cr)

	findings, err := crdcheck.Check(ctx, cl.Client)
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 2 {
		t.Errorf("with upstream-like CRDs the check finds %v, want both CRDs lacking conditions and observedGeneration", findings)
	}
	for _, f := range findings {
		if !slices.Equal(f.Missing, crdcheck.Required[f.CRD]) {
			t.Errorf("%s, want it to lack %v", f, crdcheck.Required[f.CRD])
		}
	}
	if conditionsSurvive(t, cl.Client, key) {
		t.Errorf("the upstream-like CRD kept status.conditions; the test cannot show the step matters")
	}

	applyCRDsServerSide(t, cl.Client, ours)

	if findings, err := crdcheck.Check(ctx, cl.Client); err != nil || len(findings) != 0 {
		t.Errorf("after the documented step the check finds %v (err %v), want nothing", findings, err)
	}
	if !conditionsSurvive(t, cl.Client, key) {
		t.Errorf("after the documented step the API server still drops status.conditions")
	}
	if err := cl.Client.Get(ctx, key, cr); err != nil || cr.GetUID() != uid {
		t.Errorf("the StarRocksCluster did not survive the CRD step: uid %s -> %s (err %v)", uid, cr.GetUID(), err)
	}

	t.Run("helm upgrade from the upstream chart", func(t *testing.T) {
		testHelmUpgradeFromUpstream(t, cl)
	})
}

// upgradeCases are the upstream renderings applied, then upgraded.
var upgradeCases = []string{"defaults", "storage-layout", "init-password-timezone", "operator-options", "config-entrypoint-sidecars"}

// testHelmUpgradeFromUpstream applies an upstream rendering (with the upstream
// CRDs) as `helm install` of the upstream chart would, adds the StatefulSets
// and PVCs the upstream operator creates for it, then upgrades as
// `helm upgrade <release> charts/kube-starrocks -f values.yaml` would after the
// documented CRD step: the CRDs first, then every object of our rendering
// applied over the old one (server-side, dry run first), and the objects of
// the old release that our rendering lacks deleted. The StarRocksCluster,
// its StatefulSets and its PVCs must be the same objects afterwards, and no
// apply may fail (an immutable field such as the operator's selector would).
func testHelmUpgradeFromUpstream(t *testing.T, cl *testcluster.Cluster) {
	upstreamCRDs := readCRDs(t, upstreamref.Path(t, "upstream-crds"))
	cases := map[string]upstreamCase{}
	for _, c := range loadUpstreamCases(t) {
		cases[c.name] = c
	}
	for _, name := range upgradeCases {
		c, ok := cases[name]
		if !ok {
			t.Fatalf("no upstream case %s", name)
		}
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			installCRDs(t, cl.Client, upstreamCRDs)
			ns := "up-" + name
			if err := cl.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				t.Fatal(err)
			}
			// The upstream release, moved to this case's namespace.
			var old []*unstructured.Unstructured
			for _, o := range c.rendered {
				if o.GetAPIVersion() == "monitoring.coreos.com/v1" {
					continue
				}
				o = o.DeepCopy()
				if namespaced, _ := cl.Client.IsObjectNamespaced(o); namespaced {
					o.SetNamespace(ns)
				}
				moveSubjects(o, c.namespace, ns)
				if err := cl.Client.Create(ctx, o, client.FieldOwner("helm")); err != nil {
					if apierrors.IsAlreadyExists(err) && !mustBeNew(o) {
						// Cluster-wide RBAC shared by the cases: the upgrade applies it again.
						continue
					}
					t.Fatalf("installing upstream's %s %s: %v", o.GetKind(), o.GetName(), err)
				}
				old = append(old, o)
			}
			cluster := only(t, old, "StarRocksCluster")
			owned := upstreamOperatorObjects(t, cl.Client, cluster)

			// The documented step, then the upgrade.
			applyCRDsServerSide(t, cl.Client, readCRDs(t, vendoredCRDs(t)))
			// The values name the release's namespace where they restrict the operator to it.
			values := strings.ReplaceAll(c.values, "watchNamespace: "+c.namespace, "watchNamespace: "+ns)
			ours, err := renderWith(t, parentChart, renderOptions{release: c.release, namespace: ns, apiVersions: c.apiVersions}, values)
			if err != nil {
				t.Fatalf("our chart rejects the upstream values: %v", err)
			}
			newKeys := map[string]bool{}
			for _, o := range ours {
				if o.GetAPIVersion() == "monitoring.coreos.com/v1" {
					continue
				}
				moveSubjects(o, c.namespace, ns)
				if o.GetNamespace() == "" {
					if namespaced, _ := cl.Client.IsObjectNamespaced(o); namespaced {
						o.SetNamespace(ns)
					}
				}
				newKeys[objectKey(o, ns)] = true
				for _, dry := range []bool{true, false} {
					opts := []client.ApplyOption{client.FieldOwner("helm"), client.ForceOwnership}
					if dry {
						opts = append(opts, client.DryRunAll)
					}
					if err := cl.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), opts...); err != nil {
						t.Errorf("upgrading %s %s/%s (dry run %v): %v", o.GetKind(), o.GetNamespace(), o.GetName(), dry, err)
						break
					}
				}
			}
			for _, o := range old {
				if k := objectKey(o, ns); !newKeys[k] {
					t.Errorf("helm upgrade would delete %s: our rendering lacks it", k)
				}
			}

			// The same cluster, StatefulSets and PVCs: same UIDs, still owned.
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(cluster.GroupVersionKind())
			if err := cl.Client.Get(ctx, client.ObjectKeyFromObject(cluster), got); err != nil {
				t.Fatalf("StarRocksCluster %s after the upgrade: %v", cluster.GetName(), err)
			}
			if got.GetUID() != cluster.GetUID() {
				t.Errorf("StarRocksCluster %s was replaced", cluster.GetName())
			}
			for _, o := range owned {
				cur := &unstructured.Unstructured{}
				cur.SetGroupVersionKind(o.GroupVersionKind())
				if err := cl.Client.Get(ctx, client.ObjectKeyFromObject(o), cur); err != nil || cur.GetUID() != o.GetUID() {
					t.Errorf("%s %s did not survive the upgrade (err %v)", o.GetKind(), o.GetName(), err)
				}
			}
		})
	}
}

func ignoreNoMatch(err error) error {
	if meta.IsNoMatchError(err) {
		return nil
	}
	return err
}

// mustBeNew says whether an upstream object belongs to one case alone.
func mustBeNew(o *unstructured.Unstructured) bool {
	return !slices.Contains(clusterScopedKinds, o.GetKind())
}

// moveSubjects points a binding's subjects in namespace from to namespace to.
func moveSubjects(o *unstructured.Unstructured, from, to string) {
	subjects, ok, _ := unstructured.NestedSlice(o.Object, "subjects")
	if !ok {
		return
	}
	for _, s := range subjects {
		if m := s.(map[string]any); m["namespace"] == from {
			m["namespace"] = to
		}
	}
	_ = unstructured.SetNestedSlice(o.Object, subjects, "subjects")
}

// upstreamOperatorObjects creates what the upstream operator made for the
// cluster and a helm upgrade must leave alone: the FE and BE StatefulSets
// (owned by the cluster, as upstream names them) and the PVCs of their first
// pods. It returns them as created.
func upstreamOperatorObjects(t *testing.T, c client.Client, cluster *unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	ctx := t.Context()
	name, ns := cluster.GetName(), cluster.GetNamespace()
	owner := map[string]any{"apiVersion": "starrocks.com/v1", "kind": "StarRocksCluster", "name": name,
		"uid": string(cluster.GetUID()), "controller": true, "blockOwnerDeletion": true}
	var out []*unstructured.Unstructured
	for _, comp := range []struct{ kind, volume string }{{"fe", "fe-meta"}, {"be", "be-data"}} {
		sts := fmt.Sprintf("%s-%s", name, comp.kind)
		labels := map[string]any{"app.kubernetes.io/component": comp.kind, "app.starrocks.ownerreference/name": sts}
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "StatefulSet",
			"metadata": map[string]any{"name": sts, "namespace": ns, "ownerReferences": []any{owner}},
			"spec": map[string]any{
				"serviceName": sts + "-search",
				"selector":    map[string]any{"matchLabels": labels},
				"template": map[string]any{
					"metadata": map[string]any{"labels": labels},
					"spec":     map[string]any{"containers": []any{map[string]any{"name": comp.kind, "image": "starrocks/" + comp.kind + "-ubuntu:3.3.9"}}},
				},
				"volumeClaimTemplates": []any{map[string]any{
					"metadata": map[string]any{"name": comp.volume},
					"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"},
						"resources": map[string]any{"requests": map[string]any{"storage": "10Gi"}}},
				}},
			},
		}}
		pvc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "PersistentVolumeClaim",
			"metadata": map[string]any{"name": comp.volume + "-" + sts + "-0", "namespace": ns, "labels": labels},
			"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"},
				"resources": map[string]any{"requests": map[string]any{"storage": "10Gi"}}},
		}}
		for _, o := range []*unstructured.Unstructured{obj, pvc} {
			if err := c.Create(ctx, o, client.FieldOwner("starrockscluster-operator")); err != nil {
				t.Fatalf("creating the upstream operator's %s %s: %v", o.GetKind(), o.GetName(), err)
			}
			out = append(out, o)
		}
	}
	return out
}
