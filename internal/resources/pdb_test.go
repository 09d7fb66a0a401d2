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

package resources

import (
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// budgetOf builds component c of src and returns its disruption budget; nil when none.
func budgetOf(src *srv1.StarRocksCluster, c Component) *policyv1.PodDisruptionBudget {
	objs := Build(src, Configs{})
	return objs.statefulSetObjects(c).DisruptionBudget
}

// maxUnavailableOf is the budget's maxUnavailable as written ("1", "50%"); "none" without a budget.
func maxUnavailableOf(pdb *policyv1.PodDisruptionBudget) string {
	if pdb == nil {
		return "none"
	}
	return pdb.Spec.MaxUnavailable.String()
}

func TestFEBudgetKeepsAMajority(t *testing.T) {
	tests := []struct {
		name     string
		replicas *int32
		want     string
	}{
		{"one FE gets none: it could only block drains or protect nothing", nil, "none"},
		{"one FE asked for explicitly gets none", ptr.To[int32](1), "none"},
		{"two FE let one go: keeping both would block every drain", ptr.To[int32](2), "1"},
		{"three FE keep 2", ptr.To[int32](3), "1"},
		{"four FE keep 3", ptr.To[int32](4), "1"},
		{"five FE keep 3", ptr.To[int32](5), "2"},
		{"seven FE keep 4", ptr.To[int32](7), "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := with(func(src *srv1.StarRocksCluster) { src.Spec.StarRocksFeSpec.Replicas = tt.replicas })
			if got := maxUnavailableOf(budgetOf(src, ComponentFE)); got != tt.want {
				t.Errorf("maxUnavailable %s, want %s", got, tt.want)
			}
		})
	}
}

func TestFEQuorumUnprotectedOnlyWithTwoFE(t *testing.T) {
	for _, n := range []int32{0, 1, 3, 4, 5} {
		if msg := FEQuorumUnprotectedMessage(n, "sr-fe-pdb"); msg != "" {
			t.Errorf("%d FE: %q, want none", n, msg)
		}
	}
	if msg := FEQuorumUnprotectedMessage(2, "sr-fe-pdb"); !strings.Contains(msg, "sr-fe-pdb") || !strings.Contains(msg, "one FE pod be evicted at a time") {
		t.Errorf("2 FE with a budget: %q, want it named and what it allows", msg)
	}
	if msg := FEQuorumUnprotectedMessage(2, ""); !strings.Contains(msg, "turned off by annotation") {
		t.Errorf("2 FE without a budget: %q, want the annotation named as the cause", msg)
	}
}

func TestBEBudgetLetsOneGoAtATime(t *testing.T) {
	for replicas, want := range map[int32]string{1: "none", 2: "1", 3: "1", 10: "1"} {
		src := with(func(src *srv1.StarRocksCluster) { src.Spec.StarRocksBeSpec.Replicas = ptr.To(replicas) })
		if got := maxUnavailableOf(budgetOf(src, ComponentBE)); got != want {
			t.Errorf("%d BE: maxUnavailable %s, want %s", replicas, got, want)
		}
	}
}

// The budgets of a step: an FE member leaving FE's group keeps the
// majority of those that stay (issue 34 item 15); a gated BE rollout that
// waits on unhealthy tablets lets no BE go (item 26).
func TestStepBudgets(t *testing.T) {
	src := with(func(*srv1.StarRocksCluster) {})
	for staying, want := range map[int32]string{2: "0", 3: "1", 4: "1", 6: "2"} {
		pdb := FEStepDisruptionBudget(src, staying)
		if got := maxUnavailableOf(pdb); got != want || pdb.Name != src.FeDisruptionBudgetName() {
			t.Errorf("FE step with %d staying: %s maxUnavailable %s, want %s %s", staying, pdb.Name, got, src.FeDisruptionBudgetName(), want)
		}
	}
	pdb := BERolloutDisruptionBudget(src)
	if got := maxUnavailableOf(pdb); got != "0" || pdb.Name != src.BeDisruptionBudgetName() || pdb.Spec.Selector == nil {
		t.Errorf("BE rollout budget %s maxUnavailable %s (selector %v), want %s 0 selecting BE's pods", pdb.Name, got, pdb.Spec.Selector, src.BeDisruptionBudgetName())
	}
}

// An FE step sends no DROP until the API holds the step's budget: a drain
// between the DROP and the budget's write would take an FE that stays.
func TestFEStepBudgetLowered(t *testing.T) {
	src := with(func(*srv1.StarRocksCluster) {})
	off := with(func(s *srv1.StarRocksCluster) {
		s.Annotations = map[string]string{srv1.DisruptionBudgetAnnotation: "false"}
	})
	budget := func(mu intstr.IntOrString) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &mu}}
	}
	cases := []struct {
		name    string
		src     *srv1.StarRocksCluster
		live    *policyv1.PodDisruptionBudget
		staying int32
		want    bool
	}{
		{"FE 3 → 2 with the usual budget of 3 (1): not lowered", src, budget(intstr.FromInt32(1)), 2, false},
		{"FE 3 → 2 with 0 in the API: lowered", src, budget(intstr.FromInt32(0)), 2, true},
		{"FE 5 → 4 with the usual budget of 5 (2): not lowered", src, budget(intstr.FromInt32(2)), 4, false},
		{"FE 5 → 4 with 1: lowered", src, budget(intstr.FromInt32(1)), 4, true},
		{"no budget in the API yet: not lowered", src, nil, 2, false},
		{"a percentage: not known lowered", src, budget(intstr.FromString("0%")), 2, false},
		{"budgets turned off: nothing to lower", off, nil, 2, true},
	}
	for _, tc := range cases {
		if got := FEStepBudgetLowered(tc.src, tc.live, tc.staying); got != tc.want {
			t.Errorf("%s: %t, want %t", tc.name, got, tc.want)
		}
	}
}

