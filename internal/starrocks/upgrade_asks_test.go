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
	"strings"
	"testing"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// What the pages ask before FE's change, held until fe.conf carries it or
// the user confirms the step (issue 50 items 7 and 8), planned as the
// executor plans the pre-flight; each hold has its control.
func TestFEAsks(t *testing.T) {
	t0 := time.Now()
	feHost, beHost := "sr-fe-0.sr-fe-search.ns.svc.cluster.local", "sr-be-0.sr-be-search.ns.svc.cluster.local"
	change := func(fromFE, toFE, be, conf, confirmed string) PreflightInput {
		return PreflightInput{Paths: PreflightIn{
			FE:      Workload{Name: "FE", Live: stsWith("sr-fe", "starrocks/fe-ubuntu:"+fromFE, true), Desired: stsWith("sr-fe", "starrocks/fe-ubuntu:"+toFE, false)},
			BE:      Workload{Name: "BE", Live: stsWith("sr-be", "starrocks/be-ubuntu:"+be, true), Desired: stsWith("sr-be", "starrocks/be-ubuntu:"+be, false)},
			FENames: feNames, BENames: beNames, FEConf: conf, Confirmed: ConfirmedSteps(confirmed),
		}, Every: 10 * time.Second, Now: t0}
	}
	report := func(feV, beV string) *Report {
		return &Report{At: t0, Frontends: []fe.Frontend{{Host: feHost, Version: feV + "-abc1234"}},
			Backends: []fe.Backend{{Host: beHost, Version: beV + "-abc1234"}}}
	}
	const cms = `JAVA_OPTS = "-Dlog4j2.formatMsgNoLookups=true -Xmx8192m -XX:+UseMembar -XX:SurvivorRatio=8 -XX:+PrintGCDateStamps -XX:+UseConcMarkSweepGC -XX:CMSInitiatingOccupancyFraction=80 -Xloggc:${LOG_DIR}/fe.gc.log.$DATE"` + "\n"
	const g1 = `JAVA_OPTS = "-Dlog4j2.formatMsgNoLookups=true -Xmx8192m -XX:+UseG1GC -Xlog:gc*:${LOG_DIR}/fe.gc.log.$DATE:time"` + "\n"
	tests := []struct {
		name         string
		in           PreflightInput
		rep          *Report
		reason, says string // the hold's reason and a part of its message; "" for no hold
	}{
		// Downgrade StarRocks, "Downgrade FE" step 3: 3.0's BDB JE jar in the 2.5 image.
		{"3.0 to 2.5 is refused, naming the BDB JE jar", change("3.0.9", "2.5.13", "2.5.13", "ignore_unknown_log_id = true\n", ""),
			report("3.0.9", "2.5.13"), srv1.ReasonUpgradePathRefused, "starrocks-bdb-je-18.3.13.jar"},
		{"3.0 to 2.5 confirmed goes on", change("3.0.9", "2.5.13", "2.5.13", "ignore_unknown_log_id = true\n", "bdbje-jar"),
			report("3.0.9", "2.5.13"), "", ""},
		// Downgrade StarRocks, "If you downgrade from v2.2 and later versions".
		{"FE down a line without ignore_unknown_log_id is held", change("3.4.1", "3.3.9", "3.3.9", "", ""),
			report("3.4.1", "3.3.9"), srv1.ReasonUpgradeNeedsConf, "does not set ignore_unknown_log_id = true"},
		{"FE down a line with ignore_unknown_log_id = false is held", change("3.4.1", "3.3.9", "3.3.9", "ignore_unknown_log_id = false\n", ""),
			report("3.4.1", "3.3.9"), srv1.ReasonUpgradeNeedsConf, "ignore_unknown_log_id"},
		{"FE down a line with ignore_unknown_log_id = true goes on", change("3.4.1", "3.3.9", "3.3.9", "ignore_unknown_log_id = true # for the downgrade\n", ""),
			report("3.4.1", "3.3.9"), "", ""},
		{"FE down a line confirmed goes on", change("3.4.1", "3.3.9", "3.3.9", "", " java-opts, ignore-unknown-log-id"),
			report("3.4.1", "3.3.9"), "", ""},
		{"FE down a patch needs nothing", change("3.3.9", "3.3.2", "3.3.2", "", ""),
			report("3.3.9", "3.3.2"), "", ""},
		// Release notes 3.5: JDK 17, no CMS or GC option in JAVA_OPTS.
		{"FE to 3.5 with CMS options is held", change("3.4.9", "3.5.2", "3.5.2", cms, ""),
			report("3.4.9", "3.5.2"), srv1.ReasonUpgradeNeedsConf, "-XX:+UseConcMarkSweepGC"},
		{"FE to 3.5 with G1 and unified logging goes on", change("3.4.9", "3.5.2", "3.5.2", g1, ""),
			report("3.4.9", "3.5.2"), "", ""},
		{"FE to 3.5 without JAVA_OPTS goes on", change("3.4.9", "3.5.2", "3.5.2", "", ""),
			report("3.4.9", "3.5.2"), "", ""},
		{"FE to 3.5 with CMS options confirmed goes on", change("3.4.9", "3.5.2", "3.5.2", cms, "java-opts"),
			report("3.4.9", "3.5.2"), "", ""},
		{"FE within 3.5 keeps what it runs with", change("3.5.1", "3.5.2", "3.5.2", cms, ""),
			report("3.5.1", "3.5.2"), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _ := PlanPreflight(tt.in, PathCheck{}, Reads{})
			if !st.Needs.Report {
				t.Fatalf("the pre-flight did not ask for FE's report")
			}
			r := Reads{Report: tt.rep}
			r.Read.Report = true
			st, _ = PlanPreflight(tt.in, PathCheck{}, r)
			var got []Hold
			for _, h := range st.Holds {
				if h.Component == "fe" || h.Reason == srv1.ReasonUpgradeNeedsConf || h.Reason == srv1.ReasonUpgradePathRefused {
					got = append(got, h)
				}
			}
			switch {
			case tt.reason == "" && len(got) > 0:
				t.Fatalf("held: %+v", got)
			case tt.reason == "":
				return
			case len(got) != 1 || got[0].Reason != tt.reason || !got[0].Refuses || !got[0].Template || !strings.Contains(got[0].Message, tt.says):
				t.Fatalf("holds %+v; want one of FE's template, %s, saying %q", got, tt.reason, tt.says)
			case !strings.Contains(got[0].Message, srv1.UpgradePathConfirmAnnotation):
				t.Errorf("the hold does not name the confirmation: %s", got[0].Message)
			}
		})
	}
}

