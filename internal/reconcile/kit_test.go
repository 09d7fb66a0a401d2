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

package reconcile

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
)

// An object forgotten once is forgotten in every memory registered,
// whatever its entries are keyed by; other objects are kept.
func TestAnObjectGoneIsForgottenInEveryMemory(t *testing.T) {
	memos := NewMemos()
	byObject := NewMemo[int](memos)
	byChild := NewMemoOf[string](memos, func(k types.NamespacedName) []types.NamespacedName {
		return []types.NamespacedName{{Namespace: k.Namespace, Name: k.Name + "-fe"}, {Namespace: k.Namespace, Name: k.Name + "-be"}}
	})
	var other []types.NamespacedName
	memos.Register(func(k types.NamespacedName) { other = append(other, k) })
	gone, kept := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"}
	byObject.Put(gone, 1)
	byObject.Put(kept, 2)
	byChild.Put(types.NamespacedName{Namespace: "ns", Name: "a-fe"}, "x")
	byChild.Put(types.NamespacedName{Namespace: "ns", Name: "b-fe"}, "y")

	memos.Forget(gone)

	if _, ok := byObject.Get(gone); ok {
		t.Error("the memory keyed by the object still has it")
	}
	if v, ok := byObject.Get(kept); !ok || v != 2 {
		t.Errorf("another object was forgotten too: %v, %v", v, ok)
	}
	if byChild.Len() != 1 {
		t.Errorf("the memory keyed by the object's StatefulSets has %d entries, want the other object's 1", byChild.Len())
	}
	if len(other) != 1 || other[0] != gone {
		t.Errorf("a registered forget was called with %v, want [%v]", other, gone)
	}
}

// Update sees the current value and may keep, change or drop it; Take
// returns a value once.
func TestAMemoryIsUpdatedAndTakenUnderItsLock(t *testing.T) {
	m := NewMemo[int](nil)
	k := types.NamespacedName{Namespace: "ns", Name: "a"}
	for range 3 {
		m.Update(k, func(v int, _ bool) (int, bool) { return v + 1, true })
	}
	if v, _ := m.Get(k); v != 3 {
		t.Errorf("after three updates: %d, want 3", v)
	}
	if v, ok := m.Take(k); !ok || v != 3 {
		t.Errorf("take: %d, %v; want 3, true", v, ok)
	}
	if _, ok := m.Take(k); ok {
		t.Error("a value was taken twice")
	}
	m.Put(k, 1)
	m.Update(k, func(int, bool) (int, bool) { return 0, false })
	if m.Len() != 0 {
		t.Error("an update that drops the value kept it")
	}
}

// The one error and back-off policy of both reconcilers.
func TestTheErrorPolicy(t *testing.T) {
	user := &UserError{Reason: srv1.ReasonConfigMapNotFound, Message: "gone"}
	exists := &apply.ExistsError{}
	failed := errors.New("connection refused")
	tests := []struct {
		name      string
		o         Outcome
		retried   bool // returned as an error: the controller's back-off
		backedOff bool // requeued on the object's own back-off
		after     time.Duration
	}{
		{name: "nothing wrong comes back after its own delay", o: Outcome{After: time.Minute}, after: time.Minute},
		{name: "a transient error is retried by the controller", o: Outcome{Err: failed}, retried: true},
		{name: "a user error beside a failed write is retried", o: Outcome{Err: errors.Join(user, failed)}, retried: true},
		{name: "a failed status write is retried", o: Outcome{StatusErr: failed}, retried: true},
		{name: "a user error waits for a watch event", o: Outcome{Err: user, After: time.Minute}},
		{name: "a wrapped user error waits too", o: Outcome{Err: fmt.Errorf("reading: %w", user)}},
		{name: "a name another object holds is looked at again on the back-off", o: Outcome{Err: exists}, backedOff: true},
		{name: "waiting on FE comes back on the back-off, not logged", o: Outcome{Waiting: true, After: time.Minute}, backedOff: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBackoff(nil)
			tt.o.Key = "ns/a"
			res, err := b.Result(tt.o)
			if (err != nil) != tt.retried {
				t.Errorf("error %v, want one: %v", err, tt.retried)
			}
			switch {
			case tt.backedOff && res.RequeueAfter != time.Second:
				t.Errorf("requeue after %s, want the back-off's first 1s", res.RequeueAfter)
			case !tt.backedOff && res.RequeueAfter != tt.after:
				t.Errorf("requeue after %s, want %s", res.RequeueAfter, tt.after)
			}
		})
	}
}

// The back-off doubles while the cause lasts and starts again once a
// reconcile ends well.
func TestTheBackoffDoublesAndResets(t *testing.T) {
	b := NewBackoff(nil)
	waiting := Outcome{Key: "ns/a", Waiting: true}
	var got []time.Duration
	for range 3 {
		res, _ := b.Result(waiting)
		got = append(got, res.RequeueAfter)
	}
	if got[0] != time.Second || got[1] != 2*time.Second || got[2] != 4*time.Second {
		t.Errorf("back-off %v, want 1s 2s 4s", got)
	}
	_, _ = b.Result(Outcome{Key: "ns/a"})
	if res, _ := b.Result(waiting); res.RequeueAfter != time.Second {
		t.Errorf("after a good reconcile the back-off is %s, want 1s again", res.RequeueAfter)
	}
}

// Run stops at the first phase that ends the reconcile, and before any
// phase once nothing is left to write.
func TestPhasesRunInOrderUntilOneEndsTheReconcile(t *testing.T) {
	type scope struct {
		ran     []string
		nothing bool
	}
	phase := func(name string, goOn bool) Phase[*scope] {
		return func(_ context.Context, s *scope) bool { s.ran = append(s.ran, name); return goOn }
	}
	ready := func(s *scope) bool { return !s.nothing }
	s := &scope{}
	Run(t.Context(), s, ready, phase("a", true), phase("b", false), phase("c", true))
	if fmt.Sprint(s.ran) != "[a b]" {
		t.Errorf("ran %v, want [a b]", s.ran)
	}
	s = &scope{nothing: true}
	Run(t.Context(), s, ready, phase("a", true))
	if len(s.ran) != 0 {
		t.Errorf("ran %v with nothing to write", s.ran)
	}
}
