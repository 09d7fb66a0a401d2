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
	"context"
	"crypto/subtle"
	"crypto/x509"
	"errors"
	"net"
	"time"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
	"k8s.io/utils/clock"
)

// leaderWait bounds how long a statement waits for a leader (sheet §1 step
// 5: the FE hangs, the client's timeout ends it).
const leaderWait = 60 * time.Second

// authServer logs root and the users of users.go in with
// mysql_native_password, the FE's plugin (sheet §0).
type authServer struct{ s *StarRocks }

func (a *authServer) AuthMethods() []mysql.AuthMethod {
	return []mysql.AuthMethod{transportCheck{AuthMethod: mysql.NewMysqlNativeAuthMethod(a, a), s: a.s}}
}

func (a *authServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return mysql.MysqlNativePassword
}

// HandleUser lets every user name try; the password check decides.
func (a *authServer) HandleUser(string, net.Addr) bool { return true }

// UserEntryWithHash checks the scrambled password. A refusal is
// ERR_ACCESS_DENIED_ERROR / ERR_AUTHENTICATION_FAIL, 1045 / 28000, "Access
// denied for user '%s' (using password: %s)" with the user name alone as the
// first argument and YES when the client sent a scramble, NO when it sent
// none (common/ErrorCode.java @00421d9c; MysqlProto.authenticate @00b57d40
// and authentication/AuthenticationHandler.java @05d855c2: usePasswd =
// authResponse.length == 0 ? "NO" : "YES"; sheet §11).
func (a *authServer) UserEntryWithHash(_ []*x509.Certificate, salt []byte, user string, authResponse []byte, _ net.Addr) (mysql.Getter, error) {
	usePasswd := "YES"
	if len(authResponse) == 0 {
		usePasswd = "NO"
	}
	password, ok := a.s.password(user)
	if hash, set := a.s.storedPassword(user); ok && set {
		// The hash SET PASSWORD stored (users.go); none is no password.
		ok = len(hash) == 0 && len(authResponse) == 0 ||
			len(hash) > 0 && len(authResponse) == len(hash) && mysql.VerifyHashedMysqlNativePassword(authResponse, salt, hash)
	} else if ok {
		want := mysql.ScrambleMysqlNativePassword(salt, []byte(password))
		ok = len(want) == len(authResponse) && subtle.ConstantTimeCompare(want, authResponse) == 1
	}
	if !ok {
		return nil, mysql.NewSQLError(mysql.ERAccessDeniedError, mysql.SSAccessDeniedError, "Access denied for user '%s' (using password: %s)", user, usePasswd)
	}
	a.s.mu.Lock()
	a.s.logins = append(a.s.logins, user)
	a.s.mu.Unlock()
	return userData(user), nil
}

type userData string

func (u userData) Get() *querypb.VTGateCallerID { return &querypb.VTGateCallerID{Username: string(u)} }

// handler is vitess's mysql.Handler: text protocol only, no session state.
type handler struct{ s *StarRocks }

// NewConnection starts the connection's session, noting which FE it
// reached (frontends.go).
func (h *handler) NewConnection(c *mysql.Conn) {
	sess := &session{}
	if fc, ok := c.Conn.(*feConn); ok && fc.fe != "" {
		sess.fe = fc.fe
		h.s.connected(fc.fe, c)
	}
	c.ClientData = sess
}

func (h *handler) ConnectionClosed(c *mysql.Conn) {
	if sess, ok := c.ClientData.(*session); ok && sess.fe != "" {
		h.s.disconnected(sess.fe, c)
	}
}

func (h *handler) ConnectionAborted(*mysql.Conn, string) error { return nil }
func (h *handler) ComInitDB(*mysql.Conn, string) error         { return nil }
func (h *handler) WarningCount(*mysql.Conn) uint16             { return 0 }
func (h *handler) ComResetConnection(*mysql.Conn) error        { return nil }

func (h *handler) ParserOptionsForConnection(*mysql.Conn) (sqlparser.ParserOptions, error) {
	return sqlparser.ParserOptions{}, nil
}

