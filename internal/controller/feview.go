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

package controller

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// Defaults of the FE reads the StarRocks-aware phases decide on.
const (
	// defaultFELookEvery is the least time between two reads of one
	// cluster's FE: the per-cluster rate limit of FE queries.
	defaultFELookEvery = 10 * time.Second
	// feLookTimeout bounds one read: four statements, each with its own
	// dial and read timeouts and bounded retries.
	feLookTimeout = 20 * time.Second
	// feLookSlots is how many reads run at once, across the operator.
	feLookSlots = 8
)

// feReport is what FE said of its nodes and tablets, at one moment.
type feReport struct {
	// uid is the cluster's: a cluster deleted and made again under its name starts afresh.
	uid types.UID
	// at is when the read started; a report is only as new as its oldest answer.
	at           time.Time
	err          error
	frontends    []fe.Frontend
	backends     []fe.Backend
	computeNodes []fe.ComputeNode
	statistic    fe.Statistic
}

// feViews keeps, per cluster, FE's last report, read off the reconcile
// workers: a reconcile that needs FE's word takes the last report and, when
// it is older than every, starts the next read and comes back later. A
// thousand clusters whose FE does not answer then hold no worker, and each
// cluster's FE is asked at most once per every.
type feViews struct {
	every time.Duration
	now   func() time.Time
	jobs  *feJobs

	// last and stale are keyed by the cluster's namespace/name.
	mu   sync.Mutex
	last map[string]*feReport
	// stale holds, per cluster, the time of the last statement that changed
	// FE's topology: a report read before it no longer tells the truth.
	stale map[string]time.Time
}

func newFEViews(every time.Duration) *feViews {
	if every <= 0 {
		every = defaultFELookEvery
	}
	return &feViews{every: every, now: time.Now, jobs: newFEJobs(feLookSlots), last: map[string]*feReport{}, stale: map[string]time.Time{}}
}

// look returns FE's latest report on src that is newer than the last
// change the operator made and at most two periods old, or nil when there
// is none; it starts a read when the last one is older than every.
func (v *feViews) look(access *feAccess, src *srv1.StarRocksCluster, feConf string) *feReport {
	key := client.ObjectKeyFromObject(src).String()
	v.mu.Lock()
	rep, changed := v.last[key], v.stale[key]
	if rep != nil && rep.uid != src.UID {
		rep = nil
	}
	due := rep == nil || v.now().Sub(rep.at) >= v.every || rep.at.Before(changed)
	v.mu.Unlock()
	if due {
		src := src.DeepCopy() // the read outlives the reconcile
		v.jobs.start(src.UID, func() { v.read(access, src, feConf) })
	}
	// A report older than two periods is from before this look was due:
	// nothing may be decided on it (the cluster was not looked at for long).
	if rep == nil || rep.at.Before(changed) || v.now().Sub(rep.at) > 2*v.every {
		return nil
	}
	return rep
}

func (v *feViews) read(access *feAccess, src *srv1.StarRocksCluster, feConf string) {
	ctx, cancel := context.WithTimeout(context.Background(), feLookTimeout)
	defer cancel()
	rep := &feReport{uid: src.UID, at: v.now()}
	rep.err = func() error {
		c, err := access.sql(ctx, src, feConf)
		if err != nil {
			return err
		}
		// One attempt each: the next read is a retry, on the rate limit.
		c.Attempts = 1
		var errs [4]error
		rep.frontends, errs[0] = c.ShowFrontends(ctx)
		rep.backends, errs[1] = c.ShowBackends(ctx)
		rep.computeNodes, errs[2] = c.ShowComputeNodes(ctx)
		rep.statistic, errs[3] = c.TabletStatistic(ctx)
		return errors.Join(errs[:]...)
	}()
	v.mu.Lock()
	defer v.mu.Unlock()
	key := client.ObjectKeyFromObject(src).String()
	if old := v.last[key]; old == nil || old.uid != rep.uid || !rep.at.Before(old.at) {
		v.last[key] = rep
	}
}

// changed marks what FE said of src out of date: the operator just changed
// FE's topology, and decides nothing more until it read FE again.
func (v *feViews) changed(key string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.stale[key] = v.now()
}

// forget drops what is kept of a cluster that is gone, by its namespace/name.
func (v *feViews) forget(key string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.last, key)
	delete(v.stale, key)
}
