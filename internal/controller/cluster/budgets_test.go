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
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
)

func feClusterOf(replicas int32) *srv1.StarRocksCluster {
	return &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sr"},
		Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{
			StarRocksLoadSpec: srv1.StarRocksLoadSpec{Replicas: ptr.To(replicas)},
		}}},
	}
}

// scopeOf is the scope of a reconcile of src with these live StatefulSets, built and with no hold yet.
func scopeOf(t *testing.T, src *srv1.StarRocksCluster, live map[resources.Component]*appsv1.StatefulSet) *clusterScope {
	t.Helper()
	in := &clusterInputs{live: map[resources.Component]*appsv1.StatefulSet{}, confs: map[resources.Component]confRead{}}
	for c, sts := range live {
		in.live[c] = sts
	}
	d, hs, err := build(src, in, resources.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &clusterScope{src: src, in: in, want: d, holds: hs}
}

// running is src's StatefulSet of c as the operator wrote it, at replicas.
func running(src *srv1.StarRocksCluster, c resources.Component, replicas int32) *appsv1.StatefulSet {
	sts := resources.Build(src, resources.Configs{}).StatefulSet(c)
	sts.Spec.Replicas = ptr.To(replicas)
	return sts
}

// budgetOf runs the budgets phase and returns c's budget as "maxUnavailable N", or "none".
func budgetOf(t *testing.T, s *clusterScope, c resources.Component) string {
	t.Helper()
	(&Reconciler{}).budgets(t.Context(), s)
	if pdb := s.want.objects.Workload(c).DisruptionBudget; pdb != nil {
		return "maxUnavailable " + pdb.Spec.MaxUnavailable.String()
	}
	return "none"
}

// Pods that keep running keep their budget: FE kept from shrinking to one
// (KeepFEQuorum), FE leaving one pod at a time, BE held whole while FE
// decommissions the removed BEs (scalein.go).
func TestBudgetsFollowThePodsTheStatefulSetsKeep(t *testing.T) {
	fe, be := resources.ComponentFE, resources.ComponentBE
	if got := budgetOf(t, scopeOf(t, feClusterOf(1), nil), fe); got != "none" {
		t.Errorf("a new FE of 1: %s", got)
	}
	src := feClusterOf(1)
	if got := budgetOf(t, scopeOf(t, src, map[resources.Component]*appsv1.StatefulSet{fe: running(src, fe, 5)}), fe); got != "maxUnavailable 2" {
		t.Errorf("5 FE kept against a spec of 1: %s, want a majority of the 5 kept", got)
	}

	src = feClusterOf(3)
	s := scopeOf(t, src, map[resources.Component]*appsv1.StatefulSet{fe: running(src, fe, 5)})
	want := s.want.objects.StatefulSet(fe)
	if s.holds.Keeps(fe, want) {
		t.Fatalf("FE held before the scale-in's hold: %+v", s.holds)
	}
	// FE's next step down, as the FE scale-in holds it
	s.hold(reconcile.Hold{Component: fe, Object: want, Field: replicasField, Value: int32(4), Reason: srv1.ReasonLeavingFEGroup, Report: reconcile.Waits})
	if got := budgetOf(t, s, fe); got != "maxUnavailable 1" {
		t.Errorf("FE stepping from 5 to 4 on its way to 3: %s, want a majority of 4", got)
	}

	// Issue 34 item 15: 3 → 2. Once fe-2 is dropped its pod still runs and
	// counts as healthy: a budget of 3 pods lets a drain take fe-0, one of
	// the two members that stay, their majority.
	src = feClusterOf(2)
	s = scopeOf(t, src, map[resources.Component]*appsv1.StatefulSet{fe: running(src, fe, 3)})
	want = s.want.objects.StatefulSet(fe)
	s.hold(reconcile.Hold{Component: fe, Object: want, Field: replicasField, Value: int32(3), Reason: srv1.ReasonLeavingFEGroup, Report: reconcile.Steps})
	if got := budgetOf(t, s, fe); got != "maxUnavailable 0" {
		t.Errorf("FE dropping fe-2 on its way from 3 to 2: %s, want none of the 2 that stay to go", got)
	}

	src = feClusterOf(3)
	src.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Replicas: ptr.To[int32](1)}}}
	live := map[resources.Component]*appsv1.StatefulSet{fe: running(src, fe, 3), be: running(src, be, 3)}
	s = scopeOf(t, src, live)
	s.hold(reconcile.Hold{Component: be, Object: s.want.objects.StatefulSet(be), Reason: srv1.ReasonDecommissioning, Report: reconcile.Waits})
	if got := budgetOf(t, s, be); got != "maxUnavailable 1" {
		t.Errorf("3 BE held while FE decommissions 2: %s, want one at a time", got)
	}
	if got := budgetOf(t, scopeOf(t, src, live), be); got != "none" {
		t.Errorf("BE down to 1 with nothing held: %s", got)
	}
}

