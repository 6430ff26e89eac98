package mysqlwire

import (
	"errors"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // the parser's literal values
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// MySQL's statements reach the executor as PostgreSQL's: TiDB's parser
// (MySQL's grammar, which knows CREATE/ALTER/DROP SEQUENCE, NEXT VALUE
// FOR, NEXTVAL, LASTVAL and SETVAL) parses a query string, and each
// statement is either answered here (what connectors ask of the session:
// @@variables, SET, SHOW, USE) or restored as PostgreSQL text, with the
// sequence functions as the MariaDB spellings the executor gives
// MariaDB's semantics (seqd_mariadb_nextval and the like), names in
// double quotes, and each unaliased select-list item named as typed, as
// MariaDB names its columns.

// step is one statement of a query string, translated.
type step struct {
	// sql is the PostgreSQL text to run, when the executor runs it;
	// names, when set, name its result columns.
	sql   string
	names []string
	// stmt is the statement to run, built from TiDB's tree (build.go),
	// when it was; node its tree until translate makes it the statement,
	// params how many ? markers it holds.
	stmt   *pgsql.Statement
	node   *pg.Node
	params int
	// ddl: MariaDB commits the open transaction before it, and the
	// statement commits itself; txControl: BEGIN, COMMIT, ROLLBACK.
	ddl, txControl bool
	// table, for a SELECT from a sequence, is the sequence as MariaDB
	// names it in its error for a missing table (1146).
	table string
	// answer, when set, answers the statement here instead. acts: it
	// changes something (SET, USE, KILL, RENAME), so it runs when the
	// statement does, never when it is prepared; it returns no rows.
	answer func(c *conn) (*answer, error)
	acts   bool
	// text is the statement as sent, for logs.
	text string
}

// answer is a result made here: columns with their rows, or none.
type answer struct {
	cols []string
	rows [][]any // string, int64 or nil
}

// newParser makes a parser of MySQL's grammar. Parsers are not safe for
// concurrent use: each connection has its own.
func newParser() *parser.Parser { return parser.New() }

// parseSQL parses q with TiDB's grammar. Its literal values go through
// the parser's own test driver, whose decimal panics on numbers of more
// digits than it implements (FuzzTranslate found one of 82): such a panic
// is this statement's error, in MySQL's terms, not the connection's end.
func parseSQL(p *parser.Parser, q string) (stmts []ast.StmtNode, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmts, err = nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd's MySQL grammar cannot read this statement (a number with too many digits?): %v", r)
		}
	}()
	stmts, _, err = p.ParseSQL(q)
	if err != nil {
		return nil, syntaxError(err)
	}
	return stmts, nil
}

