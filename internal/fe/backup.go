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

package fe

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Backup, restore and the automated cluster snapshot, as StarRocks' FE
// takes them. The grammar and the answers are those of the backup facts
// sheet (starrocks-backup.md in the upstream reference, "backup §N" below) and
// of FE's source it cites (backup/BackupHandler.java @014f91e2,
// BackupJob.java, RestoreJob.java, Repository.java @1085f5e4). Every
// statement quotes its identifiers and escapes its literals.

// The backup statements are Statements as the cluster's are
// (statements.go): each sends itself through a client of the door.
var (
	_ Statement = CreateRepository{}
	_ Statement = DropRepository{}
	_ Statement = Backup{}
	_ Statement = Restore{}
	_ Statement = CancelBackup{}
	_ Statement = CancelRestore{}
	_ Statement = DropSnapshot{}
	_ Statement = CreateDatabase{}
	_ Statement = SetClusterSnapshot{}
)

// TableRef is one table of a BACKUP or RESTORE ON list: its partitions,
// and in a restore the name it is restored as.
type TableRef struct {
	Name       string
	Partitions []string
	As         string
}

// Repository is what CREATE REPOSITORY says (backup §1.1): the name, the
// location passed as is (s3a:// for AWS and GCS, s3:// for MinIO), read
// only or not, broker-less, and the store's properties, credentials
// among them.
type Repository struct {
	Name, Location string
	ReadOnly       bool
	Properties     map[string]string
}

