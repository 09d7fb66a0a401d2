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

// Package plugin is what `kubectl starrocks` shows: pure functions from a
// cluster's object (its status, conditions, annotations) and its Events to
// the lines a person reads. It reads only what the operator writes, never
// FE. The commands (package plugin/cli) are glue around it.
package plugin

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/version"
)

// State is how much a cluster needs a person, most first.
type State int

// The states, in the order status lists them.
const (
	// Attention: something failed, is refused, stalled, cannot be read, or
	// the operator leaves the cluster alone (paused).
	Attention State = iota
	// Progressing: the operator is changing the cluster and nothing is wrong.
	Progressing
	// Healthy: nothing changes and StarRocks says all is well (or has not said otherwise).
	Healthy
)

func (s State) String() string {
	switch s {
	case Attention:
		return "attention"
	case Progressing:
		return "progressing"
	}
	return "healthy"
}

// Ready is a component's ready pods against the pods the spec asks for;
// nil for a component the cluster does not have.
type Ready struct {
	Ready   int32 `json:"ready"`
	Desired int32 `json:"desired"`
}

func (r *Ready) String() string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d", r.Ready, r.Desired)
}

// Line is one cluster as `status` shows it, and as -o json and yaml give it to scripts.
type Line struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	State     string `json:"state"`
	Phase     string `json:"phase,omitempty"`
	FE        *Ready `json:"fe,omitempty"`
	BE        *Ready `json:"be,omitempty"`
	CN        *Ready `json:"cn,omitempty"`
	// Version is what FE reports the nodes run, and "→ <tag>" when the
	// spec's images name another version.
	Version string `json:"version"`
	// Healthy is StarRocksHealthy: "yes", "no: <reason>", or "?" before FE first answered.
	Healthy string `json:"healthy"`
	// LastBackup is BackupWords: the newest successful backup's age, the
	// failures since, "-" with none.
	LastBackup string `json:"lastBackup"`
	// LastBackupAt is that backup's completion; BackupsFailed the failures
	// after each database's last success.
	LastBackupAt  *metav1.Time `json:"lastBackupAt,omitempty"`
	BackupsFailed int          `json:"backupsFailed,omitempty"`
	// Doing is what is in progress or wrong, in words; empty when nothing.
	Doing string `json:"doing,omitempty"`
	// Reason is the condition reason Doing comes from.
	Reason string `json:"reason,omitempty"`
	// Since is when that condition last changed.
	Since *metav1.Time `json:"since,omitempty"`
	// Created is the cluster's creation time.
	Created metav1.Time `json:"created"`
	// Generation and ObservedGeneration: the spec and the one the status describes.
	Generation         int64 `json:"generation"`
	ObservedGeneration int64 `json:"observedGeneration"`

	state State
}

// SetBackups fills the line's backup fields from cb (nil: none), or "?"
// when the backups could not be read (known false).
func (l *Line) SetBackups(cb *ClusterBackups, known bool, now time.Time) {
	l.LastBackup = BackupWords(cb, known, now)
	if cb == nil {
		return
	}
	if t := cb.LastSucceededAt(); !t.IsZero() {
		l.LastBackupAt = &metav1.Time{Time: t}
	}
	l.BackupsFailed = cb.FailedSince()
}

// StateOf is the Line's state.
func (l Line) StateOf() State { return l.state }

// stalls are Progressing reasons that need a person, though the operator still works on them.
var stalls = []string{
	srv1.ReasonRolloutStalled, srv1.ReasonDecommissionStalled, srv1.ReasonFEUnreachable,
	srv1.ReasonFETLSFailed, srv1.ReasonFEInsecureTransport, srv1.ReasonFECredentialsMissing,
	srv1.ReasonFECredentialsRejected, srv1.ReasonFEPermissionDenied, srv1.ReasonFEAuthPluginRefused,
	srv1.ReasonFEAnswerTooLarge, srv1.ReasonFEAnswerInvalid,
}

// Paused reports whether the operator leaves src alone (kubectl starrocks pause).
func Paused(src *srv1.StarRocksCluster) bool {
	return src.Annotations[srv1.IgnoredAnnotation] == "true"
}

// StatusLine is what status shows of src at now: the line its status
// gives (Summarize), as LineOf shows it.
func StatusLine(src *srv1.StarRocksCluster, now time.Time) Line {
	return LineOf(RowOf(src, Summarize(src)), now)
}

