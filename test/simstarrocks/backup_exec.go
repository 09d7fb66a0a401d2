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
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The backup statements run on the model (backup.go), with FE's checks in
// FE's order and its texts (backup §1-§5; BackupHandler.java @014f91e2).

// unknownDB is ERR_BAD_DB_ERROR (1049, 42000, "Unknown database '%s'").
// UNVERIFIED: the exact wording for these statements (backup §2.2).
func unknownDB(db string) *sqlError {
	return &sqlError{code: 1049, state: "42000", msg: fmt.Sprintf("Unknown database '%s'", db)}
}

// unknownTable is ERR_BAD_TABLE_ERROR (1051, 42S02, "Unknown table '%s'").
func unknownTable(t string) *sqlError {
	return &sqlError{code: 1051, state: "42S02", msg: fmt.Sprintf("Unknown table '%s'", t)}
}

// noDB is ERR_NO_DB_ERROR (1046, 3D000): a SHOW or CANCEL without a
// database, which the simulation's sessions never have.
var noDB = &sqlError{code: 1046, state: "3D000", msg: "No database selected"}

// lockBusy is BackupHandler.tryLock after its 10 s wait (backup §2.2).
// The simulation answers at once while the lock is held (HoldSubmitLock):
// the 10 s FE waits first are not modelled.
var lockBusy = ddlError("Another backup or restore job is being submitted. Please wait and try again")

// sharedDataRefused answers BACKUP and RESTORE on a shared-data FE.
// UNVERIFIED: FE's text; the simulation sends the docs' sentence (backup
// §0: "Shared-data StarRocks clusters do not support data BACKUP and
// RESTORE"; backup-design §3.7).
var sharedDataRefused = ddlError("Shared-data StarRocks clusters do not support data BACKUP and RESTORE")

func (c *cluster) executeBackup(st *statement) (*result, *sqlError) {
	b := st.bk
	switch st.kind {
	case stCreateRepository:
		return nil, c.createRepository(b)
	case stDropRepository:
		return nil, c.dropRepository(b)
	case stShowRepositories:
		return c.repositoryRows(), nil
	case stBackup:
		return nil, c.submitBackup(b)
	case stRestore:
		return nil, c.submitRestore(b)
	case stShowBackup, stShowRestore:
		return c.jobRows(st.kind == stShowRestore, b.db)
	case stCancelBackup, stCancelRestore:
		return nil, c.cancel(st.kind == stCancelRestore, b.db)
	case stShowSnapshot:
		return c.snapshotRows(b)
	case stDropSnapshot:
		return nil, c.dropSnapshot(b)
	case stClusterSnapshot:
		return nil, c.setClusterSnapshot(b)
	case stSelectInfo:
		if b.partitionsMeta != nil {
			return c.partitionsMetaRows(b.partitionsMeta)
		}
		return c.clusterSnapshotRows(b.infoTable), nil
	case stShowDatabases:
		res := &result{columns: []string{"Database"}}
		names := []string{"information_schema"}
		for _, d := range c.dbs {
			names = append(names, d.name)
		}
		sort.Strings(names)
		for _, n := range names {
			res.rows = append(res.rows, []string{n})
		}
		return res, nil
	case stShowTables:
		d := c.db(b.db)
		if d == nil {
			return nil, unknownDB(b.db)
		}
		res := &result{columns: []string{"Tables_in_" + b.db}}
		var names []string
		for _, t := range d.tables {
			names = append(names, t.name)
		}
		sort.Strings(names)
		for _, n := range names {
			res.rows = append(res.rows, []string{n})
		}
		return res, nil
	case stCreateDatabase:
		if c.db(b.db) != nil {
			if b.ifNotExists {
				return nil, nil
			}
			// ERR_DB_CREATE_EXISTS (1007).
			return nil, &sqlError{code: 1007, state: "HY000", msg: fmt.Sprintf("Can't create database '%s'; database exists", b.db)}
		}
		c.dbs = append(c.dbs, &database{id: c.newID(), name: b.db})
		c.journal++
		return nil, nil
	}
	return nil, ddlError("simstarrocks: statement kind %d not executed", st.kind)
}

