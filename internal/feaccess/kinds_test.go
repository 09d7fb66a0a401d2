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
	"crypto/x509"
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

func TestTLSFailuresHaveTheirOwnReasons(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("SHOW BACKENDS on FE a:9030: %w", &mysql.MySQLError{Number: 5205, Message: "Connections using insecure transport are prohibited"}), srv1.ReasonFEInsecureTransport},
		{fmt.Errorf("SHOW BACKENDS on FE a:9030: %w", mysql.ErrNoTLS), srv1.ReasonFETLSFailed},
		{x509.UnknownAuthorityError{}, srv1.ReasonFETLSFailed},
		{errors.New("dial tcp 10.0.0.1:9030: i/o timeout"), srv1.ReasonFEUnreachable},
		{fmt.Errorf("dropping warehouse w: %w", &reconcile.UserError{Reason: srv1.ReasonInvalidFESSLMode, Message: "annotation"}), srv1.ReasonInvalidFESSLMode},
	}
	for _, tc := range cases {
		if got := Classify(tc.err).Reason; got != tc.want {
			t.Errorf("%v: reason %s, want %s", tc.err, got, tc.want)
		}
	}
}

// FE's answers map to kinds in one place: what the user must act on, what
// is done already, and what is tried again.
func TestFEsAnswersHaveKinds(t *testing.T) {
	refused := func(stmt, msg string) error {
		return &fe.StatementError{Statement: stmt, Address: "fe:9030", Err: &mysql.MySQLError{Number: 1064, Message: msg}}
	}
	cases := []struct {
		name string
		err  error
		kind Kind
	}{
		{"a refused decommission must be acted on", refused(fe.DecommissionBackendsSQL([]string{"be-2:9050"}), "Backend does not exist[be-2:9050]"), Refused},
		{"another refusal of a cancel must be acted on", refused(fe.CancelDecommissionSQL([]string{"be-2:9050"}), "Syntax error"), Refused},
		{"no answer is transient", errors.New("dial tcp: i/o timeout"), Unreachable},
		{"a denied privilege is not a refusal", &fe.StatementError{Statement: "SHOW BACKENDS", Err: &mysql.MySQLError{Number: 5203}}, PermissionDenied},
		{"plaintext refused is not a refusal", &mysql.MySQLError{Number: 5205, Message: "Connections using insecure transport are prohibited"}, InsecureTransport},
		{"a bad mode was found before FE was asked", &reconcile.UserError{Reason: srv1.ReasonInvalidFESSLMode}, NotAsked},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := Classify(c.err)
			if tr.Kind != c.kind {
				t.Errorf("kind %d, want %d (%+v)", tr.Kind, c.kind, tr)
			}
			if tr.Kind == Refused && (tr.Reason != srv1.ReasonFEUnreachable || tr.Message == "") {
				t.Errorf("a refusal: reason %s, message %q; want FEUnreachable's reason and FE's message", tr.Reason, tr.Message)
			}
		})
	}
}
