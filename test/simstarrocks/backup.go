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
	"maps"
	"slices"
	"time"
)

// The backup and restore jobs, as FE's BackupHandler runs them (backup §2,
// §4, §7; backup/BackupHandler.java @014f91e2, BackupJob.java and
// RestoreJob.java, undated copies read through the search tool).
//
// BackupHandler is a daemon of the leader that runs every job once every
// 3 s (super("backupHandler", 3000L)); each run does one step of the
// job's state machine. It keeps the last job of each database, backup or
// restore ("We only save the last backup/restore job of a database"), and
// drops a finished or cancelled one after history_job_keep_max_second.
//
// What a BE does (a snapshot, an upload, a download, a directory move) is
// simulated by speed: a snapshot task ends at the next run while its BE's
// process runs; an upload or download moves BackupTabletTime or
// RestoreTabletTime per tablet, and only while the BE runs and the store
// answers. No source gives these speeds: they are the simulation's, short
// by default, and tests set them long to have time to act mid-job.

// Defaults of the backup model.
const (
	// backupInterval: BackupHandler's daemon period (3000 ms).
	backupInterval = 3 * time.Second
	// defaultHistoryJobKeep: history_job_keep_max_second, 7 days (backup §2.4).
	defaultHistoryJobKeep = 7 * 24 * time.Hour
	// defaultBackupTimeout: backup_job_default_timeout_ms; the docs say
	// 86400 s (backup §2.1).
	defaultBackupTimeout = 24 * time.Hour
	// defaultTabletTime: the simulation's upload and download speed.
	defaultTabletTime = 100 * time.Millisecond
	// defaultClusterSnapshotInterval:
	// automated_cluster_snapshot_interval_seconds, 600 (backup §9).
	defaultClusterSnapshotInterval = 600 * time.Second
	// builtinStorageVolume is the default storage volume of a shared-data
	// cluster (StorageVolumeMgr's builtin_storage_volume).
	builtinStorageVolume = "builtin_storage_volume"
)

// Job states (BackupJob.BackupJobState, RestoreJob.RestoreJobState; backup §2.3, §4).
const (
	jsPending        = "PENDING"
	jsSnapshoting    = "SNAPSHOTING"
	jsUploadSnapshot = "UPLOAD_SNAPSHOT"
	jsUploading      = "UPLOADING"
	jsSaveMeta       = "SAVE_META"
	jsUploadInfo     = "UPLOAD_INFO"
	jsDownload       = "DOWNLOAD"
	jsDownloading    = "DOWNLOADING"
	jsCommit         = "COMMIT"
	jsCommitting     = "COMMITTING"
	jsFinished       = "FINISHED"
	jsCancelled      = "CANCELLED"
)

// jobStatusOK is Status.OK.toString (backup/Status.java @161fd09e).
const jobStatusOK = "[OK]"

// status renders Status.toString: "[<ERRCODE>, msg: <text>]".
func status(code, msg string) string { return "[" + code + ", msg: " + msg + "]" }

// repository is one repository FE knows (backup §1).
type repository struct {
	id         int64
	name       string
	location   string
	readOnly   bool
	broker     string
	createTime time.Time
	// errMsg is the last ping's: "" (NULL) when it succeeded.
	errMsg string
}

// bjob is a backup or restore job.
type bjob struct {
	restore bool
	// id is the JobId; logged is the state the edit log has, and loggedID
	// the JobId it has: what a new leader, or a follower, knows.
	id, loggedID  int64
	state, logged string
	label, db     string
	repo          string
	objs          []tableRef
	tables        []snapTable
	created       time.Time
	// backup: snapshot and upload ends; restore: meta prepared, snapshot, download.
	snapshotDone, uploadDone, metaPrepared, downloadDone, finished time.Time
	timeout                                                        time.Duration
	status                                                         string
	tasks                                                          []*btask
	showProgress                                                   bool
	lastRun                                                        time.Time
	ttl                                                            string
	// restore
	timestamp   string
	allowLoad   bool
	replication int
	target      string // the database restored into
	created2    []string
	overwrites  []string
}

