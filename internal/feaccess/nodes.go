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
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// computeNodes is FE's last list of one cluster's compute nodes.
type computeNodes struct {
	uid  types.UID
	read starrocks.ComputeNodesRead
}

// ComputeNodes returns FE's list of compute nodes (SHOW COMPUTE NODES) read
// at or after since, or nil when there is none yet: it asks for a read
// when the last one started before since. The read runs off the reconcile
// workers in the reads' queue, at most one per cluster at once, beside the
// report's: what decides a DROP of compute nodes is read right before it,
// and nothing else with it.
func (d Door) ComputeNodes(src *srv1.StarRocksCluster, feConf string, since time.Time) *starrocks.ComputeNodesRead {
	if d.d == nil {
		return nil
	}
	v, key := d.d.views, nodesKey(src)
	v.mu.Lock()
	last, ok := v.nodes[key]
	fresh := ok && last.uid == src.UID && !last.read.At.Before(since)
	lane := Unread
	if ok && last.read.Err != nil {
		lane = Failing
	} else if ok {
		lane = Answering
	}
	v.mu.Unlock()
	if !fresh {
		src := src.DeepCopy() // the read outlives the reconcile
		v.reads.Ask(key, lane, func() { v.readComputeNodes(d.d, src, feConf) })
		return nil
	}
	out := last.read
	return &out
}

// nodesKey is the key of a cluster's compute-node reads, beside its reports'.
func nodesKey(src *srv1.StarRocksCluster) string {
	return client.ObjectKeyFromObject(src).String() + "#compute-nodes"
}

func (v *views) readComputeNodes(access *door, src *srv1.StarRocksCluster, feConf string) {
	ctx, cancel := context.WithTimeout(context.Background(), lookTimeout)
	defer cancel()
	read := starrocks.ComputeNodesRead{At: v.now()}
	read.Err = func() error {
		c, err := access.client(ctx, src, feConf)
		if err != nil {
			return err
		}
		c.Attempts = 1 // the next read is a retry, on the cleanup's back-off
		read.Nodes, err = c.ShowComputeNodes(ctx)
		return err
	}()
	v.mu.Lock()
	defer v.mu.Unlock()
	key := nodesKey(src)
	if old, ok := v.nodes[key]; !ok || old.uid != src.UID || !read.At.Before(old.read.At) {
		v.nodes[key] = computeNodes{uid: src.UID, read: read}
	}
}
