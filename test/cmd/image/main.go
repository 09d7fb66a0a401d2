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

// Command image builds the operator image from static binaries without a
// Docker daemon (make image, make release): an OCI layout holding one image
// per platform under an index, and, optionally, a tarball of one platform for
// `docker load`.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/srscale/starrocks-operator/test/ociimage"
)

type binaries map[string]string

func (b binaries) String() string { return fmt.Sprint(map[string]string(b)) }

func (b binaries) Set(s string) error {
	platform, path, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("want PLATFORM=PATH (linux/amd64=bin/linux_amd64/starrocks-operator), got %q", s)
	}
	b[platform] = path
	return nil
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	bins := binaries{}
	fs.Var(bins, "binary", "PLATFORM=PATH of a static operator binary; repeat for each platform")
	tag := fs.String("tag", "", "image reference, e.g. ghcr.io/srscale/starrocks-operator:0.1.0")
	layoutDir := fs.String("layout", "", "write an OCI image layout (all platforms) here")
	tarPath := fs.String("tarball", "", "write a docker-load tarball of -tarball-platform here")
	tarPlatform := fs.String("tarball-platform", "linux/amd64", "platform of the tarball")
	version := fs.String("version", "", "org.opencontainers.image.version")
	revision := fs.String("revision", "", "org.opencontainers.image.revision")
	source := fs.String("source", "https://github.com/srscale/starrocks-operator", "org.opencontainers.image.source")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tag == "" || *layoutDir == "" {
		return fmt.Errorf("-tag and -layout are required")
	}
	idx, err := ociimage.Index(ociimage.Options{Binaries: bins, Version: *version, Revision: *revision, Source: *source})
	if err != nil {
		return err
	}
	if err := ociimage.WriteLayout(*layoutDir, *tag, idx); err != nil {
		return fmt.Errorf("writing the OCI layout: %w", err)
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s %s (%s) -> %s\n", *tag, digest, strings.Join(ociimage.Options{Binaries: bins}.Platforms(), ", "), *layoutDir)
	if *tarPath != "" {
		if err := os.MkdirAll(filepath.Dir(*tarPath), 0o755); err != nil {
			return err
		}
		if err := ociimage.WriteTarball(*tarPath, *tag, *tarPlatform, idx); err != nil {
			return fmt.Errorf("writing the tarball: %w", err)
		}
		fmt.Printf("%s (%s) -> %s (docker load -i %s)\n", *tag, *tarPlatform, *tarPath, *tarPath)
	}
	return nil
}