// btask is an agent task: its BE and, for uploads and downloads, its tablets.
type btask struct {
	id      int64
	be      int64
	tablets int
	done    float64
	err     string
}

func (j *bjob) isDone() bool { return j.state == jsFinished || j.state == jsCancelled }

// log records the current state in the edit log.
func (j *bjob) log() { j.logged, j.loggedID = j.state, j.id }

// backupModel is what FE keeps of backups: the repositories, the last
// job of each database, the submission lock, the automated cluster
// snapshot.
type backupModel struct {
	repos []*repository
	jobs  map[string]*bjob
	next  time.Time
	// leader is the FE the jobs last ran on: a new one resumes them from
	// the edit log (backup §7).
	leader string
	// locked is BackupHandler's seqlock held by another submission
	// (HoldSubmitLock).
	locked bool
	// cancelledPastCommit counts restores cancelled at or after COMMIT
	// that overwrote data: the oracle of the point of no return.
	cancelledPastCommit int
	snap                clusterSnapshots
}

func (c *cluster) store() *ObjectStore { return c.objects.get() }

func (c *cluster) repoNamed(name string) *repository {
	for _, r := range c.bk.repos {
		if r.name == name {
			return r
		}
	}
	return nil
}

// backupRounds runs BackupHandler's daemon at each of its times up to t:
// on the leader only; a follower's replayed state does not run jobs.
func (c *cluster) backupRounds(t time.Time) {
	if c.replay {
		return
	}
	if c.leader == nil {
		return
	}
	if c.bk.leader != "" && c.bk.leader != c.leader.host {
		c.failover()
	}
	c.bk.leader = c.leader.host
	for _, r := range c.bk.repos {
		// RepositoryMgr pings each repository (backup §1.3). UNVERIFIED:
		// its period; the simulation pings at BackupHandler's.
		if msg := c.store().ping(r.location, r.name); msg != "" {
			r.errMsg = timeString(t) + ": " + msg
		} else {
			r.errMsg = ""
		}
	}
	for _, db := range slices.Sorted(maps.Keys(c.bk.jobs)) {
		j := c.bk.jobs[db]
		if j.isDone() {
			if t.Sub(j.finished) > c.opts.HistoryJobKeep {
				delete(c.bk.jobs, db) // removeOldJobs
			}
			continue
		}
		if j.restore {
			c.runRestore(j, t)
		} else {
			c.runBackup(j, t)
		}
		j.lastRun = t
	}
	if c.opts.Version >= "4.2" {
		c.cleanExpiredSnapshots(t)
	}
	c.clusterSnapshotRound(t)
}

// failover is a new leader taking over the jobs from the edit log: the
// states FE does not log fall back (SNAPSHOTING to PENDING, whose run
// takes a new JobId; UPLOADING to UPLOAD_SNAPSHOT, whose uploads are
// sent again), and the tasks are made again (backup §7). A restore's
// unlogged SNAPSHOTING and DOWNLOADING fall back likewise (inferred from
// the same rule: RestoreJob logs PENDING's end at DOWNLOAD).
func (c *cluster) failover() {
	for _, j := range c.bk.jobs {
		if j.isDone() {
			continue
		}
		j.state, j.id = j.logged, j.loggedID
		j.tasks = nil
		j.showProgress = false
	}
}

// backupTimeout: a job is cancelled once its timeout passed since its creation.
func (j *bjob) timedOut(t time.Time) bool { return t.Sub(j.created) > j.timeout }

