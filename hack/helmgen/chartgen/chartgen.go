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

// Package chartgen derives the Helm charts' generated files from the code: the
// operator chart's CRDs and RBAC rules, the strict values schemas of the
// starrocks and warehouse charts (from their values.yaml), the parent chart's
// values and its vendored copies of the subcharts. It computes the whole desired state first
// (Build), so that the same plan can be written (Write) or compared with the
// tree on disk (Stale).
package chartgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Paths relative to the repository root, with slashes.
const (
	CRDDir         = "config/crd/bases"
	RoleFile       = "config/rbac/role.yaml"
	OperatorChart  = "charts/operator"
	StarRocksChart = "charts/starrocks"
	ParentChart    = "charts/kube-starrocks"

	// RulesTemplate is the operator chart's template that holds the rules of RoleFile.
	RulesTemplate = OperatorChart + "/templates/_rules.tpl"
	// OperatorCRDDir is where Helm installs the operator chart's CRDs from.
	OperatorCRDDir = OperatorChart + "/crds"
	// ParentValues is generated from the subcharts' values.yaml.
	ParentValues = ParentChart + "/values.yaml"
	// VendoredCharts holds the parent chart's copies of its subcharts.
	VendoredCharts = ParentChart + "/charts"
)

// Command is how to regenerate; error messages and generated headers name it.
const Command = "make helm"

// subcharts are the parent's dependencies: the key of their values in the
// parent's values.yaml is their name.
var subcharts = []struct{ name, dir string }{
	{"operator", OperatorChart},
	{"starrocks", StarRocksChart},
}

// Plan is the desired content of every generated file.
type Plan struct {
	// Files maps a slash path relative to the root to its content.
	Files map[string][]byte
	// Owned are directories that hold generated files only: any other file in
	// them is stale and Write removes it.
	Owned []string
}

// Build reads the sources under root and returns the files to generate.
func Build(root string) (*Plan, error) {
	p := &Plan{Files: map[string][]byte{}, Owned: []string{OperatorCRDDir, VendoredCharts}}

	crds, err := crdFiles(root)
	if err != nil {
		return nil, err
	}
	for name, data := range crds {
		p.Files[OperatorCRDDir+"/"+name] = data
	}
	rules, err := rulesTemplate(root)
	if err != nil {
		return nil, err
	}
	p.Files[RulesTemplate] = rules
	schemas, err := schemaFiles(root)
	if err != nil {
		return nil, err
	}
	for name, data := range schemas {
		p.Files[name] = data
	}

	var values [][]byte
	for _, sc := range subcharts {
		files, err := readTree(root, sc.dir)
		if err != nil {
			return nil, err
		}
		// The vendored operator chart must carry the generated files, not what is on disk now.
		for rel := range files {
			if gen := sc.dir + "/" + rel; isUnder(gen, p.Owned) || p.Files[gen] != nil {
				delete(files, rel)
			}
		}
		for gen, data := range p.Files {
			if rel, ok := strings.CutPrefix(gen, sc.dir+"/"); ok {
				files[rel] = data
			}
		}
		for rel, data := range files {
			p.Files[VendoredCharts+"/"+sc.name+"/"+rel] = data
		}
		if err := checkDependencyVersion(root, sc.name, sc.dir); err != nil {
			return nil, err
		}
		if files["values.yaml"] == nil {
			return nil, fmt.Errorf("%s/values.yaml is missing", sc.dir)
		}
		values = append(values, files["values.yaml"])
	}
	parent, err := parentValues(values)
	if err != nil {
		return nil, err
	}
	p.Files[ParentValues] = parent
	return p, nil
}

// crdFiles returns the CRDs of CRDDir by file name, unchanged.
func crdFiles(root string) (map[string][]byte, error) {
	names, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(CRDDir), "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no CRDs in %s: run make generate", CRDDir)
	}
	out := map[string][]byte{}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out[filepath.Base(name)] = data
	}
	return out, nil
}

