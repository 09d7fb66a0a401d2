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
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/srscale/starrocks-operator/internal/test/upstreamref"
)

// upstreamCase is one folder of upstream-chart-rendered/: a values file, the
// release it was rendered for, and what the upstream chart v1.11.5 rendered.
type upstreamCase struct {
	name        string
	values      string
	release     string
	namespace   string
	apiVersions []string
	rendered    []*unstructured.Unstructured
	// original is the values file as given, when values had keys removed
	// that the upstream ignores and our charts refuse (ignoredByUpstream).
	original string
}

// ignoredByUpstream are top-level keys of the kube-starrocks chart that the
// upstream chart v1.11.5 takes and drops without a word: a top-level
// timeZone leaves its operator on Asia/Shanghai (init-password-timezone's
// rendered.yaml). Ours refuses them (TestKeysTheUpstreamIgnoresFailOurs);
// the comparisons render both charts without them.
var ignoredByUpstream = []string{"timeZone"}

// withoutIgnored removes ignoredByUpstream from a kube-starrocks values file;
// it returns "" when there was none.
func withoutIgnored(t *testing.T, values string) string {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(values), &m); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, k := range ignoredByUpstream {
		if _, ok := m[k]; ok {
			delete(m, k)
			found = true
		}
	}
	if !found {
		return ""
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func loadUpstreamCases(t *testing.T) []upstreamCase {
	t.Helper()
	dir := upstreamref.Path(t, "upstream-chart-rendered")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	var cases []upstreamCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c := upstreamCase{name: e.Name()}
		read := func(f string) string {
			b, err := os.ReadFile(filepath.Join(dir, e.Name(), f))
			if err != nil {
				t.Fatalf("case %s: %v", e.Name(), err)
			}
			return string(b)
		}
		c.values = read("values.yaml")
		if stripped := withoutIgnored(t, c.values); stripped != "" {
			c.original, c.values = c.values, stripped
		}
		for _, line := range strings.Split(read("release.txt"), "\n") {
			k, v, _ := strings.Cut(line, ":")
			switch strings.TrimSpace(k) {
			case "release":
				c.release = strings.TrimSpace(v)
			case "namespace":
				c.namespace = strings.TrimSpace(v)
			case "rendered with":
				fields := strings.Fields(v)
				for i, f := range fields {
					if f == "--api-versions" && i+1 < len(fields) {
						c.apiVersions = append(c.apiVersions, fields[i+1])
					}
				}
			}
		}
		if c.release == "" || c.namespace == "" {
			t.Fatalf("case %s: release.txt names no release or namespace", c.name)
		}
		c.rendered = parseManifests(t, read("rendered.yaml"))
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", dir)
	}
	return cases
}

// How an allowed difference is compared.
type allowHow int

const (
	// oursAdds: our map may hold more keys (our list more items) than
	// upstream's; every key and item of upstream's must be there, equal.
	oursAdds allowHow = iota
	// oursReplaces: the value at the path is ours; upstream's is not compared.
	oursReplaces
	// extraFlags: every upstream argument is there; ours adds only flags named in extraOperatorFlags.
	extraFlags
	// extraObject: an object upstream does not render.
	extraObject
)

// allowance is one intended difference from the upstream rendering.
type allowance struct {
	kind string
	// name of the object; "" for every object of the kind.
	name string
	// path inside the object, dot-separated; list items are named by their
	// "name" field when they have one (spec.template.spec.containers.manager).
	path   string
	how    allowHow
	reason string
}

// extraOperatorFlags are the flags our chart passes beside upstream's.
var extraOperatorFlags = []string{
	"--max-concurrent-reconciles", "--sync-period", "--kube-api-qps", "--kube-api-burst",
	"--metrics-bind-address", "--metrics-secure", "--health-probe-bind-address",
	"--leader-election-id", "--leader-election-namespace", "--deny-list",
	// The upstream's next release's (feSslMode), and our CA bundle beside it.
	"--fe-ssl-mode", "--fe-ca-file",
}

