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
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// configHashAnnotation is the pod annotation that restarts a component's pods
// when its .conf changes; the name and the value (8 hex digits) are upstream's,
// so that an upgrade from the upstream chart restarts nothing.
func configHashAnnotation(component string) string {
	return "app.starrocks.io/" + component + "-config-hash"
}

var shortHash = regexp.MustCompile(`^[0-9a-f]{8}$`)

func TestStarRocksChartWiresConfFilesThroughConfigMaps(t *testing.T) {
	objs := mustRender(t, starrocksChart, "analytics", `starrocksCluster:
  name: sr
  enabledCn: true
starrocksFESpec:
  annotations:
    team: data
`)
	cluster := only(t, objs, "StarRocksCluster")
	if cluster.GetName() != "sr" || cluster.GetNamespace() != "analytics" {
		t.Errorf("StarRocksCluster is %s/%s, want analytics/sr", cluster.GetNamespace(), cluster.GetName())
	}
	configMaps := map[string]*unstructured.Unstructured{}
	for _, cm := range find(objs, "ConfigMap") {
		configMaps[cm.GetName()] = cm
	}
	for _, c := range []struct{ component, spec, key, configMap string }{
		{"fe", "starRocksFeSpec", "fe.conf", "sr-fe-cm"},
		{"be", "starRocksBeSpec", "be.conf", "sr-be-cm"},
		{"cn", "starRocksCnSpec", "cn.conf", "sr-cn-cm"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			info, _, _ := unstructured.NestedStringMap(cluster.Object, "spec", c.spec, "configMapInfo")
			if info["configMapName"] != c.configMap || info["resolveKey"] != c.key {
				t.Errorf("configMapInfo = %v, want %s/%s", info, c.configMap, c.key)
			}
			cm := configMaps[c.configMap]
			if cm == nil {
				t.Fatalf("ConfigMap %s not rendered", c.configMap)
			}
			if cm.GetNamespace() != "analytics" {
				t.Errorf("ConfigMap %s is in namespace %q, want the cluster's", c.configMap, cm.GetNamespace())
			}
			conf, _, _ := unstructured.NestedString(cm.Object, "data", c.key)
			if conf == "" {
				t.Fatalf("ConfigMap %s has no %s", c.configMap, c.key)
			}
			annotations, _, _ := unstructured.NestedStringMap(cluster.Object, "spec", c.spec, "annotations")
			if got := annotations[configHashAnnotation(c.component)]; !shortHash.MatchString(got) {
				t.Errorf("%s = %q, want 8 hex digits", configHashAnnotation(c.component), got)
			}
		})
	}
	annotations, _, _ := unstructured.NestedStringMap(cluster.Object, "spec", "starRocksFeSpec", "annotations")
	if annotations["team"] != "data" {
		t.Errorf("the FE pod annotations from values were lost: %v", annotations)
	}
}

func TestStarRocksConfigHashChangesWithTheConfig(t *testing.T) {
	hash := func(conf string) string {
		objs := mustRender(t, starrocksChart, "default", "starrocksFESpec:\n  config: "+conf+"\n")
		h, _, _ := unstructured.NestedString(only(t, objs, "StarRocksCluster").Object, "spec", "starRocksFeSpec", "annotations", configHashAnnotation("fe"))
		return h
	}
	if a, b := hash("\"http_port = 8030\\n\""), hash("\"http_port = 8031\\n\""); a == "" || a == b {
		t.Errorf("config hashes %q and %q: want two different non-empty hashes", a, b)
	}
}

func TestStarRocksComponentsFollowTheirSwitches(t *testing.T) {
	cases := []struct {
		name       string
		values     string
		wantSpecs  []string
		noSpecs    []string
		configMaps int
	}{
		{"defaults: FE and BE", "", []string{"starRocksFeSpec", "starRocksBeSpec"}, []string{"starRocksCnSpec", "starRocksFeProxySpec"}, 2},
		{"CN instead of BE, with the FE proxy", "starrocksCluster:\n  enabledBe: false\n  enabledCn: true\nstarrocksFeProxySpec:\n  enabled: true\n",
			[]string{"starRocksFeSpec", "starRocksCnSpec", "starRocksFeProxySpec"}, []string{"starRocksBeSpec"}, 2},
		{"an empty config still has its ConfigMap, as upstream", "starrocksBeSpec:\n  config: \"\"\n", []string{"starRocksFeSpec", "starRocksBeSpec"}, nil, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := mustRender(t, starrocksChart, "default", tc.values)
			spec, _, _ := unstructured.NestedMap(only(t, objs, "StarRocksCluster").Object, "spec")
			for _, s := range tc.wantSpecs {
				if _, ok := spec[s]; !ok {
					t.Errorf("spec.%s missing", s)
				}
			}
			for _, s := range tc.noSpecs {
				if _, ok := spec[s]; ok {
					t.Errorf("spec.%s rendered", s)
				}
			}
			if got := len(find(objs, "ConfigMap")); got != tc.configMaps {
				t.Errorf("%d ConfigMaps rendered, want %d", got, tc.configMaps)
			}
		})
	}
	objs := mustRender(t, parentChart, "default", "starrocks:\n  starrocksCluster:\n    enabled: false\n")
	if n := len(find(objs, "StarRocksCluster")) + len(find(objs, "ConfigMap")); n != 0 {
		t.Errorf("starrocks.starrocksCluster.enabled=false still renders %d StarRocks objects", n)
	}
}

// A typo in a values file must fail the render and name the key, at any depth
// and through the parent chart, instead of being silently dropped.
func TestStarRocksSchemaRejectsUnknownKeysNamingThem(t *testing.T) {
	cases := []struct {
		chart, values, key string
	}{
		{starrocksChart, "starrocksCluster:\n  enabledCN: true\n", "enabledCN"},
		{starrocksChart, "starrocksFESpec:\n  replica: 3\n", "replica"},
		{starrocksChart, "starrocksBeSpec:\n  storageSpec:\n    storageSzie: 1Ti\n", "storageSzie"},
		{starrocksChart, "initPasword:\n  enabled: true\n", "initPasword"},
		{parentChart, "starrocks:\n  starrocksCnSpec:\n    tolerationz: []\n", "tolerationz"},
		{warehouseChart, "spec:\n  starRocksClusterName: a\n  replica: 2\n", "replica"},
	}
	for _, tc := range cases {
		t.Run(tc.chart+" "+tc.key, func(t *testing.T) {
			_, err := render(t, tc.chart, "default", tc.values)
			if err == nil {
				t.Fatalf("values with the unknown key %q rendered", tc.key)
			}
			if !strings.Contains(err.Error(), "'"+tc.key+"'") {
				t.Errorf("the error does not name %q: %v", tc.key, err)
			}
		})
	}
	// Keys that have no default but are upstream's, and free-form maps, pass.
	mustRender(t, starrocksChart, "default", `starrocksFESpec:
  feEnvVars: {A: "1"}
  resources:
    limits: {cpu: unlimited, ephemeral-storage: 10Gi}
  annotations: {any/key: v}
  configyaml: {any_key: 1}
starrocksCnSpec:
  cnEnvVars: [{name: A, value: "1"}]
global: {}
`)
}
