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

// Package frontend is what both reconcilers share of StarRocks' FE: the
// door to it (internal/feaccess) with the compute-node cleanup beside it,
// and what FE's answers mean for a reconcile (Trouble, AsUserError).
package frontend

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/feaccess"
)

// Access is the door to FE (internal/feaccess), with what the CN cleanup
// keeps beside it. The zero value reaches no FE (a reconciler built without
// one, in unit tests): the door's zero value does nothing, as before.
type Access struct {
	feaccess.Door
	// Cleanup drops compute nodes removed by scale-in (cn_cleanup.go).
	Cleanup *ComputeNodeCleanup
	// recorder tells what the cleanup dropped, when it ends.
	recorder events.EventRecorder
}

// The door reads the FE credentials Secret and MYSQL_PWD's source.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// NewAccess is the door with a compute-node cleanup of its own, whose
// Events recorder tells.
func NewAccess(door feaccess.Door, recorder events.EventRecorder) Access {
	return Access{Door: door, Cleanup: NewComputeNodeCleanup(), recorder: recorder}
}

// ForgetCluster drops what is known of a cluster that is gone: the door's
// memories of it, and the cleanup state of its CN StatefulSet.
func (a Access) ForgetCluster(cluster types.NamespacedName) {
	a.Forget(cluster)
	gone := &srv1.StarRocksCluster{}
	gone.Namespace, gone.Name = cluster.Namespace, cluster.Name
	a.Cleanup.Forget(types.NamespacedName{Namespace: cluster.Namespace, Name: gone.CnStatefulSetName()}, cluster.String())
}

// owner is the object a cleanup of sts is told on: the warehouse that owns
// sts, or the cluster.
func (a Access) owner(src *srv1.StarRocksCluster, sts *appsv1.StatefulSet) runtime.Object {
	if ref := metav1.GetControllerOfNoCopy(sts); ref != nil && ref.Kind == "StarRocksWarehouse" {
		wh := &srv1.StarRocksWarehouse{}
		wh.Namespace, wh.Name, wh.UID = sts.Namespace, ref.Name, ref.UID
		wh.SetGroupVersionKind(srv1.GroupVersion.WithKind("StarRocksWarehouse"))
		return wh
	}
	return src
}
