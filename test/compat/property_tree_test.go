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
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// schemaNode is what the contract compares at one field path.
type schemaNode struct {
	schema *apiextensionsv1.JSONSchemaProps
}

// typeOf names a node's type. int-or-string fields (resource quantities, ports
// of probes, maxUnavailable) have no "type" but anyOf + x-kubernetes-int-or-string:
// they are a type of their own and must stay one, or integers would be rejected.
func (n schemaNode) typeOf() string {
	s := n.schema
	if s.XIntOrString {
		return "int-or-string"
	}
	t := s.Type
	if t == "" {
		t = "<untyped>"
	}
	if s.Format != "" {
		t += "/" + s.Format
	}
	return t
}

// flatten maps every field path under root to its schema: ".a.b" for properties,
// "[]" for list items and "{}" for map values.
func flatten(root *apiextensionsv1.JSONSchemaProps, prefix string) map[string]schemaNode {
	out := map[string]schemaNode{}
	var walk func(s *apiextensionsv1.JSONSchemaProps, path string)
	walk = func(s *apiextensionsv1.JSONSchemaProps, path string) {
		out[path] = schemaNode{schema: s}
		for name, p := range s.Properties {
			walk(&p, path+"."+name)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(s.Items.Schema, path+"[]")
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			walk(s.AdditionalProperties.Schema, path+"{}")
		}
	}
	walk(root, prefix)
	return out
}

// difference is one way ours would reject or prune what upstream accepts at a path.
type difference struct {
	path, what string
}

func (d difference) String() string { return d.path + ": " + d.what }

// compareTrees lists every way ours would reject or prune what upstream accepts at
// the same path: a missing path, a different type, a newly required field, a list
// that became a map or set, a changed default, or unknown fields no longer preserved.
func compareTrees(upstream, ours map[string]schemaNode) []difference {
	var diffs []difference
	for path, up := range upstream {
		our, ok := ours[path]
		if !ok {
			diffs = append(diffs, difference{path, "missing (upstream type " + up.typeOf() + ")"})
			continue
		}
		if up.typeOf() != our.typeOf() {
			diffs = append(diffs, difference{path, "type " + our.typeOf() + ", upstream " + up.typeOf()})
		}
		for _, r := range our.schema.Required {
			if !slices.Contains(up.schema.Required, r) {
				diffs = append(diffs, difference{path, fmt.Sprintf("requires %q, upstream does not", r)})
			}
		}
		if lt, upLt := listType(our.schema), listType(up.schema); lt != upLt && lt != "atomic" {
			diffs = append(diffs, difference{path, "list type " + lt + ", upstream " + upLt})
		}
		if up.schema.Default != nil && (our.schema.Default == nil || !bytes.Equal(up.schema.Default.Raw, our.schema.Default.Raw)) {
			diffs = append(diffs, difference{path, fmt.Sprintf("default %s, upstream %s", rawOrNone(our.schema.Default), up.schema.Default.Raw)})
		}
		if preserves(up.schema) && !preserves(our.schema) {
			diffs = append(diffs, difference{path, "prunes unknown fields, upstream preserves them"})
		}
	}
	sort.Slice(diffs, func(i, j int) bool { return diffs[i].String() < diffs[j].String() })
	return diffs
}

// acceptedDifferences come with the newer Kubernetes types we embed (upstream's CRD
// was generated from Kubernetes 1.2x types). Each is listed with why it is acceptable.
var acceptedDifferences = []struct {
	pathSuffix, what, why string
}{
	{".hostAliases[]", `requires "ip", upstream does not`,
		"HostAlias.ip became required in the Kubernetes types; a pod with a host alias without an IP is invalid anyway"},
	{"[].volumeMounts", "list type map[mountPath], upstream atomic",
		"container volumeMounts became a map keyed by mountPath; pods reject duplicate mount paths anyway"},
	{"[].volumeDevices", "list type map[devicePath], upstream atomic",
		"container volumeDevices became a map keyed by devicePath; pods reject duplicate device paths anyway"},
	{"[].env", "list type map[name], upstream atomic",
		"container env became a map keyed by name: a sidecar or init container listing the same variable twice is now rejected (pods only warn)"},
}

func accepted(d difference) (string, bool) {
	for _, a := range acceptedDifferences {
		if strings.HasSuffix(d.path, a.pathSuffix) && d.what == a.what {
			return a.why, true
		}
	}
	return "", false
}

func rawOrNone(j *apiextensionsv1.JSON) string {
	if j == nil {
		return "none"
	}
	return string(j.Raw)
}

