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

package cluster

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/scheme"
)

// These tests drive Reconcile's orchestration with controller-runtime's fake
// client (no API server): what it returns and how often it writes status. The
// API server tests in test/integration cover the same code end to end.

// fakeAPI records the status writes Reconcile sends and fails what a test asks.
type fakeAPI struct {
	mu       sync.Mutex
	statuses []srv1.StarRocksClusterStatus
	// failApply fails the create and apply of objects of this kind.
	failApply string
	// hideStatefulSets makes reads of StatefulSets miss, as a cache that has
	// not yet seen a write does.
	hideStatefulSets bool
	// failConfigMap fails reads of the ConfigMap of this name, as an API
	// server that times out.
	failConfigMap string
	// creates counts create requests by kind, failed ones included.
	creates map[string]int
}

func (f *fakeAPI) createsOf(kind string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.creates[kind]
}

func (f *fakeAPI) statusWrites() []srv1.StarRocksClusterStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]srv1.StarRocksClusterStatus(nil), f.statuses...)
}

func newReconciler(t *testing.T, api *fakeAPI, objs ...client.Object) *Reconciler {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).
		WithStatusSubresource(&srv1.StarRocksCluster{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if _, ok := obj.(*corev1.ConfigMap); ok && key.Name == api.failConfigMap {
					return apierrors.NewTimeoutError("reading took too long", 1)
				}
				if _, ok := obj.(*appsv1.StatefulSet); ok && api.hideStatefulSets {
					return apierrors.NewNotFound(appsv1.Resource("statefulsets"), key.Name)
				}
				return c.Get(ctx, key, obj, opts...)
			},
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				gvk, err := c.GroupVersionKindFor(obj)
				if err == nil {
					api.mu.Lock()
					if api.creates == nil {
						api.creates = map[string]int{}
					}
					api.creates[gvk.Kind]++
					api.mu.Unlock()
				}
				if err == nil && gvk.Kind == api.failApply {
					return errors.New("admission webhook said no")
				}
				return c.Create(ctx, obj, opts...)
			},
			Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
				if body, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err == nil && body["kind"] == api.failApply {
					return errors.New("admission webhook said no")
				}
				return c.Apply(ctx, obj, opts...)
			},
			SubResourceApply: func(ctx context.Context, c client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
				body, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
				if err != nil {
					return err
				}
				var st srv1.StarRocksClusterStatus
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(body["status"].(map[string]any), &st); err != nil {
					return err
				}
				api.mu.Lock()
				api.statuses = append(api.statuses, st)
				api.mu.Unlock()
				// Store it, as the API server would, for the next reconcile to read.
				src := &srv1.StarRocksCluster{}
				if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: body["metadata"].(map[string]any)["name"].(string)}, src); err != nil {
					return err
				}
				src.Status = st
				return c.Status().Update(ctx, src)
			},
		}).Build()
	return NewReconciler(c, events.NewFakeRecorder(100), reconcile.NewConfigSource(c, c), nil)
}

func feCluster() *srv1.StarRocksCluster {
	return &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sr", Generation: 1},
		Spec: srv1.StarRocksClusterSpec{
			StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/fe-ubuntu:3.3.2"}}},
		},
	}
}

func reconcileOnce(t *testing.T, r *Reconciler) (ctrl.Result, error) {
	t.Helper()
	return r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "sr"}})
}

func reconcileErrorReason(st srv1.StarRocksClusterStatus) string {
	for _, c := range st.Conditions {
		if c.Type == srv1.ConditionReconcileError && c.Status == metav1.ConditionTrue {
			return c.Reason
		}
	}
	return ""
}

func TestASpecErrorIsReportedAndNotRequeued(t *testing.T) {
	src := feCluster()
	src.Spec.StarRocksFeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "missing", ResolveKey: "fe.conf"}
	api := &fakeAPI{}
	r := newReconciler(t, api, src)
	res, err := reconcileOnce(t, r)
	if err != nil || res != (ctrl.Result{}) {
		t.Fatalf("Reconcile = %+v, %v; want no requeue and no error: only the user can fix it", res, err)
	}
	st := api.statusWrites()
	if len(st) != 1 || reconcileErrorReason(st[0]) != srv1.ReasonConfigMapNotFound {
		t.Fatalf("status writes %+v; want one with ReconcileError reason %s", st, srv1.ReasonConfigMapNotFound)
	}
	var list appsv1.StatefulSetList
	if err := r.Client.List(t.Context(), &list); err != nil || len(list.Items) != 0 {
		t.Fatalf("StatefulSets %v (%v); a spec error must write no object", list.Items, err)
	}
}

