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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// TestBadInput creates, in one namespace beside a healthy cluster, every bad
// manifest and .conf we know of. Each is rejected by the CRD with a message
// naming the field, or accepted and reported in a condition with one Warning
// Event of ours; none crashes the operator or holds back the healthy cluster.
func TestBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	c := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: crdPaths(t)})
	ctx := context.Background()
	const ns = "bad"
	testutil.CreateNamespace(t, c.Client, ns)
	startOperator(t, c, ns, operatorOptions{workers: 2})

	// Rejected by the CRD: the cases test/compat keeps, each with the words
	// the rejection must contain.
	files, err := filepath.Glob("../compat/testdata/invalid/*.yaml")
	if err != nil || len(files) < 20 {
		t.Fatalf("want at least 20 rejected manifests, found %d (%v)", len(files), err)
	}
	for _, f := range files {
		obj, expect := invalidManifest(t, f)
		t.Run("rejected/"+strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			obj.SetNamespace(ns)
			err := c.Client.Create(ctx, obj)
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want an Invalid rejection, got %v", err)
			}
			for _, want := range expect {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("rejection does not say %q: %v", want, err)
				}
			}
		})
	}

	// Accepted, then reported.
	conf := func(name, key, content string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{key: content}}
	}
	for _, cm := range []*corev1.ConfigMap{
		conf("garbage-ports", "fe.conf", "http_port = abc\nquery_port = 99999\n"),
		conf("no-fe-key", "be.conf", "be_port = 9060\n"),
		conf("garbage-be-ports", "be.conf", "heartbeat_service_port = -1\n"),
		conf("shared-data", "fe.conf", "run_mode = shared_data\n"),
	} {
		if err := c.Client.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	withFE := func(name string, change func(*srv1.StarRocksCluster)) *srv1.StarRocksCluster {
		src := feOnly(ns, name)
		change(src)
		return src
	}
	withBE := func(s *srv1.StarRocksCluster) *srv1.StarRocksBeSpec {
		s.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/be-ubuntu:3.3.2"}}}
		return s.Spec.StarRocksBeSpec
	}
	accepted := []struct {
		src    *srv1.StarRocksCluster
		reason string
		field  string // the message names it
	}{
		{withFE("fe-conf-garbage-ports", func(s *srv1.StarRocksCluster) {
			s.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "garbage-ports", ResolveKey: "fe.conf"}
		}), srv1.ReasonInvalidConfig, "http_port"},
		{withFE("be-conf-garbage-ports", func(s *srv1.StarRocksCluster) {
			withBE(s).ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "garbage-be-ports", ResolveKey: "be.conf"}
		}), srv1.ReasonInvalidConfig, "heartbeat_service_port"},
		{withFE("configmap-missing", func(s *srv1.StarRocksCluster) {
			s.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "deleted-long-ago", ResolveKey: "fe.conf"}
		}), srv1.ReasonConfigMapNotFound, "spec.starRocksFeSpec.configMapInfo"},
		{withFE("configmap-key-missing", func(s *srv1.StarRocksCluster) {
			s.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "no-fe-key", ResolveKey: "fe.conf"}
		}), srv1.ReasonConfigKeyNotFound, "resolveKey"},
		{withFE(strings.Repeat("n", 50), func(*srv1.StarRocksCluster) {}), srv1.ReasonNameTooLong, "metadata.name"},
		{withFE("resolver-injection", func(s *srv1.StarRocksCluster) {
			s.Spec.StarRocksFeProxySpec = &srv1.StarRocksFeProxySpec{Resolver: "10.0.0.10; include /etc/passwd"}
		}), srv1.ReasonInvalidResolver, "spec.starRocksFeProxySpec.resolver"},
		{withFE("hostpath-without-path", func(s *srv1.StarRocksCluster) {
			withBE(s).StorageVolumes = []srv1.StorageVolume{{Name: "be-data", StorageClassName: ptr.To("hostPath"), MountPath: "/opt/starrocks/be/storage"}}
		}), srv1.ReasonInvalidStorageVolume, "storageVolumes"},
		{withFE("claim-without-size", func(s *srv1.StarRocksCluster) {
			withBE(s).StorageVolumes = []srv1.StorageVolume{{Name: "be-data", MountPath: "/opt/starrocks/be/storage"}}
		}), srv1.ReasonInvalidStorageVolume, "storageVolumes"},
		{withFE("recovery-without-snapshot", func(s *srv1.StarRocksCluster) {
			// A recovery restores a shared-data cluster: elsewhere it is ignored, as the upstream ignores it.
			s.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "shared-data", ResolveKey: "fe.conf"}
			s.Spec.DisasterRecovery = &srv1.DisasterRecovery{Enabled: true, Generation: 1}
		}), srv1.ReasonClusterSnapshotMissing, "cluster_snapshot.yaml"},
		{withFE("no-fe", func(s *srv1.StarRocksCluster) {
			s.Spec.StarRocksFeSpec = nil
			withBE(s)
		}), srv1.ReasonFeSpecMissing, "spec.starRocksFeSpec"},
	}
	for _, a := range accepted {
		if err := c.Client.Create(ctx, a.src); err != nil {
			t.Fatalf("creating %s: %v", a.src.Name, err)
		}
	}
	healthy := feOnly(ns, "healthy")
	if err := c.Client.Create(ctx, healthy); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the healthy cluster reconciled beside the bad ones", func(ctx context.Context) (bool, error) {
		return get(ctx, c.Client, ns, "healthy-fe", &appsv1.StatefulSet{}) == nil, nil
	})
	for _, a := range accepted {
		t.Run("reported/"+a.src.Name, func(t *testing.T) {
			src := &srv1.StarRocksCluster{}
			eventually(t, time.Minute, a.reason+" reported", func(ctx context.Context) (bool, error) {
				if err := get(ctx, c.Client, ns, a.src.Name, src); err != nil {
					return false, err
				}
				cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError)
				return cond != nil && cond.Status == metav1.ConditionTrue && cond.Reason == a.reason, nil
			})
			if cond := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionReconcileError); !strings.Contains(cond.Message, a.field) {
				t.Errorf("message does not name %s: %s", a.field, cond.Message)
			}
			var sts appsv1.StatefulSetList
			if err := c.Client.List(ctx, &sts, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/instance": a.src.Name}); err != nil || len(sts.Items) != 0 {
				t.Errorf("bad input wrote %d StatefulSets (%v)", len(sts.Items), err)
			}
			eventually(t, 30*time.Second, "one Warning Event "+a.reason, func(ctx context.Context) (bool, error) {
				return warnings(ctx, t, c, a.src.Name, a.reason) >= 1, nil
			})
			time.Sleep(time.Second) // a repeat would come with the next retry
			if n := warnings(ctx, t, c, a.src.Name, a.reason); n != 1 {
				t.Errorf("%d Warning Events %s, want 1", n, a.reason)
			}
		})
	}
}