// runBackup is BackupJob.run: one step.
func (c *cluster) runBackup(j *bjob, t time.Time) {
	if j.timedOut(t) {
		// "status = Status(TIMEOUT, "")" (backup §2.3).
		c.cancelJob(j, status("TIMEOUT", ""), t)
		return
	}
	r := c.repoNamed(j.repo)
	switch j.state {
	case jsPending:
		d := c.db(j.db)
		if d == nil {
			c.cancelJob(j, status("NOT_FOUND", fmt.Sprintf("database %d does not exist", 0)), t)
			return
		}
		// checkBackupTables: a table dropped since the submission.
		for _, tb := range j.tables {
			if d.table(tb.name) == nil {
				c.cancelJob(j, status("NOT_FOUND", "table "+tb.name+" does not exist"), t)
				return
			}
		}
		// prepareAndSendSnapshotTask: "jobId = globalStateMgr.getNextId()".
		j.id = c.newID()
		j.tasks = nil
		for _, tb := range j.tables {
			for _, tablet := range d.table(tb.name).tablets {
				be := c.snapshotReplica(tablet)
				if be == nil {
					c.cancelJob(j, status("COMMON_ERROR", fmt.Sprintf("failed to choose replica to make snapshot for tablet %d. visible version: %d", tablet.id, 1)), t)
					return
				}
				j.tasks = append(j.tasks, &btask{id: c.newID(), be: be.id, tablets: 1})
			}
		}
		// "DO NOT write log here, state will be reset to PENDING after FE restart".
		j.state = jsSnapshoting
	case jsSnapshoting:
		if c.tasksRun(j, 0, false, t) {
			j.snapshotDone = t
			j.state = jsUploadSnapshot
			j.log()
		}
	case jsUploadSnapshot:
		c.tasksPerBE(j)
		j.showProgress = true
		// "upload tasks will be resend after FE crashed": not logged.
		j.state = jsUploading
	case jsUploading:
		if c.tasksRun(j, c.opts.BackupTabletTime, true, t) {
			j.uploadDone = t
			j.showProgress = false
			j.state = jsSaveMeta
			j.log()
		}
	case jsSaveMeta:
		j.state = jsUploadInfo
		j.log()
	case jsUploadInfo:
		// "we don't want to cancel the job if we already in state
		// UPLOAD_INFO ... just retry it until timeout" (backup §2.3).
		if r == nil {
			return
		}
		ts := infoTimestamp(j.created)
		info := &snapshotInfo{db: j.db, tables: j.tables, clusterID: c.clusterID(), finish: t, ttl: j.ttl}
		if j.ttl != "" {
			info.expire = addTTL(t, j.ttl)
		}
		if msg := c.store().write(r.location, r.name, j.label, true, ts, info, t); msg != "" {
			// UNVERIFIED: whether FE shows the retried error in Status
			// meanwhile; the simulation does, and clears it on success.
			j.status = status("COMMON_ERROR", msg)
			return
		}
		j.status = jobStatusOK
		j.finished = t
		j.state = jsFinished
		j.log()
	}
}

// infoTimestampFormat is BackupJob.TIMESTAMP_FORMAT, yyyy-MM-dd-HH-mm-ss-SSS (backup §3).
const infoTimestampFormat = "2006-01-02-15-04-05.000"

// infoTimestamp renders a job's create time as its info file names it.
func infoTimestamp(t time.Time) string {
	s := t.UTC().Format(infoTimestampFormat)
	return s[:len(s)-4] + "-" + s[len(s)-3:]
}