// translate parses q and translates its statements; db is the
// connection's database.
func translate(p *parser.Parser, q, db string) ([]step, error) {
	q, typed, temps := rename(q)
	stmts, err := parseSQL(p, q)
	if err != nil {
		return nil, err
	}
	out := make([]step, 0, len(stmts))
	start := 0 // of the statement's text: the statements' texts make up q
	for _, st := range stmts {
		end := start + len(st.Text())
		temp := false
		for _, at := range temps {
			temp = temp || (at >= start && at < end)
		}
		start = end
		var s step
		if temp {
			s, err = translateTemporary(st)
		} else {
			s, err = translateStmt(st, db)
		}
		if err != nil {
			return nil, err
		}
		s.text = st.Text()
		for r, m := range typed { // as sent, for logs and pg_stat_activity
			s.text = strings.ReplaceAll(s.text, r, m)
		}
		if s.node != nil {
			s.stmt, s.node = statement(s.node, s.text), nil
		}
		for i := range s.names {
			for r, m := range typed {
				s.names[i] = strings.ReplaceAll(s.names[i], r, m)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// syntaxError is the parser's error as MySQL words it (1064).
func syntaxError(err error) error {
	msg := err.Error()
	near := ""
	if i := strings.Index(msg, " near \""); i >= 0 {
		near = strings.TrimSuffix(strings.TrimSpace(msg[i+len(" near \""):]), "\"")
	}
	line := "1"
	if _, err := fmt.Sscanf(msg, "line %s", &line); err != nil {
		line = "1"
	}
	return sqlerr.Errorf(sqlerr.SyntaxError, "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '%s' at line %s", near, line)
}

// unsupported is the error for what seqd does not do over MySQL's
// protocol (1235), naming what it does.
func unsupported(what string) error {
	return sqlerr.Errorf(sqlerr.FeatureNotSupported,
		"seqd does not support %s over MySQL's protocol; it serves sequences: CREATE/ALTER/DROP SEQUENCE, NEXT VALUE FOR, NEXTVAL, LASTVAL, SETVAL", what)
}

func translateStmt(st ast.StmtNode, db string) (step, error) {
	switch n := st.(type) {
	case *ast.SelectStmt:
		return translateSelect(n, db)
	case *ast.CreateSequenceStmt:
		return translateCreateSequence(n, false)
	case *ast.AlterSequenceStmt:
		node, err := alterSequenceNode(n)
		s, err := builtStep(node, err, func() (string, error) { return restore(n) })
		s.ddl = true
		return s, err
	case *ast.DropSequenceStmt:
		return translateDropSequence(n)
	case *ast.BeginStmt:
		return txStep(pg.TransactionStmtKind_TRANS_STMT_BEGIN, "BEGIN"), nil
	case *ast.CommitStmt:
		return txStep(pg.TransactionStmtKind_TRANS_STMT_COMMIT, "COMMIT"), nil
	case *ast.RollbackStmt:
		return txStep(pg.TransactionStmtKind_TRANS_STMT_ROLLBACK, "ROLLBACK"), nil
	case *ast.SetStmt:
		return step{answer: func(c *conn) (*answer, error) { return nil, c.set(n) }, acts: true}, nil
	case *ast.UseStmt:
		return step{answer: func(c *conn) (*answer, error) { return nil, c.use(n.DBName) }, acts: true}, nil
	case *ast.CreateDatabaseStmt:
		s, err := builtStep(createSchemaNode(n.Name.O, n.IfNotExists), nil, func() (string, error) {
			if n.IfNotExists {
				return "CREATE SCHEMA IF NOT EXISTS " + quote(n.Name.O), nil
			}
			return "CREATE SCHEMA " + quote(n.Name.O), nil
		})
		s.ddl = true
		return s, err
	case *ast.ShowStmt:
		return translateShow(n, db)
	case *ast.RenameTableStmt:
		return translateRename(n.TableToTables, db)
	case *ast.AlterTableStmt:
		if len(n.Specs) == 1 && n.Specs[0].Tp == ast.AlterTableRenameTable {
			return translateRename([]*ast.TableToTable{{OldTable: n.Table, NewTable: n.Specs[0].NewTable}}, db)
		}
	case *ast.KillStmt:
		id := uint32(n.ConnectionID)
		if uint64(id) != n.ConnectionID {
			return step{}, mysql.NewSQLError(1094, "HY000", "Unknown thread id: %d", n.ConnectionID)
		}
		return step{answer: func(c *conn) (*answer, error) { return nil, c.srv.kill(c, id, n.Query) }, acts: true}, nil
	}
	return step{}, unsupported(fmt.Sprintf("this statement (%s)", strings.TrimPrefix(fmt.Sprintf("%T", st), "*ast.")))
}

// txStep is BEGIN, COMMIT or ROLLBACK (text, for tests: alsoRestore).
func txStep(kind pg.TransactionStmtKind, text string) step {
	s := step{node: transactionNode(kind), txControl: true}
	if alsoRestore {
		s.sql = text
	}
	return s
}

// sessionFuncs are the functions of the session a select list may hold,
// answered here.
var sessionFuncs = map[string]bool{"database": true, "schema": true, "connection_id": true, "last_insert_id": true, "version": true,
	"user": true, "current_user": true, "session_user": true, "system_user": true}

func translateSelect(n *ast.SelectStmt, db string) (step, error) {
	if n.Fields == nil {
		return step{}, unsupported("this SELECT")
	}
	if n.From != nil {
		return translateSelectFrom(n, db)
	}
	if n.Where != nil || n.GroupBy != nil || n.Having != nil || n.OrderBy != nil {
		return step{}, unsupported("SELECT with WHERE, GROUP BY or ORDER BY but no FROM")
	}
	names := make([]string, len(n.Fields.Fields))
	session := true
	for i, f := range n.Fields.Fields {
		if f.WildCard != nil {
			return step{}, unsupported("SELECT * without FROM")
		}
		names[i] = f.AsName.O
		if names[i] == "" {
			names[i] = f.Text()
		}
		if !sessionExpr(f.Expr) {
			session = false
		}
	}
	if session {
		// What connectors ask at connect: SELECT @@version_comment LIMIT
		// 1, Connector/J's one-row read of variables, DATABASE().
		exprs := make([]ast.ExprNode, len(n.Fields.Fields))
		for i, f := range n.Fields.Fields {
			exprs[i] = f.Expr
		}
		return step{answer: func(c *conn) (*answer, error) { return c.evalSession(names, exprs, n.Limit) }}, nil
	}
	v := &seqFuncs{}
	n.Accept(v)
	if v.err != nil {
		return step{}, v.err
	}
	for _, f := range n.Fields.Fields {
		f.AsName = ast.CIStr{}
	}
	return built(n, names)
}

// alsoRestore, set by tests, has built keep the restored text of every
// statement, which they parse to compare with the tree built.
var alsoRestore bool

// built is a SELECT's step: its tree built, or else its restored text.
// A statement with ? markers keeps its text too, for the text protocol,
// where a marker is PostgreSQL's grammar's error, as it was.
func built(n *ast.SelectStmt, names []string) (step, error) {
	var b builder
	node, err := b.selectStmt(n)
	if err != nil && !errors.Is(err, errNotBuilt) {
		return step{}, err
	}
	s := step{node: node, params: b.number(), names: names}
	if node == nil || s.params > 0 || alsoRestore {
		if s.sql, err = restore(n); err != nil {
			return step{}, err
		}
	}
	return s, nil
}

// fromPlaceholder stands for the sequence in a SELECT's restored text,
// replaced by the relation of MariaDB's sequence columns.
const fromPlaceholder = "seqd_sequence_table"

// translateSelectFrom is a SELECT from one sequence, whose row has
// MariaDB's sequence columns (next_not_cached_value, minimum_value,
// maximum_value, start_value, increment, cache_size, cycle_option,
// cycle_count): the sequence becomes that relation, made of its
// pg_sequences row and its position read from the sequence relation
// itself. That read is PostgreSQL 15's SELECT ... FROM s, which the
// executor allows only with SELECT on the sequence (USAGE is not enough)
// and which fails for a sequence that is not there: a role without
// SELECT gets InsufficientPrivilege (1142), never pg_sequences' position,
// which is NULL to it and would read as start_value.
func translateSelectFrom(n *ast.SelectStmt, db string) (step, error) {
	j := n.From.TableRefs
	ts, ok := j.Left.(*ast.TableSource)
	if !ok || j.Right != nil {
		return step{}, unsupported("SELECT from several tables or a subquery")
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return step{}, unsupported("SELECT from a subquery")
	}
	schema := tn.Schema.O
	var info *infoTable
	switch strings.ToLower(schema) {
	case "information_schema":
		if info = infoSchema[tn.Name.L]; info == nil {
			// MariaDB's words; seqd has SCHEMATA, TABLES and SEQUENCES.
			return step{}, mysql.NewSQLError(1109, "42S02", "Unknown table '%s' in information_schema", tn.Name.O)
		}
	case "mysql", "performance_schema", "sys":
		return step{}, unsupported("SELECT from " + schema)
	}
	// An unqualified name is looked up as the executor looks it up (a
	// temporary sequence first, then the database's); errors name the
	// database.
	named := schema
	if named == "" {
		named = db
	}
	if ts.AsName.O == "" {
		ts.AsName = tn.Name
	}
	name := tn.Name.O
	tn.Schema, tn.Name = ast.CIStr{}, ast.NewCIStr(fromPlaceholder)
	var names []string
	for _, f := range n.Fields.Fields {
		if f.WildCard != nil {
			names = nil // the relation's own
			if info != nil {
				names = info.cols
			}
			break
		}
		nm := f.AsName.O
		if nm == "" {
			nm = f.Text()
		}
		names = append(names, nm)
		f.AsName = ast.CIStr{}
	}
	v := &seqFuncs{db: db, inFrom: true}
	n.Accept(v)
	if v.err != nil {
		return step{}, v.err
	}
	n.Accept(lowerColumns{})
	text, err := restore(n)
	if err != nil {
		return step{}, err
	}
	if info != nil {
		return step{sql: strings.Replace(text, quote(fromPlaceholder), info.rel, 1), names: names}, nil
	}
	rel := `(SELECT CASE WHEN seqd_called THEN seqd_last + increment_by ELSE start_value END AS next_not_cached_value,
 min_value AS minimum_value, max_value AS maximum_value, start_value, increment_by AS increment,
 CASE WHEN cache_size = 1 THEN 0 ELSE cache_size END AS cache_size, CASE WHEN cycle THEN 1 ELSE 0 END AS cycle_option, 0 AS cycle_count
 FROM (SELECT last_value AS seqd_last, is_called AS seqd_called FROM ` + qualifiedName(schema, name) + `) AS seqd_position, pg_catalog.pg_sequences
 WHERE ` + sequenceRow(schema, name) + `)`
	text = strings.Replace(text, quote(fromPlaceholder), rel, 1)
	return step{sql: text, names: names, table: tableName(named, name)}, nil
}

// sequenceRow is the condition on pg_sequences that picks schema.name's
// row, to end a query. An empty schema is where an unqualified name is
// found: the session's temporary sequence of that name, which shadows
// the current schema's (as in MariaDB), or else the current schema's.
func sequenceRow(schema, name string) string {
	if schema != "" {
		return "schemaname = " + pgsql.QuoteLiteral(schema) + " AND sequencename = " + pgsql.QuoteLiteral(name)
	}
	return "sequencename = " + pgsql.QuoteLiteral(name) + ` AND (schemaname = current_schema() OR schemaname LIKE 'pg\_temp\_%')
 ORDER BY schemaname LIKE 'pg\_temp\_%' DESC LIMIT 1`
}

// tableName is schema.name as MariaDB names a table in its errors.
func tableName(schema, name string) string {
	if schema == "" {
		return name
	}
	return schema + "." + name
}

// noSuchTable is MariaDB's error for a table that is not there (1146),
// named as tableName names it.
func noSuchTable(table string) error {
	return mysql.NewSQLError(1146, "42S02", "Table '%s' doesn't exist", table)
}

// qualifiedName is schema.name as PostgreSQL's text names a relation,
// each part in double quotes (name alone: found along the search path).
func qualifiedName(schema, name string) string {
	if schema == "" {
		return quote(name)
	}
	return quote(schema) + "." + quote(name)
}

// lowerColumns lowers column names, which are not case-sensitive in
// MySQL, to the relation's.
type lowerColumns struct{}

func (lowerColumns) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnName); ok {
		c.Name = ast.NewCIStr(c.Name.L)
	}
	return n, false
}

func (lowerColumns) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// sessionExpr reports whether x is answered here: a system variable, a
// session function, a literal.
func sessionExpr(x ast.ExprNode) bool {
	switch x := x.(type) {
	case *ast.VariableExpr:
		return x.IsSystem
	case *ast.FuncCallExpr:
		return sessionFuncs[x.FnName.L] && len(x.Args) <= 1
	case ast.ValueExpr:
		return true
	}
	return false
}

// seqFuncs rewrites the sequence functions' names, and refuses what the
// executor would misread (a variable in an expression). In a SELECT with
// FROM (inFrom), DATABASE() and SCHEMA() are the connection's database,
// db (NULL if none), as a literal.
type seqFuncs struct {
	err    error
	db     string
	inFrom bool
}

func (v *seqFuncs) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.FuncCallExpr:
		if kind, ok := strings.CutPrefix(n.FnName.L, renamedPrefix); ok && len(n.Args) > 0 {
			// A renamed spelling: a plain call, its sequence a column.
			kind, _, _ = strings.Cut(kind, "_")
			if to, ok := renamedSpelling(kind); ok {
				if _, col := n.Args[0].(*ast.ColumnNameExpr); col {
					n.FnName = ast.NewCIStr(to)
				}
			}
		} else if to, ok := executor.MariaDBSpelling(n.FnName.L); ok && len(n.Args) > 0 {
			if _, named := n.Args[0].(*ast.TableNameExpr); named { // NEXT VALUE FOR s, NEXTVAL(s), ...
				n.FnName = ast.NewCIStr(to)
			}
		} else if v.inFrom && isDatabaseFunc(n) {
			break // Leave replaces it
		} else if sessionFuncs[n.FnName.L] && v.err == nil {
			v.err = unsupported(n.FnName.O + "() in an expression")
		}
	case *ast.VariableExpr:
		if v.err == nil {
			v.err = unsupported("variables in an expression")
		}
	}
	return n, false
}

