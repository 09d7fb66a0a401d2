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

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/plugin"
	"github.com/srscale/starrocks-operator/internal/plugin/examples"
)

// page is a page of n clusters as the API server sends a custom
// resource's list: items first, the list's metadata last.
func page(t testing.TB, n int, cont string) []byte {
	t.Helper()
	all := examples.All("team", time.Now())
	items := make([]srv1.StarRocksCluster, n)
	for i := range items {
		items[i] = *all[i%len(all)].Cluster
		items[i].Name = fmt.Sprintf("sr-%05d", i)
		items[i].ManagedFields = managedFields(t, &items[i])
	}
	raw, err := json.Marshal(map[string]any{"apiVersion": "starrocks.com/v1", "items": items, "kind": "StarRocksClusterList",
		"metadata": metav1.ListMeta{Continue: cont, ResourceVersion: "42"}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// managedFields are what the API server keeps of a cluster created by one
// manager and whose status another applies: half the bytes of each item.
func managedFields(t testing.TB, src *srv1.StarRocksCluster) []metav1.ManagedFieldsEntry {
	t.Helper()
	spec, err := json.Marshal(map[string]any{"f:spec": fieldsOf(src.Spec)})
	if err != nil {
		t.Fatal(err)
	}
	status, err := json.Marshal(map[string]any{"f:status": fieldsOf(src.Status)})
	if err != nil {
		t.Fatal(err)
	}
	at := metav1.NewTime(time.Unix(1700000000, 0))
	return []metav1.ManagedFieldsEntry{
		{Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "starrocks.com/v1", Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(spec))},
		{Manager: "starrocks-operator", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "starrocks.com/v1", Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(status)), Subresource: "status"},
	}
}

// fieldsOf is v's field set in FieldsV1's shape: {"f:name": {...}} for each field.
func fieldsOf(v any) any {
	raw, _ := json.Marshal(v)
	var m any
	_ = json.Unmarshal(raw, &m)
	var walk func(any) any
	walk = func(x any) any {
		obj, ok := x.(map[string]any)
		if !ok {
			return map[string]any{}
		}
		out := map[string]any{}
		for k, v := range obj {
			out["f:"+k] = walk(v)
		}
		return out
	}
	return walk(m)
}

// A page's continue token, read from its tail, and its items' status
// lines are what the scheme's deserializer (the full objects, as
// controller-runtime's client decodes them) gives.
func TestDecodePageReadsItemsAndTheContinueToken(t *testing.T) {
	for _, cont := range []string{"", `eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDIsInN0YXJ0IjoidGVhbS0wMDAvc3ItMDA0OTlcdTAwMDAifQ`} {
		raw := page(t, 7, cont)
		meta, err := listMeta(raw)
		if err != nil {
			t.Fatal(err)
		}
		var want srv1.StarRocksClusterList
		if err := runtime.DecodeInto(codecs.UniversalDeserializer(), raw, &want); err != nil {
			t.Fatal(err)
		}
		if meta.Continue != want.Continue {
			t.Fatalf("continue %q; want %q", meta.Continue, want.Continue)
		}
		sameLines(t, "", raw)
	}
}

// sameLines fails t when the lean decode of raw (decodePage) and the
// full one (the scheme's deserializer) give another status line for an
// item, or another table (-o wide) or -o json, and returns whether any
// was different.
func sameLines(t *testing.T, what string, raw []byte) bool {
	t.Helper()
	var full srv1.StarRocksClusterList
	if err := runtime.DecodeInto(codecs.UniversalDeserializer(), raw, &full); err != nil {
		t.Fatalf("%s: the full decode: %v", what, err)
	}
	lean, err := decodePage(raw)
	if err != nil {
		t.Fatalf("%s: the lean decode: %v", what, err)
	}
	if len(lean.Items) != len(full.Items) {
		t.Fatalf("%s: %d items decoded lean, %d in full", what, len(lean.Items), len(full.Items))
	}
	now := examples.Now
	ok := true
	for i := range full.Items {
		if got, want := plugin.StatusLine(&lean.Items[i], now), plugin.StatusLine(&full.Items[i], now); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: item %d: the lean decode's line differs from the full decode's:\n got %+v\nwant %+v", what, i, got, want)
			ok = false
		}
	}
	for _, format := range []string{"wide", "json"} {
		var got, want bytes.Buffer
		if err := RenderStatus(&got, lean.Items, plugin.BackupIndex{}, printFlags(format), true, false, now); err != nil {
			t.Fatal(err)
		}
		if err := RenderStatus(&want, full.Items, plugin.BackupIndex{}, printFlags(format), true, false, now); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: -o %s differs:\n got %s\nwant %s", what, format, got.String(), want.String())
			ok = false
		}
	}
	return ok
}

func printFlags(format string) *genericclioptions.PrintFlags {
	return &genericclioptions.PrintFlags{OutputFormat: &format, JSONYamlPrintFlags: genericclioptions.NewJSONYamlPrintFlags()}
}

