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

package reconcile

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/scheme"
)

func TestFollowUpPriority(t *testing.T) {
	pod := func(rv string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1-fe-0", ResourceVersion: rv}}
	}
	toCluster := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []ctrl.Request {
		return []ctrl.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: "c1"}}}
	})
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(srv1.GroupVersion.WithKind("StarRocksCluster"), meta.RESTScopeNamespace)
	owned := func(rv string) *corev1.Pod {
		p := pod(rv)
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: srv1.GroupVersion.String(), Kind: "StarRocksCluster", Name: "c1", UID: "u", Controller: ptr.To(true)}}
		return p
	}
	h := FollowUp(toCluster)
	owner := FollowUp(handler.EnqueueRequestForOwner(scheme.New(), mapper, &srv1.StarRocksCluster{}, handler.OnlyControllerOwner()))
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		send func(q workqueue.TypedRateLimitingInterface[ctrl.Request])
		want int
	}{
		{"a pod created", func(q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			h.Create(ctx, event.CreateEvent{Object: pod("1")}, q)
		}, FollowUpPriority},
		{"a pod changed", func(q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			h.Update(ctx, event.UpdateEvent{ObjectOld: pod("1"), ObjectNew: pod("2")}, q)
		}, FollowUpPriority},
		{"a pod deleted", func(q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			h.Delete(ctx, event.DeleteEvent{Object: pod("1")}, q)
		}, FollowUpPriority},
		{"the initial list keeps the handler's low priority", func(q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			h.Create(ctx, event.CreateEvent{Object: pod("1"), IsInInitialList: true}, q)
		}, handler.LowPriority},
		{"a resync keeps the handler's low priority", func(q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			h.Update(ctx, event.UpdateEvent{ObjectOld: pod("1"), ObjectNew: pod("1")}, q)
		}, handler.LowPriority},
		{"an owned object created", func(q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			owner.Create(ctx, event.CreateEvent{Object: owned("1")}, q)
		}, FollowUpPriority},
		{"an owned object resynced", func(q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			owner.Update(ctx, event.UpdateEvent{ObjectOld: owned("1"), ObjectNew: owned("1")}, q)
		}, handler.LowPriority},
		{"an owned object deleted", func(q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			owner.Delete(ctx, event.DeleteEvent{Object: owned("1")}, q)
		}, FollowUpPriority},
		{"a change of the cluster itself, queued after a follow-up, raises it", func(q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			h.Create(ctx, event.CreateEvent{Object: pod("1")}, q)
			q.Add(ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "c1"}})
		}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := priorityqueue.New[ctrl.Request]("test")
			defer q.ShutDown()
			tt.send(q)
			type got struct {
				item     ctrl.Request
				priority int
			}
			ch := make(chan got, 1)
			go func() { item, priority, _ := q.GetWithPriority(); ch <- got{item, priority} }()
			var item ctrl.Request
			var priority int
			select {
			case g := <-ch:
				item, priority = g.item, g.priority
			case <-time.After(10 * time.Second):
				t.Fatal("nothing was queued")
			}
			if item.Name != "c1" || priority != tt.want {
				t.Errorf("queued %v at priority %d, want c1 at %d", item, priority, tt.want)
			}
		})
	}

	// A queue without priorities gets the item as it is.
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[ctrl.Request]())
	defer q.ShutDown()
	h.Create(ctx, event.CreateEvent{Object: pod("1")}, q)
	if item, _ := q.Get(); item.Name != "c1" {
		t.Errorf("plain queue got %v, want c1", item)
	}
}