// secretProperty says whether a repository property holds a secret: its
// value is never logged, nor put in an error or a status.
func secretProperty(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"secret", "password", "access_key", "access.key", "accesskey", "secretid", "secretkey", "userinfo", "shared_key", "sas_token", "token"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// sql renders the statement; redact replaces every secret's value.
func (r Repository) sql(redact bool) string {
	var b strings.Builder
	b.WriteString("CREATE ")
	if r.ReadOnly {
		b.WriteString("READ ONLY ")
	}
	// Broker-less: WITH BROKER directly followed by ON LOCATION, as every
	// current docs example (backup §1.1).
	b.WriteString("REPOSITORY " + QuoteIdentifier(r.Name) + " WITH BROKER ON LOCATION " + QuoteString(r.Location))
	if len(r.Properties) > 0 {
		keys := make([]string, 0, len(r.Properties))
		for k := range r.Properties {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			v := r.Properties[k]
			if redact && secretProperty(k) {
				v = "***"
			}
			parts[i] = QuoteString(k) + " = " + QuoteString(v)
		}
		b.WriteString(" PROPERTIES (" + strings.Join(parts, ", ") + ")")
	}
	return b.String()
}

// Redacted is the statement as it may be shown: secrets replaced by ***.
func (r Repository) Redacted() string { return r.sql(true) }

// CreateRepository creates a repository, or attaches to one a cluster
// made at the same location: FE reads its __repo_info (backup §1.1). The
// statement carries credentials: an error names the redacted text only.
type CreateRepository struct{ Repository Repository }

// Send sends CREATE [READ ONLY] REPOSITORY.
func (s CreateRepository) Send(ctx context.Context, c *Client) error {
	return c.execShown(ctx, s.Repository.sql(false), s.Repository.Redacted())
}

// DropRepositorySQL removes FE's mapping of a repository; the data stays
// (backup §1.2).
func DropRepositorySQL(name string) string { return "DROP REPOSITORY " + QuoteIdentifier(name) }

// DropRepository drops a repository; one FE no longer has ("Repository
// does not exist", BackupHandler.dropRepository) is no error.
type DropRepository struct{ Name string }

// Send sends DROP REPOSITORY.
func (s DropRepository) Send(ctx context.Context, c *Client) error {
	err := c.exec(ctx, DropRepositorySQL(s.Name))
	if msg, ok := Refusal(err); ok && msg == "Repository does not exist" {
		return c.doneAlready()
	}
	return err
}

// Backup asks FE for a full snapshot of one database, or of some of its
// tables, into a repository, under a label (backup §2.1).
type Backup struct {
	DB, Label, Repository string
	Tables                []TableRef
	// Timeout is the job's; 0 leaves FE's default (1 day).
	Timeout time.Duration
	// TTL is 4.2's "ttl" property ("7 DAY"); empty sends none.
	TTL string
}

// BackupSQL is the statement: the old form, which every release takes
// ("Compatible with the syntax in earlier versions", backup §0).
func BackupSQL(b Backup) string {
	stmt := "BACKUP SNAPSHOT " + QuoteIdentifier(b.DB) + "." + QuoteIdentifier(b.Label) + " TO " + QuoteIdentifier(b.Repository)
	if len(b.Tables) > 0 {
		stmt += " ON (" + tableList(b.Tables, false) + ")"
	}
	props := [][2]string{{"type", "full"}}
	if b.Timeout > 0 {
		props = append(props, [2]string{"timeout", strconv.FormatInt(int64(b.Timeout/time.Second), 10)})
	}
	if b.TTL != "" {
		props = append(props, [2]string{"ttl", b.TTL})
	}
	return stmt + " PROPERTIES (" + propertyList(props) + ")"
}

// Send sends BACKUP SNAPSHOT.
func (b Backup) Send(ctx context.Context, c *Client) error { return c.exec(ctx, BackupSQL(b)) }

func tableList(refs []TableRef, newForm bool) string {
	parts := make([]string, len(refs))
	for i, t := range refs {
		p := QuoteIdentifier(t.Name)
		if newForm {
			p = "TABLE " + p
		}
		if len(t.Partitions) > 0 {
			ps := make([]string, len(t.Partitions))
			for j, n := range t.Partitions {
				ps[j] = QuoteIdentifier(n)
			}
			p += " PARTITION (" + strings.Join(ps, ", ") + ")"
		}
		if t.As != "" && t.As != t.Name {
			p += " AS " + QuoteIdentifier(t.As)
		}
		parts[i] = p
	}
	return strings.Join(parts, ", ")
}

func propertyList(props [][2]string) string {
	parts := make([]string, len(props))
	for i, p := range props {
		parts[i] = QuoteString(p[0]) + " = " + QuoteString(p[1])
	}
	return strings.Join(parts, ", ")
}

// Restore asks FE to restore a snapshot (label and timestamp) of database
// DB into Target (backup §4).
type Restore struct {
	DB, Label, Repository, Timestamp string
	// Target is the database restored into; "" or DB keeps the name. Another
	// name needs the 3.4 form (DATABASE db AS target).
	Target string
	Tables []TableRef
	// ReplicationNum is replication_num; 0 leaves FE's default (3).
	ReplicationNum int
	Timeout        time.Duration
}

// RestoreSQL is the statement: the old form while the database keeps its
// name, the 3.4 form to rename it.
func RestoreSQL(r Restore) string {
	props := [][2]string{{"backup_timestamp", r.Timestamp}}
	if r.ReplicationNum > 0 {
		props = append(props, [2]string{"replication_num", strconv.Itoa(r.ReplicationNum)})
	}
	if r.Timeout > 0 {
		props = append(props, [2]string{"timeout", strconv.FormatInt(int64(r.Timeout/time.Second), 10)})
	}
	var stmt string
	newForm := r.Target != "" && r.Target != r.DB
	if newForm {
		stmt = "RESTORE SNAPSHOT " + QuoteIdentifier(r.Label) + " FROM " + QuoteIdentifier(r.Repository) +
			" DATABASE " + QuoteIdentifier(r.DB) + " AS " + QuoteIdentifier(r.Target)
	} else {
		stmt = "RESTORE SNAPSHOT " + QuoteIdentifier(r.DB) + "." + QuoteIdentifier(r.Label) + " FROM " + QuoteIdentifier(r.Repository)
	}
	if len(r.Tables) > 0 {
		stmt += " ON (" + tableList(r.Tables, newForm) + ")"
	}
	return stmt + " PROPERTIES (" + propertyList(props) + ")"
}

// Send sends RESTORE SNAPSHOT.
func (r Restore) Send(ctx context.Context, c *Client) error { return c.exec(ctx, RestoreSQL(r)) }

// CancelBackup cancels the backup job of DB (backup §2.5).
type CancelBackup struct{ DB string }

// CancelBackupSQL is the statement.
func CancelBackupSQL(db string) string { return "CANCEL BACKUP FROM " + QuoteIdentifier(db) }

// Send sends CANCEL BACKUP.
func (s CancelBackup) Send(ctx context.Context, c *Client) error {
	return c.exec(ctx, CancelBackupSQL(s.DB))
}

// CancelRestore cancels the restore job of DB. FE cancels one in COMMIT or
// COMMITTING as well (RestoreJob.cancel refuses nothing short of done),
// where data "may be corrupted": the caller never sends it past COMMIT.
type CancelRestore struct{ DB string }

// CancelRestoreSQL is the statement.
func CancelRestoreSQL(db string) string { return "CANCEL RESTORE FROM " + QuoteIdentifier(db) }

// Send sends CANCEL RESTORE.
func (s CancelRestore) Send(ctx context.Context, c *Client) error {
	return c.exec(ctx, CancelRestoreSQL(s.DB))
}

// DropSnapshot deletes one snapshot from a repository (4.2, backup §5).
// It has no FORCE: without it FE deletes only this cluster's own
// snapshots, and refuses the others.
type DropSnapshot struct{ Label, Repository string }

// DropSnapshotSQL is the statement, never with FORCE.
func DropSnapshotSQL(label, repo string) string {
	return "DROP SNAPSHOT " + QuoteIdentifier(label) + " ON " + QuoteIdentifier(repo)
}

// Send sends DROP SNAPSHOT; a snapshot no longer there ("Snapshot does not
// exist in repository <repo>: <label>") is no error: a drop whose answer
// was lost, or FE's own ttl cleaner, took it.
func (s DropSnapshot) Send(ctx context.Context, c *Client) error {
	err := c.exec(ctx, DropSnapshotSQL(s.Label, s.Repository))
	if msg, ok := Refusal(err); ok && strings.HasPrefix(msg, "Snapshot does not exist in repository ") {
		return c.doneAlready()
	}
	return err
}

// CreateDatabase makes the database a restore goes into, on FEs before
// 3.4, which refuse a RESTORE into a database they do not have (backup §4).
type CreateDatabase struct{ Name string }

// CreateDatabaseSQL is the statement, IF NOT EXISTS.
func CreateDatabaseSQL(name string) string {
	return "CREATE DATABASE IF NOT EXISTS " + QuoteIdentifier(name)
}

// Send sends CREATE DATABASE IF NOT EXISTS.
func (s CreateDatabase) Send(ctx context.Context, c *Client) error {
	return c.exec(ctx, CreateDatabaseSQL(s.Name))
}

// SetClusterSnapshot turns the automated cluster snapshot of a
// shared-data cluster on, in a storage volume ("" the default one), or off,
// which purges the snapshot (backup §9).
type SetClusterSnapshot struct {
	On            bool
	StorageVolume string
}

// SetClusterSnapshotSQL is the statement.
func SetClusterSnapshotSQL(on bool, volume string) string {
	if !on {
		return "ADMIN SET AUTOMATED CLUSTER SNAPSHOT OFF"
	}
	stmt := "ADMIN SET AUTOMATED CLUSTER SNAPSHOT ON"
	if volume != "" {
		stmt += " STORAGE VOLUME " + QuoteIdentifier(volume)
	}
	return stmt
}

// Send sends ADMIN SET AUTOMATED CLUSTER SNAPSHOT; FE answering that it is
// already so ("Automated snapshot has been turn on", "... has not been
// turn on", ClusterSnapshotAnalyzer) is no error.
func (s SetClusterSnapshot) Send(ctx context.Context, c *Client) error {
	err := c.exec(ctx, SetClusterSnapshotSQL(s.On, s.StorageVolume))
	if msg, ok := Refusal(err); ok && (s.On && strings.Contains(msg, "Automated snapshot has been turn on") ||
		!s.On && strings.Contains(msg, "Automated snapshot has not been turn on")) {
		return c.doneAlready()
	}
	return err
}

// execShown is exec of a statement whose text must not be shown: errors
// name shown instead.
func (c *Client) execShown(ctx context.Context, stmt, shown string) error {
	err := c.exec(ctx, stmt)
	var se *StatementError
	if errors.As(err, &se) {
		se.Statement = shown
	}
	return err
}

// The reads.

// Job is the row of SHOW BACKUP or SHOW RESTORE of one database: FE keeps
// the last job of each database, either kind (backup §2.4).
type Job struct {
	// JobID changes when FE runs PENDING again after a leader change:
	// a job is known by its database and label (backup §2.3).
	JobID, Label, DB, State string
	// Timestamp is a restore's backup_timestamp.
	Timestamp string
	// CreateTime and FinishedTime as FE shows them; zero for NULL.
	CreateTime, FinishedTime time.Time
	// Status is FE's Status column: "[OK]", "[TIMEOUT, msg: ]", ...
	Status     string
	TaskErrMsg string
	Progress   string
}

// Done is FINISHED or CANCELLED.
func (j *Job) Done() bool { return j != nil && (j.State == "FINISHED" || j.State == "CANCELLED") }

// ShowBackupSQL reads a database's last job (ShowRestoreSQL its restore).
func ShowBackupSQL(db string) string { return "SHOW BACKUP FROM " + QuoteIdentifier(db) }

// ShowRestoreSQL reads a database's last job, a restore.
func ShowRestoreSQL(db string) string { return "SHOW RESTORE FROM " + QuoteIdentifier(db) }

// ShowBackup reads the last backup job of db, nil when its last job is
// none or a restore, or db does not exist. It asks the leader
// (forward_to_leader): a follower never shows SNAPSHOTING or UPLOADING and
// may lag (backup §7); whether FE forwards SHOW BACKUP is UNVERIFIED, and
// the caller's phases never go back whatever it answers.
func (c *Client) ShowBackup(ctx context.Context, db string) (*Job, error) {
	return c.showJob(ctx, ShowBackupSQL(db), "snapshotname")
}

// ShowRestore reads the last restore job of db, as ShowBackup.
func (c *Client) ShowRestore(ctx context.Context, db string) (*Job, error) {
	return c.showJob(ctx, ShowRestoreSQL(db), "label")
}

func (c *Client) showJob(ctx context.Context, stmt, labelCol string) (*Job, error) {
	rows, err := c.queryOnLeader(ctx, stmt, labelCol, "state", "status")
	if UnknownDatabase(err) {
		return nil, nil
	}
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	r := rows[0]
	return &Job{JobID: r["jobid"], Label: r[labelCol], DB: r["dbname"], State: r["state"], Timestamp: r["timestamp"],
		CreateTime: feTime(r.null("createtime")), FinishedTime: feTime(r.null("finishedtime")),
		Status: r["status"], TaskErrMsg: r["taskerrmsg"], Progress: r["progress"]}, nil
}

// feTime reads TimeUtils.longToTimeString ("2006-01-02 15:04:05"). FE
// writes it in its own time zone; UNVERIFIED which one a pod's FE has, so
// it is read as UTC, and used for display only.
func feTime(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04:05", s, time.UTC)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Snapshot is what SHOW SNAPSHOT ON repo WHERE SNAPSHOT = label says of
// one snapshot (Repository.getSnapshotInfo, backup §3).
type Snapshot struct {
	Label string
	// Timestamps are its info files' (yyyy-MM-dd-HH-mm-ss-SSS, the backup's create time).
	Timestamps []string
	// Status is "OK", "ERROR: no snapshot" (a directory without an info
	// file: an interrupted backup) or "ERROR: Failed to get info: ...".
	Status string
}

// OK is a snapshot with an info file: a backup that finished.
func (s Snapshot) OK() bool { return s.Status == "OK" }

// ShowSnapshotSQL reads one snapshot of a repository.
func ShowSnapshotSQL(repo, label string) string {
	return "SHOW SNAPSHOT ON " + QuoteIdentifier(repo) + " WHERE SNAPSHOT = " + QuoteString(label)
}

// ShowSnapshot reads one snapshot from the repository itself: the truth of
// "done" that outlives SHOW BACKUP's memory (backup §10). It runs where
// the client connected, and reads the store each time.
func (c *Client) ShowSnapshot(ctx context.Context, repo, label string) (Snapshot, error) {
	rows, err := c.query(ctx, ShowSnapshotSQL(repo, label), "snapshot", "timestamp", "status")
	if err != nil {
		return Snapshot{}, err
	}
	for _, r := range rows {
		if r["snapshot"] != label {
			continue
		}
		s := Snapshot{Label: label, Status: r["status"]}
		for _, ts := range strings.Split(r["timestamp"], "\n") {
			if ts = strings.TrimSpace(ts); ts != "" && !strings.EqualFold(ts, "NULL") {
				s.Timestamps = append(s.Timestamps, ts)
			}
		}
		return s, nil
	}
	return Snapshot{Label: label, Status: "ERROR: no snapshot"}, nil
}

// RepositoryRow is one row of SHOW REPOSITORIES (backup §1.3).
type RepositoryRow struct {
	ID, Name, Location string
	ReadOnly           bool
	// ErrMsg is the last ping's error, "" when it succeeded.
	ErrMsg string
}

// ShowRepositoriesSQL lists the repositories.
const ShowRepositoriesSQL = "SHOW REPOSITORIES"

// ShowRepositories lists the repositories FE knows.
func (c *Client) ShowRepositories(ctx context.Context) ([]RepositoryRow, error) {
	rows, err := c.query(ctx, ShowRepositoriesSQL, "reponame", "location", "isreadonly")
	if err != nil {
		return nil, err
	}
	out := make([]RepositoryRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, RepositoryRow{ID: r["repoid"], Name: r["reponame"], Location: r["location"], ReadOnly: r.bool("isreadonly"), ErrMsg: r.null("errmsg")})
	}
	return out, nil
}

// ShowDatabasesSQL lists the databases.
const ShowDatabasesSQL = "SHOW DATABASES"

// ShowDatabases lists the databases FE has.
func (c *Client) ShowDatabases(ctx context.Context) ([]string, error) {
	rows, err := c.query(ctx, ShowDatabasesSQL, "database")
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r["database"])
	}
	return out, nil
}