// fixtures are the clusters of every state the plugin's tests show
// (examples.All, the golden files' clusters), and those whose line reads
// a field no example sets: a CN autoscaled, a BE pod failing, a failed
// phase, a generation the operator has not seen.
func fixtures() []*srv1.StarRocksCluster {
	now := examples.Now
	var out []*srv1.StarRocksCluster
	for _, e := range examples.All("prod", now) {
		out = append(out, e.Cluster)
	}
	out = append(out, examples.BEReplaced("prod", "be-replaced", now), examples.Healthy("staging", "canary", now))
	cn := examples.Recovering("prod", "cn-autoscaled", now)
	cn.Status.DisasterRecoveryStatus = nil
	cn.Spec.StarRocksCnSpec.AutoScalingPolicy = &srv1.AutoScalingPolicy{MaxReplicas: 9}
	cn.Status.StarRocksCnStatus.Replicas = 5
	cn.Status.StarRocksCnStatus.RunningInstances = []string{"cn-autoscaled-cn-0"}
	failing := examples.BEDown("prod", "be-failing", now)
	be := failing.Status.StarRocksBeStatus
	be.FailedInstances, be.CreatingInstances = be.CreatingInstances, nil
	failed := examples.Healthy("prod", "failed", now)
	failed.Status.Phase, failed.Status.Reason = srv1.PhaseFailed, "BE: the StatefulSet cannot be created; see Events"
	unseen := examples.Healthy("prod", "unseen", now)
	unseen.Generation = 4
	return append(out, cn, failing, failed, unseen)
}

// The lean decode gives every state's line, table and -o json as the
// full decode does; and so for each fixture changed in one place (every
// value replaced by another, every field removed, every list shortened):
// a field the status view reads that the lean types drop fails here.
func TestLeanDecodeGivesTheFullDecodesLines(t *testing.T) {
	var items []any
	for _, src := range fixtures() {
		src.ManagedFields = managedFields(t, src)
		items = append(items, generic(t, src))
	}
	sameLines(t, "every fixture", listOf(t, items...))
	now := examples.Now
	changed, tried := 0, 0
	for i, item := range items {
		for _, v := range variants(item) {
			raw := listOf(t, v)
			var full srv1.StarRocksClusterList
			if runtime.DecodeInto(codecs.UniversalDeserializer(), raw, &full) != nil {
				continue // a value of the wrong form: the API server would not hold it
			}
			tried++
			var orig srv1.StarRocksClusterList
			if err := runtime.DecodeInto(codecs.UniversalDeserializer(), listOf(t, item), &orig); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(plugin.StatusLine(&full.Items[0], now), plugin.StatusLine(&orig.Items[0], now)) {
				changed++
			}
			if !sameLines(t, fmt.Sprintf("fixture %d changed", i), raw) {
				b, _ := json.Marshal(v)
				t.Fatalf("the change: %s", b)
			}
		}
	}
	t.Logf("%d fixtures, %d changes decoded, %d of them change the full decode's line", len(items), tried, changed)
	if changed < tried/10 {
		t.Errorf("only %d of %d changes change a line: the changes do not reach what the view reads", changed, tried)
	}
}

// generic is src as the API server sends it, as a JSON tree.
func generic(t *testing.T, src *srv1.StarRocksCluster) any {
	t.Helper()
	src.APIVersion, src.Kind = "starrocks.com/v1", "StarRocksCluster"
	raw, err := json.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// listOf is a list page of items, its metadata last.
func listOf(t *testing.T, items ...any) []byte {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"apiVersion": "starrocks.com/v1", "items": items, "kind": "StarRocksClusterList",
		"metadata": map[string]any{"resourceVersion": "42"}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// variants are v changed in one place each: a value replaced by another
// of its kind, an object's field removed, a list without its last or
// first element.
func variants(v any) []any {
	var out []any
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if k == "managedFields" {
				continue
			}
			without := maps.Clone(x)
			delete(without, k)
			out = append(out, without)
			for _, e := range variants(x[k]) {
				c := maps.Clone(x)
				c[k] = e
				out = append(out, c)
			}
		}
	case []any:
		if len(x) > 0 {
			out = append(out, x[:len(x)-1], x[1:])
		}
		for i := range x {
			for _, e := range variants(x[i]) {
				c := slices.Clone(x)
				c[i] = e
				out = append(out, c)
			}
		}
	case string:
		out = append(out, changedString(x)...)
	case float64:
		out = append(out, x+1, x-1)
	case bool:
		out = append(out, !x)
	}
	return out
}

// changedString are other values of s: a time shifted, True and False
// swapped, something before and after it.
func changedString(s string) []any {
	if ts, err := time.Parse(time.RFC3339, s); err == nil {
		return []any{ts.Add(-90 * time.Minute).Format(time.RFC3339)}
	}
	switch s {
	case "True":
		return []any{"False"}
	case "False":
		return []any{"True"}
	}
	return []any{"x" + s, s + "9", ""}
}

