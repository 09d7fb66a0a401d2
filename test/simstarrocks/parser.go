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
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The statements the simulated FE understands, parsed the way StarRocks'
// ANTLR grammar (fe-core .../sql/parser/StarRocks.g4) reads them: keywords
// case-insensitive, host:port arguments as `string` (SINGLE_QUOTED_TEXT or
// DOUBLE_QUOTED_TEXT, sheet §0), lists separated by commas, an optional
// trailing ';' (singleStatement: statement (SEMICOLON | EOF)).

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokWord
	tokString
	tokQuotedIdent
	tokSymbol
)

type token struct {
	kind tokenKind
	text string // as written
	val  string // unquoted value of strings and backquoted identifiers
	line int    // 1-based, as ANTLR's Token.getLine
	col  int    // 0-based, as ANTLR's Token.getCharPositionInLine
}

// display is how the FE's error strategy names an offending token:
// the token text, '<EOF>' at the end (StarRocksDefaultErrorStrategy.java,
// EOF = "<EOF>").
func (t token) display() string {
	if t.kind == tokEOF {
		return "<EOF>"
	}
	return t.text
}

type lexError struct {
	tok token
	msg string
}

func (e *lexError) Error() string { return e.msg }

// lex splits a statement into tokens. Comments (-- ... and /* ... */) and
// whitespace are skipped, as the StarRocks lexer sends them to its hidden
// channel (SIMPLE_COMMENT, BRACKETED_COMMENT, WS in StarRocksLex.g4).
func lex(src string) ([]token, *lexError) {
	var toks []token
	line, col := 1, 0
	i := 0
	advance := func(n int) {
		for k := 0; k < n && i < len(src); k++ {
			if src[i] == '\n' {
				line++
				col = 0
			} else {
				col++
			}
			i++
		}
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			advance(1)
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			for i < len(src) && src[i] != '\n' {
				advance(1)
			}
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				advance(len(src) - i)
			} else {
				advance(end + 4)
			}
		case c == '\'' || c == '"':
			start := token{kind: tokString, line: line, col: col}
			val, n, ok := readQuoted(src[i:], c)
			if !ok {
				start.text = src[i:]
				return nil, &lexError{tok: start, msg: "unterminated string"}
			}
			start.text, start.val = src[i:i+n], val
			toks = append(toks, start)
			advance(n)
		case c == '`':
			start := token{kind: tokQuotedIdent, line: line, col: col}
			val, n, ok := readBackquoted(src[i:])
			if !ok {
				start.text = src[i:]
				return nil, &lexError{tok: start, msg: "unterminated identifier"}
			}
			start.text, start.val = src[i:i+n], val
			toks = append(toks, start)
			advance(n)
		case isWordByte(c):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tokWord, text: src[i:j], val: src[i:j], line: line, col: col})
			advance(j - i)
		default:
			toks = append(toks, token{kind: tokSymbol, text: src[i : i+1], val: src[i : i+1], line: line, col: col})
			advance(1)
		}
	}
	toks = append(toks, token{kind: tokEOF, line: line, col: col})
	return toks, nil
}

// readQuoted reads a MySQL-style quoted string: backslash escapes and a
// doubled quote for the quote itself.
func readQuoted(s string, q byte) (val string, n int, ok bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'Z':
				b.WriteByte(0x1a)
			default:
				b.WriteByte(s[i])
			}
		case c == q && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case c == q:
			return b.String(), i + 1, true
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

func readBackquoted(s string) (val string, n int, ok bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '`' {
			if i+1 < len(s) && s[i+1] == '`' {
				b.WriteByte('`')
				i++
				continue
			}
			return b.String(), i + 1, true
		}
		b.WriteByte(s[i])
	}
	return "", 0, false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Statements, as parsed.

type stmtKind int