func (v *seqFuncs) Leave(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && v.inFrom && isDatabaseFunc(f) {
		if v.db == "" {
			return ast.NewValueExpr(nil, "", ""), true
		}
		return ast.NewValueExpr(v.db, "", ""), true
	}
	return n, true
}

// isDatabaseFunc reports whether f is DATABASE() or SCHEMA().
func isDatabaseFunc(f *ast.FuncCallExpr) bool {
	return (f.FnName.L == "database" || f.FnName.L == "schema") && len(f.Args) == 0
}

// translateCreateSequence is CREATE SEQUENCE with MariaDB's defaults
// where the statement leaves them (CACHE 1000, MAXVALUE 2^63-2 going up,
// MINVALUE -(2^63-1) going down)
// and CACHE 0 as NOCACHE; ENGINE= and other table options are accepted
// and have no effect.
func translateCreateSequence(n *ast.CreateSequenceStmt, temporary bool) (step, error) {
	node, err := createSequenceNode(n, temporary)
	s, err := builtStep(node, err, func() (string, error) { return createSequence(n, temporary) })
	s.ddl = true
	return s, err
}

// seqDefaults says which of MariaDB's defaults a CREATE SEQUENCE leaves
// to them, and makes its CACHE 0 NOCACHE.
func seqDefaults(n *ast.CreateSequenceStmt) (hasCache, hasMax, hasMin, down bool) {
	for _, o := range n.SeqOptions {
		switch o.Tp {
		case ast.SequenceCache:
			hasCache = true
			if o.IntValue == 0 {
				o.Tp = ast.SequenceNoCache
			}
		case ast.SequenceNoCache:
			hasCache = true
		case ast.SequenceMaxValue, ast.SequenceNoMaxValue:
			hasMax = true
		case ast.SequenceMinValue, ast.SequenceNoMinValue:
			hasMin = true
		case ast.SequenceOptionIncrementBy:
			down = o.IntValue < 0
		}
	}
	return hasCache, hasMax, hasMin, down
}