// rulesTemplate turns the ClusterRole that controller-gen writes from the
// kubebuilder markers into a named template, "operator.rules", that the chart's
// ClusterRole or Role includes.
func rulesTemplate(root string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(RoleFile)))
	if err != nil {
		return nil, fmt.Errorf("reading the operator's generated RBAC (run make generate): %w", err)
	}
	var rules []rbacv1.PolicyRule
	found := false
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", RoleFile, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var role rbacv1.ClusterRole
		if err := yaml.UnmarshalStrict(doc, &role); err != nil {
			return nil, fmt.Errorf("reading %s: %w", RoleFile, err)
		}
		if role.Kind != "ClusterRole" {
			// A namespaced Role would come from a namespace= marker, which the chart has no place for yet.
			return nil, fmt.Errorf("%s: found a %s %q; the chart only takes the rules of a ClusterRole", RoleFile, role.Kind, role.Name)
		}
		if found {
			return nil, fmt.Errorf("%s: more than one ClusterRole", RoleFile)
		}
		found = true
		rules = role.Rules
	}
	if !found {
		return nil, fmt.Errorf("%s holds no ClusterRole", RoleFile)
	}
	if rules == nil {
		rules = []rbacv1.PolicyRule{}
	}
	text, err := yaml.Marshal(rules)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(text, []byte("{{")) || bytes.Contains(text, []byte("}}")) {
		return nil, fmt.Errorf("%s: a rule contains template delimiters", RoleFile)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{{- /* Code generated from %s by %q; DO NOT EDIT. */ -}}\n", RoleFile, Command)
	b.WriteString("{{- define \"operator.rules\" -}}\n")
	b.Write(text)
	b.WriteString("{{- end -}}\n")
	return b.Bytes(), nil
}

// readTree returns the regular files under root/dir by slash path relative to dir.
func readTree(root, dir string) (map[string][]byte, error) {
	base := filepath.Join(root, filepath.FromSlash(dir))
	out := map[string][]byte{}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	return out, err
}

// checkDependencyVersion makes sure that the parent's Chart.yaml asks for the
// version of the subchart it vendors.
func checkDependencyVersion(root, name, dir string) error {
	type chartFile struct {
		Version      string `json:"version"`
		Dependencies []struct {
			Name       string `json:"name"`
			Version    string `json:"version"`
			Repository string `json:"repository"`
		} `json:"dependencies"`
	}
	read := func(dir string) (chartFile, error) {
		var c chartFile
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), "Chart.yaml"))
		if err == nil {
			err = yaml.Unmarshal(data, &c)
		}
		return c, err
	}
	sub, err := read(dir)
	if err != nil {
		return err
	}
	parent, err := read(ParentChart)
	if err != nil {
		return err
	}
	for _, d := range parent.Dependencies {
		if d.Name != name {
			continue
		}
		if want := "file://" + path.Join("..", path.Base(dir)); d.Repository != want {
			return fmt.Errorf("%s/Chart.yaml: dependency %s has repository %q, want %q", ParentChart, name, d.Repository, want)
		}
		if d.Version != sub.Version {
			return fmt.Errorf("%s/Chart.yaml: dependency %s has version %q but %s/Chart.yaml has %q", ParentChart, name, d.Version, dir, sub.Version)
		}
		return nil
	}
	return fmt.Errorf("%s/Chart.yaml has no dependency %s", ParentChart, name)
}

