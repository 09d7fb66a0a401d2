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

package plugin

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// EventsShown is how many of the cluster's Events describe lists, newest last.
const EventsShown = 10

// Hatch is an escape hatch that applies to a cluster now: what it does and
// the exact command that sets it.
type Hatch struct {
	What    string `json:"what"`
	Command string `json:"command"`
}

// Hatches are the escape hatches that apply to src now, from its conditions.
func Hatches(src *srv1.StarRocksCluster) []Hatch {
	annotate := func(key, value string) string {
		return fmt.Sprintf("kubectl annotate starrockscluster -n %s %s %s=%s", src.Namespace, src.Name, key, value)
	}
	var out []Hatch
	add := func(what, cmd string) {
		if !slices.ContainsFunc(out, func(h Hatch) bool { return h.Command == cmd }) {
			out = append(out, Hatch{what, cmd})
		}
	}
	for _, c := range src.Status.Conditions {
		if c.Status != metav1.ConditionTrue {
			continue
		}
		switch c.Reason {
		case srv1.ReasonRemovalHeld:
			add("delete the removed BE or CN with their data", annotate(srv1.DeleteRemovedComponentsAnnotation, "true"))
		case srv1.ReasonDecommissioning, srv1.ReasonDecommissionStalled, srv1.ReasonScaleInRefused:
			add("shrink BE at once without FE's decommission, losing the tablets only the removed BEs hold", annotate(srv1.SkipDecommissionAnnotation, "true"))
			if c.Reason == srv1.ReasonDecommissionStalled {
				add("wait longer before a drain is called stalled", annotate(srv1.DecommissionStallTimeoutAnnotation, "2h"))
			}
		case srv1.ReasonRolloutStalled:
			add("wait longer before a rollout step is called stalled", annotate(srv1.RolloutStallTimeoutAnnotation, "1h"))
			add("roll without StarRocks' word while FE does not answer", annotate(srv1.RolloutGateAnnotation, srv1.RolloutGateIfFEReachable))
			add("roll as the StatefulSet controller rolls, without any gate", annotate(srv1.RolloutGateAnnotation, srv1.RolloutGateOff))
		case srv1.ReasonUpgradePathRefused:
			add("roll the image change without the version path check, on your word", annotate(srv1.UpgradePathCheckAnnotation, srv1.UpgradePathCheckOff))
		case srv1.ReasonEphemeralStorageRefused:
			if c.Type == srv1.ConditionReconcileError {
				add("roll BE on storage that dies with the pod anyway, losing the single-replica tablets of each BE it replaces",
					annotate(srv1.RolloutEphemeralStorageAnnotation, srv1.RolloutEphemeralStorageAllow))
			}
		case srv1.ReasonFEUnreachable:
			if c.Type == srv1.ConditionProgressing {
				add("let a rollout go on ungated while FE does not answer", annotate(srv1.RolloutGateAnnotation, srv1.RolloutGateIfFEReachable))
			}
		}
	}
	if Paused(src) {
		add("let the operator reconcile the cluster again", "kubectl starrocks resume -n "+src.Namespace+" "+src.Name)
	} else {
		add("stop the operator from touching the cluster (no write, no FE statement)", "kubectl starrocks pause -n "+src.Namespace+" "+src.Name)
	}
	return out
}

// podsReadyForm is a component's reason while its pods come up
// (internal/status: "2 of 3 pods ready, 3 updated"): no hold.
var podsReadyForm = regexp.MustCompile(`^\d+ of \d+ pods ready, \d+ updated$`)

