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

package simstarrocks

import (
	"crypto/sha1" //nolint:gosec // FE's native password hash
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Users, roles and the privileges the operator's statements need, as FE's
// RBAC (3.0+) checks them before it runs a statement
// (sql/analyzer/AuthorizerStmtVisitor.java @003f9173):
//
//   - SHOW FRONTENDS / BACKENDS / COMPUTE NODES: OPERATE on SYSTEM, or else
//     NODE on SYSTEM (visitShowFrontendsStatement, visitShowBackendsStatement,
//     visitShowComputeNodes); refused as "OPERATE OR NODE".
//   - SHOW PROC: OPERATE on SYSTEM (visitShowProcStmt; only the tablet
//     detail path /dbs/<db>/<tbl>/partitions/... is exempt).
//   - ALTER SYSTEM (every clause: ADD/DROP/DECOMMISSION BACKEND, ADD/DROP
//     FOLLOWER/OBSERVER, ADD/DROP COMPUTE NODE, CREATE IMAGE): NODE on
//     SYSTEM (visitAlterSystemStatement).
//   - CANCEL DECOMMISSION BACKEND: NODE on SYSTEM (visitCancelAlterSystemStatement).
//   - CREATE WAREHOUSE: CREATE WAREHOUSE on SYSTEM; DROP WAREHOUSE: DROP on
//     that WAREHOUSE (visitCreateWarehouseStatement, visitDropWarehouseStatement).
//   - ADMIN SET / SHOW FRONTEND CONFIG: OPERATE on SYSTEM
//     (visitAdminSetConfigStatement, visitAdminShowConfigStatement); not
//     parsed by this simulation yet.
//
// Roles: root holds every privilege; cluster_admin holds NODE on SYSTEM and
// nothing else, and NODE can be granted to no user or role but through it
// (docs "Built-in roles": cluster_admin, SYSTEM: NODE). A user's roles act
// only once activated: at login, its default roles (SET DEFAULT ROLE), so a
// granted but not default role is listed as inactivated in the refusal.
//
// A refusal is ERR_ACCESS_DENIED 5203 / 42000 (common/ErrorCode.java
// @ad04df52), formatted by AccessDeniedException.reportAccessDenied
// (authorization/AccessDeniedException.java @0178d9be): the privilege,
// the object type, " <object>" or "", then the active and inactive roles as
// Java lists ("[cluster_admin]") or NONE.

// User is a StarRocks user besides root.
type User struct {
	Name, Password string
	// Roles are the roles granted (GRANT <role> TO USER); only the built-in
	// cluster_admin carries privileges in this simulation.
	Roles []string
	// DefaultRoles are the granted roles activated at login (SET DEFAULT ROLE).
	DefaultRoles []string
	// Privileges are granted directly: "OPERATE", "REPOSITORY" or "CREATE
	// WAREHOUSE" on SYSTEM, "DROP ON WAREHOUSE <name>" or "DROP ON ALL
	// WAREHOUSES", "CREATE DATABASE ON CATALOG default_catalog".
	Privileges []string
}

// CreateUser adds (or replaces) a user the simulated FE lets log in.
func (s *StarRocks) CreateUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == nil {
		s.users = map[string]User{}
	}
	s.users[u.Name] = u
}

