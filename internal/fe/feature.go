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

package fe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// FeaturePath is FE's HTTP endpoint that lists the product features it has.
const FeaturePath = "/api/v2/feature"

// FeatureMultiWarehouse is the feature FE lists when it can run warehouses.
const FeatureMultiWarehouse = "multi-warehouse"

// DefaultHTTPTimeout bounds one feature request.
const DefaultHTTPTimeout = 5 * time.Second

// Features asks FE at baseURL (http://host:http_port) which features it
// has. FE answers a RestResult: {"code":"0","message":"OK",...} with the
// features, a list of objects with a "name", under "data" (or "result", or at
// the top level, as versions differ); plain strings are accepted too.
func Features(ctx context.Context, client *http.Client, baseURL string) ([]string, error) {
	if client == nil {
		client = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+FeaturePath, http.NoBody)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", FeaturePath, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", FeaturePath, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", FeaturePath, resp.StatusCode)
	}
	return parseFeatures(body)
}

func parseFeatures(body []byte) ([]string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("GET %s: not JSON: %w", FeaturePath, err)
	}
	raw, ok := top["features"]
	for _, wrap := range []string{"data", "result"} {
		if ok {
			break
		}
		var inner map[string]json.RawMessage
		if w, has := top[wrap]; has && json.Unmarshal(w, &inner) == nil {
			raw, ok = inner["features"]
		}
	}
	if !ok {
		return nil, fmt.Errorf("GET %s: no features in the answer", FeaturePath)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("GET %s: features is not a list: %w", FeaturePath, err)
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		var name string
		if json.Unmarshal(it, &name) == nil {
			out = append(out, name)
			continue
		}
		var obj struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(it, &obj); err != nil {
			return nil, fmt.Errorf("GET %s: unreadable feature %s", FeaturePath, it)
		}
		out = append(out, obj.Name)
	}
	return out, nil
}
