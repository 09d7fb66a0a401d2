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

package plugin_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/plugin"
	"github.com/srscale/starrocks-operator/internal/plugin/examples"
)

var now = examples.Now

// Each state the operator reports reads as one line: its state, what it
// waits for in words, the version FE reports against the images.
func TestStatusLineOfEachState(t *testing.T) {
	cases := []struct {
		src             *srv1.StarRocksCluster
		state           plugin.State
		fe, be, cn      string
		version, health string
		doing           string
	}{
		{examples.Healthy("ns", "a", now), plugin.Healthy, "3/3", "3/3", "-", "3.3.2", "yes", ""},
		{examples.RollingOut("ns", "a", now), plugin.Progressing, "3/3", "3/3", "-", "3.3.2,3.3.3", "no: TabletsUnhealthy",
			"BE rollout 2/3, waiting for 14 unhealthy tablets: pod 3 (a-be-0) waits for FE to report every tablet healthy"},
		{examples.ScalingIn("ns", "a", now), plugin.Progressing, "3/3", "6/4", "-", "3.3.2", "yes", "scale-in BE 6→4, 1,203 tablets to move"},
		{examples.PausedForUpgrade("ns", "a", now), plugin.Progressing, "3/3", "3/3", "-", "3.3.2 → 3.4.1", "yes",
			"upgrade paused clone since 10m ago: upgrading to 3.4.1: BE and CN roll first, FE waits"},
		{examples.Refused("ns", "a", now), plugin.Attention, "3/3", "3/3", "-", "3.3.2 → 3.2.1", "yes", "refused: UpgradePathRefused 3.3.2→3.2.1"},
		{examples.FEUnreachable("ns", "a", now), plugin.Attention, "3/3", "3/3", "-", "3.3.2", "no: FEUnreachable", "FE unreachable since 5m ago"},
		{examples.Recovering("ns", "a", now), plugin.Progressing, "1/3", "-", "0/2", "? → 3.3.2", "no: NotRegistered",
			"recovering since 3m ago: FE is restoring the cluster snapshot"},
		{examples.PausedByUser("ns", "a", now), plugin.Attention, "3/3", "3/3", "-", "3.3.2", "yes",
			"paused: the operator leaves it alone (kubectl starrocks resume a)"},
	}
	for _, tc := range cases {
		l := plugin.StatusLine(tc.src, now)
		got := fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s", l.StateOf(), l.FE, l.BE, l.CN, l.Version, l.Healthy, l.Doing)
		want := fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s", tc.state, tc.fe, tc.be, tc.cn, tc.version, tc.health, tc.doing)
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src.Name, got, want)
		}
	}
}

