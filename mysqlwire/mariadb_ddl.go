package mysqlwire

import (
	"context"
	"math"
	"regexp"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// MariaDB's sequence DDL where one of its statements is several of the
// executor's, or fails in other words than PostgreSQL's:
//
//   - CREATE OR REPLACE SEQUENCE drops the sequence and creates it again
//     in one transaction, so that a definition MariaDB refuses (4085)
//     leaves the old sequence as MariaDB does; COMMENT= is COMMENT ON.
//   - DROP SEQUENCE a, b drops each one that is there and then reports
//     those that were not (4091, naming them all), as MariaDB does;
//     PostgreSQL's drops none.
//   - DROP DATABASE drops a schema with its sequences; MariaDB's
//     information_schema cannot be dropped (1044).
//
// Every failure of CREATE and ALTER SEQUENCE PostgreSQL words as an
// invalid option MariaDB words as one: the sequence has out of range
// values for its options (4085).

// seqName is a sequence as a statement names it: its schema as written
// ("" for none), its name, and named, schema.name as MariaDB names it in
// its errors (the connection's database when none is written).
type seqName struct{ schema, name, named string }

// nameOf is t as seqName says, in database db.
func nameOf(t *ast.TableName, db string) seqName {
	named := t.Schema.O
	if named == "" {
		named = db
	}
	return seqName{t.Schema.O, t.Name.O, tableName(named, t.Name.O)}
}

// invalidOptions is MariaDB's error for a sequence's options that do
// not hold together (ER_SEQUENCE_INVALID_DATA).
func invalidOptions(named string) error {
	return mysql.NewSQLError(4085, "HY000", "Sequence '%s' has out of range value for options", named)
}

// ddlError is err of CREATE or ALTER SEQUENCE of s as MariaDB words it.
func ddlError(err error, s seqName) error {
	switch frontend.KindOf(err) {
	case sqlerr.InvalidParameterValue:
		return invalidOptions(s.named)
	case sqlerr.DuplicateTable:
		return mysql.NewSQLError(1050, "42S01", "Table '%s' already exists", s.name)
	case sqlerr.UndefinedTable: // ALTER's
		return unknownSequence(s)
	case sqlerr.UndefinedSchema:
		if s.schema != "" {
			return mysql.NewSQLError(1049, "42000", "Unknown database '%s'", s.schema)
		}
		// The connection's database was dropped (DROP DATABASE).
		return mysql.NewSQLError(1046, "3D000", "No database selected")
	}
	return err
}

// tableComment is the COMMENT= of a CREATE SEQUENCE's table options;
// ok is false when it has none (the last one counts, as in MariaDB).
// The other table options (ENGINE=, MIN_ROWS=, ...) have no meaning
// for a sequence here and are accepted as MariaDB accepts them.
func tableComment(opts []*ast.TableOption) (comment string, ok bool) {
	for _, o := range opts {
		if o.Tp == ast.TableOptionComment {
			comment, ok = o.StrValue, true
		}
	}
	return comment, ok
}

// translateCreate is CREATE [OR REPLACE] [TEMPORARY] SEQUENCE.
func translateCreate(n *ast.CreateSequenceStmt, temporary, replace bool, db string) (step, error) {
	if replace && n.IfNotExists {
		return step{}, mysql.NewSQLError(1221, "HY000", "Incorrect usage of OR REPLACE and IF NOT EXISTS")
	}
	s := nameOf(n.Name, db)
	if !mariadbValid(n.SeqOptions) {
		return step{}, invalidOptions(s.named)
	}
	create, err := createSequenceNode(n, temporary)
	if err != nil {
		return step{}, err
	}
	fail := func(err error) error { return ddlError(err, s) }
	var noted func([]executor.Notice) []condition
	if n.IfNotExists {
		noted = noticed(sqlerr.DuplicateTable, note(1050, "Table '%s' already exists", s.name))
	}
	if _, ok := tableComment(n.TblOptions); !ok && !replace {
		return step{node: create, ddl: true, fail: fail, noted: noted}, nil
	}
	nodes := []*pg.Node{create}
	if replace {
		drop := dropSequenceNode(&ast.DropSequenceStmt{IfExists: true, Sequences: []*ast.TableName{n.Name}})
		if temporary {
			drop.GetDropStmt().Objects[0] = listNode([]*pg.Node{strNode("pg_temp"), strNode(n.Name.Name.O)})
		}
		nodes = []*pg.Node{drop, create}
	}
	if comment, ok := tableComment(n.TblOptions); ok {
		rv := seqRangeVar(n.Name, false)
		obj := []*pg.Node{strNode(rv.Relname)}
		if temporary {
			obj = append([]*pg.Node{strNode("pg_temp")}, obj...)
		} else if rv.Schemaname != "" {
			obj = append([]*pg.Node{strNode(rv.Schemaname)}, obj...)
		}
		nodes = append(nodes, &pg.Node{Node: &pg.Node_CommentStmt{CommentStmt: &pg.CommentStmt{Objtype: pg.ObjectType_OBJECT_SEQUENCE,
			Object: listNode(obj), Comment: comment}}})
	}
	exec := func(ctx context.Context, cn *conn, sess *executor.Session) (*sqltypes.Result, error) {
		return cn.inTransaction(ctx, sess, nodes)
	}
	return step{exec: exec, acts: true, ddl: true, fail: fail, noted: noted}, nil
}

// translateAlter is ALTER SEQUENCE. Unless it restarts the sequence,
// MariaDB's gives up its cache first: the sequence continues from its
// next_not_cached_value, whatever it changes, at the new increment from
// there. seqd's gives up its window (Session.DiscardWindow), the values
// reserved up to its durable mark, and continues from the value after
// the mark; the ALTER then keeps that position. A discard that fails
// (no such sequence, no privilege) leaves the ALTER to fail in its own
// words.
func translateAlter(n *ast.AlterSequenceStmt, db string) (step, error) {
	node, err := alterSequenceNode(n)
	if err != nil {
		return step{}, err
	}
	s := nameOf(n.Name, db)
	fail := func(err error) error { return ddlError(err, s) }
	var noted func([]executor.Notice) []condition
	if n.IfExists {
		noted = noticed("", unknownNote(s.named))
	}
	for _, o := range n.SeqOptions {
		if o.Tp == ast.SequenceRestart || o.Tp == ast.SequenceRestartWith {
			return step{node: node, ddl: true, fail: fail, noted: noted}, nil
		}
	}
	exec := func(ctx context.Context, cn *conn, sess *executor.Session) (*sqltypes.Result, error) {
		cn.typed(ctx, sess, func(ctx context.Context) error { return sess.DiscardWindow(ctx, s.schema, s.name) })
		return cn.execStmt(ctx, sess, statement(node, ""), nil)
	}
	return step{node: node, exec: exec, acts: true, ddl: true, fail: fail, noted: noted}, nil
}

// inTransaction runs nodes one after another, all or none: in a
// transaction of their own when there are several (a DDL statement
// runs with none open: before committed it).
func (cn *conn) inTransaction(ctx context.Context, sess *executor.Session, nodes []*pg.Node) (*sqltypes.Result, error) {
	if len(nodes) == 1 {
		return cn.execStmt(ctx, sess, statement(nodes[0], ""), nil)
	}
	if err := cn.begin(ctx, sess); err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if _, err := cn.execStmt(ctx, sess, statement(n, ""), nil); err != nil {
			cn.rollback(ctx, sess)
			return nil, err
		}
	}
	return &sqltypes.Result{}, cn.commit(ctx, sess)
}

