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
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// binary says how one control-plane program is built from Go modules.
type binary struct {
	name    string // file name in the assets directory
	module  string // folder under tools/ holding the go.mod that pins it
	pkg     string // main package to build
	version string // module whose version keys the cache
	ldflags func(version string) string
	minutes int // a cold build's rough duration on 2 cores, to set expectations
}

// The API server reports the version it was built from only when told with -ldflags;
// a module build otherwise says v0.0.0-master, which breaks version checks in clients.
func kubeLDFlags(v string) string {
	major, minor := "", ""
	if m := regexp.MustCompile(`^v(\d+)\.(\d+)\.`).FindStringSubmatch(v); m != nil {
		major, minor = m[1], m[2]
	}
	var b strings.Builder
	b.WriteString("-s -w")
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		fmt.Fprintf(&b, " -X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean", pkg, v, pkg, major, pkg, minor, pkg)
	}
	return b.String()
}

func plainLDFlags(string) string { return "-s -w" }

var apiOnlyBinaries = []binary{
	{name: "etcd", module: "tools/etcd", pkg: "go.etcd.io/etcd/server/v3", version: "go.etcd.io/etcd/server/v3", ldflags: plainLDFlags, minutes: 2},
	{name: "kube-apiserver", module: "tools", pkg: "k8s.io/kubernetes/cmd/kube-apiserver", version: "k8s.io/kubernetes", ldflags: kubeLDFlags, minutes: 8},
}

var simulatedBinaries = []binary{
	{name: "kube-controller-manager", module: "tools", pkg: "k8s.io/kubernetes/cmd/kube-controller-manager", version: "k8s.io/kubernetes", ldflags: kubeLDFlags, minutes: 3},
	{name: "kube-scheduler", module: "tools", pkg: "k8s.io/kubernetes/cmd/kube-scheduler", version: "k8s.io/kubernetes", ldflags: kubeLDFlags, minutes: 1},
	{name: "kwok", module: "tools/kwok", pkg: "sigs.k8s.io/kwok/cmd/kwok", version: "sigs.k8s.io/kwok", ldflags: plainLDFlags, minutes: 2},
}

// Assets says where the control-plane binaries are.
type Assets struct {
	// Dir holds etcd and kube-apiserver (and, for a simulated cluster, the rest).
	Dir string
}

// Path returns the path of the named binary.
func (a Assets) Path(name string) string { return filepath.Join(a.Dir, name) }

// EnsureBinaries returns a directory holding the binaries the mode needs,
// building the missing ones from the tools/ modules. A preset KUBEBUILDER_ASSETS
// that holds them all wins. Builds are cached outside the repository, keyed by
// module version, and serialised with a file lock so that parallel test
// packages build each binary once. Progress goes to progress (may be nil).
func EnsureBinaries(ctx context.Context, simulated bool, progress io.Writer) (Assets, error) {
	if progress == nil {
		progress = io.Discard
	}
	want := apiOnlyBinaries
	if simulated {
		want = append(append([]binary{}, apiOnlyBinaries...), simulatedBinaries...)
	}
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" && hasAll(dir, want) {
		return Assets{Dir: dir}, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return Assets{}, err
	}
	cache, err := cacheDir()
	if err != nil {
		return Assets{}, err
	}
	// One directory per build of binaries that work together; each file name carries its version.
	assets := Assets{Dir: filepath.Join(cache, "bin")}
	if err := os.MkdirAll(assets.Dir, 0o755); err != nil {
		return Assets{}, err
	}
	linkDir := filepath.Join(cache, "current-"+keyOf(root, want))
	if err := os.MkdirAll(linkDir, 0o755); err != nil {
		return Assets{}, err
	}
	fetch := newFetcher()
	for _, b := range want {
		version, err := moduleVersion(filepath.Join(root, b.module, "go.mod"), b.version)
		if err != nil {
			return Assets{}, err
		}
		versioned := filepath.Join(assets.Dir, b.name+"-"+version)
		if err := buildOnce(ctx, root, b, version, versioned, fetch, progress); err != nil {
			return Assets{}, err
		}
		// Replace the link atomically: parallel test packages, and parallel
		// tests of one package, read it while we write; each writer its own
		// temporary name.
		tmpLink := fmt.Sprintf("%s.%d.%d", filepath.Join(linkDir, b.name), os.Getpid(), linkSeq.Add(1))
		_ = os.Remove(tmpLink)
		if err := os.Symlink(versioned, tmpLink); err != nil {
			return Assets{}, err
		}
		if err := os.Rename(tmpLink, filepath.Join(linkDir, b.name)); err != nil {
			return Assets{}, err
		}
	}
	return Assets{Dir: linkDir}, nil
}

