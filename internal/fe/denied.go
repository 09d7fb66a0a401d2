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

	"github.com/go-sql-driver/mysql"
)

// StatementError is a statement FE did not run: the statement as sent, the
// FE it went to, and why.
type StatementError struct {
	Statement string
	Address   string
	Err       error
}

func (e *StatementError) Error() string {
	return fmt.Sprintf("%s on FE %s: %v", e.Statement, e.Address, e.Err)
}

func (e *StatementError) Unwrap() error { return e.Err }

// Denial says whether FE refused who the operator is, as opposed to what it asked.
type Denial int

const (
	// NotDenied means FE answered, refused for another reason, or did not answer.
	NotDenied Denial = iota
	// LoginRefused means FE refused the user and password (1045).
	LoginRefused
	// PrivilegeMissing means the user logged in but lacks a privilege the statement needs.
	PrivilegeMissing
)

// FE's error numbers for the two denials (common/ErrorCode.java):
//   - ERR_ACCESS_DENIED_ERROR 1045 / 28000 "Access denied for user '%s'
//     (using password: %s)", a failed login;
//   - ERR_ACCESS_DENIED 5203 / 42000 "Access denied; you need (at least one
//     of) the %s privilege(s) on %s%s for this operation. Please ask the admin
//     to grant permission(s) or try activating existing roles using <set
//     [default] role>. Current role(s): %s. Inactivated role(s): %s.", sent by
//     AccessDeniedException.reportAccessDenied for every check of
//     sql/analyzer/AuthorizerStmtVisitor;
//   - ERR_ACCESS_DENIED_FOR_EXTERNAL_ACCESS_CONTROLLER 5204, the same check
//     under an external access controller (Ranger);
//   - ERR_SPECIFIC_ACCESS_DENIED_ERROR 1227 / 42000 "Access denied; you need
//     (at least one of) the %s privilege(s) for this operation", MySQL's
//     number, kept in older FE versions' ErrorCode.
const (
	errLoginRefused         = 1045
	errAccessDenied         = 5203
	errAccessDeniedExternal = 5204
	errSpecificAccessDenied = 1227
)

// Denied classifies err: a refused login, a missing privilege, or neither.
// For a missing privilege, statement is the statement FE refused.
func Denied(err error) (d Denial, statement string) {
	var refused *mysql.MySQLError
	if !errors.As(err, &refused) {
		return NotDenied, ""
	}
	var se *StatementError
	if errors.As(err, &se) {
		statement = se.Statement
	}
	switch refused.Number {
	case errLoginRefused:
		return LoginRefused, statement
	case errAccessDenied, errAccessDeniedExternal, errSpecificAccessDenied:
		return PrivilegeMissing, statement
	}
	return NotDenied, ""
}
