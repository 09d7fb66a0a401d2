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

package fe

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestDeniedTellsWhoFromWhat(t *testing.T) {
	onStmt := func(stmt string, err error) error {
		return &StatementError{Statement: stmt, Address: "fe:9030", Err: err}
	}
	privilege := &mysql.MySQLError{Number: 5203, Message: "Access denied; you need (at least one of) the NODE privilege(s) on SYSTEM for this operation. Please ask the admin to grant permission(s) or try activating existing roles using <set [default] role>. Current role(s): NONE. Inactivated role(s): NONE."}
	cases := []struct {
		name      string
		err       error
		want      Denial
		statement string
		refusal   bool
	}{
		{"a wrong password is a refused login", &mysql.MySQLError{Number: 1045, Message: "Access denied for user 'op' (using password: YES)"}, LoginRefused, "", false},
		{"a missing privilege names the statement", onStmt("ALTER SYSTEM DECOMMISSION BACKEND 'be-2:9050'", privilege), PrivilegeMissing, "ALTER SYSTEM DECOMMISSION BACKEND 'be-2:9050'", false},
		{"under an external access controller", onStmt("SHOW PROC '/statistic'", &mysql.MySQLError{Number: 5204, Message: "Access denied; you need (at least one of) the OPERATE privilege(s) on SYSTEM for this operation."}), PrivilegeMissing, "SHOW PROC '/statistic'", false},
		{"MySQL's number, older FEs", onStmt("SHOW FRONTENDS", &mysql.MySQLError{Number: 1227, Message: "Access denied; you need (at least one of) the OPERATE privilege(s) for this operation"}), PrivilegeMissing, "SHOW FRONTENDS", false},
		{"a joined read keeps the denial", errors.Join(errors.New("other"), onStmt("SHOW BACKENDS", privilege)), PrivilegeMissing, "SHOW BACKENDS", false},
		{"FE's capacity refusal is no denial", onStmt("ALTER SYSTEM DECOMMISSION BACKEND 'x:1'", &mysql.MySQLError{Number: 1064, Message: "It will cause insufficient BE number"}), NotDenied, "", true},
		{"FE refusing plaintext is no refusal of the statement", onStmt("ALTER SYSTEM DECOMMISSION BACKEND 'x:1'", &mysql.MySQLError{Number: 5205, Message: "Connections using insecure transport are prohibited"}), NotDenied, "", false},
		{"FE not answering is no denial", fmt.Errorf("dial: %w", errors.New("connection refused")), NotDenied, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, stmt := Denied(c.err)
			if d != c.want || stmt != c.statement {
				t.Errorf("Denied = %v, %q; want %v, %q", d, stmt, c.want, c.statement)
			}
			if _, refused := Refusal(c.err); refused != c.refusal {
				t.Errorf("Refusal = %v, want %v: a denial is not FE refusing what was asked", refused, c.refusal)
			}
		})
	}
}