// parentValues nests each subchart's values.yaml under its name, as text, so that
// the comments that document each value stay.
func parentValues(values [][]byte) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Code generated by %q; DO NOT EDIT.\n", Command)
	b.WriteString("# The values of the subcharts, each under its name: edit ")
	for i, sc := range subcharts {
		if i > 0 {
			b.WriteString(" and ")
		}
		b.WriteString(sc.dir + "/values.yaml")
	}
	b.WriteString(" instead.\n")
	want := map[string]any{}
	for i, sc := range subcharts {
		text := values[i]
		for _, line := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(line, "---") || strings.HasPrefix(line, "...") || strings.HasPrefix(line, "%") {
				return nil, fmt.Errorf("%s/values.yaml: document markers and directives cannot be nested under the %s key", sc.dir, sc.name)
			}
		}
		fmt.Fprintf(&b, "\n%s:\n", sc.name)
		b.WriteString(indent(string(text), "  "))
		var v map[string]any
		if err := yaml.Unmarshal(text, &v); err != nil {
			return nil, fmt.Errorf("%s/values.yaml: %w", sc.dir, err)
		}
		want[sc.name] = v
	}
	// The text transformation must not change a single value.
	var got map[string]any
	if err := yaml.Unmarshal(b.Bytes(), &got); err != nil {
		return nil, fmt.Errorf("generated %s does not parse: %w", ParentValues, err)
	}
	if !reflect.DeepEqual(got, want) {
		return nil, fmt.Errorf("generated %s does not hold the subcharts' values unchanged", ParentValues)
	}
	return b.Bytes(), nil
}

// indent prefixes every non-empty line of text; the result ends with a newline.
func indent(text, prefix string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString(prefix)
			b.WriteString(strings.TrimRight(line, " \t"))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func isUnder(p string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// Stale lists the files under root that differ from the plan: out of date,
// missing, or in an owned directory without being generated. Sorted.
func (p *Plan) Stale(root string) ([]string, error) {
	var stale []string
	for _, name := range p.paths() {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			stale = append(stale, name+" (missing)")
		case err != nil:
			return nil, err
		case !bytes.Equal(data, p.Files[name]):
			stale = append(stale, name+" (out of date)")
		}
	}
	extra, err := p.extraFiles(root)
	if err != nil {
		return nil, err
	}
	for _, name := range extra {
		stale = append(stale, name+" (not generated: remove it)")
	}
	sort.Strings(stale)
	return stale, nil
}

// Write brings root to the plan and returns the paths it wrote or removed.
func (p *Plan) Write(root string) ([]string, error) {
	var changed []string
	for _, name := range p.paths() {
		file := filepath.Join(root, filepath.FromSlash(name))
		if old, err := os.ReadFile(file); err == nil && bytes.Equal(old, p.Files[name]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return changed, err
		}
		if err := os.WriteFile(file, p.Files[name], 0o644); err != nil {
			return changed, err
		}
		changed = append(changed, name)
	}
	extra, err := p.extraFiles(root)
	if err != nil {
		return changed, err
	}
	for _, name := range extra {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(name))); err != nil {
			return changed, err
		}
		changed = append(changed, name)
	}
	for _, dir := range p.Owned {
		if err := removeEmptyDirs(filepath.Join(root, filepath.FromSlash(dir))); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

func (p *Plan) paths() []string {
	names := make([]string, 0, len(p.Files))
	for name := range p.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// extraFiles lists the files in owned directories that the plan does not generate.
func (p *Plan) extraFiles(root string) ([]string, error) {
	var extra []string
	for _, dir := range p.Owned {
		err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(dir)), func(file string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, file)
			if err != nil {
				return err
			}
			if name := filepath.ToSlash(rel); p.Files[name] == nil {
				extra = append(extra, name)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(extra)
	return extra, nil
}

// removeEmptyDirs removes the empty directories under dir, dir itself excepted.
func removeEmptyDirs(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if err := removeEmptyDirs(sub); err != nil {
			return err
		}
		if rest, err := os.ReadDir(sub); err == nil && len(rest) == 0 {
			if err := os.Remove(sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// Check returns the stale generated files under root; empty means up to date.
func Check(root string) ([]string, error) {
	p, err := Build(root)
	if err != nil {
		return nil, err
	}
	return p.Stale(root)
}

// Generate writes the generated files under root and returns what it changed.
func Generate(root string) ([]string, error) {
	p, err := Build(root)
	if err != nil {
		return nil, err
	}
	return p.Write(root)
}

// FindRoot returns the nearest directory at or above dir that holds go.mod.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod found in this directory or above")
		}
		dir = parent
	}
}