const (
	stShowFrontends stmtKind = iota
	stShowBackends
	stShowComputeNodes
	stShowProc
	stAddBackend
	stDropBackend
	stDecommissionBackend
	stCancelDecommission
	stAddFrontend
	stDropFrontend
	stAddComputeNode
	stDropComputeNode
	stCreateWarehouse
	stDropWarehouse
	stSet
	stAdminSetConfig
	stAdminShowConfig
	stCreateImage
	stSetPassword
	// The backup statements (backup_parse.go).
	stCreateRepository
	stDropRepository
	stShowRepositories
	stBackup
	stShowBackup
	stCancelBackup
	stShowSnapshot
	stRestore
	stShowRestore
	stCancelRestore
	stDropSnapshot
	stClusterSnapshot
	stSelectInfo
	stShowDatabases
	stShowTables
	stCreateDatabase
)

type statement struct {
	kind      stmtKind
	hostPorts []string // the `string` arguments, unquoted
	force     bool     // DROP BACKEND ... FORCE
	role      string   // FOLLOWER | OBSERVER
	warehouse string   // INTO/FROM WAREHOUSE, or the CREATE/DROP WAREHOUSE name
	hasWh     bool     // an INTO/FROM WAREHOUSE clause was given
	ifClause  bool     // IF NOT EXISTS / IF EXISTS
	procPath  string
	// setVar and setValue: SET [SESSION] <setVar> = <setValue>, the name
	// lower-cased, the value as written (unquoted).
	setVar, setValue string
	// configKey and configValue: ADMIN SET FRONTEND CONFIG ("key" = "value").
	configKey, configValue string
	// pattern: ADMIN SHOW FRONTEND CONFIG LIKE 'pattern', if hasPattern.
	pattern    string
	hasPattern bool
	// password: SET PASSWORD = 'password' (the stored form) or, when
	// plainPassword, SET PASSWORD = PASSWORD('password').
	password      string
	plainPassword bool
	// bk is what a backup statement says (backup_parse.go).
	bk *backupStmt
}

// syntaxError is the parser's refusal: the offending token and what the
// grammar would have taken there.
type syntaxError struct {
	tok      token
	expected []string // display names: 'KEYWORD', SINGLE_QUOTED_TEXT, ',', <EOF>, or identifier
	detail   string   // a lexer message instead of expected tokens
}

func (e *syntaxError) Error() string { return e.message() }

// message renders the FE's syntax error. The frame is ParsingException
// .getMessage (fe-core .../sql/parser/ParsingException.java, undated copy):
// "Getting syntax error" + " at line L, column C" (ParserErrorMsg
// nodePositionPoint "at line {0}, column {1}") + ". Detail message: " +
// detail + "."; the detail is ParserErrorMsg.unexpectedInput "Unexpected
// input '{0}', the most similar input is {1}" as StarRocksDefaultErrorStrategy
// .reportInputMismatch builds it (@420892e3). Real outputs of this form:
// StarRocks docs (keywords page, "ERROR 1064 (HY000): Getting syntax error at
// line 1, column 16. Detail message: Unexpected input 'like', the most similar
// input is {a legal identifier}.") and a StarRocks SQL test ("Getting syntax
// error at line 1, column 0. Detail message: Unexpected input 'sleep', the
// most similar input is {'SELECT', 'SET', 'HELP', 'STOP', 'ALTER', '(', ';'}.").
//
// UNVERIFIED: the expected set. The FE lists ANTLR's expected tokens at the
// error point of its full grammar; the simulation lists the alternatives of
// its own, smaller grammar (exact where only a string, an identifier or the
// statement's end can follow; a subset where the real grammar has more
// keywords). The ranking (Jaro-Winkler distance to the offending token, five
// words at most, then the symbols) is the FE's filterExpectingToken.
func (e *syntaxError) message() string {
	detail := e.detail
	if detail == "" {
		detail = fmt.Sprintf("Unexpected input '%s', the most similar input is %s", e.tok.display(), similarInput(e.tok.display(), e.expected))
	}
	return fmt.Sprintf("Getting syntax error at line %d, column %d. Detail message: %s.", e.tok.line, e.tok.col, detail)
}

// identifierExpected stands for any identifier; the FE prints it as
// "a legal identifier" when the expected set holds the non-reserved
// keywords (StarRocksDefaultErrorStrategy.filterExpectingToken: words
// contain 'ACCESS').
const identifierExpected = "a legal identifier"

