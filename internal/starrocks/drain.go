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
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// Drain is a BE decommission in progress. The memory records its tablet
// count and paces what the status says of it; Hold then says whether it
// stalled.
type Drain struct {
	// Tablets is what FE still counts on the BEs it drains.
	Tablets int
	// Message is what the status would say now (the tablets left on each BE).
	Message  string
	draining string
	from     int32
	stall    time.Duration
	// most is the largest TabletNum of one draining BE.
	most int
	// statistic is FE's '/statistic' Total row read with the drain; nil
	// when FE did not give it.
	statistic *fe.Statistic
}

// MaxCloneTime is tablet_sched_max_clone_task_timeout_sec (2 h, facts
// sheet §14): the longest one clone may run before FE gives it up. FE's
// tablet count falls only when a clone ends, so a drain that copies one
// large tablet moves no count for up to this long.
const MaxCloneTime = 2 * time.Hour

// Hold is the drain's hold: shown is what the status shows of it, since
// when its tablet count last fell. A drain whose count has not fallen for
// the stall timeout is stalled, unless FE still copies tablets (a large
// tablet's clone: until MaxCloneTime more). A stalled drain names its
// likely cause, from FE's counts (issue 34 item 7): tablets of dropped
// tables in FE's recycle bin, or BEs that cannot take the copies.
func (d Drain) Hold(shown string, since, now time.Time) Hold {
	quiet := now.Sub(since)
	if quiet < d.stall {
		if n := d.binnedOnly(); n > 0 && quiet >= DrainReportEvery {
			// Every tablet of a table that exists has left: what is left
			// waits on the recycle bin, not on FE, and says so now, not
			// after the stall timeout (issue 50 item 23).
			return decommissioning("%s; FE counts no unhealthy tablet and copies none, and the count has not fallen for %s, so the %d tablets left on a BE it drains belong to no table that exists: %s; BE keeps %d replicas until FE let them go",
				shown, quiet.Round(time.Second), n, binCause, d.from)
		}
		return decommissioning("%s; BE keeps %d replicas until FE let them go", shown, d.from)
	}
	if d.statistic != nil && d.statistic.CloningTablets > 0 && quiet < d.stall+MaxCloneTime {
		return decommissioning("%s; no count fell for %s, but FE still copies %d tablets (CloningTabletNum of SHOW PROC '/statistic'): a large tablet's copy runs as long as its data takes, up to tablet_sched_max_clone_task_timeout_sec (2 h by default), and FE's count falls only when it ends; BE keeps %d replicas until FE let them go",
			shown, quiet.Round(time.Second), d.statistic.CloningTablets, d.from)
	}
	stalled := fmt.Sprintf("FE moved no tablet off %s for %s (%d tablets left, per FE's TabletNum)", d.draining, d.stall, d.Tablets)
	var cause string
	if binned := d.binned(); binned > 0 {
		// '/statistic' walks the tables that exist; TabletNum counts FE's
		// inverted index, which keeps the tablets of dropped tables and
		// partitions in the recycle bin, never relocated (facts sheet §14).
		cause = fmt.Sprintf("at least %d of them belong to no table that exists (FE counts %d unhealthy tablets in all, and a BE it drains holds %d): %s",
			binned, d.statistic.UnhealthyTablets, d.most, binCause)
	} else {
		cause = "check that the other BEs are alive and have room"
	}
	return Hold{Reason: srv1.ReasonDecommissionStalled, Message: fmt.Sprintf("%s: %s; BE keeps %d replicas; annotate the cluster %s=true to shrink anyway, losing what only they hold",
		stalled, cause, d.from, srv1.SkipDecommissionAnnotation)}
}

// binned is how many of the tablets on the fullest draining BE FE's
// '/statistic' cannot count, at least: each tablet of a table that exists
// with a replica on a draining BE is unhealthy while it drains (REPLICA_
// RELOCATING or FORCE_REDUNDANT, facts sheet §14), once per tablet; the
// rest of the BE's TabletNum is in the recycle bin. 0 when FE gave no count.
func (d Drain) binned() int {
	if d.statistic == nil {
		return 0
	}
	return max(0, d.most-d.statistic.UnhealthyTablets)
}

