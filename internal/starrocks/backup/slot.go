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

package backup

import (
	"fmt"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// The slot: FE runs one backup or restore per database at a time,
// anyone's ("Can only run one backup or restore job of a database at same
// time", backup §2.2), backups and restores alike. The operator keeps the
// same rule among its own objects, so that they wait their turn in order
// rather than race FE's refusal: at most one job per (cluster, database),
// first come first served (creation time, then name), a job that runs is
// never displaced (unlike CNPG #10622's name-sorted election), and a job
// FE runs that is not the operator's (a user's own BACKUP) holds the slot
// and is named in status. A backup and a restore of one database share
// it, so they cannot deadlock each other (PSMDB #2317).

// SlotJob is an object of the operator on a slot: a StarRocksBackup, or a
// StarRocksRestore (of its target database).
type SlotJob struct {
	// Kind and Name name it in status ("StarRocksBackup nightly-sales-...").
	Kind, Name string
	Created    time.Time
	Phase      srv1.BackupPhase
	// Label is its snapshot label once fixed ("" before).
	Label string
}

func (j SlotJob) String() string { return j.Kind + " " + j.Name }

// ahead: j comes before k in the queue.
func (j SlotJob) ahead(k SlotJob) bool {
	if !j.Created.Equal(k.Created) {
		return j.Created.Before(k.Created)
	}
	if j.Kind != k.Kind {
		return j.Kind < k.Kind
	}
	return j.Name < k.Name
}

// FEJob is FE's last job on the database, as SHOW BACKUP or SHOW RESTORE
// read it.
type FEJob struct {
	Label string
	Done  bool
}

// Slot is whether self may start now, and if not, why and what holds it.
type Slot struct {
	Start  bool
	Reason string
	// HeldBy names what holds the slot.
	HeldBy string
}

// TakeSlot decides whether self, Pending, may send its statement now.
// others are the operator's other objects on the slot, in any phase; fe
// the jobs FE reports on the database (unfinished or not; nil entries are
// skipped).
func TakeSlot(self SlotJob, others []SlotJob, fe []*FEJob) Slot {
	ours := map[string]bool{}
	for _, o := range others {
		if o.Label != "" {
			ours[o.Label] = true
		}
		if o.Phase == srv1.BackupRunning {
			return Slot{Reason: srv1.ReasonSlotBusy, HeldBy: o.String()}
		}
	}
	for _, o := range others {
		if o.Phase == srv1.BackupPending && o.ahead(self) {
			return Slot{Reason: srv1.ReasonSlotBusy, HeldBy: o.String()}
		}
	}
	for _, j := range fe {
		if j == nil || j.Done || j.Label == self.Label {
			continue
		}
		if ours[j.Label] {
			// One of ours that FE still runs though its object says
			// otherwise (ended by hand, or its status lags): it holds
			// the slot all the same.
			return Slot{Reason: srv1.ReasonSlotBusy, HeldBy: fmt.Sprintf("FE job %s", j.Label)}
		}
		return Slot{Reason: srv1.ReasonHeldByForeignJob, HeldBy: fmt.Sprintf("FE job %s (not the operator's)", j.Label)}
	}
	return Slot{Start: true}
}