// similarInput is StarRocksDefaultErrorStrategy.filterExpectingToken over
// the simulation's expected set: words (display names whose second character
// is an upper-case letter) sorted by Jaro-Winkler distance to the upper-cased
// token, at most 5, then the symbols; "{...}" joined by ", ".
func similarInput(tok string, expected []string) string {
	var words, symbols []string
	eof := false
	for _, e := range expected {
		switch {
		case e == identifierExpected:
			return "{" + identifierExpected + "}"
		case e == "<EOF>":
			// EOF is a symbol, and the lowest token type, so it comes first.
			eof = true
		case len(e) > 1 && e[1] >= 'A' && e[1] <= 'Z':
			words = append(words, e)
		default:
			symbols = append(symbols, e)
		}
	}
	if eof {
		symbols = append([]string{"<EOF>"}, symbols...)
	}
	upper := strings.ToUpper(tok)
	sort.SliceStable(words, func(i, j int) bool {
		return jaroWinklerDistance(words[i], upper) < jaroWinklerDistance(words[j], upper)
	})
	if len(words) > 5 {
		words = words[:5]
	}
	return "{" + strings.Join(append(words, symbols...), ", ") + "}"
}

// jaroWinklerDistance is 1 - the Jaro-Winkler similarity (prefix scale 0.1,
// prefix of at most 4, boost only from a Jaro similarity of 0.7), the
// measure Apache Commons Text's JaroWinklerDistance gives, which the FE uses
// to rank its suggestions.
func jaroWinklerDistance(a, b string) float64 {
	if a == b {
		return 0
	}
	short, long := a, b
	if len(short) > len(long) {
		short, long = long, short
	}
	window := len(long)/2 - 1
	if window < 0 {
		window = 0
	}
	matchedLong := make([]bool, len(long))
	var fromShort []byte
	shortIdx := make([]int, len(short))
	for i := range shortIdx {
		shortIdx[i] = -1
	}
	for i := 0; i < len(short); i++ {
		lo, hi := max(i-window, 0), min(i+window+1, len(long))
		for j := lo; j < hi; j++ {
			if !matchedLong[j] && short[i] == long[j] {
				matchedLong[j] = true
				shortIdx[i] = j
				break
			}
		}
	}
	for i := range short {
		if shortIdx[i] >= 0 {
			fromShort = append(fromShort, short[i])
		}
	}
	m := len(fromShort)
	if m == 0 {
		return 1
	}
	var fromLong []byte
	for j := range long {
		if matchedLong[j] {
			fromLong = append(fromLong, long[j])
		}
	}
	half := 0
	for k := 0; k < m; k++ {
		if fromShort[k] != fromLong[k] {
			half++
		}
	}
	prefix := 0
	for k := 0; k < min(4, len(short)); k++ {
		if a[k] != b[k] {
			break
		}
		prefix++
	}
	fm := float64(m)
	jaro := (fm/float64(len(a)) + fm/float64(len(b)) + (fm-float64(half)/2)/fm) / 3
	if jaro >= 0.7 {
		jaro += 0.1 * float64(prefix) * (1 - jaro)
	}
	return 1 - jaro
}

// errMultiStatement refuses a second statement in one query.
var errMultiStatement = errors.New("simstarrocks: one statement per query is simulated")

type parser struct {
	toks []token
	pos  int
	// grammar is what the FE's version takes: the CN clauses' INTO/FROM
	// WAREHOUSE (sheet §8: not in the ≤3.2 grammar), the backup forms
	// (backup_parse.go).
	grammar
}

func kw(words ...string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = "'" + w + "'"
	}
	return out
}

// The display names of a string token (string : SINGLE_QUOTED_TEXT |
// DOUBLE_QUOTED_TEXT, sheet §0; ANTLR shows token types without a literal
// by their symbolic name).
var stringExpected = []string{"SINGLE_QUOTED_TEXT", "DOUBLE_QUOTED_TEXT"}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) fail(expected ...string) *syntaxError {
	return &syntaxError{tok: p.peek(), expected: expected}
}

func (p *parser) isWord(w string) bool {
	t := p.peek()
	return t.kind == tokWord && strings.EqualFold(t.text, w)
}

