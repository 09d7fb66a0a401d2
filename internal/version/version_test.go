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

package version

import "testing"

func TestReported(t *testing.T) {
	tests := []struct {
		name, cell string
		want       string // Version.String(), or "" for unknown
	}{
		// FE's Version column, real 3.3.10 output (the facts sheet, starrocks-fe-protocol.md §2).
		{"a release with its commit is read", "3.3.10-227b0b3", "3.3.10"},
		{"a release without a commit is read", "3.5.2", "3.5.2"},
		// gen_build_version.py upper-cases STARROCKS_VERSION.
		{"an upper-case release candidate is read as one", "3.3.0-RC01-6d0be6f", "3.3.0-rc01"},
		{"a lower-case release candidate is read as one", "3.3.0-rc02", "3.3.0-rc02"},
		{"a dead node's NULL is no version", "NULL", ""},
		{"an empty cell is no version", "", ""},
		{"a development build is no version", "UNKNOWN-6d0be6f", ""},
		{"a branch build is no version", "main-6d0be6f", ""},
		{"a suffix that is no commit is no version", "3.3.10-ee-227b0b3", ""},
		{"two numbers are no reported version", "3.3", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Reported(tt.cell)
			if tt.want == "" {
				if o.Known() {
					t.Fatalf("read %s from %q, want unknown", o.Version, tt.cell)
				}
				return
			}
			if !o.Known() || o.Version.String() != tt.want {
				t.Fatalf("read %+v from %q, want %s", o, tt.cell, tt.want)
			}
		})
	}
}

func TestOfImage(t *testing.T) {
	tests := []struct {
		name, image string
		want        string // Version.String(), or "" for unknown
	}{
		// Tags in the upstream reference (STARROCKS_UPSTREAM_REFERENCE): starrocks/fe-ubuntu:3.4.1, :3.3.9, :4.1-latest, :latest.
		{"a release tag is read", "starrocks/fe-ubuntu:3.4.1", "3.4.1"},
		{"a registry with a port is not a tag", "registry.local:5000/starrocks/be-ubuntu:3.3.9", "3.3.9"},
		{"a release candidate tag is read", "starrocks/fe-ubuntu:3.3.0-rc01", "3.3.0-rc01"},
		{"a line tag knows no patch", "starrocks/fe-ubuntu:4.1-latest", "4.1.x"},
		{"a v prefix changes no number", "mirror/fe:v3.3.5", "3.3.5"},
		{"latest names no version", "starrocks/fe-ubuntu:latest", ""},
		{"no tag names no version", "starrocks/fe-ubuntu", ""},
		{"no tag behind a registry port names no version", "registry.local:5000/starrocks/fe-ubuntu", ""},
		{"a digest names no version", "starrocks/fe-ubuntu@sha256:0123456789abcdef", ""},
		{"a tag beside a digest is not trusted", "starrocks/fe-ubuntu:3.3.9@sha256:0123456789abcdef", ""},
		{"an unknown suffix is not guessed", "starrocks/fe-ubuntu:3.3.5-ubuntu", ""},
		{"two numbers without -latest are not guessed", "starrocks/fe-ubuntu:3.3", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := OfImage(tt.image)
			if tt.want == "" {
				if o.Known() {
					t.Fatalf("read %s from %q, want unknown", o.Version, tt.image)
				}
				if o.Unknown == "" {
					t.Fatal("unknown without a reason")
				}
				return
			}
			if !o.Known() || o.Version.String() != tt.want {
				t.Fatalf("read %+v from %q, want %s", o, tt.image, tt.want)
			}
		})
	}
}

