package mysqlwire

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // the parser's literal values
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// MySQL's statements reach the executor as PostgreSQL's parse trees
// (build*.go): TiDB's parser (MySQL's grammar, which knows
// CREATE/ALTER/DROP SEQUENCE, NEXT VALUE FOR, NEXTVAL, LASTVAL and SETVAL)
// parses a query string, and each statement is either answered here
// (what connectors ask of the session: @@variables, SET, SHOW, USE; and
// RENAME TABLE, by the session's typed operations) or built into the
// tree of the statement the executor runs, with the sequence functions
// as the MariaDB spellings the executor gives MariaDB's semantics
// (seqd_mariadb_nextval and the like), and each result column named as
// MariaDB names it (step.names).

// step is one statement of a query string, translated.
type step struct {
	// names, when set, name its result columns; types, when set, type
	// them as MariaDB does (types.go), a zero colType where not told.
	names []string
	types []colType
	// stmt is the statement to run, built from TiDB's tree; node its tree
	// until translate makes it the statement, params how many ? markers
	// it holds, markerAt where the first stands in the query string and
	// near the statement's text from there on (sent as text, a marker is
	// a syntax error: markerError).
	stmt     *pgsql.Statement
	node     *pg.Node
	params   int
	markerAt int
	near     string
	// ddl: MariaDB commits the open transaction before it, and the
	// statement commits itself; txControl: BEGIN, COMMIT, ROLLBACK.
	ddl, txControl bool
	// tables are the sequences its FROM clauses read, as MariaDB names
	// them in its error for a missing table (1146).
	tables []fromTable
	// calls are the functions its calls name, as MariaDB names them in
	// its errors for one not there (1305) or called with a wrong number
	// of arguments (1582); db the database unqualified names are in.
	calls []calledFunc
	db    string
	// columns are its column references' names as written where not in
	// lower case, by the name built (builder.columns).
	columns map[string]string
	// answer, when set, answers the statement here instead. acts: it
	// changes something (SET, USE, KILL, RENAME), so it runs when the
	// statement does, never when it is prepared; it returns no rows.
	answer func(c *conn) (*answer, error)
	acts   bool
	// discard: the statement's rows are not sent (DO: an OK packet).
	discard bool
	// exec, when set, runs in place of stmt once before has run: a
	// statement MariaDB answers as several of the executor's
	// (mariadb_ddl.go). fail, when set, words the statement's failure
	// as MariaDB does where PostgreSQL's words are not MariaDB's.
	exec func(ctx context.Context, cn *conn, sess *executor.Session) (*sqltypes.Result, error)
	// check, when set, runs before stmt or exec, text or prepared, and
	// its error is the statement's: what MariaDB checks first (the
	// database a SHOW names, 1049).
	check func(ctx context.Context, cn *conn, sess *executor.Session) error
	fail  func(err error) error
	// text is the statement as sent, for logs; command what it is
	// counted as (commandOf).
	text    string
	command string
	// clears: it uses a table, so MariaDB clears its diagnostics before
	// it (warnings.go, rule 1). noted, when set, is the notes MariaDB
	// raises where the executor gave the notices ns (noticed).
	clears bool
	noted  func(ns []executor.Notice) []condition
	// reads: it reads user variables, written in as they were when it
	// was built; it is built again from source, its text as sent, each
	// time it runs (uservars.go, rule 2).
	reads  bool
	source string
}

// answer is a result made here: columns with their rows, or none.
type answer struct {
	cols []string
	rows [][]any // string, int64 or nil
	// typed, when set, is the result, its columns typed as MariaDB's.
	typed *sqltypes.Result
	// types, when set, are cols' types as MariaDB's.
	types []colType
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
	for _, st := range stmts {
		d := depthCheck{}
		st.Accept(&d)
		if d.tooDeep {
			return nil, sqlerr.Errorf(sqlerr.StatementTooComplex, "Thread stack overrun: an expression nested more than %d levels deep; split the statement or simplify the expression", maxTreeDepth)
		}
	}
	return stmts, nil
}

// maxTreeDepth bounds a parsed statement's depth. The parser builds a
// tree however deep its text nests (1+1+...+1 of 500,000 terms) without
// recursion, but every pass over it recurses, and one that deep
// overflowed the goroutine's stack: a fatal error, the whole server gone.
// MariaDB 10.11 refuses such a chain with 1436 (Thread stack overrun) at
// some thousands of terms and reads 5,000 nested parentheses.
const maxTreeDepth = 5000

