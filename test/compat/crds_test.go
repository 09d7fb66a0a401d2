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

package compat

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/srscale/starrocks-operator/internal/test/upstreamref"
)

// Paths are relative to this directory.
const (
	ourCRDDir  = "../../config/crd/bases"
	samplesDir = "../../config/samples"
	invalidDir = "testdata/invalid"
	validDir   = "testdata/valid"
)

// The upstream operator's CRDs and examples come from the reference directory
// (see internal/test/upstreamref): without it, the tests that compare skip.
func upstreamCRDDir(t *testing.T) string {
	t.Helper()
	return upstreamref.Path(t, "upstream-crds")
}

func upstreamExamplesDir(t *testing.T) string {
	t.Helper()
	return upstreamref.Path(t, "upstream-examples")
}

// crdFiles are the CRDs of the contract; upstream and ours use the same file names.
var crdFiles = []string{
	"starrocks.com_starrocksclusters.yaml",
	"starrocks.com_starrockswarehouses.yaml",
}

func loadCRD(t *testing.T, path string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading CRD: %v", err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		t.Fatalf("decoding CRD %s: %v", path, err)
	}
	return &crd
}

// version returns the v1 version of a CRD, failing the test if it has none.
func version(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinitionVersion {
	t.Helper()
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == "v1" {
			return &crd.Spec.Versions[i]
		}
	}
	t.Fatalf("CRD %s has no version v1", crd.Name)
	return nil
}

func yamlFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// A kustomization lists manifests; it is not one.
	files = slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == "kustomization.yaml" })
	if len(files) == 0 {
		t.Fatalf("no YAML files in %s", dir)
	}
	return files
}

// manifest is one document of a test manifest file, with the file's header comments.
type manifest struct {
	obj      *unstructured.Unstructured
	caseName string   // from "# case: ..."
	expect   []string // from "# expect: ..."
}

// readManifests decodes every non-empty document of a YAML file. Header lines
// "# case:" and "# expect:" at the top of a document belong to that document.
func readManifests(t *testing.T, file string) []manifest {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []manifest
	for _, raw := range strings.Split("\n"+string(data), "\n---") {
		var m manifest
		sc := bufio.NewScanner(strings.NewReader(raw))
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if v, ok := strings.CutPrefix(line, "# case:"); ok {
				m.caseName = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "# expect:"); ok {
				m.expect = append(m.expect, strings.TrimSpace(v))
			}
		}
		js, err := yaml.YAMLToJSON([]byte(raw))
		if err != nil {
			t.Fatalf("decoding %s: %v", file, err)
		}
		if js = bytes.TrimSpace(js); string(js) == "null" || string(js) == "{}" {
			continue
		}
		m.obj = &unstructured.Unstructured{}
		// UnmarshalJSON keeps integers as int64, as the API server returns them.
		if err := m.obj.UnmarshalJSON(js); err != nil {
			t.Fatalf("decoding %s: %v", file, err)
		}
		out = append(out, m)
	}
	return out
}