// Holds are what the operator keeps back and why: each component it does
// not bring to the spec (its phase's reason), and the conditions that hold.
func Holds(src *srv1.StarRocksCluster) []string {
	var out []string
	st := &src.Status
	for _, p := range []struct {
		name string
		cs   *srv1.StarRocksComponentStatus
	}{{"FE", st.StarRocksFeStatus}, {"BE", st.StarRocksBeStatus}, {"CN", cnBase(st.StarRocksCnStatus)}, {"FE proxy", st.StarRocksFeProxyStatus}} {
		if p.cs != nil && p.cs.Phase == srv1.PhaseReconciling && p.cs.Reason != "" && !strings.HasPrefix(p.cs.Reason, "pods ") && !podsReadyForm.MatchString(p.cs.Reason) {
			out = append(out, p.name+": "+p.cs.Reason)
		}
	}
	for _, c := range st.Conditions {
		if c.Status != metav1.ConditionTrue {
			continue
		}
		switch c.Reason {
		case srv1.ReasonRemovalHeld, srv1.ReasonDecommissioning, srv1.ReasonDecommissionStalled, srv1.ReasonLeavingFEGroup,
			srv1.ReasonRolloutStalled, srv1.ReasonRollingOut, srv1.ReasonOrderedRollout, srv1.ReasonParallelRollout, srv1.ReasonCompatibilityPause, srv1.ReasonScaleInRefused, srv1.ReasonUpgradePathRefused, srv1.ReasonEphemeralStorageRefused,
			srv1.ReasonImmutableFieldChanged, srv1.ReasonConfigMapNotFound, srv1.ReasonConfigKeyNotFound, srv1.ReasonStorageNotExpandable:
			out = append(out, c.Type+" "+c.Reason+": "+c.Message)
		}
	}
	if rec := src.Annotations[srv1.CompatibilityPauseAnnotation]; rec != "" {
		out = append(out, "tablet clone and balancing paused for the version change; FE's values before it, to be restored: "+rec)
	}
	return out
}

// Story is one cluster's story, what describe prints and what its -o json
// and yaml give scripts. It is no API object; its apiVersion says so.
type Story struct {
	metav1.TypeMeta `json:",inline"`
	Namespace       string      `json:"namespace"`
	Name            string      `json:"name"`
	Created         metav1.Time `json:"created"`
	Paused          bool        `json:"paused"`
	// Status is the cluster's status line: its state, what is in progress.
	Status Line `json:"status"`
	// Images are the spec's, by component.
	Images []ComponentImage `json:"images"`
	// Conditions are the cluster's, sorted by type.
	Conditions []metav1.Condition `json:"conditions"`
	// Nodes are FE's word on each component's nodes, beside its pods.
	Nodes []Nodes `json:"nodes"`
	// UnhealthyTablets is FE's count at the operator's last read; nil
	// before FE answered, or without BE.
	UnhealthyTablets *int32 `json:"unhealthyTablets,omitempty"`
	// Holds are what the operator keeps back, and why.
	Holds []string `json:"holds"`
	// Hatches are the escape hatches that apply now.
	Hatches []Hatch `json:"escapeHatches"`
	// Backups are the cluster's backups and schedules; nil when there are
	// none, and BackupsUnknown says why when they could not be read.
	Backups        *ClusterBackups `json:"backups,omitempty"`
	BackupsUnknown string          `json:"backupsUnknown,omitempty"`
	// Events are the last EventsShown Events, newest last.
	Events []StoryEvent `json:"events"`
}

// StoryAPIVersion and StoryKind name Story in its output.
const (
	StoryAPIVersion = StatusListAPIVersion
	StoryKind       = "ClusterStory"
)

// DeepCopyObject makes Story a runtime.Object, for cli-runtime's printers
// (which only read it).
func (s *Story) DeepCopyObject() runtime.Object {
	out := *s
	return &out
}

// ComponentImage is a component's image in the spec.
type ComponentImage struct {
	Component string `json:"component"`
	Image     string `json:"image"`
}

// Nodes are one component's pods and FE's word on them.
type Nodes struct {
	Component string `json:"component"`
	// PodsReady are the Ready pods against the replicas wanted.
	PodsReady *Ready `json:"podsReady"`
	// FE is what FE last reported of the nodes (Alive, total, leader,
	// versions); nil before it answered.
	FE       *srv1.StarRocksNodesStatus `json:"fe,omitempty"`
	Running  []string                   `json:"running,omitempty"`
	Creating []string                   `json:"creating,omitempty"`
	Failed   []string                   `json:"failed,omitempty"`
}

// StoryEvent is one Event of the cluster.
type StoryEvent struct {
	LastSeen metav1.Time `json:"lastSeen"`
	Type     string      `json:"type"`
	Reason   string      `json:"reason"`
	Count    int32       `json:"count"`
	Message  string      `json:"message"`
}