// depthCheck finds whether a tree is deeper than maxTreeDepth, entering
// no node below that depth (so that the check recurses no deeper).
type depthCheck struct {
	depth   int
	tooDeep bool
}

func (d *depthCheck) Enter(n ast.Node) (ast.Node, bool) {
	d.depth++
	if d.depth > maxTreeDepth {
		d.tooDeep = true
	}
	return n, d.tooDeep
}

func (d *depthCheck) Leave(n ast.Node) (ast.Node, bool) {
	d.depth--
	return n, true
}

// translate parses q and translates its statements, for a connection
// whose session functions env answers.
func translate(p *parser.Parser, q string, env stmtEnv) ([]step, error) {
	return translateBound(p, q, env, nil)
}

// translateBound is translate with each ? marker of q, counted from 0 in
// the order written, replaced by bind's value for it (bound.go); with a
// nil bind, the markers stay.
func translateBound(p *parser.Parser, q string, env stmtEnv, bind func(i int) ast.ExprNode) ([]step, error) {
	q, typed, marks := renameIn(q, !env.noBackslash)
	stmts, err := parseSQL(p, q)
	if se := (*sqlerr.Error)(nil); errors.As(err, &se) && len(typed) > 0 {
		typedErr := *se // near the text as typed, not as renamed
		typedErr.Msg = asTyped(se.Msg, typed)
		err = &typedErr
	}
	if err != nil {
		return nil, err
	}
	if bind != nil {
		bindMarkers(stmts, bind)
	}
	for _, st := range stmts {
		if n, _ := st.Accept(isnullCalls{}); n != nil {
			ast.SetFlag(n)
		}
	}
	out := make([]step, 0, len(stmts))
	start := 0 // where the statement's text begins in q
	for _, st := range stmts {
		if at := strings.Index(q[start:], st.Text()); at > 0 {
			start += at // past white space the parser left out of both texts (a line's end after a ;)
		}
		end := start + len(st.Text())
		temp, replace := marks.temporary.in(start, end), marks.replace.in(start, end)
		soname, isSoname := marks.sonameOf(start, end)
		using, isUsing := marks.usingAt(start, end)
		plugins, _ := st.(*ast.ShowStmt)
		assigns := assignsUserVar(st)
		reads := !assigns && readsUserVars(st, env.userVars)
		var s step
		switch {
		case assigns:
			s, err = assigningStep(st, st.Text(), typed)
		case temp:
			s, err = translateTemporary(st, replace, env.db)
		case isUsing:
			err = &stmtNearError{at: using - start} // SHOW GRANTS ... USING
		case isSoname && plugins != nil && plugins.Tp == ast.ShowPlugins:
			s, err = showPluginsSoname(plugins, soname, &env)
		default:
			s, err = translateStmt(st, &env, replace)
		}
		if ge := (*callGrammarError)(nil); errors.As(err, &ge) {
			err = syntaxErrorAt(q, ge.near(q), typed)
		}
		if ne := (*nearError)(nil); errors.As(err, &ne) {
			err = syntaxErrorAt(q, ne.from(q), typed)
		}
		if se := (*stmtNearError)(nil); errors.As(err, &se) {
			// Its line counted from the statement's start, and the query
			// without the white space and semicolons after it, as MariaDB
			// reads each of several.
			text := strings.TrimRight(q[start:], " \t\n\v\f\r;")
			lead := len(text) - len(strings.TrimLeft(text, " \t\n\v\f\r"))
			err = syntaxErrorAt(text[lead:], se.at-lead, typed)
		}
		if err != nil {
			return nil, err
		}
		if l, ok := marks.limitOf(start, end); ok {
			s = l.limited(s)
		}
		s.clears = s.clears || usesTable(st)
		if reads {
			s.reads, s.source = true, asTyped(st.Text(), typed)
		}
		s.text = asTyped(st.Text(), typed) // as sent, for logs and pg_stat_activity
		s.command = commandOf(st)
		if s.params > 0 {
			s.near = asTyped(strings.TrimSpace(q[min(max(s.markerAt, start), end):end]), typed)
		}
		start = end
		if s.node != nil {
			s.stmt, s.node = statement(s.node, s.text), nil
		}
		for i := range s.names {
			s.names[i] = asTyped(s.names[i], typed)
		}
		out = append(out, s)
	}
	return out, nil
}

