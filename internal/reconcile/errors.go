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
	"errors"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
)

// The operator's error taxonomy. A reconcile error is one of three kinds:
//   - a UserError: the spec, a ConfigMap or another object must change
//     before anything can (a missing ConfigMap, an immutable field edited, a
//     warehouse whose cluster's FE is not ready). It is reported in a
//     condition and one Event, and not retried: the watch on what must
//     change brings the reconcile back;
//   - an apply.ExistsError is the user's too (an object of the name exists
//     that is not ours), but no watch tells when it goes: it is looked at
//     again on the reconciler's back-off (Backoff);
//   - anything else is transient (a failed write, a timeout): reported and
//     retried with the controller's back-off.
//
// A joined error is transient if any part of it is: a spec problem beside a
// failed write must not keep the write from being retried.

// UserError is a problem retrying cannot fix; Reason is its condition reason.
type UserError struct {
	Reason  string
	Message string
}

func (e *UserError) Error() string { return e.Message }

// Transient reports whether err, or any part of a joined err, is neither a
// UserError nor an apply.ExistsError.
func Transient(err error) bool {
	switch e := err.(type) { //nolint:errorlint // it walks the tree errors.As would: a join is transient if any part is
	case nil:
		return false
	case *UserError, *apply.ExistsError:
		return false
	case interface{ Unwrap() []error }:
		return slices.ContainsFunc(e.Unwrap(), Transient)
	case interface{ Unwrap() error }:
		inner := e.Unwrap()
		return inner == nil || Transient(inner)
	default:
		return true
	}
}

// Reason is the condition reason of a reconcile error: a UserError's own,
// AlreadyExists for a name taken, else ApplyFailed.
func Reason(err error) string {
	var user *UserError
	var exists *apply.ExistsError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &user):
		return user.Reason
	case errors.As(err, &exists):
		return srv1.ReasonAlreadyExists
	default:
		return srv1.ReasonApplyFailed
	}
}

// Backoff spaces the looks at an object that no watch event would bring
// back in time: a name another object holds (an apply.ExistsError), FE not
// answering, a StarRocks step that failed. It is the reconcilers' one
// back-off of their own, per object, besides the controller's for
// transient errors.
type Backoff struct {
	limiter workqueue.TypedRateLimiter[string]
	mu      sync.Mutex
	// until is, by key, when the wait of the last Fail ends.
	until map[string]time.Time
}

// NewBackoff returns a back-off at 1 s, doubling to 5 min, forgotten
// with its object through memos.
func NewBackoff(memos *Memos) *Backoff {
	return NewBackoffFrom(memos, time.Second, 5*time.Minute)
}

// NewBackoffFrom returns a back-off at base, doubling to most, forgotten
// with its object through memos.
func NewBackoffFrom(memos *Memos, base, most time.Duration) *Backoff {
	b := &Backoff{limiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](base, most), until: map[string]time.Time{}}
	memos.Register(func(key types.NamespacedName) { b.Forget(key.String()) })
	return b
}

// Next is how long key waits before its next look, doubling with each call.
func (b *Backoff) Next(key string) time.Duration { return b.limiter.When(key) }

// Fail is Next for a try that failed: Waiting tells how much of the wait is left.
func (b *Backoff) Fail(key string) time.Duration {
	d := b.limiter.When(key)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.until[key] = time.Now().Add(d)
	return d
}

// Waiting is how much is left of the wait of key's last Fail; zero or less when none.
func (b *Backoff) Waiting(key string) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	until, ok := b.until[key]
	if !ok {
		return 0
	}
	return time.Until(until)
}

// Forget resets key's back-off.
func (b *Backoff) Forget(key string) {
	b.limiter.Forget(key)
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.until, key)
}

// Outcome is how a reconcile ended, for Result.
type Outcome struct {
	// Key names the object, for its back-off.
	Key string
	// Err is the reconcile's error; StatusErr the status write's.
	Err, StatusErr error
	// Waiting is true when something the reconcile waits for may pass by
	// itself and no watch tells when (FE not answering): it comes back on
	// the back-off, and the retries are not logged as failures.
	Waiting bool
	// After is how soon to look again otherwise; zero waits for a watch event.
	After time.Duration
}

// Result is the one error and back-off policy of both reconcilers: a
// transient error (or a failed status write) goes back to the controller's
// back-off; a name taken, or a wait on FE, to the object's own; a user
// error waits for a watch event; anything else resets the back-off and
// comes back after o.After.
func (b *Backoff) Result(o Outcome) (ctrl.Result, error) {
	if Transient(o.Err) || o.StatusErr != nil {
		return ctrl.Result{}, errors.Join(o.Err, o.StatusErr)
	}
	var exists *apply.ExistsError
	if errors.As(o.Err, &exists) || o.Waiting {
		return ctrl.Result{RequeueAfter: b.limiter.When(o.Key)}, nil
	}
	b.limiter.Forget(o.Key)
	if o.Err != nil {
		return ctrl.Result{}, nil // the watches on what must change bring the reconcile back
	}
	return ctrl.Result{RequeueAfter: o.After}, nil
}