// password is the password of user, and whether FE knows the user.
func (s *StarRocks) password(user string) (string, bool) {
	if user == "root" {
		return s.opts.Password, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[user]
	return u.Password, ok
}

// SET PASSWORD (StarRocks.g4 setVar #setPassword) changes the session
// user's own password. FE stores '*' and 40 upper-case hex digits of
// SHA1(SHA1(password)) (MysqlPassword.makeScrambledPassword, over the
// password's UTF-8 bytes); SET PASSWORD = PASSWORD('p') stores that of p,
// SET PASSWORD = 'string' stores the string itself, which
// MysqlPassword.checkPassword takes upper-cased when it is '*' and 40 hex
// digits, an empty string as no password, and refuses otherwise with
// ERR_PASSWD_LENGTH, 5201 / HY000, "Password hash should be a 41-digit
// hexadecimal number" (common/ErrorCode.java). The login then checks the
// scramble against the stored hash (MysqlPassword.checkScramble).

// setPassword runs SET PASSWORD for user.
func (s *StarRocks) setPassword(user string, st *statement) *sqlError {
	var stage2 []byte
	switch {
	case st.plainPassword && st.password != "":
		h1 := sha1.Sum([]byte(st.password)) //nolint:gosec // FE's own hash
		h2 := sha1.Sum(h1[:])               //nolint:gosec // FE's own hash
		stage2 = h2[:]
	case !st.plainPassword && st.password != "":
		v := strings.ToUpper(st.password)
		b, err := hex.DecodeString(strings.TrimPrefix(v, "*"))
		if len(v) != 41 || v[0] != '*' || err != nil {
			return &sqlError{code: 5201, state: "HY000", msg: "Password hash should be a 41-digit hexadecimal number"}
		}
		stage2 = b
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hashes == nil {
		s.hashes = map[string][]byte{}
	}
	s.hashes[user] = stage2
	return nil
}

// storedPassword is the hash SET PASSWORD stored for user (nil: no
// password), and whether one was set.
func (s *StarRocks) storedPassword(user string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.hashes[user]
	return h, ok
}

// need is what a statement needs: any one of privs on the object.
type need struct {
	privs      []string
	objectType string // SYSTEM or WAREHOUSE
	object     string // the warehouse; "" on SYSTEM
}

func (st *statement) needs() need {
	switch st.kind {
	case stShowFrontends, stShowBackends, stShowComputeNodes:
		return need{privs: []string{"OPERATE", "NODE"}, objectType: "SYSTEM"}
	case stShowProc:
		return need{privs: []string{"OPERATE"}, objectType: "SYSTEM"}
	case stAdminSetConfig, stAdminShowConfig:
		// checkStmtOperatePrivilege (visitAdminSetConfigStatement,
		// visitAdminShowConfigStatement).
		return need{privs: []string{"OPERATE"}, objectType: "SYSTEM"}
	case stCreateWarehouse:
		return need{privs: []string{"CREATE WAREHOUSE"}, objectType: "SYSTEM"}
	case stDropWarehouse:
		return need{privs: []string{"DROP"}, objectType: "WAREHOUSE", object: st.warehouse}
	case stCreateRepository, stDropRepository, stBackup, stRestore, stDropSnapshot:
		// REPOSITORY on SYSTEM (backup §6). The EXPORT (BACKUP) and INSERT
		// (RESTORE) privileges on the tables are not simulated.
		return need{privs: []string{"REPOSITORY"}, objectType: "SYSTEM"}
	case stClusterSnapshot:
		// UNVERIFIED (backup §6): likely OPERATE, as other ADMIN SET statements.
		return need{privs: []string{"OPERATE"}, objectType: "SYSTEM"}
	case stCreateDatabase:
		return need{privs: []string{"CREATE DATABASE"}, objectType: "CATALOG", object: "default_catalog"}
	case stShowBackup, stShowRestore, stShowRepositories, stShowSnapshot, stCancelBackup, stCancelRestore,
		stShowDatabases, stShowTables, stSelectInfo:
		// UNVERIFIED (backup §6: AuthorizerStmtVisitor not read for these):
		// the simulation checks nothing.
		return need{}
	}
	// ALTER SYSTEM ... and CANCEL DECOMMISSION, and any statement added to
	// the parser without an entry here: NODE, which only root and
	// cluster_admin hold.
	return need{privs: []string{"NODE"}, objectType: "SYSTEM"}
}

// authorize refuses st for user as FE does when the user lacks what it needs.
func (s *StarRocks) authorize(user string, st *statement) *sqlError {
	if user == "root" || st.kind == stSet || st.kind == stSetPassword { // any user sets its session's variables, and its own password
		return nil
	}
	s.mu.Lock()
	u, ok := s.users[user]
	s.mu.Unlock()
	n := st.needs()
	if len(n.privs) == 0 || ok && u.holds(n) {
		return nil
	}
	var active, inactive []string
	for _, r := range u.Roles {
		if slices.Contains(u.DefaultRoles, r) {
			active = append(active, r)
		} else {
			inactive = append(inactive, r)
		}
	}
	object := ""
	if n.object != "" {
		object = " " + n.object
	}
	return &sqlError{code: 5203, state: "42000", msg: fmt.Sprintf(
		"Access denied; you need (at least one of) the %s privilege(s) on %s%s for this operation. "+
			"Please ask the admin to grant permission(s) or try activating existing roles using <set [default] role>. "+
			"Current role(s): %s. Inactivated role(s): %s.",
		strings.Join(n.privs, " OR "), n.objectType, object, javaList(active), javaList(inactive))}
}

func (u User) holds(n need) bool {
	for _, p := range n.privs {
		if n.objectType == "SYSTEM" && p == "NODE" {
			for _, r := range u.DefaultRoles {
				if r == "cluster_admin" && slices.Contains(u.Roles, r) {
					return true
				}
			}
			continue
		}
		for _, g := range u.Privileges {
			switch {
			case n.objectType == "SYSTEM" && g == p:
				return true
			case n.objectType == "WAREHOUSE" && (g == p+" ON ALL WAREHOUSES" || g == p+" ON WAREHOUSE "+n.object):
				return true
			case n.objectType == "CATALOG" && g == p+" ON CATALOG "+n.object:
				return true
			}
		}
	}
	return false
}

// javaList prints roles as FE does: NONE for none, else Java's List.toString.
func javaList(roles []string) string {
	if len(roles) == 0 {
		return "NONE"
	}
	return "[" + strings.Join(roles, ", ") + "]"
}
