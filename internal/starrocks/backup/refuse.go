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
	"errors"
	"fmt"
	"slices"
	"strings"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// Bad input: each refusal is one condition (Stalled, with its reason) and
// one Event, and no statement is sent; the object waits for its spec, or
// what it names, to change.

// Refusal is why a request is not sent to FE.
type Refusal struct {
	Reason, Message string
}

func (r *Refusal) Error() string { return r.Message }

func refuse(reason, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// RefuseSchedule checks a schedule's cron expression and time zone.
func RefuseSchedule(expr, zone string) *Refusal {
	if _, err := ParseSchedule(expr, zone); err != nil {
		if errors.Is(err, ErrTimeZone) {
			return refuse(srv1.ReasonInvalidTimeZone, "spec.timeZone: %v; nothing is scheduled until it is an IANA time zone such as Europe/Berlin", err)
		}
		return refuse(srv1.ReasonInvalidSchedule, "spec.schedule: %v; nothing is scheduled until it is a five-field cron expression or @daily, @hourly, ...", err)
	}
	return nil
}

// RefuseSharedData refuses a shared-data cluster: StarRocks' BACKUP and RESTORE are for shared-nothing
// clusters (backup §0); a restore of a shared-nothing snapshot into a
// shared-data cluster gave unreadable tables (StarRocks issue #61444).
func RefuseSharedData(kind, cluster string) *Refusal {
	return refuse(srv1.ReasonSharedDataUnsupported, "StarRocksCluster %q runs in shared-data mode, where StarRocks has no %s: use spec.clusterSnapshot on the cluster (docs/backup.md)", cluster, kind)
}

// RefuseTTL refuses a ttl below 4.2: the ttl property is StarRocks 4.2's.
func RefuseTTL(ttl string, f Features) *Refusal {
	if ttl == "" || f.TTL {
		return nil
	}
	v := "an unknown version"
	if f.Known {
		v = f.Version
	}
	return refuse(srv1.ReasonTTLUnsupported, "spec.ttl %q needs StarRocks 4.2 or later, and FE runs %s: remove it (retention can prune the backups)", ttl, v)
}

// RefuseDatabase refuses a database FE does not list: the database must be one FE lists.
func RefuseDatabase(db string, databases []string) *Refusal {
	if slices.Contains(databases, db) {
		return nil
	}
	return refuse(srv1.ReasonDatabaseNotFound, "database %q does not exist in the cluster (FE lists %s)", db, listOf(databases))
}

func listOf(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	if len(xs) > 10 {
		return strings.Join(xs[:10], ", ") + fmt.Sprintf(" and %d more", len(xs)-10)
	}
	return strings.Join(xs, ", ")
}

// RefuseOverwrite refuses an overwrite not asked for: a restore that would overwrite tables that exist is
// refused unless the user asked for it: past FE's COMMIT the overwritten
// data cannot come back (backup §4).
func RefuseOverwrite(policy srv1.ExistingTablesPolicy, target string, restored, existing []string) *Refusal {
	if policy == srv1.ExistingTablesOverwrite {
		return nil
	}
	var clash []string
	for _, t := range restored {
		if slices.Contains(existing, t) {
			clash = append(clash, t)
		}
	}
	if len(clash) == 0 {
		return nil
	}
	slices.Sort(clash)
	return refuse(srv1.ReasonTargetExists, "the restore would overwrite %s in database %q, which cannot come back once StarRocks commits it: restore into another targetDatabase, or set existingTables: Overwrite", listOf(clash), target)
}

// RefuseRepositoryName refuses a name FE has elsewhere: a repository name FE has at another location is
// another repository; nothing is dropped, the object waits.
func RefuseRepositoryName(name, location, theirs string) *Refusal {
	if theirs == "" || strings.TrimRight(theirs, "/") == strings.TrimRight(location, "/") {
		return nil
	}
	return refuse(srv1.ReasonRepositoryNameTaken, "StarRocks has a repository %q at %s, not at %s: give spec.name another name; the operator drops nothing", name, theirs, location)
}
