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

package controller

import (
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
)

// A first step asks whether more clusters want a worker than there are. The
// warehouse controller is built from the same options after the cluster
// controller, and its queue (empty with no warehouse) must not stand in
// for the clusters': it once did, whichever controller started last, and
// then new clusters never saw each other waiting.
func TestWorkersShortAsksTheClusterQueueOnly(t *testing.T) {
	opts := controller.Options{MaxConcurrentReconciles: 2}
	running := 1
	short := workersShort(&opts, clusterController, logr.Discard(), func() int { return running })
	if !short() {
		t.Error("before the queue exists, a first step must assume workers are short")
	}
	rl := workqueue.DefaultTypedControllerRateLimiter[ctrl.Request]()
	clusters := opts.NewQueue(clusterController, rl)
	defer clusters.ShutDown()
	warehouses := opts.NewQueue("starrockswarehouse", rl)
	defer warehouses.ShutDown()

	for _, name := range []string{"w1", "w2"} {
		warehouses.Add(ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}})
	}
	for deadline := time.Now().Add(time.Second); warehouses.Len() < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if warehouses.Len() < 2 || short() {
		t.Errorf("warehouses waiting (queue length %d) read as clusters short of workers: %v", warehouses.Len(), short())
	}
	clusters.Add(ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "c"}})
	for deadline := time.Now().Add(time.Second); clusters.Len() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if short() {
		t.Error("one cluster running and one ready on two workers read as short")
	}
	running = 2
	if !short() {
		t.Error("two clusters running and one ready on two workers is not seen as short")
	}
}