func TestMoreStatesInWords(t *testing.T) {
	stalled := examples.ScalingIn("ns", "a", now)
	stalled.Status.Conditions[1].Reason = srv1.ReasonDecommissionStalled
	rolloutStalled := examples.RollingOut("ns", "a", now)
	rolloutStalled.Status.Conditions[1].Reason = srv1.ReasonRolloutStalled
	rolloutUnreachable := examples.RollingOut("ns", "a", now)
	rolloutUnreachable.Status.Conditions[1].Reason = srv1.ReasonFEUnreachable
	rolloutUnreachable.Status.Conditions[1].Message = "BE: FE did not answer: dial tcp 10.96.4.7:9030: i/o timeout"
	unseen := examples.Healthy("ns", "a", now)
	unseen.Generation = 4
	unseenRolling := examples.RollingOut("ns", "a", now)
	unseenRolling.Generation = 4
	fresh := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "new", Namespace: "ns"}, Spec: srv1.StarRocksClusterSpec{
		StarRocksFeSpec: &srv1.StarRocksFeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "fe:3.3.2"}}}}}
	failing := examples.Healthy("ns", "a", now)
	failing.Status.Conditions[0] = metav1.Condition{Type: srv1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: srv1.ReasonPodsFailing,
		Message: "BE: a-be-1 CrashLoopBackOff; FE: fine", LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}
	otherReplaced := examples.BEReplaced("ns", "a", now)
	otherReplaced.Status.Conditions[1].Message = "BE: replacing pod 1 of 3 (a-be-10)"
	parallel := examples.BEReplaced("ns", "a", now)
	parallel.Status.Conditions[1].Reason, parallel.Status.Conditions[1].Message = srv1.ReasonParallelRollout, "BE: deleted 3 pods at once"
	cases := []struct {
		name  string
		src   *srv1.StarRocksCluster
		state plugin.State
		doing string
	}{
		{"a stalled drain needs a person", stalled, plugin.Attention, "scale-in stalled since 7m ago: BE: FE decommissions"},
		{"a stalled rollout needs a person", rolloutStalled, plugin.Attention, "rollout stalled since 4m ago: BE: 2 of 3 pods replaced"},
		{"a rollout FE does not answer", rolloutUnreachable, plugin.Attention, "FE unreachable since 4m ago: BE: FE did not answer"},
		{"a spec the operator has not seen", unseen, plugin.Progressing, "generation 4 not yet seen by the operator (status is of 1)"},
		// What the status says comes first: a condition is no less true for a newer spec.
		{"a rollout whose newer spec the operator has not seen", unseenRolling, plugin.Progressing, "BE rollout 2/3, waiting for 14 unhealthy tablets"},
		{"a cluster the operator never wrote", fresh, plugin.Progressing, "not reconciled yet"},
		{"failing pods", failing, plugin.Attention, "degraded: PodsFailing: BE: a-be-1 CrashLoopBackOff"},
		// A BE FE lists not Alive, its pod not Ready, and no rollout
		// replacing it: a person must look, whatever Progressing says.
		{"a BE down", examples.BEDown("ns", "a", now), plugin.Attention, "not Alive in FE since 90s ago: BE a-be-1 (its pod not Ready)"},
		// The control: the same BE down because a rollout replaces it.
		{"a BE a rollout replaces", examples.BEReplaced("ns", "a", now), plugin.Progressing, "BE rollout 1/3, pod 2 of 3 (a-be-1)"},
		{"a BE down while a rollout replaces another", otherReplaced, plugin.Attention, "not Alive in FE since 90s ago: BE a-be-1 (its pod not Ready)"},
		{"a BE down while a parallel rollout replaces every BE", parallel, plugin.Progressing, "rollout: BE: deleted 3 pods at once"},
	}
	for _, tc := range cases {
		l := plugin.StatusLine(tc.src, now)
		if l.StateOf() != tc.state || !strings.HasPrefix(l.Doing, tc.doing) {
			t.Errorf("%s: %s %q, want %s %q", tc.name, l.StateOf(), l.Doing, tc.state, tc.doing)
		}
	}
	if v := plugin.StatusLine(fresh, now).Version; v != "? → 3.3.2" {
		t.Errorf("version before FE reported %q", v)
	}
}

func all() []srv1.StarRocksCluster {
	var out []srv1.StarRocksCluster
	for _, e := range examples.All("ns", now) {
		out = append(out, *e.Cluster)
	}
	return out
}

