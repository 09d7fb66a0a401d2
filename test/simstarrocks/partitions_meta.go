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
	"strconv"
)

// partitionsMetaRows answers a SELECT of information_schema.partitions_meta
// (PartitionsMetaSystemTable.java): one row per partition of the tables FE
// has (the recycle bin's are not listed), each table one partition named
// after it, as an unpartitioned table's is. UNVERIFIED: that the bin's
// partitions are left out; the privileges FE filters the rows by are not
// simulated.
func (c *cluster) partitionsMetaRows(q *partitionsMetaQuery) (*result, *sqlError) {
	res := &result{columns: q.columns}
	for _, col := range q.columns {
		switch col {
		case "DB_NAME", "TABLE_NAME", "PARTITION_NAME", "PARTITION_ID", "BUCKETS", "REPLICATION_NUM":
		default:
			return nil, &sqlError{code: 1064, state: "HY000", msg: fmt.Sprintf("simstarrocks: partitions_meta column %s is not simulated", col)}
		}
	}
	for _, d := range c.dbs {
		if slices.Contains(q.notDB, d.name) {
			continue
		}
		for _, t := range d.tables {
			if q.replicationNum >= 0 && t.replicationNum != q.replicationNum {
				continue
			}
			if q.limit >= 0 && len(res.rows) >= q.limit {
				return res, nil
			}
			row := make([]string, 0, len(q.columns))
			for _, col := range q.columns {
				switch col {
				case "DB_NAME":
					row = append(row, d.name)
				case "TABLE_NAME", "PARTITION_NAME":
					row = append(row, t.name)
				case "PARTITION_ID":
					row = append(row, strconv.FormatInt(t.id, 10))
				case "BUCKETS":
					row = append(row, strconv.Itoa(len(t.tablets)))
				case "REPLICATION_NUM":
					row = append(row, strconv.Itoa(t.replicationNum))
				}
			}
			res.rows = append(res.rows, row)
		}
	}
	return res, nil
}
