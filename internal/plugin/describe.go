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
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// EventsShown is how many of the cluster's Events describe lists, newest last.
const EventsShown = 10

// Hatch is an escape hatch that applies to a cluster now: what it does and
// the exact command that sets it.
type Hatch struct {
	What, Command string
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

// Holds are what the operator keeps back and why: each component it does
// not bring to the spec (its phase's reason), and the conditions that hold.
func Holds(src *srv1.StarRocksCluster) []string {
	var out []string
	st := &src.Status
	for _, p := range []struct {
		name string
		cs   *srv1.StarRocksComponentStatus
	}{{"FE", st.StarRocksFeStatus}, {"BE", st.StarRocksBeStatus}, {"CN", cnBase(st.StarRocksCnStatus)}, {"FE proxy", st.StarRocksFeProxyStatus}} {
		if p.cs != nil && p.cs.Phase == srv1.PhaseReconciling && p.cs.Reason != "" && !strings.HasPrefix(p.cs.Reason, "pods ") {
			out = append(out, p.name+": "+p.cs.Reason)
		}
	}
	for _, c := range st.Conditions {
		if c.Status != metav1.ConditionTrue {
			continue
		}
		switch c.Reason {
		case srv1.ReasonRemovalHeld, srv1.ReasonDecommissioning, srv1.ReasonDecommissionStalled, srv1.ReasonLeavingFEGroup,
			srv1.ReasonRolloutStalled, srv1.ReasonCompatibilityPause, srv1.ReasonScaleInRefused, srv1.ReasonUpgradePathRefused, srv1.ReasonEphemeralStorageRefused,
			srv1.ReasonImmutableFieldChanged, srv1.ReasonConfigMapNotFound, srv1.ReasonConfigKeyNotFound, srv1.ReasonStorageNotExpandable:
			out = append(out, c.Type+" "+c.Reason+": "+c.Message)
		}
	}
	if rec := src.Annotations[srv1.CompatibilityPauseAnnotation]; rec != "" {
		out = append(out, "tablet clone and balancing paused for the version change; FE's values before it, to be restored: "+rec)
	}
	return out
}

// WriteDescribe tells one cluster's story: where it stands, its
// conditions, FE's word on its nodes, the holds, the escape hatches, the
// last Events.
func WriteDescribe(w io.Writer, src *srv1.StarRocksCluster, events []corev1.Event, now time.Time) error {
	l := StatusLine(src, now)
	st := &src.Status
	var b strings.Builder
	field := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-13s "+format+"\n", append([]any{k + ":"}, args...)...)
	}
	field("Name", "%s/%s", src.Namespace, src.Name)
	field("State", "%s", l.State)
	if l.Doing != "" {
		field("In progress", "%s", l.Doing)
	}
	field("Phase", "%s (status of generation %d; the spec is at %d)", orDash(string(st.Phase)), st.ObservedGeneration, src.Generation)
	field("Created", "%s", Ago(src.CreationTimestamp.Time, now))
	field("Paused", "%s", yesNo(Paused(src)))
	for _, im := range images(src) {
		field(im[0]+" image", "%s", orDash(im[1]))
	}
	field("Version", "%s (FE's report, against the images' tags)", l.Version)

	b.WriteString("\nConditions:\n")
	conds := slices.Clone(st.Conditions)
	slices.SortFunc(conds, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  TYPE\tSTATUS\tREASON\tSINCE\tMESSAGE")
	for _, c := range conds {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, Ago(c.LastTransitionTime.Time, now), orDash(oneLine(c.Message)))
	}
	if len(conds) == 0 {
		fmt.Fprintln(tw, "  (none yet: the operator has not reported on this cluster)")
	}
	_ = tw.Flush()

	b.WriteString("\nNodes (as FE last reported them; pods as Kubernetes reports them):\n")
	tw = tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  COMPONENT\tPODS READY\tALIVE IN FE\tLEADER\tVERSIONS\tRUNNING\tCREATING\tFAILED")
	for _, p := range []struct {
		name  string
		ready *Ready
		cs    *srv1.StarRocksComponentStatus
	}{{"FE", l.FE, st.StarRocksFeStatus}, {"BE", l.BE, st.StarRocksBeStatus}, {"CN", l.CN, cnBase(st.StarRocksCnStatus)}} {
		if p.ready == nil {
			continue
		}
		alive, leader, versions := "-", "-", "-"
		var running, creating, failed []string
		if p.cs != nil {
			running, creating, failed = p.cs.RunningInstances, p.cs.CreatingInstances, p.cs.FailedInstances
			if n := p.cs.Nodes; n != nil {
				alive = fmt.Sprintf("%d/%d", n.Alive, n.Total)
				if n.Leader != "" {
					leader = n.Leader
				}
				if len(n.Versions) > 0 {
					versions = strings.Join(n.Versions, ",")
				}
			}
		}
		if p.name != "FE" {
			leader = ""
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.name, p.ready, alive, orDash(leader), versions, list(running), list(creating), list(failed))
	}
	_ = tw.Flush()
	tablets := "not counted yet (FE has not answered the operator)"
	if be := st.StarRocksBeStatus; be != nil && be.Nodes != nil && be.Nodes.UnhealthyTablets != nil {
		tablets = fmt.Sprintf("%d (FE's UnhealthyTabletNum at the operator's last read)", *be.Nodes.UnhealthyTablets)
	} else if src.Spec.StarRocksBeSpec == nil {
		tablets = "- (no BE)"
	}
	fmt.Fprintf(&b, "  Unhealthy tablets: %s\n", tablets)

	b.WriteString("\nHolds (what the operator keeps back, and why):\n")
	holds := Holds(src)
	if len(holds) == 0 {
		b.WriteString("  none\n")
	}
	for _, h := range holds {
		fmt.Fprintf(&b, "  - %s\n", oneLine(h))
	}

	b.WriteString("\nEscape hatches that apply now:\n")
	for _, h := range Hatches(src) {
		fmt.Fprintf(&b, "  - %s:\n      %s\n", h.What, h.Command)
	}

	fmt.Fprintf(&b, "\nEvents (the last %d):\n", EventsShown)
	events = slices.Clone(events)
	slices.SortStableFunc(events, func(a, b corev1.Event) int { return eventTime(a).Compare(eventTime(b)) })
	if len(events) > EventsShown {
		events = events[len(events)-EventsShown:]
	}
	if len(events) == 0 {
		b.WriteString("  none (Events expire after an hour by default)\n")
	} else {
		tw = tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "  LAST SEEN\tTYPE\tREASON\tCOUNT\tMESSAGE")
		for _, e := range events {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\n", Ago(eventTime(e), now), e.Type, e.Reason, max(e.Count, 1), oneLine(e.Message))
		}
		_ = tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
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