// linkSeq numbers the temporary links this process writes.
var linkSeq atomic.Int64

func hasAll(dir string, want []binary) bool {
	for _, b := range want {
		if _, err := os.Stat(filepath.Join(dir, b.name)); err != nil {
			return false
		}
	}
	return true
}

// keyOf names the set of versions, so that two checkouts pinning different versions don't share links.
func keyOf(root string, want []binary) string {
	var parts []string
	for _, b := range want {
		v, _ := moduleVersion(filepath.Join(root, b.module, "go.mod"), b.version)
		parts = append(parts, b.name+v)
	}
	h := uint32(2166136261)
	for _, c := range strings.Join(parts, ",") {
		h = (h ^ uint32(c)) * 16777619
	}
	return fmt.Sprintf("%08x", h)
}

// buildOnce downloads or builds one binary unless it is cached; a lock per
// binary makes parallel callers wait for one build instead of each starting their own.
func buildOnce(ctx context.Context, root string, b binary, version, out string, fetch *fetcher, progress io.Writer) error {
	if _, err := os.Stat(out); err == nil {
		return nil
	}
	unlock, err := lockFile(out + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(out); err == nil {
		return nil
	}
	return fetch.fetch(ctx, root, b, version, out, progress)
}

func build(ctx context.Context, root string, b binary, version, out string, progress io.Writer) error {
	start := time.Now()
	fmt.Fprintf(progress, "testcluster: building %s %s from Go modules into %s (once per version; about %d min on 2 cores)\n", b.name, version, filepath.Dir(out), b.minutes)
	tmp := out + ".tmp"
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", b.ldflags(version), "-o", tmp, b.pkg)
	cmd.Dir = filepath.Join(root, b.module)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var outBuf strings.Builder
	cmd.Stdout, cmd.Stderr = &outBuf, &outBuf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("building %s: %w", b.name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("building %s in %s: %w\n%s", b.name, cmd.Dir, err, outBuf.String())
			}
			fmt.Fprintf(progress, "testcluster: built %s in %s\n", b.name, time.Since(start).Round(time.Second))
			return os.Rename(tmp, out)
		case <-tick.C:
			fmt.Fprintf(progress, "testcluster: still building %s (%s)\n", b.name, time.Since(start).Round(time.Second))
		}
	}
}

// moduleVersion reads the version of module mod required by the go.mod at path.
func moduleVersion(path, mod string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(s.Text()), "require "))
		if len(fields) >= 2 && fields[0] == mod && strings.HasPrefix(fields[1], "v") {
			return fields[1], nil
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s does not require %s", path, mod)
}

func cacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding a cache directory for control-plane binaries: %w", err)
	}
	return filepath.Join(base, "srscale-testbin"), nil
}

func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// RepoRoot finds the operator's checkout: upwards from the working directory,
// then from this source file (for binaries built in place).
func RepoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "tools", "go.mod")); err == nil {
				if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
					return d, nil
				}
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", errors.New("cannot find the operator's repository (a folder with go.mod and tools/go.mod); run from inside the checkout or set KUBEBUILDER_ASSETS")
}