func TestTheClustersThatNeedAPersonComeFirst(t *testing.T) {
	lines := plugin.Lines(all(), plugin.BackupIndex{}, now)
	var order []string
	for _, l := range lines {
		order = append(order, l.State)
	}
	want := "attention attention attention attention progressing progressing progressing progressing healthy"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("order %s, want %s", got, want)
	}
	if s := plugin.Count(lines).String(); s != "9 clusters: 1 healthy, 4 progressing, 4 need attention" {
		t.Errorf("summary %q", s)
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// Colour changes no column: with the escapes taken out, the coloured
// table is the plain one. Its control: colour only on the first cell
// would shift every column of the coloured lines.
func TestColourKeepsTheColumnsAligned(t *testing.T) {
	var plain, coloured bytes.Buffer
	lines := plugin.Lines(all(), plugin.BackupIndex{}, now)
	o := plugin.TableOptions{AllNamespaces: true, Now: now}
	if err := plugin.WriteStatus(&plain, lines, o); err != nil {
		t.Fatal(err)
	}
	o.Color = true
	if err := plugin.WriteStatus(&coloured, lines, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(coloured.String(), "\x1b[31m") || strings.Contains(plain.String(), "\x1b") {
		t.Fatalf("colour not where asked:\n%q", coloured.String())
	}
	if got := ansi.ReplaceAllString(coloured.String(), ""); got != plain.String() {
		t.Errorf("coloured table differs from the plain one once its escapes are removed:\n%s\nplain:\n%s", got, plain.String())
	}
	// Every column starts at one offset on every line.
	rows := strings.Split(strings.TrimSpace(plain.String()), "\n")
	at := strings.Index(rows[0], "VERSION")
	for _, r := range rows[1 : len(rows)-1] {
		if at >= len(r) || r[at-1] != ' ' || r[at] == ' ' {
			t.Errorf("VERSION column not at %d in %q", at, r)
		}
	}
}

func TestWideAndShortDoing(t *testing.T) {
	src := examples.PausedForUpgrade("ns", "a", now)
	src.Status.Conditions[1].Message = "upgrading to 3.4.1: " + strings.Repeat("x", 200)
	var short, wide bytes.Buffer
	lines := plugin.Lines([]srv1.StarRocksCluster{*src}, plugin.BackupIndex{}, now)
	_ = plugin.WriteStatus(&short, lines, plugin.TableOptions{Now: now})
	_ = plugin.WriteStatus(&wide, lines, plugin.TableOptions{Now: now, Wide: true})
	if !strings.Contains(short.String(), "…") || strings.Contains(short.String(), strings.Repeat("x", 100)) {
		t.Errorf("a long message is not cut in the table:\n%s", short.String())
	}
	if !strings.Contains(wide.String(), strings.Repeat("x", 200)) || !strings.Contains(wide.String(), "GENERATION") {
		t.Errorf("-o wide does not give the whole message:\n%s", wide.String())
	}
}

func TestAgo(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{0, "just now"}, {3 * time.Minute, "3m ago"}, {90 * time.Second, "90s ago"}, {52 * time.Hour, "2d4h ago"}} {
		if got := plugin.Ago(now.Add(-tc.d), now); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := plugin.Ago(time.Time{}, now); got != "-" {
		t.Errorf("no time: %q", got)
	}
}

func TestTag(t *testing.T) {
	for image, want := range map[string]string{
		"starrocks/fe-ubuntu:3.3.2": "3.3.2", "registry:5000/fe": "", "fe:3.3.2@sha256:abc": "3.3.2", "fe": "",
	} {
		if got := plugin.Tag(image); got != want {
			t.Errorf("%s: %q, want %q", image, got, want)
		}
	}
}

// The escape hatches name the exact annotation that applies now, and
// only those.
func TestHatchesNameTheAnnotationThatApplies(t *testing.T) {
	stalled := examples.RollingOut("ns", "a", now)
	stalled.Status.Conditions[1].Reason = srv1.ReasonRolloutStalled
	ephemeral := examples.Refused("ns", "a", now)
	for i, c := range ephemeral.Status.Conditions {
		if c.Type == srv1.ConditionReconcileError {
			ephemeral.Status.Conditions[i].Reason = srv1.ReasonEphemeralStorageRefused
		}
	}
	cases := []struct {
		src  *srv1.StarRocksCluster
		want []string
		not  []string
	}{
		{examples.Healthy("ns", "a", now), []string{"kubectl starrocks pause -n ns a"}, []string{"annotate"}},
		{examples.ScalingIn("ns", "a", now), []string{"kubectl annotate starrockscluster -n ns a starrocks.com/skip-decommission=true"}, []string{"upgrade-path-check"}},
		{examples.Refused("ns", "a", now), []string{"kubectl annotate starrockscluster -n ns a starrocks.com/upgrade-path-check=off"}, []string{"skip-decommission"}},
		{ephemeral, []string{"kubectl annotate starrockscluster -n ns a starrocks.com/rollout-ephemeral-storage=allow"}, []string{"upgrade-path-check"}},
		{stalled, []string{"starrocks.com/rollout-stall-timeout=1h", "starrocks.com/rollout-gate=if-fe-reachable", "starrocks.com/rollout-gate=off"}, nil},
		{examples.PausedByUser("ns", "a", now), []string{"kubectl starrocks resume -n ns a"}, []string{"starrocks pause"}},
	}
	for _, tc := range cases {
		var cmds []string
		for _, h := range plugin.Hatches(tc.src) {
			cmds = append(cmds, h.Command)
		}
		all := strings.Join(cmds, "\n")
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: hatches lack %q:\n%s", tc.src.Name, w, all)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(all, n) {
				t.Errorf("%s: hatches offer %q, which does not apply:\n%s", tc.src.Name, n, all)
			}
		}
	}
}