func TestANameTooLongForItsChildrenIsASpecError(t *testing.T) {
	src := feCluster()
	src.Name = strings.Repeat("n", 50) // <name>-fe is 53 characters: its revision label would exceed 63
	api := &fakeAPI{}
	r := newReconciler(t, api, src)
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(src)})
	if err != nil || res != (ctrl.Result{}) {
		t.Fatalf("Reconcile = %+v, %v", res, err)
	}
	st := api.statusWrites()
	if len(st) != 1 || reconcileErrorReason(st[0]) != srv1.ReasonNameTooLong {
		t.Fatalf("status writes %+v; want one with reason %s", st, srv1.ReasonNameTooLong)
	}
	if msg := meta.FindStatusCondition(st[0].Conditions, srv1.ConditionReconcileError).Message; !strings.Contains(msg, "metadata.name") {
		t.Errorf("message %q does not name the field", msg)
	}
}

func TestAFailedSyncWritesASecondStatusWithTheError(t *testing.T) {
	api := &fakeAPI{failApply: "StatefulSet"}
	r := newReconciler(t, api, feCluster())
	if _, err := reconcileOnce(t, r); err == nil {
		t.Fatal("Reconcile succeeded although the StatefulSet apply failed; want the error, for back-off")
	}
	st := api.statusWrites()
	if len(st) != 2 {
		t.Fatalf("%d status writes, want 2: one beside the writes, one with their error", len(st))
	}
	if reconcileErrorReason(st[0]) != "" || reconcileErrorReason(st[1]) != srv1.ReasonApplyFailed {
		t.Errorf("ReconcileError reasons %q then %q; want none, then %s", reconcileErrorReason(st[0]), reconcileErrorReason(st[1]), srv1.ReasonApplyFailed)
	}
}

// A persistent error (a full service CIDR, a quota, a webhook) must cost only
// the failing request per retry: no status write and no Event while the error
// stays the same.
func TestARepeatedErrorCostsNoStatusWrite(t *testing.T) {
	api := &fakeAPI{failApply: "StatefulSet"}
	r := newReconciler(t, api, feCluster())
	recorder := r.Recorder.(*events.FakeRecorder)
	if _, err := reconcileOnce(t, r); err == nil {
		t.Fatal("want the apply error")
	}
	first := len(api.statusWrites())
	drain(recorder)
	for range 3 {
		if _, err := reconcileOnce(t, r); err == nil {
			t.Fatal("want the apply error")
		}
	}
	if n := len(api.statusWrites()) - first; n != 0 {
		t.Errorf("%d status writes in 3 retries of the same error, want 0", n)
	}
	if got := drain(recorder); len(got) != 0 {
		t.Errorf("events in 3 retries of the same error: %q, want none", got)
	}
}