// upstreamAllowList is every intended difference between our charts'
// rendering and the upstream chart's, each with its reason. Nothing else may
// differ; in particular not the operator Deployment's selector, its
// ServiceAccount or the Lease (checked on its own below).
var upstreamAllowList = []allowance{
	{kind: "Deployment", name: "kube-starrocks-operator", path: "metadata.labels", how: oursAdds,
		reason: "our app.kubernetes.io/* and helm.sh/chart labels beside upstream's app label"},
	{kind: "Deployment", name: "kube-starrocks-operator", path: "spec.template.metadata.labels", how: oursAdds,
		reason: "our app.kubernetes.io/* labels on the operator pods beside upstream's app label"},
	{kind: "Deployment", name: "kube-starrocks-operator", path: "spec.template.metadata.labels.version", how: oursReplaces,
		reason: "the version label is the operator's version: ours, not upstream's 1.11.5"},
	{kind: "Deployment", name: "kube-starrocks-operator", path: "spec.template.spec", how: oursAdds,
		reason: "our pod securityContext (non-root 65532, RuntimeDefault seccomp)"},
	{kind: "Deployment", name: "kube-starrocks-operator", path: "spec.template.spec.containers.manager", how: oursAdds,
		reason: "our container declares its metrics and health ports"},
	{kind: "Deployment", name: "kube-starrocks-operator", path: "spec.template.spec.containers.manager.securityContext", how: oursAdds,
		reason: "our container also drops every capability"},
	{kind: "Deployment", name: "kube-starrocks-operator", path: "spec.template.spec.containers.manager.args", how: extraFlags,
		reason: "our tuning knobs, explicit bind addresses and the Lease name and namespace (the same Lease upstream's binary has built in)"},
	{kind: "Deployment", name: "kube-starrocks-operator", path: "spec.template.spec.containers.manager.command", how: oursReplaces,
		reason: "our image's entrypoint is the operator; upstream's image needs /sroperator"},
	{kind: "Deployment", name: "kube-starrocks-operator", path: "spec.template.spec.containers.manager.image", how: oursReplaces,
		reason: "our operator image"},
	{kind: "Deployment", name: "kube-starrocks-operator", path: "spec.template.spec.containers.manager.imagePullPolicy", how: oursReplaces,
		reason: "IfNotPresent: our operator images are immutable tags"},
	{kind: "Deployment", name: "kube-starrocks-operator", path: "spec.template.spec.containers.manager.resources.limits.cpu", how: oursReplaces,
		reason: "1 CPU, from docs/scaling.md: under upstream's 500m a burst of new clusters waits for the operator's CPU"},
	{kind: "ServiceAccount", name: "", path: "metadata.labels", how: oursAdds, reason: "our labels"},
	{kind: "ClusterRole", name: "", path: "metadata.labels", how: oursAdds, reason: "our labels"},
	{kind: "ClusterRoleBinding", name: "", path: "metadata.labels", how: oursAdds, reason: "our labels"},
	{kind: "Role", name: "", path: "metadata.labels", how: oursAdds, reason: "our labels"},
	{kind: "RoleBinding", name: "", path: "metadata.labels", how: oursAdds, reason: "our labels"},
	{kind: "ClusterRole", name: "kube-starrocks-operator", path: "rules", how: oursReplaces,
		reason: "generated from the operator's RBAC markers: only the verbs it uses (the finalizers rules are checked on their own)"},
	{kind: "Role", name: "kube-starrocks-operator", path: "rules", how: oursReplaces,
		reason: "generated from the operator's RBAC markers, as the ClusterRole"},
	{kind: "Role", name: "cn-leader-election-role", path: "rules", how: oursReplaces,
		reason: "Leases and Events only: the operator does not elect its leader through ConfigMaps"},
	{kind: "ClusterRole", name: "kube-starrocks-operator-crds", how: extraObject,
		reason: "a namespace-scoped operator reads its two CRDs at start to say when Helm left them outdated (get, by name)"},
	{kind: "ClusterRoleBinding", name: "kube-starrocks-operator-crds", how: extraObject,
		reason: "binds the CRD-reading ClusterRole above"},
	{kind: "Service", name: "kube-starrocks-operator-metrics", how: extraObject,
		reason: "the operator's Prometheus metrics endpoint"},
	{kind: "ClusterRole", name: "kube-starrocks-operator-metrics-auth", how: extraObject,
		reason: "secure metrics: the operator checks each scraper's token with TokenReview and SubjectAccessReview"},
	{kind: "ClusterRoleBinding", name: "kube-starrocks-operator-metrics-auth", how: extraObject,
		reason: "binds the metrics-auth ClusterRole above to the operator"},
	{kind: "ClusterRole", name: "kube-starrocks-operator-metrics-reader", how: extraObject,
		reason: "secure metrics: what a Prometheus ServiceAccount is bound to in order to scrape the operator"},
	{kind: "ConfigMap", name: "kube-starrocks-initpwd-shell", path: "data.fe_initpwd.sh", how: oursReplaces,
		reason: "our own script with the upstream's contract (SET PASSWORD through FE's MySQL port), but the password sent as its hash, never pasted into SQL, and only 1045 means already set"},
}

func findAllowance(kind, name, path string, how ...allowHow) *allowance {
	for i, a := range upstreamAllowList {
		if a.kind == kind && (a.name == "" || a.name == name) && a.path == path && (len(how) == 0 || slices.Contains(how, a.how)) {
			return &upstreamAllowList[i]
		}
	}
	return nil
}

