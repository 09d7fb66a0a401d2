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
	"cmp"
	"slices"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// Retention, the part of every peer that broke most often (TiDB #4939,
// #5147, #5604, #6850): per database, a backup that succeeded is deleted
// only when every limit set allows it (keepLast and maxAge, not "the
// latter wins"), never the newest one that succeeded whatever the limits
// say, and never one that still runs. Failed ones are kept for inspection,
// keepFailed of them. The data goes only through StarRocks' own DROP
// SNAPSHOT, on 4.2 and later, never FORCE; below 4.2 only the objects are
// pruned, and the schedule names the prefix a bucket lifecycle rule
// should expire (LifecyclePrefix).

// Kept is one backup of a schedule, as retention sees it.
type Kept struct {
	Name, Database, Label string
	Phase                 srv1.BackupPhase
	Created, Completed    time.Time
}

// Policy is a schedule's retention.
type Policy struct {
	KeepLast   *int32
	MaxAge     *time.Duration
	KeepFailed int
	DeleteData bool
}

// Prune is a backup retention deletes: the object, and the snapshot too
// when DropSnapshot.
type Prune struct {
	Name, Label  string
	DropSnapshot bool
}

// Retention is what retention decides.
type Retention struct {
	Prune []Prune
	// DataKept is true when a succeeded backup is pruned without its
	// data (deleteData off, or StarRocks below 4.2).
	DataKept bool
}

// Retain decides which of a schedule's backups go. canDrop is StarRocks
// 4.2 or later (DROP SNAPSHOT). unsafeNewest is the control case only:
// it lets the limits delete the newest good backup too; the shipped
// operator never sets it.
func Retain(backups []Kept, p Policy, now time.Time, canDrop, unsafeNewest bool) Retention {
	var out Retention
	byDB := map[string][]Kept{}
	for _, b := range backups {
		byDB[b.Database] = append(byDB[b.Database], b)
	}
	for _, db := range slices.Sorted(mapsKeys(byDB)) {
		var good, failed []Kept
		for _, b := range byDB[db] {
			switch b.Phase {
			case srv1.BackupSucceeded:
				good = append(good, b)
			case srv1.BackupFailed, srv1.BackupCancelled:
				failed = append(failed, b)
			}
		}
		newestFirst(good)
		newestFirst(failed)
		for i, b := range good {
			if i == 0 && !unsafeNewest {
				continue // the newest good backup of the database stays
			}
			if p.KeepLast == nil && p.MaxAge == nil {
				continue
			}
			if p.KeepLast != nil && i < int(*p.KeepLast) {
				continue
			}
			if p.MaxAge != nil && now.Sub(b.Completed) <= *p.MaxAge {
				continue
			}
			drop := p.DeleteData && canDrop && b.Label != ""
			out.Prune = append(out.Prune, Prune{Name: b.Name, Label: b.Label, DropSnapshot: drop})
			out.DataKept = out.DataKept || !drop
		}
		for i, b := range failed {
			if i >= p.KeepFailed {
				// A failed backup's leftover directory holds no info file:
				// FE refuses to drop it without FORCE (backup §5), so only
				// the object goes.
				out.Prune = append(out.Prune, Prune{Name: b.Name, Label: b.Label})
			}
		}
	}
	return out
}

func newestFirst(bs []Kept) {
	slices.SortStableFunc(bs, func(a, b Kept) int {
		if c := b.Completed.Compare(a.Completed); c != 0 {
			return c
		}
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return cmp.Compare(b.Name, a.Name)
	})
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// LifecyclePrefix is where a bucket lifecycle rule may expire snapshots of
// a repository: every snapshot is a prefix __ss_<label>/ under it, beside
// __repo_info, which must never expire (backup §1.4).
func LifecyclePrefix(location, repository string) string {
	for location != "" && location[len(location)-1] == '/' {
		location = location[:len(location)-1]
	}
	return location + "/__starrocks_repository_" + repository + "/__ss_"
}