// translateDrop is DROP [TEMPORARY] SEQUENCE [IF EXISTS] a, b, ...: each
// dropped on its own, those not there named together afterwards
// (4091), or with IF EXISTS not at all; a name twice is MariaDB's 1066.
func translateDrop(n *ast.DropSequenceStmt, temporary bool, db string) (step, error) {
	seen := map[string]bool{}
	names := make([]seqName, len(n.Sequences))
	nodes := make([]*pg.Node, len(n.Sequences))
	for i, t := range n.Sequences {
		names[i] = nameOf(t, db)
		if seen[names[i].named] {
			return step{}, mysql.NewSQLError(1066, "42000", "Not unique table/alias: '%s'", t.Name.O)
		}
		seen[names[i].named] = true
		one := &ast.DropSequenceStmt{Sequences: []*ast.TableName{t}}
		if temporary {
			one.Sequences = []*ast.TableName{{Schema: ast.NewCIStr("pg_temp"), Name: t.Name}}
		}
		nodes[i] = dropSequenceNode(one)
	}
	// node drops them all, as PostgreSQL's DROP does: what runs with
	// IF EXISTS (which drops those that are there, as MariaDB's does) or
	// one name, else what the step shows of itself.
	node := dropSequenceNode(n)
	if temporary {
		for i, t := range n.Sequences {
			node.GetDropStmt().Objects[i] = listNode([]*pg.Node{strNode("pg_temp"), strNode(t.Name.O)})
		}
	}
	if len(nodes) == 1 {
		fail := func(err error) error {
			if missingKind(err) {
				return mysql.NewSQLError(4091, "42S02", "Unknown SEQUENCE: '%s'", names[0].named)
			}
			return err
		}
		var noted func([]executor.Notice) []condition
		if n.IfExists {
			noted = noticed("", unknownNote(names[0].named))
		}
		return step{node: node, ddl: true, fail: fail, noted: noted}, nil
	}
	exec := func(ctx context.Context, cn *conn, sess *executor.Session) (*sqltypes.Result, error) {
		var missing []string
		for i, node := range nodes {
			_, err := cn.execStmt(ctx, sess, statement(node, ""), nil)
			switch frontend.KindOf(err) {
			case sqlerr.UndefinedTable, sqlerr.UndefinedSchema:
				missing = append(missing, names[i].named)
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		switch {
		case len(missing) > 0 && n.IfExists:
			cn.diag.push(unknownNote(strings.Join(missing, ",")))
		case len(missing) > 0:
			return nil, mysql.NewSQLError(4091, "42S02", "Unknown SEQUENCE: '%s'", strings.Join(missing, ","))
		}
		return &sqltypes.Result{}, nil
	}
	return step{node: node, exec: exec, acts: true, ddl: true}, nil
}

// translateDropDatabase is DROP DATABASE [IF EXISTS]: the schema with
// its sequences. The connection that was in it is in none afterwards,
// as in MariaDB (DATABASE() is NULL). IF EXISTS of one not there is
// MariaDB's note 1008, its error's words: the schema's DROP runs
// without IF EXISTS, so that its error, not a notice, says so.
func translateDropDatabase(n *ast.DropDatabaseStmt) (step, error) {
	name := n.Name.O
	drop := &pg.Node{Node: &pg.Node_DropStmt{DropStmt: &pg.DropStmt{Objects: []*pg.Node{strNode(name)}, RemoveType: pg.ObjectType_OBJECT_SCHEMA,
		Behavior: pg.DropBehavior_DROP_CASCADE}}}
	exec := func(ctx context.Context, cn *conn, sess *executor.Session) (*sqltypes.Result, error) {
		if strings.EqualFold(name, "information_schema") {
			return nil, mysql.NewSQLError(1044, "42000", "Access denied for user '%s'@'%s' to database '%s'", cn.c.User, hostOf(cn.c), name)
		}
		res, err := cn.execStmt(ctx, sess, statement(drop, ""), nil)
		switch frontend.KindOf(err) {
		case sqlerr.UndefinedSchema:
			const missing = "Can't drop database '%s'; database doesn't exist"
			if n.IfExists {
				cn.diag.push(note(1008, missing, name))
				return &sqltypes.Result{}, nil
			}
			return nil, mysql.NewSQLError(1008, "HY000", missing, name)
		case sqlerr.InsufficientPrivilege:
			return nil, mysql.NewSQLError(1044, "42000", "Access denied for user '%s'@'%s' to database '%s'", cn.c.User, hostOf(cn.c), name)
		}
		if err == nil && cn.db == name {
			cn.db = ""
			sess.ShowDatabase("")
		}
		return res, err
	}
	return step{exec: exec, acts: true, ddl: true}, nil
}

// callError is err of a statement calling the sequences seqs as MariaDB
// words it: a sequence with no value left is ER_SEQUENCE_RUN_OUT (the
// executor's message names it without its schema), one in a database
// that is not there ER_UNKNOWN_SEQUENCES.
func callError(err error, seqs []seqName) error {
	switch frontend.KindOf(err) {
	case sqlerr.SequenceLimitExceeded:
		m := limitSequence.FindStringSubmatch(err.Error())
		for _, s := range seqs {
			if m != nil && s.name == m[1] {
				return mysql.NewSQLError(4084, "HY000", "Sequence '%s' has run out", s.named)
			}
		}
	case sqlerr.UndefinedSchema:
		m := missingSchema.FindStringSubmatch(err.Error())
		for _, s := range seqs {
			if m != nil && s.schema == m[1] {
				return unknownSequence(s)
			}
		}
	case sqlerr.UndefinedTable:
		m := missingRelation.FindStringSubmatch(err.Error())
		for _, s := range seqs {
			if m != nil && (m[1] == s.name || m[1] == s.schema+"."+s.name) {
				return unknownSequence(s)
			}
		}
	}
	return err
}

// mariadbValid is MariaDB's check of a new sequence's options
// (sequence_definition::check_and_adjust) where it is stricter than
// PostgreSQL's: MAXVALUE and MINVALUE stop one short of the 64-bit
// range, and CACHE times INCREMENT must fit in it. INCREMENT 0 counts
// as 1 (MariaDB's auto_increment_increment, which is 1 here).
func mariadbValid(opts []*ast.SequenceOption) bool {
	inc, cache := int64(1), int64(1000)
	var min, max, start *int64
	for _, o := range opts {
		v := o.IntValue
		switch o.Tp {
		case ast.SequenceOptionIncrementBy:
			if inc = v; v == 0 {
				inc = 1
			}
		case ast.SequenceCache:
			cache = v
		case ast.SequenceMinValue:
			min = &v
		case ast.SequenceNoMinValue:
			min = nil
		case ast.SequenceMaxValue:
			max = &v
		case ast.SequenceNoMaxValue:
			max = nil
		case ast.SequenceStartWith:
			start = &v
		}
	}
	lo, hi := int64(1), int64(math.MaxInt64-1)
	if inc < 0 {
		lo, hi = math.MinInt64+1, -1
	}
	if min != nil {
		lo = *min
	}
	if max != nil {
		hi = *max
	}
	first := lo
	if inc < 0 {
		first = hi
	}
	if start != nil {
		first = *start
	}
	step := inc
	if step < 0 {
		step = -step
	}
	return hi >= first && hi > lo && first >= lo && hi != math.MaxInt64 && lo != math.MinInt64 &&
		cache >= 0 && cache < (math.MaxInt64-step)/step
}

// limitSequence is the executor's message for a sequence with no value
// left.
var limitSequence = regexp.MustCompile(`sequence "(.*)"`)