// ShowTablesSQL lists a database's tables.
func ShowTablesSQL(db string) string { return "SHOW TABLES FROM " + QuoteIdentifier(db) }

// ShowTables lists the tables of db; nil, and no error, when db does not exist.
func (c *Client) ShowTables(ctx context.Context, db string) ([]string, error) {
	rows, err := c.query(ctx, ShowTablesSQL(db))
	if UnknownDatabase(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		for _, v := range r {
			out = append(out, v)
		}
	}
	return out, nil
}

// ClusterSnapshot is the automated cluster snapshot FE keeps (at most one)
// and the last snapshot job (information_schema.cluster_snapshots and
// cluster_snapshot_jobs, backup §9).
type ClusterSnapshot struct {
	Name, StoragePath, StorageVolume string
	Created                          time.Time
	// LastJobState and LastJobError are the newest job's.
	LastJobState, LastJobError string
	LastJobFinished            time.Time
}

// Statements that read the cluster snapshot.
const (
	SelectClusterSnapshotsSQL    = "SELECT * FROM information_schema.cluster_snapshots"
	SelectClusterSnapshotJobsSQL = "SELECT * FROM information_schema.cluster_snapshot_jobs"
)

// ClusterSnapshots reads the snapshot and the newest job.
func (c *Client) ClusterSnapshots(ctx context.Context) (ClusterSnapshot, error) {
	var out ClusterSnapshot
	rows, err := c.query(ctx, SelectClusterSnapshotsSQL, "snapshot_name")
	if err != nil {
		return out, err
	}
	for _, r := range rows {
		out.Name, out.StoragePath, out.StorageVolume, out.Created = r["snapshot_name"], r["storage_path"], r["storage_volume"], feTime(r.null("created_time"))
	}
	jobs, err := c.query(ctx, SelectClusterSnapshotJobsSQL, "snapshot_name", "state")
	if err != nil {
		return out, err
	}
	for _, r := range jobs {
		// The newest job: the latest created_time, then the last row.
		if t := feTime(r.null("created_time")); out.LastJobState == "" || !t.Before(out.LastJobFinished) {
			out.LastJobState, out.LastJobError, out.LastJobFinished = r["state"], r.null("error_message"), feTime(r.null("finished_time"))
			if out.LastJobFinished.IsZero() {
				out.LastJobFinished = t
			}
		}
	}
	return out, nil
}

