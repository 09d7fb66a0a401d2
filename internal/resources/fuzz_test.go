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
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// FuzzBuild feeds arbitrary specs and .conf files to the builders: they must
// not panic, must be deterministic, and must name every object validly.
// `make test` runs the seeds (our samples and testdata/fuzz/FuzzBuild);
// `go test -fuzz FuzzBuild ./internal/resources/` searches further.
func FuzzBuild(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(samples, "starrocks_v1_*.yaml"))
	for _, file := range files {
		src, _ := loadExampleFile(file)
		if src == nil {
			continue
		}
		spec, err := json.Marshal(src.Spec)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(spec, "http_port = 8030\nquery_port = 9030\n", "be_port = 9060\n")
	}
	f.Fuzz(func(t *testing.T, spec []byte, feConf, beConf string) {
		src := newCluster()
		if err := json.Unmarshal(spec, &src.Spec); err != nil {
			t.Skip()
		}
		cfg := Configs{FE: feConf, BE: beConf, CN: beConf}
		first, second := Build(src, cfg), Build(src, cfg)
		if !reflect.DeepEqual(first, second) {
			t.Fatal("two builds of the same input differ")
		}
		for _, c := range Components {
			for _, o := range first.Of(c) {
				if errs := validation.IsDNS1123Subdomain(o.GetName()); len(errs) > 0 {
					t.Fatalf("%s %q: %v", c, o.GetName(), errs)
				}
				if o.GetNamespace() != src.Namespace {
					t.Fatalf("%s %q in namespace %q", c, o.GetName(), o.GetNamespace())
				}
			}
		}
	})
}

// FuzzParseConf: whatever a .conf holds, the ports that come out of it are
// valid port numbers, and parsing never panics.
func FuzzParseConf(f *testing.F) {
	for _, seed := range []string{
		"http_port = 8030\nquery_port=9030\n",
		"# comment\nhttp_port = \"8031\" # trailing\n",
		"http_port = abc\nquery_port = 99999\nrpc_port = -1\n",
		"JAVA_OPTS=\"-Xmx8192m -XX:+UseG1GC\"\n",
		"=\n==\n\x00\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		for _, c := range []Component{ComponentFE, ComponentBE, ComponentCN} {
			for key, port := range Ports(c, Config{Content: content}) {
				if port < 1 || port > 65535 {
					t.Fatalf("%s %s = %d from %q", c, key, port, content)
				}
			}
		}
	})
}

// loadExampleFile decodes the StarRocksCluster of a manifest, nil if it has none.
func loadExampleFile(file string) (*srv1.StarRocksCluster, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	for _, doc := range documentSeparator.Split(string(data), -1) {
		var head struct{ Kind string }
		if yaml.Unmarshal([]byte(doc), &head) != nil || head.Kind != "StarRocksCluster" {
			continue
		}
		src := &srv1.StarRocksCluster{}
		if err := yaml.Unmarshal([]byte(doc), src); err != nil {
			return nil, err
		}
		return src, nil
	}
	return nil, nil
}