func listType(s *apiextensionsv1.JSONSchemaProps) string {
	if s.Type != "array" {
		return ""
	}
	if s.XListType == nil || *s.XListType == "atomic" {
		return "atomic"
	}
	if *s.XListType == "map" {
		return "map[" + strings.Join(s.XListMapKeys, ",") + "]"
	}
	return *s.XListType
}

func preserves(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

func TestPropertyTreeCoversUpstream(t *testing.T) {
	upstreamDir := upstreamCRDDir(t)
	for _, file := range crdFiles {
		upstream := version(t, loadCRD(t, filepath.Join(upstreamDir, file))).Schema.OpenAPIV3Schema
		ours := version(t, loadCRD(t, filepath.Join(ourCRDDir, file))).Schema.OpenAPIV3Schema
		for _, top := range []string{"spec", "status"} {
			t.Run(file+"/every upstream "+top+" path exists in ours with the same type", func(t *testing.T) {
				up, ok := upstream.Properties[top]
				if !ok {
					t.Fatalf("upstream %s has no %s", file, top)
				}
				our, ok := ours.Properties[top]
				if !ok {
					t.Fatalf("our %s has no %s", file, top)
				}
				upTree, ourTree := flatten(&up, top), flatten(&our, top)
				var problems []string
				for _, d := range compareTrees(upTree, ourTree) {
					if why, ok := accepted(d); ok {
						t.Logf("accepted: %s (%s)", d, why)
						continue
					}
					problems = append(problems, d.String())
				}
				if len(problems) > 0 {
					t.Errorf("%d incompatibilities with upstream %s (of %d upstream paths):\n  %s",
						len(problems), file, len(upTree), strings.Join(problems, "\n  "))
				}
			})
		}
	}
}

func TestPropertyTreeResourceShapeMatchesUpstream(t *testing.T) {
	upstreamDir := upstreamCRDDir(t)
	for _, file := range crdFiles {
		t.Run(file+" has upstream's names, scope, printer columns and subresources", func(t *testing.T) {
			up := loadCRD(t, filepath.Join(upstreamDir, file))
			our := loadCRD(t, filepath.Join(ourCRDDir, file))
			if up.Name != our.Name || up.Spec.Group != our.Spec.Group {
				t.Errorf("name %s group %s, upstream %s group %s", our.Name, our.Spec.Group, up.Name, up.Spec.Group)
			}
			if !reflect.DeepEqual(up.Spec.Names, our.Spec.Names) {
				t.Errorf("names %+v, upstream %+v", our.Spec.Names, up.Spec.Names)
			}
			if up.Spec.Scope != our.Spec.Scope {
				t.Errorf("scope %s, upstream %s", our.Spec.Scope, up.Spec.Scope)
			}
			if len(our.Spec.Versions) != len(up.Spec.Versions) {
				t.Errorf("%d versions, upstream %d", len(our.Spec.Versions), len(up.Spec.Versions))
			}
			upV, ourV := version(t, up), version(t, our)
			if upV.Served != ourV.Served || upV.Storage != ourV.Storage {
				t.Errorf("v1 served=%v storage=%v, upstream served=%v storage=%v", ourV.Served, ourV.Storage, upV.Served, upV.Storage)
			}
			// `kubectl get` shows the upstream's columns, in its order;
			// ours beside them (status.summary, which `kubectl starrocks
			// status` reads as a table) only with -o wide (priority > 0).
			var shown []apiextensionsv1.CustomResourceColumnDefinition
			for _, c := range ourV.AdditionalPrinterColumns {
				if c.Priority == 0 {
					shown = append(shown, c)
				}
			}
			if !reflect.DeepEqual(upV.AdditionalPrinterColumns, shown) {
				t.Errorf("printer columns kubectl get shows\n  ours     %+v\n  upstream %+v", shown, upV.AdditionalPrinterColumns)
			}
			if !reflect.DeepEqual(upV.Subresources, ourV.Subresources) {
				t.Errorf("subresources\n  ours     %+v\n  upstream %+v", ourV.Subresources, upV.Subresources)
			}
		})
	}
}

// TestPropertyTreeCoversSamples checks offline that every field our samples
// set is in our schema, so the API server would not prune it. The API server
// test checks the same against a real kube-apiserver.
func TestPropertyTreeCoversSamples(t *testing.T) {
	testSchemaCoversManifests(t, samplesDir)
}

// TestPropertyTreeCoversUpstreamExamples does the same for the upstream
// operator's examples, which users apply unchanged.
func TestPropertyTreeCoversUpstreamExamples(t *testing.T) {
	testSchemaCoversManifests(t, upstreamExamplesDir(t))
}

func testSchemaCoversManifests(t *testing.T, dir string) {
	schemas := map[string]map[string]schemaNode{}
	for _, file := range crdFiles {
		crd := loadCRD(t, filepath.Join(ourCRDDir, file))
		schemas[crd.Spec.Names.Kind] = flatten(version(t, crd).Schema.OpenAPIV3Schema, "")
	}
	for _, file := range yamlFiles(t, dir) {
		for i, m := range readManifests(t, file) {
			doc := m.obj.Object
			tree, ok := schemas[fmt.Sprint(doc["kind"])]
			if !ok {
				continue
			}
			t.Run(fmt.Sprintf("%s document %d sets only fields our schema knows", filepath.Base(file), i), func(t *testing.T) {
				var unknown []string
				walkObject(doc["spec"], ".spec", tree, func(path string) {
					unknown = append(unknown, path)
				})
				sort.Strings(unknown)
				if len(unknown) > 0 {
					t.Errorf("fields not in our schema (would be pruned):\n  %s", strings.Join(unknown, "\n  "))
				}
			})
		}
	}
}

// walkObject calls unknown with the path of every field in v that tree has no
// schema for; map keys match a "{}" (additionalProperties) schema.
func walkObject(v any, path string, tree map[string]schemaNode, unknown func(string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			p := path + "." + k
			if _, ok := tree[p]; !ok {
				p = path + "{}"
			}
			if _, ok := tree[p]; !ok {
				unknown(path + "." + k)
				continue
			}
			walkObject(child, p, tree, unknown)
		}
	case []any:
		for _, child := range v {
			walkObject(child, path+"[]", tree, unknown)
		}
	}
}