var clusterScopedKinds = []string{"ClusterRole", "ClusterRoleBinding", "Namespace", "CustomResourceDefinition"}

func objectKey(o *unstructured.Unstructured, namespace string) string {
	ns := o.GetNamespace()
	if slices.Contains(clusterScopedKinds, o.GetKind()) {
		ns = ""
	} else if ns == "" {
		// Helm installs an object without a namespace into the release's.
		ns = namespace
	}
	return o.GetKind() + " " + ns + "/" + o.GetName()
}

// TestChartsRenderWhatUpstreamRenders renders every upstream-chart-rendered
// case through our chart with its values, once with the case's release name
// and once with the other of "starrocks" and "kube-starrocks", and compares
// every object with the upstream rendering: same kinds, namespaces and names,
// same content up to upstreamAllowList.
func TestChartsRenderWhatUpstreamRenders(t *testing.T) {
	for _, c := range loadUpstreamCases(t) {
		chart, releases := parentChart, []string{"starrocks", "kube-starrocks"}
		if c.name == "warehouse" {
			chart, releases = warehouseChart, []string{c.release}
		}
		for _, release := range releases {
			t.Run(c.name+"/release="+release, func(t *testing.T) {
				ours, err := renderWith(t, chart, renderOptions{release: release, namespace: c.namespace, apiVersions: c.apiVersions}, c.values)
				if err != nil {
					t.Fatalf("our chart rejects the values: %v", err)
				}
				want := c.rendered
				if release != c.release {
					want = withRelease(c.rendered, c.release, release)
				}
				compareWithUpstream(t, want, ours, c.namespace)
				if chart == parentChart {
					checkOperatorIdentity(t, ours)
				}
			})
		}
	}
}

// withRelease is the upstream rendering as it would be for another release
// name: only the app.kubernetes.io/instance label depends on it.
func withRelease(objs []*unstructured.Unstructured, from, to string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		o = o.DeepCopy()
		if l := o.GetLabels(); l["app.kubernetes.io/instance"] == from {
			l["app.kubernetes.io/instance"] = to
			o.SetLabels(l)
		}
		out = append(out, o)
	}
	return out
}

func compareWithUpstream(t *testing.T, upstream, ours []*unstructured.Unstructured, namespace string) {
	t.Helper()
	byKey := map[string]*unstructured.Unstructured{}
	for _, o := range ours {
		k := objectKey(o, namespace)
		if _, dup := byKey[k]; dup {
			t.Errorf("we render %s twice", k)
		}
		byKey[k] = o
	}
	seen := map[string]bool{}
	for _, u := range upstream {
		k := objectKey(u, namespace)
		seen[k] = true
		o, ok := byKey[k]
		if !ok {
			t.Errorf("upstream renders %s; we do not", k)
			continue
		}
		var diffs []string
		uo, oo := u.DeepCopy().Object, o.DeepCopy().Object
		for _, obj := range []map[string]any{uo, oo} {
			// Compared through objectKey above.
			if md, ok := obj["metadata"].(map[string]any); ok {
				delete(md, "namespace")
			}
		}
		compareValue(u.GetKind(), u.GetName(), "", uo, oo, false, &diffs)
		for _, d := range diffs {
			t.Errorf("%s: %s", k, d)
		}
	}
	for k, o := range byKey {
		if !seen[k] && findAllowance(o.GetKind(), o.GetName(), "", extraObject) == nil {
			t.Errorf("we render %s, which upstream does not and the allow-list does not name", k)
		}
	}
}

func join(path, seg string) string {
	if path == "" {
		return seg
	}
	return path + "." + seg
}

// compareValue appends to diffs each difference between upstream's value u
// and ours o at path. adds says that ours may hold more keys or items.
func compareValue(kind, name, path string, u, o any, adds bool, diffs *[]string) {
	if a := findAllowance(kind, name, path); a != nil {
		switch a.how {
		case oursReplaces:
			return
		case oursAdds:
			adds = true
		case extraFlags:
			compareFlags(path, u, o, diffs)
			return
		}
	} else if path != "" {
		// An allowance covers its path only, not what lies below unless it says oursAdds.
		adds = false
	}
	switch uv := u.(type) {
	case map[string]any:
		ov, ok := o.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: upstream has a map, we have %s", path, show(o)))
			return
		}
		keys := make([]string, 0, len(uv))
		for k := range uv {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := join(path, k)
			if _, ok := ov[k]; !ok {
				if findAllowance(kind, name, p, oursReplaces) == nil {
					*diffs = append(*diffs, fmt.Sprintf("%s: upstream has %s, we have nothing", p, show(uv[k])))
				}
				continue
			}
			compareValue(kind, name, p, uv[k], ov[k], false, diffs)
		}
		if !adds {
			for k, v := range ov {
				if _, ok := uv[k]; !ok && findAllowance(kind, name, join(path, k)) == nil {
					*diffs = append(*diffs, fmt.Sprintf("%s: we add %s, upstream has nothing", join(path, k), show(v)))
				}
			}
		}
	case []any:
		ov, ok := o.([]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: upstream has a list %s, we have %s", path, show(u), show(o)))
			return
		}
		if !adds && len(uv) != len(ov) {
			*diffs = append(*diffs, fmt.Sprintf("%s: upstream has %d items %s, we have %d %s", path, len(uv), show(u), len(ov), show(o)))
			return
		}
		if adds {
			for _, item := range uv {
				if !slices.ContainsFunc(ov, func(x any) bool { return reflect.DeepEqual(x, item) }) {
					*diffs = append(*diffs, fmt.Sprintf("%s: upstream's item %s is missing", path, show(item)))
				}
			}
			return
		}
		for i := range uv {
			compareValue(kind, name, join(path, itemName(uv[i], i)), uv[i], ov[i], false, diffs)
		}
	default:
		if !reflect.DeepEqual(u, o) {
			*diffs = append(*diffs, fmt.Sprintf("%s: upstream %s, we %s", path, show(u), show(o)))
		}
	}
}