func drain(r *events.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func TestAWriteTheCacheHasNotShownYetRequeuesAfterFiveSeconds(t *testing.T) {
	api := &fakeAPI{}
	r := newReconciler(t, api, feCluster())
	if res, err := reconcileOnce(t, r); err != nil || res.RequeueAfter != 0 {
		t.Fatalf("first Reconcile = %+v, %v", res, err)
	}
	api.hideStatefulSets = true // the cache lags behind the StatefulSet we just wrote
	res, err := reconcileOnce(t, r)
	if err != nil || res.RequeueAfter != reconcile.PendingRequeue {
		t.Fatalf("Reconcile = %+v, %v; want a requeue after %s and no second write", res, err, reconcile.PendingRequeue)
	}
}

func TestADeniedNamespaceIsLeftAlone(t *testing.T) {
	api := &fakeAPI{}
	r := newReconciler(t, api, feCluster())
	r.DenyList = []string{"ns"}
	if res, err := reconcileOnce(t, r); err != nil || res != (ctrl.Result{}) {
		t.Fatalf("Reconcile = %+v, %v", res, err)
	}
	var list appsv1.StatefulSetList
	if err := r.Client.List(t.Context(), &list); err != nil || len(list.Items) != 0 || len(api.statusWrites()) != 0 {
		t.Fatalf("a cluster in a denied namespace got %d StatefulSets and %d status writes", len(list.Items), len(api.statusWrites()))
	}
}

func TestAMissingConfigOfARunningComponentWarnsAndKeepsItsObjects(t *testing.T) {
	src := feCluster()
	src.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{
		Image: "starrocks/be-ubuntu:3.3.2", ConfigMapInfo: srv1.ConfigMapInfo{ConfigMapName: "gone", ResolveKey: "be.conf"}}}}
	liveBE := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sr-be", Labels: map[string]string{"live": "yes"}}}
	api := &fakeAPI{}
	r := newReconciler(t, api, src, liveBE)
	recorder := r.Recorder.(*events.FakeRecorder)
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatalf("Reconcile: %v; a running component's missing .conf must not fail the cluster", err)
	}
	st := api.statusWrites()
	if len(st) == 0 {
		t.Fatal("no status written")
	}
	last := st[len(st)-1]
	if last.Phase == srv1.PhaseFailed || reconcileErrorReason(last) != "" {
		t.Errorf("phase %q, ReconcileError %q; want neither failed nor a reconcile error", last.Phase, reconcileErrorReason(last))
	}
	var warned bool
	for _, c := range last.Conditions {
		warned = warned || (c.Type == srv1.ConditionConfigUnavailable && c.Status == metav1.ConditionTrue && c.Reason == srv1.ReasonConfigMapNotFound)
	}
	if !warned {
		t.Errorf("conditions %+v; want ConfigUnavailable=True (ConfigMapNotFound)", last.Conditions)
	}
	var be appsv1.StatefulSet
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "sr-be"}, &be); err != nil || be.Labels["live"] != "yes" || len(be.Spec.Template.Spec.Containers) != 0 {
		t.Errorf("the running BE was rewritten: %+v (%v)", be.ObjectMeta, err)
	}
	var fe appsv1.StatefulSet
	if err := r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "sr-fe"}, &fe); err != nil {
		t.Errorf("FE not reconciled beside the held BE: %v", err)
	}
	close(recorder.Events)
	var reasons []string
	for e := range recorder.Events {
		reasons = append(reasons, e)
	}
	if !containsPrefix(reasons, "Warning ConfigMapNotFound") || !containsPrefix(reasons, "Warning SyncBeFailed") {
		t.Errorf("events %q; want our ConfigMapNotFound and the upstream's SyncBeFailed", reasons)
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func TestTheReadyGaugeFollowsTheClusterAndGoesWithIt(t *testing.T) {
	api := &fakeAPI{}
	src := feCluster()
	r := newReconciler(t, api, src)
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	gauge := func() (float64, bool) {
		for _, m := range collect(t, metrics.ClusterReady) {
			if labelsOf(m)["namespace"] == "ns" && labelsOf(m)["name"] == "sr" {
				return m.GetGauge().GetValue(), true
			}
		}
		return 0, false
	}
	if v, ok := gauge(); !ok || v != 0 {
		t.Errorf("a new cluster's gauge is %v (present %v), want 0: not ready yet", v, ok)
	}
	if err := r.Client.Delete(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	if _, ok := gauge(); ok {
		t.Error("a deleted cluster still has a ready gauge")
	}
}

func collect(t *testing.T, c prometheus.Collector) []*dto.Metric {
	t.Helper()
	ch := make(chan prometheus.Metric, 100)
	c.Collect(ch)
	close(ch)
	var out []*dto.Metric
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		out = append(out, &d)
	}
	return out
}

func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// With several workers, a new cluster's first reconcile writes what FE's
// pods need and nothing else; the second writes the client Service and the
// status, and one Event tells both.

func TestANameServicesCannotTakeIsASpecErrorNamingIt(t *testing.T) {
	for _, name := range []string{"tenant.a", "1tenant"} {
		src := feCluster()
		src.Name = name
		api := &fakeAPI{}
		r := newReconciler(t, api, src)
		res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(src)})
		if err != nil || res != (ctrl.Result{}) {
			t.Fatalf("%s: Reconcile = %+v, %v; want no requeue and no error: only the user can fix it", name, res, err)
		}
		st := api.statusWrites()
		if len(st) != 1 || reconcileErrorReason(st[0]) != srv1.ReasonInvalidName {
			t.Fatalf("%s: status writes %+v; want one with reason %s", name, st, srv1.ReasonInvalidName)
		}
		if msg := meta.FindStatusCondition(st[0].Conditions, srv1.ConditionReconcileError).Message; !strings.Contains(msg, "metadata.name") || !strings.Contains(msg, name) {
			t.Errorf("%s: message %q does not name the field", name, msg)
		}
		var list appsv1.StatefulSetList
		if err := r.Client.List(t.Context(), &list); err != nil || len(list.Items) != 0 {
			t.Errorf("%s: StatefulSets %v (%v); a spec error must write no object", name, list.Items, err)
		}
	}
}