// ComMultiQuery answers the whole text as one statement: the mysql client
// splits its -e text at ';' itself.
func (h *handler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	return "", h.ComQuery(ctx, c, query, callback)
}

var errNoPrepare = mysql.NewSQLError(mysql.ERUnknownComError, mysql.SSUnknownSQLState, "simstarrocks: prepared statements are not simulated")

func (h *handler) ComPrepare(context.Context, *mysql.Conn, string, *mysql.PrepareData) ([]*querypb.Field, error) {
	return nil, errNoPrepare
}

func (h *handler) ComStmtExecute(context.Context, *mysql.Conn, *mysql.PrepareData, func(*sqltypes.Result) error) error {
	return errNoPrepare
}

// ComQuery records the statement as sent, applies the test's hooks
// (StatementDelay, StatementError), parses it, waits for a leader if it
// needs one, runs it, and tells AfterStatement once it is answered.
func (h *handler) ComQuery(_ context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	s := h.s
	s.mu.Lock()
	s.statements = append(s.statements, query)
	s.mu.Unlock()

	if s.opts.StatementDelay != nil {
		if d := s.opts.StatementDelay(query); d != 0 && !s.hold(c, d) {
			return mysql.NewSQLError(mysql.CRServerLost, mysql.SSUnknownSQLState, "simstarrocks: the client left while the statement was held")
		}
	}
	if s.opts.AfterStatement != nil {
		defer s.opts.AfterStatement(query)
	}
	if s.opts.StatementError != nil {
		if e := s.opts.StatementError(query); e != nil {
			s.answered(query, e.Message)
			return mysql.NewSQLError(e.Code, e.State, "%s", e.Message)
		}
	}
	if s.opts.LoseAnswer != nil && s.opts.LoseAnswer(query) {
		// The statement runs; its answer is lost with the connection.
		err := h.answer(c, query, func(*sqltypes.Result, bool) error { return nil })
		msg := "simstarrocks: answer lost"
		if err != nil {
			msg += " (" + err.Error() + ")"
		}
		s.answered(query, msg)
		c.Close()
		return mysql.NewSQLError(mysql.CRServerLost, mysql.SSUnknownSQLState, "simstarrocks: the answer was lost")
	}
	err := h.answer(c, query, callback)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	s.answered(query, msg)
	return err
}

// answered records how FE answered a statement ("" without an error).
func (s *StarRocks) answered(query, err string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers = append(s.answers, Answer{Statement: query, Error: err})
}