func itemName(item any, i int) string {
	if m, ok := item.(map[string]any); ok {
		if n, ok := m["name"].(string); ok && n != "" {
			return n
		}
	}
	return fmt.Sprint(i)
}

func compareFlags(path string, u, o any, diffs *[]string) {
	toStrings := func(v any) []string {
		var out []string
		l, _ := v.([]any)
		for _, x := range l {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	up, ours := toStrings(u), toStrings(o)
	for _, a := range up {
		if !slices.Contains(ours, a) {
			*diffs = append(*diffs, fmt.Sprintf("%s: upstream passes %s, we do not (we pass %q)", path, a, ours))
		}
	}
	for _, a := range ours {
		if slices.Contains(up, a) {
			continue
		}
		flag, _, _ := strings.Cut(a, "=")
		if !slices.Contains(extraOperatorFlags, flag) {
			*diffs = append(*diffs, fmt.Sprintf("%s: we pass %s, which upstream does not and extraOperatorFlags does not name", path, a))
		}
	}
}

func show(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// checkOperatorIdentity asserts what must never differ from upstream, whatever
// the allow-list says: the selector (immutable), the ServiceAccount, the Lease
// and the finalizers rules.
func checkOperatorIdentity(t *testing.T, ours []*unstructured.Unstructured) {
	t.Helper()
	dep := only(t, ours, "Deployment")
	if dep.GetName() != "kube-starrocks-operator" {
		t.Errorf("operator Deployment %s, want kube-starrocks-operator", dep.GetName())
	}
	sel, _, _ := unstructured.NestedStringMap(dep.Object, "spec", "selector", "matchLabels")
	if !reflect.DeepEqual(sel, map[string]string{"app": "kube-starrocks-operator"}) {
		t.Errorf("operator selector %v, want exactly app=kube-starrocks-operator", sel)
	}
	if sa, _, _ := unstructured.NestedString(dep.Object, "spec", "template", "spec", "serviceAccountName"); sa != "starrocks" {
		t.Errorf("operator ServiceAccount %q, want starrocks", sa)
	}
	if args := operatorArgs(t, ours); !slices.Contains(args, "--leader-election-id=c6c79638.starrocks.com") {
		t.Errorf("operator arguments %q do not name upstream's Lease c6c79638.starrocks.com", args)
	}
	for _, kind := range []string{"ClusterRole", "Role"} {
		for _, r := range find(ours, kind) {
			if r.GetName() != "kube-starrocks-operator" {
				continue
			}
			rules, _, _ := unstructured.NestedSlice(r.Object, "rules")
			for _, res := range []string{"starrocksclusters/finalizers", "starrockswarehouses/finalizers"} {
				if !grants(rules, "starrocks.com", res, "update") {
					t.Errorf("%s %s does not grant update on %s", kind, r.GetName(), res)
				}
			}
		}
	}
}

func grants(rules []any, group, resource, verb string) bool {
	for _, r := range rules {
		m, _ := r.(map[string]any)
		has := func(key, want string) bool {
			l, _ := m[key].([]any)
			return slices.ContainsFunc(l, func(x any) bool { return x == want || x == "*" })
		}
		if has("apiGroups", group) && has("resources", resource) && has("verbs", verb) {
			return true
		}
	}
	return false
}

// TestUpstreamAllowListHasReasons: every intended difference says why.
func TestUpstreamAllowListHasReasons(t *testing.T) {
	for _, a := range upstreamAllowList {
		if strings.TrimSpace(a.reason) == "" {
			t.Errorf("allowance %s %s %s has no reason", a.kind, a.name, a.path)
		}
	}
}
