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
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Users with internet get the control plane the ecosystem's way, in seconds:
// setup-envtest for etcd and kube-apiserver, the Kubernetes release for
// kube-controller-manager and kube-scheduler, kwok's GitHub release. Offline
// (as in CI here) every binary is built from Go modules instead. Set
// SRSCALE_TESTBIN=build to skip the download, =download to fail without it.

// setupEnvtest is the ecosystem's installer of envtest binaries (etcd,
// kube-apiserver), run with go run: its version is pinned here.
const setupEnvtest = "sigs.k8s.io/controller-runtime/tools/setup-envtest@v0.25.1"

// probeTimeout bounds the probe that decides whether to try downloads at all.
const probeTimeout = 5 * time.Second

// releaseBase is where Kubernetes publishes its release binaries, each with a .sha256 beside it.
var releaseBase = "https://dl.k8s.io/release"

// online reports whether the release host answers within probeTimeout.
func online(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, releaseBase+"/stable.txt", http.NoBody)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode < 500
}

// download fetches the released binary b at version into out, or says why not.
func download(ctx context.Context, root string, b binary, version, out string) error {
	switch b.name {
	case "etcd", "kube-apiserver":
		return fromSetupEnvtest(ctx, root, b.name, out)
	case "kube-controller-manager", "kube-scheduler":
		kube, err := kubernetesVersion(root)
		if err != nil {
			return err
		}
		url := fmt.Sprintf("%s/%s/bin/%s/%s/%s", releaseBase, kube, runtime.GOOS, runtime.GOARCH, b.name)
		return fetchVerified(ctx, url, url+".sha256", out)
	case "kwok":
		url := fmt.Sprintf("https://github.com/kubernetes-sigs/kwok/releases/download/%s/kwok-%s-%s", version, runtime.GOOS, runtime.GOARCH)
		return fetchVerified(ctx, url, "", out)
	}
	return fmt.Errorf("no release download for %s", b.name)
}

// fromSetupEnvtest installs the envtest binaries of the Kubernetes version
// that tools/go.mod pins and copies the named one to out. setup-envtest
// verifies what it downloads against its index's checksums. The etcd it
// installs is the one envtest pairs with that Kubernetes version, which may
// differ from the etcd module version tools/etcd pins.
func fromSetupEnvtest(ctx context.Context, root, name, out string) error {
	kube, err := kubernetesVersion(root)
	if err != nil {
		return err
	}
	cache, err := cacheDir()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", setupEnvtest, "use", strings.TrimPrefix(kube, "v"), "--bin-dir", filepath.Join(cache, "envtest"), "-p", "path")
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	dir, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("setup-envtest: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return copyFile(filepath.Join(strings.TrimSpace(string(dir)), name), out)
}

// kubernetesVersion is the Kubernetes version tools/go.mod pins.
func kubernetesVersion(root string) (string, error) {
	return moduleVersion(filepath.Join(root, "tools", "go.mod"), "k8s.io/kubernetes")
}

// fetchVerified downloads url to out; with sumURL, the file's SHA-256 must be
// the first word of what sumURL serves.
func fetchVerified(ctx context.Context, url, sumURL, out string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	return writeExecutable(out, func(w io.Writer) error {
		h := sha256.New()
		if err := get(ctx, url, io.MultiWriter(w, h)); err != nil || sumURL == "" {
			return err
		}
		var sum strings.Builder
		if err := get(ctx, sumURL, &sum); err != nil {
			return err
		}
		want, got := strings.Fields(sum.String() + " ")[0], hex.EncodeToString(h.Sum(nil))
		if !strings.EqualFold(want, got) {
			return fmt.Errorf("%s: SHA-256 %s, but %s says %s", url, got, sumURL, want)
		}
		return nil
	})
}

// writeExecutable writes out through a temporary file, moved into place only
// when write succeeded: an interrupted download never leaves a binary behind.
func writeExecutable(out string, write func(io.Writer) error) error {
	tmp := out + ".download"
	defer os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

func get(ctx context.Context, url string, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	_, err = io.Copy(w, resp.Body)
	return err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	return writeExecutable(to, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// fetcher decides once per EnsureBinaries whether to try downloads: only
// when a binary is missing, so a warm cache costs no probe.
type fetcher struct {
	mode  string // SRSCALE_TESTBIN: "", "build" or "download"
	once  sync.Once
	tried bool
}

func newFetcher() *fetcher { return &fetcher{mode: os.Getenv("SRSCALE_TESTBIN")} }

func (f *fetcher) try(ctx context.Context, progress io.Writer) bool {
	f.once.Do(func() {
		switch f.mode {
		case "build":
		case "download":
			f.tried = true
		default:
			f.tried = online(ctx)
			if !f.tried {
				fmt.Fprintf(progress, "testcluster: %s did not answer within %s: building from Go modules (set SRSCALE_TESTBIN=download to insist)\n", releaseBase, probeTimeout)
			}
		}
	})
	return f.tried
}

// fetch downloads b, or builds it when that fails (unless downloads are insisted on).
func (f *fetcher) fetch(ctx context.Context, root string, b binary, version, out string, progress io.Writer) error {
	if f.try(ctx, progress) {
		start := time.Now()
		err := download(ctx, root, b, version, out)
		if err == nil {
			fmt.Fprintf(progress, "testcluster: downloaded %s in %s\n", b.name, time.Since(start).Round(time.Second))
			return nil
		}
		if f.mode == "download" {
			return fmt.Errorf("downloading %s: %w", b.name, err)
		}
		fmt.Fprintf(progress, "testcluster: downloading %s failed (%v): building it from Go modules\n", b.name, err)
	}
	return build(ctx, root, b, version, out, progress)
}
