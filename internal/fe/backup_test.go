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
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

func TestBackupStatementsSayWhatFEsGrammarTakes(t *testing.T) {
	repo := Repository{Name: "nightly_s3", Location: "s3a://bucket/sr/", Properties: map[string]string{
		"aws.s3.access_key": "AKIA", "aws.s3.secret_key": "s'cret", "aws.s3.region": "us-east-1"}}
	cases := []struct{ name, got, want string }{
		{"create repository, broker-less, properties sorted", repo.sql(false),
			`CREATE REPOSITORY ` + "`nightly_s3`" + ` WITH BROKER ON LOCATION 's3a://bucket/sr/' PROPERTIES ('aws.s3.access_key' = 'AKIA', 'aws.s3.region' = 'us-east-1', 'aws.s3.secret_key' = 's\'cret')`},
		{"the redacted text hides the keys, not the region", repo.Redacted(),
			`CREATE REPOSITORY ` + "`nightly_s3`" + ` WITH BROKER ON LOCATION 's3a://bucket/sr/' PROPERTIES ('aws.s3.access_key' = '***', 'aws.s3.region' = 'us-east-1', 'aws.s3.secret_key' = '***')`},
		{"read only, instance profile", Repository{Name: "r", Location: "s3a://b", ReadOnly: true, Properties: map[string]string{"aws.s3.use_instance_profile": "true"}}.sql(false),
			"CREATE READ ONLY REPOSITORY `r` WITH BROKER ON LOCATION 's3a://b' PROPERTIES ('aws.s3.use_instance_profile' = 'true')"},
		{"backup of a whole database, full, with its timeout", BackupSQL(Backup{DB: "sales", Label: "k8s_n_sales_20261206t010000z", Repository: "r", Timeout: 24 * time.Hour}),
			"BACKUP SNAPSHOT `sales`.`k8s_n_sales_20261206t010000z` TO `r` PROPERTIES ('type' = 'full', 'timeout' = '86400')"},
		{"backup of tables and partitions, with 4.2's ttl", BackupSQL(Backup{DB: "d", Label: "l", Repository: "r", Tables: []TableRef{{Name: "t1", Partitions: []string{"p1", "p2"}}, {Name: "t2"}}, TTL: "8 DAY"}),
			"BACKUP SNAPSHOT `d`.`l` TO `r` ON (`t1` PARTITION (`p1`, `p2`), `t2`) PROPERTIES ('type' = 'full', 'ttl' = '8 DAY')"},
		{"restore in place, the old form", RestoreSQL(Restore{DB: "d", Label: "l", Repository: "r", Timestamp: "2026-12-06-01-00-00-117", ReplicationNum: 1}),
			"RESTORE SNAPSHOT `d`.`l` FROM `r` PROPERTIES ('backup_timestamp' = '2026-12-06-01-00-00-117', 'replication_num' = '1')"},
		{"restore renamed, the 3.4 form", RestoreSQL(Restore{DB: "d", Label: "l", Repository: "r", Timestamp: "ts", Target: "d2", Tables: []TableRef{{Name: "t", As: "t_old"}}}),
			"RESTORE SNAPSHOT `l` FROM `r` DATABASE `d` AS `d2` ON (TABLE `t` AS `t_old`) PROPERTIES ('backup_timestamp' = 'ts')"},
		{"drop snapshot never forces", DropSnapshotSQL("l", "r"), "DROP SNAPSHOT `l` ON `r`"},
		{"cancel names the database", CancelRestoreSQL("a`b"), "CANCEL RESTORE FROM `a``b`"},
		{"cluster snapshot on a volume", SetClusterSnapshotSQL(true, "sv1"), "ADMIN SET AUTOMATED CLUSTER SNAPSHOT ON STORAGE VOLUME `sv1`"},
		{"cluster snapshot off", SetClusterSnapshotSQL(false, "sv1"), "ADMIN SET AUTOMATED CLUSTER SNAPSHOT OFF"},
		{"show snapshot of one label", ShowSnapshotSQL("r", "l"), "SHOW SNAPSHOT ON `r` WHERE SNAPSHOT = 'l'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got  %s\nwant %s", c.got, c.want)
			}
		})
	}
}

func TestAnErrorOfCreateRepositoryNamesNoSecret(t *testing.T) {
	c := &Client{Address: "127.0.0.1:1", Attempts: 1, DialTimeout: 50 * time.Millisecond}
	err := CreateRepository{Repository: Repository{Name: "r", Location: "s3a://b", Properties: map[string]string{"aws.s3.secret_key": "TOPSECRET"}}}.Send(t.Context(), c)
	if err == nil || strings.Contains(err.Error(), "TOPSECRET") || !strings.Contains(err.Error(), "'***'") {
		t.Fatalf("error %v", err)
	}
}

func refusal(msg string) error {
	return &StatementError{Statement: "BACKUP ...", Err: &mysql.MySQLError{Number: 1064, Message: msg}}
}

func TestBackupRefusalsAreReadFromFEsTexts(t *testing.T) {
	cases := []struct {
		err  error
		want BackupRefusal
	}{
		{refusal("Can only run one backup or restore job of a database at same time"), DatabaseBusy},
		{refusal("Another backup or restore job is being submitted. Please wait and try again"), SubmitLocked},
		{refusal("Snapshot with name 'k8s_x' already exist in repository"), LabelTaken},
		{refusal("Repository r is read only"), ReadOnlyRepository},
		{refusal("Repository r does not exist"), NoSuchRepository},
		{refusal("Failed to get info of snapshot 'l' because: x. Maybe specified wrong backup timestamp"), WrongSnapshot},
		{&StatementError{Err: &mysql.MySQLError{Number: 1049, Message: "Unknown database 'd'"}}, NoSuchDatabase},
		{refusal("something else"), OtherRefusal},
		{&StatementError{Err: fmt.Errorf("dial tcp: refused")}, NotRefused},
	}
	for _, c := range cases {
		if got := ClassifyBackupRefusal(c.err); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
	if !NothingToCancel(refusal("No restore is currently running")) || !NothingToCancel(refusal("Failed to cancel job: Job with label l can not be cancelled. state: FINISHED")) {
		t.Error("nothing to cancel")
	}
	if _, ok := SnapshotOwnedElsewhere(refusal("Snapshot l in repository r was created by cluster 7, and this cluster is 8. Use DROP SNAPSHOT ... FORCE to drop it anyway")); !ok {
		t.Error("owned elsewhere")
	}
}