func TestDescribeTellsTheLastEventsNewestLast(t *testing.T) {
	var events []corev1.Event
	for i := range 12 {
		events = append(events, corev1.Event{Type: corev1.EventTypeNormal, Reason: fmt.Sprintf("R%02d", i), Message: "m",
			LastTimestamp: metav1.NewTime(now.Add(-time.Duration(12-i) * time.Minute))})
	}
	events[0], events[11] = events[11], events[0] // order of the list is not time order
	var b bytes.Buffer
	if err := plugin.WriteDescribe(&b, plugin.NewStory(examples.ScalingIn("ns", "a", now), events, nil, "", now), now); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "R00") || strings.Contains(out, "R01") || !strings.Contains(out, "R02") {
		t.Errorf("not the last 10 Events:\n%s", out)
	}
	if strings.Index(out, "R10") > strings.Index(out, "R11") || !strings.Contains(out, "60s ago") {
		t.Errorf("Events not newest last, or not in relative time:\n%s", out)
	}
	for _, want := range []string{"Progressing       True    Decommissioning", "skip-decommission=true", "Unhealthy tablets: 0", "a-fe-0"} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
}

func TestPauseIsTheOperatorsIgnoredAnnotation(t *testing.T) {
	src := examples.Healthy("ns", "a", now)
	if plugin.Paused(src) {
		t.Fatal("paused without the annotation")
	}
	src.Annotations = map[string]string{srv1.IgnoredAnnotation: "true"}
	if !plugin.Paused(src) {
		t.Fatal("not paused with it")
	}
}

// Pods coming up are no hold: the component's "2 of 3 pods ready" is not
// something the operator keeps back. Its control: a component waiting
// (the upgrade's FE) is one.
func TestPodsComingUpAreNoHold(t *testing.T) {
	if h := plugin.Holds(examples.BEDown("ns", "a", now)); len(h) != 0 {
		t.Errorf("holds of a BE whose pod is not Ready: %q", h)
	}
	if h := plugin.Holds(examples.PausedForUpgrade("ns", "a", now)); len(h) == 0 || !strings.HasPrefix(h[0], "FE: waiting for BE and CN") {
		t.Errorf("holds of an upgrade: %q", h)
	}
}