// answer parses and runs the statement.
func (h *handler) answer(c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	s := h.s
	sess, _ := c.ClientData.(*session)
	if sess == nil {
		sess = &session{}
	}
	// The FE reached parses the statement with its own release's grammar.
	g := grammarOf(s.opts.Version)
	s.mu.Lock()
	g.createImage = s.state.hasCreateImage(sess.fe)
	s.mu.Unlock()
	st, err := parse(query, g)
	if err != nil {
		// A syntax error: 1064 / HY000 like every ParsingException (sheet §0);
		// the simulation's own refusals likewise.
		var se *syntaxError
		if errors.As(err, &se) {
			return mysql.NewSQLError(1064, "HY000", "%s", se.message())
		}
		return mysql.NewSQLError(1064, "HY000", "%s", err.Error())
	}
	// The privilege check comes before the statement runs (users.go).
	if serr := s.authorize(c.User, st); serr != nil {
		return mysql.NewSQLError(serr.code, serr.state, "%s", serr.msg)
	}
	if st.kind == stSetPassword {
		if serr := s.setPassword(c.User, st); serr != nil {
			return mysql.NewSQLError(serr.code, serr.state, "%s", serr.msg)
		}
		return callback(&sqltypes.Result{}, false)
	}
	if st.kind == stSet {
		if serr := sess.set(st); serr != nil {
			return mysql.NewSQLError(serr.code, serr.state, "%s", serr.msg)
		}
		return callback(&sqltypes.Result{}, false)
	}
	fe := sess.fe
	if st.kind == stAdminShowConfig {
		// The FE reached answers from its own memory (config.go).
		var res *result
		var serr *sqlError
		s.locked(func(*cluster) {
			if p := s.views.procs[fe]; fe != "" && (p == nil || !p.running) {
				serr = &sqlError{code: mysql.CRServerLost, state: mysql.SSUnknownSQLState, msg: "simstarrocks: FE " + fe + " stopped"}
				return
			}
			res = s.showFrontendConfig(fe, st)
		})
		if serr != nil {
			return mysql.NewSQLError(serr.code, serr.state, "%s", serr.msg)
		}
		return callback(toSQLResult(res), false)
	}
	// A zombie never learns of a leader: it answers, or fails, at once.
	zombie := s.Zombie(fe)
	wait := st.needsLeader(sess) && !zombie
	deadline := time.Now().Add(leaderWait)
	var res *result
	var serr *sqlError
	var setKey configKey
	var setValue string
	var setOn []string
	for {
		if wait && !s.waitLeader(c, deadline) {
			return mysql.NewSQLError(mysql.CRServerLost, mysql.SSUnknownSQLState, "simstarrocks: no leader within %s", leaderWait)
		}
		ran := false
		s.locked(func(cl *cluster) {
			if wait && cl.leader == nil {
				return // lost again since the wait: wait on
			}
			view, forward, refuse := s.answering(sess, st)
			switch {
			case refuse != nil:
				serr = refuse
			case view != nil:
				res, serr = view.execute(st)
			default:
				run, rerr := s.resolvedAdd(st)
				if rerr != nil {
					serr = rerr
					break
				}
				if run.kind == stAdminSetConfig {
					// Its own memory now, the other FEs' next (config.go).
					setKey, setValue, setOn, serr = s.setFrontendConfig(run)
				} else {
					res, serr = cl.execute(run)
				}
				if forward {
					// LeaderOpExecutor waits until this FE replayed it.
					s.views.procs[fe].syncedTo = cl.now
				}
			}
			ran = true
		})
		if ran {
			break
		}
	}
	if serr == nil && len(setOn) > 0 {
		serr = s.setConfigOn(setKey, setValue, setOn)
	}
	if zombie {
		s.zombieStatements.Add(1)
		if serr == nil {
			s.zombieAnswers.Add(1)
		}
	}
	if serr != nil {
		return mysql.NewSQLError(serr.code, serr.state, "%s", serr.msg)
	}
	if res == nil {
		return callback(&sqltypes.Result{}, false)
	}
	return callback(toSQLResult(res), false)
}

// hold keeps a statement back for d on the simulation's clock (a fake
// clock's Step releases it), or until the client goes away or the
// simulation stops (d = Hang: only those). It reports whether the
// statement may go on.
func (s *StarRocks) hold(c *mysql.Conn, d time.Duration) bool {
	var done <-chan time.Time
	if d > 0 {
		if cl, ok := s.opts.Clock.(clock.Clock); ok {
			done = cl.After(d)
		} else {
			done = time.After(d)
		}
	}
	for {
		select {
		case <-done:
			return true
		case <-s.stopped:
			return false
		default:
		}
		if clientGone(c) {
			return false
		}
	}
}

// waitLeader blocks until there is a leader, the client goes away, the
// simulation stops, or leaderWait passes.
func (s *StarRocks) waitLeader(c *mysql.Conn, deadline time.Time) bool {
	for {
		var ok bool
		s.locked(func(cl *cluster) { ok = cl.leader != nil })
		if ok {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-s.stopped:
			return false
		default:
		}
		if clientGone(c) {
			return false
		}
	}
}

func toSQLResult(r *result) *sqltypes.Result {
	out := &sqltypes.Result{}
	for _, col := range r.columns {
		// Proc results are strings (BaseProcResult); VARCHAR, utf8.
		out.Fields = append(out.Fields, &querypb.Field{Name: col, Type: querypb.Type_VARCHAR, Charset: 33})
	}
	for _, row := range r.rows {
		vals := make([]sqltypes.Value, len(row))
		for i, v := range row {
			vals[i] = sqltypes.NewVarChar(v)
		}
		out.Rows = append(out.Rows, vals)
	}
	return out
}
