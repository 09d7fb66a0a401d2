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

// Package krew renders the plugin's krew manifest (plugins/starrocks.yaml)
// and checks it as krew checks a manifest before it installs it: krew's
// own validation (sigs.k8s.io/krew, internal/index/validation) cannot be
// imported, and its module would pull client-go v11 into ours, so its
// rules are restated here, each with krew's wording, on a strict decode
// of krew's v1alpha2 Plugin fields.
package krew

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"
)

// APIVersion and Kind are the only ones krew v0.4 reads.
const (
	APIVersion = "krew.googlecontainertools.github.com/v1alpha2"
	Kind       = "Plugin"
)

// Plugin is a krew manifest: the fields of krew's index.Plugin.
type Plugin struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec Spec `json:"spec"`
}

// Spec is krew's PluginSpec.
type Spec struct {
	Version          string     `json:"version,omitempty"`
	ShortDescription string     `json:"shortDescription,omitempty"`
	Description      string     `json:"description,omitempty"`
	Caveats          string     `json:"caveats,omitempty"`
	Homepage         string     `json:"homepage,omitempty"`
	Platforms        []Platform `json:"platforms,omitempty"`
}

// Platform is krew's Platform: one archive and the systems it is for.
type Platform struct {
	URI      string                `json:"uri,omitempty"`
	Sha256   string                `json:"sha256,omitempty"`
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	Files    []FileOperation       `json:"files"`
	Bin      string                `json:"bin"`
}

// FileOperation is krew's FileOperation: what to copy out of the archive.
type FileOperation struct {
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// Target is one archive the manifest lists.
type Target struct {
	OS, Arch, SHA256 string
}

// Targets are the systems `make plugin` builds for.
var Targets = []Target{{OS: "linux", Arch: "amd64"}, {OS: "linux", Arch: "arm64"}, {OS: "darwin", Arch: "amd64"}, {OS: "darwin", Arch: "arm64"}}

// Render fills the manifest template with the version (without "v") and the archives.
func Render(tmpl []byte, ver string, archives []Target) ([]byte, error) {
	t, err := template.New("krew").Option("missingkey=error").Parse(string(tmpl))
	if err != nil {
		return nil, fmt.Errorf("krew manifest template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, struct {
		Version   string
		Platforms []Target
	}{ver, archives}); err != nil {
		return nil, fmt.Errorf("krew manifest template: %w", err)
	}
	return b.Bytes(), nil
}

// Parse decodes a manifest strictly (an unknown or misspelt field is an
// error, where krew would silently drop it) and validates it.
func Parse(manifest []byte, name string) (*Plugin, error) {
	var p Plugin
	if err := yaml.UnmarshalStrict(manifest, &p); err != nil {
		return nil, fmt.Errorf("krew manifest: %w", err)
	}
	return &p, Validate(&p, name)
}

var (
	safeName = regexp.MustCompile(`^[\w-]+$`)
	sha256Of = regexp.MustCompile(`^[a-f0-9]{64}$`)
)

// Validate applies krew's ValidatePlugin rules, and checks that every
// archive is named once for each os/arch it selects.
func Validate(p *Plugin, name string) error {
	switch {
	case p.APIVersion != APIVersion:
		return fmt.Errorf("plugin manifest has apiVersion=%q, krew reads only %q", p.APIVersion, APIVersion)
	case p.Kind != Kind:
		return fmt.Errorf("plugin manifest has kind=%q, but only %q is supported", p.Kind, Kind)
	case !safeName.MatchString(name):
		return fmt.Errorf("the plugin name %q is not allowed, must match %q", name, safeName)
	case p.Metadata.Name != name:
		return fmt.Errorf("plugin should be named %q, not %q", name, p.Metadata.Name)
	case p.Spec.ShortDescription == "":
		return errors.New("should have a short description")
	case strings.ContainsAny(p.Spec.ShortDescription, "\r\n"):
		return errors.New("should not have line breaks in short description")
	case len(p.Spec.Platforms) == 0:
		return errors.New("should have a platform specified")
	case p.Spec.Version == "":
		return errors.New("should have a version specified")
	case !strings.HasPrefix(p.Spec.Version, "v"):
		return fmt.Errorf("failed to parse plugin version: version string %q not starting with 'v'", p.Spec.Version)
	}
	if _, err := version.ParseSemantic(p.Spec.Version); err != nil {
		return fmt.Errorf("failed to parse plugin version: %w", err)
	}
	seen := map[string]bool{}
	for i, pl := range p.Spec.Platforms {
		if err := validatePlatform(pl); err != nil {
			return fmt.Errorf("platform %d is badly constructed: %w", i, err)
		}
		key := pl.Selector.MatchLabels["os"] + "/" + pl.Selector.MatchLabels["arch"]
		if seen[key] {
			return fmt.Errorf("platform %d: %s is selected twice", i, key)
		}
		seen[key] = true
	}
	return nil
}

func validatePlatform(p Platform) error {
	switch {
	case p.URI == "":
		return errors.New("`uri` has to be set")
	case p.Sha256 == "":
		return errors.New("`sha256` sum has to be set")
	case !sha256Of.MatchString(p.Sha256):
		return fmt.Errorf("`sha256` value %s is not valid, must match pattern %s", p.Sha256, sha256Of)
	case p.Bin == "":
		return errors.New("`bin` has to be set")
	}
	if p.Files != nil {
		if len(p.Files) == 0 {
			return errors.New("`files` is invalid: `files` has to be unspecified or non-empty")
		}
		for _, op := range p.Files {
			if op.From == "" {
				return errors.New("`files` is invalid: `from` field has to be set")
			}
			if op.To == "" {
				return errors.New("`files` is invalid: `to` field has to be set")
			}
		}
	}
	sel := p.Selector
	switch {
	case sel == nil:
		return errors.New("invalid platform selector: nil selector is not supported")
	case sel.MatchLabels == nil && len(sel.MatchExpressions) == 0:
		return errors.New("invalid platform selector: empty selector is not supported")
	case sel.MatchLabels != nil && len(sel.MatchLabels) == 0:
		return errors.New("invalid platform selector: `matchLabels` specified but empty")
	case sel.MatchExpressions != nil && len(sel.MatchExpressions) == 0:
		return errors.New("invalid platform selector: `matchExpressions` specified but empty")
	}
	for k := range sel.MatchLabels {
		if k != "os" && k != "arch" {
			return fmt.Errorf("invalid platform selector: key %q not supported", k)
		}
	}
	for _, e := range sel.MatchExpressions {
		if e.Key != "os" && e.Key != "arch" {
			return fmt.Errorf("invalid platform selector: key %q not supported", e.Key)
		}
	}
	return nil
}