// tasksRun moves the job's tasks on by what their BEs did since the last
// run, and reports whether all are done. per is the time per tablet (0:
// a task ends at the next run); store tasks need the repository to answer.
func (c *cluster) tasksRun(j *bjob, per time.Duration, store bool, t time.Time) bool {
	dt := t.Sub(j.lastRun)
	if j.lastRun.IsZero() || dt < 0 {
		dt = backupInterval
	}
	r := c.repoNamed(j.repo)
	all := true
	for _, task := range j.tasks {
		if task.done >= float64(task.tablets) {
			continue
		}
		be := c.backendByID(task.be)
		if be == nil || !be.running {
			// A BE that does not run reports nothing: the task waits, and
			// the job with it, until its BE is back or the timeout
			// (backup §7, inferred).
			all = false
			continue
		}
		if store {
			var msg string
			switch {
			case r == nil:
				msg = "repository " + j.repo + " is gone"
			case j.restore:
				_, msg = c.store().list(r.location, r.name)
			default:
				msg = c.store().write(r.location, r.name, j.label, false, "", nil, t)
			}
			if msg != "" {
				// finishSnapshotUploadTask: the failure goes to TaskErrMsg and
				// the task stays unfinished (backup §2.3).
				task.err = msg
				all = false
				continue
			}
			task.err = ""
		}
		if per <= 0 {
			task.done = float64(task.tablets)
		} else {
			task.done = min(float64(task.tablets), task.done+dt.Seconds()/per.Seconds())
		}
		if task.done < float64(task.tablets) {
			all = false
		}
	}
	return all
}

// snapshotReplica is the replica a snapshot is made on: the lowest BE id
// among the replicas whose BE FE holds alive (backup §2.3, "the lowest-id
// one with version ≥ visible and no failed version").
func (c *cluster) snapshotReplica(tb *tablet) *beNode {
	var best *beNode
	for _, r := range tb.replicas {
		be := c.backendByID(r.beID)
		if be == nil || !be.alive || r.behind || r.cloning() {
			continue
		}
		if best == nil || be.id < best.id {
			best = be
		}
	}
	return best
}

// cancelJob is cancelInternal: CANCELLED, logged, with st as its Status.
// A restore cancelled before COMMIT drops the tables it created and sets
// the existing ones back to NORMAL; at or after COMMIT, what it overwrote
// "may be corrupted and inaccessible" (backup §4): the oracle counts it.
func (c *cluster) cancelJob(j *bjob, st string, t time.Time) {
	if j.restore {
		past := j.state == jsCommit || j.state == jsCommitting
		if past && len(j.overwrites) > 0 {
			c.bk.cancelledPastCommit++
		}
		if d := c.db(j.target); d != nil {
			for _, tb := range d.tables {
				if tb.restoring == j.label {
					tb.restoring = ""
				}
			}
			if !past {
				for _, name := range j.created2 {
					c.dropTable(j.target, name, true)
				}
			}
		}
	}
	j.status = st
	j.state = jsCancelled
	j.finished = t
	j.tasks = nil
	j.showProgress = false
	j.log()
}

// runRestore is RestoreJob.run: one step.
func (c *cluster) runRestore(j *bjob, t time.Time) {
	if j.timedOut(t) {
		c.cancelJob(j, status("TIMEOUT", "restore job with label: "+j.label+"  timeout."), t)
		return
	}
	switch j.state {
	case jsPending:
		// checkAndPrepareMeta: every existing table must be NORMAL; it is
		// set to RESTORE; missing tables are created (backup §4).
		d := c.db(j.target)
		if d == nil {
			c.dbs = append(c.dbs, &database{id: c.newID(), name: j.target})
			d = c.db(j.target)
		}
		j.created2, j.overwrites = nil, nil
		for _, tb := range j.tables {
			if ex := d.table(tb.name); ex != nil {
				if ex.restoring != "" {
					c.cancelJob(j, status("COMMON_ERROR", "Table "+tb.name+"'s state is not NORMAL: RESTORE"), t)
					return
				}
				j.overwrites = append(j.overwrites, tb.name)
			}
		}
		for _, tb := range j.tables {
			if d.table(tb.name) == nil {
				if err := c.createTable(j.target, tb.name, j.replication, tb.tablets); err != nil {
					// UNVERIFIED: FE's text when it cannot place the replicas.
					c.cancelJob(j, status("COMMON_ERROR", err.Error()), t)
					return
				}
				j.created2 = append(j.created2, tb.name)
			}
			d.table(tb.name).restoring = j.label
		}
		j.metaPrepared = t
		j.tasks = nil
		for _, tb := range j.tables {
			for _, tablet := range d.table(tb.name).tablets {
				for _, r := range tablet.replicas {
					j.tasks = append(j.tasks, &btask{id: c.newID(), be: r.beID, tablets: 1})
				}
			}
		}
		j.state = jsSnapshoting
	case jsSnapshoting:
		if c.tasksRun(j, 0, false, t) {
			j.snapshotDone = t
			j.state = jsDownload
			j.log()
		}
	case jsDownload:
		c.tasksPerBE(j)
		j.showProgress = true
		j.state = jsDownloading
	case jsDownloading:
		if c.tasksRun(j, c.opts.RestoreTabletTime, true, t) {
			j.downloadDone = t
			j.showProgress = false
			j.state = jsCommit
			j.log()
		}
	case jsCommit:
		for _, task := range j.tasks {
			task.done = 0
		}
		j.state = jsCommitting
		j.log()
	case jsCommitting:
		if c.tasksRun(j, 0, false, t) {
			if d := c.db(j.target); d != nil {
				for _, tb := range d.tables {
					if tb.restoring == j.label {
						tb.restoring = ""
						tb.restoredFrom = j.label
					}
				}
			}
			j.finished = t
			j.state = jsFinished
			j.tasks = nil
			j.log()
		}
	}
}

