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
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/srscale/starrocks-operator/hack/helmgen/chartgen"
)

func TestGeneratedChartFilesAreFresh(t *testing.T) {
	stale, err := chartgen.Check(repoRoot(t))
	if err != nil {
		t.Fatalf("checking the generated chart files: %v", err)
	}
	for _, s := range stale {
		t.Errorf("stale: %s", s)
	}
	if len(stale) > 0 {
		t.Errorf("run %s and commit the result", chartgen.Command)
	}
}

// TestStaleGeneratedFilesAreNamed changes each kind of source and generated
// file in a copy of the tree and expects the check to name exactly the files
// that are then stale, and the generator to repair them.
func TestStaleGeneratedFilesAreNamed(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, root string)
		want   []string
	}{{
		name:   "an edited vendored subchart",
		change: appendTo("charts/kube-starrocks/charts/operator/templates/deployment.yaml", "# edited by hand\n"),
		want:   []string{"charts/kube-starrocks/charts/operator/templates/deployment.yaml (out of date)"},
	}, {
		name:   "a subchart edited without regenerating",
		change: appendTo("charts/starrocks/templates/configmaps.yaml", "# new\n"),
		want:   []string{"charts/kube-starrocks/charts/starrocks/templates/configmaps.yaml (out of date)"},
	}, {
		name:   "a new subchart value",
		change: appendTo("charts/operator/values.yaml", "# A new value.\nnewValue: 1\n"),
		want: []string{
			"charts/kube-starrocks/charts/operator/values.yaml (out of date)",
			"charts/kube-starrocks/values.yaml (out of date)",
		},
	}, {
		name:   "a new RBAC rule from a kubebuilder marker",
		change: appendTo("config/rbac/role.yaml", "- apiGroups:\n  - apps\n  resources:\n  - statefulsets\n  verbs:\n  - get\n"),
		want: []string{
			"charts/kube-starrocks/charts/operator/templates/_rules.tpl (out of date)",
			"charts/operator/templates/_rules.tpl (out of date)",
		},
	}, {
		name:   "a changed CRD",
		change: appendTo("config/crd/bases/starrocks.com_starrocksclusters.yaml", "\n"),
		want: []string{
			"charts/kube-starrocks/charts/operator/crds/starrocks.com_starrocksclusters.yaml (out of date)",
			"charts/operator/crds/starrocks.com_starrocksclusters.yaml (out of date)",
		},
	}, {
		name:   "a packaged subchart left by helm dependency update",
		change: writeFile("charts/kube-starrocks/charts/operator-0.1.0.tgz", "not a chart"),
		want:   []string{"charts/kube-starrocks/charts/operator-0.1.0.tgz (not generated: remove it)"},
	}, {
		name:   "a removed vendored file",
		change: remove("charts/kube-starrocks/charts/starrocks/values.yaml"),
		want:   []string{"charts/kube-starrocks/charts/starrocks/values.yaml (missing)"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := copyTree(t)
			tc.change(t, root)
			stale, err := chartgen.Check(root)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(stale, tc.want) {
				t.Errorf("stale files:\n  %s\nwant:\n  %s", strings.Join(stale, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if _, err := chartgen.Generate(root); err != nil {
				t.Fatalf("regenerating: %v", err)
			}
			if stale, err := chartgen.Check(root); err != nil || len(stale) > 0 {
				t.Errorf("after regenerating, stale files %q, error %v", stale, err)
			}
		})
	}
}

// copyTree copies the generator's inputs and outputs into a temporary root.
func copyTree(t *testing.T) string {
	t.Helper()
	src, dst := repoRoot(t), t.TempDir()
	for _, dir := range []string{"charts", "config/crd/bases", "config/rbac"} {
		err := filepath.WalkDir(filepath.Join(src, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
		})
		if err != nil {
			t.Fatalf("copying %s: %v", dir, err)
		}
	}
	return dst
}

func appendTo(name, text string) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		f, err := os.OpenFile(filepath.Join(root, name), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString(text)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(name, text string) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func remove(name string) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		if err := os.Remove(filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHelmgenCheckFailsNamingStaleFiles runs the command as `make helm` and CI
// do: --check exits non-zero and names the stale file; a run without --check
// repairs the tree.
func TestHelmgenCheckFailsNamingStaleFiles(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "helmgen")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "./hack/helmgen")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building helmgen: %v\n%s", err, out)
	}
	root := copyTree(t)
	const stale = "charts/kube-starrocks/charts/starrocks/values.yaml"
	appendTo(stale, "# edited by hand\n")(t, root)

	out, err := exec.Command(bin, "--check", "--root", root).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("helmgen --check on a stale tree: error %v, want a non-zero exit\n%s", err, out)
	}
	if !strings.Contains(string(out), stale) {
		t.Errorf("helmgen --check does not name %s:\n%s", stale, out)
	}
	if out, err := exec.Command(bin, "--root", root).CombinedOutput(); err != nil {
		t.Fatalf("helmgen: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "--check", "--root", root).CombinedOutput(); err != nil {
		t.Errorf("helmgen --check after regenerating: %v\n%s", err, out)
	}
}
