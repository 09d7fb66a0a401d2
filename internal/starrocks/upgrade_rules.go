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

import "github.com/srscale/starrocks-operator/internal/version"

// The documented rules the upgrade path planner enforces, each with its
// page and doc version. docs/upgrades.md holds the same rules with the
// quotes; a rule changes in both places.

// Rule is one documented rule and where it is written.
type Rule struct {
	Text   string
	Source string
}

const (
	srcUpgrade = "Upgrade StarRocks, docs 2.5 to Latest-4.1 " +
		"(https://docs.starrocks.io/docs/deployment/manage_deployment/upgrade/)"
	srcUpgradeZh = "升级 StarRocks, docs zh 3.3 and Latest-4.0 " +
		"(https://docs.starrocks.io/zh/docs/deployment/upgrade)"
	srcDowngrade = "Downgrade StarRocks, docs 2.5 to Latest-4.1 " +
		"(https://docs.starrocks.io/docs/deployment/manage_deployment/downgrade/)"
	srcDowngrade33 = "Downgrade StarRocks, docs Stable-3.3 to Latest-4.0 " +
		"(https://docs.starrocks.io/docs/deployment/downgrade/); release notes 3.3 " +
		"(https://docs.starrocks.io/releasenotes/release-3.3)"
	srcDowngrade41 = "Downgrade StarRocks, docs Latest-4.1 " +
		"(https://docs.starrocks.io/docs/deployment/manage_deployment/downgrade/); release notes 4.1 " +
		"(https://docs.starrocks.io/releasenotes/release-4.1)"
	srcRelease33 = "release notes 3.3 (https://docs.starrocks.io/releasenotes/release-3.3)"
	srcRelease34 = "release notes 3.4, Downgrade Notes of 3.4.0 (https://docs.starrocks.io/releasenotes/release-3.4)"
	srcRelease35 = "release notes 3.5 (https://docs.starrocks.io/releasenotes/release-3.5)"
	srcRelease40 = "release notes 4.0 (https://docs.starrocks.io/releasenotes/release-4.0)"
	srcRelease41 = "release notes 4.1 (https://docs.starrocks.io/releasenotes/release-4.1)"
	srcOurs      = "no page gives a gate here; the operator's safe-side choice (docs/upgrades.md)"
)

var (
	rulePatch = Rule{"Patch versions: upgrade or downgrade across patch versions directly.",
		srcUpgrade + "; " + srcDowngrade}
	ruleMinorStep = Rule{"Minor versions: one minor version at a time, with the compatibility configuration " +
		"(tablet clone and balance off) before and restored after.", srcUpgrade + "; " + srcDowngrade}
	ruleMinorSkip = Rule{"From v2.0 you can upgrade across minor versions, but for compatibility and safety " +
		"StarRocks strongly recommends upgrading consecutively from one minor version to another.", srcUpgrade}
	ruleDowngradeSkip = Rule{"Downgrade consecutively from one minor version to another " +
		"(v3.5.x --> v3.4.x --> v3.3.x); unlike upgrades, no page allows a skip.", srcDowngrade}
	ruleMajorInto3 = Rule{"To upgrade to v3.0 you must first upgrade to v2.5 (zh: from v1.19 to v2.0, " +
		"from v2.5 to v3.0).", srcUpgrade + "; " + srcUpgradeZh}
	ruleMajorOther = Rule{"Into any other major version (4.0): from the last minor line of the previous major " +
		"to X.0, as the pages require for 3.0; no page gates it, so another way in is allowed with a warning, " +
		"as a minor skip is.", srcOurs}
	ruleMajorDown = Rule{"A major downgrade goes from X.0 to the last minor line of X-1 (v3.0 only to v2.5.3 " +
		"and later); other major downgrades are refused.", srcDowngrade}
	ruleFQDN = Rule{"If you have enabled FQDN access (supported from v2.4 onwards) and need to downgrade to versions " +
		"earlier than v2.4, you must switch to IP address access before downgrading. The operator registers every " +
		"node by its pod's DNS name, so a version before 2.4 cannot run here.", srcDowngrade}
	ruleBDBJE = Rule{"If you are downgrading StarRocks v3.0 to v2.5, you must follow these steps after you replace the " +
		"deployment files: 1. Copy the file fe/lib/starrocks-bdb-je-18.3.13.jar of the v3.0 deployment to the " +
		"directory fe/lib of the v2.5 deployment. 2. Delete the file fe/lib/je-7.*.jar. (\"Downgrade FE\", step 3; " +
		"no stock 2.5 image carries that jar.)", srcDowngrade}
	ruleContainer410 = Rule{"Container environment users should NOT upgrade to v4.1.0 (BE may fail to start); " +
		"wait for v4.1.1.", srcRelease41}
)

