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
	"errors"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

// Kind is what an error from the door means for the step that got it.
type Kind int

const (
	// Unreachable means FE did not answer: transient, the next look retries.
	Unreachable Kind = iota
	// NotAsked means a reconcile.UserError was found before FE was asked (an unknown
	// FESSLModeAnnotation); the user must fix the cluster.
	NotAsked
	// CredentialsMissing means the login cannot be put together (the Secret or
	// MYSQL_PWD's source cannot be read, the annotation names no Secret).
	CredentialsMissing
	// CredentialsRejected means FE refused the login (1045).
	CredentialsRejected
	// PermissionDenied means the user lacks a privilege the statement needs.
	PermissionDenied
	// InsecureTransport means FE refuses connections without TLS (5205).
	InsecureTransport
	// TLSFailed means the TLS connection to FE failed.
	TLSFailed
	// Refused means FE answered and refused what was asked (fe.Refusal); the
	// user must act, asking again gets the same answer.
	Refused
	// AuthPluginRefused means FE asked for a login other than
	// mysql_native_password, which the operator does not speak
	// (fe.AuthPluginError): no password was sent.
	AuthPluginRefused
	// AnswerTooLarge means FE answered more than the cluster's pods could
	// explain (fe.AnswerTooLargeError): nothing was decided on it.
	AnswerTooLarge
	// AnswerInvalid means FE answered what does not read as FE's answer
	// (fe.InvalidAnswerError): nothing was decided on it.
	AnswerInvalid
)

// Trouble is what FE's answer (or its silence) means: its kind, the
// condition reason and the words that open a status message, and for
// Refused FE's own message. FE answering that a statement has nothing
// left to do is no trouble: the statement's Send (internal/fe) absorbs it.
type Trouble struct {
	Kind   Kind
	Reason string
	// What opens the status message; the error follows it.
	What string
	// Message is FE's, for Refused.
	Message string
}

// Classify is the one place that names why FE did not do what a step
// asked: a reconcile.UserError found before FE was asked (InvalidFESSLMode,
// a ConfigMap not found); the
// TLS family (FE refuses plaintext, or the TLS connection failed); the FE
// credentials family (the login cannot be built, FE refuses it, or the user
// lacks a privilege the statement needs); FE refusing the statement
// itself; else FE did not answer. A refusal's reason
// and words are FEUnreachable's, as FE not answering: only its kind differs.
func Classify(err error) Trouble {
	var user *reconcile.UserError
	if errors.As(err, &user) {
		return Trouble{Kind: NotAsked, Reason: user.Reason, What: "FE was not asked"}
	}
	var missing *credentialsError
	if errors.As(err, &missing) {
		return Trouble{Kind: CredentialsMissing, Reason: srv1.ReasonFECredentialsMissing, What: "the operator cannot read its FE credentials"}
	}
	var (
		plugin *fe.AuthPluginError
		large  *fe.AnswerTooLargeError
		bad    *fe.InvalidAnswerError
	)
	switch {
	case errors.As(err, &plugin):
		return Trouble{Kind: AuthPluginRefused, Reason: srv1.ReasonFEAuthPluginRefused, What: "FE asked for a login the operator does not speak"}
	case errors.As(err, &large):
		return Trouble{Kind: AnswerTooLarge, Reason: srv1.ReasonFEAnswerTooLarge, What: "FE's answer was too large"}
	case errors.As(err, &bad):
		return Trouble{Kind: AnswerInvalid, Reason: srv1.ReasonFEAnswerInvalid, What: "FE's answer does not read as FE's"}
	case fe.InsecureTransportRefused(err):
		return Trouble{Kind: InsecureTransport, Reason: srv1.ReasonFEInsecureTransport, What: "FE refuses connections without TLS"}
	case fe.TLSFailed(err):
		return Trouble{Kind: TLSFailed, Reason: srv1.ReasonFETLSFailed, What: "the TLS connection to FE failed"}
	}
	switch d, stmt := fe.Denied(err); d {
	case fe.LoginRefused:
		return Trouble{Kind: CredentialsRejected, Reason: srv1.ReasonFECredentialsRejected, What: "FE refused the operator's login"}
	case fe.PrivilegeMissing:
		return Trouble{Kind: PermissionDenied, Reason: srv1.ReasonFEPermissionDenied, What: "the operator's FE user lacks a privilege for " + stmt}
	}
	t := Trouble{Kind: Unreachable, Reason: srv1.ReasonFEUnreachable, What: "FE did not answer"}
	if msg, refused := fe.Refusal(err); refused {
		t.Kind, t.Message = Refused, msg
	}
	return t
}

// KindOf is Classify(err).Kind; nil is no trouble and has no kind: ask
// only of an error.
func KindOf(err error) Kind { return Classify(err).Kind }
