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
	"crypto/x509"
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
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
		if got, _ := Trouble(tc.err); got != tc.want {
			t.Errorf("%v: reason %s, want %s", tc.err, got, tc.want)
		}
	}
}
