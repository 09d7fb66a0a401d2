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

package feaccess

import (
	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// How much the operator reads of one cluster's FE (docs/security.md,
// "Bounded answers"). A tenant's FE could answer SHOW BACKENDS with a
// million rows; what it may answer is sized from the cluster's own pods.
//
// Each node list (SHOW FRONTENDS, BACKENDS, COMPUTE NODES) holds at most
// answerRowsPerPod × the cluster's pods + answerRowsMargin rows: FE lists
// each node once, twice for a while when a pod's address changes, and
// keeps a node removed from Kubernetes until it is dropped; the margin
// leaves room for the CNs of StarRocksWarehouses, which the cluster's own
// spec does not count. SHOW PROC '/statistic' has a row per database, as
// many as the tenant made: only its Total row is kept, and the bytes
// bound it. The bytes FE sends on one read's connection are at most
// answerBytesBase + answerBytesPerRow × the rows allowed: a SHOW BACKENDS
// row is under 1 KiB (facts sheet §3), a '/statistic' row under 200 bytes.
//
// A 3 FE + 3 BE cluster: 280 rows, 5.1 MiB. 1,000 pods: 4,256 rows,
// 20.6 MiB. Beyond either, the read fails with fe.AnswerTooLargeError:
// FEAnswerTooLarge on that cluster alone, and nothing decided on it.
const (
	answerRowsPerPod  = 4
	answerRowsMargin  = 256
	answerBytesBase   = 4 << 20
	answerBytesPerRow = 4 << 10
)

// answerBounds are the rows of one answer and the bytes of one read the
// operator takes from src's FE.
func answerBounds(src *srv1.StarRocksCluster) (rows int, bytes int64) {
	rows = answerRowsPerPod*clusterPods(src) + answerRowsMargin
	return rows, answerBytesBase + int64(rows)*answerBytesPerRow
}

// clusterPods is the most pods the spec asks for: FE, BE and CN replicas,
// CN's autoscaler's maximum when it has one; a component without
// replicas counts as 3 (FE, BE) or 1 (CN), more than the defaults.
func clusterPods(src *srv1.StarRocksCluster) int {
	n := 0
	add := func(r *int32, def int) {
		if r == nil {
			n += def
		} else if *r > 0 {
			n += int(*r)
		}
	}
	s := src.Spec
	if s.StarRocksFeSpec != nil {
		add(s.StarRocksFeSpec.Replicas, 3)
	}
	if s.StarRocksBeSpec != nil {
		add(s.StarRocksBeSpec.Replicas, 3)
	}
	if cn := s.StarRocksCnSpec; cn != nil {
		add(cn.Replicas, 1)
		if p := cn.AutoScalingPolicy; p != nil && int(p.MaxReplicas) > 0 {
			n += int(p.MaxReplicas)
		}
	}
	return n
}