// createRepository is BackupHandler.createRepository (backup §1.1).
func (c *cluster) createRepository(b *backupStmt) *sqlError {
	if b.hasBroker {
		// The simulation has no brokers.
		return ddlError("broker does not exist: %s", b.broker)
	}
	loc := normLocation(b.location)
	if c.repoNamed(b.repo) != nil {
		// UNVERIFIED: RepositoryMgr.addAndInitRepoIfNotExist's text for a
		// name FE has (not read); the frame is createRepository's.
		return ddlError("Failed to create repository: Repository %s already exist", b.repo)
	}
	created, msg := c.store().initRepo(loc, b.repo, b.readOnly, c.now)
	if msg != "" {
		return ddlError("Failed to create repository: %s", msg)
	}
	c.bk.repos = append(c.bk.repos, &repository{id: c.newID(), name: b.repo, location: loc, readOnly: b.readOnly, createTime: created})
	c.journal++
	return nil
}

// dropRepository is BackupHandler.dropRepository (backup §1.2).
func (c *cluster) dropRepository(b *backupStmt) *sqlError {
	if c.bk.locked {
		return lockBusy
	}
	r := c.repoNamed(b.repo)
	if r == nil {
		return ddlError("Repository does not exist")
	}
	for _, j := range c.bk.jobs {
		if !j.isDone() && j.repo == r.name {
			return ddlError("Backup or restore job is running on this repository. Can not drop it")
		}
	}
	c.bk.repos = slices.DeleteFunc(c.bk.repos, func(x *repository) bool { return x == r })
	c.journal++
	return nil
}

// repositoryRows is SHOW REPOSITORIES (Repository.getInfo; backup §1.3).
// UNVERIFIED: what Broker shows for a broker-less repository; empty here.
func (c *cluster) repositoryRows() *result {
	res := &result{columns: []string{"RepoId", "RepoName", "CreateTime", "IsReadOnly", "Location", "Broker", "ErrMsg"}}
	for _, r := range c.bk.repos {
		errMsg := "NULL"
		if r.errMsg != "" {
			errMsg = r.errMsg
		}
		res.rows = append(res.rows, []string{strconv.FormatInt(r.id, 10), r.name, timeString(r.createTime), boolString(r.readOnly), r.location, r.broker, errMsg})
	}
	return res
}

// backupProperties is BackupRestoreAnalyzer.analyzeBackupProperties
// (backup §2.1): timeout in seconds, type FULL, ttl from 4.2, nothing else.
func (c *cluster) backupProperties(b *backupStmt) (time.Duration, string, *sqlError) {
	timeout := defaultBackupTimeout
	ttl := ""
	var unknown []string
	for _, k := range b.propOrder {
		v := b.props[k]
		switch {
		case k == "timeout":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				// UNVERIFIED: the analyzer's text for a timeout that is no number.
				return 0, "", analyzeError("Invalid timeout format: %s", v)
			}
			// UNVERIFIED: how a timeout below 10 minutes (MIN_TIMEOUT_MS)
			// is handled; the simulation takes it as given.
			timeout = time.Duration(n) * time.Second
		case k == "type":
			if !strings.EqualFold(v, "full") && !strings.EqualFold(v, "incremental") {
				return 0, "", analyzeError("Invalid backup job type: %s", v)
			}
		case k == "ttl" && c.opts.Version >= "4.2":
			if strings.TrimSpace(v) == "" {
				continue
			}
			n, _, ok := parseTTL(v)
			if !ok {
				return 0, "", analyzeError("Invalid ttl: '%s'. Expected a duration such as '7 DAY' or '12 HOUR', or an empty value to keep the snapshot forever", v)
			}
			if n <= 0 {
				return 0, "", analyzeError("ttl must be a positive duration, but got: %s", v)
			}
			ttl = strings.ToUpper(strings.TrimSpace(v))
		default:
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return 0, "", analyzeError("Unknown backup job properties: [%s]", strings.Join(unknown, ", "))
	}
	return timeout, ttl, nil
}

