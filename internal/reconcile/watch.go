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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// The watch filters both controllers share: which events of their objects,
// and of the objects they own, are worth a reconcile.

// Managed filters out clusters in denied namespaces and clusters marked ignored,
// so that they never reach a worker.
func Managed(denyList []string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool {
		return !slices.Contains(denyList, o.GetNamespace()) && o.GetAnnotations()[srv1.IgnoredAnnotation] != "true"
	})
}

// NotDenied drops objects in denied namespaces.
func NotDenied(denyList []string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool { return !slices.Contains(denyList, o.GetNamespace()) })
}

// SpecOrResync passes spec changes, annotation changes (the ignored marker) and
// periodic resyncs, but not the operator's own status writes, which would
// otherwise make every reconcile trigger another.
func SpecOrResync() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return o.GetResourceVersion() == n.GetResourceVersion() || o.GetGeneration() != n.GetGeneration() ||
			!reflect.DeepEqual(o.GetAnnotations(), n.GetAnnotations()) || n.GetDeletionTimestamp() != nil
	}}
}

// metadataChanged is true for changes to what apply compares in metadata.
func metadataChanged(o, n client.Object) bool {
	return o.GetGeneration() != n.GetGeneration() || !reflect.DeepEqual(o.GetLabels(), n.GetLabels()) ||
		!reflect.DeepEqual(o.GetAnnotations(), n.GetAnnotations()) || !reflect.DeepEqual(o.GetOwnerReferences(), n.GetOwnerReferences())
}

// StatefulSetChanged passes spec edits (drift) and status changes the cluster
// status reports; resyncs and unrelated status churn don't enqueue.
func StatefulSetChanged() predicate.Predicate {
	return predicate.TypedFuncs[client.Object]{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*appsv1.StatefulSet)
		n, ok2 := e.ObjectNew.(*appsv1.StatefulSet)
		if !ok1 || !ok2 {
			return true
		}
		os, ns := o.Status, n.Status
		return metadataChanged(o, n) || os.ObservedGeneration != ns.ObservedGeneration || os.Replicas != ns.Replicas ||
			os.ReadyReplicas != ns.ReadyReplicas || os.UpdatedReplicas != ns.UpdatedReplicas ||
			os.CurrentRevision != ns.CurrentRevision || os.UpdateRevision != ns.UpdateRevision
	}}
}

// DeploymentChanged passes spec edits and the status changes the status
// reports, as StatefulSetChanged.
func DeploymentChanged() predicate.Predicate {
	return predicate.TypedFuncs[client.Object]{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*appsv1.Deployment)
		n, ok2 := e.ObjectNew.(*appsv1.Deployment)
		if !ok1 || !ok2 {
			return true
		}
		os, ns := o.Status, n.Status
		return metadataChanged(o, n) || os.ObservedGeneration != ns.ObservedGeneration || os.Replicas != ns.Replicas ||
			os.ReadyReplicas != ns.ReadyReplicas || os.UpdatedReplicas != ns.UpdatedReplicas
	}}
}

// SpecOrMetadataChanged passes edits of an object's spec or of what apply
// compares in its metadata, and drops status changes: a PodDisruptionBudget's
// status moves with every pod that becomes ready or not, which the pod
// watch reports already.
func SpecOrMetadataChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool { return metadataChanged(e.ObjectOld, e.ObjectNew) }}
}

// OwnedObjectChanged passes real edits of Services and ConfigMaps, which have
// no generation, and drops resyncs.
func OwnedObjectChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.GetResourceVersion() != e.ObjectNew.GetResourceVersion()
	}}
}

// PodChanged passes pod creation and deletion, and changes of phase, readiness
// or container waiting reasons: what the status lists pods by.
func PodChanged() predicate.Predicate {
	return predicate.TypedFuncs[client.Object]{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*corev1.Pod)
		n, ok2 := e.ObjectNew.(*corev1.Pod)
		if !ok1 || !ok2 {
			return true
		}
		return podSummary(o) != podSummary(n)
	}}
}

func podSummary(p *corev1.Pod) string {
	s := string(p.Status.Phase)
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			s += "/ready=" + string(c.Status)
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Waiting != nil {
			s += "/" + cs.State.Waiting.Reason
		}
	}
	if p.DeletionTimestamp != nil {
		s += "/deleting"
	}
	return s
}

// ConfigMapContentChanged passes the changes of a ConfigMap's metadata that
// come with a change of its content (a new resourceVersion), not resyncs.
func ConfigMapContentChanged() predicate.TypedPredicate[*metav1.PartialObjectMetadata] {
	return predicate.TypedFuncs[*metav1.PartialObjectMetadata]{UpdateFunc: func(e event.TypedUpdateEvent[*metav1.PartialObjectMetadata]) bool {
		return e.ObjectOld.GetResourceVersion() != e.ObjectNew.GetResourceVersion()
	}}
}
