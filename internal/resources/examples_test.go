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
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/test/upstreamref"
)

// samples are our own example manifests, the ones users copy.
const samples = "../../config/samples"

var documentSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// loadExample decodes the StarRocksCluster of a manifest (strictly: every
// field must exist in our types) and the ConfigMaps beside it.
func loadExample(t *testing.T, file string) (*srv1.StarRocksCluster, map[string]corev1.ConfigMap) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var src *srv1.StarRocksCluster
	configMaps := map[string]corev1.ConfigMap{}
	for _, doc := range documentSeparator.Split(string(data), -1) {
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		switch head.Kind {
		case "StarRocksCluster":
			src = &srv1.StarRocksCluster{}
			if err := yaml.UnmarshalStrict([]byte(doc), src); err != nil {
				t.Fatalf("%s: decoding the StarRocksCluster: %v", file, err)
			}
		case "ConfigMap":
			var cm corev1.ConfigMap
			if err := yaml.Unmarshal([]byte(doc), &cm); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			configMaps[cm.Name] = cm
		}
	}
	if src == nil {
		t.Fatalf("%s has no StarRocksCluster", file)
	}
	if src.Namespace == "" {
		src.Namespace = "default" // what kubectl apply would use
	}
	src.UID = "example-uid"
	return src, configMaps
}

// exampleConfigs are the .conf files the manifest's configMapInfo entries name.
func exampleConfigs(src *srv1.StarRocksCluster, cms map[string]corev1.ConfigMap) map[Component]Config {
	conf := func(info srv1.ConfigMapInfo) string {
		return cms[info.ConfigMapName].Data[info.ResolveKey]
	}
	var fe string
	if s := src.Spec.StarRocksFeSpec; s != nil {
		fe = conf(s.ConfigMapInfo)
	}
	out := map[Component]Config{
		ComponentFE:      {Content: fe},
		ComponentFEProxy: {FEContent: fe},
	}
	if s := src.Spec.StarRocksBeSpec; s != nil {
		out[ComponentBE] = Config{Content: conf(s.ConfigMapInfo), FEContent: fe}
	}
	if s := src.Spec.StarRocksCnSpec; s != nil {
		out[ComponentCN] = Config{Content: conf(s.ConfigMapInfo), FEContent: fe}
	}
	return out
}

func TestSamplesBuildValidObjects(t *testing.T) {
	testManifestsBuildValidObjects(t, samples)
}

// The upstream operator's examples must work unchanged with our builders: the
// same manifests, the same objects.
func TestUpstreamExamplesBuildValidObjects(t *testing.T) {
	testManifestsBuildValidObjects(t, upstreamref.Path(t, "upstream-examples"))
}

func testManifestsBuildValidObjects(t *testing.T, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == "kustomization.yaml" })
	if len(files) == 0 {
		t.Fatalf("no manifests in %s", dir)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			src, cms := loadExample(t, file)
			cfgs := exampleConfigs(src, cms)
			objs := buildAll(src, cfgs)

			want := 0
			for _, present := range []bool{src.Spec.StarRocksFeSpec != nil, src.Spec.StarRocksBeSpec != nil,
				src.Spec.StarRocksCnSpec != nil, src.Spec.StarRocksFeProxySpec != nil} {
				if present {
					want += 3
				}
			}
			if src.Spec.StarRocksCnSpec != nil && src.Spec.StarRocksCnSpec.AutoScalingPolicy != nil {
				want++
			}
			// A disruption budget for each component of more than one pod.
			for _, spec := range []*srv1.StarRocksLoadSpec{LoadSpec(src, ComponentFE), LoadSpec(src, ComponentBE), LoadSpec(src, ComponentCN)} {
				if spec != nil && ptr.Deref(spec.Replicas, 1) > 1 {
					want++
				}
			}
			if cn := src.Spec.StarRocksCnSpec; cn != nil && ptr.Deref(cn.Replicas, 1) <= 1 && cn.AutoScalingPolicy != nil && cn.AutoScalingPolicy.MaxReplicas > 1 {
				want++ // the most the HPA may run decides
			}
			if len(objs) != want {
				t.Errorf("%d objects, want %d: %v", len(objs), want, kindsAndNames(objs))
			}
			seen := map[string]bool{}
			for _, o := range objs {
				key := o.GetObjectKind().GroupVersionKind().Kind + "/" + o.GetName()
				if seen[key] {
					t.Errorf("%s built twice", key)
				}
				seen[key] = true
				for _, e := range validate(o) {
					t.Errorf("%s: %s", key, e)
				}
			}
			for c, cfg := range cfgs {
				if cfg.Content == "" || c == ComponentFEProxy {
					continue
				}
				s := sts(t, src, c, cfg)
				if s.Annotations[ConfigHashAnnotation] != configHash(cfg.Content) {
					t.Errorf("%s: configMapInfo content not hashed onto the StatefulSet", c)
				}
				if got := volumeKind(t, s, configMapMountPath(c)); !strings.HasPrefix(got, "configMap:") {
					t.Errorf("%s: configMapInfo not mounted: %q", c, got)
				}
			}
		})
	}
}

func TestSampleDetails(t *testing.T) {
	t.Run("persistent storage example makes claims, no default emptyDirs", func(t *testing.T) {
		src, _ := loadExample(t, filepath.Join(samples, "starrocks_v1_starrockscluster_persistent_storage.yaml"))
		s := sts(t, src, ComponentBE, Config{})
		if got := volumeKind(t, s, "/opt/starrocks/be/storage"); got != "claim:<default>:200Gi" {
			t.Errorf("BE data: %q", got)
		}
		for _, v := range s.Spec.Template.Spec.Volumes {
			if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != v.Name {
				t.Errorf("unexpected volume %+v", v)
			}
		}
	})
	t.Run("CN example mixes hostPath and a claim under an HPA", func(t *testing.T) {
		src, _ := loadExample(t, filepath.Join(samples, "starrocks_v1_starrockscluster_cn_autoscaling.yaml"))
		s := sts(t, src, ComponentCN, Config{})
		if got := volumeKind(t, s, "/opt/starrocks/cn/storage"); got != "hostPath:/mnt/starrocks/cn-cache" {
			t.Errorf("CN cache: %q", got)
		}
		if got := volumeKind(t, s, "/opt/starrocks/cn/log"); got != "claim:<default>:2Gi" {
			t.Errorf("CN log: %q", got)
		}
		if s.Spec.Replicas == nil {
			t.Error("CN replicas unset: the HPA scales the cluster, the StatefulSet follows the spec")
		}
	})
}
