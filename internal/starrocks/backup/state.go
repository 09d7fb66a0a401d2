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
	"strings"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// What FE's job states mean (backup §2.3, §4), and the phase that never
// goes backwards.

// rank orders the phases: a phase is replaced only by a later one.
func rank(p srv1.BackupPhase) int {
	switch p {
	case srv1.BackupRunning:
		return 1
	case srv1.BackupSucceeded, srv1.BackupFailed, srv1.BackupCancelled:
		return 2
	}
	return 0
}

// Advance is the phase after cur when next is observed: next if it is
// later, cur otherwise. A follower's stale answer, or a leader change that
// sends FE's job back to PENDING (backup §7), never moves it back.
func Advance(cur, next srv1.BackupPhase) srv1.BackupPhase {
	if rank(next) > rank(cur) {
		return next
	}
	return cur
}

// Terminal is Succeeded, Failed or Cancelled.
func Terminal(p srv1.BackupPhase) bool { return rank(p) == 2 }

// Outcome is what FE's job says of an operator job.
type Outcome struct {
	Phase  srv1.BackupPhase
	Reason string
	// Verify: FE says FINISHED; a backup is Succeeded once the repository
	// shows the snapshot OK (SHOW SNAPSHOT), the truth that outlives SHOW
	// BACKUP's memory.
	Verify bool
}

// ReadBackup reads SHOW BACKUP's State and Status (backup §2.3). An
// unknown state is taken as running: FE may add states (backup §4: an
// operator "should accept unknown state strings").
func ReadBackup(state, status string) Outcome {
	switch state {
	case "PENDING", "SNAPSHOTING":
		return Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonPreparing}
	case "UPLOAD_SNAPSHOT", "UPLOADING", "SAVE_META", "UPLOAD_INFO":
		return Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonUploading}
	case "FINISHED":
		return Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonUploading, Verify: true}
	case "CANCELLED":
		return Outcome{Phase: srv1.BackupFailed, Reason: cancelReason(status)}
	}
	return Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonSubmitted}
}

// ReadRestore reads SHOW RESTORE's State and Status (backup §4).
func ReadRestore(state, status string) Outcome {
	switch state {
	case "PENDING", "SNAPSHOTING":
		return Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonPreparing}
	case "DOWNLOAD", "DOWNLOADING":
		return Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonDownloading}
	case "COMMIT", "COMMITTING":
		return Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonCommitting}
	case "FINISHED":
		return Outcome{Phase: srv1.BackupSucceeded, Reason: srv1.ReasonBackupComplete}
	case "CANCELLED", "FAILED":
		return Outcome{Phase: srv1.BackupFailed, Reason: cancelReason(status)}
	}
	return Outcome{Phase: srv1.BackupRunning, Reason: srv1.ReasonSubmitted}
}

func cancelReason(status string) string {
	if strings.HasPrefix(status, "[TIMEOUT") {
		return srv1.ReasonJobTimeout
	}
	return srv1.ReasonFECancelled
}

// PastPointOfNoReturn is a restore FE has taken to COMMIT or later: what
// it overwrites cannot come back, and "if the RESTORE job fails or is
// canceled at this point, the data may be corrupted" (backup §4).
func PastPointOfNoReturn(state string) bool {
	switch state {
	case "COMMIT", "COMMITTING", "FINISHED":
		return true
	}
	return false
}

// MayCancelRestore says whether a restore may be cancelled: it is is cancelled (its object deleted) only
// before FE's COMMIT, ever. FE itself would cancel it later too
// (RestoreJob.cancel refuses nothing short of done).
func MayCancelRestore(state string, pastPoint bool) bool {
	return !pastPoint && !PastPointOfNoReturn(state)
}

// SystemDatabase is a database a schedule of allDatabases leaves out:
// information_schema, _statistics_, sys (StarRocks' own).
func SystemDatabase(db string) bool {
	switch strings.ToLower(db) {
	case "information_schema", "_statistics_", "sys", "starrocks_audit_db__":
		return true
	}
	return false
}