func TestVersionOrder(t *testing.T) {
	v := func(s string) Version { return Reported(s).Version }
	line := OfImage("x:3.3-latest").Version
	tests := []struct {
		name   string
		a, b   Version
		want   int
		wantOK bool
	}{
		{"a later patch is higher", v("3.3.10"), v("3.3.9"), 1, true},
		{"a later minor is higher whatever the patch", v("3.4.0"), v("3.3.19"), 1, true},
		{"a candidate comes before its release", v("3.3.0-rc01"), v("3.3.0"), -1, true},
		{"a candidate comes after the previous patch", v("3.3.1-rc01"), v("3.3.0"), 1, true},
		{"a line without a patch orders against other lines", line, v("3.2.11"), 1, true},
		{"a line without a patch cannot order within its line", line, v("3.3.9"), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.a.Compare(tt.b)
			if got != tt.want || ok != tt.wantOK {
				t.Fatalf("compare(%s, %s) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestLowest(t *testing.T) {
	tests := []struct {
		name  string
		cells []string
		want  string // Version.String(), or "" for unknown
	}{
		{"the lowest of a half-finished rollout", []string{"3.4.1-aaaaaaa", "3.3.9-bbbbbbb", "3.4.1-aaaaaaa"}, "3.3.9"},
		{"a node not alive is skipped", []string{"NULL", "3.3.9-bbbbbbb"}, "3.3.9"},
		{"a cell that is no version makes it unknown", []string{"3.3.9-bbbbbbb", "UNKNOWN-ccccccc"}, ""},
		{"no node with a version is unknown", []string{"NULL"}, ""},
		{"no rows is unknown", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Lowest(tt.cells)
			if tt.want == "" {
				if o.Known() {
					t.Fatalf("lowest %s, want unknown", o.Version)
				}
				return
			}
			if !o.Known() || o.Version.String() != tt.want {
				t.Fatalf("lowest %+v, want %s", o, tt.want)
			}
		})
	}
}

func TestTag(t *testing.T) {
	for image, want := range map[string]string{
		"starrocks/fe-ubuntu:3.3.2":                          "3.3.2",
		"registry.local:5000/starrocks/fe-ubuntu:3.3.2":      "3.3.2",
		"registry.local:5000/starrocks/fe-ubuntu":            "",
		"starrocks/fe-ubuntu:3.3.2@sha256:0123456789abcdef":  "3.3.2",
		"starrocks/fe-ubuntu@sha256:0123456789abcdef":        "",
		"registry.local:5000/starrocks/fe@sha256:0123456789": "",
		"starrocks/fe-ubuntu:3.3.5-ubuntu":                   "3.3.5-ubuntu",
	} {
		if got := Tag(image); got != want {
			t.Errorf("Tag(%q) = %q, want %q", image, got, want)
		}
	}
}

// A tag StarRocks does not publish, or one beside a digest, is read for
// the direction of a change (and issue 50's checks) but not checked: the
// pre-flight goes on as for an unknown version.
func TestTagsReadButNotChecked(t *testing.T) {
	for image, want := range map[string]string{
		"starrocks/fe-ubuntu:3.3.5-ubuntu":                  "3.3.5",
		"starrocks/fe-ubuntu:3.3.0-rc01-ubuntu":             "3.3.0-rc01",
		"starrocks/fe-ubuntu:3.3":                           "3.3.x",
		"starrocks/fe-ubuntu:3.3.9@sha256:0123456789abcdef": "3.3.9",
		"starrocks/fe-ubuntu:v2.5.4-amd64":                  "2.5.4",
	} {
		o := OfImage(image)
		if o.Known() || !o.Read || o.Version.String() != want || o.Unknown == "" {
			t.Errorf("OfImage(%q) = %+v, want %s read, not known, and why", image, o, want)
		}
	}
	for _, image := range []string{"starrocks/fe-ubuntu:latest", "starrocks/fe-ubuntu:main-6d0be6f", "starrocks/fe-ubuntu@sha256:0123", "starrocks/fe-ubuntu"} {
		if o := OfImage(image); o.Read || o.Known() {
			t.Errorf("OfImage(%q) = %+v, want nothing read", image, o)
		}
	}
	if d := DirectionOf(OfImage("x:3.3.5-ubuntu"), OfImage("x:3.3.4-ubuntu")); d != Downgrade {
		t.Errorf("3.3.5-ubuntu -> 3.3.4-ubuntu: %d, want a downgrade", d)
	}
	if d := DirectionOf(OfImage("x:4.1.2"), OfImage("x:4.1-latest")); d != DirectionUnknown {
		t.Errorf("4.1.2 -> 4.1-latest: %d, want unknown (the line's patch is not known)", d)
	}
}
