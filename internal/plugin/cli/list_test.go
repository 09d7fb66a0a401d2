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
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
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

// A page's continue token, read from its tail, and its items are what
// encoding/json reads of the whole page, managedFields aside.
func TestDecodePageReadsItemsAndTheContinueToken(t *testing.T) {
	for _, cont := range []string{"", `eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDIsInN0YXJ0IjoidGVhbS0wMDAvc3ItMDA0OTlcdTAwMDAifQ`} {
		raw := page(t, 7, cont)
		got, err := decodePage(raw)
		if err != nil {
			t.Fatal(err)
		}
		meta, err := listMeta(raw)
		if err != nil {
			t.Fatal(err)
		}
		items, token := got.Items, meta.Continue
		var want srv1.StarRocksClusterList
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if token != want.Continue || len(items) != len(want.Items) {
			t.Fatalf("continue %q, %d items; want %q, %d", token, len(items), want.Continue, len(want.Items))
		}
		for i := range want.Items {
			want.Items[i].ManagedFields = nil // read by no view, and not decoded
		}
		for i := range want.Items {
			if !equality.Semantic.DeepEqual(items[i], want.Items[i]) {
				t.Errorf("item %d differs from the typed decode's (managedFields aside):\n got %+v\nwant %+v", i, items[i], want.Items[i])
			}
		}
	}
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
	b.Run("decodePage (managedFields stepped over)", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodePage(raw); err != nil {
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