// binCause is what tablets of no table that exists wait on, and what to do.
const binCause = "tables or partitions dropped within catalog_trash_expire_second (1 day by default) stay in FE's recycle bin, and FE neither moves their tablets nor lets the BE go. On StarRocks 4.0 and later SELECT * FROM information_schema.recyclebin_catalogs lists them. RECOVER what you want back (FE then moves it), and let FE erase the rest sooner: ADMIN SET FRONTEND CONFIG (\"catalog_trash_expire_second\" = \"600\"); DROP TABLE ... FORCE skips the bin next time"

// binnedOnly is the tablets on the fullest draining BE when every one of
// them is in the recycle bin: FE counts no unhealthy tablet and copies
// none. A tablet of a table that exists with a replica on a draining BE is
// unhealthy until its copy is done (REPLICA_RELOCATING or FORCE_REDUNDANT,
// facts sheet §14); once copied it is REDUNDANT, healthy, until FE deletes
// the draining BE's replica, so a zero is read only once the count has
// stood still a while (Hold). 0 when FE gave no count, or counts any.
func (d Drain) binnedOnly() int {
	if d.statistic == nil || d.statistic.UnhealthyTablets > 0 || d.statistic.CloningTablets > 0 {
		return 0
	}
	return d.most
}

// DrainReportEvery spaces the status updates of a draining BE's tablet
// count: the count falls on every read, the status must not.
const DrainReportEvery = 30 * time.Second

// paced records a drain's tablet count in the memory and returns its hold:
// the status shows a new message (the tablets left on each BE) at most once
// per DrainReportEvery, and the stall counts from when the count last fell.
func (m ScaleIn) paced(d Drain, now time.Time) (ScaleIn, Hold) {
	if m.Shown == nil || (m.Shown.Value != d.Message && now.Sub(m.Shown.At) >= DrainReportEvery) {
		m.Shown = &Since[string]{Value: d.Message, At: now}
	}
	if m.Lowest == nil || d.Tablets < m.Lowest.Value {
		m.Lowest = &Since[int]{Value: d.Tablets, At: now}
	}
	return m, d.Hold(m.Shown.Value, m.Lowest.At, now)
}

// drainingMessage says which BEs FE drains and what is left on them.
func drainingMessage(draining map[string]int) string {
	pods := slices.Sorted(maps.Keys(draining))
	parts := make([]string, len(pods))
	for i, p := range pods {
		parts[i] = fmt.Sprintf("%s (%d tablets)", p, draining[p])
	}
	return strings.Join(parts, ", ")
}

// statisticsTable finds the table of StarRocks' own statistics database an
// FE refusal names ("... because the table _statistics_.<tbl> requires 3
// replicas.").
var statisticsTable = regexp.MustCompile(`the table (_statistics_\.[A-Za-z0-9_]+) requires`)

// statisticsHint is what to run when FE refused a decommission for one of
// its own statistics tables: shared-nothing FEs create them with
// replication_num = min(3, BEs), and older FEs count them in the
// decommission check (newer ones skip them; facts sheet §14). StarRocks
// itself lowers them with ALTER TABLE ... SET ('replication_num' = ...)
// where it does (StatisticUtils.alterSystemTableReplicationNumIfNecessary).
func statisticsHint(refusal string, from, to int32) string {
	m := statisticsTable.FindStringSubmatch(refusal)
	if m == nil {
		return ""
	}
	return fmt.Sprintf(" %s is StarRocks' own statistics table, made with as many replicas as BEs, up to 3, and this FE counts it before it lets BEs go. Lower it to the BEs that stay: ALTER TABLE %s SET (\"replication_num\" = \"%d\"); then set spec.starRocksBeSpec.replicas to %d and back to %d: FE is asked again when the BE spec changes",
		m[1], m[1], min(3, max(1, to)), from, to)
}
