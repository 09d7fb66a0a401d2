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

package helm

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// knobFlags returns the operator arguments that carry the four tuning knobs.
func knobFlags(args []string) []string {
	var out []string
	for _, a := range args {
		for _, f := range []string{"--max-concurrent-reconciles", "--sync-period", "--kube-api-qps", "--kube-api-burst"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				out = append(out, a)
			}
		}
	}
	return out
}

// nest puts operator-chart values under "operator:" for the parent chart.
func nest(valuesYAML string) string {
	if valuesYAML == "" {
		return ""
	}
	return "operator:\n" + indentLines(valuesYAML, "  ")
}

func indentLines(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestKnobsRenderAsOperatorFlags(t *testing.T) {
	cases := []struct {
		name   string
		values string
		want   []string
	}{{
		name: "defaults render the two always-on flags and leave the rate limit to the operator's 20/30",
		want: []string{"--max-concurrent-reconciles=1", "--sync-period=2m"},
	}, {
		name: "set values render all four flags",
		values: `starrocksOperator:
  maxConcurrentReconciles: 50
  syncPeriod: 30m
  kubeApiQps: 100
  kubeApiBurst: 200
`,
		want: []string{"--max-concurrent-reconciles=50", "--sync-period=30m", "--kube-api-qps=100", "--kube-api-burst=200"},
	}, {
		name: "fractional QPS and compound durations pass through unchanged",
		values: `starrocksOperator:
  maxConcurrentReconciles: 8
  syncPeriod: 1h30m
  kubeApiQps: 7.5
  kubeApiBurst: 15
`,
		want: []string{"--max-concurrent-reconciles=8", "--sync-period=1h30m", "--kube-api-qps=7.5", "--kube-api-burst=15"},
	}, {
		name: "QPS -1 turns client-side limiting off and is rendered",
		values: `starrocksOperator:
  kubeApiQps: -1
`,
		want: []string{"--max-concurrent-reconciles=1", "--sync-period=2m", "--kube-api-qps=-1"},
	}, {
		name: "large worker counts are rendered as integers, not in exponent form",
		values: `starrocksOperator:
  maxConcurrentReconciles: 1000000
  kubeApiBurst: 2000000
`,
		want: []string{"--max-concurrent-reconciles=1000000", "--sync-period=2m", "--kube-api-burst=2000000"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, chart := range []string{operatorChart, parentChart} {
				values := tc.values
				if chart == parentChart {
					values = nest(values)
				}
				got := knobFlags(operatorArgs(t, mustRender(t, chart, "starrocks-system", values)))
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s: knob flags = %q, want %q", chart, got, tc.want)
				}
			}
		})
	}
}

func TestSchemaRejectsInvalidKnobs(t *testing.T) {
	cases := []struct {
		name   string
		values string
		key    string
	}{
		{"worker count given as a word", "maxConcurrentReconciles: five", "maxConcurrentReconciles"},
		{"zero workers", "maxConcurrentReconciles: 0", "maxConcurrentReconciles"},
		{"fractional workers", "maxConcurrentReconciles: 2.5", "maxConcurrentReconciles"},
		{"sync period that is not a Go duration", "syncPeriod: soon", "syncPeriod"},
		{"sync period without a unit", `syncPeriod: "120"`, "syncPeriod"},
		{"zero sync period", "syncPeriod: 0s", "syncPeriod"},
		{"negative QPS other than -1", "kubeApiQps: -2", "kubeApiQps"},
		{"QPS given as a string", `kubeApiQps: "100"`, "kubeApiQps"},
		{"fractional burst", "kubeApiBurst: 1.5", "kubeApiBurst"},
		{"negative burst", "kubeApiBurst: -1", "kubeApiBurst"},
		{"a knob removed with null", "maxConcurrentReconciles: null", "maxConcurrentReconciles"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			values := "starrocksOperator:\n  " + tc.values + "\n"
			for _, chart := range []string{operatorChart, parentChart} {
				v := values
				if chart == parentChart {
					v = nest(values)
				}
				_, err := render(t, chart, "starrocks-system", v)
				if err == nil {
					t.Errorf("%s accepted %q", chart, tc.values)
					continue
				}
				t.Logf("%s: %v", chart, err)
				if msg := err.Error(); !strings.Contains(msg, "schema") || !strings.Contains(msg, tc.key) {
					t.Errorf("%s: the error does not come from the schema or does not name %s: %v", chart, tc.key, err)
				}
			}
		})
	}
}

func TestSchemaAcceptsValidDurations(t *testing.T) {
	for _, d := range []string{"90s", "2m", "1h30m", "500ms", "1.5h", "0.5s", "0h1m", "100us", "10µs"} {
		t.Run(d, func(t *testing.T) {
			objs := mustRender(t, operatorChart, "starrocks-system", "starrocksOperator:\n  syncPeriod: \""+d+"\"\n")
			if !slices.Contains(operatorArgs(t, objs), "--sync-period="+d) {
				t.Errorf("--sync-period=%s not rendered: %q", d, operatorArgs(t, objs))
			}
		})
	}
}

