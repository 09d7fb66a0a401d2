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
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

func TestANewClusterStartsInTwoStepsWithOneEvent(t *testing.T) {
	api := &fakeAPI{}
	r := newReconciler(t, api, feCluster())
	r.StartApart = true
	recorder := r.Recorder.(*events.FakeRecorder)
	res, err := reconcileOnce(t, r)
	if err != nil || res.RequeueAfter != reconcile.PendingRequeue || res.Priority == nil || *res.Priority != reconcile.FollowUpPriority {
		t.Fatalf("first step = %+v, %v; want a fallback requeue after %s at priority %d", res, err, reconcile.PendingRequeue, reconcile.FollowUpPriority)
	}
	exists := func(obj client.Object, name string) bool {
		return r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: name}, obj) == nil
	}
	if !exists(&appsv1.StatefulSet{}, "sr-fe") || !exists(&corev1.Service{}, "sr-fe-search") || exists(&corev1.Service{}, "sr-fe-service") {
		t.Error("the first step should create the FE StatefulSet and headless Service, not the client Service")
	}
	if n := len(api.statusWrites()); n != 0 {
		t.Errorf("the first step wrote status %d times, want 0", n)
	}
	if got := drain(recorder); len(got) != 0 {
		t.Errorf("the first step emitted %q, want no Event yet", got)
	}

	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	if !exists(&corev1.Service{}, "sr-fe-service") || len(api.statusWrites()) != 1 {
		t.Errorf("the second step should create the client Service and write status once; status writes: %d", len(api.statusWrites()))
	}
	got := drain(recorder)
	if len(got) != 1 || !strings.Contains(got[0], "StatefulSet sr-fe") || !strings.Contains(got[0], "Service sr-fe-search") || !strings.Contains(got[0], "Service sr-fe-service") {
		t.Errorf("events %q; want one telling the StatefulSet and both Services", got)
	}
	if n := api.createsOf("StatefulSet"); n != 1 {
		t.Errorf("%d StatefulSet creates, want 1", n)
	}
}

// With workers to spare, a new cluster is written in one reconcile: every
// FE object, the StatefulSet created once, then one status write and one
// Event.
func TestANewClusterIsWrittenInOneReconcileWhenNoneWaits(t *testing.T) {

	api := &fakeAPI{}
	r := newReconciler(t, api, feCluster())
	r.StartApart = true
	r.WorkersShort = func() bool { return false }
	recorder := r.Recorder.(*events.FakeRecorder)
	res, err := reconcileOnce(t, r)
	if err != nil || res.RequeueAfter == reconcile.PendingRequeue {
		t.Fatalf("reconcile = %+v, %v; want one full reconcile", res, err)
	}
	for _, name := range []string{"sr-fe-search", "sr-fe-service"} {
		if r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: name}, &corev1.Service{}) != nil {
			t.Errorf("Service %s not created", name)
		}
	}
	if n := api.createsOf("StatefulSet"); n != 1 {
		t.Errorf("%d StatefulSet creates, want 1", n)
	}
	if n := len(api.statusWrites()); n != 1 {
		t.Errorf("%d status writes, want 1", n)
	}
	got := drain(recorder)
	if len(got) != 1 || !strings.Contains(got[0], "StatefulSet sr-fe") || !strings.Contains(got[0], "Service sr-fe-search") || !strings.Contains(got[0], "Service sr-fe-service") {
		t.Errorf("events %q; want one telling the StatefulSet and both Services", got)
	}
}

// Workers short by the time the StatefulSet and the headless Service are
// answered: the first step ends and leaves the client Service in flight;
// the next reconcile takes its answer instead of creating it again, and
// its Event tells every write.
func TestANewClusterLeavesItsClientServiceInFlightWhenWorkersRunShort(t *testing.T) {
	api := &fakeAPI{}
	r := newReconciler(t, api, feCluster())
	r.StartApart = true
	asked := 0
	r.WorkersShort = func() bool { asked++; return asked > 1 } // to spare at first, short once written
	recorder := r.Recorder.(*events.FakeRecorder)
	res, err := reconcileOnce(t, r)
	if err != nil || res.RequeueAfter != reconcile.PendingRequeue {
		t.Fatalf("first step = %+v, %v; want it to end with a fallback requeue", res, err)
	}
	if n := len(api.statusWrites()); n != 0 {
		t.Errorf("the first step wrote status %d times, want 0", n)
	}
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	if n := api.createsOf("Service"); n != 2 {
		t.Errorf("%d Service creates, want 2: the one left in flight is not made again", n)
	}
	if r.Client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "sr-fe-service"}, &corev1.Service{}) != nil {
		t.Error("the client Service left in flight was not created")
	}
	if n := len(api.statusWrites()); n != 1 {
		t.Errorf("%d status writes, want 1", n)
	}
	got := drain(recorder)
	if len(got) != 1 || !strings.Contains(got[0], "Service sr-fe-service") || !strings.Contains(got[0], "StatefulSet sr-fe") {
		t.Errorf("events %q; want one telling the StatefulSet and both Services", got)
	}
}

// A first step whose write fails goes on with the full reconcile, which
// reports the error; while the error lasts, the write is sent once per retry.
func TestAFailingFirstStepIsReportedAndNotDoubled(t *testing.T) {
	api := &fakeAPI{failApply: "StatefulSet"}
	r := newReconciler(t, api, feCluster())
	r.StartApart = true
	if _, err := reconcileOnce(t, r); err == nil {
		t.Fatal("want the create error")
	}
	if st := api.statusWrites(); len(st) == 0 || reconcileErrorReason(st[len(st)-1]) != srv1.ReasonApplyFailed {
		t.Fatalf("the failure is not in status: %+v", st)
	}
	before := api.createsOf("StatefulSet")
	for range 3 {
		if _, err := reconcileOnce(t, r); err == nil {
			t.Fatal("want the create error")
		}
	}
	if n := api.createsOf("StatefulSet") - before; n != 3 {
		t.Errorf("%d StatefulSet creates in 3 retries, want 3", n)
	}
}

// What a first step wrote is told with the next reconcile of the same
// cluster, not of one made again under its name.
func TestWhatAFirstStepWroteGoesWithItsCluster(t *testing.T) {
	memos := reconcile.NewMemos()
	s := reconcile.NewMemo[started](memos)
	old := feCluster()
	old.UID = "1"
	addStarted(s, old, []apply.Result{{Kind: "StatefulSet", Name: "sr-fe", Action: apply.Created}})
	again := feCluster()
	again.UID = "2"
	if got := takeStarted(s, again); len(got) != 0 {
		t.Errorf("a new cluster under the old name got %v", got)
	}
	addStarted(s, old, []apply.Result{{Kind: "StatefulSet", Name: "sr-fe", Action: apply.Created}})
	memos.Forget(client.ObjectKeyFromObject(old))
	if got := takeStarted(s, old); len(got) != 0 {
		t.Errorf("a forgotten cluster still had %v", got)
	}
}
