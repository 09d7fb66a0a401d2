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
	"sort"
	"strings"
	"sync"
	"time"
)

// ObjectStore is the object store behind the simulated repositories: what
// FE and BE write under a repository's location, as the layout of backup
// §1.4 has it:
//
//	<location>/__starrocks_repository_<repo>/__repo_info
//	<location>/__starrocks_repository_<repo>/__ss_<label>/__meta
//	<location>/__starrocks_repository_<repo>/__ss_<label>/__info_<ts>
//	<location>/__starrocks_repository_<repo>/__ss_<label>/__ss_content/...
//
// Simulated clusters given the same store (Options.Store) see each other's
// repositories: a second cluster that creates a repository of the same name
// on the same location attaches to it and restores the first one's
// snapshots (Repository.initRepositoryInternal reads an existing
// __repo_info, backup §1.1). The zero value is not usable: NewObjectStore.
type ObjectStore struct {
	mu   sync.Mutex
	locs map[string]*storeLocation
}

// NewObjectStore is an empty store.
func NewObjectStore() *ObjectStore { return &ObjectStore{locs: map[string]*storeLocation{}} }

// get makes *ObjectStore a storeRef: the cluster model holds the store
// through an interface, which the followers' deep copies share rather than
// copy (deepcopy.go), as every FE reaches the same bucket.
func (o *ObjectStore) get() *ObjectStore { return o }

type storeRef interface{ get() *ObjectStore }

type storeLocation struct {
	unreachable bool
	repos       map[string]*storeRepo
}

type storeRepo struct {
	createTime time.Time
	snapshots  map[string]*storeSnapshot
}

// storeSnapshot is one __ss_<label>/ directory: content uploaded, the meta
// file, and the info files by timestamp.
type storeSnapshot struct {
	meta  bool
	infos map[string]*snapshotInfo
}

// snapshotInfo is what an __info_<ts> file says (BackupJobInfo; 4.2 adds the
// creating cluster, the finish time and the ttl, backup §3, §5).
type snapshotInfo struct {
	db        string
	tables    []snapTable
	clusterID int
	finish    time.Time
	ttl       string
	expire    time.Time
}

type snapTable struct {
	name           string
	tablets        int
	replicationNum int
}

// storageError is what the store answers while unreachable. UNVERIFIED:
// the text of the file system's error (an S3 client's, a broker's); the
// simulation names the location, and StarRocks' own frames around it
// ("Failed to create repository: ", the ping's "<time>: ") are FE's.
func storageError(location string) string {
	return "simstarrocks: the object store at " + location + " is unreachable"
}

// normLocation strips trailing slashes, as createRepository does (backup §1.1).
func normLocation(loc string) string { return strings.TrimRight(loc, "/") }

// SetUnreachable makes every request to location fail (or succeed again):
// FE's ping fills ErrMsg, the label check at BACKUP's submission and the
// info file download at RESTORE's fail synchronously, and BE uploads and
// downloads record the error in TaskErrMsg and stall (backup §7).
func (o *ObjectStore) SetUnreachable(location string, unreachable bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.loc(normLocation(location)).unreachable = unreachable
}

// Snapshots lists the snapshot labels of a repository at location,
// sorted, and for each whether it has an info file: the test's oracle of
// what is in the bucket.
func (o *ObjectStore) Snapshots(location, repo string) map[string]bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]bool{}
	if r := o.loc(normLocation(location)).repos[repo]; r != nil {
		for label, ss := range r.snapshots {
			out[label] = len(ss.infos) > 0
		}
	}
	return out
}

func (o *ObjectStore) loc(location string) *storeLocation {
	l := o.locs[location]
	if l == nil {
		l = &storeLocation{repos: map[string]*storeRepo{}}
		o.locs[location] = l
	}
	return l
}