func TestJDK17Gone(t *testing.T) {
	// fe.conf's JAVA_OPTS of 2.5 (CMS) and of 3.x for JDK 11 (G1, unified logging).
	got := JDK17Gone("-Dlog4j2.formatMsgNoLookups=true -Xmx8192m -XX:+UseMembar -XX:SurvivorRatio=8 -XX:MaxTenuringThreshold=7 " +
		"-XX:+PrintGCDateStamps -XX:+PrintGCDetails -XX:+UseConcMarkSweepGC -XX:+UseParNewGC -XX:+CMSClassUnloadingEnabled " +
		"-XX:-CMSParallelRemarkEnabled -XX:CMSInitiatingOccupancyFraction=80 -XX:SoftRefLRUPolicyMSPerSize=0 -Xloggc:/log/fe.gc.log")
	want := "-XX:+PrintGCDateStamps -XX:+PrintGCDetails -XX:+UseConcMarkSweepGC -XX:+UseParNewGC -XX:+CMSClassUnloadingEnabled " +
		"-XX:-CMSParallelRemarkEnabled -XX:CMSInitiatingOccupancyFraction=80 -Xloggc:/log/fe.gc.log"
	if strings.Join(got, " ") != want {
		t.Errorf("JDK17Gone = %q, want %q", strings.Join(got, " "), want)
	}
	if got := JDK17Gone("-Xmx8192m -XX:+UseG1GC -Xlog:gc*:/log/fe.gc.log:time"); got != nil {
		t.Errorf("JDK17Gone of G1 = %v, want none", got)
	}
}
