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
	"reflect"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/apply"
)

// The operator's writes: who writes (the field manager) and the applier
// both reconcilers write with.

// FieldOwner is the operator's server-side apply field manager.
const FieldOwner = "starrocks-operator"

// UpstreamFieldManager is the field manager of the upstream operator
// (named after its binary): the fields it wrote are handed to FieldOwner when
// we first write an object it made, so that taking a cluster over removes
// what we do not want instead of keeping it beside ours.
const UpstreamFieldManager = "sroperator"

// PendingRequeue is how soon a reconcile that skipped a write, because the
// cache had not yet shown an earlier one, looks again.
const PendingRequeue = 5 * time.Second

// AdoptingApplier is NewApplier taking over what the upstream operator wrote
// (see UpstreamFieldManager).
func AdoptingApplier(c client.Client) apply.Applier {
	a := NewApplier(c)
	a.AdoptFrom = []string{UpstreamFieldManager}
	return a
}

// NewApplier is the operator's applier, writing as FieldOwner. It writes
// StatefulSets ahead of the rest (see writeorder): the FE StatefulSet is
// what a new cluster waits for. Services that get a ClusterIP are created
// without waiting for other clusters' StatefulSets: the API server
// allocates ClusterIPs one at a time, and that line is the last thing a
// burst of new clusters waits for.
func NewApplier(c client.Client) apply.Applier {
	a := apply.New(c, FieldOwner)
	a.Gating = func(o client.Object) bool { _, ok := o.(*appsv1.StatefulSet); return ok }
	a.Early = AllocatesClusterIP
	return a
}

// AllocatesClusterIP reports whether creating o makes the API server
// allocate a ClusterIP: a Service that is not headless (clusterIP None)
// and not an ExternalName, without a clusterIP of its own choosing (a
// chosen one is reserved without the server-wide allocation lock).
func AllocatesClusterIP(o client.Object) bool {
	svc, ok := o.(*corev1.Service)
	if !ok {
		return false
	}
	return svc.Spec.Type != corev1.ServiceTypeExternalName && svc.Spec.ClusterIP == "" && len(svc.Spec.ClusterIPs) == 0
}

// Unwanted are the objects of all that a component can have that are not wanted.
func Unwanted(all, wanted []client.Object) []client.Object {
	return slices.DeleteFunc(all, func(o client.Object) bool {
		return slices.ContainsFunc(wanted, func(w client.Object) bool { return w.GetName() == o.GetName() && sameKind(w, o) })
	})
}

func sameKind(a, b client.Object) bool {
	return reflect.TypeOf(a) == reflect.TypeOf(b)
}
