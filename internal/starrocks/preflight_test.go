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
	"time"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/version"
)

func TestCheckImagePaths(t *testing.T) {
	cnNames := PodNames{StatefulSet: "sr-cn", HeadlessService: "sr-cn-search", Namespace: "ns"}
	host := func(n PodNames, ord int) string {
		return n.Pod(ord) + "." + n.HeadlessService + "." + n.Namespace + ".svc.cluster.local"
	}
	report := func(feV, beV, cnV string) *Report {
		return &Report{
			Frontends:    []fe.Frontend{{Host: host(feNames, 0), Version: feV}, {Host: host(feNames, 1), Version: feV}},
			Backends:     []fe.Backend{{Host: host(beNames, 0), Version: beV}, {Host: "10.0.0.9", Version: "2.5.0-abc1234"}},
			ComputeNodes: []fe.ComputeNode{{Host: host(cnNames, 0), Version: cnV}, {Host: "wh-cn-0.wh-cn-search.ns.svc.cluster.local", Version: "2.5.0-abc1234"}},
		}
	}
	w := func(name, sts, from, to string) Workload {
		return Workload{Name: name, Live: stsWith(sts, from, true), Desired: stsWith(sts, to, false)}
	}
	same := func(name, sts, img string) Workload { return w(name, sts, img, img) }
	// written: the operator wrote img on the StatefulSet (rolled: every pod runs it).
	written := func(name, sts, img string, rolled bool) Workload {
		return Workload{Name: name, Live: stsWith(sts, img, rolled), Desired: stsWith(sts, img, false), Applied: true}
	}
	tests := []struct {
		name                          string
		in                            PreflightIn
		read                          bool
		waiting                       string
		checked, refused, warned, unk []string // component names
		note                          string   // a part of Note
	}{
		{name: "no image change reads nothing and checks nothing",
			in: PreflightIn{FE: same("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.2"), BE: same("BE", "sr-be", "starrocks/be-ubuntu:3.3.2")}},
		{name: "an image change the operator already wrote is not checked again",
			in: PreflightIn{BE: Workload{Name: "BE", Live: stsWith("sr-be", "starrocks/be-ubuntu:3.3.2", true), Desired: stsWith("sr-be", "registry/be-ubuntu:3.3.2", false), Applied: true}}},
		{name: "an image change without FE's report waits for it",
			in: PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.2.2")}, read: true, waiting: "BE"},
		{name: "every image change waits for FE's report, the unchanged ones do not",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.2", "starrocks/fe-ubuntu:3.3.3"), BE: same("BE", "sr-be", "starrocks/be-ubuntu:3.3.2"),
				CN: w("CN", "sr-cn", "starrocks/cn-ubuntu:3.3.2", "starrocks/cn-ubuntu:3.3.3")}, read: true, waiting: "FE,CN"},
		{name: "a downgrade from 3.3 to 3.2.2 is refused from the version FE reports, not the old tag",
			in:      PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.2.5", "starrocks/be-ubuntu:3.2.2"), Report: report("3.3.0-abc1234", "3.3.0-abc1234", "")},
			checked: []string{"BE"}, refused: []string{"BE"}},
		{name: "a patch upgrade is allowed without a word",
			in:      PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.0", "starrocks/fe-ubuntu:3.3.3"), Report: report("3.3.0-abc1234", "", "")},
			checked: []string{"FE"}},
		{name: "a minor skip warns and goes on",
			in:      PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.2.9", "starrocks/fe-ubuntu:3.4.1"), Report: report("3.2.9-abc1234", "", "")},
			checked: []string{"FE"}, warned: []string{"FE"}, note: "allowed with a warning"},
		{name: "each component is checked against its own nodes: a warehouse's CN does not count",
			in:      PreflightIn{CN: w("CN", "sr-cn", "starrocks/cn-ubuntu:3.3.0", "starrocks/cn-ubuntu:3.3.4"), CNNames: cnNames, Report: report("", "", "3.3.0-abc1234")},
			checked: []string{"CN"}},
		{name: "FE and BE are checked each on its own",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.0", "starrocks/fe-ubuntu:3.3.4"), BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.0", "starrocks/be-ubuntu:3.1.0"),
				Report: report("3.3.0-abc1234", "3.3.0-abc1234", "")},
			checked: []string{"FE", "BE"}, refused: []string{"BE"}},
		{name: "a tag that names no version is not checked, and goes on",
			in:      PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.0", "starrocks/be-ubuntu:latest"), Report: report("", "3.3.0-abc1234", "")},
			checked: []string{"BE"}, unk: []string{"BE"}, note: `image tag "latest" names no version`},
		{name: "a tag that names no version does not wait for FE's report",
			in:      PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.0", "starrocks/be-ubuntu:main")},
			checked: []string{"BE"}, unk: []string{"BE"}, note: `image tag "main" names no version`},
		{name: "a digest is not checked, and goes on",
			in:      PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.0", "starrocks/be-ubuntu@sha256:0123"), Report: report("", "3.3.0-abc1234", "")},
			checked: []string{"BE"}, unk: []string{"BE"}, note: "pinned by digest"},
		{name: "FE not answering is not checked, and goes on",
			in:      PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.0", "starrocks/be-ubuntu:3.2.2"), Report: &Report{Err: errors.New("dial tcp: connection refused")}},
			checked: []string{"BE"}, unk: []string{"BE"}, note: "FE did not answer: dial tcp: connection refused"},
		{name: "an FE that cannot be read is not waited for",
			in:      PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.0", "starrocks/be-ubuntu:3.2.2"), Unreadable: "no FE pod is Ready"},
			checked: []string{"BE"}, unk: []string{"BE"}, note: "no FE pod is Ready"},
		{name: "FE alone to 3.4 while the BEs run 3.2 warns from the BEs' versions: 3.2 to 3.4 skips 3.3",
			in:      PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.2", "starrocks/fe-ubuntu:3.4.1"), Report: report("3.3.2-abc1234", "3.2.9-abc1234", "")},
			checked: []string{"FE"}, warned: []string{"FE"}, note: "from the BEs' versions"},
		{name: "FE to 3.1 while the BEs run 2.5 is refused from the BEs' versions, though FE runs 3.0",
			in:      PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.0.9", "starrocks/fe-ubuntu:3.1.2"), Report: report("3.0.9-abc1234", "2.5.22-abc1234", "")},
			checked: []string{"FE"}, refused: []string{"FE"}},
		{name: "FE and BE to 3.4 together from 3.3: FE checked from its own and the BEs' 3.3, a minor step, no word",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.2", "starrocks/fe-ubuntu:3.4.1"), BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.4.1"),
				Report: report("3.3.2-abc1234", "3.3.2-abc1234", "")},
			checked: []string{"FE", "BE"}},
		// FE never on a newer line than a BE or CN, unless the same update brings them along (issue 50 item 2).
		{name: "FE to a newer line than the BEs it leaves behind is refused",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.2", "starrocks/fe-ubuntu:3.4.1"), BE: same("BE", "sr-be", "starrocks/be-ubuntu:3.3.2"),
				Report: report("3.3.2-abc1234", "3.3.2-abc1234", "")},
			checked: []string{"FE"}, refused: []string{"FE"}},
		{name: "a BE downgrade below FE's line is refused",
			in: PreflightIn{FE: same("FE", "sr-fe", "starrocks/fe-ubuntu:3.4.1"), BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.4.1", "starrocks/be-ubuntu:3.3.9"),
				Report: report("3.4.1-abc1234", "3.4.1-abc1234", "")},
			checked: []string{"BE"}, refused: []string{"BE"}},
		{name: "FE and BE down a line in one update go on",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.4.1", "starrocks/fe-ubuntu:3.3.9"), BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.4.1", "starrocks/be-ubuntu:3.3.9"),
				Report: report("3.4.1-abc1234", "3.4.1-abc1234", ""), FEConf: "ignore_unknown_log_id = true\n"},
			checked: []string{"FE", "BE"}},
		{name: "FE down a line refused leaves BE's downgrade below it refused too",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.5.1", "starrocks/fe-ubuntu:3.3.9"), BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.5.1", "starrocks/be-ubuntu:3.4.9"),
				Report: report("3.5.1-abc1234", "3.5.1-abc1234", ""), FEConf: "ignore_unknown_log_id = true\n"},
			checked: []string{"FE", "BE"}, refused: []string{"FE", "BE"}},
		// What a written change brings along counts, whatever FE's report
		// (read off the reconcile, up to a look old) still lists: a BE
		// written and rolling, or rolled out before FE's next report,
		// does not refuse FE's turn. Refused, FE's change leaves the
		// compatibility pause's Changes and its template is held, and the
		// pause is lifted before FE's pods, then taken again.
		{name: "FE's upgrade once BE's is written goes on while FE's report lists the BEs on the old line",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.2", "starrocks/fe-ubuntu:3.4.1"), BE: written("BE", "sr-be", "starrocks/be-ubuntu:3.4.1", false),
				Report: report("3.3.2-abc1234", "3.3.2-abc1234", "")},
			checked: []string{"FE"}},
		{name: "FE's upgrade once BE rolled out goes on while FE's report is from before the last BE restarted",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.2", "starrocks/fe-ubuntu:3.4.1"), BE: written("BE", "sr-be", "starrocks/be-ubuntu:3.4.1", true),
				Report: report("3.3.2-abc1234", "3.3.2-abc1234", "")},
			checked: []string{"FE"}},
		{name: "BE's downgrade once FE's is written goes on while FE's report lists the FEs on the old line",
			in: PreflightIn{FE: written("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.9", false), BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.4.1", "starrocks/be-ubuntu:3.3.9"),
				Report: report("3.4.1-abc1234", "3.4.1-abc1234", "")},
			checked: []string{"BE"}},
		{name: "FE's patch within the BEs' line goes on",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.2", "starrocks/fe-ubuntu:3.3.9"), BE: same("BE", "sr-be", "starrocks/be-ubuntu:3.3.2"),
				Report: report("3.3.2-abc1234", "3.3.2-abc1234", "")},
			checked: []string{"FE"}},
		{name: "FE to a newer line than the CNs of a shared-data cluster is refused",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.2", "starrocks/fe-ubuntu:3.4.1"), CN: same("CN", "sr-cn", "starrocks/cn-ubuntu:3.3.2"),
				CNNames: cnNames, Report: report("3.3.2-abc1234", "", "3.3.2-abc1234")},
			checked: []string{"FE"}, refused: []string{"FE"}},
		{name: "FE's path is checked from the CNs' versions too",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.8", "starrocks/fe-ubuntu:3.2.10"), CNNames: cnNames,
				Report: report("3.3.8-abc1234", "", "3.3.9-abc1234")},
			checked: []string{"FE"}, refused: []string{"FE"}},
		// A version read from a tag StarRocks does not publish waits for FE's report, to be checked for a refusal (item 5).
		{name: "a tag beside a digest waits for FE's report",
			in: PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.0", "starrocks/be-ubuntu:3.2.1@sha256:0123")}, read: true, waiting: "BE"},
		{name: "a tag beside a digest is refused from FE's report",
			in:      PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.0", "starrocks/be-ubuntu:3.2.1@sha256:0123"), Report: report("", "3.3.0-abc1234", "")},
			checked: []string{"BE"}, refused: []string{"BE"}},
		// FE not answering: 4.1.0 and the floors from what the cluster ran still refuse (item 6).
		{name: "FE not answering, 4.1.0 is refused",
			in:      PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:4.0.9", "starrocks/be-ubuntu:4.1.0"), Report: &Report{Err: errors.New("dial tcp: connection refused")}},
			checked: []string{"BE"}, refused: []string{"BE"}},
		{name: "no FE pod Ready, the record of 4.1 refuses 4.0.5",
			in: PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:4.0.6", "starrocks/be-ubuntu:4.0.5"), Unreadable: "no FE pod is Ready",
				Ran: version.Reported("4.1.2-abc1234")},
			checked: []string{"BE"}, refused: []string{"BE"}},
		{name: "FE listing no version column (NULL everywhere) is not checked",
			in:      PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.0", "starrocks/be-ubuntu:3.2.2"), Report: report("", "", "")},
			checked: []string{"BE"}, unk: []string{"BE"}, note: "FE reports no version for any node"},
	}
	t0 := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	at := func(r *Report, t time.Time) *Report { r.At = t; return r }
	down := w("BE", "sr-be", "starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.2.2")
	refused := CheckImagePaths(PreflightIn{BE: down, BENames: beNames, Report: report("", "3.3.0-abc1234", "")})
	tests = append(tests, []struct {
		name                          string
		in                            PreflightIn
		read                          bool
		waiting                       string
		checked, refused, warned, unk []string
		note                          string
	}{
		{name: "a report read before the change was seen is not decided on: its nodes may not be heard from yet",
			in:   PreflightIn{BE: down, Since: t0, Report: at(report("", "", ""), t0.Add(-time.Second))},
			read: true, waiting: "BE"},
		{name: "a report read once the change was seen is decided on",
			in:      PreflightIn{BE: down, Since: t0, Report: at(report("", "3.3.0-abc1234", ""), t0)},
			checked: []string{"BE"}, refused: []string{"BE"}},
		{name: "the decision on the same change stands while no newer report is in",
			in:      PreflightIn{BE: down, Since: t0, Decided: &refused},
			checked: []string{"BE"}, refused: []string{"BE"}},
		{name: "the decision on FE, BE and CN together holds for FE alone once BE and CN are written",
			in: PreflightIn{FE: w("FE", "sr-fe", "starrocks/fe-ubuntu:3.3.2", "starrocks/fe-ubuntu:3.2.2"), Since: t0,
				Decided: &Preflight{Key: "FE=starrocks/fe-ubuntu:3.2.2;BE=starrocks/be-ubuntu:3.2.2", Checks: []ImageCheck{
					{Name: "FE", To: "starrocks/fe-ubuntu:3.2.2", Verdict: PathVerdict{Kind: PathRefused}},
					{Name: "BE", To: "starrocks/be-ubuntu:3.2.2", Verdict: PathVerdict{Kind: PathRefused}}}}},
			checked: []string{"FE"}, refused: []string{"FE"}},
		{name: "a decision on another change does not: the new one waits for FE's report",
			in:   PreflightIn{BE: w("BE", "sr-be", "starrocks/be-ubuntu:3.3.2", "starrocks/be-ubuntu:3.2.3"), Since: t0, Decided: &refused},
			read: true, waiting: "BE"},
	}...)
	names := func(cs []ImageCheck) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return strings.Join(out, ",")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.FENames, in.BENames = feNames, beNames
			got := CheckImagePaths(in)
			if got.Read != tt.read || strings.Join(got.Waiting, ",") != tt.waiting {
				t.Errorf("Read = %v, Waiting = %v; want %v, %q", got.Read, got.Waiting, tt.read, tt.waiting)
			}
			for _, c := range []struct {
				what      string
				got, want string
			}{
				{"checked", names(got.Checks), strings.Join(tt.checked, ",")},
				{"refused", names(got.Refused()), strings.Join(tt.refused, ",")},
				{"warned", names(got.Warned()), strings.Join(tt.warned, ",")},
				{"not checked", names(got.Unchecked()), strings.Join(tt.unk, ",")},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q (%+v)", c.what, c.got, c.want, got.Checks)
				}
			}
			if !strings.Contains(got.Note(), tt.note) || (tt.note == "" && got.Note() != "") {
				t.Errorf("Note = %q, want it to say %q", got.Note(), tt.note)
			}
		})
	}
}