// BackupRefusal is what FE's refusal of BACKUP or RESTORE means (backup §2.2, §4).
type BackupRefusal int

const (
	// NotRefused is no refusal of these (no error, no answer, another text).
	NotRefused BackupRefusal = iota
	// DatabaseBusy is "Can only run one backup or restore job of a database
	// at same time": a job of the database is not done, anyone's.
	DatabaseBusy
	// SubmitLocked is "Another backup or restore job is being submitted.
	// Please wait and try again": try again.
	SubmitLocked
	// LabelTaken is "Snapshot with name '<label>' already exist in repository".
	LabelTaken
	// NoSuchDatabase is ERR_BAD_DB_ERROR.
	NoSuchDatabase
	// ReadOnlyRepository is "Repository <repo> is read only".
	ReadOnlyRepository
	// NoSuchRepository is "Repository <repo> does not exist".
	NoSuchRepository
	// WrongSnapshot is RESTORE's "Failed to get info of snapshot ...".
	WrongSnapshot
	// OtherRefusal is any other answer with an error.
	OtherRefusal
)

// ClassifyBackupRefusal reads FE's answer to BACKUP or RESTORE.
func ClassifyBackupRefusal(err error) BackupRefusal {
	if UnknownDatabase(err) {
		return NoSuchDatabase
	}
	msg, ok := Refusal(err)
	if !ok {
		return NotRefused
	}
	switch {
	case strings.Contains(msg, "Can only run one backup or restore job of a database at same time"):
		return DatabaseBusy
	case strings.Contains(msg, "Another backup or restore job is being submitted"):
		return SubmitLocked
	case strings.HasPrefix(msg, "Snapshot with name '") && strings.HasSuffix(msg, "' already exist in repository"):
		return LabelTaken
	case strings.HasPrefix(msg, "Repository ") && strings.HasSuffix(msg, " is read only"):
		return ReadOnlyRepository
	case strings.HasPrefix(msg, "Repository ") && strings.HasSuffix(msg, " does not exist"):
		return NoSuchRepository
	case strings.HasPrefix(msg, "Failed to get info of snapshot "):
		return WrongSnapshot
	}
	return OtherRefusal
}

