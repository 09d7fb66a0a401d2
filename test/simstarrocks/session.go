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

import "strings"

// session is what an FE keeps of one connection: the FE it reached ("" for
// the model itself, before any FE process is known) and the session
// variables the simulation reads.
type session struct {
	fe string
	// forwardToLeader is the session variable forward_to_leader (alias
	// forward_to_master), false by default: "if set to true, some of stmt
	// will be forwarded to leader FE to get result" (qe/SessionVariable.java,
	// FORWARD_TO_LEADER / FORWARD_TO_MASTER).
	forwardToLeader bool
}

// set runs SET <variable> = <value> on the session. Any user may set a
// session variable. Only the variables the simulation reads are known; the
// others are refused as not simulated rather than ignored.
func (s *session) set(st *statement) *sqlError {
	switch st.setVar {
	case "forward_to_leader", "forward_to_master":
	default:
		return ddlError("simstarrocks: SET %s is not simulated", st.setVar)
	}
	// A boolean variable takes ON/TRUE/1 and OFF/FALSE/0, in any case.
	// UNVERIFIED: the error for another value; the simulation sends MySQL's
	// ER_WRONG_VALUE_FOR_VAR (1231, 42000).
	switch strings.ToLower(st.setValue) {
	case "on", "true", "1":
		s.forwardToLeader = true
	case "off", "false", "0":
		s.forwardToLeader = false
	default:
		return &sqlError{code: 1231, state: "42000", msg: "Variable '" + st.setVar + "' can't be set to the value of '" + st.setValue + "'"}
	}
	return nil
}

// forwarded reports whether FE runs read st on the leader rather than on
// the FE the connection reached: RedirectStatus FORWARD_NO_SYNC, executed
// by the leader at once, without waiting for this FE's replay.
//   - SHOW FRONTENDS, SHOW BACKENDS and SHOW COMPUTE NODES always
//     (ShowFrontendsStmt, ShowBackendsStmt and ShowComputeNodesStmt
//     .getRedirectStatus since 2.x; RedirectStatus.RedirectStatusVisitor in
//     the newest code).
//   - SHOW PROC when forward_to_leader is set, or when the path's root is
//     backends, cluster_balance, routine_loads or transactions
//     (ShowProcStmt.getRedirectStatus, NEED_FORWARD_PATH_ROOT). So SHOW PROC
//     '/statistic' and '/frontends' are answered by the FE reached, from its
//     replayed state, unless the session sets forward_to_leader.
func (st *statement) forwarded(s *session) bool {
	switch st.kind {
	case stShowFrontends, stShowBackends, stShowComputeNodes:
		return true
	case stShowBackup, stShowRestore, stShowRepositories, stShowSnapshot, stShowDatabases, stShowTables, stSelectInfo:
		// ShowStmt's redirect: forwarded to the leader when the session sets
		// forward_to_leader, else answered by the FE reached. UNVERIFIED for
		// these statements (backup §7: "Whether forward_to_leader forwards
		// SHOW BACKUP is UNVERIFIED"); the simulation treats them as SHOW
		// PROC without a forwarded root.
		return s != nil && s.forwardToLeader
	case stShowProc:
		if s != nil && s.forwardToLeader {
			return true
		}
		switch procName(st.procPath) {
		case "backends", "cluster_balance", "routine_loads", "transactions":
			return true
		}
	}
	return false
}