func TestFEQuorumUnprotectedIsToldForTwoFE(t *testing.T) {
	s := scopeOf(t, feClusterOf(2), nil)
	if msg := s.feQuorumUnprotected(); !strings.Contains(msg, "sr-fe-pdb") {
		t.Errorf("2 FE: %q, want the budget named", msg)
	}
	s.src.Annotations = map[string]string{srv1.ComponentDisruptionBudgetAnnotation(string(resources.ComponentFE)): "false"}
	s = scopeOf(t, s.src, nil)
	if msg := s.feQuorumUnprotected(); !strings.Contains(msg, "turned off") {
		t.Errorf("2 FE, budget off: %q", msg)
	}
	s = scopeOf(t, feClusterOf(3), nil)
	if msg := s.feQuorumUnprotected(); msg != "" {
		t.Errorf("3 FE: %q, want nothing", msg)
	}
	// A refused spec builds nothing: the status keeps what it says.
	s = &clusterScope{src: feClusterOf(2)}
	s.src.Status.Conditions = []metav1.Condition{{Type: srv1.ConditionFEQuorumUnprotected, Status: metav1.ConditionTrue, Message: "as before"}}
	if msg := s.feQuorumUnprotected(); msg != "as before" {
		t.Errorf("nothing built: %q, want the condition's message kept", msg)
	}
}

// A budget is written only beside a StatefulSet the cache shows: its create
// goes in the same round as the StatefulSet's, and may succeed where the
// StatefulSet's fails. A StatefulSet regrowing its claims (expandClaims'
// stand-in) runs its pods on: their budget stays.
func TestABudgetWaitsForItsStatefulSet(t *testing.T) {
	fe := resources.ComponentFE
	hasBudget := func(s *clusterScope) bool {
		(&Reconciler{}).budgets(t.Context(), s)
		budget := s.want.objects.FE.DisruptionBudget
		return budget != nil && slices.Contains(s.applicable(fe), client.Object(budget))
	}
	src := feClusterOf(3)
	if hasBudget(scopeOf(t, src, nil)) {
		t.Errorf("3 new FE: the budget is written before the cache shows the StatefulSet")
	}
	if !hasBudget(scopeOf(t, src, map[resources.Component]*appsv1.StatefulSet{fe: running(src, fe, 3)})) {
		t.Errorf("3 FE running: no budget written")
	}
	s := scopeOf(t, src, map[resources.Component]*appsv1.StatefulSet{fe: running(src, fe, 3)})
	s.in.regrown, s.in.leaving = []resources.Component{fe}, []resources.Component{fe}
	if !hasBudget(s) {
		t.Errorf("3 FE regrowing their claims: the budget is not written")
	}
	if slices.Contains(s.applicable(fe), client.Object(s.want.objects.FE.StatefulSet)) {
		t.Errorf("FE's StatefulSet written while the one deleted to grow its claims is still going")
	}
	// Not written yet is not turned off: the status names the budget to come.
	s = scopeOf(t, feClusterOf(2), nil)
	if hasBudget(s) || !strings.Contains(s.feQuorumUnprotected(), "sr-fe-pdb") {
		t.Errorf("2 new FE: %q, want the budget named, not written yet", s.feQuorumUnprotected())
	}
}
