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
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
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

func buildFE(t *testing.T, src *srv1.StarRocksCluster, live *appsv1.StatefulSet) *desired {
	t.Helper()
	in := &clusterInputs{live: map[resources.Component]*appsv1.StatefulSet{}, confs: map[resources.Component]confRead{}}
	if live != nil {
		in.live[resources.ComponentFE] = live
	}
	d, _, err := build(src, in, resources.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A spec of 1 FE cannot shrink 5 running FE (KeepFEQuorum): their budget
// stays, for the 5 that keep running.
func TestFEKeptAtItsLiveReplicasKeepsItsBudget(t *testing.T) {
	live := &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](5)}}
	d := buildFE(t, feClusterOf(1), live)
	if got := ptr.Deref(d.objects.FE.StatefulSet.Spec.Replicas, 0); got != 5 {
		t.Fatalf("FE StatefulSet at %d replicas, want the 5 that run", got)
	}
	pdb := d.objects.FE.DisruptionBudget
	if pdb == nil || pdb.Spec.MaxUnavailable.String() != "2" {
		t.Errorf("budget %+v, want one keeping 3 of the 5 FE", pdb)
	}
	if d := buildFE(t, feClusterOf(1), nil); d.objects.FE.DisruptionBudget != nil {
		t.Errorf("a new FE of 1 got a budget")
	}
}

func TestFEQuorumUnprotectedIsToldForTwoFE(t *testing.T) {
	s := &clusterScope{src: feClusterOf(2)}
	s.want = buildFE(t, s.src, nil)
	if msg := s.feQuorumUnprotected(); !strings.Contains(msg, "sr-fe-pdb") {
		t.Errorf("2 FE: %q, want the budget named", msg)
	}
	s.src.Annotations = map[string]string{resources.ComponentDisruptionBudgetAnnotation(resources.ComponentFE): "false"}
	s.want = buildFE(t, s.src, nil)
	if msg := s.feQuorumUnprotected(); !strings.Contains(msg, "turned off") {
		t.Errorf("2 FE, budget off: %q", msg)
	}
	s = &clusterScope{src: feClusterOf(3)}
	s.want = buildFE(t, s.src, nil)
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