// errBadDB is ERR_BAD_DB_ERROR's number (1049, "Unknown database '%s'");
// errBadTable ERR_BAD_TABLE_ERROR's (1051, "Unknown table '%s'").
const (
	errBadDB    = 1049
	errBadTable = 1051
)

// PermanentRefusal is FE refusing what the spec says, which asking again
// cannot change (backup §2.1, §2.2, §4): a table or partition FE does not
// have, a property it does not take, a snapshot that is not there. Any
// other refusal (the store's error while FE lists the repository, say) is
// tried again.
func PermanentRefusal(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == errBadTable {
		return true
	}
	msg, ok := Refusal(err)
	if !ok {
		return false
	}
	for _, s := range []string{"Unknown partition ", "Unknown backup job properties", "Unknown restore job properties", "Invalid ",
		"Can not set alias", "can not support backup restore", "Do not support ", "does not exist in snapshot", "is not existed in snapshot",
		"Getting syntax error", "ttl must be"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	// A snapshot's info file that is not there (Repository.download: "Expected
	// one file with path: ... get: 0"), not the store failing to answer.
	return strings.Contains(msg, "Maybe specified wrong backup timestamp") && strings.Contains(msg, "Expected one file with path")
}

// UnknownDatabase is FE's ERR_BAD_DB_ERROR.
func UnknownDatabase(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == errBadDB || strings.HasPrefix(me.Message, "Unknown database"))
}