// A list whose metadata comes first (a built-in kind's order) is read whole.
func TestListMetaOfAListWithItsMetadataFirst(t *testing.T) {
	l := srv1.StarRocksClusterList{ListMeta: metav1.ListMeta{Continue: "next"}, Items: []srv1.StarRocksCluster{*examples.Healthy("team", "a", time.Now())}}
	raw, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if meta, err := listMeta(raw); err != nil || meta.Continue != "next" {
		t.Errorf("listMeta = %+v, %v; want continue \"next\"", meta, err)
	}
}

func BenchmarkDecodePage(b *testing.B) {
	raw := page(b, 500, "abc")
	b.SetBytes(int64(len(raw)))
	b.Run("universal deserializer", func(b *testing.B) {
		for b.Loop() {
			var l srv1.StarRocksClusterList
			if err := runtime.DecodeInto(codecs.UniversalDeserializer(), raw, &l); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var l srv1.StarRocksClusterList
			if err := json.Unmarshal(raw, &l); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full types, managedFields stepped over (the decode before the lean types)", func(b *testing.B) {
		for b.Loop() {
			var page struct {
				metav1.ListMeta `json:"metadata"`
				Items           []struct {
					metav1.TypeMeta `json:",inline"`
					Metadata        struct {
						metav1.ObjectMeta
						ManagedFields present `json:"managedFields,omitzero"`
					} `json:"metadata"`
					Spec   srv1.StarRocksClusterSpec   `json:"spec"`
					Status srv1.StarRocksClusterStatus `json:"status"`
				} `json:"items"`
			}
			if err := json.Unmarshal(raw, &page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lean types, managedFields stepped over by encoding/json", func(b *testing.B) {
		for b.Loop() {
			var page leanPage
			if err := json.Unmarshal(raw, &page); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The cut is in place: each round copies the page first (a memmove).
	buf := make([]byte, len(raw))
	b.Run("managedFields cut alone", func(b *testing.B) {
		for b.Loop() {
			copy(buf, raw)
			withoutManagedFields(buf)
		}
	})
	b.Run("decodePage (managedFields cut, then the lean types)", func(b *testing.B) {
		for b.Loop() {
			copy(buf, raw)
			if _, err := decodePage(buf); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("list metadata, whole page", func(b *testing.B) {
		for b.Loop() {
			var whole struct {
				Metadata metav1.ListMeta `json:"metadata"`
			}
			if err := json.Unmarshal(raw, &whole); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("list metadata, tail", func(b *testing.B) {
		for b.Loop() {
			if _, err := listMeta(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// withoutManagedFields cuts each object's managedFields out, its strings'
// brackets, quotes and backslashes aside, and leaves one it cannot cut
// plainly as it is (encoding/json steps over it); what remains decodes
// as the whole page does, less the managedFields.
func TestWithoutManagedFields(t *testing.T) {
	src := examples.Healthy("prod", "odd", examples.Now)
	src.ManagedFields = managedFields(t, src)
	src.ManagedFields[0].Manager = `a "quoted" ] } [ { \ manager,"managedFields":[`
	src.Annotations = map[string]string{"note": `"managedFields":[1,2` + "\\"}
	raw := listOf(t, generic(t, src), generic(t, examples.Refused("prod", "refused", examples.Now)))
	cut := withoutManagedFields(bytes.Clone(raw))
	if len(cut) >= len(raw) || bytes.Contains(cut, []byte(`"managedFields":[{`)) {
		t.Fatalf("managedFields not cut: %d bytes of %d left:\n%s", len(cut), len(raw), cut)
	}
	var whole, rest srv1.StarRocksClusterList
	if err := json.Unmarshal(raw, &whole); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(cut, &rest); err != nil {
		t.Fatalf("the page cut is no JSON: %v\n%s", err, cut)
	}
	for i := range whole.Items {
		whole.Items[i].ManagedFields = nil
	}
	if !reflect.DeepEqual(whole, rest) {
		t.Errorf("the page cut decodes to\n%+v\nwant\n%+v", rest, whole)
	}
	for _, plain := range []string{
		`{"items":[{"metadata":{"managedFields":null,"name":"a"}}]}`,
		`{"items":[{"metadata":{"name":"a", "managedFields":[{}]}}]}`,
		`{"items":[{"metadata":{"managedFields":[{"manager":"x"}]}}]}`,
		`{"items":[{"metadata":{"name":"a","managedFields":[{"manager":"x"}`,
	} {
		if got := withoutManagedFields([]byte(plain)); string(got) != plain {
			t.Errorf("withoutManagedFields(%s) = %s; want it as it is", plain, got)
		}
	}
	for in, want := range map[string]string{
		`{"a":{"managedFields":[],"b":1},"c":[{"x":2,"managedFields":[{"y":"]"}]}]}`:  `{"a":{"b":1},"c":[{"x":2}]}`,
		`{"a":{"x":1, "managedFields":[1]},"b":{"y":2,"managedFields":[2]},"c":"\\"}`: `{"a":{"x":1, "managedFields":[1]},"b":{"y":2},"c":"\\"}`,
	} {
		if got := string(withoutManagedFields([]byte(in))); got != want {
			t.Errorf("withoutManagedFields(%s) = %s; want %s", in, got, want)
		}
	}
}
