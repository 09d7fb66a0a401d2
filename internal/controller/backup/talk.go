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

package backup

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
)

// talkTimeout bounds one conversation: a few statements, each with the
// client's own dial and read timeouts and bounded retries.
const talkTimeout = 30 * time.Second

// Talk runs each object's conversation with FE off the reconcile workers,
// through the FE door (feaccess.Door.Exec): the reconcile says what to ask
// or send, the conversation runs in a slot of the pool (at most Slots at
// once across the operator, one per object; an object whose last
// conversation failed takes one of half the slots, so FEs that do not
// answer never hold them all), and its end brings the object's reconcile
// back (the wake channel, a controller source) with the answer kept here.
// A question asked while the object's conversation runs is asked after
// it, never dropped: the reconcile its end brings back may ask the next
// one before the slot is free.
type Talk struct {
	door    feaccess.Door
	slots   chan struct{}
	failing chan struct{}
	every   time.Duration
	clock   clock.PassiveClock

	mu   sync.Mutex
	last map[types.UID]*Answer
	// running holds the objects whose conversation runs; next the
	// question each asked meanwhile (the latest).
	running map[types.UID]bool
	next    map[types.UID]func()
	// asked is the topic of the latest conversation queued (running or next).
	asked map[types.UID]string
	// wake gets the object whose conversation ended, by kind.
	wake map[string]chan event.GenericEvent
}

// Answer is what one conversation learnt.
type Answer struct {
	// Topic is what the conversation was about ("read", "send <label>"):
	// a reconcile uses only an answer to its question.
	Topic string
	// At is when the conversation started.
	At time.Time
	// Err is why it did not end: FE did not answer, refused, or the door
	// could not log in. Sent statements answered with an error set it too.
	Err error
	// SendErr is the answer to the statement sent, when one was.
	SendErr error
	Sent    bool
	// What was read.
	Databases     []string
	DatabasesRead bool
	Tables        []string
	TablesRead    bool
	Job           *fe.Job
	JobRead       bool
	Snapshot      *fe.Snapshot
	Repositories  []fe.RepositoryRow
	ReposRead     bool
	Cluster       *fe.ClusterSnapshot
	// Switched is what a cluster snapshot switch asked (on or off).
	Switched bool

	// used is when a reconcile first took the answer (Fresh); zero until then.
	used time.Time
}

// NewTalk is a pool of slots conversations at once; every is the least
// time between two conversations of one object.
func NewTalk(door feaccess.Door, slots int, every time.Duration, clk clock.PassiveClock) *Talk {
	return &Talk{door: door, slots: make(chan struct{}, slots), failing: make(chan struct{}, max(1, slots/2)), every: every, clock: clk,
		last: map[types.UID]*Answer{}, running: map[types.UID]bool{}, next: map[types.UID]func(){}, asked: map[types.UID]string{}, wake: map[string]chan event.GenericEvent{}}
}

// Wake is the channel the conversations of kind's objects end on.
func (t *Talk) Wake(kind string) chan event.GenericEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.wake[kind] == nil {
		t.wake[kind] = make(chan event.GenericEvent, 1024)
	}
	return t.wake[kind]
}

// Last is the last answer about topic for obj, nil when there is none.
func (t *Talk) Last(obj client.Object, topic string) *Answer {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.last[obj.GetUID()]
	if a == nil || a.Topic != topic {
		return nil
	}
	return a
}

// Fresh is the last answer about topic when no reconcile has taken it yet,
// however long it waited for one, or when the first took it less than
// Every ago. Counted from the answer's start, a reconcile queue longer
// than Every (a thousand objects at the API's rate) found every answer
// stale and asked again, for ever; FE checks what is sent anyway (a taken
// label, a busy database), so an answer that waited is safe to act on.
func (t *Talk) Fresh(obj client.Object, topic string) *Answer {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.last[obj.GetUID()]
	if a == nil || a.Topic != topic {
		return nil
	}
	now := t.clock.Now()
	if a.used.IsZero() {
		a.used = now
	}
	if now.Sub(a.used) >= t.every {
		return nil
	}
	return a
}

// Forget drops what is kept of obj (its answer, once acted on; the object gone).
func (t *Talk) Forget(uid types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.last, uid)
}

// Ask starts a conversation of obj with src's FE about topic: conv runs in
// a slot with a client of the door, and fills the answer. It returns at
// once; while obj's conversation runs, this one waits to follow it (the
// latest asked replaces one waiting), unless it is the question queued last.
func (t *Talk) Ask(kind string, obj client.Object, src *srv1.StarRocksCluster, feConf, topic string, conv func(ctx context.Context, c *fe.Client, a *Answer)) {
	src = src.DeepCopy()
	key := client.ObjectKeyFromObject(obj)
	uid := obj.GetUID()
	wakeObj := obj.DeepCopyObject().(client.Object)
	wakeObj.SetNamespace(key.Namespace)
	wakeObj.SetName(key.Name)
	job := func() {
		t.mu.Lock()
		prev := t.last[uid]
		t.mu.Unlock()
		if prev != nil && prev.Err != nil && prev.SendErr == nil {
			// Its FE did not answer last time: one of half the slots.
			t.failing <- struct{}{}
			defer func() { <-t.failing }()
		}
		t.slots <- struct{}{}
		defer func() { <-t.slots }()
		ctx, cancel := context.WithTimeout(context.Background(), talkTimeout)
		defer cancel()
		a := &Answer{Topic: topic, At: t.clock.Now()}
		err := t.door.Exec(ctx, src, feConf, func(c *fe.Client) error {
			conv(ctx, c, a)
			return a.Err
		})
		if a.Err == nil {
			a.Err = err
		}
		t.mu.Lock()
		t.last[uid] = a
		if t.next[uid] == nil {
			// Answered: the reconcile the wake brings may ask it again.
			delete(t.asked, uid)
		}
		ch := t.wake[kind]
		t.mu.Unlock()
		if ch != nil {
			ch <- event.GenericEvent{Object: wakeObj}
		}
	}
	t.mu.Lock()
	if t.running[uid] {
		// The same question already queued is not asked twice: its
		// answer serves (a requeue before the answer came, say).
		if t.asked[uid] != topic {
			t.next[uid] = job
			t.asked[uid] = topic
		}
		t.mu.Unlock()
		return
	}
	t.running[uid] = true
	t.asked[uid] = topic
	t.mu.Unlock()
	go func() {
		for job != nil {
			job()
			t.mu.Lock()
			job = t.next[uid]
			delete(t.next, uid)
			if job == nil {
				delete(t.running, uid)
				delete(t.asked, uid)
			}
			t.mu.Unlock()
		}
	}()
}