func (p *parser) acceptWord(w string) bool {
	if p.isWord(w) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expectWord(w string) error {
	if p.acceptWord(w) {
		return nil
	}
	return p.fail(kw(w)...)
}

func (p *parser) isSymbol(s string) bool {
	t := p.peek()
	return t.kind == tokSymbol && t.text == s
}

func (p *parser) stringArg() (string, error) {
	t := p.peek()
	if t.kind != tokString {
		return "", p.fail(stringExpected...)
	}
	p.pos++
	return t.val, nil
}

// stringList is `string (COMMA string)*`.
func (p *parser) stringList() ([]string, error) {
	first, err := p.stringArg()
	if err != nil {
		return nil, err
	}
	out := []string{first}
	for p.isSymbol(",") {
		p.pos++
		s, err := p.stringArg()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// identifierOrString is identifier (bare or backquoted) | string. Digits
// alone lex as INTEGER_VALUE, not as an identifier.
func (p *parser) identifierOrString() (string, error) {
	t := p.peek()
	switch t.kind {
	case tokWord:
		if strings.Trim(t.val, "0123456789") == "" {
			break
		}
		p.pos++
		return t.val, nil
	case tokQuotedIdent, tokString:
		p.pos++
		return t.val, nil
	}
	return "", p.fail(identifierExpected)
}

// end accepts the end of the statement: an optional ';' and EOF. more are
// the display names of what could still have followed.
func (p *parser) end(more ...string) error {
	if p.isSymbol(";") {
		p.pos++
		if p.peek().kind == tokEOF {
			return nil
		}
		// The FE's grammar takes several statements (sqlStatements:
		// singleStatement+); the simulation runs one per query and says so.
		return errMultiStatement
	}
	if p.peek().kind == tokEOF {
		return nil
	}
	return p.fail(append(append([]string{}, more...), "<EOF>", "';'")...)
}

// parse reads one statement as the grammar of g takes it.
func parse(src string, g grammar) (*statement, error) {
	toks, le := lex(src)
	if le != nil {
		// UNVERIFIED: the text the FE gives for a lexer error (an
		// unterminated quote); the frame is ParsingException's.
		return nil, &syntaxError{tok: le.tok, detail: le.msg}
	}
	p := &parser{toks: toks, grammar: g}
	return p.statement()
}

func (p *parser) statement() (*statement, error) {
	switch {
	case p.acceptWord("SHOW"):
		return p.show()
	case p.acceptWord("ALTER"):
		if err := p.expectWord("SYSTEM"); err != nil {
			return nil, err
		}
		return p.alterSystem()
	case p.acceptWord("SET"):
		return p.set()
	case p.acceptWord("ADMIN"):
		return p.admin()
	case p.acceptWord("CANCEL"):
		// CANCEL BACKUP | RESTORE ((FROM | IN) identifier)? (backup §2.5, §4).
		for word, kind := range map[string]stmtKind{"BACKUP": stCancelBackup, "RESTORE": stCancelRestore} {
			if p.acceptWord(word) {
				db, err := p.fromDB()
				if err != nil {
					return nil, err
				}
				return &statement{kind: kind, bk: &backupStmt{db: db}}, p.end()
			}
		}
		// cancelAlterSystemStatement: CANCEL DECOMMISSION BACKEND string (COMMA string)* (sheet §5).
		if err := p.expectWord("DECOMMISSION"); err != nil {
			return nil, p.fail(kw("DECOMMISSION", "BACKUP", "RESTORE")...)
		}
		if err := p.expectWord("BACKEND"); err != nil {
			return nil, err
		}
		hps, err := p.stringList()
		if err != nil {
			return nil, err
		}
		return &statement{kind: stCancelDecommission, hostPorts: hps}, p.end("','")
	case p.acceptWord("CREATE"):
		switch {
		case p.acceptWord("READ"):
			if err := p.expectWord("ONLY"); err != nil {
				return nil, err
			}
			if err := p.expectWord("REPOSITORY"); err != nil {
				return nil, err
			}
			return p.createRepository(true)
		case p.acceptWord("REPOSITORY"):
			return p.createRepository(false)
		case p.acceptWord("DATABASE"):
			// createDbStatement: CREATE DATABASE (IF NOT EXISTS)? identifier (the
			// catalog prefix, charset and properties are not simulated).
			st := &statement{kind: stCreateDatabase, bk: &backupStmt{}}
			if p.acceptWord("IF") {
				if err := p.expectWord("NOT"); err != nil {
					return nil, err
				}
				if err := p.expectWord("EXISTS"); err != nil {
					return nil, err
				}
				st.bk.ifNotExists = true
			}
			db, err := p.identifier()
			if err != nil {
				return nil, err
			}
			st.bk.db = db
			return st, p.end()
		}
		if err := p.expectWord("WAREHOUSE"); err != nil {
			return nil, p.fail(kw("WAREHOUSE", "REPOSITORY", "READ", "DATABASE")...)
		}
		st := &statement{kind: stCreateWarehouse}
		if p.acceptWord("IF") {
			if err := p.expectWord("NOT"); err != nil {
				return nil, err
			}
			if err := p.expectWord("EXISTS"); err != nil {
				return nil, err
			}
			st.ifClause = true
		}
		name, err := p.identifierOrString()
		if err != nil {
			return nil, err
		}
		st.warehouse = name
		return st, p.end()
	case p.acceptWord("DROP"):
		switch {
		case p.acceptWord("REPOSITORY"):
			repo, err := p.identifier()
			if err != nil {
				return nil, err
			}
			return &statement{kind: stDropRepository, bk: &backupStmt{repo: repo}}, p.end()
		case p.dropSnapshot && p.acceptWord("SNAPSHOT"):
			label, err := p.identifier()
			if err != nil {
				return nil, err
			}
			if err := p.expectWord("ON"); err != nil {
				return nil, err
			}
			repo, err := p.identifier()
			if err != nil {
				return nil, err
			}
			st := &statement{kind: stDropSnapshot, bk: &backupStmt{label: label, repo: repo}}
			if p.acceptWord("FORCE") {
				st.bk.force = true
				return st, p.end()
			}
			return st, p.end("'FORCE'")
		}
		// DROP WAREHOUSE (IF EXISTS)? identifierOrString (sheet §13).
		if err := p.expectWord("WAREHOUSE"); err != nil {
			if p.dropSnapshot {
				return nil, p.fail(kw("WAREHOUSE", "REPOSITORY", "SNAPSHOT")...)
			}
			return nil, p.fail(kw("WAREHOUSE", "REPOSITORY")...)
		}
		st := &statement{kind: stDropWarehouse}
		if p.acceptWord("IF") {
			if err := p.expectWord("EXISTS"); err != nil {
				return nil, err
			}
			st.ifClause = true
		}
		name, err := p.identifierOrString()
		if err != nil {
			return nil, err
		}
		st.warehouse = name
		return st, p.end()
	case p.acceptWord("BACKUP"):
		return p.backup(p.grammar)
	case p.acceptWord("RESTORE"):
		return p.restore(p.grammar)
	case p.acceptWord("SELECT"):
		return p.selectInfo()
	}
	return nil, p.fail(kw("SHOW", "ALTER", "SET", "ADMIN", "CANCEL", "CREATE", "DROP", "BACKUP", "RESTORE", "SELECT")...)
}

// admin is the two FE configuration statements (StarRocks.g4):
// adminSetConfigStatement: ADMIN SET FRONTEND CONFIG '(' property ')', with
// property: key=string '=' value=string; adminShowConfigStatement: ADMIN
// SHOW FRONTEND CONFIG (LIKE pattern=string)?. The newest grammar's WITH
// PERSISTENT and SHOW's predicate clauses are not simulated.
func (p *parser) admin() (*statement, error) {
	set := p.acceptWord("SET")
	if set && p.acceptWord("AUTOMATED") {
		return p.adminClusterSnapshot()
	}
	if !set {
		if err := p.expectWord("SHOW"); err != nil {
			return nil, p.fail(kw("SET", "SHOW")...)
		}
	}
	if err := p.expectWord("FRONTEND"); err != nil {
		return nil, err
	}
	if err := p.expectWord("CONFIG"); err != nil {
		return nil, err
	}
	if !set {
		st := &statement{kind: stAdminShowConfig}
		if p.acceptWord("LIKE") {
			pat, err := p.stringArg()
			if err != nil {
				return nil, err
			}
			st.pattern, st.hasPattern = pat, true
			return st, p.end()
		}
		return st, p.end("'LIKE'")
	}
	if !p.isSymbol("(") {
		return nil, p.fail("'('")
	}
	p.pos++
	key, err := p.stringArg()
	if err != nil {
		return nil, err
	}
	if !p.isSymbol("=") {
		return nil, p.fail("'='")
	}
	p.pos++
	value, err := p.stringArg()
	if err != nil {
		return nil, err
	}
	if !p.isSymbol(")") {
		return nil, p.fail("')'")
	}
	p.pos++
	return &statement{kind: stAdminSetConfig, configKey: key, configValue: value}, p.end()
}

// set is the one form of SET the simulation takes: a session variable set
// to a value, `SET [SESSION | LOCAL] name = value` (setStatement's
// setVar: varType? identifier '=' setExprOrDefault, StarRocks.g4). The
// grammar takes more (several variables, GLOBAL, @@, user variables,
// expressions); the simulation refuses them as not simulated.
func (p *parser) set() (*statement, error) {
	if p.acceptWord("PASSWORD") {
		return p.setPassword()
	}
	if !p.acceptWord("SESSION") {
		p.acceptWord("LOCAL")
	}
	t := p.peek()
	if t.kind != tokWord {
		return nil, errors.New("simstarrocks: only SET [SESSION] <variable> = <value> is simulated")
	}
	p.pos++
	if !p.isSymbol("=") {
		return nil, p.fail("'='")
	}
	p.pos++
	v := p.peek()
	if v.kind != tokWord && v.kind != tokString {
		return nil, errors.New("simstarrocks: only SET [SESSION] <variable> = <value> is simulated")
	}
	p.pos++
	return &statement{kind: stSet, setVar: strings.ToLower(t.val), setValue: v.val}, p.end()
}

// setPassword is setVar's #setPassword for the session's own user,
// `SET PASSWORD '=' (string | PASSWORD '(' string ')')` (StarRocks.g4):
// the string is the stored form, checked when the statement runs; inside
// PASSWORD() it is the password. The FOR user form is not simulated.
func (p *parser) setPassword() (*statement, error) {
	if p.acceptWord("FOR") {
		return nil, errors.New("simstarrocks: SET PASSWORD FOR <user> is not simulated")
	}
	if !p.isSymbol("=") {
		return nil, p.fail("'='")
	}
	p.pos++
	st := &statement{kind: stSetPassword}
	if p.acceptWord("PASSWORD") {
		st.plainPassword = true
		if !p.isSymbol("(") {
			return nil, p.fail("'('")
		}
		p.pos++
	}
	t := p.peek()
	if t.kind != tokString {
		return nil, p.fail("a string")
	}
	p.pos++
	st.password = t.val
	if st.plainPassword {
		if !p.isSymbol(")") {
			return nil, p.fail("')'")
		}
		p.pos++
	}
	return st, p.end()
}

func (p *parser) show() (*statement, error) {
	switch {
	case p.acceptWord("FRONTENDS"):
		return &statement{kind: stShowFrontends}, p.end()
	case p.acceptWord("BACKENDS"):
		return &statement{kind: stShowBackends}, p.end()
	case p.acceptWord("COMPUTE"):
		if err := p.expectWord("NODES"); err != nil {
			return nil, err
		}
		return &statement{kind: stShowComputeNodes}, p.end()
	case p.acceptWord("PROC"):
		path, err := p.stringArg()
		if err != nil {
			return nil, err
		}
		return &statement{kind: stShowProc, procPath: path}, p.end()
	case p.acceptWord("REPOSITORIES"):
		return &statement{kind: stShowRepositories}, p.end()
	case p.acceptWord("SNAPSHOT"):
		return p.showSnapshot()
	case p.acceptWord("DATABASES"):
		return &statement{kind: stShowDatabases}, p.end()
	case p.acceptWord("TABLES"):
		// showTableStatement: SHOW FULL? TABLES ((FROM | IN) qualifiedName)?;
		// the simulation needs the FROM.
		db, err := p.fromDB()
		if err != nil {
			return nil, err
		}
		if db == "" {
			return nil, errors.New("simstarrocks: SHOW TABLES FROM <db> is simulated, not the session's database")
		}
		return &statement{kind: stShowTables, bk: &backupStmt{db: db}}, p.end()
	}
	for word, kind := range map[string]stmtKind{"BACKUP": stShowBackup, "RESTORE": stShowRestore} {
		if p.acceptWord(word) {
			db, err := p.fromDB()
			if err != nil {
				return nil, err
			}
			return &statement{kind: kind, bk: &backupStmt{db: db}}, p.end("'FROM'", "'IN'")
		}
	}
	return nil, p.fail(kw("FRONTENDS", "BACKENDS", "COMPUTE", "PROC", "REPOSITORIES", "SNAPSHOT", "BACKUP", "RESTORE", "DATABASES", "TABLES")...)
}

func (p *parser) alterSystem() (*statement, error) {
	switch {
	case p.acceptWord("ADD"):
		return p.addOrDrop(true)
	case p.acceptWord("DROP"):
		return p.addOrDrop(false)
	case p.acceptWord("DECOMMISSION"):
		// decommissionBackendClause: DECOMMISSION BACKEND string (COMMA string)* (sheet §5).
		if err := p.expectWord("BACKEND"); err != nil {
			return nil, err
		}
		hps, err := p.stringList()
		if err != nil {
			return nil, err
		}
		return &statement{kind: stDecommissionBackend, hostPorts: hps}, p.end("','")
	case p.createImage && p.acceptWord("CREATE"):
		// createImageClause: CREATE IMAGE (StarRocks.g4).
		if err := p.expectWord("IMAGE"); err != nil {
			return nil, err
		}
		return &statement{kind: stCreateImage}, p.end()
	}
	if !p.createImage {
		// Before 2.5.3 alterClause has no createImageClause: CREATE is
		// unexpected input there, as any clause FE's grammar lacks.
		return nil, p.fail(kw("ADD", "DROP", "DECOMMISSION")...)
	}
	return nil, p.fail(kw("ADD", "DROP", "DECOMMISSION", "CREATE")...)
}

func (p *parser) addOrDrop(add bool) (*statement, error) {
	switch {
	case p.acceptWord("BACKEND"):
		// addBackendClause: ADD BACKEND string (COMMA string)*;
		// dropBackendClause (3.x): DROP BACKEND string (COMMA string)* FORCE? (sheet §6).
		hps, err := p.stringList()
		if err != nil {
			return nil, err
		}
		if add {
			return &statement{kind: stAddBackend, hostPorts: hps}, p.end("','")
		}
		st := &statement{kind: stDropBackend, hostPorts: hps}
		st.force = p.acceptWord("FORCE")
		if st.force {
			return st, p.end()
		}
		return st, p.end("','", "'FORCE'")
	case p.isWord("FOLLOWER") || p.isWord("OBSERVER"):
		// (ADD|DROP) (FOLLOWER|OBSERVER) string: one host:port only (sheet §7).
		role := strings.ToUpper(p.peek().text)
		p.pos++
		hp, err := p.stringArg()
		if err != nil {
			return nil, err
		}
		kind := stDropFrontend
		if add {
			kind = stAddFrontend
		}
		return &statement{kind: kind, role: role, hostPorts: []string{hp}}, p.end()
	case p.acceptWord("COMPUTE"):
		// (ADD|DROP) COMPUTE NODE string (COMMA string)* ((INTO|FROM) WAREHOUSE wh)? (sheet §8).
		if err := p.expectWord("NODE"); err != nil {
			return nil, err
		}
		hps, err := p.stringList()
		if err != nil {
			return nil, err
		}
		kind, clause := stDropComputeNode, "FROM"
		if add {
			kind, clause = stAddComputeNode, "INTO"
		}
		st := &statement{kind: kind, hostPorts: hps}
		if !p.warehouseClauses {
			return st, p.end("','")
		}
		if p.acceptWord(clause) {
			if err := p.expectWord("WAREHOUSE"); err != nil {
				return nil, err
			}
			wh, err := p.identifierOrString()
			if err != nil {
				return nil, err
			}
			st.warehouse, st.hasWh = wh, true
			return st, p.end()
		}
		return st, p.end("','", "'"+clause+"'")
	}
	return nil, p.fail(kw("BACKEND", "FOLLOWER", "OBSERVER", "COMPUTE")...)
}
