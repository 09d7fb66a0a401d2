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

package upstreamref

import (
	"strings"
	"testing"
)

func TestFindHonoursTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	got, err := Find()
	if err != nil || got != dir {
		t.Fatalf("Find() = %q, %v; want %q", got, err, dir)
	}
}

func TestFindRejectsAMissingDirectory(t *testing.T) {
	t.Setenv(EnvVar, "/nonexistent/reference")
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), EnvVar) {
		t.Fatalf("Find() error = %v; want one naming %s", err, EnvVar)
	}
}
