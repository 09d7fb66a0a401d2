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

// krewmanifest renders plugins/starrocks.yaml for the archives `make
// plugin` built (their SHA-256) and writes it beside them, once it passes
// krew's rules (internal/plugin/krew).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/srscale/starrocks-operator/internal/plugin/krew"
)

func main() {
	tmpl := flag.String("template", "plugins/starrocks.yaml", "the manifest template")
	dist := flag.String("dist", "dist/plugin", "where the archives kubectl-starrocks_<os>_<arch>.tar.gz are; the manifest is written there")
	version := flag.String("version", "", "the release version, without v")
	flag.Parse()
	if err := run(*tmpl, *dist, *version); err != nil {
		fmt.Fprintln(os.Stderr, "krewmanifest:", err)
		os.Exit(1)
	}
}

func run(tmpl, dist, version string) error {
	text, err := os.ReadFile(tmpl)
	if err != nil {
		return err
	}
	var archives []krew.Target
	for _, t := range krew.Targets {
		b, err := os.ReadFile(filepath.Join(dist, fmt.Sprintf("kubectl-starrocks_%s_%s.tar.gz", t.OS, t.Arch)))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		t.SHA256 = hex.EncodeToString(sum[:])
		archives = append(archives, t)
	}
	out, err := krew.Render(text, version, archives)
	if err != nil {
		return err
	}
	if _, err := krew.Parse(out, "starrocks"); err != nil {
		return err
	}
	path := filepath.Join(dist, "starrocks.yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return err
	}
	fmt.Println("wrote", path, "(krew manifest, valid)")
	return nil
}
