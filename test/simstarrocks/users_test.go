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

package simstarrocks_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

func connectAs(t *testing.T, s *simstarrocks.StarRocks, user, password string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.Passwd = "tcp", s.QueryAddress(), user, password
	cfg.Timeout, cfg.ReadTimeout, cfg.AllowNativePasswords = 2*time.Second, 5*time.Second, true
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// The privileges FE checks before a statement runs
// (AuthorizerStmtVisitor), and its refusal ERR_ACCESS_DENIED 5203 / 42000
// (ErrorCode, AccessDeniedException.reportAccessDenied): see users.go.
func TestUsersNeedTheirPrivileges(t *testing.T) {
	s, root := started(t, simstarrocks.Options{Password: "r"})
	withBackends(t, s, root, 2)
	const hint = " for this operation. Please ask the admin to grant permission(s) or try activating existing roles using <set [default] role>. "
	operator := simstarrocks.User{Name: "op", Password: "p", Roles: []string{"cluster_admin"}, DefaultRoles: []string{"cluster_admin"}, Privileges: []string{"OPERATE"}}
	noOperate := operator
	noOperate.Name, noOperate.Privileges = "no_operate", nil
	notDefault := operator
	notDefault.Name, notDefault.DefaultRoles = "not_default", nil
	plain := simstarrocks.User{Name: "plain", Password: "p"}
	for _, u := range []simstarrocks.User{operator, noOperate, notDefault, plain} {
		s.CreateUser(u)
	}
	cases := []struct {
		user, stmt, refusal string
	}{
		{"op", "SHOW FRONTENDS", ""},
		{"op", "SHOW BACKENDS", ""},
		{"op", "SHOW PROC '/statistic'", ""},
		{"op", "ALTER SYSTEM DECOMMISSION BACKEND 'be-1:9050'", ""},
		{"op", "CANCEL DECOMMISSION BACKEND 'be-1:9050'", ""},
		{"no_operate", "SHOW BACKENDS", ""}, // OPERATE or else NODE
		{"no_operate", "SHOW PROC '/statistic'", "Access denied; you need (at least one of) the OPERATE privilege(s) on SYSTEM" + hint + "Current role(s): [cluster_admin]. Inactivated role(s): NONE."},
		{"not_default", "ALTER SYSTEM DECOMMISSION BACKEND 'be-1:9050'", "Access denied; you need (at least one of) the NODE privilege(s) on SYSTEM" + hint + "Current role(s): NONE. Inactivated role(s): [cluster_admin]."},
		{"not_default", "SHOW COMPUTE NODES", ""}, // OPERATE suffices
		{"plain", "SHOW FRONTENDS", "Access denied; you need (at least one of) the OPERATE OR NODE privilege(s) on SYSTEM" + hint + "Current role(s): NONE. Inactivated role(s): NONE."},
		{"plain", "SET forward_to_leader = true", ""}, // any user sets its session's variables
		{"op", "SHOW PROC '/frontends'", ""},
		{"op", "DROP WAREHOUSE IF EXISTS `wh_1`", "Access denied; you need (at least one of) the DROP privilege(s) on WAREHOUSE wh_1" + hint + "Current role(s): [cluster_admin]. Inactivated role(s): NONE."},
	}
	for _, c := range cases {
		t.Run(c.user+" "+c.stmt, func(t *testing.T) {
			before := len(s.Statements())
			_, _, err := query(connectAs(t, s, c.user, "p"), c.stmt)
			if c.refusal == "" {
				// Past the privilege check; FE may still refuse what is asked.
				if me := mysqlError(err); (err != nil && me == nil) || (me != nil && me.Number == 5203) {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			me := mysqlError(err)
			if me == nil || me.Number != 5203 || string(me.SQLState[:]) != "42000" || me.Message != c.refusal {
				t.Fatalf("got %v\nwant ERROR 5203 (42000): %s", err, c.refusal)
			}
			if got := s.Statements(); len(got) != before+1 {
				t.Errorf("statements %q: the refused one is received, nothing else", got[before:])
			}
		})
	}
	t.Run("a refused statement changes nothing", func(t *testing.T) {
		_, before := mustQuery(t, root, "SHOW BACKENDS")
		_, _, err := query(connectAs(t, s, "not_default", "p"), "ALTER SYSTEM DROP BACKEND 'be-0:9050'")
		if mysqlError(err) == nil {
			t.Fatalf("not refused: %v", err)
		}
		_, after := mustQuery(t, root, "SHOW BACKENDS")
		if len(before) == 0 || len(after) != len(before) {
			t.Errorf("%d backends after a refused drop, want %d", len(after), len(before))
		}
	})
	t.Run("a wrong password is refused at login", func(t *testing.T) {
		_, _, err := query(connectAs(t, s, "op", "wrong"), "SHOW FRONTENDS")
		if me := mysqlError(err); me == nil || me.Number != 1045 || me.Message != "Access denied for user 'op' (using password: YES)" {
			t.Errorf("got %v, want ERROR 1045", err)
		}
	})
}

// A client knows whether what it sent may have changed FE: a statement FE
// answered with an error (a missing privilege, a refusal) changed nothing,
// so what FE said before stands (internal/feaccess marks its view stale
// only otherwise); one that succeeded, or got no answer, may have.
func TestAClientKnowsWhetherItsStatementsMayHaveChangedFE(t *testing.T) {
	s, root := started(t, simstarrocks.Options{Password: "r"})
	withBackends(t, s, root, 2)
	op := simstarrocks.User{Name: "op", Password: "p", Roles: []string{"cluster_admin"}, DefaultRoles: []string{"cluster_admin"}, Privileges: []string{"OPERATE"}}
	notDefault := op
	notDefault.Name, notDefault.DefaultRoles = "not_default", nil
	s.CreateUser(op)
	s.CreateUser(notDefault)
	ctx := context.Background()

	denied := &fe.Client{Address: s.QueryAddress(), User: "not_default", Password: "p"}
	if err := denied.DecommissionBackends(ctx, []string{"be-1:9050"}); err == nil {
		t.Fatal("a user without NODE decommissioned a BE: the test proves nothing")
	}
	if denied.MayHaveActed() {
		t.Error("a denied DECOMMISSION may have changed FE, says the client")
	}
	refused := &fe.Client{Address: s.QueryAddress(), User: "op", Password: "p"}
	if err := refused.DecommissionBackends(ctx, []string{"nowhere:9050"}); err == nil {
		t.Fatal("FE decommissioned a BE it does not have")
	}
	if refused.MayHaveActed() {
		t.Error("a refused DECOMMISSION may have changed FE, says the client")
	}
	if err := refused.DecommissionBackends(ctx, []string{"be-1:9050"}); err != nil {
		t.Fatal(err)
	}
	if !refused.MayHaveActed() {
		t.Error("after a DECOMMISSION FE took, the client says nothing changed")
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := &fe.Client{Address: closed.Addr().String(), User: "op", Password: "p", Attempts: 1}
	_ = closed.Close()
	if err := gone.DecommissionBackends(ctx, []string{"be-1:9050"}); err == nil {
		t.Fatal("a statement to no FE succeeded")
	}
	if !gone.MayHaveActed() {
		t.Error("a statement that got no answer may have run, but the client says nothing changed")
	}
}

// FE's statements absorb FE answering that there is nothing left to do: a
// BE whose decommission is cancelled was dropped meanwhile; a DECOMMISSION
// of a BE FE does not have is FE's refusal, to be acted on.
func TestAStatementWithNothingLeftToDoIsNoError(t *testing.T) {
	s, _ := started(t, simstarrocks.Options{})
	c := &fe.Client{Address: s.QueryAddress()}
	ctx := context.Background()
	if err := (fe.CancelDecommission{Backends: []string{"gone-be:9050"}}).Send(ctx, c); err != nil {
		t.Errorf("cancelling the decommission of a BE FE dropped: %v, want nothing left to do", err)
	}
	if !c.MayHaveActed() {
		t.Error("FE answered that the BE is gone, yet the client says FE is as it was: the report that listed it is not out of date")
	}
	if err := (fe.DecommissionBackends{Backends: []string{"gone-be:9050"}}).Send(ctx, c); err == nil {
		t.Error("decommissioning a BE FE does not have succeeded")
	}
}

// FE lists a follower added but never started with Join false (sheet §2):
// the client reads it as no voter, and the one that leads as one.
func TestAFollowerThatNeverJoinedIsNoVoter(t *testing.T) {
	s, root := started(t, simstarrocks.Options{})
	mustExec(t, root, `ALTER SYSTEM ADD FOLLOWER "never-started:9010"`)
	frontends, err := (&fe.Client{Address: s.QueryAddress()}).ShowFrontends(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var voters, unjoined int
	for _, f := range frontends {
		if f.Voter() {
			voters++
		}
		if f.Unjoined {
			unjoined++
			if f.Host != "never-started" {
				t.Errorf("%s is listed as not joined", f.Host)
			}
		}
	}
	if len(frontends) != 2 || voters != 1 || unjoined != 1 {
		t.Errorf("%d rows, %d voters, %d not joined: want 2, the leader, and the follower that never started", len(frontends), voters, unjoined)
	}
}

// SET PASSWORD: the stored form ('*' and 40 hex digits, any case) or
// PASSWORD('plain'); anything else is ERR_PASSWD_LENGTH 5201 (users.go).
func TestSetPasswordStoresFEsHash(t *testing.T) {
	s := simstarrocks.Start(t, simstarrocks.Options{})
	root := connectAs(t, s, "root", "")
	ctx := context.Background()
	var refused *mysql.MySQLError
	if _, err := root.ExecContext(ctx, "SET PASSWORD = 'secret'"); !errors.As(err, &refused) || refused.Number != 5201 ||
		refused.Message != "Password hash should be a 41-digit hexadecimal number" {
		t.Fatalf("a plain string as the stored form: %v", err)
	}
	// *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19 is SHA1(SHA1("password")), lower-cased here.
	if _, err := root.ExecContext(ctx, "SET PASSWORD = '*2470c0c06dee42fd1618bb99005adca2ec9d1e19'"); err != nil {
		t.Fatal(err)
	}
	if err := connectAs(t, s, "root", "password").PingContext(ctx); err != nil {
		t.Fatalf("root with the new password: %v", err)
	}
	if err := connectAs(t, s, "root", "").PingContext(ctx); !errors.As(err, &refused) || refused.Number != 1045 {
		t.Fatalf("root without a password: %v, want 1045", err)
	}
	again := connectAs(t, s, "root", "password")
	if _, err := again.ExecContext(ctx, "SET PASSWORD = PASSWORD('p2')"); err != nil {
		t.Fatal(err)
	}
	if err := connectAs(t, s, "root", "p2").PingContext(ctx); err != nil {
		t.Fatalf("root with PASSWORD('p2'): %v", err)
	}
}