// cleanExpiredSnapshots is 4.2's leader daemon: a snapshot whose info file
// names this cluster and whose expiry passed is deleted, except in
// read-only repositories and while a job uses it (backup §5).
func (c *cluster) cleanExpiredSnapshots(t time.Time) {
	for _, r := range c.bk.repos {
		if r.readOnly {
			continue
		}
		labels, msg := c.store().list(r.location, r.name)
		if msg != "" {
			continue
		}
		for _, label := range labels {
			if c.snapshotInUse(r.name, label) != "" {
				continue
			}
			for _, info := range c.store().snapshotInfos(r.location, r.name, label) {
				if info.clusterID == c.clusterID() && !info.expire.IsZero() && t.After(info.expire) {
					c.store().remove(r.location, r.name, label)
					break
				}
			}
		}
	}
}

// snapshotInUse says which kind of unfinished job uses a snapshot: "backup", "restore" or "".
func (c *cluster) snapshotInUse(repo, label string) string {
	for _, j := range c.bk.jobs {
		if !j.isDone() && j.repo == repo && j.label == label {
			if j.restore {
				return "restore"
			}
			return "backup"
		}
	}
	return ""
}

// addTTL adds a ttl such as "7 DAY" to t as a calendar period (backup §5:
// "finish time + ttl, added as a calendar period in FE's zone").
func addTTL(t time.Time, ttl string) time.Time {
	n, unit, ok := parseTTL(ttl)
	if !ok {
		return time.Time{}
	}
	switch unit {
	case "SECOND":
		return t.Add(time.Duration(n) * time.Second)
	case "MINUTE":
		return t.Add(time.Duration(n) * time.Minute)
	case "HOUR":
		return t.Add(time.Duration(n) * time.Hour)
	case "DAY":
		return t.AddDate(0, 0, n)
	case "WEEK":
		return t.AddDate(0, 0, 7*n)
	case "MONTH":
		return t.AddDate(0, n, 0)
	case "YEAR":
		return t.AddDate(n, 0, 0)
	}
	return time.Time{}
}

// tasksPerBE turns a job's per-tablet snapshot tasks into one upload (or
// download) task per BE, with that BE's tablets.
func (c *cluster) tasksPerBE(j *bjob) {
	perBE := map[int64]int{}
	for _, task := range j.tasks {
		perBE[task.be] += task.tablets
	}
	j.tasks = nil
	for _, be := range slices.Sorted(maps.Keys(perBE)) {
		j.tasks = append(j.tasks, &btask{id: c.newID(), be: be, tablets: perBE[be]})
	}
}
