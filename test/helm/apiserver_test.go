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
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/test/testcluster"
)

// vendoredCRDs are the CRDs that installing the parent chart installs.
func vendoredCRDs(t testing.TB) string {
	t.Helper()
	return filepath.Join(chartPath(t, parentChart), "charts", "operator", "crds")
}

// TestRenderedManifestsAreAcceptedByAPIServer renders the parent chart and
// creates every object with a server-side dry run, so that the real API server
// validates them (schemas, the CRDs' CEL rules, RBAC references) without
// running anything. Strict field validation rejects fields the API does not
// know, which the API server would otherwise drop with a warning.
func TestRenderedManifestsAreAcceptedByAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	cl := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: []string{vendoredCRDs(t)}})
	ctx := t.Context()
	for _, ns := range []string{"starrocks-system", "starrocks"} {
		if err := cl.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatalf("creating namespace %s: %v", ns, err)
		}
	}

	cases := []struct {
		name   string
		values string
		// wantKinds must each be rendered (at least once).
		wantKinds []string
	}{{
		name:      "cluster-wide operator with the default StarRocks cluster",
		wantKinds: []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Service", "Deployment", "ConfigMap", "StarRocksCluster"},
	}, {
		name: "operator restricted to one namespace, with a cluster there using every component",
		values: `operator:
  starrocksOperator:
    watchNamespace: starrocks
    denyList: [kube-system]
    maxConcurrentReconciles: 16
    syncPeriod: 30m
    kubeApiQps: 100
    kubeApiBurst: 200
    dnsDomainSuffix: example.internal
    env:
      - name: EXTRA
        value: "1"
starrocks:
  starrocksCluster:
    name: analytics
    namespace: starrocks
    enabledCn: true
    waitForFullRollout: true
  starrocksFESpec:
    storageSpec:
      name: fe
      storageClassName: standard
    emptyDirs:
      - name: tmp
        mountPath: /tmp
    readinessProbeFailureSeconds: 0
    service:
      type: NodePort
      ports:
        - name: query
          port: 9030
          containerPort: 9030
          nodePort: 30030
  starrocksBeSpec:
    storageSpec:
      name: be
  starrocksCnSpec:
    autoScalingPolicy:
      minReplicas: 1
      maxReplicas: 4
      hpaPolicy:
        metrics:
          - type: Resource
            resource:
              name: cpu
              target:
                type: Utilization
                averageUtilization: 60
  starrocksFeProxySpec:
    enabled: true
`,
		wantKinds: []string{"ServiceAccount", "Role", "RoleBinding", "Service", "Deployment", "ConfigMap", "StarRocksCluster"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := mustRender(t, parentChart, "starrocks-system", tc.values)
			for _, kind := range tc.wantKinds {
				if len(find(objs, kind)) == 0 {
					t.Errorf("no %s rendered: %s", kind, describe(objs))
				}
			}
			for _, obj := range objs {
				namespaced, err := cl.Client.IsObjectNamespaced(obj)
				if err != nil {
					t.Errorf("%s %s: %v", obj.GetKind(), obj.GetName(), err)
					continue
				}
				// kubectl would put an object without a namespace into the current
				// context's namespace, not the release's: the chart must say.
				if namespaced && obj.GetNamespace() == "" {
					t.Errorf("%s %s has no namespace", obj.GetKind(), obj.GetName())
					continue
				}
				if err := cl.Client.Create(ctx, obj, client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
					t.Errorf("the API server rejects %s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
				}
			}
			if t.Failed() {
				t.Logf("rendered: %s", describe(objs))
			}
		})
	}

	// Every upstream values file, through our charts: "unlimited" limits,
	// map-form env vars and probe seconds given as strings must all reach the
	// API server in a form it accepts.
	t.Run("upstream values files", func(t *testing.T) {
		for _, c := range loadUpstreamCases(t) {
			t.Run(c.name, func(t *testing.T) {
				chart := parentChart
				if c.name == "warehouse" {
					chart = warehouseChart
				}
				objs, err := renderWith(t, chart, renderOptions{release: c.release, namespace: "starrocks", apiVersions: c.apiVersions}, c.values)
				if err != nil {
					t.Fatalf("rendering: %v", err)
				}
				for _, obj := range objs {
					if obj.GetAPIVersion() == "monitoring.coreos.com/v1" {
						continue // the Prometheus operator's CRDs are not installed here
					}
					if obj.GetNamespace() == "" {
						if namespaced, _ := cl.Client.IsObjectNamespaced(obj); namespaced {
							obj.SetNamespace("starrocks")
						}
					}
					if err := cl.Client.Create(ctx, obj, client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
						t.Errorf("the API server rejects %s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
					}
				}
			})
		}
	})
}
