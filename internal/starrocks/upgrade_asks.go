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
	"fmt"
	"slices"
	"strings"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/version"
)

// What StarRocks' pages ask before FE's change that the operator can see,
// in the fe.conf it holds, or cannot and asks the user to confirm (issue
// 50 items 7 and 8). FE's change is held until it is met or confirmed
// (starrocks.com/upgrade-path-confirm); BE's and CN's are not concerned.

var (
	ruleIgnoreUnknownLogID = Rule{"If you downgrade from v2.2 and later versions: set the FE configuration item " +
		"ignore_unknown_log_id to true. Because it is a static parameter, you must modify it in the FE configuration " +
		"file fe.conf and restart the node; after the downgrade and the first checkpoint, reset it to false.", srcDowngrade}
	ruleJavaOpts = Rule{"JDK 17 or later is required from StarRocks v3.5.0 onwards: to upgrade a cluster from v3.4 or " +
		"earlier, remove the options that are incompatible with JDK 17 in the configuration item JAVA_OPTS in the FE " +
		"configuration file fe.conf, for example, options that involve CMS and GC; as of v3.5.0 all versions of JDK " +
		"use JAVA_OPTS.", srcRelease35}
)

// jdk17Gone are the JAVA_OPTS options "that involve CMS and GC" which JDK 17
// no longer has: the CMS collector and its tuning (removed in JDK 14), ParNew
// (removed in JDK 10), and the GC logging flags unified logging replaced in
// JDK 9 (-XX:+PrintGCDetails, -XX:+PrintGCDateStamps, -Xloggc, the log
// file rotation). G1 and -Xlog:gc are JDK 17's own and are kept.
var jdk17Gone = []string{"CMS", "ConcMarkSweep", "ParNew", "PrintGC", "GCLogFile", "-Xloggc"}

// JDK17Gone lists the options of a JAVA_OPTS value that involve CMS or a
// GC flag JDK 17 no longer has; nil when none.
func JDK17Gone(javaOpts string) []string {
	var out []string
	for _, opt := range strings.Fields(javaOpts) {
		if slices.ContainsFunc(jdk17Gone, func(s string) bool { return strings.Contains(opt, s) }) {
			out = append(out, opt)
		}
	}
	return out
}

// ConfirmedSteps reads UpgradePathConfirmAnnotation's value.
func ConfirmedSteps(value string) []string {
	var out []string
	for _, s := range strings.Split(value, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// feAsks holds FE's allowed change, in checks, while the fe.conf the
// operator holds (the new one, feConf) lacks what the pages ask before it,
// and refuses a 3.0 -> 2.5 downgrade whose image no page says carries the
// BDB JE jar it needs; a step in confirmed is the user's word that it is
// done.
func feAsks(checks []ImageCheck, feConf string, confirmed []string) {
	for i := range checks {
		c := &checks[i]
		p := c.Verdict
		if c.Name != "FE" || !p.Allowed() || !p.From.Known() || !p.To.Read {
			continue
		}
		f, t := p.From.Version, p.To.Version
		hatch := func(step string) string {
			return fmt.Sprintf("annotate the cluster %s=%s", srv1.UpgradePathConfirmAnnotation, step)
		}
		switch {
		case p.Direction == version.Downgrade && f.Major >= 3 && t.Major <= 2 &&
			!slices.Contains(confirmed, srv1.ConfirmBDBJEJar):
			c.Verdict = refuse(p, ruleBDBJE, "build a 2.5 FE image with 3.0's fe/lib/starrocks-bdb-je-18.3.13.jar and "+
				"without fe/lib/je-7.*.jar, then "+hatch(srv1.ConfirmBDBJEJar))
		case p.Direction == version.Downgrade && (p.Kind == PathMinorStep || p.Kind == PathMajorStep) &&
			!confTrue(feConf, "ignore_unknown_log_id") && !slices.Contains(confirmed, srv1.ConfirmIgnoreUnknownLogID):
			c.Verdict = needsConf(p, ruleIgnoreUnknownLogID, fmt.Sprintf("FE goes down from %s to %s, and fe.conf "+
				"does not set ignore_unknown_log_id = true", f.Line(), t.Line()),
				"add ignore_unknown_log_id = true to fe.conf in the same update (false again after the first "+
					"checkpoint), or "+hatch(srv1.ConfirmIgnoreUnknownLogID))
		case p.Direction == version.Upgrade && below(f, ver(3, 5, 0)) && (t.Major > 3 || t.Major == 3 && t.Minor >= 5) &&
			!slices.Contains(confirmed, srv1.ConfirmJavaOpts):
			javaOpts, _ := fe.ConfValue(feConf, "JAVA_OPTS")
			if gone := JDK17Gone(javaOpts); len(gone) > 0 {
				c.Verdict = needsConf(p, ruleJavaOpts, fmt.Sprintf("FE goes to %s (JDK 17), and fe.conf's JAVA_OPTS "+
					"keeps %s", t.Line(), strings.Join(gone, " ")),
					"remove them from JAVA_OPTS in the same update (3.5's default JAVA_OPTS is recommended), or "+
						hatch(srv1.ConfirmJavaOpts))
			}
		}
	}
}

// needsConf holds a change until fe.conf carries what the pages ask.
func needsConf(p PathVerdict, r Rule, why, next string) PathVerdict {
	p = refuse(p, r, next)
	p.NeedsConf, p.Why = true, why
	return p
}

func confTrue(conf, key string) bool {
	v, ok := fe.ConfValue(conf, key)
	return ok && strings.EqualFold(v, "true")
}