// asTyped is text with the spellings rename renamed as typed.
func asTyped(text string, typed map[string]string) string {
	for r, m := range typed {
		text = strings.ReplaceAll(text, r, m)
	}
	return text
}

// syntaxError is the parser's error as MySQL words it (1064). Where the
// parser stopped at a comma, MariaDB's text is what follows the comma,
// its spaces too (its lexer starts the next token after a comma:
// `maxvalue=13, increment by -1` is near ' increment by -1').
func syntaxError(err error) error {
	msg := err.Error()
	near := ""
	if i := strings.Index(msg, " near \""); i >= 0 {
		near = strings.TrimSuffix(strings.TrimSpace(msg[i+len(" near \""):]), "\"")
		near = strings.TrimPrefix(near, ",")
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

// translateStmt translates st; replace: it was written CREATE OR
// REPLACE (rename took the words out).
func translateStmt(st ast.StmtNode, env *stmtEnv, replace bool) (step, error) {
	switch n := st.(type) {
	case *ast.SelectStmt:
		return translateSelect(n, env)
	case *ast.SetOprStmt:
		return builtQuery(n, env)
	case *ast.CreateSequenceStmt:
		return translateCreate(n, false, replace, env.db)
	case *ast.AlterSequenceStmt:
		return translateAlter(n, env.db)
	case *ast.DropSequenceStmt:
		return translateDrop(n, false, env.db)
	case *ast.DropDatabaseStmt:
		return translateDropDatabase(n)
	case *ast.BeginStmt:
		return step{node: transactionNode(pg.TransactionStmtKind_TRANS_STMT_BEGIN), txControl: true}, nil
	case *ast.CommitStmt:
		return step{node: transactionNode(pg.TransactionStmtKind_TRANS_STMT_COMMIT), txControl: true}, nil
	case *ast.RollbackStmt:
		if n.SavepointName != "" {
			return translateSavepoint(rollbackToSavepoint, n.SavepointName), nil
		}
		return step{node: transactionNode(pg.TransactionStmtKind_TRANS_STMT_ROLLBACK), txControl: true}, nil
	case *ast.SetStmt:
		var markers markerFinder // SET @v = ?, prepared
		n.Accept(&markers)
		return step{answer: func(c *conn) (*answer, error) { return nil, c.set(n) }, acts: true, clears: setUsesTable(n),
			params: len(markers.markers)}, nil
	case *ast.UseStmt:
		return step{answer: func(c *conn) (*answer, error) { return nil, c.use(n.DBName) }, acts: true}, nil
	case *ast.CreateDatabaseStmt:
		s := step{node: createSchemaNode(n.Name.O, n.IfNotExists), ddl: true}
		if n.IfNotExists {
			s.noted = noticed(sqlerr.DuplicateSchema, note(1007, "Can't create database '%s'; database exists", n.Name.O))
		}
		s.fail = func(err error) error {
			if frontend.KindOf(err) == sqlerr.DuplicateSchema { // ER_DB_CREATE_EXISTS, in MariaDB's words
				return mysql.NewSQLError(1007, "HY000", "Can't create database '%s'; database exists", n.Name.O)
			}
			return err
		}
		return s, nil
	case *ast.ShowStmt:
		return translateShow(n, env)
	case *ast.RenameTableStmt:
		return translateRename(n.TableToTables, env.db)
	case *ast.AlterTableStmt:
		if len(n.Specs) == 1 && n.Specs[0].Tp == ast.AlterTableRenameTable {
			return translateRename([]*ast.TableToTable{{OldTable: n.Table, NewTable: n.Specs[0].NewTable}}, env.db)
		}
	case *ast.SavepointStmt:
		return translateSavepoint(setSavepoint, n.Name), nil
	case *ast.ReleaseSavepointStmt:
		return translateSavepoint(releaseSavepoint, n.Name), nil
	case *ast.ExplainStmt:
		if show, ok := n.Stmt.(*ast.ShowStmt); ok && show.Tp == ast.ShowColumns { // DESCRIBE s
			return showColumns(show, env.db, env)
		}
	case *ast.DoStmt:
		return translateDo(n, env)
	case *ast.LockTablesStmt:
		return translateLockTables(n, env.db)
	case *ast.UnlockTablesStmt:
		return translateUnlockTables(), nil
	case *ast.FlushStmt:
		return translateFlush(n)
	case *ast.KillStmt:
		id := uint32(n.ConnectionID)
		if uint64(id) != n.ConnectionID {
			return step{}, mysql.NewSQLError(1094, "HY000", "Unknown thread id: %d", n.ConnectionID)
		}
		return step{answer: func(c *conn) (*answer, error) { return nil, c.srv.kill(c, id, n.Query) }, acts: true}, nil
	}
	return step{}, unsupported(fmt.Sprintf("this statement (%s)", strings.TrimPrefix(fmt.Sprintf("%T", st), "*ast.")))
}

// translateDo is DO expr, ...: the expressions computed as a SELECT of
// them computes them (mariadb-dump's output sets each sequence's position
// with DO SETVAL), their rows not sent, as MariaDB sends none.
func translateDo(n *ast.DoStmt, env *stmtEnv) (step, error) {
	fields := make([]*ast.SelectField, len(n.Exprs))
	for i, x := range n.Exprs {
		fields[i] = &ast.SelectField{Expr: x}
	}
	s, err := builtQuery(&ast.SelectStmt{SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true}, Kind: ast.SelectStmtKindSelect,
		Fields: &ast.FieldList{Fields: fields}}, env)
	s.discard = true
	fail := s.fail
	s.fail = func(err error) error {
		// Its expressions are a SELECT's list; MariaDB names DO.
		var se *sqlerr.Error
		if errors.As(err, &se) && se.Column != "" && se.Clause == sqlerr.ClauseSelectList {
			done := *se
			done.Clause = clauseDo
			err = &done
		}
		if fail != nil {
			return fail(err)
		}
		return err
	}
	return s, err
}

// sessionFuncs are the functions of the session a select list may hold,
// answered here.
var sessionFuncs = map[string]bool{"database": true, "schema": true, "connection_id": true, "last_insert_id": true, "version": true,
	"user": true, "current_user": true, "session_user": true, "system_user": true}

func translateSelect(n *ast.SelectStmt, env *stmtEnv) (step, error) {
	if n.Fields == nil {
		return step{}, unsupported("this SELECT")
	}
	if !sessionSelect(n) {
		return builtQuery(n, env)
	}
	// What connectors ask at connect: SELECT @@version_comment LIMIT 1,
	// Connector/J's one-row read of variables, DATABASE().
	names := make([]string, len(n.Fields.Fields))
	exprs := make([]ast.ExprNode, len(n.Fields.Fields))
	for i, f := range n.Fields.Fields {
		names[i], exprs[i] = fieldName(f), f.Expr
	}
	return step{answer: func(c *conn) (*answer, error) { return c.evalSession(names, exprs, n.Limit) }}, nil
}

// sessionSelect reports whether n is answered here: a select list of
// system variables, session functions and literals, with no clause but
// LIMIT count.
func sessionSelect(n *ast.SelectStmt) bool {
	if n.From != nil || n.Where != nil || n.GroupBy != nil || n.Having != nil || n.OrderBy != nil || n.Distinct ||
		n.Kind != ast.SelectStmtKindSelect || n.With != nil || n.Limit != nil && n.Limit.Offset != nil {
		return false
	}
	if n.Limit != nil {
		if _, ok := n.Limit.Count.(ast.ValueExpr); !ok {
			return false
		}
	}
	for _, f := range n.Fields.Fields {
		if f.WildCard != nil || !sessionExpr(f.Expr) {
			return false
		}
	}
	return true
}

// builtQuery is the step of a query, its tree built.
func builtQuery(q ast.Node, env *stmtEnv) (step, error) {
	b := builder{env: env}
	node, names, err := b.query(q, false)
	if err != nil {
		return step{}, err
	}
	if sel := node.GetSelectStmt(); env.held && len(sel.GetTargetList()) > 0 {
		if t := sel.TargetList[0].GetResTarget(); b.held[t].n != nil {
			t.Val = b.held[t].n
			if len(b.types) > 0 {
				b.types[0].asWritten = true // all its digits, not the decimals shown
			}
		}
	}
	s := step{node: node, names: names, types: b.types, params: b.number(), tables: b.tables, calls: b.calls, columns: b.columns, db: env.db,
		clears: len(b.seqs) > 0 || readsTable(q)}
	if seqs := b.seqs; len(seqs) > 0 {
		s.fail = func(err error) error { return callError(err, seqs) }
	}
	if s.params > 0 {
		s.markerAt = b.markers[0].offset
	}
	return s, nil
}

// markerError is MariaDB's error for a ? marker in a statement sent as
// text: a syntax error near it.
func markerError(st *step) error {
	return sqlerr.Errorf(sqlerr.SyntaxError, "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '%s' at line 1", st.near)
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

// sessionExpr reports whether x is answered here: a system variable, a
// session function, a literal.
func sessionExpr(x ast.ExprNode) bool {
	switch x := x.(type) {
	case *ast.VariableExpr:
		return x.IsSystem
	case *ast.FuncCallExpr:
		return sessionFuncs[x.FnName.L] && (len(x.Args) == 0 || x.FnName.L == "last_insert_id" && len(x.Args) == 1)
	case ast.ParamMarkerExpr: // a ValueExpr too, but the client's value
		return false
	case ast.ValueExpr:
		return true
	}
	return false
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

// translateTemporary is CREATE and DROP TEMPORARY SEQUENCE: a sequence
// of the session's, in PostgreSQL's temporary schema, which unqualified
// names find before the database's (it shadows a sequence of the same
// name, as MariaDB's does); DROP TEMPORARY drops only those. In MariaDB
// neither commits the open transaction and neither is undone by its
// ROLLBACK; here each commits it, as other DDL does, so that the
// sequence outlives a ROLLBACK as MariaDB's does (what else a
// transaction holds, DDL aside, is not undone by ROLLBACK in MariaDB
// either: sequences' values).
func translateTemporary(st ast.StmtNode, replace bool, db string) (step, error) {
	switch n := st.(type) {
	case *ast.CreateSequenceStmt:
		n.Name.Schema = ast.CIStr{}
		return translateCreate(n, true, replace, db)
	case *ast.DropSequenceStmt:
		return translateDrop(n, true, db)
	}
	return step{}, unsupported("TEMPORARY here")
}

func translateShow(n *ast.ShowStmt, env *stmtEnv) (step, error) {
	db := env.db
	switch n.Tp {
	case ast.ShowDatabases:
		return showDatabases(n)
	case ast.ShowTables:
		return showTables(n, db)
	case ast.ShowCreateSequence, ast.ShowCreateTable:
		t, asTable := shownTable(n.Table, db), n.Tp == ast.ShowCreateTable
		return step{answer: func(c *conn) (*answer, error) { return c.showCreate(t, asTable) }}, nil
	case ast.ShowColumns:
		return showColumns(n, db, env)
	case ast.ShowIndex:
		return showIndex(n, db, env)
	case ast.ShowTableStatus:
		return showTableStatus(n, db, env)
	case ast.ShowCreateDatabase:
		return showCreateDatabase(n)
	case ast.ShowWarnings, ast.ShowErrors:
		return translateShowWarnings(n)
	case ast.ShowFunctionStatus:
		return routineStatus(n, "FUNCTION", env)
	case ast.ShowProcedureStatus:
		return routineStatus(n, "PROCEDURE", env)
	case ast.ShowEvents:
		return showEvents(n, env)
	case ast.ShowMasterStatus:
		return showMasterStatus(), nil
	case ast.ShowEngines:
		return showServed(n, "engines", []string{"engine", "support", "comment", "transactions", "xa", "savepoints"},
			[]string{"Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"})
	case ast.ShowCharset:
		return showServed(n, "character_sets", []string{"character_set_name", "description", "default_collate_name", "maxlen"},
			[]string{"Charset", "Description", "Default collation", "Maxlen"})
	case ast.ShowCollation:
		return showServed(n, "collations", []string{"collation_name", "character_set_name", "id", "is_default", "is_compiled", "sortlen"},
			[]string{"Collation", "Charset", "Id", "Default", "Compiled", "Sortlen"})
	case ast.ShowPlugins:
		if n.Pattern != nil || n.Where != nil {
			return step{}, clauseRefused(n, "this SHOW PLUGINS (a pattern or condition)")
		}
		st, err := showServed(n, "plugins", []string{"plugin_name", "plugin_status", "plugin_type", "plugin_library", "plugin_license"},
			[]string{"Name", "Status", "Type", "Library", "License"})
		if err == nil {
			st.node.GetSelectStmt().SortClause = nil // in the order they were loaded, as MariaDB lists them
		}
		return st, err
	case ast.ShowGrants:
		return showGrants(n, env)
	case ast.ShowProcessList:
		return showProcesslist(n, env)
	case ast.ShowStatus:
		return showStatus(n)
	case ast.ShowVariables:
		return showVariables(n, env)
	}
	return step{}, unsupported("this SHOW")
}
