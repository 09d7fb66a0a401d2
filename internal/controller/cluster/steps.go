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
	"k8s.io/apimachinery/pkg/types"

	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// steps is the one executor of the cluster's StarRocks steps
// (frontend.Run): a phase that talks to StarRocks builds its planner's
// input and hands it there, with the target below.
func (r *Reconciler) steps() frontend.Steps {
	return frontend.Steps{Door: r.FE, Client: r.Client, Recorder: r.Recorder, Memory: r.stepMemory}
}

// target is where a step of component c is done: the cluster's FE, its
// live StatefulSet's pods, and this scope, which takes its holds.
func (s *clusterScope) target(c resources.Component) frontend.Target {
	return frontend.Target{Cluster: s.src, FEConf: s.want.feConf, On: s.src, StatefulSet: s.in.live[c],
		Hold: func(h starrocks.Hold) { s.hold(s.stepHold(c, h)) }, Later: s.later, Fail: s.addErr,
		Note: func(note string) { s.want.notes = append(s.want.notes, note) }}
}

// statefulSetKey names component c's StatefulSet, the key of what is
// remembered of it.
func (s *clusterScope) statefulSetKey(c resources.Component) types.NamespacedName {
	return types.NamespacedName{Namespace: s.src.Namespace, Name: resources.StatefulSetName(s.src, c)}
}

// stepHold is a step's hold of its component's desired StatefulSet (c's,
// unless the hold names another): whole, or one field of it.
func (s *clusterScope) stepHold(c resources.Component, h starrocks.Hold) reconcile.Hold {
	if h.Component != "" {
		c = h.Component
	}
	out := reconcile.Hold{Component: c, Object: s.want.objects.StatefulSet(c), Reason: h.Reason, Message: h.Message, Report: reconcile.Steps}
	switch {
	case h.Refuses:
		out.Report = reconcile.Refuses
	case h.Waits:
		out.Report = reconcile.Waits
	}
	switch {
	case h.Replicas != nil:
		out.Field, out.Value = replicasField, *h.Replicas
	case h.Template:
		out.Field = templateField
	case h.ConfigHash:
		out.Field, out.Report = configHashField, reconcile.Quiet
	}
	return out
}
