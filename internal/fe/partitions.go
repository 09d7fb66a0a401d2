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
	"fmt"
)

// SingleReplicaLimit bounds the partitions SingleReplicaSQL lists: enough
// to name some, and to tell that there are any.
const SingleReplicaLimit = 10

// SingleReplicaSQL lists partitions whose replication_num is 1: their one
// replica lives on one BE, and a BE that comes back on empty storage loses
// it. information_schema.partitions_meta has DB_NAME, TABLE_NAME,
// PARTITION_NAME and REPLICATION_NUM (StarRocks' fe-core
// catalog/system/information/PartitionsMetaSystemTable.java); an FE
// without that table refuses the statement. StarRocks' own _statistics_
// is left out: FE makes its tables at min(3, BEs) replicas (facts sheet
// §14), so at 1 only on a one-BE cluster, whose user tables count anyway.
var SingleReplicaSQL = fmt.Sprintf("SELECT DB_NAME, TABLE_NAME, PARTITION_NAME FROM information_schema.partitions_meta WHERE REPLICATION_NUM = 1 AND DB_NAME != '_statistics_' LIMIT %d", SingleReplicaLimit)

// PartitionRef names one partition.
type PartitionRef struct {
	DB, Table, Partition string
}

func (p PartitionRef) String() string {
	if p.Partition == "" || p.Partition == p.Table {
		return p.DB + "." + p.Table // an unpartitioned table's one partition is named after it
	}
	return p.DB + "." + p.Table + " partition " + p.Partition
}

// SingleReplicaPartitions lists up to SingleReplicaLimit partitions of
// replication_num 1 (SingleReplicaSQL).
func (c *Client) SingleReplicaPartitions(ctx context.Context) ([]PartitionRef, error) {
	rows, err := c.query(ctx, SingleReplicaSQL, "db_name", "table_name", "partition_name")
	if err != nil {
		return nil, err
	}
	out := make([]PartitionRef, 0, len(rows))
	for _, r := range rows {
		out = append(out, PartitionRef{DB: r["db_name"], Table: r["table_name"], Partition: r["partition_name"]})
	}
	return out, nil
}