// parseTTL reads "<n> <UNIT>" (backup/SnapshotTtl @8770693d). UNVERIFIED:
// the full list of units; the simulation takes SECOND to YEAR, singular.
func parseTTL(v string) (int, string, bool) {
	f := strings.Fields(strings.ToUpper(v))
	if len(f) != 2 {
		return 0, "", false
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 0, "", false
	}
	switch f[1] {
	case "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "YEAR":
		return n, f[1], true
	}
	return 0, "", false
}

// submitBackup is BackupHandler.process then backup (backup §2.2): the
// checks in FE's order, then a PENDING job, logged.
func (c *cluster) submitBackup(b *backupStmt) *sqlError {
	timeout, ttl, perr := c.backupProperties(b)
	if perr != nil {
		return perr
	}
	if c.opts.SharedData {
		return sharedDataRefused
	}
	r := c.repoNamed(b.repo)
	if r == nil {
		return ddlError("Repository %s does not exist", b.repo)
	}
	d := c.db(b.db)
	if d == nil {
		return unknownDB(b.db)
	}
	if c.bk.locked {
		return lockBusy
	}
	if j := c.bk.jobs[b.db]; j != nil && !j.isDone() {
		return ddlError("Can only run one backup or restore job of a database at same time")
	}
	if r.readOnly {
		return ddlError("Repository %s is read only", r.name)
	}
	var tables []snapTable
	if len(b.objects) == 0 || b.allTables {
		// No ON: every table of the database (the analyzer's expansion,
		// backup §2.1).
		for _, t := range d.tables {
			tables = append(tables, snapTable{name: t.name, tablets: len(t.tablets), replicationNum: t.replicationNum})
		}
	}
	for _, ref := range b.objects {
		t := d.table(ref.name)
		if t == nil {
			return unknownTable(ref.name)
		}
		for _, p := range ref.partitions {
			// A simulated table has one partition, named as the table
			// (model.go: CreateTable).
			if p != t.name {
				return ddlError("Unknown partition %s in table%s", p, ref.name)
			}
		}
		if !slices.ContainsFunc(tables, func(s snapTable) bool { return s.name == t.name }) {
			tables = append(tables, snapTable{name: t.name, tablets: len(t.tablets), replicationNum: t.replicationNum})
		}
	}
	labels, msg := c.store().list(r.location, r.name)
	if msg != "" {
		return ddlError("%s", msg)
	}
	if slices.Contains(labels, b.label) {
		return ddlError("Snapshot with name '%s' already exist in repository", b.label)
	}
	j := &bjob{id: c.newID(), state: jsPending, label: b.label, db: b.db, repo: r.name, objs: b.objects, tables: tables,
		created: c.now, timeout: timeout, status: jobStatusOK, ttl: ttl}
	j.log()
	c.bk.jobs[b.db] = j
	c.journal++
	return nil
}