// initRepo is Repository.initRepositoryInternal: attach to an existing
// __repo_info (its create time), or write one. A read-only repository
// writes nothing. It returns the storage error, "" if none.
func (o *ObjectStore) initRepo(location, name string, readOnly bool, now time.Time) (time.Time, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.loc(location)
	if l.unreachable {
		return time.Time{}, storageError(location)
	}
	if r := l.repos[name]; r != nil {
		return r.createTime, ""
	}
	if readOnly {
		// UNVERIFIED: what FE does with a read-only repository at a
		// location holding no __repo_info; the simulation attaches
		// without writing one.
		return now, ""
	}
	l.repos[name] = &storeRepo{createTime: now, snapshots: map[string]*storeSnapshot{}}
	return now, ""
}

// ping is Repository.ping: the repository directory exists and the store answers.
func (o *ObjectStore) ping(location, name string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.loc(location)
	if l.unreachable {
		return storageError(location)
	}
	return ""
}

// list is Repository.listSnapshots: the labels of the __ss_* directories.
func (o *ObjectStore) list(location, name string) ([]string, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.loc(location)
	if l.unreachable {
		return nil, storageError(location)
	}
	var out []string
	if r := l.repos[name]; r != nil {
		for label := range r.snapshots {
			out = append(out, label)
		}
	}
	sort.Strings(out)
	return out, ""
}

// infoTimestamps lists the __info_* timestamps of one snapshot directory.
func (o *ObjectStore) infoTimestamps(location, name, label string) ([]string, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.loc(location)
	if l.unreachable {
		return nil, storageError(location)
	}
	var out []string
	if r := l.repos[name]; r != nil && r.snapshots[label] != nil {
		for ts := range r.snapshots[label].infos {
			out = append(out, ts)
		}
	}
	sort.Strings(out)
	return out, ""
}

// info downloads one info file: Repository.download lists "<path>*" and
// expects one file ("Expected one file with path: <path>. get: <n>").
func (o *ObjectStore) info(location, name, label, ts string) (*snapshotInfo, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.loc(location)
	if l.unreachable {
		return nil, storageError(location)
	}
	var info *snapshotInfo
	if r := l.repos[name]; r != nil && r.snapshots[label] != nil {
		info = r.snapshots[label].infos[ts]
	}
	if info == nil {
		return nil, "Expected one file with path: " + location + "/" + repoDirPrefix + name + "/__ss_" + label + "/__info_" + ts + ". get: 0"
	}
	cp := *info
	cp.tables = slices.Clone(info.tables)
	return &cp, ""
}

// repoDirPrefix is Repository's prefix of new repositories (backup §0).
const repoDirPrefix = "__starrocks_repository_"

// write uploads into __ss_<label>/: content (a BE's upload), the meta
// file, or an info file (FE's UPLOAD_INFO) when info is set.
func (o *ObjectStore) write(location, name, label string, meta bool, ts string, info *snapshotInfo, now time.Time) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.loc(location)
	if l.unreachable {
		return storageError(location)
	}
	r := l.repos[name]
	if r == nil {
		// A repository whose __repo_info a user deleted: BE's upload
		// writes the path all the same.
		r = &storeRepo{createTime: now, snapshots: map[string]*storeSnapshot{}}
		l.repos[name] = r
	}
	ss := r.snapshots[label]
	if ss == nil {
		ss = &storeSnapshot{infos: map[string]*snapshotInfo{}}
		r.snapshots[label] = ss
	}
	ss.meta = ss.meta || meta
	if info != nil {
		cp := *info
		ss.infos[ts] = &cp
	}
	return ""
}

// remove deletes __ss_<label>/ recursively (BackupHandler.deleteSnapshot, 4.2).
func (o *ObjectStore) remove(location, name, label string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.loc(location)
	if l.unreachable {
		return storageError(location)
	}
	if r := l.repos[name]; r != nil {
		delete(r.snapshots, label)
	}
	return ""
}

// snapshotInfos is every info file of a snapshot, by timestamp.
func (o *ObjectStore) snapshotInfos(location, name, label string) map[string]snapshotInfo {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]snapshotInfo{}
	if r := o.loc(location).repos[name]; r != nil && r.snapshots[label] != nil {
		for ts, info := range r.snapshots[label].infos {
			out[ts] = *info
		}
	}
	return out
}
