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
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// DatabaseBackups is one database's backups of a cluster, as the
// operator's StarRocksBackup objects say them: the newest that succeeded,
// the failures since (the operator's own count: its
// starrocks_backup_consecutive_failures metric), and the newest backup.
type DatabaseBackups struct {
	Database string `json:"database"`
	// LastSucceeded is the newest backup that succeeded; LastSucceededAt its completedAt.
	LastSucceeded   string       `json:"lastSucceeded,omitempty"`
	LastSucceededAt *metav1.Time `json:"lastSucceededAt,omitempty"`
	// FailedSince counts the backups that failed after it.
	FailedSince int `json:"failedSince"`
	// Newest is the newest backup by creation, whatever its phase.
	Newest        string       `json:"newest"`
	NewestPhase   string       `json:"newestPhase"`
	NewestEndedAt *metav1.Time `json:"newestEndedAt,omitempty"`
	// NewestReason and NewestMessage are its Ready condition's: why it
	// failed, or what it waits for.
	NewestReason  string `json:"newestReason,omitempty"`
	NewestMessage string `json:"newestMessage,omitempty"`
}

// Schedule is a StarRocksBackupSchedule of the cluster.
type Schedule struct {
	Name      string       `json:"name"`
	Schedule  string       `json:"schedule"`
	TimeZone  string       `json:"timeZone,omitempty"`
	Suspended bool         `json:"suspended"`
	LastRun   *metav1.Time `json:"lastRun,omitempty"`
	NextRun   *metav1.Time `json:"nextRun,omitempty"`
	// Stalled is its Stalled condition's reason and message when True.
	Stalled string `json:"stalled,omitempty"`
}

// ClusterBackups are a cluster's backups by database, sorted, and its schedules.
type ClusterBackups struct {
	Databases []DatabaseBackups `json:"databases,omitempty"`
	Schedules []Schedule        `json:"schedules,omitempty"`
}

// BackupIndex are the backups of the clusters by namespace and name. A nil
// index means the backups could not be read (status shows "?").
type BackupIndex map[types.NamespacedName]*ClusterBackups

// IndexBackups sorts backups and schedules by the cluster they name
// (spec.starRocksCluster, in their namespace).
func IndexBackups(backups []srv1.StarRocksBackup, schedules []srv1.StarRocksBackupSchedule) BackupIndex {
	idx := BackupIndex{}
	of := func(ns, cluster string) *ClusterBackups {
		k := types.NamespacedName{Namespace: ns, Name: cluster}
		if idx[k] == nil {
			idx[k] = &ClusterBackups{}
		}
		return idx[k]
	}
	type dbKey struct {
		cluster types.NamespacedName
		db      string
	}
	byDB := map[dbKey][]*srv1.StarRocksBackup{}
	for i := range backups {
		b := &backups[i]
		k := dbKey{types.NamespacedName{Namespace: b.Namespace, Name: b.Spec.StarRocksCluster}, b.Spec.Database}
		byDB[k] = append(byDB[k], b)
	}
	for k, bs := range byDB {
		cb := of(k.cluster.Namespace, k.cluster.Name)
		cb.Databases = append(cb.Databases, databaseBackups(k.db, bs))
	}
	for i := range schedules {
		s := &schedules[i]
		sc := Schedule{Name: s.Name, Schedule: s.Spec.Schedule, TimeZone: s.Spec.TimeZone, Suspended: s.Spec.Suspend,
			LastRun: s.Status.LastScheduleTime, NextRun: s.Status.NextScheduleTime}
		if c := meta.FindStatusCondition(s.Status.Conditions, srv1.ConditionStalled); c != nil && c.Status == metav1.ConditionTrue {
			sc.Stalled = c.Reason + ": " + c.Message
		}
		cb := of(s.Namespace, s.Spec.StarRocksCluster)
		cb.Schedules = append(cb.Schedules, sc)
	}
	for _, cb := range idx {
		slices.SortFunc(cb.Databases, func(a, b DatabaseBackups) int { return strings.Compare(a.Database, b.Database) })
		slices.SortFunc(cb.Schedules, func(a, b Schedule) int { return strings.Compare(a.Name, b.Name) })
	}
	return idx
}

func databaseBackups(db string, bs []*srv1.StarRocksBackup) DatabaseBackups {
	out := DatabaseBackups{Database: db}
	var lastOK time.Time
	var newest *srv1.StarRocksBackup
	for _, b := range bs {
		if b.Status.Phase == srv1.BackupSucceeded && b.Status.CompletedAt != nil && b.Status.CompletedAt.After(lastOK) {
			lastOK = b.Status.CompletedAt.Time
			out.LastSucceeded, out.LastSucceededAt = b.Name, b.Status.CompletedAt
		}
		if newest == nil || started(b).After(started(newest)) || (started(b).Equal(started(newest)) && b.Name > newest.Name) {
			newest = b
		}
	}
	for _, b := range bs {
		if b.Status.Phase == srv1.BackupFailed && b.Status.CompletedAt != nil && b.Status.CompletedAt.After(lastOK) {
			out.FailedSince++
		}
	}
	out.Newest, out.NewestPhase, out.NewestEndedAt = newest.Name, string(newest.Status.Phase), newest.Status.CompletedAt
	if out.NewestPhase == "" {
		out.NewestPhase = string(srv1.BackupPending)
	}
	if c := meta.FindStatusCondition(newest.Status.Conditions, srv1.ConditionReady); c != nil && c.Status != metav1.ConditionTrue {
		out.NewestReason, out.NewestMessage = c.Reason, c.Message
	}
	return out
}

// started is when a backup began: its statement's time, else its creation.
func started(b *srv1.StarRocksBackup) time.Time {
	if b.Status.SubmittedAt != nil {
		return b.Status.SubmittedAt.Time
	}
	return b.CreationTimestamp.Time
}

// LastSucceededAt is the newest success of any database; zero when none.
func (cb *ClusterBackups) LastSucceededAt() time.Time {
	var t time.Time
	for _, d := range cb.Databases {
		if d.LastSucceededAt != nil && d.LastSucceededAt.After(t) {
			t = d.LastSucceededAt.Time
		}
	}
	return t
}

// FailedSince counts the failures after each database's last success.
func (cb *ClusterBackups) FailedSince() int {
	n := 0
	for _, d := range cb.Databases {
		n += d.FailedSince
	}
	return n
}

// BackupWords is status' LAST BACKUP: the newest successful backup's age
// ("3h ago"), marked when backups failed after a database's last success
// ("3h ago (1 failed)", "none (2 failed)"); "none yet" for a cluster with
// backups or schedules but no success; "-" with no backup at all; "?"
// when the backups could not be read.
func BackupWords(cb *ClusterBackups, known bool, now time.Time) string {
	switch {
	case !known:
		return "?"
	case cb == nil || (len(cb.Databases) == 0 && len(cb.Schedules) == 0):
		return "-"
	}
	words := "none yet"
	if t := cb.LastSucceededAt(); !t.IsZero() {
		words = Ago(t, now)
	} else if cb.FailedSince() > 0 {
		words = "none"
	}
	if n := cb.FailedSince(); n > 0 {
		words += fmt.Sprintf(" (%d failed)", n)
	}
	return words
}
