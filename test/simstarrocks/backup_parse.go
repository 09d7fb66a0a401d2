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
	"strconv"
	"strings"
)

// The backup and restore statements, parsed as StarRocks' grammar reads
// them (StarRocks.g4, newest copy; the backup facts sheet
// starrocks-backup.md in the upstream reference, "backup §N" below):
//
//	createRepositoryStatement: CREATE (READ ONLY)? REPOSITORY identifier
//	    WITH BROKER identifierOrString? ON LOCATION string properties?   (backup §1.1)
//	dropRepositoryStatement:   DROP REPOSITORY identifier                (backup §1.2)
//	showRepositoriesStatement: SHOW REPOSITORIES                         (backup §1.3)
//	backupStatement:           BACKUP SNAPSHOT qualifiedName TO identifier
//	    (ON '(' tableDesc (',' tableDesc)* ')')? (PROPERTIES propertyList)?
//	  and from 3.4 BACKUP DATABASE identifier SNAPSHOT identifier TO identifier
//	    (ON '(' (TABLE tableDesc | ALL TABLES) (',' ...)* ')')? ...    (backup §0, §2.1)
//	showBackupStatement:       SHOW BACKUP ((FROM | IN) identifier)?     (backup §2.4)
//	cancelBackupStatement:     CANCEL BACKUP ((FROM | IN) identifier)?   (backup §2.5)
//	showSnapshotStatement:     SHOW SNAPSHOT ON identifier
//	    (WHERE SNAPSHOT = string (AND TIMESTAMP = string)?)?             (backup §3)
//	restoreStatement:          RESTORE SNAPSHOT qualifiedName FROM identifier
//	    (ON '(' tableDesc (AS identifier)? (',' ...)* ')')? (PROPERTIES propertyList)?
//	  and from 3.4 RESTORE SNAPSHOT identifier FROM identifier DATABASE
//	    identifier (AS identifier)? (ON '(' ... ')')? PROPERTIES ...     (backup §0, §4)
//	showRestoreStatement, cancelRestoreStatement: as BACKUP's            (backup §4)
//	dropSnapshotStatement (4.2): DROP SNAPSHOT identifier ON identifier FORCE? (backup §5)
//	ADMIN SET AUTOMATED CLUSTER SNAPSHOT (ON (STORAGE VOLUME identifier)? | OFF) (backup §9)
//
// and the few others the operator needs beside them: SHOW DATABASES, SHOW
// TABLES FROM db, CREATE DATABASE [IF NOT EXISTS] db, and SELECT * FROM
// information_schema.cluster_snapshots / cluster_snapshot_jobs (backup §9).
// tableDesc is qualifiedName partitionNames?, partitionNames
// (PARTITION | PARTITIONS) '(' identifierOrString (',' ...)* ')';
// propertyList '(' string '=' string (',' ...)* ')'. The external-catalog,
// view, function and materialized-view objects of 3.4 are not simulated.

// grammar is what the FE's version takes.
type grammar struct {
	// warehouseClauses: INTO/FROM WAREHOUSE on the CN clauses (3.3+).
	warehouseClauses bool
	// backup34: the 3.4 forms BACKUP DATABASE and RESTORE ... DATABASE
	// (backup §0: "Supported from v3.4.0 onwards").
	backup34 bool
	// dropSnapshot: DROP SNAPSHOT (4.2, PR #78092; backup §5).
	dropSnapshot bool
	// createImage: the alter clause CREATE IMAGE, which FE's grammar has
	// from 2.5.3 (image.go, hasCreateImage; the server sets it by the FE
	// reached).
	createImage bool
}

func grammarOf(version string) grammar {
	return grammar{
		warehouseClauses: version != "3.1" && version != "3.2",
		backup34:         version >= "3.4",
		dropSnapshot:     version >= "4.2",
		createImage:      true,
	}
}

// tableRef is one object of an ON list: a table, its partitions, its alias.
type tableRef struct {
	name       string
	partitions []string
	alias      string
}

// backupStmt holds what the backup statements say.
type backupStmt struct {
	readOnly  bool
	repo      string
	broker    string
	hasBroker bool
	location  string
	props     map[string]string
	propOrder []string
	db, label string
	// newForm: BACKUP DATABASE / RESTORE ... DATABASE (3.4).
	newForm   bool
	asDB      string
	objects   []tableRef
	allTables bool
	// SHOW SNAPSHOT's WHERE.
	snapshot, timestamp       string
	hasSnapshot, hasTimestamp bool
	// DROP SNAPSHOT ... FORCE.
	force bool
	// ADMIN SET AUTOMATED CLUSTER SNAPSHOT ON|OFF [STORAGE VOLUME].
	on     bool
	volume string
	// SELECT * FROM information_schema.<table>; partitionsMeta the
	// SELECT of partitions_meta.
	infoTable      string
	partitionsMeta *partitionsMetaQuery
	// SHOW TABLES FROM / CREATE DATABASE: ifNotExists.
	ifNotExists bool
}

