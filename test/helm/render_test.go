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
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/srscale/starrocks-operator/test/testcluster"
)

// The charts, relative to the repository root.
const (
	operatorChart  = "charts/operator"
	starrocksChart = "charts/starrocks"
	parentChart    = "charts/kube-starrocks"
	warehouseChart = "charts/warehouse"
)

const releaseName = "kube-starrocks"

// kubeVersion is what the charts are rendered for: the version of the test API server.
var kubeVersion = &chartutil.KubeVersion{Version: "v1.37.2", Major: "1", Minor: "37"}

func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatalf("finding the repository root: %v", err)
	}
	return root
}

func chartPath(t testing.TB, chart string) string {
	t.Helper()
	return filepath.Join(repoRoot(t), filepath.FromSlash(chart))
}

// render runs a client-only install, as `helm template` does: values are
// coalesced with the chart's defaults and validated against the schemas.
// valuesYAML is a values file's text.
func render(t testing.TB, chart, namespace, valuesYAML string) ([]*unstructured.Unstructured, error) {
	t.Helper()
	return renderWith(t, chart, renderOptions{release: releaseName, namespace: namespace}, valuesYAML)
}

// renderOptions are what `helm template` takes besides the values.
type renderOptions struct {
	release, namespace string
	// apiVersions are extra API versions the cluster is assumed to serve
	// (helm template --api-versions), e.g. monitoring.coreos.com/v1.
	apiVersions []string
}

// renderWith is render with a release name and extra API versions.
func renderWith(t testing.TB, chart string, o renderOptions, valuesYAML string) ([]*unstructured.Unstructured, error) {
	t.Helper()
	chrt, err := loader.Load(chartPath(t, chart))
	if err != nil {
		t.Fatalf("loading %s: %v", chart, err)
	}
	vals, err := chartutil.ReadValues([]byte(valuesYAML))
	if err != nil {
		t.Fatalf("parsing test values: %v", err)
	}
	inst := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	inst.ClientOnly = true
	inst.DryRun = true
	inst.Replace = true
	inst.ReleaseName = o.release
	inst.Namespace = o.namespace
	inst.KubeVersion = kubeVersion
	inst.APIVersions = chartutil.VersionSet(o.apiVersions)
	rel, err := inst.Run(chrt, vals)
	if err != nil {
		return nil, err
	}
	return parseManifests(t, rel.Manifest), nil
}

// parseManifests splits a multi-document manifest in Helm's install order and
// parses each non-empty document.
func parseManifests(t testing.TB, manifest string) []*unstructured.Unstructured {
	t.Helper()
	var objs []*unstructured.Unstructured
	manifests := releaseutil.SplitManifests(manifest)
	keys := make([]string, 0, len(manifests))
	for k := range manifests {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	for _, k := range keys {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(manifests[k]), &m); err != nil {
			t.Fatalf("rendered manifest does not parse: %v\n%s", err, manifests[k])
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
	return objs
}

// mustRender is render for values that must be accepted.
func mustRender(t testing.TB, chart, namespace, valuesYAML string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := render(t, chart, namespace, valuesYAML)
	if err != nil {
		t.Fatalf("rendering %s with values\n%s\nfailed: %v", chart, valuesYAML, err)
	}
	return objs
}

// find returns the rendered objects of a kind.
func find(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// only returns the one rendered object of a kind.
func only(t testing.TB, objs []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	t.Helper()
	found := find(objs, kind)
	if len(found) != 1 {
		t.Fatalf("want exactly one %s, rendered %d: %s", kind, len(found), describe(objs))
	}
	return found[0]
}

func describe(objs []*unstructured.Unstructured) string {
	var s []string
	for _, o := range objs {
		s = append(s, fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName()))
	}
	return strings.Join(s, ", ")
}

// operatorContainer returns the operator Deployment's container "manager".
func operatorContainer(t testing.TB, objs []*unstructured.Unstructured) map[string]any {
	t.Helper()
	dep := only(t, objs, "Deployment")
	containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		if c := c.(map[string]any); c["name"] == "manager" {
			return c
		}
	}
	t.Fatalf("Deployment %s has no container named manager", dep.GetName())
	return nil
}

// operatorArgs returns the operator container's arguments.
func operatorArgs(t testing.TB, objs []*unstructured.Unstructured) []string {
	t.Helper()
	var args []string
	raw, _ := operatorContainer(t, objs)["args"].([]any)
	for _, a := range raw {
		args = append(args, fmt.Sprint(a))
	}
	return args
}
