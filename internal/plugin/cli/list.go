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
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	srscheme "github.com/srscale/starrocks-operator/internal/scheme"
)

// List lists the clusters of ns ("" for all) matching selector, in pages of
// chunk (0: all in one), as one paginated list. The clusters carry only
// what status's line reads (decodePage): a command that prints or changes
// a cluster gets it whole.
//
// A page is asked for as soon as the last one has arrived, not once it is
// decoded: the API server encodes the next page while this process decodes
// the last one, on another core. At 10,000 clusters (36 MB of JSON) that
// overlap is what brings `status -A` near the time of the slower of the
// two alone (docs/benchmark.md, issue 53).
func List(ctx context.Context, cfg *rest.Config, ns, selector string, chunk int64) ([]srv1.StarRocksCluster, error) {
	var out []srv1.StarRocksCluster
	err := ListPages(ctx, cfg, ns, selector, chunk, func(raw []byte) error {
		page, err := decodePage(raw)
		if err != nil {
			return fmt.Errorf("decoding a page of StarRocks clusters: %w", err)
		}
		if out == nil {
			out = make([]srv1.StarRocksCluster, 0, len(page.Items)+int(max(ptr.Deref(page.RemainingItemCount, 0), 0)))
		}
		out = append(out, page.Items...)
		return nil
	})
	return out, err
}

// ListPages is List's paginated list without the decode: take is given
// each page's bytes, in order, while the next page is being fetched.
func ListPages(ctx context.Context, cfg *rest.Config, ns, selector string, chunk int64, take func(raw []byte) error) error {
	if selector != "" {
		if _, err := labels.Parse(selector); err != nil {
			return fmt.Errorf("label selector %q: %w", selector, err)
		}
	}
	rc, err := clustersClient(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan []byte, 2)
	fetched := make(chan error, 1)
	go func() {
		defer close(pages)
		fetched <- fetchPages(ctx, rc, ns, selector, chunk, pages)
	}()
	for raw := range pages {
		if err := take(raw); err != nil {
			return err
		}
	}
	return <-fetched
}

var codecs = serializer.NewCodecFactory(srscheme.New())

// clustersClient is a REST client of starrocks.com/v1.
func clustersClient(cfg *rest.Config) (*rest.RESTClient, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &srv1.GroupVersion
	c.APIPath = "/apis"
	c.NegotiatedSerializer = codecs.WithoutConversion()
	return rest.RESTClientFor(c)
}

// fetchPages sends each page's bytes to pages as it arrives, reading only
// the continue token from it.
func fetchPages(ctx context.Context, rc *rest.RESTClient, ns, selector string, chunk int64, pages chan<- []byte) error {
	token := ""
	for {
		raw, err := rc.Get().Namespace(ns).Resource("starrocksclusters").
			VersionedParams(&metav1.ListOptions{LabelSelector: selector, Limit: chunk, Continue: token}, metav1.ParameterCodec).
			DoRaw(ctx)
		if err != nil {
			return err
		}
		meta, err := listMeta(raw)
		if err != nil {
			return fmt.Errorf("reading a page of StarRocks clusters: %w", err)
		}
		select {
		case pages <- raw:
		case <-ctx.Done():
			return ctx.Err()
		}
		if token = meta.Continue; token == "" {
			return nil
		}
	}
}

// listMeta reads a page's list metadata, for its continue token, without
// decoding its items: the API server writes a custom resource's list as a
// map, its keys in order, so "metadata" comes after "items", last. When
// the tail is not the list's metadata, the whole page is read for it.
func listMeta(raw []byte) (metav1.ListMeta, error) {
	var meta metav1.ListMeta
	if i := bytes.LastIndex(raw, []byte(`"metadata":`)); i >= 0 {
		d := json.NewDecoder(bytes.NewReader(raw[i+len(`"metadata":`):]))
		if d.Decode(&meta) == nil && isListEnd(raw[i+len(`"metadata":`)+int(d.InputOffset()):]) {
			return meta, nil
		}
	}
	var whole struct {
		Metadata metav1.ListMeta `json:"metadata"`
	}
	err := json.Unmarshal(raw, &whole)
	return whole.Metadata, err
}

// isListEnd is true when tail is the end of the list object: its closing
// brace, with white space around it.
func isListEnd(tail []byte) bool {
	return string(bytes.TrimSpace(tail)) == "}"
}