func ready(replicas *int32, cs *srv1.StarRocksComponentStatus) *Ready {
	r := &Ready{Desired: ptr.Deref(replicas, 1)}
	if cs != nil {
		r.Ready = int32(len(cs.RunningInstances))
	}
	return r
}

func healthy(src *srv1.StarRocksCluster) string {
	c := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionStarRocksHealthy)
	switch {
	case c == nil:
		return "?"
	case c.Status == metav1.ConditionTrue:
		return "yes"
	}
	return "no: " + c.Reason
}

// images are the spec's images by component, in FE, BE, CN order.
func images(src *srv1.StarRocksCluster) [][2]string {
	var out [][2]string
	if s := src.Spec.StarRocksFeSpec; s != nil {
		out = append(out, [2]string{"FE", s.Image})
	}
	if s := src.Spec.StarRocksBeSpec; s != nil {
		out = append(out, [2]string{"BE", s.Image})
	}
	if s := src.Spec.StarRocksCnSpec; s != nil {
		out = append(out, [2]string{"CN", s.Image})
	}
	return out
}

// Tag is the tag of an image reference: "3.3.2" of "starrocks/fe-ubuntu:3.3.2"; "" when none.
func Tag(image string) string { return version.Tag(image) }

// reported is every version FE reports for src's nodes, distinct and sorted.
func reported(src *srv1.StarRocksCluster) []string {
	var out []string
	st := &src.Status
	for _, cs := range []*srv1.StarRocksComponentStatus{st.StarRocksFeStatus, st.StarRocksBeStatus, cnBase(st.StarRocksCnStatus)} {
		if cs == nil || cs.Nodes == nil {
			continue
		}
		for _, v := range cs.Nodes.Versions {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	slices.Sort(out)
	return out
}

func cnBase(cn *srv1.StarRocksCnStatus) *srv1.StarRocksComponentStatus {
	if cn == nil {
		return nil
	}
	return &cn.StarRocksComponentStatus
}

// versionWords is what FE reports against what the spec's image tags name:
// "3.3.2" when they agree, "3.3.2 → 3.4.1" while they do not, "? → 3.3.2"
// before FE reported any.
func versionWords(src *srv1.StarRocksCluster) string {
	var tags []string
	for _, im := range images(src) {
		if t := Tag(im[1]); t != "" && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	slices.Sort(tags)
	have := reported(src)
	switch {
	case len(have) == 0 && len(tags) == 0:
		return "?"
	case len(have) == 0:
		return "? → " + strings.Join(tags, ",")
	case len(tags) == 0 || sameVersions(have, tags):
		return strings.Join(have, ",")
	}
	return strings.Join(have, ",") + " → " + strings.Join(tags, ",")
}

// sameVersions: every tag is a version FE reports ("3.3.2" and "v3.3.2"
// alike), and FE reports no other.
func sameVersions(have, tags []string) bool {
	if len(have) != len(tags) {
		return false
	}
	for _, t := range tags {
		if !slices.Contains(have, strings.TrimPrefix(t, "v")) {
			return false
		}
	}
	return true
}

var (
	// "BE: 1 of 3 pods replaced; pod 2 (sr-be-1) waits for ..." (internal/starrocks/gate.go).
	rolledForm = regexp.MustCompile(`^(FE|BE|CN): (\d+) of (\d+) pods replaced; (.*)$`)
	// "BE: replacing pod 2 of 3 (sr-be-1)", "pod 1 of 3 (sr-be-2) waits for ...".
	podForm = regexp.MustCompile(`^(FE|BE|CN): (?:replacing )?pod (\d+) of (\d+) (.*)$`)
	// "... 1203 tablets left" (internal/starrocks/backends.go).
	tabletsLeft = regexp.MustCompile(`(\d+) tablets left`)
)

// doing is the cluster's state and what is in progress or wrong, in
// words, with the reason it comes from and since when, as its status
// says: times in the words are absolute (At), and what changes without
// the operator (the pause, a generation not seen yet) is LineOf's. Every
// state but the last three (a failed phase, a phase not set, healthy) has
// a condition's reason, which is never empty.
func doing(src *srv1.StarRocksCluster) (State, string, string, *metav1.Time) {
	conds := src.Status.Conditions
	find := func(t string) *metav1.Condition { return meta.FindStatusCondition(conds, t) }
	since := func(c *metav1.Condition) *metav1.Time { return ptr.To(c.LastTransitionTime) }
	if c := find(srv1.ConditionReconcileError); c != nil && c.Status == metav1.ConditionTrue {
		return Attention, refused(src, c), c.Reason, since(c)
	}
	if c := find(srv1.ConditionDegraded); c != nil && c.Status == metav1.ConditionTrue {
		return Attention, "degraded: " + c.Reason + ": " + firstClause(c.Message), c.Reason, since(c)
	}
	prog := find(srv1.ConditionProgressing)
	if prog != nil && prog.Status == metav1.ConditionTrue && slices.Contains(stalls, prog.Reason) {
		return Attention, stallWords(prog), prog.Reason, since(prog)
	}
	if c := find(srv1.ConditionStarRocksHealthy); c != nil && c.Status == metav1.ConditionFalse {
		if c.Reason == srv1.ReasonFEUnreachable {
			return Attention, "FE unreachable since " + At(c.LastTransitionTime.Time), c.Reason, since(c)
		}
		if c.Reason == srv1.ReasonNodesNotAlive {
			if down := notReplaced(src, NotAlive(c), prog); len(down) > 0 {
				return Attention, downWords(src, down, c), c.Reason, since(c)
			}
		}
		if prog == nil || prog.Status != metav1.ConditionTrue {
			return Attention, "StarRocks unhealthy: " + c.Reason + ": " + firstClause(c.Message), c.Reason, since(c)
		}
	}
	if dr := src.Status.DisasterRecoveryStatus; dr != nil && (dr.Phase == srv1.DisasterRecoveryTodo || dr.Phase == srv1.DisasterRecoveryDoing) {
		words := "recovering: " + firstClause(dr.Reason)
		if dr.StartTimestamp > 0 {
			words = "recovering since " + At(time.Unix(dr.StartTimestamp, 0)) + ": " + firstClause(dr.Reason)
		}
		return Progressing, words, srv1.ReasonDisasterRecovery, nil
	}
	if prog != nil && prog.Status == metav1.ConditionTrue {
		return Progressing, progressWords(src, prog), prog.Reason, since(prog)
	}
	if src.Status.Phase == srv1.PhaseFailed {
		return Attention, "failed: " + firstClause(src.Status.Reason), "", nil
	}
	if src.Status.Phase == "" {
		return Progressing, "not reconciled yet", "", nil
	}
	return Healthy, "", "", nil
}

// notAlivePrefix starts StarRocksHealthy's NodesNotAlive message
// (internal/starrocks/health.go), which then names the pods.
const notAlivePrefix = "FE lists these nodes not Alive: "

// NotAlive are the pods a NodesNotAlive condition names; none for another.
func NotAlive(c *metav1.Condition) []string {
	if c == nil || c.Reason != srv1.ReasonNodesNotAlive || !strings.HasPrefix(c.Message, notAlivePrefix) {
		return nil
	}
	return strings.Split(strings.TrimPrefix(c.Message, notAlivePrefix), ", ")
}

// replacing are the rollout reasons under which a pod that is not Alive
// may be one the rollout itself restarts.
var replacing = []string{srv1.ReasonRollingOut, srv1.ReasonOrderedRollout, srv1.ReasonParallelRollout}

// notReplaced are the pods of down that no rollout in progress is
// replacing: a gated rollout names the pod it replaces or waits for
// ("replacing pod 2 of 3 (sr-be-1)", "replacing sr-be-1 first, which is
// down"); a parallel one replaces every pod of the component its
// message starts with ("BE: ...").
func notReplaced(src *srv1.StarRocksCluster, down []string, prog *metav1.Condition) []string {
	if prog == nil || prog.Status != metav1.ConditionTrue || !slices.Contains(replacing, prog.Reason) {
		return down
	}
	var out []string
	for _, pod := range down {
		comp, _ := podOf(src, pod)
		switch {
		case namesPod(prog.Message, pod):
		case prog.Reason == srv1.ReasonParallelRollout && comp != "" && strings.HasPrefix(prog.Message, comp+": "):
		default:
			out = append(out, pod)
		}
	}
	return out
}

// namesPod reports whether msg names pod as a whole word ("sr-be-1" is
// not named by "sr-be-10").
func namesPod(msg, pod string) bool {
	for i := 0; ; {
		j := strings.Index(msg[i:], pod)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(pod)
		if (start == 0 || !podRune(msg[start-1])) && (end == len(msg) || !podRune(msg[end])) {
			return true
		}
		i = end
	}
}

func podRune(b byte) bool {
	return b == '-' || b == '.' || ('a' <= b && b <= 'z') || ('0' <= b && b <= '9')
}

// podOf is the component of a pod and what Kubernetes says of it, from
// the component statuses' instance lists.
func podOf(src *srv1.StarRocksCluster, pod string) (component, state string) {
	st := &src.Status
	for _, p := range []struct {
		name string
		cs   *srv1.StarRocksComponentStatus
	}{{"FE", st.StarRocksFeStatus}, {"BE", st.StarRocksBeStatus}, {"CN", cnBase(st.StarRocksCnStatus)}} {
		switch {
		case p.cs == nil:
		case slices.Contains(p.cs.RunningInstances, pod):
			return p.name, "its pod Ready"
		case slices.Contains(p.cs.CreatingInstances, pod):
			return p.name, "its pod not Ready"
		case slices.Contains(p.cs.FailedInstances, pod):
			return p.name, "its pod failing"
		}
	}
	return "", ""
}

// downWords names the nodes FE lists not Alive: "BE sr-be-1 not Alive in
// FE since 2m ago (its pod not Ready)".
func downWords(src *srv1.StarRocksCluster, down []string, c *metav1.Condition) string {
	var parts []string
	for _, pod := range down {
		comp, state := podOf(src, pod)
		words := strings.TrimSpace(comp + " " + pod)
		if state != "" {
			words += " (" + state + ")"
		}
		parts = append(parts, words)
	}
	return "not Alive in FE since " + At(c.LastTransitionTime.Time) + ": " + strings.Join(parts, ", ")
}

// refused says a ReconcileError in words: an upgrade path names its versions.
func refused(src *srv1.StarRocksCluster, c *metav1.Condition) string {
	if c.Reason == srv1.ReasonUpgradePathRefused {
		if from, to := pathOf(src); from != "" {
			return fmt.Sprintf("refused: %s %s→%s", c.Reason, from, to)
		}
	}
	if c.Reason == srv1.ReasonApplyFailed {
		return "error: " + c.Reason + ": " + firstClause(c.Message)
	}
	return "refused: " + c.Reason + ": " + firstClause(c.Message)
}

// pathOf is the version path an image change asks for: what FE reports
// the component runs, to what its new image's tag names, for the first
// component whose tag FE does not report.
func pathOf(src *srv1.StarRocksCluster) (from, to string) {
	st := &src.Status
	nodes := map[string]*srv1.StarRocksComponentStatus{"FE": st.StarRocksFeStatus, "BE": st.StarRocksBeStatus, "CN": cnBase(st.StarRocksCnStatus)}
	for _, im := range images(src) {
		cs, tag := nodes[im[0]], Tag(im[1])
		if cs == nil || cs.Nodes == nil || len(cs.Nodes.Versions) == 0 || tag == "" {
			continue
		}
		if !slices.Contains(cs.Nodes.Versions, strings.TrimPrefix(tag, "v")) {
			return strings.Join(cs.Nodes.Versions, ","), tag
		}
	}
	return "", ""
}

// stallWords says a Progressing condition that needs a person.
func stallWords(c *metav1.Condition) string {
	switch c.Reason {
	case srv1.ReasonRolloutStalled:
		return "rollout stalled since " + At(c.LastTransitionTime.Time) + ": " + firstClause(c.Message)
	case srv1.ReasonDecommissionStalled:
		return "scale-in stalled since " + At(c.LastTransitionTime.Time) + ": " + firstClause(c.Message)
	case srv1.ReasonFEUnreachable:
		return "FE unreachable since " + At(c.LastTransitionTime.Time) + ": " + firstClause(c.Message)
	}
	return c.Reason + " since " + At(c.LastTransitionTime.Time) + ": " + firstClause(c.Message)
}

// progressWords says a Progressing condition: "BE rollout 2/5, pod 3
// (sr-be-2) waits for ...", "scale-in BE 6→4, 1203 tablets to move",
// "upgrade paused clone since 10m ago".
func progressWords(src *srv1.StarRocksCluster, c *metav1.Condition) string {
	msg := c.Message
	if src.Annotations[srv1.CompatibilityPauseAnnotation] != "" && strings.Contains(msg, "tablet clone and balancing paused") {
		return "upgrade paused clone since " + At(c.LastTransitionTime.Time) + ": " + firstClause(msg)
	}
	switch c.Reason {
	case srv1.ReasonDecommissioning:
		words := "scale-in"
		if be := src.Status.StarRocksBeStatus; be != nil && src.Spec.StarRocksBeSpec != nil {
			from := len(be.RunningInstances) + len(be.CreatingInstances) + len(be.FailedInstances)
			words += fmt.Sprintf(" BE %d→%d", from, ptr.Deref(src.Spec.StarRocksBeSpec.Replicas, 1))
		}
		if m := tabletsLeft.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			return words + ", " + thousands(n) + " tablets to move"
		}
		return words + ": " + firstClause(msg)
	case srv1.ReasonLeavingFEGroup:
		return "FE scale-in: " + firstClause(msg)
	case srv1.ReasonRemovalHeld:
		return "removal held: " + firstClause(msg)
	}
	if m := rolledForm.FindStringSubmatch(msg); m != nil {
		if n := unhealthyTablets(src); n > 0 && strings.Contains(m[4], "tablet") {
			// The gate waits for FE's count, which the status carries.
			return fmt.Sprintf("%s rollout %s/%s, waiting for %s unhealthy tablets: %s", m[1], m[2], m[3], thousands(int(n)), firstClause(m[4]))
		}
		return fmt.Sprintf("%s rollout %s/%s, %s", m[1], m[2], m[3], firstClause(m[4]))
	}
	if m := podForm.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[2])
		return fmt.Sprintf("%s rollout %d/%s, pod %s of %s %s", m[1], n-1, m[3], m[2], m[3], firstClause(m[4]))
	}
	switch c.Reason {
	case srv1.ReasonRollingOut, srv1.ReasonOrderedRollout, srv1.ReasonParallelRollout:
		return "rollout: " + firstClause(msg)
	case srv1.ReasonComponentsNotReady:
		return "starting: " + firstClause(msg)
	}
	return c.Reason + ": " + firstClause(msg)
}

