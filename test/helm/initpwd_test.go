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

package helm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// The chart's init-password Job sets root's password through FE's MySQL
// port with a mysql client (the FE image's). Here the script the chart
// renders runs, with bash and a real mysql client, against the simulated
// FE, for passwords that would break a script that pastes them into SQL.
// The stored password must be the one given, and the one statement FE
// receives must be the SET PASSWORD.

// hostilePasswords are passwords a pasted-in script gets wrong.
var hostilePasswords = []string{
	`it's`,
	`back\slash`,
	`x'); SET PASSWORD = PASSWORD('owned'); --`,
	`x'); DROP WAREHOUSE w; --`,
	`"double" ; -- $(touch /tmp/pwned) $HOME ` + "`id`",
	"ünïcødé-密码",
}

// pastingScript is the script this chart had before (and the upstream's
// has): the password pasted into SQL, and 1064 taken as "already set". It
// is the control: run with the same passwords, it loses them.
const pastingScript = `#!/bin/bash
host="$1"
port="$2"
out=$(mysql --connect-timeout 30 -h "$host" -P "$port" -u root --skip-column-names --batch \
  -e "SET PASSWORD = PASSWORD('${INIT_PWD}');" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "root password set"
  exit 0
fi
echo "$out"
code=$(echo "$out" | awk '{print $2}')
if [ "$code" = "1045" ] || [ "$code" = "1064" ]; then
  echo "root password was already set (error $code)"
  exit 0
fi
exit 1
`

func renderedInitPasswordScript(t *testing.T) string {
	t.Helper()
	objs, err := render(t, starrocksChart, "starrocks", "initPassword:\n  enabled: true\n  password: x\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetKind() == "ConfigMap" && strings.HasSuffix(o.GetName(), "-initpwd-shell") {
			s, _, _ := unstructuredString(o.Object, "data", "fe_initpwd.sh")
			return s
		}
	}
	t.Fatal("the chart rendered no init-password script")
	return ""
}

func unstructuredString(obj map[string]any, path ...string) (string, bool, error) {
	cur := any(obj)
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[p]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

func mysqlClient(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("mysql"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no mysql client on PATH: .ci/run installs default-mysql-client")
		}
		t.Skip("no mysql client on PATH (apt-get install default-mysql-client)")
	}
}

// runScript runs script as the Job does, with INIT_PWD, against fe.
func runScript(t *testing.T, script, password string, fe *simstarrocks.StarRocks) (string, error) {
	t.Helper()
	return runScriptFor(t, script, password, fe, 30*time.Second)
}

func runScriptFor(t *testing.T, script, password string, fe *simstarrocks.StarRocks, limit time.Duration) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fe_initpwd.sh")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(fe.QueryAddress(), ":")
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", path, host, port)
	cmd.WaitDelay = time.Second // the mysql client may outlive a killed bash
	cmd.Env = append(os.Environ(), "INIT_PWD="+password)
	cmd.Env = slicesWithout(cmd.Env, "MYSQL_PWD=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func slicesWithout(env []string, prefix string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// logsIn reports whether root logs in to fe with password.
func logsIn(t *testing.T, fe *simstarrocks.StarRocks, password string) bool {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.Passwd = "tcp", fe.QueryAddress(), "root", password
	cfg.Timeout = 5 * time.Second
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connect(context.Background())
	var refused *mysql.MySQLError
	if errors.As(err, &refused) && refused.Number == 1045 {
		return false
	}
	if err != nil {
		t.Fatalf("logging in: %v", err)
	}
	_ = conn.Close()
	return true
}

func TestInitPasswordJobSetsExactlyThePasswordGiven(t *testing.T) {
	mysqlClient(t)
	script := renderedInitPasswordScript(t)
	for _, pw := range hostilePasswords {
		t.Run(pw, func(t *testing.T) {
			fe := simstarrocks.Start(t, simstarrocks.Options{})
			out, err := runScript(t, script, pw, fe)
			if err != nil {
				t.Fatalf("the Job failed: %v\n%s", err, out)
			}
			stmts := fe.Statements()
			t.Logf("FE received %q; the script said %q", stmts, strings.TrimSpace(out))
			if len(stmts) != 1 || !strings.HasPrefix(stmts[0], "SET PASSWORD = '*") || strings.Contains(stmts[0], pw) {
				t.Errorf("FE received %q; want the one SET PASSWORD with the password's hash, not the password", stmts)
			}
			if !logsIn(t, fe, pw) {
				t.Errorf("root does not log in with the password given")
			}
			if logsIn(t, fe, "") || logsIn(t, fe, "owned") {
				t.Errorf("root logs in without the password, or with the injected one")
			}
			// Run again, as a Job retried: root has a password (1045), done.
			out, err = runScript(t, script, pw, fe)
			if err != nil || !strings.Contains(out, "already set (error 1045)") {
				t.Errorf("the second run: %v\n%s", err, out)
			}
		})
	}
}

// A 1064 is no "already set": a script that cannot make FE take its
// statement fails, and the Job retries.
func TestInitPasswordJobFailsOnASyntaxError(t *testing.T) {
	mysqlClient(t)
	script := strings.Replace(renderedInitPasswordScript(t), "SET PASSWORD = '${hash}';", "SET PASSWORD = ${hash};", 1)
	fe := simstarrocks.Start(t, simstarrocks.Options{})
	out, err := runScript(t, script, "pw", fe)
	t.Logf("%s", out)
	if err == nil || !strings.Contains(out, "1064") {
		t.Errorf("a statement FE refused with 1064 counted as done: %v\n%s", err, out)
	}
	if !logsIn(t, fe, "") {
		t.Errorf("root's password changed")
	}
}

// The control: the pasting script, with the same passwords, exits 0 while
// root keeps no password, another password, or FE runs a statement the
// password carried.
func TestPastingThePasswordIntoSQLLosesIt(t *testing.T) {
	mysqlClient(t)
	lost := 0
	for _, pw := range hostilePasswords {
		fe := simstarrocks.Start(t, simstarrocks.Options{})
		// The injected DROP WAREHOUSE waits for a leader the bare
		// simulated FE never has: 5 s show it was sent.
		out, err := runScriptFor(t, pastingScript, pw, fe, 5*time.Second)
		stmts := fe.Statements()
		ok := err == nil && logsIn(t, fe, pw) && len(stmts) == 1
		if !ok {
			lost++
		}
		t.Logf("%q: exit %v, root logs in with it: %v, without a password: %v, FE received %q; %s",
			pw, err, logsIn(t, fe, pw), logsIn(t, fe, ""), stmts, strings.TrimSpace(out))
	}
	if lost == 0 {
		t.Errorf("the pasting script kept every password: this control shows nothing")
	}
}
