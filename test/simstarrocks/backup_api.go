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

package simstarrocks

import (
	"slices"
	"strings"
)

// What tests see of the backup model, and the faults they inject.

// BackupJob is a snapshot of one database's last backup or restore job, as
// the leader has it.
type BackupJob struct {
	Restore bool
	DB      string
	Label   string
	JobID   int64
	State   string
	Status  string
}

// BackupJobs returns the last job of each database, sorted by database.
func (s *StarRocks) BackupJobs() []BackupJob {
	var out []BackupJob
	s.locked(func(c *cluster) {
		for _, j := range c.bk.jobs {
			out = append(out, BackupJob{Restore: j.restore, DB: j.db, Label: j.label, JobID: j.id, State: j.state, Status: j.status})
		}
	})
	slices.SortFunc(out, func(a, b BackupJob) int { return strings.Compare(a.DB, b.DB) })
	return out
}

// Store is the object store this FE's repositories live in.
func (s *StarRocks) Store() *ObjectStore { return s.opts.Store }

// HoldSubmitLock holds (or releases) BackupHandler's submission lock, as
// another submission holding it for more than 10 s would: BACKUP, RESTORE
// and DROP REPOSITORY answer "Another backup or restore job is being
// submitted. Please wait and try again" (backup §2.2).
func (s *StarRocks) HoldSubmitLock(held bool) {
	s.locked(func(c *cluster) { c.bk.locked = held })
}

// CancelledPastCommit counts the restores cancelled at or after COMMIT
// that overwrote existing tables: data "may be corrupted and
// inaccessible" (backup §4). The oracle of the point of no return.
func (s *StarRocks) CancelledPastCommit() int {
	var n int
	s.locked(func(c *cluster) { n = c.bk.cancelledPastCommit })
	return n
}

// RestoredFrom is the label of the last restore that finished into
// db.table, "" if none (or no such table).
func (s *StarRocks) RestoredFrom(db, table string) string {
	var label string
	s.locked(func(c *cluster) {
		if d := c.db(db); d != nil {
			if t := d.table(table); t != nil {
				label = t.restoredFrom
			}
		}
	})
	return label
}

// Tables lists the tables of db, sorted; nil when there is no such database.
func (s *StarRocks) Tables(db string) []string {
	var out []string
	s.locked(func(c *cluster) {
		if d := c.db(db); d != nil {
			out = []string{}
			for _, t := range d.tables {
				out = append(out, t.name)
			}
		}
	})
	slices.Sort(out)
	return out
}

// ClusterSnapshotOn says whether the automated cluster snapshot is on.
func (s *StarRocks) ClusterSnapshotOn() bool {
	var on bool
	s.locked(func(c *cluster) { on = c.bk.snap.on })
	return on
}
