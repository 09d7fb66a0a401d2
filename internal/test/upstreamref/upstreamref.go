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

// Package upstreamref locates the upstream operator's reference material
// (its CRDs, examples and renderings) for the tests that compare with it.
//
// The reference is not part of this repository. A test that needs it calls
// Dir or Path: when the reference is absent the test is skipped with one line
// that says how to provide it, except under CI=true, where a missing reference
// fails the test so that CI can never skip the comparison silently.
package upstreamref

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names the directory holding the reference (upstream-crds/,
// upstream-examples/, upstream-rendered/, ...).
const EnvVar = "STARROCKS_UPSTREAM_REFERENCE"

// Find returns the reference directory: $STARROCKS_UPSTREAM_REFERENCE, or
// ../shared/reference beside the repository checkout when that exists.
func Find() (string, error) {
	if dir := os.Getenv(EnvVar); dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return "", fmt.Errorf("%s=%s is not a directory", EnvVar, dir)
		}
		return dir, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "..", "shared", "reference")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("no %s beside the checkout and %s is unset", dir, EnvVar)
	}
	return dir, nil
}

// Dir returns the reference directory, or skips t when there is none (fails
// it under CI=true).
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := Find()
	if err != nil {
		msg := fmt.Sprintf("%s: upstream reference not found; set %s to a directory with the upstream operator v1.11.5 reference "+
			"(upstream-crds/, upstream-examples/, upstream-rendered/, upstream-chart-rendered/) to run (%v)", t.Name(), EnvVar, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// Path returns a path inside the reference directory (see Dir).
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	return filepath.Join(append([]string{Dir(t)}, elem...)...)
}

// repoRoot is the checkout's top folder: upwards from the working directory to
// the folder whose go.mod sits beside tools/.
func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if isFile(filepath.Join(d, "go.mod")) && isFile(filepath.Join(d, "tools", "go.mod")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("cannot find the repository's top folder (go.mod beside tools/go.mod) above " + wd)
		}
	}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