func warnings(ctx context.Context, t *testing.T, c *testcluster.Cluster, name, reason string) int {
	t.Helper()
	return warningsIn(ctx, t, c, "bad", name, reason)
}

// warningsIn counts the Warning Events reason about the object name in ns.
func warningsIn(ctx context.Context, t *testing.T, c *testcluster.Cluster, ns, name, reason string) int {
	t.Helper()
	return eventsOf(ctx, t, c, ns, name, reason, corev1.EventTypeWarning)
}

// eventsOf counts the Events of reason on name, of type eventType ("" any).
func eventsOf(ctx context.Context, t *testing.T, c *testcluster.Cluster, ns, name, reason, eventType string) int {
	t.Helper()
	var list eventsv1.EventList
	if err := c.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range list.Items {
		if e.Regarding.Name == name && e.Reason == reason && (eventType == "" || e.Type == eventType) {
			n += int(max(1, e.DeprecatedCount))
			if e.Series != nil {
				n += int(e.Series.Count) - 1
			}
		}
	}
	return n
}

// invalidManifest reads one test/compat invalid manifest and its "# expect:" lines.
func invalidManifest(t *testing.T, file string) (*unstructured.Unstructured, []string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var expect []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "# expect:"); ok {
			expect = append(expect, strings.TrimSpace(v))
		}
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(expect) == 0 {
		t.Fatalf("%s: no '# expect:' line", file)
	}
	return obj, expect
}
