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
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// The read policy of what StarRocks says of a cluster: FE's report, read at
// the rollout rate (Every) while a gated rollout runs or FE settles after a
// pod change, and otherwise at most once per health period, for
// StarRocksHealthy and the status figures.

// Cadence is how often a reconcile needs FE's word.
type Cadence struct {
	// Rolling is true while a gated rollout runs: FE is read at Every.
	Rolling bool
	// Changed is when a pod of the cluster last changed (stopped, returned,
	// was created); zero when none is known.
	Changed time.Time
	// Health is how old a report may be outside rollouts.
	Health time.Duration
}

// Word returns FE's report for this reconcile, or nil when there is none
// (no read yet, or none since the last change of FE's topology), and how
// soon the reconcile should come back to decide on the next one (0: the
// resync will do). It reads at the rollout rate while rolling, or while FE
// has not been asked since a pod of the cluster last changed; otherwise
// only when the last read is older than Health.
func (d Door) Word(src *srv1.StarRocksCluster, feConf string, c Cadence) (*Report, time.Duration) {
	if d.d == nil {
		return nil, 0
	}
	v := d.d.views
	last := v.latest(src)
	var age time.Duration
	if last != nil {
		age = v.now().Sub(last.At)
	}
	settling := starrocks.Settling(c.Changed, last.Pure())
	every := v.every
	if !c.Rolling && !settling {
		every = max(c.Health, v.every)
	}
	if last != nil && age < every {
		if c.Rolling || settling {
			return last, every - age
		}
		return last, 0
	}
	// While rolling or settling, a decision waits on the read; the periodic
	// read of a resync holds no worker.
	rep := v.look(d.d, src, feConf, c.Rolling || settling)
	if c.Rolling || settling {
		// Soon after the read starts, to decide on it.
		return rep, max(v.every/10, 50*time.Millisecond)
	}
	// The periodic read is used by the next reconcile: a resync costs one
	// reconcile, not two. Until then the status keeps telling the last
	// read, which look no longer returns (nothing may be decided on it).
	if rep == nil {
		return last, 0
	}
	return rep, 0
}
