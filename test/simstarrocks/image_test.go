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

package simstarrocks_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// haInfo asks the FE at url (HTTPURLOf) for SHOW_HA; ok false when the
// connection fails.
func haInfo(t *testing.T, url string) (map[string]string, bool) {
	t.Helper()
	resp, err := http.Get(url + "/api/show_meta_info?action=SHOW_HA")
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("SHOW_HA at %s: HTTP %d", url, resp.StatusCode)
	}
	var m map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("SHOW_HA at %s: %v", url, err)
	}
	return m, true
}

// ALTER SYSTEM CREATE IMAGE makes no image by itself: the journal rolls at
// the leader's next write (its 10 s timestamp at the latest), the
// checkpoint controller's next 60 s round makes the image and pushes it to
// every other FE, and an FE it cannot reach gets it at a later round. Each
// FE's SHOW_HA tells its own image. The control: without the statement,
// no image is made.
func TestCreateImage(t *testing.T) {
	s, clk := threeFEs(t, time.Second)
	leader := connectTo(t, s.AddressOf("fe-0"))
	step := func(d time.Duration) {
		for end := clk.Now().Add(d); clk.Now().Before(end); {
			clk.SetTime(clk.Now().Add(time.Second))
			s.JournalID() // the model advances when looked at
		}
	}
	versions := func() map[string]int64 {
		out := map[string]int64{}
		for _, h := range []string{"fe-0", "fe-1", "fe-2"} {
			out[h] = s.ImageVersion(h)
		}
		return out
	}

	// The control: 5 minutes of rounds, no roll, no image.
	step(5 * time.Minute)
	if v := versions(); v["fe-0"] != 0 || v["fe-1"] != 0 || v["fe-2"] != 0 {
		t.Fatalf("images without CREATE IMAGE: %v, want image.0 everywhere", v)
	}

	j := s.JournalID()
	mustExec(t, connectTo(t, s.AddressOf("fe-1")), "ALTER SYSTEM CREATE IMAGE") // forwarded to the leader
	if v := versions(); v["fe-0"] != 0 {
		t.Fatalf("an image at once: %v; FE only rolls its journal", v)
	}
	s.StopFrontend("fe-2")
	step(70 * time.Second)
	v := versions()
	if v["fe-0"] <= j || v["fe-1"] != v["fe-0"] {
		t.Fatalf("70 s after CREATE IMAGE at journal %d: %v, want fe-0 and fe-1 past it", j, v)
	}
	if v["fe-2"] != 0 {
		t.Fatalf("fe-2 is down, yet has image %d", v["fe-2"])
	}
	if _, ok := haInfo(t, s.HTTPURLOf("fe-2")); ok {
		t.Errorf("fe-2's HTTP port answered while its process is down")
	}
	info, ok := haInfo(t, s.HTTPURLOf("fe-1"))
	if !ok || info["role"] != "FOLLOWER" || info["last_checkpoint_version"] != strconv.FormatInt(v["fe-1"], 10) {
		t.Errorf("fe-1's SHOW_HA: %v, want FOLLOWER with image %d", info, v["fe-1"])
	}
	if info, _ := haInfo(t, s.HTTPURLOf("fe-0")); info["role"] != "LEADER" || info["master"] != "fe-0" {
		t.Errorf("fe-0's SHOW_HA: %v", info)
	}

	// fe-2 comes back: the next round pushes the image it missed.
	if err := s.StartFrontend("fe-2", 9010); err != nil {
		t.Fatal(err)
	}
	step(61 * time.Second)
	if got := s.ImageVersion("fe-2"); got != v["fe-0"] {
		t.Errorf("fe-2 a round after its restart: image %d, want %d", got, v["fe-0"])
	}
	_ = leader
}

// ALTER SYSTEM CREATE IMAGE exists from 2.5.3 (Downgrade StarRocks,
// "Downgrade FE" step 1): the FE reached parses it with its own release's
// grammar, and before 2.5.3 answers its syntax error; no journal roll is
// asked. The control: the same FE at 2.5.3 takes it.
func TestCreateImageBefore253(t *testing.T) {
	s, _ := threeFEs(t, time.Second)
	s.SetRelease("fe-1", "2.5.2")
	_, err := connectTo(t, s.AddressOf("fe-1")).Exec("ALTER SYSTEM CREATE IMAGE")
	if err == nil || !strings.Contains(err.Error(), "1064") ||
		!strings.Contains(err.Error(), "Getting syntax error at line 1, column 13. Detail message: Unexpected input 'CREATE'") {
		t.Fatalf("2.5.2 answered CREATE IMAGE with %v, want its parser's syntax error", err)
	}
	s.SetRelease("fe-1", "2.5.3")
	mustExec(t, connectTo(t, s.AddressOf("fe-1")), "ALTER SYSTEM CREATE IMAGE")
}
