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
	"maps"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestStorageClassNameIsRenderedOnlyWhenSet: a storage volume of storageSpec
// whose class the user leaves unset carries no storageClassName at all, as in
// the upstream chart (which renders a null there). The claim then gets the
// cluster's default StorageClass; a storageClassName of "" would instead ask
// for a pre-made PersistentVolume without a class and stay Pending. An
// explicit "" renders nothing either: the upstream chart makes no difference
// between "" and unset (its own default is ""), and neither do we. A class the
// user names is rendered as given, on the volumes it applies to.
func TestStorageClassNameIsRenderedOnlyWhenSet(t *testing.T) {
	cases := []struct {
		name   string
		chart  string
		values string
		// kind of the rendered object and the path of its storageVolumes.
		kind string
		path []string
		// volumes is every volume that must be rendered, in order.
		volumes []string
		// classes is the storageClassName of each volume that has one; a
		// volume not named here must have no storageClassName key.
		classes map[string]string
	}{{
		name:    "FE meta and log, no class",
		chart:   starrocksChart,
		values:  "starrocksFESpec:\n  storageSpec:\n    name: meta\n    storageSize: 50Gi\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksFeSpec", "storageVolumes"},
		volumes: []string{"meta-meta", "meta-log"},
	}, {
		name:    "FE with an explicit empty class, as upstream: no class",
		chart:   starrocksChart,
		values:  "starrocksFESpec:\n  storageSpec:\n    name: fe\n    storageClassName: \"\"\n    logStorageClassName: \"\"\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksFeSpec", "storageVolumes"},
		volumes: []string{"fe-meta", "fe-log"},
	}, {
		name:    "FE with a null class: no class",
		chart:   starrocksChart,
		values:  "starrocksFESpec:\n  storageSpec:\n    name: fe\n    storageClassName: null\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksFeSpec", "storageVolumes"},
		volumes: []string{"fe-meta", "fe-log"},
	}, {
		name:    "FE class: meta and log",
		chart:   starrocksChart,
		values:  "starrocksFESpec:\n  storageSpec:\n    name: fe\n    storageClassName: fast\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksFeSpec", "storageVolumes"},
		volumes: []string{"fe-meta", "fe-log"},
		classes: map[string]string{"fe-meta": "fast", "fe-log": "fast"},
	}, {
		name:    "FE log class only: the log volume alone",
		chart:   starrocksChart,
		values:  "starrocksFESpec:\n  storageSpec:\n    name: fe\n    logStorageClassName: slow\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksFeSpec", "storageVolumes"},
		volumes: []string{"fe-meta", "fe-log"},
		classes: map[string]string{"fe-log": "slow"},
	}, {
		name:    "BE one data disk, log and spill, no class",
		chart:   starrocksChart,
		values:  "starrocksBeSpec:\n  storageSpec:\n    name: be\n    spillStorageSize: 100Gi\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksBeSpec", "storageVolumes"},
		volumes: []string{"be-data", "be-log", "be-spill"},
	}, {
		name:    "BE three data disks, log and spill, no class",
		chart:   starrocksChart,
		values:  "starrocksBeSpec:\n  storageSpec:\n    name: be\n    storageCount: 3\n    spillStorageSize: 100Gi\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksBeSpec", "storageVolumes"},
		volumes: []string{"be0-data", "be1-data", "be2-data", "be-log", "be-spill"},
	}, {
		name:  "BE three data disks with explicit empty classes, as upstream: no class",
		chart: starrocksChart,
		values: `starrocksBeSpec:
  storageSpec:
    name: be
    storageClassName: ""
    storageCount: 3
    logStorageClassName: ""
    spillStorageClassName: ""
`,
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksBeSpec", "storageVolumes"},
		volumes: []string{"be0-data", "be1-data", "be2-data", "be-log", "be-spill"},
	}, {
		name:    "BE one data disk, class: every volume",
		chart:   starrocksChart,
		values:  "starrocksBeSpec:\n  storageSpec:\n    name: be\n    storageClassName: fast\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksBeSpec", "storageVolumes"},
		volumes: []string{"be-data", "be-log", "be-spill"},
		classes: map[string]string{"be-data": "fast", "be-log": "fast", "be-spill": "fast"},
	}, {
		name:  "BE two data disks, own log and spill classes",
		chart: starrocksChart,
		values: `starrocksBeSpec:
  storageSpec:
    name: be
    storageClassName: fast
    storageCount: 2
    logStorageClassName: slow
    spillStorageClassName: cheap
`,
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksBeSpec", "storageVolumes"},
		volumes: []string{"be0-data", "be1-data", "be-log", "be-spill"},
		classes: map[string]string{"be0-data": "fast", "be1-data": "fast", "be-log": "slow", "be-spill": "cheap"},
	}, {
		name:    "BE two data disks, spill class only: the spill volume alone",
		chart:   starrocksChart,
		values:  "starrocksBeSpec:\n  storageSpec:\n    name: be\n    storageCount: 2\n    spillStorageClassName: cheap\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksBeSpec", "storageVolumes"},
		volumes: []string{"be0-data", "be1-data", "be-log", "be-spill"},
		classes: map[string]string{"be-spill": "cheap"},
	}, {
		name:    "CN one data disk, log and spill, no class",
		chart:   starrocksChart,
		values:  "starrocksCluster:\n  enabledCn: true\nstarrocksCnSpec:\n  storageSpec:\n    name: cn\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksCnSpec", "storageVolumes"},
		volumes: []string{"cn-data", "cn-log", "cn-spill"},
	}, {
		name:    "CN two data disks, log and spill, no class",
		chart:   starrocksChart,
		values:  "starrocksCluster:\n  enabledCn: true\nstarrocksCnSpec:\n  storageSpec:\n    name: cn\n    storageCount: 2\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksCnSpec", "storageVolumes"},
		volumes: []string{"cn0-data", "cn1-data", "cn-log", "cn-spill"},
	}, {
		name:  "CN two data disks, class, own log class",
		chart: starrocksChart,
		values: `starrocksCluster:
  enabledCn: true
starrocksCnSpec:
  storageSpec:
    name: cn
    storageClassName: fast
    storageCount: 2
    logStorageClassName: slow
`,
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksCnSpec", "storageVolumes"},
		volumes: []string{"cn0-data", "cn1-data", "cn-log", "cn-spill"},
		classes: map[string]string{"cn0-data": "fast", "cn1-data": "fast", "cn-log": "slow", "cn-spill": "fast"},
	}, {
		name:    "CN log and spill classes only",
		chart:   starrocksChart,
		values:  "starrocksCluster:\n  enabledCn: true\nstarrocksCnSpec:\n  storageSpec:\n    name: cn\n    logStorageClassName: slow\n    spillStorageClassName: cheap\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksCnSpec", "storageVolumes"},
		volumes: []string{"cn-data", "cn-log", "cn-spill"},
		classes: map[string]string{"cn-log": "slow", "cn-spill": "cheap"},
	}, {
		name:    "emptyDirs and hostPaths keep their special classes beside claims without one",
		chart:   starrocksChart,
		values:  "starrocksBeSpec:\n  storageSpec:\n    name: be\n  emptyDirs:\n    - {name: tmp, mountPath: /tmp}\n  hostPaths:\n    - {name: host, mountPath: /host, hostPath: {path: /data}}\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksBeSpec", "storageVolumes"},
		volumes: []string{"be-data", "be-log", "be-spill", "tmp", "host"},
		classes: map[string]string{"tmp": "emptyDir", "host": "hostPath"},
	}, {
		name:  "parent chart: FE, BE and CN, no class",
		chart: parentChart,
		values: `starrocks:
  starrocksCluster:
    enabledCn: true
  starrocksFESpec:
    storageSpec: {name: fe}
  starrocksBeSpec:
    storageSpec: {name: be, storageCount: 2}
  starrocksCnSpec:
    storageSpec: {name: cn}
`,
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksBeSpec", "storageVolumes"},
		volumes: []string{"be0-data", "be1-data", "be-log", "be-spill"},
	}, {
		name:    "parent chart: BE class",
		chart:   parentChart,
		values:  "starrocks:\n  starrocksBeSpec:\n    storageSpec: {name: be, storageClassName: fast}\n",
		kind:    "StarRocksCluster",
		path:    []string{"spec", "starRocksBeSpec", "storageVolumes"},
		volumes: []string{"be-data", "be-log", "be-spill"},
		classes: map[string]string{"be-data": "fast", "be-log": "fast", "be-spill": "fast"},
	}, {
		name:    "warehouse data and log, no class",
		chart:   warehouseChart,
		values:  "spec:\n  starRocksClusterName: kube-starrocks\n  storageSpec:\n    name: wh\n",
		kind:    "StarRocksWarehouse",
		path:    []string{"spec", "template", "storageVolumes"},
		volumes: []string{"wh-data", "wh-log"},
	}, {
		name:    "warehouse class: data and log",
		chart:   warehouseChart,
		values:  "spec:\n  starRocksClusterName: kube-starrocks\n  storageSpec:\n    name: wh\n    storageClassName: fast\n",
		kind:    "StarRocksWarehouse",
		path:    []string{"spec", "template", "storageVolumes"},
		volumes: []string{"wh-data", "wh-log"},
		classes: map[string]string{"wh-data": "fast", "wh-log": "fast"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := only(t, mustRender(t, tc.chart, "starrocks", tc.values), tc.kind)
			raw, _, _ := unstructured.NestedSlice(obj.Object, tc.path...)
			var names []string
			for _, v := range raw {
				m, _ := v.(map[string]any)
				n, _ := m["name"].(string)
				names = append(names, n)
			}
			if !slices.Equal(names, tc.volumes) {
				t.Errorf("volumes %q, want %q", names, tc.volumes)
			}
			// Every storageClassName anywhere in the object: only the
			// volumes' that were set, with the value set.
			want := map[string]string{}
			for v, class := range tc.classes {
				want[fmt.Sprintf("%s[%s]", joinPath(tc.path), v)] = class
			}
			got := map[string]any{}
			storageClassNames(obj.Object, "", got)
			if !maps.EqualFunc(got, want, func(g any, w string) bool { return g == w }) {
				for _, k := range slices.Sorted(maps.Keys(got)) {
					if _, ok := want[k]; !ok {
						t.Errorf("%s.storageClassName: %#v rendered; want no key (the default StorageClass)", k, got[k])
					}
				}
				for _, k := range slices.Sorted(maps.Keys(want)) {
					if g, ok := got[k]; !ok || g != want[k] {
						t.Errorf("%s.storageClassName: %#v (present: %t), want %q", k, g, ok, want[k])
					}
				}
			}
		})
	}
}

func joinPath(path []string) string {
	out := ""
	for _, p := range path {
		out = join(out, p)
	}
	return out
}

// storageClassNames records, under the path of the map that holds it (list
// items named by their name), every storageClassName key below v.
func storageClassNames(v any, path string, out map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "storageClassName" {
				out[path] = e
				continue
			}
			storageClassNames(e, join(path, k), out)
		}
	case []any:
		for i, e := range x {
			storageClassNames(e, fmt.Sprintf("%s[%s]", path, itemName(e, i)), out)
		}
	}
}