// identifier is a bare word (not digits alone: INTEGER_VALUE) or a backquoted name.
func (p *parser) identifier() (string, error) {
	t := p.peek()
	switch t.kind {
	case tokWord:
		if strings.Trim(t.val, "0123456789") == "" {
			break
		}
		p.pos++
		return t.val, nil
	case tokQuotedIdent:
		p.pos++
		return t.val, nil
	}
	return "", p.fail(identifierExpected)
}

// qualifiedName is identifier ('.' identifier)*.
func (p *parser) qualifiedName() ([]string, error) {
	first, err := p.identifier()
	if err != nil {
		return nil, err
	}
	out := []string{first}
	for p.isSymbol(".") {
		p.pos++
		id, err := p.identifier()
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

func (p *parser) expectSymbol(s string) error {
	if p.isSymbol(s) {
		p.pos++
		return nil
	}
	return p.fail("'" + s + "'")
}

// propertyList is '(' string '=' string (',' string '=' string)* ')'.
func (p *parser) propertyList(b *backupStmt) error {
	if err := p.expectSymbol("("); err != nil {
		return err
	}
	b.props = map[string]string{}
	for {
		k, err := p.stringArg()
		if err != nil {
			return err
		}
		if err := p.expectSymbol("="); err != nil {
			return err
		}
		v, err := p.stringArg()
		if err != nil {
			return err
		}
		if _, dup := b.props[k]; !dup {
			b.propOrder = append(b.propOrder, k)
		}
		b.props[k] = v
		if !p.isSymbol(",") {
			break
		}
		p.pos++
	}
	return p.expectSymbol(")")
}

// partitionNames is (PARTITION | PARTITIONS) '(' identifierOrString (',' ...)* ')'.
func (p *parser) partitionNames() ([]string, error) {
	if !p.acceptWord("PARTITION") && !p.acceptWord("PARTITIONS") {
		return nil, nil
	}
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		n, err := p.identifierOrString()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if !p.isSymbol(",") {
			break
		}
		p.pos++
	}
	return out, p.expectSymbol(")")
}

// onList is ON '(' objects ')': tableDesc (AS identifier)? items, and, in
// the 3.4 form, TABLE tableDesc and ALL TABLES.
func (p *parser) onList(b *backupStmt, newForm, alias bool) error {
	if !p.acceptWord("ON") {
		return nil
	}
	if err := p.expectSymbol("("); err != nil {
		return err
	}
	for {
		if newForm && p.acceptWord("ALL") {
			if err := p.expectWord("TABLES"); err != nil {
				return err
			}
			b.allTables = true
		} else {
			if newForm {
				p.acceptWord("TABLE")
			}
			name, err := p.qualifiedName()
			if err != nil {
				return err
			}
			ref := tableRef{name: name[len(name)-1]}
			if ref.partitions, err = p.partitionNames(); err != nil {
				return err
			}
			if alias && p.acceptWord("AS") {
				if ref.alias, err = p.identifier(); err != nil {
					return err
				}
			}
			b.objects = append(b.objects, ref)
		}
		if !p.isSymbol(",") {
			break
		}
		p.pos++
	}
	return p.expectSymbol(")")
}

// errNoDB is ERR_NO_DB_ERROR (1046, 3D000, "No database selected"): a
// one-part name with no session database. UNVERIFIED for BACKUP's
// analyzer; the simulation keeps no session database.
var errNoDB = errors.New("simstarrocks: name the database: db.label (the simulation keeps no session database)")

// dbAndLabel splits db.label.
func dbAndLabel(name []string) (string, string, error) {
	if len(name) != 2 {
		return "", "", errNoDB
	}
	return name[0], name[1], nil
}

func (p *parser) createRepository(readOnly bool) (*statement, error) {
	b := &backupStmt{readOnly: readOnly}
	var err error
	if b.repo, err = p.identifier(); err != nil {
		return nil, err
	}
	if err := p.expectWord("WITH"); err != nil {
		return nil, err
	}
	if err := p.expectWord("BROKER"); err != nil {
		return nil, err
	}
	if !p.isWord("ON") {
		// The broker name is optional (backup §1.1).
		if b.broker, err = p.identifierOrString(); err != nil {
			return nil, err
		}
		b.hasBroker = true
	}
	if err := p.expectWord("ON"); err != nil {
		return nil, err
	}
	if err := p.expectWord("LOCATION"); err != nil {
		return nil, err
	}
	if b.location, err = p.stringArg(); err != nil {
		return nil, err
	}
	if p.acceptWord("PROPERTIES") {
		if err := p.propertyList(b); err != nil {
			return nil, err
		}
		return &statement{kind: stCreateRepository, bk: b}, p.end()
	}
	return &statement{kind: stCreateRepository, bk: b}, p.end("'PROPERTIES'")
}

func (p *parser) backup(g grammar) (*statement, error) {
	b := &backupStmt{}
	switch {
	case g.backup34 && p.acceptWord("DATABASE"):
		b.newForm = true
		var err error
		if b.db, err = p.identifier(); err != nil {
			return nil, err
		}
		if err := p.expectWord("SNAPSHOT"); err != nil {
			return nil, err
		}
		if b.label, err = p.identifier(); err != nil {
			return nil, err
		}
	case p.acceptWord("SNAPSHOT"):
		name, err := p.qualifiedName()
		if err != nil {
			return nil, err
		}
		if b.db, b.label, err = dbAndLabel(name); err != nil {
			return nil, err
		}
	default:
		if g.backup34 {
			return nil, p.fail(kw("SNAPSHOT", "DATABASE")...)
		}
		return nil, p.fail(kw("SNAPSHOT")...)
	}
	if err := p.expectWord("TO"); err != nil {
		return nil, err
	}
	var err error
	if b.repo, err = p.identifier(); err != nil {
		return nil, err
	}
	if err := p.onList(b, b.newForm, false); err != nil {
		return nil, err
	}
	if p.acceptWord("PROPERTIES") {
		if err := p.propertyList(b); err != nil {
			return nil, err
		}
	}
	return &statement{kind: stBackup, bk: b}, p.end()
}

func (p *parser) restore(g grammar) (*statement, error) {
	if err := p.expectWord("SNAPSHOT"); err != nil {
		return nil, err
	}
	name, err := p.qualifiedName()
	if err != nil {
		return nil, err
	}
	b := &backupStmt{}
	if err := p.expectWord("FROM"); err != nil {
		return nil, err
	}
	if b.repo, err = p.identifier(); err != nil {
		return nil, err
	}
	if g.backup34 && len(name) == 1 && p.acceptWord("DATABASE") {
		b.newForm, b.label = true, name[0]
		if b.db, err = p.identifier(); err != nil {
			return nil, err
		}
		if p.acceptWord("AS") {
			if b.asDB, err = p.identifier(); err != nil {
				return nil, err
			}
		}
	} else if b.db, b.label, err = dbAndLabel(name); err != nil {
		return nil, err
	}
	if err := p.onList(b, b.newForm, true); err != nil {
		return nil, err
	}
	if p.acceptWord("PROPERTIES") {
		if err := p.propertyList(b); err != nil {
			return nil, err
		}
	}
	return &statement{kind: stRestore, bk: b}, p.end()
}

// fromDB is ((FROM | IN) identifier)?.
func (p *parser) fromDB() (string, error) {
	if p.acceptWord("FROM") || p.acceptWord("IN") {
		return p.identifier()
	}
	return "", nil
}

func (p *parser) showSnapshot() (*statement, error) {
	if err := p.expectWord("ON"); err != nil {
		return nil, err
	}
	b := &backupStmt{}
	var err error
	if b.repo, err = p.identifier(); err != nil {
		return nil, err
	}
	if !p.acceptWord("WHERE") {
		return &statement{kind: stShowSnapshot, bk: b}, p.end("'WHERE'")
	}
	// The grammar takes an expression; the docs' two forms are simulated
	// (SHOW_SNAPSHOT.md @239e1c8a: SNAPSHOT = x [AND TIMESTAMP = ts]).
	for {
		switch {
		case p.acceptWord("SNAPSHOT"):
			if err := p.expectSymbol("="); err != nil {
				return nil, err
			}
			if b.snapshot, err = p.stringArg(); err != nil {
				return nil, err
			}
			b.hasSnapshot = true
		case p.acceptWord("TIMESTAMP"):
			if err := p.expectSymbol("="); err != nil {
				return nil, err
			}
			if b.timestamp, err = p.stringArg(); err != nil {
				return nil, err
			}
			b.hasTimestamp = true
		default:
			return nil, errors.New("simstarrocks: only WHERE SNAPSHOT = '<label>' [AND TIMESTAMP = '<ts>'] is simulated")
		}
		if !p.acceptWord("AND") {
			break
		}
	}
	return &statement{kind: stShowSnapshot, bk: b}, p.end()
}

// adminClusterSnapshot is ADMIN SET AUTOMATED CLUSTER SNAPSHOT ON
// [STORAGE VOLUME sv] | OFF (backup §9), after ADMIN SET AUTOMATED.
func (p *parser) adminClusterSnapshot() (*statement, error) {
	if err := p.expectWord("CLUSTER"); err != nil {
		return nil, err
	}
	if err := p.expectWord("SNAPSHOT"); err != nil {
		return nil, err
	}
	b := &backupStmt{}
	switch {
	case p.acceptWord("ON"):
		b.on = true
		if p.acceptWord("STORAGE") {
			if err := p.expectWord("VOLUME"); err != nil {
				return nil, err
			}
			v, err := p.identifierOrString()
			if err != nil {
				return nil, err
			}
			b.volume = v
			return &statement{kind: stClusterSnapshot, bk: b}, p.end()
		}
		return &statement{kind: stClusterSnapshot, bk: b}, p.end("'STORAGE'")
	case p.acceptWord("OFF"):
		return &statement{kind: stClusterSnapshot, bk: b}, p.end()
	}
	return nil, p.fail(kw("ON", "OFF")...)
}

// selectInfo is SELECT * FROM information_schema.<t>, the one SELECT simulated.
func (p *parser) selectInfo() (*statement, error) {
	refuse := errors.New("simstarrocks: only SELECT * FROM information_schema.cluster_snapshots or cluster_snapshot_jobs, and SELECT columns FROM information_schema.partitions_meta, are simulated")
	if !p.isSymbol("*") {
		return p.selectPartitionsMeta(refuse)
	}
	p.pos++
	if !p.acceptWord("FROM") {
		return nil, refuse
	}
	name, err := p.qualifiedName()
	if err != nil || len(name) != 2 || !strings.EqualFold(name[0], "information_schema") {
		return nil, refuse
	}
	t := strings.ToLower(name[1])
	if t != "cluster_snapshots" && t != "cluster_snapshot_jobs" {
		return nil, refuse
	}
	return &statement{kind: stSelectInfo, bk: &backupStmt{infoTable: t}}, p.end()
}

// selectPartitionsMeta is SELECT col (, col)* FROM
// information_schema.partitions_meta [WHERE REPLICATION_NUM = n] [LIMIT n]:
// the columns of PartitionsMetaSystemTable (StarRocks' fe-core
// catalog/system/information/PartitionsMetaSystemTable.java) the
// simulation has, one partition per table, named after it (an
// unpartitioned table's).
func (p *parser) selectPartitionsMeta(refuse error) (*statement, error) {
	m := &partitionsMetaQuery{replicationNum: -1, limit: -1}
	for {
		col, err := p.identifier()
		if err != nil {
			return nil, refuse
		}
		m.columns = append(m.columns, strings.ToUpper(col))
		if !p.isSymbol(",") {
			break
		}
		p.pos++
	}
	if !p.acceptWord("FROM") {
		return nil, refuse
	}
	name, err := p.qualifiedName()
	if err != nil || len(name) != 2 || !strings.EqualFold(name[0], "information_schema") || !strings.EqualFold(name[1], "partitions_meta") {
		return nil, refuse
	}
	number := func() (int, error) {
		t := p.peek()
		n, err := strconv.Atoi(t.text)
		if t.kind != tokWord || err != nil {
			return 0, p.fail("INTEGER_VALUE")
		}
		p.pos++
		return n, nil
	}
	for where := p.acceptWord("WHERE"); where; where = p.acceptWord("AND") {
		switch {
		case p.acceptWord("REPLICATION_NUM"):
			if err := p.expectSymbol("="); err != nil {
				return nil, err
			}
			if m.replicationNum, err = number(); err != nil {
				return nil, err
			}
		case p.acceptWord("DB_NAME"):
			// != and <> lex as two symbols each.
			switch {
			case p.isSymbol("!"):
				p.pos++
				if err := p.expectSymbol("="); err != nil {
					return nil, err
				}
			case p.isSymbol("<"):
				p.pos++
				if err := p.expectSymbol(">"); err != nil {
					return nil, err
				}
			default:
				return nil, refuse
			}
			db, err := p.stringArg()
			if err != nil {
				return nil, err
			}
			m.notDB = append(m.notDB, db)
		default:
			return nil, refuse
		}
	}
	if p.acceptWord("LIMIT") {
		if m.limit, err = number(); err != nil {
			return nil, err
		}
	}
	return &statement{kind: stSelectInfo, bk: &backupStmt{infoTable: "partitions_meta", partitionsMeta: m}}, p.end()
}

// partitionsMetaQuery is a SELECT of information_schema.partitions_meta:
// its columns, the REPLICATION_NUM it asks for (-1: any), the databases
// it leaves out and its LIMIT (-1: none).
type partitionsMetaQuery struct {
	columns               []string
	replicationNum, limit int
	notDB                 []string
}
