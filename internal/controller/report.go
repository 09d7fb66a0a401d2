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
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/status"
)

// What both reconcilers share to read their object, write its status and
// tell what they did: one path, generic over the kind and its status.

// statusPath reads objects of one kind (T, a pointer) and writes their
// status (S). It remembers the status this process last wrote per object,
// so that a reconcile that runs before the cache shows it computes from it:
// computed from the stale copy, the status would differ from what we wrote,
// and be written again.
type statusPath[T client.Object, S any] struct {
	client   client.Client
	kind     string
	newObj   func() T
	statusOf func(T) *S
	recent   *apply.Recent[S]
}

func newStatusPath[T client.Object, S any](c client.Client, kind string, newObj func() T, statusOf func(T) *S) *statusPath[T, S] {
	return &statusPath[T, S]{client: c, kind: kind, newObj: newObj, statusOf: statusOf, recent: apply.NewRecent[S]()}
}

func clusterStatusPath(c client.Client) *statusPath[*srv1.StarRocksCluster, srv1.StarRocksClusterStatus] {
	return newStatusPath(c, "StarRocksCluster", func() *srv1.StarRocksCluster { return &srv1.StarRocksCluster{} },
		func(o *srv1.StarRocksCluster) *srv1.StarRocksClusterStatus { return &o.Status })
}

func warehouseStatusPath(c client.Client) *statusPath[*srv1.StarRocksWarehouse, srv1.StarRocksWarehouseStatus] {
	return newStatusPath(c, "StarRocksWarehouse", func() *srv1.StarRocksWarehouse { return &srv1.StarRocksWarehouse{} },
		func(o *srv1.StarRocksWarehouse) *srv1.StarRocksWarehouseStatus { return &o.Status })
}

// get reads the object from the cache, with the status this process last
// wrote in place of an older cached one. ok is false for an object that is gone.
func (p *statusPath[T, S]) get(ctx context.Context, key types.NamespacedName) (obj T, ok bool, err error) {
	obj = p.newObj()
	if err := p.client.Get(ctx, key, obj); err != nil {
		return obj, false, client.IgnoreNotFound(err)
	}
	p.ahead(obj)
	return obj, true, nil
}

// forget drops the status remembered for an object that is gone.
func (p *statusPath[T, S]) forget(key types.NamespacedName) { p.recent.Forget(key.String()) }

// ahead puts into obj the status this process wrote after the copy obj was read from.
func (p *statusPath[T, S]) ahead(obj T) {
	if st, ok := p.recent.Ahead(client.ObjectKeyFromObject(obj).String(), obj.GetResourceVersion()); ok {
		*p.statusOf(obj) = deepCopy(st)
	}
}

// write writes the status subresource only when st differs from obj's:
// a server-side apply of the whole status, so that fields st no longer has
// are removed even when the copy compared with was stale, which a merge
// patch computed against that copy would miss. An object gone meanwhile is no error.
func (p *statusPath[T, S]) write(ctx context.Context, obj T, st S) (bool, error) {
	if equality.Semantic.DeepEqual(*p.statusOf(obj), st) {
		return false, nil
	}
	body, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if err != nil {
		return false, err
	}
	patched := &unstructured.Unstructured{Object: map[string]any{"status": body}}
	patched.SetGroupVersionKind(srv1.GroupVersion.WithKind(p.kind))
	patched.SetNamespace(obj.GetNamespace())
	patched.SetName(obj.GetName())
	if err := p.client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(patched), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("writing status of %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	p.recent.Record(client.ObjectKeyFromObject(obj).String(), patched.GetResourceVersion(), deepCopy(st))
	return true, nil
}

// deepCopy copies a status through its generated DeepCopy.
func deepCopy[S any](st S) S {
	if c, ok := any(&st).(interface{ DeepCopy() *S }); ok {
		return *c.DeepCopy()
	}
	return st
}

// actionReport says how each kind of write is counted and told in an Event.
type actionReport struct {
	reason, action, verb string
}

// actionReports is keyed by what apply did; actions missing here (unchanged)
// are neither counted nor told.
var actionReports = map[apply.Action]actionReport{
	apply.Created:  {reason: "Created", action: "Create", verb: "created"},
	apply.Updated:  {reason: "Updated", action: "Update", verb: "updated"},
	apply.Restored: {reason: "DriftCorrected", action: "Update", verb: "restored (changed by someone else)"},
	apply.Deleted:  {reason: "Deleted", action: "Delete", verb: "deleted"},
}

// told reports whether a result is a write to tell: one that was made.
func told(res apply.Result) bool {
	_, ok := actionReports[res.Action]
	return ok && !res.Pending
}

// countWrites counts the writes among results in the operator's metrics.
func countWrites(results []apply.Result) {
	for _, res := range results {
		if told(res) {
			metrics.ObjectWrites.WithLabelValues(res.Kind, string(res.Action)).Inc()
		}
	}
}

// tellWrites emits one Event per kind of write among results, never one per
// object or per reconcile.
func tellWrites(recorder events.EventRecorder, obj runtime.Object, results []apply.Result) {
	byAction := map[apply.Action][]string{}
	for _, res := range results {
		if told(res) {
			byAction[res.Action] = append(byAction[res.Action], res.Kind+" "+res.Name)
		}
	}
	for _, action := range slices.Sorted(mapKeys(byAction)) {
		rep, objs := actionReports[action], byAction[action]
		slices.Sort(objs)
		recorder.Eventf(obj, nil, corev1.EventTypeNormal, rep.reason, rep.action, "%s", status.Truncate(rep.verb+" "+strings.Join(objs, ", "), status.MaxEventNote))
	}
}

// newWarning reports whether err is not yet what the condition of type
// condition says (True, with err's message, or for a prefix, starting
// with it): a Warning Event is due once per new error, not per retry.
func newWarning(conditions []metav1.Condition, condition string, err error, prefix bool) bool {
	old := meta.FindStatusCondition(conditions, condition)
	if old == nil || old.Status != metav1.ConditionTrue {
		return true
	}
	if prefix {
		return !strings.HasPrefix(old.Message, err.Error())
	}
	return old.Message != status.Truncate(err.Error(), status.MaxConditionMessage)
}

// warn emits a Warning Event with reason and, when also is set, a second
// one with that reason beside it (the upstream operator's, for alerts
// written for it).
func warn(recorder events.EventRecorder, obj runtime.Object, reason, also string, err error) {
	note := status.Truncate(err.Error(), status.MaxEventNote)
	recorder.Eventf(obj, nil, corev1.EventTypeWarning, reason, "Reconcile", "%s", note)
	if also != "" {
		recorder.Eventf(obj, nil, corev1.EventTypeWarning, also, "Reconcile", "%s", note)
	}
}
