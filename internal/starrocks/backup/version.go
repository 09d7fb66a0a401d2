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
	"github.com/srscale/starrocks-operator/internal/version"
)

// The version gates of StarRocks' backup statements (backup §0), read
// from the lowest Version FE reports for its FEs (a rollout half way runs
// both; the statements run on the leader, which may be either).

// Features are what an FE version takes.
type Features struct {
	// Known is false when no version could be read: every gate is shut.
	Known bool
	// Version is the version read, for messages.
	Version string
	// DropSnapshot and TTL: DROP SNAPSHOT and BACKUP's ttl, 4.2 and later
	// (PR #78092, backup §5).
	DropSnapshot, TTL bool
	// RenameOnRestore: RESTORE ... DATABASE db AS new_db, 3.4 and later.
	RenameOnRestore bool
	// CreatesRestoreDatabase: RESTORE creates a database it does not find;
	// before 3.4 the operator creates it first (backup §4; UNVERIFIED the
	// release, the copy read that refuses has no 3.4 forms).
	CreatesRestoreDatabase bool
	// ClusterSnapshot: the automated cluster snapshot, 3.4.2 and later.
	ClusterSnapshot bool
}

// FeaturesOf reads the Version cells of SHOW FRONTENDS.
func FeaturesOf(versions []string) Features {
	o := version.Lowest(versions)
	if !o.Known() {
		return Features{}
	}
	v := o.Version
	at := func(major, minor, patch int) bool {
		if v.Major != major {
			return v.Major > major
		}
		if v.Minor != minor {
			return v.Minor > minor
		}
		return v.PatchKnown && v.Patch >= patch
	}
	return Features{Known: true, Version: v.String(),
		DropSnapshot: at(4, 2, 0), TTL: at(4, 2, 0),
		RenameOnRestore: at(3, 4, 0), CreatesRestoreDatabase: at(3, 4, 0),
		ClusterSnapshot: at(3, 4, 2)}
}