// The key names each changing component and its new image, and nothing else.
func TestPreflightKeyNamesTheChange(t *testing.T) {
	w := func(name, sts, from, to string) Workload {
		return Workload{Name: name, Live: stsWith(sts, from, true), Desired: stsWith(sts, to, false)}
	}
	got := CheckImagePaths(PreflightIn{FE: w("FE", "sr-fe", "x/fe:3.3.2", "x/fe:3.3.3"), BE: w("BE", "sr-be", "x/be:3.3.2", "x/be:3.3.2"),
		CN: w("CN", "sr-cn", "x/cn:3.3.2", "x/cn:3.3.4")}).Key
	if want := "FE=x/fe:3.3.3;CN=x/cn:3.3.4"; got != want {
		t.Errorf("Key = %q, want %q", got, want)
	}
	if got := CheckImagePaths(PreflightIn{BE: w("BE", "sr-be", "x/be:3.3.2", "x/be:3.3.2")}).Key; got != "" {
		t.Errorf("Key without a change = %q, want none", got)
	}
}

// The refusal names the component, the new image, the rule and the next step.
func TestImageCheckMessageNamesTheRuleAndTheNextStep(t *testing.T) {
	c := ImageCheck{Name: "BE", To: "starrocks/be-ubuntu:3.2.2", Verdict: ClusterPath([]string{"3.3.0-abc1234"}, version.OfImage("starrocks/be-ubuntu:3.2.2"))}
	msg := c.Message()
	for _, want := range []string{"BE image starrocks/be-ubuntu:3.2.2", "3.3.0 to 3.2.2 refused", "metadata loss", "Next:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
}

// What the pages ask of the user is said with the check; nothing when they ask nothing.
func TestRequiredSaysWhatThePagesAsk(t *testing.T) {
	down := ImageCheck{Name: "FE", To: "starrocks/fe-ubuntu:3.4.6", Verdict: UpgradePath(version.Reported("3.5.0-abc1234"), version.OfImage("starrocks/fe-ubuntu:3.4.6"))}
	if got := down.Required(); !strings.Contains(got, "ignore_unknown_log_id = true") || !strings.HasPrefix(got, "FE image starrocks/fe-ubuntu:3.4.6: the docs ask of you:") {
		t.Errorf("a minor downgrade: %q", got)
	}
	patch := ImageCheck{Name: "FE", To: "starrocks/fe-ubuntu:3.5.1", Verdict: UpgradePath(version.Reported("3.5.0-abc1234"), version.OfImage("starrocks/fe-ubuntu:3.5.1"))}
	if got := patch.Required(); got != "" {
		t.Errorf("a patch upgrade asks %q, want nothing", got)
	}
}
