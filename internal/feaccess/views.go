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
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// Defaults of the FE reads the StarRocks-aware phases decide on.
const (
	// DefaultLookEvery is the least time between two reads of one
	// cluster's FE: the per-cluster rate limit of FE queries.
	DefaultLookEvery = 10 * time.Second
	// lookTimeout bounds one read: four statements, each with its own
	// dial and read timeouts and bounded retries.
	lookTimeout = 20 * time.Second
	// lookSlots is how many reads run at once, across the operator; the
	// clusters whose last read failed hold at most half of them (Reads).
	lookSlots = 8
	// answerWait bounds how long a deciding look waits for the read it
	// asked for (at most every): only for a cluster whose FE answered its
	// last read in full and within that time.
	answerWait = time.Second
)

// Report is what FE said of its nodes and tablets, at one moment.
type Report struct {
	// UID is the cluster's: a cluster deleted and made again under its name starts afresh.
	UID types.UID
	// Done is when the read ended. FE's node lists come first and at once;
	// a slow last statement ('/statistic') makes the read end well after At.
	Done time.Time
	// Report is what FE said, as internal/starrocks reads it: At is when
	// the read started; a report is only as new as its oldest answer.
	starrocks.Report
}

// Pure is the report as internal/starrocks reads it; nil when there is none.
func (rep *Report) Pure() *starrocks.Report {
	if rep == nil {
		return nil
	}
	return &rep.Report
}

// views keeps, per cluster, FE's last report, read off the reconcile
// workers: a reconcile that needs FE's word takes the last report and, when
// it is older than every, asks for the next read and comes back later. A
// thousand clusters whose FE does not answer then hold no worker, hold at
// most half of the read slots, and each cluster's FE is asked at most once
// per every; the reads wait their turn (Reads).
type views struct {
	every time.Duration
	now   func() time.Time
	reads *Reads

	// last and stale are keyed by the cluster's namespace/name.
	mu   sync.Mutex
	last map[string]*Report
	// stale holds, per cluster, the time of the last change the operator
	// made to FE's topology: a report read before it no longer tells the truth.
	stale map[string]time.Time
	// nodes is, per cluster, FE's last list of compute nodes (nodes.go).
	nodes map[string]computeNodes
	// answered holds, per cluster whose read was asked and has not ended,
	// a channel closed when it ends: a deciding look waits on it.
	answered map[string]chan struct{}

	// wait bounds a deciding look's wait for its read (answerWait).
	wait time.Duration
	// fetch reads FE into rep (fetchReport); tests replace it.
	fetch func(ctx context.Context, access *door, src *srv1.StarRocksCluster, feConf string, rep *Report)
}

func newViews(every time.Duration) *views {
	if every <= 0 {
		every = DefaultLookEvery
	}
	return &views{every: every, now: time.Now, reads: NewReads(lookSlots), last: map[string]*Report{}, stale: map[string]time.Time{},
		nodes: map[string]computeNodes{}, answered: map[string]chan struct{}{}, wait: min(answerWait, every), fetch: fetchReport}
}

// Look returns FE's latest report on src that is newer than the last
// change the operator made and at most two periods old, or nil when there
// is none; it starts a read when the last one is older than Every. It is
// for a decision: when it starts a read of an FE that answered its last
// read in full and quickly, it waits for that read, a second at most.
func (d Door) Look(src *srv1.StarRocksCluster, feConf string) *Report {
	if d.d == nil {
		return nil
	}
	return d.d.views.look(d.d, src, feConf, true)
}

// Every is the least time between two reads of one cluster's FE: how soon
// a step waiting for FE's word looks again.
func (d Door) Every() time.Duration {
	if d.d == nil {
		return DefaultLookEvery
	}
	return d.d.views.every
}

