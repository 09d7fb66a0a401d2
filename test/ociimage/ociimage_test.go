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

package ociimage_test

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"sigs.k8s.io/yaml"

	"github.com/srscale/starrocks-operator/test/ociimage"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// TestImage builds the image as make image does (a static binary, then
// ociimage), writes the OCI layout and the tarball, reads them back and
// inspects what a user would run.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the operator binary")
	}
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tag := makeImageRef(t, root)
	dir := t.TempDir()
	bin := filepath.Join(dir, "linux_amd64", "starrocks-operator")
	build := exec.CommandContext(t.Context(), "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "./cmd/starrocks-operator")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the static operator binary: %v\n%s", err, out)
	}
	opts := ociimage.Options{Binaries: map[string]string{"linux/amd64": bin}, Version: "0.0.0-test", Revision: "abc123", Source: "https://example.invalid/src"}
	idx, err := ociimage.Index(opts)
	if err != nil {
		t.Fatal(err)
	}
	layoutDir, tarPath := filepath.Join(dir, "oci"), filepath.Join(dir, "image.tar")
	if err := ociimage.WriteLayout(layoutDir, tag, idx); err != nil {
		t.Fatal(err)
	}
	if err := ociimage.WriteTarball(tarPath, tag, "linux/amd64", idx); err != nil {
		t.Fatal(err)
	}

	// What the layout holds, read from disk as skopeo or crane would.
	img := imageFromLayout(t, layoutDir, tag)

	t.Run("config names the non-root user, the entrypoint, the platform and the labels", func(t *testing.T) {
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.OS != "linux" || cf.Architecture != "amd64" {
			t.Errorf("platform %s/%s, want linux/amd64", cf.OS, cf.Architecture)
		}
		if cf.Config.User != "65532:65532" {
			t.Errorf("user %q, want 65532:65532", cf.Config.User)
		}
		if strings.Join(cf.Config.Entrypoint, " ") != "/starrocks-operator" {
			t.Errorf("entrypoint %q, want [/starrocks-operator]", cf.Config.Entrypoint)
		}
		for k, want := range map[string]string{
			"org.opencontainers.image.version":  "0.0.0-test",
			"org.opencontainers.image.revision": "abc123",
			"org.opencontainers.image.source":   "https://example.invalid/src",
			"org.opencontainers.image.licenses": "Apache-2.0",
			"org.opencontainers.image.title":    "starrocks-operator",
		} {
			if got := cf.Config.Labels[k]; got != want {
				t.Errorf("label %s = %q, want %q", k, got, want)
			}
		}
	})

	files := extract(t, img)

	t.Run("file system holds the binary, CA certificates and the user 65532, nothing else runnable", func(t *testing.T) {
		want := map[string]int64{"starrocks-operator": 0o755, "etc/ssl/certs/ca-certificates.crt": 0o644, "etc/passwd": 0o644, "etc/group": 0o644}
		for name, mode := range want {
			f, ok := files[name]
			if !ok {
				t.Errorf("%s missing from the image", name)
				continue
			}
			if f.hdr.Mode != mode {
				t.Errorf("%s mode %o, want %o", name, f.hdr.Mode, mode)
			}
		}
		if !strings.Contains(string(files["etc/passwd"].data), "nonroot:x:65532:65532:") {
			t.Errorf("/etc/passwd does not name user 65532:\n%s", files["etc/passwd"].data)
		}
		if !bytes.Contains(files["etc/ssl/certs/ca-certificates.crt"].data, []byte("BEGIN CERTIFICATE")) {
			t.Error("CA bundle holds no certificate")
		}
		for name, f := range files {
			if f.hdr.Typeflag == tar.TypeReg && f.hdr.Mode&0o111 != 0 && name != "starrocks-operator" {
				t.Errorf("unexpected executable %s (FROM scratch has no shell)", name)
			}
		}
	})

	t.Run("the binary inside is static and runs --help", func(t *testing.T) {
		data := files["starrocks-operator"].data
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("not an ELF binary: %v", err)
		}
		if ef.Machine != elf.EM_X86_64 {
			t.Errorf("binary is for %v, want x86-64", ef.Machine)
		}
		for _, p := range ef.Progs {
			if p.Type == elf.PT_INTERP {
				t.Error("binary asks for a dynamic loader; FROM scratch has none (build with CGO_ENABLED=0)")
			}
		}
		path := filepath.Join(t.TempDir(), "starrocks-operator")
		if err := os.WriteFile(path, data, 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(t.Context(), path, "--help").CombinedOutput()
		if err != nil {
			t.Fatalf("starrocks-operator --help: %v\n%s", err, out)
		}
		for _, flag := range []string{"-max-concurrent-reconciles", "-kube-api-qps", "-metrics-bind-address"} {
			if !strings.Contains(string(out), flag) {
				t.Errorf("--help does not mention %s:\n%s", flag, out)
			}
		}
	})

	t.Run("the tarball holds the same image, tagged", func(t *testing.T) {
		timg, err := tarball.ImageFromPath(tarPath, nil)
		if err != nil {
			t.Fatal(err)
		}
		// A docker-load tarball keeps the config and the layers (its manifest is Docker's own).
		if got, want := cfgDigest(t, timg), cfgDigest(t, img); got != want {
			t.Errorf("tarball image config %s differs from the layout's %s", got, want)
		}
		m, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(tarPath) })
		if err != nil {
			t.Fatal(err)
		}
		if len(m) != 1 || len(m[0].RepoTags) != 1 || m[0].RepoTags[0] != tag {
			t.Errorf("tarball tags %+v, want [%s]", m, tag)
		}
	})

	t.Run("the same binary gives the same digest", func(t *testing.T) {
		again, err := ociimage.Index(opts)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := idx.Digest()
		b, _ := again.Digest()
		if a != b {
			t.Errorf("two builds differ: %s and %s", a, b)
		}
	})

	t.Run("the chart's default image is the one make image tags", func(t *testing.T) {
		var values struct {
			StarrocksOperator struct {
				Image struct{ Repository, Tag string }
			} `json:"starrocksOperator"`
		}
		readYAML(t, filepath.Join(root, "charts", "operator", "values.yaml"), &values)
		var chart struct {
			AppVersion string `json:"appVersion"`
		}
		readYAML(t, filepath.Join(root, "charts", "operator", "Chart.yaml"), &chart)
		img := values.StarrocksOperator.Image
		ref := img.Repository + ":" + img.Tag
		if img.Tag == "" { // the chart's default: its appVersion
			ref = img.Repository + ":" + chart.AppVersion
		}
		if ref != tag {
			t.Errorf("the operator chart deploys %s by default, make image tags %s", ref, tag)
		}
	})
}

// makeImageRef asks the Makefile which reference make image tags.
func makeImageRef(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), "make", "--no-print-directory", "-s", "image-ref")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make image-ref: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func imageFromLayout(t *testing.T, dir, tag string) v1.Image {
	t.Helper()
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Annotations[ociimage.RefNameAnnotation] != tag {
		t.Fatalf("index.json: want one index named %s, got %+v", tag, m.Manifests)
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	img, err := ociimage.PlatformImage(idx, "linux/amd64")
	if err != nil {
		t.Fatal(err)
	}
	return img
}

type file struct {
	hdr  *tar.Header
	data []byte
}

// extract reads the image's flattened file system.
func extract(t *testing.T, img v1.Image) map[string]file {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	files := map[string]file{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(h.Name, "/")] = file{hdr: h, data: data}
	}
	return files
}

func cfgDigest(t *testing.T, img v1.Image) v1.Hash {
	t.Helper()
	d, err := img.ConfigName()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
