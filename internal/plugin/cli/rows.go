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
	"context"
	"encoding/json"
	"fmt"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/plugin"
)

// The status table reads each cluster's row from a server-side table (the
// CRD's printer columns over status.summary, which the operator writes),
// not the objects: at 10,000 clusters the objects are 36 MB of JSON that
// the API server takes over 2 s to encode; the table is under 1 MB
// (docs/benchmark.md, issue 53).

// tableAccept asks the API server for a meta.k8s.io/v1 Table.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

// rowColumns are the printer columns a row is read from
// (api/v1/starrockscluster_types.go), by their names.
var rowColumns = []string{"Name", "Namespace", "State", "FE", "BE", "CN", "Version", "Healthy", "In Progress", "Paused", "Generation", "Observed"}

// fetchFew is how many clusters without a summary are read one by one;
// with more, the clusters are listed whole.
const fetchFew = 200

// ListRows lists the rows of the clusters of ns ("" for all) matching
// selector, in pages of chunk, as one paginated list of a server-side
// table. A cluster whose status has no summary (the operator has not
// reconciled it since it began to write one, or the cluster is paused
// since before) is read whole, and summarized here; when the CRD has no
// such columns (an older CRD), every cluster is.
func ListRows(ctx context.Context, cfg *rest.Config, c client.Client, ns, selector string, chunk int64) ([]plugin.Row, error) {
	if selector != "" {
		if _, err := labels.Parse(selector); err != nil {
			return nil, fmt.Errorf("label selector %q: %w", selector, err)
		}
	}
	rc, err := clustersClient(cfg)
	if err != nil {
		return nil, err
	}
	var rows []plugin.Row
	var missing []client.ObjectKey
	token := ""
	for {
		raw, err := rc.Get().Namespace(ns).Resource("starrocksclusters").SetHeader("Accept", tableAccept).
			VersionedParams(&metav1.ListOptions{LabelSelector: selector, Limit: chunk, Continue: token}, metav1.ParameterCodec).
			Param("includeObject", string(metav1.IncludeNone)).
			DoRaw(ctx)
		if err != nil {
			return nil, err
		}
		var table metav1.Table
		if err := json.Unmarshal(raw, &table); err != nil {
			return nil, fmt.Errorf("decoding a page of StarRocks clusters: %w", err)
		}
		page, without, ok := rowsOf(&table)
		if !ok {
			return wholeRows(ctx, cfg, ns, selector, chunk)
		}
		rows, missing = append(rows, page...), append(missing, without...)
		if token = table.Continue; token == "" {
			break
		}
	}
	if len(missing) > fetchFew {
		return wholeRows(ctx, cfg, ns, selector, chunk)
	}
	read, err := getAll(ctx, c, missing)
	if err != nil {
		return nil, err
	}
	return append(rows, read...), nil
}

// rowsOf reads a table's rows; without are the clusters whose row has no
// summary; ok is false when the table lacks a column rowColumns names.
func rowsOf(t *metav1.Table) (rows []plugin.Row, without []client.ObjectKey, ok bool) {
	at := map[string]int{}
	for i, c := range t.ColumnDefinitions {
		at[c.Name] = i
	}
	for _, name := range rowColumns {
		if _, found := at[name]; !found {
			return nil, nil, false
		}
	}
	for _, r := range t.Rows {
		text := func(col string) string {
			if i := at[col]; i < len(r.Cells) {
				if s, isString := r.Cells[i].(string); isString {
					return s
				}
			}
			return ""
		}
		number := func(col string) int64 {
			if i := at[col]; i < len(r.Cells) {
				if f, isNumber := r.Cells[i].(float64); isNumber {
					return int64(f)
				}
			}
			return 0
		}
		row := plugin.Row{Namespace: text("Namespace"), Name: text("Name"), Paused: text("Paused") == "true",
			Generation: number("Generation"), ObservedGeneration: number("Observed")}
		if text("State") == "" {
			without = append(without, client.ObjectKey{Namespace: row.Namespace, Name: row.Name})
			continue
		}
		row.Summary = &srv1.StarRocksClusterSummary{State: text("State"), FE: text("FE"), BE: text("BE"), CN: text("CN"),
			Version: text("Version"), Healthy: text("Healthy"), Doing: text("In Progress")}
		rows = append(rows, row)
	}
	return rows, without, true
}

// wholeRows are the rows of every cluster listed whole (List), each summarized here.
func wholeRows(ctx context.Context, cfg *rest.Config, ns, selector string, chunk int64) ([]plugin.Row, error) {
	clusters, err := List(ctx, cfg, ns, selector, chunk)
	if err != nil {
		return nil, err
	}
	rows := make([]plugin.Row, len(clusters))
	for i := range clusters {
		rows[i] = plugin.RowOf(&clusters[i], plugin.Summarize(&clusters[i]))
	}
	return rows, nil
}

// getAll reads the clusters keys names, a few at a time, and gives their
// rows; one deleted since the list is left out.
func getAll(ctx context.Context, c client.Client, keys []client.ObjectKey) ([]plugin.Row, error) {
	rows := make([]*plugin.Row, len(keys))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i, key := range keys {
		g.Go(func() error {
			src := &srv1.StarRocksCluster{}
			if err := c.Get(ctx, key, src); err != nil {
				if err = client.IgnoreNotFound(err); err != nil {
					return fmt.Errorf("reading StarRocks cluster %s: %w", key, err)
				}
				return nil
			}
			r := plugin.RowOf(src, plugin.Summarize(src))
			rows[i] = &r
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []plugin.Row
	for _, r := range rows {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, nil
}
