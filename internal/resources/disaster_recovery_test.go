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

package resources

import (
	"testing"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func TestTheClusterSnapshotCountsOnlyWhereFEReadsIt(t *testing.T) {
	for _, tt := range []struct {
		name string
		ref  srv1.ConfigMapReference
		want []ConfSource
	}{
		{"a key mounted with subPath at fe/conf/cluster_snapshot.yaml",
			srv1.ConfigMapReference{Name: "snap", MountPath: "/opt/starrocks/fe/conf/cluster_snapshot.yaml", SubPath: "snapshot.yaml"},
			[]ConfSource{{ConfigMap: "snap", Key: "snapshot.yaml"}}},
		{"a ConfigMap mounted whole at fe/conf",
			srv1.ConfigMapReference{Name: "snap", MountPath: "/opt/starrocks/fe/conf/"},
			[]ConfSource{{ConfigMap: "snap", Key: ClusterSnapshotFile}}},
		{"mounted elsewhere restores nothing",
			srv1.ConfigMapReference{Name: "snap", MountPath: "/etc/snapshot"}, nil},
		{"the file's name under another directory restores nothing",
			srv1.ConfigMapReference{Name: "snap", MountPath: "/opt/starrocks/fe/meta/cluster_snapshot.yaml", SubPath: ClusterSnapshotFile}, nil},
		{"a ConfigMap mounted whole at the file's path is a directory, not the file",
			srv1.ConfigMapReference{Name: "snap", MountPath: "/opt/starrocks/fe/conf/cluster_snapshot.yaml"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ClusterSnapshotSources(&srv1.StarRocksComponentSpec{ConfigMaps: []srv1.ConfigMapReference{tt.ref}})
			if len(got) != len(tt.want) || (len(got) == 1 && got[0] != tt.want[0]) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
