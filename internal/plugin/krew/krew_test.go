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

package krew

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func archives() []Target {
	out := make([]Target, len(Targets))
	for i, t := range Targets {
		t.SHA256 = strings.Repeat(string(rune('a'+i)), 64)
		out[i] = t
	}
	return out
}

func committed(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "plugins", "starrocks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The committed manifest, rendered as `make plugin` renders it, passes
// krew's rules and lists the four archives with their sums.
func TestTheManifestValidates(t *testing.T) {
	out, err := Render(committed(t), "0.3.0", archives())
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(out, "starrocks")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if p.Spec.Version != "v0.3.0" || len(p.Spec.Platforms) != 4 {
		t.Fatalf("version %s, %d platforms", p.Spec.Version, len(p.Spec.Platforms))
	}
	for i, pl := range p.Spec.Platforms {
		want := Targets[i]
		if pl.Selector.MatchLabels["os"] != want.OS || pl.Selector.MatchLabels["arch"] != want.Arch || pl.Sha256 != archives()[i].SHA256 ||
			!strings.HasSuffix(pl.URI, "/v0.3.0/kubectl-starrocks_"+want.OS+"_"+want.Arch+".tar.gz") || pl.Bin != "kubectl-starrocks" {
			t.Errorf("platform %d: %+v", i, pl)
		}
	}
}

// Each rule fails on a manifest that breaks it: the checks are not
// satisfied by anything.
func TestBrokenManifestsAreRefused(t *testing.T) {
	good, err := Render(committed(t), "0.3.0", archives())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, from, to, want string
	}{
		{"a misspelt field", "shortDescription:", "shortDescripton:", "unknown field"},
		{"another apiVersion", "v1alpha2", "v1alpha1", "apiVersion"},
		{"a version without v", "version: v0.3.0", "version: 0.3.0", "not starting with 'v'"},
		{"a version that is no semver", "version: v0.3.0", "version: v0.3", "failed to parse plugin version"},
		{"a sum that is no SHA-256", strings.Repeat("a", 64), "abc", "`sha256` value abc is not valid"},
		{"an unsupported selector key", "os: linux", "distro: linux", `key "distro" not supported`},
		{"an archive selected twice", "arch: arm64", "arch: amd64", "selected twice"},
		{"no bin", "bin: kubectl-starrocks", "bin: \"\"", "`bin` has to be set"},
	}
	for _, tc := range cases {
		bad := strings.Replace(string(good), tc.from, tc.to, 1)
		if bad == string(good) {
			t.Fatalf("%s: %q not in the manifest", tc.name, tc.from)
		}
		if _, err := Parse([]byte(bad), "starrocks"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	if _, err := Parse(good, "other"); err == nil {
		t.Error("a manifest under another name passes")
	}
	if _, err := Render(committed(t), "0.3.0", []Target{{OS: "linux", Arch: "amd64"}}); err != nil {
		t.Fatal(err)
	}
}
