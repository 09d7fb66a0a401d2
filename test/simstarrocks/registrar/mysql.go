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

package registrar

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The scripts' client: `timeout 15 mysql --connect-timeout 2 -h <svc> -P <port>
// -u root --skip-column-names --batch -e "<sql>"` (sheet §1).
const (
	mysqlTimeout        = 15 * time.Second
	mysqlConnectTimeout = 2 * time.Second
)

// mysqlBatch runs one statement as the scripts' mysql client does and returns
// what it prints: rows without column names, fields tab-separated, NULL as
// "NULL", special characters escaped (--batch). The password is MYSQL_PWD,
// which the client reads from the environment (sheet §11); the client sends
// the statement without its ";" delimiter.
func mysqlBatch(ctx context.Context, addr, password, stmt string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, mysqlTimeout)
	defer cancel()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = "root", password
	cfg.Net, cfg.Addr = "tcp", addr
	cfg.Timeout = mysqlConnectTimeout
	cfg.ReadTimeout, cfg.WriteTimeout = mysqlTimeout, mysqlTimeout
	// The mysql client uses SSL by default (docs.starrocks.io, "SSL
	// Authentication": "For MySQL clients, SSL authentication is enabled by
	// default"; its --ssl-mode defaults to PREFERRED): TLS when FE offers it,
	// so the scripts also reach an FE that requires it.
	cfg.TLSConfig = "preferred"
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return "", err
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	rows, err := db.QueryContext(ctx, strings.TrimSuffix(strings.TrimSpace(stmt), ";"))
	if err != nil {
		return "", err
	}
	defer rows.Close()
	columns, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var lines []string
	values := make([]sql.RawBytes, len(columns))
	dest := make([]any, len(columns))
	for i := range values {
		dest[i] = &values[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return "", err
		}
		fields := make([]string, len(values))
		for i, v := range values {
			if v == nil {
				fields[i] = "NULL"
			} else {
				fields[i] = batchEscaper.Replace(string(v))
			}
		}
		lines = append(lines, strings.Join(fields, "\t"))
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return strings.Join(lines, "\n"), nil
}

// batchEscaper is the mysql client's escaping of field values in --batch mode.
var batchEscaper = strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\x00", `\0`)

// grepWord is `grep -w <pattern>` over output: some line holds a match of
// pattern with no word character (letter, digit, underscore) just before or
// after it. In the pattern, a basic regular expression, "." matches any
// character; host names and IPs hold no other special character.
func grepWord(output, pattern string) []string {
	var matched []string
	for _, line := range strings.Split(output, "\n") {
		if lineHasWord(line, pattern) {
			matched = append(matched, line)
		}
	}
	return matched
}

func lineHasWord(line, pattern string) bool {
	if pattern == "" {
		return false
	}
	for i := 0; i+len(pattern) <= len(line); i++ {
		if !matchesAt(line[i:], pattern) {
			continue
		}
		before := i == 0 || !isWordChar(line[i-1])
		end := i + len(pattern)
		after := end == len(line) || !isWordChar(line[end])
		if before && after {
			return true
		}
	}
	return false
}

func matchesAt(s, pattern string) bool {
	for j := 0; j < len(pattern); j++ {
		if pattern[j] != '.' && pattern[j] != s[j] {
			return false
		}
	}
	return true
}

func isWordChar(b byte) bool {
	return b == '_' || ('0' <= b && b <= '9') || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z')
}

// awkField is `awk '{printf(...)}'` field splitting: runs of blanks separate
// fields; field n (1-based) of a shorter line is "".
func awkField(line string, n int) string {
	fields := strings.Fields(line)
	if n < 1 || n > len(fields) {
		return ""
	}
	return fields[n-1]
}
