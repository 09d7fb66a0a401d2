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
	"errors"
	"slices"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
)

// The operator's error taxonomy. A reconcile error is one of two kinds:
//   - a userError: the spec, a ConfigMap or another object must change
//     before anything can (a missing ConfigMap, an immutable field edited, a
//     warehouse whose cluster's FE is not ready). It is reported in a
//     condition and one Event, and not retried: the watch on what must
//     change brings the reconcile back;
//   - an apply.ExistsError is the user's too (an object of the name exists
//     that is not ours), but no watch tells when it goes: it is looked at
//     again on a back-off of its own;
//   - anything else is transient (a failed write, a timeout): reported and
//     retried with the controller's back-off.
//
// A joined error is transient if any part of it is: a spec problem beside a
// failed write must not keep the write from being retried.

// userError is a problem retrying cannot fix; reason is its condition reason.
type userError struct {
	reason string
	msg    string
}

func (e *userError) Error() string { return e.msg }

// transient reports whether err, or any part of a joined err, is not a userError.
func transient(err error) bool {
	switch e := err.(type) { //nolint:errorlint // it walks the tree errors.As would: a join is transient if any part is
	case nil:
		return false
	case *userError, *apply.ExistsError:
		return false
	case interface{ Unwrap() []error }:
		return slices.ContainsFunc(e.Unwrap(), transient)
	case interface{ Unwrap() error }:
		inner := e.Unwrap()
		return inner == nil || transient(inner)
	default:
		return true
	}
}

// errorReason is the condition reason of a reconcile error: a userError's
// own, else ApplyFailed.
func errorReason(err error) string {
	var user *userError
	var exists *apply.ExistsError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &user):
		return user.reason
	case errors.As(err, &exists):
		return srv1.ReasonAlreadyExists
	default:
		return srv1.ReasonApplyFailed
	}
}
