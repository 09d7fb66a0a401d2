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

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// Cost is the API server's CPU for one kind of request, sent n times.
type Cost struct {
	Request string `json:"request"`
	N       int    `json:"n"`
	// APIServerMs and EtcdMs are CPU milliseconds per request.
	APIServerMs float64 `json:"apiServerMs"`
	EtcdMs      float64 `json:"etcdMs"`
	// Seconds is how long the n requests took, 32 at a time.
	Seconds float64 `json:"seconds"`
}

// RequestCosts measures, on a fresh control plane with srbench's audit
// policy, what each request a new FE-only cluster costs the API server,
// as the operator's user, n of each, 32 at a time: the operator's creates
// of the FE StatefulSet and Services as JSON (unstructured, as before
// protobuf) and as protobuf (typed), its status apply and its Event, and
// the benchmark's create of the cluster.
func RequestCosts(ctx context.Context, repoRoot string, n int, progress io.Writer) ([]Cost, error) {
	dir, err := os.MkdirTemp("", "srbench-costs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy(OperatorUser, false)), 0o600); err != nil {
		return nil, err
	}
	cluster, err := testcluster.Start(ctx, testcluster.Options{
		CRDDirectoryPaths: []string{filepath.Join(repoRoot, "config", "crd", "bases")},
		AuditPolicyFile:   policy,
		AuditLogPath:      filepath.Join(dir, "audit.log"),
	})
	if err != nil {
		return nil, err
	}
	defer func() { _ = cluster.Stop() }()
	user, _, err := cluster.AddUser(OperatorUser, "system:masters")
	if err != nil {
		return nil, err
	}
	user.QPS, user.Burst = -1, 0
	op, err := client.New(user, client.Options{Scheme: cluster.Scheme})
	if err != nil {
		return nil, err
	}

	// One namespace per way of sending, each with n clusters.
	clusters := func(ns string) ([]*srv1.StarRocksCluster, error) {
		if err := cluster.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return nil, err
		}
		out := make([]*srv1.StarRocksCluster, n)
		for i := range out {
			out[i] = newCluster(Preset{}, i)
			out[i].Namespace = ns
		}
		return out, nil
	}
	measure := func(what string, each func(i int) error) (Cost, error) {
		fmt.Fprintf(progress, "srbench: request costs: %s, %d times\n", what, n)
		time.Sleep(time.Second) // let the last step's watch events go out
		before := controlPlaneCPU()
		start := time.Now()
		if err := forEach(n, 32, each); err != nil {
			return Cost{}, fmt.Errorf("%s: %w", what, err)
		}
		took := time.Since(start)
		time.Sleep(time.Second) // and this step's
		after := controlPlaneCPU()
		per := func(k string) float64 { return 1000 * (after[k] - before[k]) / float64(n) }
		return Cost{Request: what, N: n, APIServerMs: per("kube-apiserver"), EtcdMs: per("etcd"), Seconds: took.Seconds()}, nil
	}
	// Each kind of request as JSON, then as protobuf, into a namespace of
	// each: the API server holds as many objects for both.
	wires := []string{"JSON", "protobuf"}
	srcs := map[string][]*srv1.StarRocksCluster{}
	for _, wire := range wires {
		if srcs[wire], err = clusters("costs-" + strings.ToLower(wire)); err != nil {
			return nil, err
		}
	}
	var costs []Cost
	step := func(what string, each func(i int) error) error {
		c, err := measure(what, each)
		costs = append(costs, c)
		return err
	}
	for _, wire := range wires {
		if err := step("create starrocksclusters (the benchmark's, JSON)", func(i int) error { return cluster.Client.Create(ctx, srcs[wire][i]) }); err != nil {
			return nil, err
		}
	}
	create := func(wire string, pick func(resources.ClusterObjects) client.Object) func(i int) error {
		return func(i int) error {
			obj := pick(resources.Build(srcs[wire][i], resources.Configs{}))
			u, _, err := apply.Desired(obj)
			if err != nil {
				return err
			}
			if wire == "protobuf" {
				typed := obj.DeepCopyObject().(client.Object)
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
					return err
				}
				return op.Create(ctx, typed, client.FieldOwner(reconcile.FieldOwner))
			}
			gvk, err := op.GroupVersionKindFor(obj)
			if err != nil {
				return err
			}
			u.SetGroupVersionKind(gvk)
			return op.Create(ctx, u, client.FieldOwner(reconcile.FieldOwner))
		}
	}
	for _, kind := range []struct {
		what string
		pick func(resources.ClusterObjects) client.Object
	}{
		{"create statefulsets -fe", func(o resources.ClusterObjects) client.Object { return o.StatefulSet(resources.ComponentFE) }},
		{"create services -fe-search (headless)", func(o resources.ClusterObjects) client.Object { return o.FE.SearchService }},
		{"create services -fe-service (ClusterIP)", func(o resources.ClusterObjects) client.Object { return o.FE.Service }},
	} {
		for _, wire := range wires {
			if err := step(kind.what+", "+wire, create(wire, kind.pick)); err != nil {
				return nil, err
			}
		}
	}
	for _, wire := range wires {
		ns := "costs-" + strings.ToLower(wire)
		if err := step("create events, "+wire, func(i int) error {
			src := srcs[wire][i]
			ev := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s.%d", src.Name, i)},
				EventTime: metav1.NowMicro(), ReportingController: "starrocks-operator", ReportingInstance: "starrocks-operator",
				Action: "Created", Reason: "Created", Type: corev1.EventTypeNormal, Note: "created Service " + src.Name + "-fe-search, StatefulSet " + src.Name + "-fe",
				Regarding: corev1.ObjectReference{APIVersion: "starrocks.com/v1", Kind: "StarRocksCluster", Namespace: ns, Name: src.Name}}
			if wire == "protobuf" {
				return op.Create(ctx, ev)
			}
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ev)
			if err != nil {
				return err
			}
			u := &unstructured.Unstructured{Object: m}
			u.SetAPIVersion("events.k8s.io/v1")
			u.SetKind("Event")
			return op.Create(ctx, u)
		}); err != nil {
			return nil, err
		}
	}
	// A custom resource's status goes as JSON whatever the client: the
	// operator's server-side apply, and for comparison a merge patch.
	status := func(name string) map[string]any {
		return map[string]any{"phase": "running", "observedGeneration": int64(1), "starRocksFeStatus": map[string]any{"serviceName": name + "-fe-service", "phase": "running"}}
	}
	if err := step("apply starrocksclusters/status (JSON, the operator's)", func(i int) error {
		src := srcs["JSON"][i]
		u := &unstructured.Unstructured{Object: map[string]any{"status": status(src.Name)}}
		u.SetGroupVersionKind(srv1.GroupVersion.WithKind("StarRocksCluster"))
		u.SetNamespace(src.Namespace)
		u.SetName(src.Name)
		return op.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(reconcile.FieldOwner), client.ForceOwnership)
	}); err != nil {
		return nil, err
	}
	if err := step("merge patch starrocksclusters/status (JSON, for comparison)", func(i int) error {
		src := srcs["protobuf"][i]
		body, err := json.Marshal(map[string]any{"status": status(src.Name)})
		if err != nil {
			return err
		}
		return op.Status().Patch(ctx, src.DeepCopy(), client.RawPatch(types.MergePatchType, body), client.FieldOwner(reconcile.FieldOwner))
	}); err != nil {
		return nil, err
	}
	return costs, nil
}

// CostsMarkdown is the table of costs.
func CostsMarkdown(costs []Cost) string {
	var b strings.Builder
	b.WriteString("| request | n | kube-apiserver CPU ms each | etcd CPU ms each | seconds for all, 32 at a time |\n|---|--:|--:|--:|--:|\n")
	for _, c := range costs {
		fmt.Fprintf(&b, "| %s | %d | %.2f | %.2f | %.2f |\n", c.Request, c.N, c.APIServerMs, c.EtcdMs, c.Seconds)
	}
	return b.String()
}
