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

// Package backup decides what the operator's backup controllers ask of
// StarRocks, purely: the spec, the objects and FE's answers in, a decision
// out; no client, no context, no clock (now is an input). It holds the
// schedule's run rule (schedule.go), the job labels a restarted operator
// finds its jobs by (label.go), the (cluster, database) slot (slot.go),
// retention (retention.go), what FE's job states mean (state.go), the
// version gates of StarRocks' statements (version.go) and the refusals of
// bad input (refuse.go). docs/backup.md tells the rules and why.
package backup

import (
	"errors"
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule is a cron schedule in a time zone.
type Schedule struct {
	spec cron.Schedule
}

// ErrTimeZone is a time zone that is not an IANA name.
var ErrTimeZone = errors.New("invalid time zone")

// parser takes the five standard fields and the descriptors (@daily,
// @hourly, ...), as a Kubernetes CronJob does; no seconds field.
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSchedule reads a cron expression and an IANA time zone ("" is UTC).
// An error wraps ErrTimeZone when the zone is the fault.
func ParseSchedule(expr, zone string) (Schedule, error) {
	loc := time.UTC
	if zone != "" {
		l, err := time.LoadLocation(zone)
		if err != nil {
			return Schedule{}, fmt.Errorf("%w %q: %w", ErrTimeZone, zone, err)
		}
		loc = l
	}
	if expr != "" && (expr[0] == 'T' || expr[0] == 'C') {
		// TZ= and CRON_TZ= prefixes would bypass timeZone.
		return Schedule{}, fmt.Errorf("schedule %q: give the time zone in timeZone, not in the expression", expr)
	}
	s, err := parser.Parse(expr)
	if err != nil {
		return Schedule{}, fmt.Errorf("schedule %q: %w", expr, err)
	}
	if sc, ok := s.(*cron.SpecSchedule); ok {
		sc.Location = loc
	}
	return Schedule{spec: s}, nil
}

// Next is the first scheduled time after t.
func (s Schedule) Next(t time.Time) time.Time { return s.spec.Next(t) }

// maxMissed bounds the count of missed runs looked at: after a long outage
// (or a clock jump) the count says "at least this many".
const maxMissed = 1000

// Runs says what a schedule does now.
type Runs struct {
	// Start is the scheduled time of the run to start now; nil: none.
	// After an outage it is the newest missed run, never an older one.
	Start *time.Time
	// Skipped are the runs not started: every missed run but the newest,
	// and the newest too when it is past the starting deadline.
	Skipped int64
	// Next is the next scheduled time after now.
	Next time.Time
	// Newest is the newest scheduled time at or before now, started or
	// skipped: the schedule's lastScheduleTime from now on; nil when no
	// run fell due.
	Newest *time.Time
}

// Due decides a schedule's runs from what outlives the operator: the
// schedule's creation and its status.lastScheduleTime, never memory. Runs
// come after the later of the two; at most one starts, the newest (a
// two-week outage starts one backup, not hundreds: CNPG #7623); a run
// later than deadline after its time is skipped. Suspended, none starts
// (and the skipped ones are counted once it resumes).
func Due(s Schedule, created time.Time, last *time.Time, now time.Time, deadline *time.Duration, suspend bool) Runs {
	from := created
	if last != nil && last.After(from) {
		from = *last
	}
	out := Runs{Next: s.Next(now)}
	var newest *time.Time
	var count int64
	for t := s.Next(from); !t.After(now) && count < maxMissed; t = s.Next(t) {
		tt := t
		newest = &tt
		count++
	}
	if newest == nil || suspend {
		return out
	}
	out.Newest = newest
	out.Skipped = count - 1
	if deadline != nil && now.Sub(*newest) > *deadline {
		out.Skipped++
		return out
	}
	out.Start = newest
	return out
}