// createSequence is CREATE SEQUENCE's PostgreSQL text, with MariaDB's
// defaults.
func createSequence(n *ast.CreateSequenceStmt, temporary bool) (string, error) {
	hasCache, hasMax, hasMin, down := seqDefaults(n)
	n.TblOptions = nil
	text, err := restore(n)
	if err != nil {
		return "", err
	}
	if !hasCache {
		text += " CACHE 1000"
	}
	if !hasMax && !down {
		text += " MAXVALUE 9223372036854775806"
	}
	if !hasMin && down {
		text += " MINVALUE -9223372036854775807"
	}
	if temporary {
		rest, ok := strings.CutPrefix(text, "CREATE SEQUENCE ")
		if !ok {
			return "", unsupported("this CREATE TEMPORARY SEQUENCE")
		}
		text = "CREATE TEMPORARY SEQUENCE " + rest
	}
	return text, nil
}

// builtStep is the step of a statement built as node, with err; text
// makes its restored text, which the step runs when the builder did not
// convert the statement, and which tests compare (alsoRestore).
func builtStep(node *pg.Node, err error, text func() (string, error)) (step, error) {
	if err != nil && !errors.Is(err, errNotBuilt) {
		return step{}, err
	}
	s := step{node: node}
	if node == nil || alsoRestore {
		if s.sql, err = text(); err != nil {
			return step{}, err
		}
	}
	return s, nil
}