// NewStory is src's story at now, with its Events and its backups (cb
// nil: none; unknown non-empty: they could not be read, and why).
func NewStory(src *srv1.StarRocksCluster, events []corev1.Event, cb *ClusterBackups, unknown string, now time.Time) *Story {
	st := &src.Status
	s := &Story{
		TypeMeta:  metav1.TypeMeta{APIVersion: StoryAPIVersion, Kind: StoryKind},
		Namespace: src.Namespace, Name: src.Name, Created: src.CreationTimestamp, Paused: Paused(src),
		Status: StatusLine(src, now), Holds: Holds(src), Hatches: Hatches(src),
		Conditions: slices.Clone(st.Conditions), Backups: cb, BackupsUnknown: unknown,
		Images: []ComponentImage{}, Nodes: []Nodes{}, Events: []StoryEvent{},
	}
	s.Status.SetBackups(cb, unknown == "", now)
	if s.Holds == nil {
		s.Holds = []string{}
	}
	if s.Conditions == nil {
		s.Conditions = []metav1.Condition{}
	}
	slices.SortFunc(s.Conditions, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	for _, im := range images(src) {
		s.Images = append(s.Images, ComponentImage{im[0], im[1]})
	}
	for _, p := range []struct {
		name  string
		ready *Ready
		cs    *srv1.StarRocksComponentStatus
	}{{"FE", s.Status.FE, st.StarRocksFeStatus}, {"BE", s.Status.BE, st.StarRocksBeStatus}, {"CN", s.Status.CN, cnBase(st.StarRocksCnStatus)}} {
		if p.ready == nil {
			continue
		}
		n := Nodes{Component: p.name, PodsReady: p.ready}
		if p.cs != nil {
			n.FE, n.Running, n.Creating, n.Failed = p.cs.Nodes, p.cs.RunningInstances, p.cs.CreatingInstances, p.cs.FailedInstances
		}
		s.Nodes = append(s.Nodes, n)
	}
	if be := st.StarRocksBeStatus; be != nil && be.Nodes != nil {
		s.UnhealthyTablets = be.Nodes.UnhealthyTablets
	}
	events = slices.Clone(events)
	slices.SortStableFunc(events, func(a, b corev1.Event) int { return eventTime(a).Compare(eventTime(b)) })
	if len(events) > EventsShown {
		events = events[len(events)-EventsShown:]
	}
	for _, e := range events {
		s.Events = append(s.Events, StoryEvent{LastSeen: metav1.NewTime(eventTime(e)), Type: e.Type, Reason: e.Reason, Count: max(e.Count, 1), Message: e.Message})
	}
	return s
}

// WriteDescribe tells one cluster's story: where it stands, its
// conditions, FE's word on its nodes, the holds, the escape hatches, its
// backups, the last Events.
func WriteDescribe(w io.Writer, s *Story, now time.Time) error {
	l := s.Status
	var b strings.Builder
	field := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-13s "+format+"\n", append([]any{k + ":"}, args...)...)
	}
	field("Name", "%s/%s", s.Namespace, s.Name)
	field("State", "%s", l.State)
	if l.Doing != "" {
		field("In progress", "%s", l.Doing)
	}
	field("Phase", "%s (status of generation %d; the spec is at %d)", orDash(l.Phase), l.ObservedGeneration, l.Generation)
	field("Created", "%s", Ago(s.Created.Time, now))
	field("Paused", "%s", yesNo(s.Paused))
	for _, im := range s.Images {
		field(im.Component+" image", "%s", orDash(im.Image))
	}
	field("Version", "%s (FE's report, against the images' tags)", l.Version)
	field("Last backup", "%s", l.LastBackup)

	b.WriteString("\nConditions:\n")
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  TYPE\tSTATUS\tREASON\tSINCE\tMESSAGE")
	for _, c := range s.Conditions {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, Ago(c.LastTransitionTime.Time, now), orDash(oneLine(c.Message)))
	}
	if len(s.Conditions) == 0 {
		fmt.Fprintln(tw, "  (none yet: the operator has not reported on this cluster)")
	}
	_ = tw.Flush()

	b.WriteString("\nNodes (as FE last reported them; pods as Kubernetes reports them):\n")
	tw = tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  COMPONENT\tPODS READY\tALIVE IN FE\tLEADER\tVERSIONS\tRUNNING\tCREATING\tFAILED")
	for _, p := range s.Nodes {
		alive, leader, versions := "-", "-", "-"
		if n := p.FE; n != nil {
			alive = fmt.Sprintf("%d/%d", n.Alive, n.Total)
			if n.Leader != "" {
				leader = n.Leader
			}
			if len(n.Versions) > 0 {
				versions = strings.Join(n.Versions, ",")
			}
		}
		if p.Component != "FE" {
			leader = ""
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Component, p.PodsReady, alive, orDash(leader), versions, list(p.Running), list(p.Creating), list(p.Failed))
	}
	_ = tw.Flush()
	tablets := "not counted yet (FE has not answered the operator)"
	if s.UnhealthyTablets != nil {
		tablets = fmt.Sprintf("%d (FE's UnhealthyTabletNum at the operator's last read)", *s.UnhealthyTablets)
	} else if !slices.ContainsFunc(s.Nodes, func(n Nodes) bool { return n.Component == "BE" }) {
		tablets = "- (no BE)"
	}
	fmt.Fprintf(&b, "  Unhealthy tablets: %s\n", tablets)

	b.WriteString("\nHolds (what the operator keeps back, and why):\n")
	if len(s.Holds) == 0 {
		b.WriteString("  none\n")
	}
	for _, h := range s.Holds {
		fmt.Fprintf(&b, "  - %s\n", oneLine(h))
	}

	b.WriteString("\nEscape hatches that apply now:\n")
	for _, h := range s.Hatches {
		fmt.Fprintf(&b, "  - %s:\n      %s\n", h.What, h.Command)
	}

	writeBackups(&b, s, now)

	fmt.Fprintf(&b, "\nEvents (the last %d):\n", EventsShown)
	if len(s.Events) == 0 {
		b.WriteString("  none (Events expire after an hour by default)\n")
	} else {
		tw = tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "  LAST SEEN\tTYPE\tREASON\tCOUNT\tMESSAGE")
		for _, e := range s.Events {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\n", Ago(e.LastSeen.Time, now), e.Type, e.Reason, e.Count, oneLine(e.Message))
		}
		_ = tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeBackups is describe's Backups: per database the last success, the