// unhealthyTablets is FE's count at the operator's last read; 0 when none.
func unhealthyTablets(src *srv1.StarRocksCluster) int32 {
	if be := src.Status.StarRocksBeStatus; be != nil && be.Nodes != nil && be.Nodes.UnhealthyTablets != nil {
		return *be.Nodes.UnhealthyTablets
	}
	return 0
}

// firstClause is a message up to its first "; ", for a line of the table
// (-o wide and describe give it whole).
func firstClause(msg string) string {
	if i := strings.Index(msg, "; "); i >= 0 {
		return msg[:i]
	}
	return msg
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Ago is t relative to now, as kubectl says ages: "3m ago", "2d4h ago";
// "just now" within a second, "-" for no time.
func Ago(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	if d < time.Second {
		return "just now"
	}
	return duration.HumanDuration(d) + " ago"
}

// Sort orders lines for a person: those needing attention first, then
// those progressing, then healthy ones; by namespace and name within each.
func Sort(lines []Line) {
	slices.SortStableFunc(lines, func(a, b Line) int {
		if a.state != b.state {
			return int(a.state) - int(b.state)
		}
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// Summary counts lines by state.
type Summary struct {
	Healthy     int `json:"healthy"`
	Progressing int `json:"progressing"`
	Attention   int `json:"attention"`
}

// Count is the summary of lines.
func Count(lines []Line) Summary {
	var s Summary
	for _, l := range lines {
		switch l.state {
		case Healthy:
			s.Healthy++
		case Progressing:
			s.Progressing++
		default:
			s.Attention++
		}
	}
	return s
}

func (s Summary) String() string {
	n := s.Healthy + s.Progressing + s.Attention
	return fmt.Sprintf("%d %s: %d healthy, %d progressing, %d need attention", n, plural(n, "cluster", "clusters"), s.Healthy, s.Progressing, s.Attention)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
