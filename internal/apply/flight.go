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

package apply

import (
	"context"
	"errors"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/writeorder"
)

// FlightTimeout bounds a write that a Run left in flight: it outlives the
// reconcile that started it, and so its context.
const FlightTimeout = 2 * time.Minute

// Run is a set of writes started together by Begin: ApplyAll's writes,
// in ApplyAll's order, whose answers are taken one group at a time. What a
// reconcile does not wait for stays in flight once it returns, and the
// next Apply of the same object takes its answer instead of writing again.
// That lets a worker go on to the next cluster while a write it started
// waits in a line on the API server (the ClusterIPs, see writeorder).
type Run struct {
	objs    []client.Object
	flights []*flight
	keys    []string // each object's key in a.flights; "" when not there
	taken   []bool
	a       Applier
}

// flight is one write of a Run.
type flight struct {
	done chan struct{}
	res  Result
	err  error
}

func (f *flight) wait(ctx context.Context) (Result, error) {
	select {
	case <-f.done:
		return f.res, f.err
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

// flights are the writes of Runs by object, until someone takes them.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

func (fs *flights) put(key string, f *flight) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.m[key] = f
}

// take returns key's write in flight (or answered and not yet taken) and forgets it.
func (fs *flights) take(key string) *flight {
	if fs == nil {
		return nil
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f := fs.m[key]
	delete(fs.m, key)
	return f
}

// dropIf forgets key's write if it is still f.
func (fs *flights) dropIf(key string, f *flight) {
	if fs == nil {
		return
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.m[key] == f {
		delete(fs.m, key)
	}
}

// drop forgets key's write.
func (fs *flights) drop(key string) {
	if fs == nil {
		return
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	delete(fs.m, key)
}

func (fs *flights) len() int {
	if fs == nil {
		return 0
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return len(fs.m)
}

// Begin starts applying objs as ApplyAll does (the gating writes first, the
// others once those are on the wire) and returns at once; Wait takes the
// answers. The writes run with ctx's values but not its cancellation, for
// at most FlightTimeout.
func (a Applier) Begin(ctx context.Context, objs []client.Object) *Run {
	run := &Run{objs: objs, flights: make([]*flight, len(objs)), keys: make([]string, len(objs)), taken: make([]bool, len(objs)), a: a}
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), FlightTimeout)
	var gating, rest []func(context.Context)
	for i, o := range objs {
		f := &flight{done: make(chan struct{})}
		run.flights[i] = f
		gvk, err := a.Client.GroupVersionKindFor(o)
		if err != nil {
			f.err = err
			close(f.done)
			continue
		}
		if a.flights != nil {
			run.keys[i] = objectKey(gvk.Kind, o)
			a.flights.put(run.keys[i], f)
		}
		do := func(ctx context.Context) {
			f.res, f.err = a.apply(ctx, o, gvk)
			close(f.done)
		}
		if a.gating(o) {
			gating = append(gating, do)
		} else {
			rest = append(rest, do)
		}
	}
	go func() {
		defer cancel()
		var wg, sent sync.WaitGroup
		for _, do := range gating {
			sent.Add(1)
			once := sync.OnceFunc(sent.Done)
			wg.Go(func() {
				defer once()
				do(writeorder.OnSend(bg, once))
			})
		}
		sent.Wait()
		for _, do := range rest {
			wg.Go(func() { do(bg) })
		}
		wg.Wait()
	}()
	return run
}

// Wait waits, until ctx ends, for the writes of the objects that which
// accepts and no earlier Wait took, and returns their results in the order
// of objs with every failure. A write it returns is no longer there for a
// later Apply to take.
func (r *Run) Wait(ctx context.Context, which func(client.Object) bool) ([]Result, error) {
	var results []Result
	var errs []error
	for i, o := range r.objs {
		if r.taken[i] || !which(o) {
			continue
		}
		res, err := r.flights[i].wait(ctx)
		if ctx.Err() != nil {
			return results, ctx.Err()
		}
		r.taken[i] = true
		if r.keys[i] != "" {
			r.a.flights.dropIf(r.keys[i], r.flights[i])
		}
		results = append(results, res)
		errs = append(errs, err)
	}
	return results, errors.Join(errs...)
}
