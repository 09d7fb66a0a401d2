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
	"net/http"
	"strconv"
)

// FE's metadata image (docs/upgrades.md, "The image after the change").
// ALTER SYSTEM CREATE IMAGE only asks the leader to roll its journal after
// the next batch it writes (GlobalStateMgr.triggerNewImage,
// JournalWriter.setForceRollJournal); the leader writes a timestamp every
// 10 s (createTimePrinter). The leader's CheckpointController, every 60 s
// (FeConstants.checkpoint_interval_second), has an image made up to the
// finalized journal id when its own is older, and pushes it to every other
// FE, again each round to those it could not reach. No statement shows an
// FE's image; each FE's HTTP port answers GET
// /api/show_meta_info?action=SHOW_HA with its own, last_checkpoint_version
// (ShowMetaInfoAction.getHaInfo): anonymous, unless enable_http_auth (a
// newer FE) asks for a user with OPERATE.

// CreateImageSQL asks the leader for a new metadata image.
const CreateImageSQL = "ALTER SYSTEM CREATE IMAGE"

// CreateImage is ALTER SYSTEM CREATE IMAGE.
type CreateImage struct{}

// Send sends ALTER SYSTEM CREATE IMAGE.
func (CreateImage) Send(ctx context.Context, c *Client) error { return c.exec(ctx, CreateImageSQL) }

// HAInfoPath is FE's HTTP endpoint of its own HA view and image.
const HAInfoPath = "/api/show_meta_info?action=SHOW_HA"

// HAInfo is what one FE says of itself on HAInfoPath.
type HAInfo struct {
	// Role is FE's type: LEADER, FOLLOWER, OBSERVER (MASTER in old FEs).
	Role string
	// JournalID is current_journal_id: the leader's max journal id, a
	// follower's replayed one.
	JournalID int64
	// ImageVersion is last_checkpoint_version, the journal id of the
	// newest image in this FE's meta directory; -1 when FE did not say
	// (it could not read its image directory).
	ImageVersion int64
}

// Auth is HTTP basic authentication; the zero value sends none.
type Auth struct{ User, Password string }

// ReadHAInfo asks the FE at baseURL (its own http://host:http_port) for
// HAInfoPath.
func ReadHAInfo(ctx context.Context, client *http.Client, baseURL string, auth Auth) (HAInfo, error) {
	if client == nil {
		client = NewHTTPClient()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+HAInfoPath, http.NoBody)
	if err != nil {
		return HAInfo{}, err
	}
	if auth.User != "" {
		req.SetBasicAuth(auth.User, auth.Password)
	}
	resp, err := client.Do(req)
	if err != nil {
		return HAInfo{}, fmt.Errorf("GET %s: %w", HAInfoPath, err)
	}
	defer resp.Body.Close()
	body, err := readBounded(resp.Body, maxHAInfoBytes, HAInfoPath)
	if err != nil {
		return HAInfo{}, fmt.Errorf("GET %s: %w", HAInfoPath, err)
	}
	if resp.StatusCode != http.StatusOK {
		return HAInfo{}, fmt.Errorf("GET %s: HTTP %d", HAInfoPath, resp.StatusCode)
	}
	return parseHAInfo(body)
}

// parseHAInfo reads getHaInfo's map of strings (Gson of a HashMap: key
// order unspecified).
func parseHAInfo(body []byte) (HAInfo, error) {
	var m map[string]string
	if err := json.Unmarshal(body, &m); err != nil {
		return HAInfo{}, fmt.Errorf("GET %s: not a JSON map of strings: %w", HAInfoPath, err)
	}
	out := HAInfo{Role: m["role"], ImageVersion: -1}
	if v, ok := m["current_journal_id"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return HAInfo{}, fmt.Errorf("GET %s: current_journal_id %q is not a number", HAInfoPath, v)
		}
		out.JournalID = n
	}
	if v, ok := m["last_checkpoint_version"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return HAInfo{}, fmt.Errorf("GET %s: last_checkpoint_version %q is not a number", HAInfoPath, v)
		}
		out.ImageVersion = n
	}
	return out, nil
}
