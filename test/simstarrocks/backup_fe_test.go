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

package simstarrocks_test

import (
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// The operator's backup statements (internal/fe) as the simulated FE reads
// them: each is parsed, and each answer is read back.
func TestTheOperatorsBackupStatementsRoundTrip(t *testing.T) {
	for _, version := range []string{"3.3", "3.4", "4.2"} {
		t.Run(version, func(t *testing.T) {
			s, db, fc := backupCluster(t, simstarrocks.Options{Version: version})
			c := &fe.Client{Address: s.QueryAddress(), Attempts: 1}
			ctx := t.Context()
			repo := fe.Repository{Name: "op_repo", Location: bucket + "/op", Properties: map[string]string{"aws.s3.access_key": "a", "aws.s3.secret_key": "b", "aws.s3.region": "r"}}
			if err := (fe.CreateRepository{Repository: repo}).Send(ctx, c); err != nil {
				t.Fatal(err)
			}
			repos, err := c.ShowRepositories(ctx)
			if err != nil || len(repos) != 2 || repos[1].Name != "op_repo" || repos[1].Location != bucket+"/op" {
				t.Fatalf("%v %+v", err, repos)
			}
			b := fe.Backup{DB: "db1", Label: "k8s_x", Repository: "op_repo", Timeout: time.Hour}
			if version == "4.2" {
				b.TTL = "8 DAY"
			}
			if err := b.Send(ctx, c); err != nil {
				t.Fatal(err)
			}
			if r := fe.ClassifyBackupRefusal(b.Send(ctx, c)); r != fe.DatabaseBusy {
				t.Fatalf("a second BACKUP: %s", r)
			}
			until(t, db, fc, "BACKUP", "db1", "FINISHED", time.Minute)
			job, err := c.ShowBackup(ctx, "db1")
			if err != nil || job.Label != "k8s_x" || job.State != "FINISHED" || job.Status != "[OK]" || !job.Done() {
				t.Fatalf("%v %+v", err, job)
			}
			snap, err := c.ShowSnapshot(ctx, "op_repo", "k8s_x")
			if err != nil || !snap.OK() || len(snap.Timestamps) != 1 {
				t.Fatalf("%v %+v", err, snap)
			}
			if r := fe.ClassifyBackupRefusal(b.Send(ctx, c)); r != fe.LabelTaken {
				t.Fatalf("a resent BACKUP: %s", r)
			}
			tables, err := c.ShowTables(ctx, "db1")
			if err != nil || len(tables) != 1 || tables[0] != "t1" {
				t.Fatalf("%v %v", err, tables)
			}
			if tables, err := c.ShowTables(ctx, "nodb"); err != nil || tables != nil {
				t.Fatalf("unknown database: %v %v", err, tables)
			}
			if version >= "3.4" {
				r := fe.Restore{DB: "db1", Label: "k8s_x", Repository: "op_repo", Timestamp: snap.Timestamps[0], Target: "db1_copy", ReplicationNum: 1}
				if err := r.Send(ctx, c); err != nil {
					t.Fatal(err)
				}
				until(t, db, fc, "RESTORE", "db1_copy", "FINISHED", time.Minute)
				job, err := c.ShowRestore(ctx, "db1_copy")
				if err != nil || job.Label != "k8s_x" || job.Timestamp != snap.Timestamps[0] {
					t.Fatalf("%v %+v", err, job)
				}
			} else {
				if err := (fe.CreateDatabase{Name: "db1"}).Send(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			if version == "4.2" {
				if err := (fe.DropSnapshot{Label: "k8s_x", Repository: "op_repo"}).Send(ctx, c); err != nil {
					t.Fatal(err)
				}
				if err := (fe.DropSnapshot{Label: "k8s_x", Repository: "op_repo"}).Send(ctx, c); err != nil {
					t.Fatalf("a snapshot already gone: %v", err)
				}
			}
			if err := (fe.DropRepository{Name: "op_repo"}).Send(ctx, c); err != nil {
				t.Fatal(err)
			}
			if err := (fe.DropRepository{Name: "op_repo"}).Send(ctx, c); err != nil {
				t.Fatalf("a repository already gone: %v", err)
			}
		})
	}
}

func TestTheOperatorsClusterSnapshotStatements(t *testing.T) {
	s, _, fc := onFakeClock(t, simstarrocks.Options{SharedData: true, Version: "3.5"})
	c := &fe.Client{Address: s.QueryAddress(), Attempts: 1}
	ctx := t.Context()
	for range 2 {
		if err := (fe.SetClusterSnapshot{On: true}).Send(ctx, c); err != nil {
			t.Fatalf("on, twice: %v", err)
		}
	}
	fc.Step(603 * time.Second)
	if _, err := c.ShowDatabases(ctx); err != nil {
		t.Fatal(err)
	}
	fc.Step(3 * time.Second)
	snap, err := c.ClusterSnapshots(ctx)
	if err != nil || snap.Name == "" || snap.LastJobState != "FINISHED" {
		t.Fatalf("%v %+v", err, snap)
	}
	for range 2 {
		if err := (fe.SetClusterSnapshot{}).Send(ctx, c); err != nil {
			t.Fatalf("off, twice: %v", err)
		}
	}
}