func TestCNBudgetFollowsMaxUnavailablePods(t *testing.T) {
	rolling := func(v intstr.IntOrString) *appsv1.StatefulSetUpdateStrategy {
		return &appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &v}}
	}
	tests := []struct {
		name     string
		replicas int32
		update   *appsv1.StatefulSetUpdateStrategy
		policy   *srv1.AutoScalingPolicy
		want     string
	}{
		{"one CN gets none", 1, rolling(intstr.FromInt32(2)), nil, "none"},
		{"unset: one at a time", 3, nil, nil, "1"},
		{"a rolling update without maxUnavailable: one at a time", 3, &appsv1.StatefulSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](0)}}, nil, "1"},
		{"maxUnavailablePods 2 lets two go", 4, rolling(intstr.FromInt32(2)), nil, "2"},
		{"a percentage is passed on", 4, rolling(intstr.FromString("50%")), nil, "50%"},
		{"0, which would block every drain, is one", 3, rolling(intstr.FromInt32(0)), nil, "1"},
		{"0% is one", 3, rolling(intstr.FromString("0%")), nil, "1"},
		{"over 100% is one", 3, rolling(intstr.FromString("150%")), nil, "1"},
		{"a string that is no percentage is one", 3, rolling(intstr.FromString("two")), nil, "1"},
		{"an HPA that may run 5 decides while 1 runs", 1, nil, &srv1.AutoScalingPolicy{MaxReplicas: 5}, "1"},
		{"an HPA of at most one pod: none", 1, nil, &srv1.AutoScalingPolicy{MaxReplicas: 1}, "none"},
		{"an HPA's minReplicas above its maxReplicas counts (the HPA is raised to it)", 1, nil, &srv1.AutoScalingPolicy{MinReplicas: ptr.To[int32](3), MaxReplicas: 1}, "1"},
		{"an HPA scaled to zero that may run 4", 0, rolling(intstr.FromInt32(2)), &srv1.AutoScalingPolicy{MinReplicas: ptr.To[int32](0), MaxReplicas: 4}, "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := with(func(src *srv1.StarRocksCluster) {
				cn := src.Spec.StarRocksCnSpec
				cn.Replicas, cn.UpdateStrategy, cn.AutoScalingPolicy = ptr.To(tt.replicas), tt.update, tt.policy
			})
			if got := maxUnavailableOf(budgetOf(src, ComponentCN)); got != tt.want {
				t.Errorf("maxUnavailable %s, want %s", got, tt.want)
			}
		})
	}
}

// The same budget object whatever the HPA runs: no write as it scales.
func TestCNBudgetUnderAnHPAIsTheSameAtEveryReplicaCount(t *testing.T) {
	var first *policyv1.PodDisruptionBudget
	for _, n := range []int32{1, 2, 5} {
		src := with(func(src *srv1.StarRocksCluster) {
			src.Spec.StarRocksCnSpec.Replicas = ptr.To(n)
			src.Spec.StarRocksCnSpec.AutoScalingPolicy = &srv1.AutoScalingPolicy{MaxReplicas: 5}
		})
		pdb := budgetOf(src, ComponentCN)
		if first == nil {
			first = pdb
		} else if !reflect.DeepEqual(pdb, first) {
			t.Errorf("at %d replicas the budget is %+v, at 1 it was %+v", n, pdb.Spec, first.Spec)
		}
	}
}

func TestBudgetsAreTurnedOffByAnnotation(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		want        map[Component]bool
	}{
		{"no annotation: every component of several pods", nil, map[Component]bool{ComponentFE: true, ComponentBE: true, ComponentCN: true}},
		{"starrocks.com/pod-disruption-budget=false: none", map[string]string{srv1.DisruptionBudgetAnnotation: "false"}, map[Component]bool{}},
		{"the BE annotation: BE alone has none", map[string]string{"starrocks.com/be-pod-disruption-budget": "false"}, map[Component]bool{ComponentFE: true, ComponentCN: true}},
		{"the FE and CN annotations", map[string]string{"starrocks.com/fe-pod-disruption-budget": "false", "starrocks.com/cn-pod-disruption-budget": "false"}, map[Component]bool{ComponentBE: true}},
		{"a component's true does not undo the cluster's false", map[string]string{srv1.DisruptionBudgetAnnotation: "false", "starrocks.com/fe-pod-disruption-budget": "true"}, map[Component]bool{}},
		{"only false turns a budget off", map[string]string{srv1.DisruptionBudgetAnnotation: "no", "starrocks.com/be-pod-disruption-budget": "False"}, map[Component]bool{ComponentFE: true, ComponentBE: true, ComponentCN: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := with(func(src *srv1.StarRocksCluster) {
				src.Annotations = tt.annotations
				src.Spec.StarRocksFeSpec.Replicas, src.Spec.StarRocksBeSpec.Replicas, src.Spec.StarRocksCnSpec.Replicas = ptr.To[int32](3), ptr.To[int32](3), ptr.To[int32](3)
			})
			for _, c := range statefulSetComponentsForTest {
				if got := budgetOf(src, c) != nil; got != tt.want[c] {
					t.Errorf("%s has a budget: %v, want %v", c, got, tt.want[c])
				}
			}
		})
	}
}

