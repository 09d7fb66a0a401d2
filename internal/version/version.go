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

// Package version reads StarRocks versions, the one reader of them: from
// the Version column FE reports for its nodes (Reported), and from an image
// reference's tag (OfImage, Tag). It compares them (Version.Compare) and
// tells the direction of a change (DirectionOf), which the rollout order
// and the pre-flight's verdict both go by. A form it does not know is an
// unknown version with the reason, never a guess (docs/upgrades.md,
// "Version strings"). It imports nothing of the operator: the builders
// (internal/resources) and the decisions (internal/starrocks) both read
// versions through it.
package version

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
	// Unknown says why Version cannot be checked against StarRocks'
	// documented paths; empty when it can.
	Unknown string
	// Read is true when Version holds the version the text names, also
	// where Unknown says it is not checked: a leading MAJOR.MINOR.PATCH
	// before a suffix StarRocks does not publish ("3.3.5-ubuntu"), or a
	// tag beside a digest (the digest decides what runs). The direction of
	// a change goes by it (DirectionOf); the pre-flight checks only what
	// is Known.
	Read bool
}

// Known reports whether a version was read in a form StarRocks publishes.
func (o Observed) Known() bool { return o.Unknown == "" }

// Of is v, known.
func Of(v Version) Observed { return Observed{Version: v, Read: true} }

// NotKnown is no version, and why.
func NotKnown(why string) Observed { return Observed{Unknown: why} }

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

// Compare orders two versions; ok is false when the answer needs a patch
// that one of them does not know.
func (v Version) Compare(w Version) (c int, ok bool) {
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

// Direction is whether a change upgrades or downgrades; it decides the order:
// BE and CN before FE on an upgrade, FE first on a downgrade.
type Direction int

// The directions of a version change.
const (
	DirectionUnknown Direction = iota
	NoChange
	Upgrade
	Downgrade
)

// DirectionOf is the direction of a change from one version to another:
// unknown when either was not read, or the answer needs a patch one of them
// does not know (4.1-latest and 4.1.2).
func DirectionOf(from, to Observed) Direction {
	if !from.Read || !to.Read {
		return DirectionUnknown
	}
	c, ok := to.Version.Compare(from.Version)
	switch {
	case !ok:
		return DirectionUnknown
	case c > 0:
		return Upgrade
	case c < 0:
		return Downgrade
	}
	return NoChange
}

// A reported version is STARROCKS_VERSION "-" STARROCKS_COMMIT_HASH: FE's
// Version column ("3.3.10-227b0b3", SHOW FRONTENDS, from the heartbeat) and
// BE's and CN's (get_short_version, be/src/util/debug_util.cpp). The build
// upper-cases STARROCKS_VERSION (build-support/gen_build_version.py), so a
// candidate reads "3.3.0-RC01-6d0be6f".
var reportedForm = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(?:-[Rr][Cc](\d+))?(?:-[0-9a-fA-F]{4,40})?$`)

// Reported reads the Version column of SHOW FRONTENDS, SHOW BACKENDS or
// SHOW COMPUTE NODES.
func Reported(s string) Observed {
	s = strings.TrimSpace(s)
	if Null(s) {
		return NotKnown("FE reports no version for the node (NULL: not alive since FE started)")
	}
	m := reportedForm.FindStringSubmatch(s)
	if m == nil {
		return NotKnown(fmt.Sprintf("FE reports version %q, which is not MAJOR.MINOR.PATCH[-RCnn][-commit]", s))
	}
	return Of(versionOf(m[1], m[2], m[3], m[4]))
}

// Null reports whether a Version cell is FE's NULL: a node not alive since
// FE started.
func Null(cell string) bool {
	cell = strings.TrimSpace(cell)
	return cell == "" || strings.EqualFold(cell, "NULL")
}

// The image tags StarRocks publishes: "3.3.9", "3.3.0-rc01", and the floating
// "4.1-latest" (starrocks/fe-ubuntu, be-ubuntu, cn-ubuntu). A leading "v" is
// accepted: it changes no number. Any other tag that starts with
// MAJOR.MINOR[.PATCH[-rcNN]] is read for what it starts with ("3.3.5-ubuntu",
// "3.3"), and not checked.
var (
	releaseTag = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)(?:-rc(\d+))?$`)
	lineTag    = regexp.MustCompile(`^(\d+)\.(\d+)-latest$`)
	prefixTag  = regexp.MustCompile(`^v?(\d+)\.(\d+)(?:\.(\d+)(?:-rc(\d+))?)?(?:\D.*)?$`)
)

// Tag is an image reference's tag ("3.3.2" of
// "registry:5000/starrocks/fe-ubuntu:3.3.2@sha256:..."); "" when it has none.
func Tag(image string) string {
	image, _, _ = strings.Cut(image, "@")
	if i := strings.LastIndex(image, ":"); i >= 0 && !strings.Contains(image[i:], "/") {
		return image[i+1:]
	}
	return ""
}

// OfImage reads the version an image reference's tag names. A digest
// decides what runs whatever the tag beside it says: the tag is read, not
// checked.
func OfImage(image string) Observed {
	o := ofTag(Tag(image), image)
	if strings.Contains(image, "@") {
		o.Unknown = fmt.Sprintf("image %q is pinned by digest; a digest names no version", image)
	}
	return o
}

func ofTag(tag, image string) Observed {
	switch tag {
	case "":
		return NotKnown(fmt.Sprintf("image %q has no tag (it runs latest), which names no version", image))
	case "latest", "main":
		return NotKnown(fmt.Sprintf("image tag %q names no version", tag))
	}
	if m := releaseTag.FindStringSubmatch(tag); m != nil {
		return Of(versionOf(m[1], m[2], m[3], m[4]))
	}
	if m := lineTag.FindStringSubmatch(tag); m != nil {
		return Of(versionOf(m[1], m[2], "", ""))
	}
	o := NotKnown(fmt.Sprintf("image tag %q is not a StarRocks release tag (3.3.9, 3.3.0-rc01, 4.1-latest)", tag))
	if m := prefixTag.FindStringSubmatch(tag); m != nil {
		o.Version, o.Read = versionOf(m[1], m[2], m[3], m[4]), true
	}
	return o
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

// Lowest is the lowest version among the Version cells FE reports for one
// component's nodes. The lowest is the version the component has not yet
// left behind: a rollout that stopped half way starts again from it. Rows FE
// reports as NULL (a node not alive) are skipped; any other cell that is no
// version makes the answer unknown.
func Lowest(cells []string) Observed {
	var lowest *Version
	for _, c := range cells {
		o := Reported(c)
		if !o.Known() {
			if Null(c) {
				continue
			}
			return o
		}
		if lowest == nil {
			v := o.Version
			lowest = &v
		} else if c, _ := o.Version.Compare(*lowest); c < 0 {
			*lowest = o.Version
		}
	}
	if lowest == nil {
		return NotKnown("FE reports no version for any node")
	}
	return Of(*lowest)
}