// translateTemporary is CREATE and DROP TEMPORARY SEQUENCE: a sequence
// of the session's, in PostgreSQL's temporary schema, which unqualified
// names find before the database's (it shadows a sequence of the same
// name, as MariaDB's does); DROP TEMPORARY drops only those. In MariaDB
// neither commits the open transaction and neither is undone by its
// ROLLBACK; here each commits it, as other DDL does, so that the
// sequence outlives a ROLLBACK as MariaDB's does (what else a
// transaction holds, DDL aside, is not undone by ROLLBACK in MariaDB
// either: sequences' values).
func translateTemporary(st ast.StmtNode) (step, error) {
	switch n := st.(type) {
	case *ast.CreateSequenceStmt:
		n.Name.Schema = ast.CIStr{}
		return translateCreateSequence(n, true)
	case *ast.DropSequenceStmt:
		for _, t := range n.Sequences {
			t.Schema = ast.NewCIStr("pg_temp")
		}
		return translateDropSequence(n)
	}
	return step{}, unsupported("TEMPORARY here")
}

func translateDropSequence(n *ast.DropSequenceStmt) (step, error) {
	s, err := builtStep(dropSequenceNode(n), nil, func() (string, error) { return restore(n) })
	s.ddl = true
	return s, err
}

func translateShow(n *ast.ShowStmt, db string) (step, error) {
	switch n.Tp {
	case ast.ShowDatabases:
		return step{sql: "SELECT 'information_schema' UNION ALL SELECT nspname FROM pg_catalog.pg_namespace WHERE " + mysqlSchemas("nspname") + " ORDER BY 1",
			names: []string{"Database"}}, nil
	case ast.ShowTables:
		if n.DBName != "" {
			db = n.DBName
		}
		if db == "" {
			return step{}, sqlerr.Errorf(sqlerr.UndefinedSchema, "No database selected")
		}
		// The sequences the role sees, as information_schema.TABLES.
		q := "SELECT c.relname"
		names := []string{"Tables_in_" + db}
		if n.Full {
			q += ", 'SEQUENCE'"
			names = append(names, "Table_type")
		}
		return step{sql: q + seenSequences + " AND n.nspname = " + pgsql.QuoteLiteral(db) + " ORDER BY 1", names: names}, nil
	case ast.ShowCreateSequence:
		schema, named := n.Table.Schema.O, n.Table.Schema.O
		if named == "" {
			named = db
		}
		name := n.Table.Name.O
		return step{answer: func(c *conn) (*answer, error) { return c.showCreateSequence(schema, name, tableName(named, name)) }}, nil
	case ast.ShowVariables:
		pattern := ""
		if n.Pattern != nil {
			if v, ok := n.Pattern.Pattern.(ast.ValueExpr); ok {
				pattern = fmt.Sprint(v.GetValue())
			}
		}
		return step{answer: func(c *conn) (*answer, error) { return c.showVariables(pattern), nil }}, nil
	}
	return step{}, unsupported("this SHOW")
}

// restore is n as PostgreSQL text.
func restore(n ast.Node) (string, error) {
	var b strings.Builder
	flags := format.RestoreStringSingleQuotes | format.RestoreKeyWordUppercase | format.RestoreNameDoubleQuotes | format.RestoreStringWithoutCharset
	if err := n.Restore(format.NewRestoreCtx(flags, &b)); err != nil {
		return "", unsupported(fmt.Sprintf("this statement (%v)", err))
	}
	return b.String(), nil
}

// quote is an identifier in double quotes (always, unlike
// pgsql.QuoteIdent).
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