// restoreProperties is BackupRestoreAnalyzer.visitRestoreStatement (backup §4).
func restoreProperties(b *backupStmt) (ts string, replication int, allowLoad bool, timeout time.Duration, err *sqlError) {
	replication, timeout = 3, defaultBackupTimeout
	var unknown []string
	for _, k := range b.propOrder {
		v := b.props[k]
		switch k {
		case "backup_timestamp":
			ts = v
		case "replication_num":
			n, e := strconv.Atoi(v)
			if e != nil || n < 1 {
				// UNVERIFIED: the analyzer's text.
				return "", 0, false, 0, analyzeError("Invalid replication num: %s", v)
			}
			replication = n
		case "allow_load":
			switch strings.ToLower(v) {
			case "true":
				allowLoad = true
			case "false":
			default:
				return "", 0, false, 0, analyzeError("Invalid allow load value: %s", v)
			}
		case "timeout":
			n, e := strconv.ParseInt(v, 10, 64)
			if e != nil {
				return "", 0, false, 0, analyzeError("Invalid timeout format: %s", v)
			}
			timeout = time.Duration(n) * time.Second
		case "meta_version", "starrocks_meta_version":
		default:
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		// UNVERIFIED: the text, by analogy with BACKUP's.
		return "", 0, false, 0, analyzeError("Unknown restore job properties: [%s]", strings.Join(unknown, ", "))
	}
	if ts == "" {
		// UNVERIFIED: the text for the required property missing.
		return "", 0, false, 0, analyzeError("Missing backup_timestamp property")
	}
	return ts, replication, allowLoad, timeout, nil
}

// submitRestore is BackupHandler.process then restore (backup §4).
func (c *cluster) submitRestore(b *backupStmt) *sqlError {
	ts, replication, allowLoad, timeout, perr := restoreProperties(b)
	if perr != nil {
		return perr
	}
	if c.opts.SharedData {
		return sharedDataRefused
	}
	r := c.repoNamed(b.repo)
	if r == nil {
		return ddlError("Repository %s does not exist", b.repo)
	}
	target := b.db
	if b.asDB != "" {
		target = b.asDB
	}
	if c.db(target) == nil && c.opts.Version < "3.4" {
		// @014f91e2 (no 3.4 forms) refuses an unknown database; the
		// newest copy creates it (backup §4). UNVERIFIED: the release that
		// changed it; the simulation gives the change to 3.4.
		return unknownDB(target)
	}
	if c.bk.locked {
		return lockBusy
	}
	if j := c.bk.jobs[target]; j != nil && !j.isDone() {
		return ddlError("Can only run one backup or restore job of a database at same time")
	}
	info, msg := c.store().info(r.location, r.name, b.label, ts)
	if msg != "" {
		return ddlError("Failed to get info of snapshot '%s' because: %s. Maybe specified wrong backup timestamp", b.label, msg)
	}
	if b.newForm && info.db != b.db {
		return ddlError("target database: %s is not existed in snapshot", b.db)
	}
	tables := info.tables
	if len(b.objects) > 0 && !b.allTables {
		tables = nil
		for _, ref := range b.objects {
			i := slices.IndexFunc(info.tables, func(t snapTable) bool { return t.name == ref.name })
			if i < 0 {
				return ddlError("Table %s does not exist in snapshot %s", ref.name, b.label)
			}
			t := info.tables[i]
			if ref.alias != "" {
				t.name = ref.alias
			}
			tables = append(tables, t)
		}
	}
	if c.db(target) == nil {
		c.dbs = append(c.dbs, &database{id: c.newID(), name: target})
	}
	j := &bjob{restore: true, id: c.newID(), state: jsPending, label: b.label, db: target, repo: r.name, objs: b.objects, tables: tables,
		created: c.now, timeout: timeout, status: jobStatusOK, timestamp: ts, allowLoad: allowLoad, replication: replication, target: target}
	j.log()
	c.bk.jobs[target] = j
	c.journal++
	return nil
}

// cancel is BackupHandler.cancel (backup §2.5): the texts' quirk, "No
// restore is currently running" beside "No backup job is currently
// running", is FE's string concatenation.
func (c *cluster) cancel(restore bool, db string) *sqlError {
	if db == "" {
		return noDB
	}
	if c.db(db) == nil {
		return unknownDB(db)
	}
	j := c.bk.jobs[db]
	if j == nil || j.restore != restore {
		if restore {
			return ddlError("No restore is currently running")
		}
		return ddlError("No backup job is currently running")
	}
	if j.isDone() {
		return ddlError("Failed to cancel job: Job with label %s can not be cancelled. state: %s", j.label, j.state)
	}
	st := status("COMMON_ERROR", "user cancelled")
	if restore {
		// RestoreJob.cancel: it refuses no state short of done, COMMIT
		// and COMMITTING included (backup §4: "the data may be corrupted").
		st = status("COMMON_ERROR", "user cancelled, current state: "+j.state)
	}
	c.cancelJob(j, st, c.now)
	return nil
}

// jobRows is SHOW BACKUP (14 columns, BackupJob.getInfo) or SHOW RESTORE
// (18, RestoreJob.getInfo) of the last job of db, when it is of that kind
// (backup §2.4, §4). A follower shows what its edit log replayed: the
// logged state and JobId (backup §7).
func (c *cluster) jobRows(restore bool, db string) (*result, *sqlError) {
	res := &result{columns: []string{"JobId", "SnapshotName", "DbName", "State", "BackupObjs", "CreateTime", "SnapshotFinishedTime",
		"UploadFinishedTime", "FinishedTime", "UnfinishedTasks", "Progress", "TaskErrMsg", "Status", "Timeout"}}
	if restore {
		res.columns = []string{"JobId", "Label", "Timestamp", "DbName", "State", "AllowLoad", "ReplicationNum", "RestoreObjs", "CreateTime",
			"MetaPreparedTime", "SnapshotFinishedTime", "DownloadFinishedTime", "FinishedTime", "UnfinishedTasks", "Progress", "TaskErrMsg", "Status", "Timeout"}
	}
	if db == "" {
		return nil, noDB
	}
	if c.db(db) == nil {
		return nil, unknownDB(db)
	}
	j := c.bk.jobs[db]
	if j == nil || j.restore != restore {
		return res, nil
	}
	id, state := j.id, j.state
	tasks, showProgress := j.tasks, j.showProgress
	if c.replay {
		id, state = j.loggedID, j.logged
		tasks, showProgress = nil, false
	}
	var unfinished, progress, errs []string
	for _, t := range tasks {
		if t.done < float64(t.tablets) {
			unfinished = append(unfinished, fmt.Sprintf("%d=%d", t.id, t.be))
		}
		if showProgress {
			progress = append(progress, fmt.Sprintf("[%d: %d/%d]", t.id, int(t.done), t.tablets))
		}
		if t.err != "" {
			errs = append(errs, fmt.Sprintf("[%d: %s]", t.id, t.err))
		}
	}
	objs := make([]string, 0, len(j.tables))
	for _, t := range j.tables {
		// UNVERIFIED: TableRef.toString's text (backup §2.4); the
		// simulation shows the table name.
		objs = append(objs, "["+t.name+"]")
	}
	timeout := strconv.FormatInt(int64(j.timeout/time.Second), 10)
	if !restore {
		res.rows = [][]string{{strconv.FormatInt(id, 10), j.label, j.db, state, strings.Join(objs, ", "), timeString(j.created), timeString(j.snapshotDone),
			timeString(j.uploadDone), timeString(j.finished), strings.Join(unfinished, ", "), strings.Join(progress, ", "), strings.Join(errs, ", "), j.status, timeout}}
		return res, nil
	}
	res.rows = [][]string{{strconv.FormatInt(id, 10), j.label, j.timestamp, j.db, state, boolString(j.allowLoad), strconv.Itoa(j.replication),
		strings.Join(objs, ", "), timeString(j.created), timeString(j.metaPrepared), timeString(j.snapshotDone), timeString(j.downloadDone),
		timeString(j.finished), strings.Join(unfinished, ", "), strings.Join(progress, ", "), strings.Join(errs, ", "), j.status, timeout}}
	return res, nil
}

// snapshotRows is SHOW SNAPSHOT (Repository.getSnapshotInfos; backup §3):
// it reads the store each time, from the FE the client reached. 4.2 adds
// ClusterId, FinishTime, TTL and ExpireTime; UNVERIFIED: their positions,
// here after Status.
func (c *cluster) snapshotRows(b *backupStmt) (*result, *sqlError) {
	r := c.repoNamed(b.repo)
	if r == nil {
		// UNVERIFIED: the analyzer's text for an unknown repository here.
		return nil, ddlError("Repository %s does not exist", b.repo)
	}
	v42 := c.opts.Version >= "4.2"
	if b.hasTimestamp && b.hasSnapshot {
		res := &result{columns: []string{"Snapshot", "Timestamp", "Database", "Details", "Status"}}
		if v42 {
			res.columns = append(res.columns, "ClusterId", "FinishTime", "TTL", "ExpireTime")
		}
		info, msg := c.store().info(r.location, r.name, b.snapshot, b.timestamp)
		row := []string{b.snapshot, b.timestamp, "NULL", "NULL", "Failed to get info: " + msg}
		if msg == "" {
			var names []string
			for _, t := range info.tables {
				names = append(names, strconv.Quote(t.name))
			}
			// UNVERIFIED: BackupJobInfo.getBrief's JSON; the simulation
			// lists the tables.
			row = []string{b.snapshot, b.timestamp, info.db, `{"tables":[` + strings.Join(names, ",") + `]}`, "OK"}
		}
		if v42 {
			row = append(row, c.infoExtras(info)...)
		}
		res.rows = [][]string{row}
		return res, nil
	}
	res := &result{columns: []string{"Snapshot", "Timestamp", "Status"}}
	labels := []string{b.snapshot}
	if !b.hasSnapshot {
		var msg string
		if labels, msg = c.store().list(r.location, r.name); msg != "" {
			return nil, ddlError("Failed to list snapshot in repo: %s, err: %s", r.name, msg)
		}
	}
	for _, label := range labels {
		tss, msg := c.store().infoTimestamps(r.location, r.name, label)
		switch {
		case msg != "":
			res.rows = append(res.rows, []string{label, "NULL", "ERROR: Failed to get info: " + msg})
		case len(tss) == 0:
			res.rows = append(res.rows, []string{label, "", "ERROR: no snapshot"})
		default:
			res.rows = append(res.rows, []string{label, strings.Join(tss, "\n"), "OK"})
		}
	}
	return res, nil
}

func (c *cluster) infoExtras(info *snapshotInfo) []string {
	if info == nil {
		return []string{"NULL", "NULL", "NULL", "NULL"}
	}
	id, ttl, expire := "NULL", "NULL", "NULL"
	if info.clusterID != 0 {
		id = strconv.Itoa(info.clusterID)
	}
	if info.ttl != "" {
		ttl, expire = info.ttl, timeString(info.expire)
	}
	return []string{id, timeString(info.finish), ttl, expire}
}

// dropSnapshot is 4.2's BackupHandler.dropSnapshot (backup §5): without
// FORCE only this cluster's own snapshots go.
func (c *cluster) dropSnapshot(b *backupStmt) *sqlError {
	r := c.repoNamed(b.repo)
	if r == nil {
		return ddlError("Repository does not exist: %s", b.repo)
	}
	if r.readOnly {
		return ddlError("Repository %s is read only", r.name)
	}
	labels, msg := c.store().list(r.location, r.name)
	if msg != "" {
		return ddlError("Failed to list snapshots in repository %s: %s", r.name, msg)
	}
	if !slices.Contains(labels, b.label) {
		return ddlError("Snapshot does not exist in repository %s: %s", r.name, b.label)
	}
	switch c.snapshotInUse(r.name, b.label) {
	case "backup":
		return ddlError("Can not drop snapshot %s: a backup is writing it", b.label)
	case "restore":
		return ddlError("Can not drop snapshot %s: a restore is reading it", b.label)
	}
	if !b.force {
		owner := 0
		for _, info := range c.store().snapshotInfos(r.location, r.name, b.label) {
			owner = info.clusterID
		}
		switch {
		case owner == 0:
			return ddlError("Snapshot %s in repository %s does not record which cluster created it, and this cluster is %d. Use DROP SNAPSHOT ... FORCE to drop it anyway", b.label, r.name, c.clusterID())
		case owner != c.clusterID():
			// UNVERIFIED: the words between "created by cluster <id>" and
			// the FORCE advice, taken from the sentence above.
			return ddlError("Snapshot %s in repository %s was created by cluster %d, and this cluster is %d. Use DROP SNAPSHOT ... FORCE to drop it anyway", b.label, r.name, owner, c.clusterID())
		}
	}
	if msg := c.store().remove(r.location, r.name, b.label); msg != "" {
		return ddlError("Failed to delete snapshot %s in repository %s: %s", b.label, r.name, msg)
	}
	return nil
}
