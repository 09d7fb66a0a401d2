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

import (
	"errors"
	"strings"
	"testing"

	"github.com/srscale/starrocks-operator/internal/fe"

	"github.com/srscale/starrocks-operator/internal/version"
)

// Each case names what it decides; the comment cites the rule of
// docs/upgrades.md (and upgrade_rules.go) it enforces.
func TestUpgradePath(t *testing.T) {
	tests := []struct {
		name     string
		from, to string // a reported Version cell; an image reference
		ran      string // the highest version the cluster ran (status.highestVersion); "" for none
		kind     PathKind
		dir      version.Direction
		pause    bool
		next     string   // in NextStep
		text     string   // in Warning, Why or Rule.Text
		requires []string // each in one of Requires
	}{
		// Patch versions, either direction, directly (Upgrade/Downgrade StarRocks, 2.5 to 4.1).
		{name: "the same version is no change", from: "3.3.9-a1b2c3d", to: "sr/fe:3.3.9", kind: PathSame, dir: version.NoChange},
		{name: "a patch upgrade needs no pause", from: "3.3.2-a1b2c3d", to: "sr/fe:3.3.9", kind: PathPatch, dir: version.Upgrade},
		{name: "a patch downgrade needs no pause and goes FE first", from: "3.3.9-a1b2c3d", to: "sr/fe:3.3.2",
			kind: PathPatch, dir: version.Downgrade},
		// Release notes 3.5: after v3.5.2 or later, not to v3.5.0 & v3.5.1 (FE crash).
		{name: "a patch downgrade from 3.5.2 or later to 3.5.1 is refused", from: "3.5.3-a1b2c3d", to: "sr/fe:3.5.1",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.5.2 or a later 3.5", text: "FE crash"},
		{name: "a patch downgrade from 3.5.1 to 3.5.0 is allowed", from: "3.5.1-a1b2c3d", to: "sr/fe:3.5.0",
			kind: PathPatch, dir: version.Downgrade},

		// Minor versions with the compatibility configuration; skips allowed on upgrade, strongly recommended against.
		{name: "a one-step minor upgrade pauses balance", from: "3.3.9-a1b2c3d", to: "sr/fe:3.4.1",
			kind: PathMinorStep, dir: version.Upgrade, pause: true},
		{name: "a minor upgrade skipping 3.3 warns", from: "3.2.9-a1b2c3d", to: "sr/fe:3.4.1",
			kind: PathMinorSkip, dir: version.Upgrade, pause: true, text: "3.2 -> 3.3 -> 3.4"},
		{name: "a one-step minor downgrade pauses balance", from: "3.4.1-a1b2c3d", to: "sr/fe:3.3.9",
			kind: PathMinorStep, dir: version.Downgrade, pause: true, requires: []string{"ignore_unknown_log_id"}},
		// Downgrade StarRocks: consecutively, one minor version to another; no page allows a skip.
		{name: "a two-line minor downgrade is refused", from: "3.5.2-a1b2c3d", to: "sr/fe:3.3.9",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.4 first"},

		// Major: to v3.0 only from v2.5 (en); v1.19 to v2.0 and v2.5 to v3.0 (zh).
		{name: "2.5 to 3.0 is the documented major step", from: "2.5.13-a1b2c3d", to: "sr/fe:3.0.9",
			kind: PathMajorStep, dir: version.Upgrade, pause: true},
		// Downgrade StarRocks: FQDN access is "supported from v2.4 onwards";
		// the operator registers every node by FQDN (issue 50 item 10).
		{name: "1.19 to 2.0, the documented major step, is refused: 2.0 has no FQDN", from: "1.19.7-a1b2c3d", to: "sr/fe:2.0.0",
			kind: PathRefused, dir: version.Upgrade, next: "use 2.4 or later", text: "FQDN"},
		{name: "a downgrade below 2.4 is refused: no FQDN", from: "2.4.5-a1b2c3d", to: "sr/fe:2.3.12",
			kind: PathRefused, dir: version.Downgrade, next: "use 2.4 or later", text: "FQDN"},
		{name: "a target below 2.4 is refused whatever runs", from: "UNKNOWN-a1b2c3d", to: "sr/fe:2.3-latest",
			kind: PathRefused, dir: version.DirectionUnknown, next: "use 2.4 or later", text: "FQDN"},
		{name: "2.4 is the first line with FQDN", from: "2.4.5-a1b2c3d", to: "sr/fe:2.4.6",
			kind: PathPatch, dir: version.Upgrade},
		{name: "2.5 to 3.1 is refused until 3.0", from: "2.5.13-a1b2c3d", to: "sr/fe:3.1.0",
			kind: PathRefused, dir: version.Upgrade, next: "upgrade to 3.0 first"},
		{name: "2.4 to 3.0 is refused until 2.5", from: "2.4.5-a1b2c3d", to: "sr/fe:3.0.0",
			kind: PathRefused, dir: version.Upgrade, next: "upgrade to 2.5 first"},
		{name: "2.5 to 4.0 is refused until 3.0", from: "2.5.13-a1b2c3d", to: "sr/fe:4.0.1",
			kind: PathRefused, dir: version.Upgrade, next: "upgrade to 3.0 first"},
		// No page gates 4.0: the operator's choice, as for 3.0 (docs/upgrades.md).
		{name: "3.5 to 4.0 is a major step by the operator's choice", from: "3.5.9-a1b2c3d", to: "sr/fe:4.0.6",
			kind: PathMajorStep, dir: version.Upgrade, pause: true, text: "as the pages require for 3.0"},
		// ... and so another way into 4.x warns, as a minor skip does (issue 50 item 9).
		{name: "3.4 to 4.0 warns: no page gates it", from: "3.4.8-a1b2c3d", to: "sr/fe:4.0.6",
			kind: PathMinorSkip, dir: version.Upgrade, pause: true, text: "3.5, then 4.0", requires: []string{"JDK 17"}},
		{name: "3.5 to 4.1 warns: no page gates it", from: "3.5.9-a1b2c3d", to: "sr/fe:4.1.2",
			kind: PathMinorSkip, dir: version.Upgrade, pause: true, text: "no page gates the way into 4.x"},
		{name: "3.5 to 5.0 is refused until 4.0", from: "3.5.9-a1b2c3d", to: "sr/fe:5.0.0",
			kind: PathRefused, dir: version.Upgrade, next: "upgrade to 4.0 first"},

		// Major downgrade: v3.0 only to v2.5.3 and later.
		{name: "3.0 to 2.5.3 is the documented major downgrade", from: "3.0.9-a1b2c3d", to: "sr/fe:2.5.3",
			kind: PathMajorStep, dir: version.Downgrade, pause: true, requires: []string{"ignore_unknown_log_id"}},
		{name: "3.0 to 2.5.2 is refused", from: "3.0.9-a1b2c3d", to: "sr/fe:2.5.2",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 2.5.3 or a later 2.5"},
		{name: "3.1 to 2.5 is refused until 3.0", from: "3.1.11-a1b2c3d", to: "sr/fe:2.5.22",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.0 first"},
		{name: "4.0 to 3.4 is refused until 3.5", from: "4.0.6-a1b2c3d", to: "sr/fe:3.4.8",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.5 first"},

		// Downgrade floors: the pages and release notes that name metadata loss, incompatibility or a crash.
		{name: "3.3 to 3.2.2 loses metadata and is refused", from: "3.3.5-a1b2c3d", to: "sr/fe:3.2.2",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.2.3 or a later 3.2", text: "metadata loss"},
		{name: "3.3 before 3.3.9 to 3.2.3 is allowed", from: "3.3.8-a1b2c3d", to: "sr/fe:3.2.3",
			kind: PathMinorStep, dir: version.Downgrade, pause: true,
			requires: []string{"history_job_keep_max_second", "ignore_unknown_log_id"}},
		{name: "3.3.9 to 3.2.10 is refused", from: "3.3.9-a1b2c3d", to: "sr/fe:3.2.10",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.2.11 or a later 3.2"},
		{name: "3.3.9 to 3.2.11 is allowed", from: "3.3.9-a1b2c3d", to: "sr/fe:3.2.11",
			kind: PathMinorStep, dir: version.Downgrade, pause: true,
			requires: []string{"history_job_keep_max_second", "ignore_unknown_log_id"}},
		{name: "3.4 to 3.3.8 is refused", from: "3.4.0-a1b2c3d", to: "sr/fe:3.3.8",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.3.9 or a later 3.3"},
		{name: "3.5 to 3.4.5 is refused", from: "3.5.0-a1b2c3d", to: "sr/fe:3.4.5",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.4.6 or a later 3.4", text: "incompatibility"},
		{name: "4.0 to 3.5.1 is refused", from: "4.0.1-a1b2c3d", to: "sr/fe:3.5.1",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.5.2 or a later 3.5"},
		{name: "4.1 to 4.0.5 is refused", from: "4.1.2-a1b2c3d", to: "sr/fe:4.0.5",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 4.0.6 or a later 4.0"},
		{name: "4.1 to 4.0.6 is allowed", from: "4.1.2-a1b2c3d", to: "sr/fe:4.0.6",
			kind: PathMinorStep, dir: version.Downgrade, pause: true, requires: []string{"ignore_unknown_log_id"}},
		// A floor from X.Y.0 holds from the whole line: its release candidates ran its metadata (issue 50 item 4).
		{name: "a release candidate of 3.3 to 3.2.2 is refused", from: "3.3.0-RC01-a1b2c3d", to: "sr/fe:3.2.2",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.2.3 or a later 3.2", text: "metadata loss"},
		{name: "a release candidate of 4.1 to 4.0.5 is refused", from: "4.1.0-RC01-a1b2c3d", to: "sr/fe:4.0.5",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 4.0.6 or a later 4.0"},
		{name: "a release candidate of 3.5 to 3.4.5 is refused", from: "3.5.0-rc02-a1b2c3d", to: "sr/fe:3.4.5",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.4.6 or a later 3.4"},
		// The floors hold from what the cluster has run, not only from what it runs (issue 50 item 3).
		{name: "4.1 then 4.0.6 then 4.0.5 is refused at the second hop", ran: "4.1.2-a1b2c3d", from: "4.0.6-a1b2c3d",
			to: "sr/fe:4.0.5", kind: PathRefused, dir: version.Downgrade, next: "downgrade to 4.0.6 or a later 4.0 (the cluster ran 4.1.2)"},
		{name: "4.0.6 to 4.0.5 without a record of 4.1 is a patch downgrade", from: "4.0.6-a1b2c3d",
			to: "sr/fe:4.0.5", kind: PathPatch, dir: version.Downgrade},
		{name: "3.3 then 3.2.3 then 3.2.2 is refused at the second hop", ran: "3.3.1-a1b2c3d", from: "3.2.3-a1b2c3d",
			to: "sr/fe:3.2.2", kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.2.3 or a later 3.2", text: "metadata loss"},
		{name: "3.5 then 3.4.6 then 3.4.5 is refused at the second hop", ran: "3.5.0-a1b2c3d", from: "3.4.6-a1b2c3d",
			to: "sr/fe:3.4.5", kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.4.6 or a later 3.4"},
		{name: "a record below the running version changes nothing", ran: "3.2.1-a1b2c3d", from: "3.3.5-a1b2c3d",
			to: "sr/fe:3.3.6", kind: PathPatch, dir: version.Upgrade},
		// With FE not reporting, the floors hold from the record, and 4.1.0 is refused (issue 50 item 6).
		{name: "FE not reporting, the record of 4.1 refuses 4.0.5", ran: "4.1.2-a1b2c3d", from: "NULL",
			to: "sr/fe:4.0.5", kind: PathRefused, dir: version.DirectionUnknown, next: "downgrade to 4.0.6 or a later 4.0 (the cluster ran 4.1.2)"},
		{name: "FE not reporting and no record is not checked", from: "NULL",
			to: "sr/fe:4.0.5", kind: PathUnknown, dir: version.DirectionUnknown, pause: true, text: "running version"},
		{name: "FE not reporting, 4.1.0 is refused", from: "NULL",
			to: "sr/fe:4.1.0", kind: PathRefused, dir: version.DirectionUnknown, next: "v4.1.1 or later"},
		{name: "4.1.0 is refused from an unreadable version", from: "UNKNOWN-a1b2c3d",
			to: "sr/fe:4.1.0", kind: PathRefused, dir: version.DirectionUnknown, next: "v4.1.1 or later"},
		// A version read from a tag StarRocks does not publish, or beside a digest: checked for a refusal (issue 50 item 5).
		{name: "a tag beside a digest is read for a refusal", from: "3.3.5-a1b2c3d", to: "sr/be-ubuntu:3.2.1@sha256:0123456789abcdef",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.2.3 or a later 3.2", text: "metadata loss"},
		{name: "a -ubuntu suffix is read for a refusal", from: "3.3.5-a1b2c3d", to: "sr/be-ubuntu:3.2.2-ubuntu",
			kind: PathRefused, dir: version.Downgrade, next: "downgrade to 3.2.3 or a later 3.2", text: "metadata loss"},
		{name: "a -ubuntu suffix the docs allow is not checked", from: "3.3.5-a1b2c3d", to: "sr/be-ubuntu:3.3.6-ubuntu",
			kind: PathUnknown, dir: version.Upgrade, pause: true, text: "not a StarRocks release tag"},
		{name: "a tag beside a digest the docs allow is not checked", from: "3.3.5-a1b2c3d", to: "sr/be-ubuntu:3.3.6@sha256:0123456789abcdef",
			kind: PathUnknown, dir: version.Upgrade, pause: true, text: "pinned by digest"},
		{name: "4.1 to a 4.0 image without a patch is not checked", from: "4.1.2-a1b2c3d", to: "sr/fe:4.0-latest",
			kind: PathUnknown, dir: version.Downgrade, pause: true, text: "4.0.6"},

		// Release notes 4.1: container users must not upgrade to v4.1.0.
		{name: "an upgrade to 4.1.0 is refused", from: "4.0.9-a1b2c3d", to: "sr/fe:4.1.0",
			kind: PathRefused, dir: version.Upgrade, next: "v4.1.1 or later"},
		{name: "an upgrade to 4.1 without a patch is not checked", from: "4.0.9-a1b2c3d", to: "sr/fe:4.1-latest",
			kind: PathUnknown, dir: version.Upgrade, pause: true, text: "4.1.0"},

		// Unknown: allowed, said so; the pause is kept and the order is an upgrade's.
		{name: "latest is not checked and keeps the pause", from: "3.3.9-a1b2c3d", to: "sr/fe:latest",
			kind: PathUnknown, dir: version.DirectionUnknown, pause: true, text: "names no version"},
		{name: "an unreadable running version is not checked", from: "UNKNOWN-a1b2c3d", to: "sr/fe:3.4.1",
			kind: PathUnknown, dir: version.DirectionUnknown, pause: true, text: "running version"},
		{name: "a patch the image does not name leaves the direction unknown", from: "4.0.9-a1b2c3d",
			to: "sr/fe:4.0-latest", kind: PathPatch, dir: version.DirectionUnknown,
			requires: []string{"enable_rewrite_simple_agg_to_meta_scan"}},

		// Per-version items the pages list.
		{name: "an upgrade to 3.5 from below 3.4.10 lists JDK 17 and low cardinality", from: "3.4.5-a1b2c3d",
			to: "sr/fe:3.5.2", kind: PathMinorStep, dir: version.Upgrade, pause: true,
			requires: []string{"JDK 17", "cbo_enable_low_cardinality_optimize"}},
		{name: "a downgrade from 4.0.2 to 3.5.10 lists the meta scan switch", from: "4.0.2-a1b2c3d",
			to: "sr/fe:3.5.10", kind: PathMajorStep, dir: version.Downgrade, pause: true,
			requires: []string{"enable_rewrite_simple_agg_to_meta_scan", "ignore_unknown_log_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran version.Observed
			if tt.ran != "" {
				ran = version.Reported(tt.ran)
			}
			p := UpgradePathAfter(version.Reported(tt.from), version.OfImage(tt.to), ran)
			if p.Kind != tt.kind || p.Direction != tt.dir || p.PauseBalance != tt.pause {
				t.Fatalf("kind %d dir %d pause %v, want %d %d %v: %s",
					p.Kind, p.Direction, p.PauseBalance, tt.kind, tt.dir, tt.pause, p.Message())
			}
			if p.Allowed() != (tt.kind != PathRefused) {
				t.Errorf("allowed %v", p.Allowed())
			}
			if !strings.Contains(p.NextStep, tt.next) || (tt.next == "") != (p.NextStep == "") {
				t.Errorf("next step %q, want %q", p.NextStep, tt.next)
			}
			if said := p.Warning + p.Why + p.Rule.Text; !strings.Contains(said, tt.text) {
				t.Errorf("said %q, want %q in it", said, tt.text)
			}
			if p.Kind != PathUnknown && p.Rule.Source == "" {
				t.Error("a decision without its source")
			}
			for _, r := range tt.requires {
				if !anyContains(p.Requires, r) {
					t.Errorf("requires %v, want %q", p.Requires, r)
				}
			}
			if len(tt.requires) == 0 && len(p.Requires) > 0 {
				t.Errorf("requires %v, want none", p.Requires)
			}
		})
	}
}

func anyContains(rules []Rule, s string) bool {
	for _, r := range rules {
		if strings.Contains(r.Text, s) && r.Source != "" {
			return true
		}
	}
	return false
}

func TestUpgradePathImages(t *testing.T) {
	// Downgrade StarRocks, "Downgrade FE" step 1: an image before FE
	// downgrades; Upgrade StarRocks: an image between two upgrades.
	down := UpgradePath(version.Reported("3.4.1"), version.OfImage("x:3.3.9"))
	up := UpgradePath(version.Reported("3.3.9"), version.OfImage("x:3.4.1"))
	same := UpgradePath(version.Reported("3.3.9"), version.OfImage("x:3.3.9"))
	if !down.ImageBeforeFE || !down.ImageAfter || up.ImageBeforeFE || !up.ImageAfter || same.ImageAfter {
		t.Fatalf("images: down %v/%v up %v/%v same %v", down.ImageBeforeFE, down.ImageAfter,
			up.ImageBeforeFE, up.ImageAfter, same.ImageAfter)
	}
}

// ALTER SYSTEM CREATE IMAGE "is only supported in from v2.5.3 and later"
// (Downgrade StarRocks, "Downgrade FE" step 1): an FE before it is never
// sent one, before a downgrade (the running FE) or after the change (the
// new one), so that the pause it belongs to is lifted (issue 50 item 10).
func TestUpgradePathImagesBefore253(t *testing.T) {
	tests := []struct {
		from, to      string
		before, after bool
	}{
		{"2.4.5", "x:2.5.2", false, false},
		{"2.5.2", "x:2.5.3", false, true},
		{"2.5.3", "x:2.5.2", true, false},
		{"2.5.13", "x:2.5-latest", false, false}, // a patch of 2.5 that may be before 2.5.3
		{"2.5.2", "x:2.5.1-ubuntu", false, false},
		{"3.0.9", "x:2.5.3", true, true},
		{"2.5.13", "x:3.0.1", false, true},
	}
	for _, tt := range tests {
		p := UpgradePath(version.Reported(tt.from), version.OfImage(tt.to))
		if p.ImageBeforeFE != tt.before || p.ImageAfter != tt.after {
			t.Errorf("%s to %s: image before FE %v, after %v; want %v, %v (%s)", tt.from, tt.to,
				p.ImageBeforeFE, p.ImageAfter, tt.before, tt.after, p.Message())
		}
	}
}

func TestUpgradePathMessage(t *testing.T) {
	m := UpgradePath(version.Reported("3.3.5"), version.OfImage("x:3.2.1")).Message()
	for _, want := range []string{"3.3.5 to 3.2.1 refused", "metadata loss", "docs.starrocks.io", "Next: downgrade to 3.2.3"} {
		if !strings.Contains(m, want) {
			t.Errorf("message %q lacks %q", m, want)
		}
	}
}

func TestClusterPath(t *testing.T) {
	tests := []struct {
		name  string
		cells []string
		to    string
		kind  PathKind
		from  string // the version the verdict is from
	}{
		{"the lowest node decides the step of a half-finished upgrade",
			[]string{"3.4.1-a1b2c3d", "3.3.9-b2c3d4e", "3.4.1-a1b2c3d"}, "x:3.4.1", PathMinorStep, "3.3.9"},
		// 3.3.5 alone may go to 3.2.10 (floor 3.2.3); 3.3.9 may not (floor 3.2.11).
		{"a refusal from any node wins", []string{"3.3.5-a1b2c3d", "3.3.9-b2c3d4e"}, "x:3.2.10", PathRefused, "3.3.9"},
		// BE and CN before FE on an upgrade, FE first on a downgrade: no order fits both.
		{"nodes on both sides of the target are refused", []string{"3.3.9-a1b2c3d", "3.5.2-b2c3d4e"}, "x:3.4.6",
			PathRefused, ""},
		{"a node not alive is skipped", []string{"NULL", "3.3.9-a1b2c3d"}, "x:3.3.10", PathPatch, "3.3.9"},
		{"no version at all is not checked", []string{"NULL"}, "x:3.3.10", PathUnknown, ""},
		{"an unreadable node makes it not checked", []string{"3.3.9-a1b2c3d", "UNKNOWN-b2c3d4e"}, "x:3.4.1",
			PathUnknown, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ClusterPath(tt.cells, version.OfImage(tt.to))
			if p.Kind != tt.kind {
				t.Fatalf("kind %d, want %d: %s", p.Kind, tt.kind, p.Message())
			}
			if tt.from != "" && p.From.Version.String() != tt.from {
				t.Errorf("from %s, want %s", p.From.Version, tt.from)
			}
		})
	}
}

// status.highestVersion: the highest release FE ever reported, never
// lowered by a downgrade (issue 50 item 3).
func TestHighestRun(t *testing.T) {
	rep := func(f, be, cn string) *Report {
		return &Report{Frontends: []fe.Frontend{{Version: f}}, Backends: []fe.Backend{{Version: be}}, ComputeNodes: []fe.ComputeNode{{Version: cn}}}
	}
	tests := []struct {
		name, recorded string
		rep            *Report
		want           string
	}{
		{"nothing recorded, no report", "", nil, ""},
		{"the first report records its highest node", "", rep("3.3.9-abc1234", "3.4.1-abc1234", "NULL"), "3.4.1"},
		{"a compute node counts", "", rep("3.3.9-abc1234", "", "4.1.2-abc1234"), "4.1.2"},
		{"a downgrade keeps the record", "4.1.2", rep("4.0.6-abc1234", "4.0.6-abc1234", ""), "4.1.2"},
		{"an upgrade raises it", "4.0.6", rep("4.1.2-abc1234", "4.0.6-abc1234", ""), "4.1.2"},
		{"a candidate is below its release", "3.3.0", rep("3.3.0-RC01-abc1234", "", ""), "3.3.0"},
		{"a candidate above the record is recorded", "3.2.9", rep("3.3.0-RC01-abc1234", "", ""), "3.3.0-rc01"},
		{"FE not answering keeps the record", "4.1.2", &Report{Err: errors.New("refused")}, "4.1.2"},
		{"a report without versions keeps the record", "4.1.2", rep("NULL", "UNKNOWN-abc1234", ""), "4.1.2"},
		{"an unreadable record is replaced", "garbage", rep("3.3.9-abc1234", "", ""), "3.3.9"},
	}
	for _, tt := range tests {
		if got := HighestRun(tt.recorded, tt.rep); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if got := HighestRun(tt.recorded, tt.rep); got != "" && !version.Reported(got).Known() {
			t.Errorf("%s: %q does not read back", tt.name, got)
		}
	}
}

// A refusal does not depend on how the tag spells the version (issue 50
// item 5): a release tag, a registry with a port, a leading v, a suffix
// StarRocks does not publish, a tag beside a digest all refuse what the
// release tag refuses; a tag that names no version refuses only what is
// refused whatever runs (4.1.0, before 2.4), which it cannot name.
func TestTagFormsRefuseAlike(t *testing.T) {
	forms := []func(v string) string{
		func(v string) string { return "starrocks/be-ubuntu:" + v },
		func(v string) string { return "registry.local:5000/starrocks/be-ubuntu:" + v },
		func(v string) string { return "starrocks/be-ubuntu:v" + v },
		func(v string) string { return "starrocks/be-ubuntu:" + v + "-ubuntu" },
		func(v string) string { return "starrocks/be-ubuntu:" + v + "@sha256:0123456789abcdef" },
		func(v string) string {
			return "registry.local:5000/starrocks/be-ubuntu:" + v + "@sha256:0123456789abcdef"
		},
	}
	froms := []string{"3.3.5", "3.3.9", "3.4.2", "3.5.3", "4.0.1", "4.1.2", "3.0.9", "2.5.13"}
	targets := []string{"3.2.1", "3.2.10", "3.2.11", "3.3.8", "3.3.9", "3.4.5", "3.4.6", "3.5.1", "3.5.2",
		"4.0.5", "4.0.6", "4.1.0", "4.1.1", "2.5.2", "2.5.3", "2.3.9", "3.1.0"}
	for _, from := range froms {
		for _, to := range targets {
			want := UpgradePath(version.Reported(from+"-abc1234"), version.OfImage(forms[0](to)))
			for _, form := range forms[1:] {
				got := UpgradePath(version.Reported(from+"-abc1234"), version.OfImage(form(to)))
				if want.Kind == PathRefused && got.Kind != PathRefused || want.Kind != PathRefused && got.Kind == PathRefused {
					t.Errorf("%s to %s: refused %v, but to %s refused %v: %s", from, forms[0](to), want.Kind == PathRefused,
						form(to), got.Kind == PathRefused, got.Message())
				}
				if got.Direction != want.Direction {
					t.Errorf("%s to %s: direction %d, want %d as for %s", from, form(to), got.Direction, want.Direction, forms[0](to))
				}
			}
		}
	}
	for _, img := range []string{"starrocks/be-ubuntu:latest", "starrocks/be-ubuntu@sha256:0123456789abcdef", "starrocks/be-ubuntu"} {
		if p := UpgradePath(version.Reported("3.3.5-abc1234"), version.OfImage(img)); p.Kind != PathUnknown {
			t.Errorf("3.3.5 to %s: %s, want not checked", img, p.Message())
		}
	}
}
