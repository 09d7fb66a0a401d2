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

// The most the operator reads of FE's HTTP answers: the feature list is a
// few KiB, one FE's HA view under 1 KiB (ShowMetaInfoAction.getHaInfo:
// seven short fields); headers as the JSON answers need.
const (
	maxFeaturesBytes       = 1 << 20
	maxHAInfoBytes         = 64 << 10
	maxResponseHeaderBytes = 64 << 10
)

// NewHTTPClient is the client of the operator's HTTP reads of FE: bounded
// in time and header size, and following no redirect, so that FE cannot
// send a request (with its basic authentication) anywhere else.
func NewHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxResponseHeaderBytes = maxResponseHeaderBytes
	return &http.Client{Timeout: DefaultHTTPTimeout, Transport: t,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// readBounded reads body whole, or fails with AnswerTooLargeError past max bytes.
func readBounded(body io.Reader, maxBytes int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(body, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > maxBytes {
		return nil, &AnswerTooLargeError{What: "GET " + what, Limit: maxBytes, Unit: "bytes"}
	}
	return b, nil
}

// Features asks FE at baseURL (http://host:http_port) which features it
// has. FE answers a RestResult: {"code":"0","message":"OK",...} with the
// features, a list of objects with a "name", under "data" (or "result", or at
// the top level, as versions differ); plain strings are accepted too.
func Features(ctx context.Context, client *http.Client, baseURL string) ([]string, error) {
	if client == nil {
		client = NewHTTPClient()
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
	body, err := readBounded(resp.Body, maxFeaturesBytes, FeaturePath)
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
