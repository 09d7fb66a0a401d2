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
	"fmt"
	"time"

	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// FollowUpPriority is the queue priority of the reconciles that the
// operator's own objects and pods ask for: below a user's change (a new
// cluster, a spec edit, a ConfigMap edit; priority 0), above resyncs and the
// initial list (handler.LowPriority). With many clusters queued, a new
// cluster's first write does not wait behind the status refreshes of others.
const FollowUpPriority = -1

// FollowUp enqueues what h enqueues at FollowUpPriority, unless h chose a
// priority (handler.LowPriority for resyncs and the initial list).
func FollowUp(h handler.EventHandler) handler.EventHandler { return followUpHandler{h} }

type followUpHandler struct{ h handler.EventHandler }

func (f followUpHandler) Create(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
	traceEvent("create", e.Object)
	f.h.Create(ctx, e, followUpQueueOf(q))
}

func (f followUpHandler) Update(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
	traceEvent("update", e.ObjectNew)
	f.h.Update(ctx, e, followUpQueueOf(q))
}

// eventLog logs, at the level of controller-runtime's "Reconciling" (5),
// when a watch event of an owned object reaches the controller: with it,
// the benchmark's timeline tells a watch's delay from the queue's.
var eventLog = logf.Log.WithName("followup").V(5)

func traceEvent(verb string, o client.Object) {
	if o != nil && eventLog.Enabled() {
		eventLog.Info("watch event", "event", verb, "kind", fmt.Sprintf("%T", o), "namespace", o.GetNamespace(), "name", o.GetName())
	}
}

func (f followUpHandler) Delete(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
	f.h.Delete(ctx, e, followUpQueueOf(q))
}

func (f followUpHandler) Generic(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
	f.h.Generic(ctx, e, followUpQueueOf(q))
}

// followUpQueueOf wraps a priority queue; other queues have no priorities.
func followUpQueueOf(q workqueue.TypedRateLimitingInterface[ctrl.Request]) workqueue.TypedRateLimitingInterface[ctrl.Request] {
	if pq, ok := q.(priorityqueue.PriorityQueue[ctrl.Request]); ok {
		return followUpQueue{pq}
	}
	return q
}

type followUpQueue struct {
	priorityqueue.PriorityQueue[ctrl.Request]
}

func (q followUpQueue) Add(item ctrl.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{}, item)
}

func (q followUpQueue) AddAfter(item ctrl.Request, after time.Duration) {
	q.AddWithOpts(priorityqueue.AddOpts{After: after}, item)
}

func (q followUpQueue) AddRateLimited(item ctrl.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, item)
}

func (q followUpQueue) AddWithOpts(o priorityqueue.AddOpts, items ...ctrl.Request) {
	if o.Priority == nil {
		o.Priority = new(FollowUpPriority)
	}
	q.PriorityQueue.AddWithOpts(o, items...)
}