// TestPropertyTreeComparisonDetectsIncompatibilities proves the comparison itself
// reports what it must, so a passing contract test means something.
func TestPropertyTreeComparisonDetectsIncompatibilities(t *testing.T) {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	intOrString := apiextensionsv1.JSONSchemaProps{XIntOrString: true, AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}}
	one := &apiextensionsv1.JSON{Raw: []byte("1")}
	mapList := "map"
	obj := func(props map[string]apiextensionsv1.JSONSchemaProps, required ...string) *apiextensionsv1.JSONSchemaProps {
		return &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props, Required: required}
	}
	tests := []struct {
		name           string
		upstream, ours *apiextensionsv1.JSONSchemaProps
		want           string
	}{
		{"a missing nested field is reported", obj(map[string]apiextensionsv1.JSONSchemaProps{"a": *obj(map[string]apiextensionsv1.JSONSchemaProps{"b": str})}),
			obj(map[string]apiextensionsv1.JSONSchemaProps{"a": *obj(nil)}), "spec.a.b: missing (upstream type string)"},
		{"int-or-string narrowed to string is reported", obj(map[string]apiextensionsv1.JSONSchemaProps{"q": intOrString}),
			obj(map[string]apiextensionsv1.JSONSchemaProps{"q": str}), "spec.q: type string, upstream int-or-string"},
		{"a newly required field is reported", obj(map[string]apiextensionsv1.JSONSchemaProps{"a": str}),
			obj(map[string]apiextensionsv1.JSONSchemaProps{"a": str}, "a"), `spec: requires "a", upstream does not`},
		{"an atomic list turned into a map is reported",
			obj(map[string]apiextensionsv1.JSONSchemaProps{"l": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: obj(nil)}}}),
			obj(map[string]apiextensionsv1.JSONSchemaProps{"l": {Type: "array", XListType: &mapList, XListMapKeys: []string{"name"}, Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: obj(nil)}}}),
			"spec.l: list type map[name], upstream atomic"},
		{"a dropped default is reported", obj(map[string]apiextensionsv1.JSONSchemaProps{"r": {Type: "integer", Default: one}}),
			obj(map[string]apiextensionsv1.JSONSchemaProps{"r": {Type: "integer"}}), "spec.r: default none, upstream 1"},
		{"a missing map value schema is reported",
			obj(map[string]apiextensionsv1.JSONSchemaProps{"m": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &str}}}),
			obj(map[string]apiextensionsv1.JSONSchemaProps{"m": {Type: "object"}}), "spec.m{}: missing (upstream type string)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range compareTrees(flatten(tt.upstream, "spec"), flatten(tt.ours, "spec")) {
				got = append(got, d.String())
			}
			if !slices.Contains(got, tt.want) {
				t.Errorf("differences %q do not include %q", got, tt.want)
			}
		})
	}
}
