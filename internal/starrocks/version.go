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

package starrocks

// StarRocks versions, read from what FE reports and from image tags. A form
// this file does not know is an unknown version with the reason, never a
// guess (docs/upgrades.md, "Version strings").

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Version is a StarRocks release: Major.Minor.Patch, or Major.Minor when an
// image tag names only the line ("4.1-latest").
type Version struct {
	Major, Minor, Patch int
	// PatchKnown is false when only Major.Minor is known.
	PatchKnown bool
	// RC is the release candidate number ("3.3.0-rc01" is 1); 0 for a release.
	// A candidate comes before its release.
	RC int
}

// Observed is a version read from FE or from an image, or why none could be.
type Observed struct {
	Version Version
	// Unknown says why no version could be read; empty when Version holds one.
	Unknown string
}

// Known reports whether a version was read.
func (o Observed) Known() bool { return o.Unknown == "" }

func known(v Version) Observed    { return Observed{Version: v} }
func unknown(why string) Observed { return Observed{Unknown: why} }

func (v Version) String() string {
	s := fmt.Sprintf("%d.%d", v.Major, v.Minor)
	if v.PatchKnown {
		s += fmt.Sprintf(".%d", v.Patch)
	} else {
		s += ".x"
	}
	if v.RC > 0 {
		s += fmt.Sprintf("-rc%02d", v.RC)
	}
	return s
}

// Line is "Major.Minor", the unit the upgrade paths count in.
func (v Version) Line() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// compare orders two versions; ok is false when the answer needs a patch
// that one of them does not know.
func (v Version) compare(w Version) (c int, ok bool) {
	if c := cmpInt(v.Major, w.Major); c != 0 {
		return c, true
	}
	if c := cmpInt(v.Minor, w.Minor); c != 0 {
		return c, true
	}
	if !v.PatchKnown || !w.PatchKnown {
		return 0, false
	}
	if c := cmpInt(v.Patch, w.Patch); c != 0 {
		return c, true
	}
	return cmpInt(rcRank(v.RC), rcRank(w.RC)), true
}

// rcRank puts every candidate before the release (RC 0).
func rcRank(rc int) int {
	if rc == 0 {
		return 1 << 30
	}
	return rc
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A reported version is STARROCKS_VERSION "-" STARROCKS_COMMIT_HASH: FE's
// Version column ("3.3.10-227b0b3", SHOW FRONTENDS, from the heartbeat) and
// BE's and CN's (get_short_version, be/src/util/debug_util.cpp). The build
// upper-cases STARROCKS_VERSION (build-support/gen_build_version.py), so a
// candidate reads "3.3.0-RC01-6d0be6f".
var reportedForm = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(?:-[Rr][Cc](\d+))?(?:-[0-9a-fA-F]{4,40})?$`)

// ReportedVersion reads the Version column of SHOW FRONTENDS, SHOW BACKENDS or
// SHOW COMPUTE NODES.
func ReportedVersion(s string) Observed {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "NULL") {
		return unknown("FE reports no version for the node (NULL: not alive since FE started)")
	}
	m := reportedForm.FindStringSubmatch(s)
	if m == nil {
		return unknown(fmt.Sprintf("FE reports version %q, which is not MAJOR.MINOR.PATCH[-RCnn][-commit]", s))
	}
	return known(versionOf(m[1], m[2], m[3], m[4]))
}

// The image tags StarRocks publishes: "3.3.9", "3.3.0-rc01", and the floating
// "4.1-latest" (starrocks/fe-ubuntu, be-ubuntu, cn-ubuntu). A leading "v" is
// accepted: it changes no number.
var (
	releaseTag = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)(?:-rc(\d+))?$`)
	lineTag    = regexp.MustCompile(`^(\d+)\.(\d+)-latest$`)
)

// ImageVersion reads the version an image reference's tag names.
func ImageVersion(image string) Observed {
	if strings.Contains(image, "@") {
		return unknown(fmt.Sprintf("image %q is pinned by digest; a digest names no version", image))
	}
	tag := ""
	if i := strings.LastIndex(image, ":"); i >= 0 && !strings.Contains(image[i:], "/") {
		tag = image[i+1:]
	}
	switch tag {
	case "":
		return unknown(fmt.Sprintf("image %q has no tag (it runs latest), which names no version", image))
	case "latest", "main":
		return unknown(fmt.Sprintf("image tag %q names no version", tag))
	}
	if m := releaseTag.FindStringSubmatch(tag); m != nil {
		return known(versionOf(m[1], m[2], m[3], m[4]))
	}
	if m := lineTag.FindStringSubmatch(tag); m != nil {
		return known(versionOf(m[1], m[2], "", ""))
	}
	return unknown(fmt.Sprintf("image tag %q is not a StarRocks release tag (3.3.9, 3.3.0-rc01, 4.1-latest)", tag))
}

func versionOf(major, minor, patch, rc string) Version {
	v := Version{Major: atoi(major), Minor: atoi(minor)}
	if patch != "" {
		v.Patch, v.PatchKnown = atoi(patch), true
	}
	if rc != "" {
		v.RC = atoi(rc)
	}
	return v
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s) // the patterns admit digits only
	return n
}

// LowestReported is the lowest version among the Version cells FE reports for
// one component's nodes. The lowest is the version the component has not yet
// left behind: a rollout that stopped half way starts again from it. Rows FE
// reports as NULL (a node not alive) are skipped; any other cell that is no
// version makes the answer unknown. Use ClusterPath to check a change against
// every reported version.
func LowestReported(cells []string) Observed {
	var lowest *Version
	for _, c := range cells {
		o := ReportedVersion(c)
		if !o.Known() {
			if isNull(c) {
				continue
			}
			return o
		}
		if lowest == nil {
			v := o.Version
			lowest = &v
		} else if c, _ := o.Version.compare(*lowest); c < 0 {
			*lowest = o.Version
		}
	}
	if lowest == nil {
		return unknown("FE reports no version for any node")
	}
	return known(*lowest)
}

func isNull(cell string) bool {
	cell = strings.TrimSpace(cell)
	return cell == "" || strings.EqualFold(cell, "NULL")
}