// failures since and the newest backup, then the schedules.
func writeBackups(b *strings.Builder, s *Story, now time.Time) {
	b.WriteString("\nBackups (StarRocksBackup and StarRocksBackupSchedule objects naming this cluster):\n")
	cb := s.Backups
	switch {
	case s.BackupsUnknown != "":
		fmt.Fprintf(b, "  unknown: %s\n", s.BackupsUnknown)
		return
	case cb == nil || (len(cb.Databases) == 0 && len(cb.Schedules) == 0):
		b.WriteString("  none\n")
		return
	}
	if len(cb.Databases) > 0 {
		tw := tabwriter.NewWriter(b, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "  DATABASE\tLAST SUCCEEDED\tFAILED SINCE\tNEWEST\tPHASE\tENDED")
		for _, d := range cb.Databases {
			ok := "never"
			if d.LastSucceededAt != nil {
				ok = Ago(d.LastSucceededAt.Time, now) + " (" + d.LastSucceeded + ")"
			}
			ended := "-"
			if d.NewestEndedAt != nil {
				ended = Ago(d.NewestEndedAt.Time, now)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\n", d.Database, ok, d.FailedSince, d.Newest, d.NewestPhase, ended)
		}
		_ = tw.Flush()
		for _, d := range cb.Databases {
			if d.NewestReason != "" {
				fmt.Fprintf(b, "  %s: %s: %s\n", d.Newest, d.NewestReason, oneLine(d.NewestMessage))
			}
		}
	}
	for _, sc := range cb.Schedules {
		words := sc.Schedule
		if sc.TimeZone != "" {
			words += " (" + sc.TimeZone + ")"
		}
		if sc.LastRun != nil {
			words += ", last run " + Ago(sc.LastRun.Time, now)
		}
		switch {
		case sc.Suspended:
			words += ", suspended"
		case sc.NextRun != nil:
			words += ", next " + In(sc.NextRun.Time, now)
		}
		if sc.Stalled != "" {
			words += ", stalled: " + oneLine(sc.Stalled)
		}
		fmt.Fprintf(b, "  Schedule %s: %s\n", sc.Name, words)
	}
}

// In is a future t relative to now: "in 3h"; "now" when it is due.
func In(t, now time.Time) string {
	if !t.After(now) {
		return "now"
	}
	return "in " + duration.HumanDuration(t.Sub(now))
}

// eventTime is when an Event was last seen, whichever API wrote it.
func eventTime(e corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// Condition is src's condition of type t; nil when it has none.
func Condition(src *srv1.StarRocksCluster, t string) *metav1.Condition {
	return meta.FindStatusCondition(src.Status.Conditions, t)
}

func list(names []string) string {
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ",")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes (" + srv1.IgnoredAnnotation + "=true)"
	}
	return "no"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