func TestOperatorScopeFollowsWatchNamespace(t *testing.T) {
	t.Run("cluster-wide by default", func(t *testing.T) {
		objs := mustRender(t, operatorChart, "starrocks-system", "")
		for _, kind := range []string{"ClusterRole", "ClusterRoleBinding"} {
			if got := find(objs, kind); !slices.ContainsFunc(got, func(o *unstructured.Unstructured) bool { return o.GetName() == "kube-starrocks-operator" }) {
				t.Errorf("no %s kube-starrocks-operator: %s", kind, describe(objs))
			}
		}
		for _, a := range operatorArgs(t, objs) {
			if strings.HasPrefix(a, "--namespace") {
				t.Errorf("cluster-wide operator gets %s", a)
			}
		}
	})
	t.Run("watchNamespace grants a Role there and passes --namespace", func(t *testing.T) {
		objs := mustRender(t, operatorChart, "starrocks-system", "starrocksOperator:\n  watchNamespace: analytics\n  denyList: [a, b]\n")
		if g := clusterWideGrants(objs); len(g) != 0 {
			t.Errorf("a namespace-scoped operator is granted cluster-wide: %v", g)
		}
		var scoped []string
		for _, kind := range []string{"Role", "RoleBinding"} {
			for _, o := range find(objs, kind) {
				scoped = append(scoped, kind+" "+o.GetNamespace()+"/"+o.GetName())
			}
		}
		want := []string{
			"Role analytics/kube-starrocks-operator",
			"Role starrocks-system/cn-leader-election-role",
			"RoleBinding analytics/kube-starrocks-operator",
			"RoleBinding starrocks-system/cn-leader-election-rolebinding",
		}
		slices.Sort(scoped)
		if !slices.Equal(scoped, want) {
			t.Errorf("namespaced RBAC = %q, want %q", scoped, want)
		}
		args := operatorArgs(t, objs)
		for _, a := range []string{"--namespace=analytics", "--deny-list=a,b", "--leader-elect"} {
			if !slices.Contains(args, a) {
				t.Errorf("%s missing from %q", a, args)
			}
		}
	})
}

// clusterWideGrants lists the cluster-wide rules a namespace-scoped operator
// would not need. Allowed: reading its two CRDs by name, the reviews that
// secure metrics make (creating a TokenReview or SubjectAccessReview reads
// nothing), reading StorageClasses (cluster-scoped: volume expansion asks
// whether a claim's class lets it grow), and the metrics-reader role, which
// is for Prometheus to be bound to.
func clusterWideGrants(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, r := range find(objs, "ClusterRole") {
		if strings.HasSuffix(r.GetName(), "-metrics-reader") {
			continue
		}
		rules, _, _ := unstructured.NestedSlice(r.Object, "rules")
		for _, rule := range rules {
			m := rule.(map[string]any)
			names, _, _ := unstructured.NestedStringSlice(m, "resourceNames")
			res, _, _ := unstructured.NestedStringSlice(m, "resources")
			verbs, _, _ := unstructured.NestedStringSlice(m, "verbs")
			slices.Sort(names)
			if slices.Equal(res, []string{"customresourcedefinitions"}) && slices.Equal(verbs, []string{"get"}) &&
				slices.Equal(names, []string{"starrocksclusters.starrocks.com", "starrockswarehouses.starrocks.com"}) {
				continue
			}
			if slices.Equal(verbs, []string{"create"}) && (slices.Equal(res, []string{"tokenreviews"}) || slices.Equal(res, []string{"subjectaccessreviews"})) {
				continue
			}
			if slices.Equal(res, []string{"storageclasses"}) && slices.Equal(verbs, []string{"get", "list"}) {
				continue // cluster-scoped: volume expansion reads the claims' class
			}
			out = append(out, fmt.Sprintf("%s: %v", r.GetName(), m))
		}
	}
	return out
}

// ruleGrants names the roles whose rule of a ClusterRole (cluster-wide) or of a
// Role in namespace ns allows verb on resource of group.
func ruleGrants(objs []*unstructured.Unstructured, kind, ns, group, resource, verb string) []string {
	var out []string
	for _, r := range find(objs, kind) {
		if kind == "Role" && r.GetNamespace() != ns {
			continue
		}
		rules, _, _ := unstructured.NestedSlice(r.Object, "rules")
		for _, rule := range rules {
			m := rule.(map[string]any)
			groups, _, _ := unstructured.NestedStringSlice(m, "apiGroups")
			res, _, _ := unstructured.NestedStringSlice(m, "resources")
			verbs, _, _ := unstructured.NestedStringSlice(m, "verbs")
			if slices.Contains(groups, group) && slices.Contains(res, resource) && (slices.Contains(verbs, verb) || slices.Contains(verbs, "*")) {
				out = append(out, r.GetName())
			}
		}
	}
	return out
}

// The operator's RBAC is no wider than its use: Leases only in its own
// namespace (leader election, which has its Role), never cluster-wide;
// StorageClasses listed cluster-wide, in both scopes, because volume
// expansion finds the default class by listing them.
func TestOperatorRBACIsWhatItUses(t *testing.T) {
	for _, values := range []string{"", "starrocksOperator:\n  watchNamespace: analytics\n"} {
		objs := mustRender(t, operatorChart, "starrocks-system", values)
		if g := ruleGrants(objs, "ClusterRole", "", "coordination.k8s.io", "leases", "update"); len(g) != 0 {
			t.Errorf("values %q: cluster-wide Lease writes granted by %v", values, g)
		}
		if g := ruleGrants(objs, "Role", "starrocks-system", "coordination.k8s.io", "leases", "update"); len(g) == 0 {
			t.Errorf("values %q: leader election cannot write its Lease in the operator's namespace", values)
		}
		for _, verb := range []string{"get", "list"} {
			if g := ruleGrants(objs, "ClusterRole", "", "storage.k8s.io", "storageclasses", verb); len(g) == 0 {
				t.Errorf("values %q: no cluster-wide %s on StorageClasses: volume expansion fails", values, verb)
			}
		}
	}
}