// firstFQDN is the first line that registers nodes by FQDN (ruleFQDN);
// imageStatement the first release with ALTER SYSTEM CREATE IMAGE ("The
// ALTER SYSTEM CREATE IMAGE statement is only supported in from v2.5.3 and
// later. On earlier versions, you need to create a metadata snapshot by
// restarting the Leader FE", Downgrade StarRocks, "Downgrade FE" step 1).
var (
	firstFQDN      = version.Version{Major: 2, Minor: 4}
	imageStatement = ver(2, 5, 3)
)

// lastLine is the last minor line of each major version: 1.19, 2.5 and 3.5
// (the release notes: release-1.19 ... release-4.1). A major step must start
// from it.
var lastLine = map[int]int{1: 19, 2: 5, 3: 5}

// floor forbids a downgrade below min, from any version in from's line at or
// above from. Stricter floors of a line come first.
type floor struct {
	from, min version.Version
	Rule
}

func ver(major, minor, patch int) version.Version {
	return version.Version{Major: major, Minor: minor, Patch: patch, PatchKnown: true}
}

var downgradeFloors = []floor{
	{ver(3, 3, 9), ver(3, 2, 11), Rule{"After upgrading StarRocks to v3.3.9, you can only downgrade it to " +
		"v3.2.11 or later.", srcRelease33}},
	{ver(3, 3, 0), ver(3, 2, 3), Rule{"After upgrading StarRocks to v3.3, DO NOT downgrade it directly to v3.2.0, " +
		"v3.2.1, or v3.2.2, otherwise it will cause metadata loss.", srcDowngrade33}},
	{ver(3, 4, 0), ver(3, 3, 9), Rule{"Clusters can be downgraded from v3.4.0 only to v3.3.9 and later.",
		srcRelease34}},
	{ver(3, 5, 2), ver(3, 5, 2), Rule{"After upgrading StarRocks to v3.5.2 or later, DO NOT downgrade it to v3.5.0 " +
		"& v3.5.1, otherwise it will cause FE crash.", srcRelease35}},
	{ver(3, 5, 0), ver(3, 4, 6), Rule{"After upgrading StarRocks to v3.5, DO NOT downgrade it directly to v3.4.0 ~ " +
		"v3.4.5, otherwise it will cause metadata incompatibility.", srcRelease35}},
	{ver(4, 0, 0), ver(3, 5, 2), Rule{"After upgrading StarRocks to v4.0, DO NOT downgrade it directly to v3.5.0 & " +
		"v3.5.1, otherwise it will cause metadata incompatibility and FE crash.", srcRelease40}},
	{ver(4, 1, 0), ver(4, 0, 6), Rule{"After upgrading StarRocks to v4.1, DO NOT downgrade to any v4.0 version " +
		"below v4.0.6 (tablet splitting and distribution metadata).", srcDowngrade41}},
	{ver(3, 0, 0), ver(2, 5, 3), Rule{"You can only downgrade your StarRocks v3.0 cluster to v2.5.3 and later " +
		"versions (BDBJE cannot be rolled back).", srcDowngrade}},
}

// floorsFor are the floors that hold from f into t's line. A floor from
// X.Y.0 ("after upgrading StarRocks to v3.3") holds from every version of
// the line, its release candidates too: 3.3.0-rc01 ran 3.3's metadata.
func floorsFor(f, t version.Version) []floor {
	var out []floor
	for _, fl := range downgradeFloors {
		wholeLine := fl.from.Patch == 0
		if f.Major == fl.from.Major && f.Minor == fl.from.Minor && (wholeLine || !below(f, fl.from)) &&
			t.Major == fl.min.Major && t.Minor == fl.min.Minor {
			out = append(out, fl)
		}
	}
	return out
}