// SnapshotOwnedElsewhere is 4.2's refusal of DROP SNAPSHOT without FORCE of a
// snapshot another cluster (or an older release) wrote (backup §5).
func SnapshotOwnedElsewhere(err error) (string, bool) {
	msg, ok := Refusal(err)
	if ok && strings.Contains(msg, "Use DROP SNAPSHOT ... FORCE") {
		return msg, true
	}
	return "", false
}

// SnapshotBusy is DROP SNAPSHOT refused while a job writes or reads it: try later.
func SnapshotBusy(err error) bool {
	msg, ok := Refusal(err)
	return ok && strings.HasPrefix(msg, "Can not drop snapshot ") && (strings.HasSuffix(msg, "a backup is writing it") || strings.HasSuffix(msg, "a restore is reading it"))
}

// NothingToCancel is CANCEL's answer that no job of that kind runs, or the
// job is done (backup §2.5).
func NothingToCancel(err error) bool {
	msg, ok := Refusal(err)
	return ok && (msg == "No backup job is currently running" || msg == "No restore is currently running" ||
		strings.Contains(msg, " can not be cancelled. state: "))
}

// String names a refusal for logs.
func (r BackupRefusal) String() string {
	return [...]string{"none", "database busy", "submission locked", "label taken", "no such database", "read-only repository", "no such repository", "wrong snapshot", "other"}[r]
}
