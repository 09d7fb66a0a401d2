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

package testcluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFetchVerifiedChecksTheSHA256(t *testing.T) {
	body := "#!/bin/sh\necho kube-scheduler\n"
	sum := sha256.Sum256([]byte(body))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bin":
			_, _ = io.WriteString(w, body)
		case "/bin.sha256":
			_, _ = io.WriteString(w, hex.EncodeToString(sum[:])+"  kube-scheduler\n")
		case "/wrong.sha256":
			_, _ = io.WriteString(w, strings.Repeat("0", 64))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()

	good := filepath.Join(dir, "good")
	if err := fetchVerified(context.Background(), srv.URL+"/bin", srv.URL+"/bin.sha256", good); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(good); string(got) != body {
		t.Errorf("downloaded %q", got)
	}
	if st, err := os.Stat(good); err != nil || st.Mode()&0o111 == 0 {
		t.Errorf("not executable: %v %v", st.Mode(), err)
	}

	bad := filepath.Join(dir, "bad")
	if err := fetchVerified(context.Background(), srv.URL+"/bin", srv.URL+"/wrong.sha256", bad); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("a wrong checksum gave %v", err)
	}
	if err := fetchVerified(context.Background(), srv.URL+"/missing", "", bad); err == nil {
		t.Error("a 404 counted as a download")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a failed download left %s behind: %v", bad, err)
	}
}

// Offline, the release host does not answer and the binaries are built; the
// probe runs once however many binaries are missing.
func TestAnUnreachableReleaseHostMeansBuilding(t *testing.T) {
	old := releaseBase
	releaseBase = "http://127.0.0.1:1" // nothing listens on port 1
	defer func() { releaseBase = old }()
	t.Setenv("SRSCALE_TESTBIN", "")
	f := newFetcher()
	var progress strings.Builder
	first, again := f.try(context.Background(), &progress), f.try(context.Background(), &progress)
	if first || again {
		t.Fatal("an unreachable release host was tried")
	}
	if n := strings.Count(progress.String(), "building from Go modules"); n != 1 {
		t.Errorf("said so %d times, want once: %q", n, progress.String())
	}
	t.Setenv("SRSCALE_TESTBIN", "build")
	if newFetcher().try(context.Background(), io.Discard) {
		t.Error("SRSCALE_TESTBIN=build tried a download")
	}
}
