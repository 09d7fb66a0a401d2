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

package v1

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestChildObjectNamesMatchUpstream(t *testing.T) {
	c := &StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "kube-starrocks", Namespace: "ns"}}
	tests := []struct {
		what string
		got  string
		want string
	}{
		{"FE StatefulSet", c.FeStatefulSetName(), "kube-starrocks-fe"},
		{"FE Service", c.FeServiceName(), "kube-starrocks-fe-service"},
		{"FE headless Service", c.FeSearchServiceName(), "kube-starrocks-fe-search"},
		{"BE StatefulSet", c.BeStatefulSetName(), "kube-starrocks-be"},
		{"BE Service", c.BeServiceName(), "kube-starrocks-be-service"},
		{"BE headless Service", c.BeSearchServiceName(), "kube-starrocks-be-search"},
		{"CN StatefulSet", c.CnStatefulSetName(), "kube-starrocks-cn"},
		{"CN Service", c.CnServiceName(), "kube-starrocks-cn-service"},
		{"CN headless Service", c.CnSearchServiceName(), "kube-starrocks-cn-search"},
		{"CN HorizontalPodAutoscaler", c.CnAutoscalerName(), "kube-starrocks-cn-autoscaler"},
		{"FE proxy ConfigMap", c.FeProxyConfigMapName(), "kube-starrocks-fe-proxy"},
		{"FE proxy Deployment", c.FeProxyDeploymentName(), "kube-starrocks-fe-proxy"},
		{"FE proxy Service", c.FeProxyServiceName(), "kube-starrocks-fe-proxy-service"},
	}

	for _, tt := range tests {
		t.Run(tt.what+" is named like upstream", func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("%s name = %q, want %q", tt.what, tt.got, tt.want)
			}
		})
	}
}

// The upstream makes no PodDisruptionBudget: ours are named <StatefulSet>-pdb,
// as charts commonly name a StatefulSet's budget.
func TestDisruptionBudgetNamesFollowTheirStatefulSets(t *testing.T) {
	c := &StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "kube-starrocks"}}
	wh := &StarRocksWarehouse{ObjectMeta: metav1.ObjectMeta{Name: "wh1"}}
	for got, want := range map[string]string{
		c.FeDisruptionBudgetName():  c.FeStatefulSetName() + "-pdb",
		c.BeDisruptionBudgetName():  c.BeStatefulSetName() + "-pdb",
		c.CnDisruptionBudgetName():  c.CnStatefulSetName() + "-pdb",
		wh.CnDisruptionBudgetName(): wh.CnStatefulSetName() + "-pdb",
	} {
		if got != want {
			t.Errorf("PodDisruptionBudget %q, want %q", got, want)
		}
	}
}

func TestChildObjectNamesAreDistinctPerKind(t *testing.T) {
	c := &StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	// Objects of the same kind must never share a name.
	byKind := map[string][]string{
		"StatefulSet": {c.FeStatefulSetName(), c.BeStatefulSetName(), c.CnStatefulSetName()},
		"Service": {
			c.FeServiceName(), c.FeSearchServiceName(), c.BeServiceName(), c.BeSearchServiceName(),
			c.CnServiceName(), c.CnSearchServiceName(), c.FeProxyServiceName(),
		},
		"PodDisruptionBudget": {c.FeDisruptionBudgetName(), c.BeDisruptionBudgetName(), c.CnDisruptionBudgetName()},
	}
	for kind, names := range byKind {
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				t.Errorf("two %s objects are both named %q", kind, n)
			}
			seen[n] = true
		}
	}
}
