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

// Package ociimage builds the operator's container image without a Docker
// daemon, with go-containerregistry: FROM scratch, a static binary, the
// machine's CA certificates and an /etc/passwd naming the non-root user
// 65532. Builds are reproducible: fixed timestamps, owners and file order,
// so the same binaries give the same digest.
package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// Entrypoint is where the operator binary lives in the image.
	Entrypoint = "/starrocks-operator"
	// User is the non-root user and group the operator runs as (distroless's "nonroot").
	User = "65532:65532"
	// CACertsPath is where Go's crypto/x509 looks for CA certificates on Linux.
	CACertsPath = "/etc/ssl/certs/ca-certificates.crt"
	// RefNameAnnotation names an image in an OCI layout's index.json.
	RefNameAnnotation = "org.opencontainers.image.ref.name"
)

// Options describe an image; Binaries is required.
type Options struct {
	// Binaries maps a platform ("linux/amd64") to a static operator binary built for it.
	Binaries map[string]string
	// CACerts is the CA bundle to copy in (default: this machine's, /etc/ssl/certs/ca-certificates.crt).
	CACerts string
	// Version, Revision and Source fill the OCI labels.
	Version, Revision, Source string
	// Created is the image's creation time; zero means the Unix epoch, so that builds are reproducible.
	Created time.Time
}

// Labels returns the OCI labels (annotations keys of the image-spec) the image carries.
func (o Options) Labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "starrocks-operator",
		"org.opencontainers.image.description": "Kubernetes operator for StarRocks clusters (starrocks.com/v1), built for many clusters",
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Revision,
		"org.opencontainers.image.created":     o.created().UTC().Format(time.RFC3339),
	}
}

func (o Options) created() time.Time {
	if o.Created.IsZero() {
		return time.Unix(0, 0)
	}
	return o.Created
}

// Platforms returns the platforms of o.Binaries, sorted.
func (o Options) Platforms() []string {
	ps := make([]string, 0, len(o.Binaries))
	for p := range o.Binaries {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// Index builds one image per platform and an OCI image index over them.
func Index(o Options) (v1.ImageIndex, error) {
	if len(o.Binaries) == 0 {
		return nil, fmt.Errorf("no operator binary given")
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range o.Platforms() {
		platform, err := v1.ParsePlatform(p)
		if err != nil {
			return nil, fmt.Errorf("platform %q: %w", p, err)
		}
		img, err := Image(o.Binaries[p], *platform, o)
		if err != nil {
			return nil, fmt.Errorf("image for %s: %w", p, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: platform}})
	}
	return idx, nil
}

// Image builds the image for one platform from a static operator binary.
func Image(binary string, platform v1.Platform, o Options) (v1.Image, error) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return nil, fmt.Errorf("reading the operator binary: %w", err)
	}
	certsPath := o.CACerts
	if certsPath == "" {
		certsPath = CACertsPath
	}
	certs, err := os.ReadFile(certsPath)
	if err != nil {
		return nil, fmt.Errorf("reading CA certificates (install ca-certificates, or pass another bundle): %w", err)
	}
	rootfs, err := rootFS(bin, certs, o.created())
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(rootfs)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created:   v1.Time{Time: o.created()},
		CreatedBy: "ociimage: operator binary, CA certificates, /etc/passwd",
		Comment:   "built without a Docker daemon (make image)",
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Created = v1.Time{Time: o.created()}
	cf.OS, cf.Architecture, cf.Variant = platform.OS, platform.Architecture, platform.Variant
	cf.Config = v1.Config{
		User:       User,
		Entrypoint: []string{Entrypoint},
		WorkingDir: "/",
		Env:        []string{"SSL_CERT_FILE=" + CACertsPath},
		Labels:     o.Labels(),
	}
	return mutate.ConfigFile(img, cf)
}

// rootFS is the image's one layer: the whole file system, as a tar.
func rootFS(bin, certs []byte, mtime time.Time) ([]byte, error) {
	type entry struct {
		name string
		mode int64
		uid  int
		data []byte // nil for a directory
	}
	const nonroot = 65532
	entries := []entry{
		{name: "etc/", mode: 0o755},
		{name: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnonroot:x:65532:\n")},
		{name: "etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{name: "etc/ssl/", mode: 0o755},
		{name: "etc/ssl/certs/", mode: 0o755},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: certs},
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o700, uid: nonroot},
		{name: "starrocks-operator", mode: 0o755, data: bin},
		{name: "tmp/", mode: 0o1777},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{
			Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: mtime,
			Typeflag: tar.TypeReg, Size: int64(len(e.data)), Format: tar.FormatPAX,
		}
		if e.data == nil {
			h.Typeflag = tar.TypeDir
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteLayout writes idx as an OCI image layout in dir (replacing what was
// there), named ref in index.json, as `skopeo copy oci:DIR:REF ...` and
// `crane push --index` expect.
func WriteLayout(dir, ref string, idx v1.ImageIndex) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	return p.AppendIndex(idx, layout.WithAnnotations(map[string]string{RefNameAnnotation: ref}))
}

// WriteTarball writes the image of one platform from idx as a tarball that
// `docker load` and `podman load` read, tagged ref.
func WriteTarball(path, ref, platform string, idx v1.ImageIndex) error {
	img, err := PlatformImage(idx, platform)
	if err != nil {
		return err
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	return tarball.WriteToFile(path, tag, img)
}

// PlatformImage returns the image for platform ("linux/amd64") in idx.
func PlatformImage(idx v1.ImageIndex, platform string) (v1.Image, error) {
	want, err := v1.ParsePlatform(platform)
	if err != nil {
		return nil, err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	for _, d := range m.Manifests {
		if d.Platform != nil && d.Platform.Satisfies(*want) {
			return idx.Image(d.Digest)
		}
	}
	return nil, fmt.Errorf("no image for %s in the index", platform)
}