var statefulSetComponentsForTest = []Component{ComponentFE, ComponentBE, ComponentCN}

// A budget selects exactly the pods of its StatefulSet, and lets a pod that
// is not ready go: it serves nothing, and must not block a drain.
func TestBudgetSelectsTheStatefulSetsPods(t *testing.T) {
	src := with(func(src *srv1.StarRocksCluster) {
		src.Spec.StarRocksFeSpec.Replicas, src.Spec.StarRocksBeSpec.Replicas, src.Spec.StarRocksCnSpec.Replicas = ptr.To[int32](3), ptr.To[int32](3), ptr.To[int32](3)
		src.Spec.StarRocksBeSpec.PodLabels = map[string]string{"team": "olap"}
	})
	built := Build(src, Configs{})
	for _, c := range statefulSetComponentsForTest {
		pdb, sts := built.statefulSetObjects(c).DisruptionBudget, built.StatefulSet(c)
		if !reflect.DeepEqual(pdb.Spec.Selector, sts.Spec.Selector) {
			t.Errorf("%s: budget selects %v, the StatefulSet %v", c, pdb.Spec.Selector, sts.Spec.Selector)
		}
		sel := labels.SelectorFromSet(pdb.Spec.Selector.MatchLabels)
		if !sel.Matches(labels.Set(sts.Spec.Template.Labels)) {
			t.Errorf("%s: budget selector %s misses the pods' labels %v", c, sel, sts.Spec.Template.Labels)
		}
		for _, other := range statefulSetComponentsForTest {
			if other != c && sel.Matches(labels.Set(built.StatefulSet(other).Spec.Template.Labels)) {
				t.Errorf("%s: budget selects %s's pods too", c, other)
			}
		}
		if p := pdb.Spec.UnhealthyPodEvictionPolicy; p == nil || *p != policyv1.AlwaysAllow {
			t.Errorf("%s: unhealthyPodEvictionPolicy %v, want AlwaysAllow", c, p)
		}
		if errs := validate(pdb); len(errs) > 0 {
			t.Errorf("%s: invalid: %v", c, errs)
		}
	}
}

// A warehouse's CN follows the cluster's CN rule, owned by the warehouse and
// turned off by the warehouse's annotation, not the cluster's.
func TestWarehouseBudget(t *testing.T) {
	wh, src := warehouseFixture() // 2 replicas, autoscaled up to 5
	pdb := Warehouse(wh, src, WarehouseConfig{}).DisruptionBudget
	if pdb == nil {
		t.Fatal("no budget for a warehouse of 2 CN")
	}
	if pdb.Name != wh.CnDisruptionBudgetName() || pdb.Spec.MaxUnavailable.String() != "1" {
		t.Errorf("budget %s allows %s, want %s allowing 1", pdb.Name, pdb.Spec.MaxUnavailable, wh.CnDisruptionBudgetName())
	}
	if !reflect.DeepEqual(pdb.Spec.Selector.MatchLabels, WarehouseSelectorLabels(wh)) {
		t.Errorf("budget selects %v, want the warehouse's pods %v", pdb.Spec.Selector.MatchLabels, WarehouseSelectorLabels(wh))
	}
	if refs := pdb.OwnerReferences; len(refs) != 1 || refs[0].Kind != "StarRocksWarehouse" || refs[0].UID != wh.UID {
		t.Errorf("owned by %+v, want the warehouse", refs)
	}
	src.Annotations = map[string]string{srv1.DisruptionBudgetAnnotation: "false"}
	if Warehouse(wh, src, WarehouseConfig{}).DisruptionBudget == nil {
		t.Error("the cluster's annotation turned the warehouse's budget off")
	}
	wh.Annotations = map[string]string{"starrocks.com/cn-pod-disruption-budget": "false"}
	if Warehouse(wh, src, WarehouseConfig{}).DisruptionBudget != nil {
		t.Error("the warehouse's annotation did not turn its budget off")
	}
	wh.Annotations = nil
	wh.Spec.Template.Replicas, wh.Spec.Template.AutoScalingPolicy = ptr.To[int32](1), nil
	if Warehouse(wh, src, WarehouseConfig{}).DisruptionBudget != nil {
		t.Error("a warehouse of one CN got a budget")
	}
}
