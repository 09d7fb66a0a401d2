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

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

// feTrouble is the one place that names why FE did not do what a step
// asked: a user error found before FE was asked (InvalidFESSLMode); the TLS
// family (FE refuses plaintext, or the TLS connection failed); the FE
// credentials family (the login cannot be built, FE refuses it, or the user
// lacks a privilege the statement needs); else FE did not answer. what
// opens the status message; the error follows it.
func feTrouble(err error) (reason, what string) {
	var user *reconcile.UserError
	if errors.As(err, &user) {
		return user.Reason, "FE was not asked"
	}
	var missing *credentialsError
	if errors.As(err, &missing) {
		return srv1.ReasonFECredentialsMissing, "the operator cannot read its FE credentials"
	}
	switch {
	case fe.InsecureTransportRefused(err):
		return srv1.ReasonFEInsecureTransport, "FE refuses connections without TLS"
	case fe.TLSFailed(err):
		return srv1.ReasonFETLSFailed, "the TLS connection to FE failed"
	}
	switch d, stmt := fe.Denied(err); d {
	case fe.LoginRefused:
		return srv1.ReasonFECredentialsRejected, "FE refused the operator's login"
	case fe.PrivilegeMissing:
		return srv1.ReasonFEPermissionDenied, "the operator's FE user lacks a privilege for " + stmt
	}
	return srv1.ReasonFEUnreachable, "FE did not answer"
}
