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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func TestLabels(t *testing.T) {
	src := newCluster()
	tests := []struct {
		name string
		got  map[string]string
		want map[string]string
	}{
		{"selector labels are the owner and component labels only", SelectorLabels(src, ComponentBE), map[string]string{
			OwnerLabel: "sr-be", ComponentLabel: "be",
		}},
		{"FE proxy owner label is <cluster>-fe-proxy", SelectorLabels(src, ComponentFEProxy), map[string]string{
			OwnerLabel: "sr-fe-proxy", ComponentLabel: "fe-proxy",
		}},
		{"labels add cluster, managed-by and name", Labels(src, ComponentFE), map[string]string{
			OwnerLabel: "sr-fe", ComponentLabel: "fe", ClusterLabel: "sr",
			ManagedByLabel: "starrocks-operator", NameLabel: "starrocks",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func TestLongClusterNameGivesValidDistinctLabels(t *testing.T) {
	long := strings.Repeat("a", 70)
	a := with(func(s *srv1.StarRocksCluster) { s.Name = long + "x" })
	b := with(func(s *srv1.StarRocksCluster) { s.Name = long + "y" })
	la, lb := Labels(a, ComponentFEProxy), Labels(b, ComponentFEProxy)
	for k, v := range la {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Errorf("%s=%q: %v", k, v, errs)
		}
	}
	if la[OwnerLabel] == lb[OwnerLabel] || la[ClusterLabel] == lb[ClusterLabel] {
		t.Errorf("two clusters share labels: %v", la)
	}
	if got := Labels(newCluster(), ComponentFE)[OwnerLabel]; got != "sr-fe" {
		t.Errorf("short names must be unchanged, got %q", got)
	}
}

func TestPodAndServiceLabelsNeverOverrideOurs(t *testing.T) {
	src := with(func(s *srv1.StarRocksCluster) {
		s.Spec.StarRocksBeSpec.PodLabels = map[string]string{OwnerLabel: "hijack", ComponentLabel: "x", ManagedByLabel: "me", "team": "db"}
		s.Spec.StarRocksBeSpec.Service = &srv1.StarRocksService{Labels: map[string]string{OwnerLabel: "hijack", ClusterLabel: "other", "team": "db"}}
	})
	objs := BE(src, Config{}).Objects()
	s := find[*appsv1.StatefulSet](t, objs, "sr-be")
	svc := find[*corev1.Service](t, objs, "sr-be-service")
	for i, l := range []map[string]string{s.Spec.Template.Labels, svc.Labels} {
		ours := Labels(src, ComponentBE)
		if i == 0 {
			ours = SelectorLabels(src, ComponentBE) // pod templates carry the upstream's labels only
		}
		for k, v := range ours {
			if l[k] != v {
				t.Errorf("label %s=%q, want %q", k, l[k], v)
			}
		}
		if l["team"] != "db" {
			t.Errorf("user label lost: %v", l)
		}
	}
	if !reflect.DeepEqual(s.Spec.Selector.MatchLabels, SelectorLabels(src, ComponentBE)) {
		t.Errorf("selector %v", s.Spec.Selector.MatchLabels)
	}
	if !reflect.DeepEqual(svc.Spec.Selector, SelectorLabels(src, ComponentBE)) {
		t.Errorf("service selector %v", svc.Spec.Selector)
	}
}