// look is Look; decide says whether a read it starts is waited for
// (answerWait). Without the wait, a cluster whose looks come further apart
// than two periods (reconciles slowed by a slow API server, a long work
// queue) would find each time that the read its last look asked for ended
// too long ago, ask for another, and decide on nothing for as long as that
// lasts (TestFEViewsLookSpacedOverTwoPeriods).
func (v *views) look(access *door, src *srv1.StarRocksCluster, feConf string, decide bool) *Report {
	key := client.ObjectKeyFromObject(src).String()
	v.mu.Lock()
	rep, changed := v.current(key, src)
	due := rep == nil || v.now().Sub(rep.At) >= v.every || rep.At.Before(changed)
	lane := Answering
	switch {
	case rep == nil:
		lane = Unread
	case rep.Err != nil || rep.StatisticErr != nil:
		lane = Failing
	}
	// Only an FE that answered its last read in full, within the wait, is
	// waited for: one that does not answer, or drips, holds no worker.
	wait := decide && due && lane == Answering && v.wait > 0 && rep.Done.Sub(rep.At) <= v.wait
	var answered chan struct{}
	if due {
		if answered = v.answered[key]; answered == nil {
			answered = make(chan struct{})
			v.answered[key] = answered
		}
	}
	v.mu.Unlock()
	if due {
		src := src.DeepCopy() // the read outlives the reconcile
		v.reads.Ask(key, lane, func() { v.read(access, src, feConf) })
	}
	if wait {
		timer := time.NewTimer(v.wait)
		select {
		case <-answered:
		case <-timer.C:
		}
		timer.Stop()
		v.mu.Lock()
		rep, changed = v.current(key, src)
		v.mu.Unlock()
	}
	// A report that ended more than two periods ago is from before this
	// look was due: nothing may be decided on it (the cluster was not
	// looked at for long). Its age counts from its end, not its start: a
	// read as slow as FE's slowest answer must still count.
	if rep == nil || rep.At.Before(changed) || v.now().Sub(rep.Done) > 2*v.every {
		return nil
	}
	return rep
}

// current is FE's last report on src (nil when it is another cluster's of
// the same name) and the time of the operator's last change of FE's
// topology. v.mu is held.
func (v *views) current(key string, src *srv1.StarRocksCluster) (*Report, time.Time) {
	rep := v.last[key]
	if rep != nil && rep.UID != src.UID {
		rep = nil
	}
	return rep, v.stale[key]
}

// latest is FE's last report on src, as look returns it, without starting a read.
func (v *views) latest(src *srv1.StarRocksCluster) *Report {
	key := client.ObjectKeyFromObject(src).String()
	v.mu.Lock()
	defer v.mu.Unlock()
	rep := v.last[key]
	if rep == nil || rep.UID != src.UID || rep.At.Before(v.stale[key]) {
		return nil
	}
	return rep
}

func (v *views) read(access *door, src *srv1.StarRocksCluster, feConf string) {
	ctx, cancel := context.WithTimeout(context.Background(), lookTimeout)
	defer cancel()
	rep := &Report{UID: src.UID, Report: starrocks.Report{At: v.now()}}
	v.fetch(ctx, access, src, feConf, rep)
	rep.Done = v.now()
	v.mu.Lock()
	defer v.mu.Unlock()
	key := client.ObjectKeyFromObject(src).String()
	if old := v.last[key]; old == nil || old.UID != rep.UID || !rep.At.Before(old.At) {
		v.last[key] = rep
	}
	v.answer(key)
}

// answer releases the looks waiting for key's read. v.mu is held.
func (v *views) answer(key string) {
	if ch := v.answered[key]; ch != nil {
		close(ch)
		delete(v.answered, key)
	}
}

// fetchReport reads FE's nodes and '/statistic' into rep, in one attempt:
// the next read is a retry, on the rate limit.
func fetchReport(ctx context.Context, access *door, src *srv1.StarRocksCluster, feConf string, rep *Report) {
	rep.Err = func() error {
		c, err := access.client(ctx, src, feConf)
		if err != nil {
			return err
		}
		c.Attempts = 1
		v, errs := c.ReadView(ctx)
		rep.Frontends, rep.Backends, rep.ComputeNodes, rep.Statistic = v.Frontends, v.Backends, v.ComputeNodes, v.Statistic
		rep.StatisticErr = errs[3]
		return errors.Join(errs[:3]...)
	}()
}

// changed marks what FE said of a cluster (by namespace/name) out of date:
// the operator just changed FE's topology, and decides nothing more until
// it read FE again.
func (v *views) changed(key string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.stale[key] = v.now()
}

// forget drops what is kept of a cluster that is gone, by its namespace/name.
func (v *views) forget(key string) {
	v.reads.Drop(key)
	v.reads.Drop(key + "#compute-nodes")
	v.mu.Lock()
	defer v.mu.Unlock()
	v.answer(key) // a read dropped from the queue never ends
	delete(v.last, key)
	delete(v.stale, key)
	delete(v.nodes, key+"#compute-nodes")
}

func (v *views) remembers(key string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	_, read := v.last[key]
	_, marked := v.stale[key]
	_, listed := v.nodes[key+"#compute-nodes"]
	return read || marked || listed
}