// LAST BACKUP is the newest success's age, marked by the failures after
// each database's last success, from the backup objects alone.
func TestLastBackupFromTheBackupObjects(t *testing.T) {
	ok := func(cluster, name, db string, ago time.Duration) srv1.StarRocksBackup {
		return *examples.Backup("ns", cluster, name, db, srv1.BackupSucceeded, ago, now)
	}
	failed := func(cluster, name, db string, ago time.Duration) srv1.StarRocksBackup {
		return *examples.Backup("ns", cluster, name, db, srv1.BackupFailed, ago, now)
	}
	other := ok("b", "b-1", "sales", time.Minute)
	other.Namespace = "elsewhere" // another namespace's cluster b
	idx := plugin.IndexBackups([]srv1.StarRocksBackup{
		ok("a", "a-1", "sales", 27*time.Hour), ok("a", "a-2", "sales", 3*time.Hour),
		failed("b", "b-1", "sales", 5*time.Hour), ok("b", "b-2", "sales", 4*time.Hour), failed("b", "b-3", "sales", 20*time.Minute),
		ok("c", "c-1", "sales", 5*time.Hour), failed("c", "c-2", "hr", 30*time.Minute),
		failed("d", "d-1", "sales", time.Hour),
		other,
	}, []srv1.StarRocksBackupSchedule{*examples.BackupSchedule("ns", "e", "nightly", "sales", now)})
	for cluster, want := range map[string]string{
		"a": "3h ago",            // the newest of two successes
		"b": "4h ago (1 failed)", // a failure after the last success; the older one is forgiven
		"c": "5h ago (1 failed)", // hr never succeeded: its failure counts
		"d": "none (1 failed)",   // never succeeded
		"e": "none yet",          // a schedule that has not run
		"f": "-",                 // nothing names it
	} {
		cb := idx[types.NamespacedName{Namespace: "ns", Name: cluster}]
		if got := plugin.BackupWords(cb, true, now); got != want {
			t.Errorf("%s: %q, want %q", cluster, got, want)
		}
	}
	if got := plugin.BackupWords(nil, false, now); got != "?" {
		t.Errorf("backups unread: %q", got)
	}
	b := idx[types.NamespacedName{Namespace: "ns", Name: "b"}].Databases[0]
	if b.Newest != "b-3" || b.NewestPhase != "Failed" || b.NewestReason != srv1.ReasonJobTimeout || b.LastSucceeded != "b-2" {
		t.Errorf("b's sales: %+v", b)
	}
	l := plugin.Lines([]srv1.StarRocksCluster{*examples.Healthy("ns", "b", now)}, idx, now)[0]
	if l.LastBackup != "4h ago (1 failed)" || l.BackupsFailed != 1 || l.LastBackupAt == nil || !l.LastBackupAt.Time.Equal(now.Add(-4*time.Hour)) {
		t.Errorf("b's line: %+v", l)
	}
}

// describe tells the backups: per database the last success, the
// failures since and the newest with its reason; the schedules.
func TestDescribeTellsTheBackups(t *testing.T) {
	idx := plugin.IndexBackups([]srv1.StarRocksBackup{
		*examples.Backup("ns", "a", "a-1", "sales", srv1.BackupSucceeded, 3*time.Hour, now),
		*examples.Backup("ns", "a", "a-2", "sales", srv1.BackupFailed, 20*time.Minute, now),
	}, []srv1.StarRocksBackupSchedule{*examples.BackupSchedule("ns", "a", "nightly", "sales", now)})
	var b bytes.Buffer
	cb := idx[types.NamespacedName{Namespace: "ns", Name: "a"}]
	if err := plugin.WriteDescribe(&b, plugin.NewStory(examples.Healthy("ns", "a", now), nil, cb, "", now), now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Last backup:  3h ago (1 failed)", "sales     3h ago (a-1)    1             a-2     Failed  20m ago",
		"a-2: Timeout: FE cancelled BACKUP a-2_sales", "Schedule nightly: @daily, last run 10h ago, next in 14h"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("describe lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	_ = plugin.WriteDescribe(&b, plugin.NewStory(examples.Healthy("ns", "a", now), nil, nil, "forbidden", now), now)
	if !strings.Contains(b.String(), "Last backup:  ?") || !strings.Contains(b.String(), "unknown: forbidden") {
		t.Errorf("backups unread:\n%s", b.String())
	}
}

// A rollout holds the next pods back until StarRocks allows: describe
// says so among the holds.
func TestARolloutIsAHold(t *testing.T) {
	h := plugin.Holds(examples.RollingOut("ns", "a", now))
	if len(h) != 1 || !strings.HasPrefix(h[0], "Progressing RollingOut: BE: 2 of 3 pods replaced; pod 3 (a-be-0) waits for FE") {
		t.Errorf("holds of a rollout: %q", h)
	}
}

// Issue 53 names the states whose status line and describe text the
// tests check (TestStatusLineOfEachState here; TestKubectlPlugin's golden
// files against a real API server, one per example): each has an example.
func TestEveryStateOfTheIssueHasAnExample(t *testing.T) {
	have := map[string]bool{}
	for _, e := range examples.All("ns", now) {
		have[e.State] = true
	}
	for _, s := range []string{"healthy", "rolling out", "scaling in", "paused for an upgrade", "refused", "FE unreachable", "recovering"} {
		if !have[s] {
			t.Errorf("no example of %q", s)
		}
	}
}
