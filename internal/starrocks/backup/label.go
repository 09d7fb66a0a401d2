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
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// A job's label is its identity: FE keys a snapshot by (repository,
// label) and refuses a label the repository has ("Snapshot with name ...
// already exist in repository", backup §2.1), and SHOW BACKUP names it.
// So the label is derived from what does not change: a schedule's run
// from the schedule, the database and the *scheduled* time; an ad-hoc
// backup from its object's name, the database and the object's creation.
// A restarted operator finds every job again from FE's answers alone, and
// a statement sent twice cannot start two jobs.
//
// The characters StarRocks allows in a label are UNVERIFIED (backup §2.1):
// labels here are k8s_ then [a-z0-9_] only, at most 64 characters, cut
// with a hash of the whole when longer.

// MaxLabel is the longest label made.
const MaxLabel = 64

// LabelPrefix starts every label the operator makes.
const LabelPrefix = "k8s_"

// labelTime is the time in a label: UTC to the minute, as 20261206t0100z.
func labelTime(t time.Time) string { return strings.ToLower(t.UTC().Format("20060102t1504z")) }

// ScheduledLabel is the label of a schedule's run for a database.
func ScheduledLabel(schedule, db string, scheduled time.Time) string {
	return cut(LabelPrefix + word(schedule) + "_" + word(db) + "_" + labelTime(scheduled))
}

// AdHocLabel is the label of a backup made without a schedule or a label.
func AdHocLabel(name, db string, created time.Time) string {
	return cut(LabelPrefix + word(name) + "_" + word(db) + "_" + labelTime(created))
}

// word keeps [a-z0-9] and turns every other character into '_'.
func word(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// cut shortens s to MaxLabel, ending it with a hash of the whole s.
func cut(s string) string {
	if len(s) <= MaxLabel {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	h := hex.EncodeToString(sum[:])[:10]
	return s[:MaxLabel-len(h)-1] + "_" + h
}

// ObjectName is the name of the StarRocksBackup a schedule makes for a
// database's run: <schedule>-<database>-<yyyymmddhhmm>, a DNS subdomain,
// with a hash of the database when it is not one as it is (a '_', upper
// case), so that two databases never share a name. Made twice (a resent
// create after a restart), it is the same name: the API server answers
// AlreadyExists, never a duplicate.
func ObjectName(schedule, db string, scheduled time.Time) string {
	d := strings.ToLower(db)
	clean := true
	var b strings.Builder
	for _, r := range d {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
			clean = false
		}
	}
	part := strings.Trim(b.String(), "-")
	if !clean || part != db {
		sum := sha256.Sum256([]byte(db))
		part += "-" + hex.EncodeToString(sum[:])[:6]
	}
	name := schedule + "-" + strings.Trim(part, "-") + "-" + scheduled.UTC().Format("200601021504")
	if len(name) > 253 {
		sum := sha256.Sum256([]byte(name))
		name = name[:242] + "-" + hex.EncodeToString(sum[:])[:10]
	}
	return name
}