// violatedFloor is the first floor t breaks from any of froms: the running
// version and the highest the cluster has run (the notes speak of what the
// cluster has run: "after upgrading StarRocks to v4.1").
func violatedFloor(t version.Version, froms ...version.Version) (floor, bool) {
	for _, f := range froms {
		for _, fl := range floorsFor(f, t) {
			if below(t, fl.min) {
				return fl, true
			}
		}
	}
	return floor{}, false
}

func uncheckedFloor(t version.Version, froms ...version.Version) (floor, bool) {
	for _, f := range froms {
		for _, fl := range floorsFor(f, t) {
			if _, ok := t.Compare(fl.min); !ok {
				return fl, true
			}
		}
	}
	return floor{}, false
}

// requirement is a per-version item a page lists for a change: a step the
// operator does not take (a .conf edit, a session variable), told to the user.
type requirement struct {
	applies func(from, to version.Version, lines bool) bool // lines: a minor or major change
	Rule
}

func below(v, w version.Version) bool   { c, ok := v.Compare(w); return ok && c < 0 }
func atLeast(v, w version.Version) bool { c, ok := v.Compare(w); return ok && c >= 0 }

// maybeBelow is true unless v is known to be at or above w.
func maybeBelow(v, w version.Version) bool { c, ok := v.Compare(w); return !ok || c < 0 }

var requirements = []requirement{
	{func(f, t version.Version, lines bool) bool { return lines && below(t, f) },
		Rule{"Downgrade from v2.2 and later: set ignore_unknown_log_id = true in fe.conf (static: restart); " +
			"back to false after the downgrade and the first checkpoint.", srcDowngrade}},
	{func(f, t version.Version, _ bool) bool {
		return atLeast(f, ver(3, 3, 0)) && t.Major == 3 && t.Minor == 2
	},
		Rule{"Downgrade from v3.3 to v3.2: finish or cancel every schema change started on v3.3, run " +
			`ADMIN SET FRONTEND CONFIG ("history_job_keep_max_second" = "0") and check ` +
			"SHOW PROC '/jobs/<db>/schema_change' is empty.", srcDowngrade}},
	{func(f, t version.Version, _ bool) bool {
		return atLeast(f, ver(4, 0, 2)) && (t.Major == 4 && t.Minor == 0 && maybeBelow(t, ver(4, 0, 2)) ||
			t.Major == 3 && t.Minor == 5 && maybeBelow(t, ver(3, 5, 11)))
	}, Rule{"Before downgrading from v4.0.2 to v4.0.1, v4.0.0 or v3.5.2~v3.5.10: " +
		"SET GLOBAL enable_rewrite_simple_agg_to_meta_scan=false; true again after upgrading back to v4.0.2 or later.",
		srcRelease40}},
	{func(f, t version.Version, _ bool) bool {
		return below(f, ver(3, 5, 0)) && !below(t, ver(3, 5, 0)) && below(f, t)
	},
		Rule{"JDK 17 from v3.5.0 (the image carries it): remove the JAVA_OPTS options JDK 17 rejects (CMS, GC) " +
			"from fe.conf; add --add-opens options to be.conf JAVA_OPTS for external catalogs and Java UDFs.",
			srcRelease35}},
	{func(f, t version.Version, _ bool) bool {
		return below(f, ver(3, 4, 10)) && t.Major == 3 && t.Minor == 5
	},
		Rule{"Upgrading to v3.5 from below v3.4.10: SET GLOBAL cbo_enable_low_cardinality_optimize=false " +
			"during the upgrade, or upgrade to v3.4.10 or later first.", srcRelease35}},
}

// CompatibilityPause is the universal compatibility configuration: tablet
// clone and balancing off before a minor or major upgrade or downgrade, set
// with ADMIN SET FRONTEND CONFIG; the pages restore 10000, 500, false and
// false after (srcUpgrade, srcDowngrade). Older pages name the first two by
// their aliases max_scheduling_tablets and max_balancing_tablets.
var CompatibilityPause = []struct{ Key, Value string }{
	{"tablet_sched_max_scheduling_tablets", "0"},
	{"tablet_sched_max_balancing_tablets", "0"},
	{"disable_balance", "true"},
	{"disable_colocate_balance", "true"},
}
