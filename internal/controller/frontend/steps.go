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

package frontend

import (
	"context"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

// Steps is the one executor of starrocks.Step, for both reconcilers: Run
// reads what a planner needs, through the door and at its rate, calls the
// planner once more, and then records, marks, sends, deletes, holds, tells
// and remembers what the step says. A phase that talks to StarRocks builds
// its planner's input and hands it here; it reads FE, sends statements and
// keeps memory in no other way.
type Steps struct {
	Door     feaccess.Door
	Client   client.Client
	Recorder events.EventRecorder
	// Memory is what the executor keeps of one reconciler's objects.
	Memory *Memory
}

// Memory is what the executor keeps between reconciles, per reconciled
// object, forgotten with it: the records it wrote that the cache may not
// show yet, and the back-off of the steps that back off.
type Memory struct {
	records *reconcile.Memo[map[string]string]
	backoff *reconcile.Backoff
}

// The back-off of a step that backs off (Step.BackOff), by its memory's
// key: 30 s, doubling to 10 min, reset by a step of that key that sends
// statements.
const (
	stepBackoff    = 30 * time.Second
	stepBackoffMax = 10 * time.Minute
)

// NewMemory is the executor's memory of one reconciler, registered with
// its memos: what is kept under a reconciled object's key, or under the
// keys keysOf names for it (its StatefulSets), is forgotten with it.
func NewMemory(memos *reconcile.Memos, keysOf func(types.NamespacedName) []types.NamespacedName) *Memory {
	m := &Memory{records: reconcile.NewMemo[map[string]string](memos), backoff: reconcile.NewBackoffFrom(memos, stepBackoff, stepBackoffMax)}
	memos.Register(func(key types.NamespacedName) {
		for _, k := range keysOf(key) {
			m.backoff.Forget(k.String())
		}
	})
	return m
}

// NoMemory is the memory of a planner that keeps none (its M is
// struct{}): nothing is ever kept in it.
var NoMemory = reconcile.NewMemo[struct{}](nil)

// Target is where one step is done.
type Target struct {
	// Cluster is whose FE the step talks to, through the door; FEConf its fe.conf.
	Cluster *srv1.StarRocksCluster
	FEConf  string
	// On is the object the step's Events and Record go on: the cluster,
	// or a warehouse.
	On client.Object
	// StatefulSet is the one whose pods the step marks and deletes, by
	// ordinal, and which Needs.StatefulSet reads again.
	StatefulSet *appsv1.StatefulSet
	// Hold takes one of the step's holds (FE's trouble, if any, is told
	// in its reason and message already); Later asks to look again within
	// a time; Fail fails the reconcile with an error; Note takes what the
	// step says of its progress, for Progressing.
	Hold  func(starrocks.Hold)
	Later func(time.Duration)
	Fail  func(error)
	Note  func(string)
}

// Run plans with plan on in and the memory memo keeps under key, reads
// what the step needs, plans once more with it, and does the step. Each
// need is read once: a planner that asks again for what it was given
// decides on it.
func Run[In, M any](ctx context.Context, x Steps, t Target, memo *reconcile.Memo[M], key types.NamespacedName, in In, plan starrocks.Planner[In, M]) {
	before, _ := memo.Get(key)
	reads := starrocks.Reads{Waiting: x.Memory.backoff.Waiting(key.String())}
	st, next := plan(in, before, reads)
	for need := st.Needs.Minus(reads.Read); need.Any(); need = st.Needs.Minus(reads.Read) {
		keep(memo, key, next) // what the plan decided before the read stands: a scale-in begun
		before = next
		x.read(ctx, t, need, &reads)
		st, next = plan(in, before, reads)
	}
	do(ctx, x, t, memo, key, st, next, before)
}

// do does st; next is the memory to keep once it is done, before the one
// kept until then.
func do[M any](ctx context.Context, x Steps, t Target, memo *reconcile.Memo[M], key types.NamespacedName, st starrocks.Step[M], next, before M) {
	if err := x.send(ctx, t, writesOf(st)); err != nil {
		if st.Failed != nil {
			f, kept := st.Failed(err)
			do(ctx, x, t, memo, key, f, kept, before)
		}
		return
	}
	keep(memo, key, next)
	for _, h := range st.Holds {
		if h.Trouble != nil {
			trouble := feaccess.Classify(h.Trouble)
			h.Reason, h.Message, h.Trouble = trouble.Reason, trouble.What+h.Message, nil
		}
		t.Hold(h)
	}
	after := st.After
	switch {
	case st.BackOff:
		after = x.Memory.backoff.Fail(key.String())
	case len(st.Statements) > 0:
		x.Memory.backoff.Forget(key.String())
	}
	t.Later(after)
	if p := st.Progress; p != nil {
		switch {
		case p.Done:
			metrics.DecommissionTablets.DeleteLabelValues(t.Cluster.Namespace, t.Cluster.Name)
		case p.Tablets != nil:
			metrics.DecommissionTablets.WithLabelValues(t.Cluster.Namespace, t.Cluster.Name).Set(float64(*p.Tablets))
		}
		if p.Note != "" {
			t.Note(p.Note)
		}
	}
	if st.Log != nil {
		logf.FromContext(ctx).Info(st.Log.Message, st.Log.KeysAndValues...)
	}
	for _, e := range st.Events {
		kind := corev1.EventTypeNormal
		if e.Warning {
			kind = corev1.EventTypeWarning
		}
		x.Recorder.Eventf(t.On, nil, kind, e.Reason, e.Action, "%s", status.Truncate(e.Note, status.MaxEventNote))
	}
	if st.Err != nil {
		t.Fail(st.Err)
	}
	if st.Then != nil {
		do(ctx, x, t, memo, key, *st.Then, next, next)
	}
}

// keep keeps a memory, or forgets it when it holds nothing: memory follows
// what is in progress, not every object there ever was.
func keep[M any](memo *reconcile.Memo[M], key types.NamespacedName, m M) {
	if reflect.ValueOf(&m).Elem().IsZero() {
		memo.Forget(key)
		return
	}
	memo.Put(key, m)
}

// Recorded is the value of obj's record annotation: what this process last
// wrote of it, until the cache shows that, or what the cache shows. A cache
// that lags must not make an old record, or none, read as the truth.
func (x Steps) Recorded(obj client.Object, annotation string) string {
	value := obj.GetAnnotations()[annotation]
	written := value
	x.Memory.records.Update(client.ObjectKeyFromObject(obj), func(m map[string]string, _ bool) (map[string]string, bool) {
		w, ok := m[annotation]
		switch {
		case !ok:
		case w != value:
			written = w
		default: // the cache shows it: forgotten
			m = clone(m)
			delete(m, annotation)
		}
		return m, len(m) > 0
	})
	return written
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
