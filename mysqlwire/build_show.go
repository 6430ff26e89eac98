package mysqlwire

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// SHOW DATABASES and SHOW [FULL] TABLES are SELECTs of information_schema
// (catalog.MySQL): the databases a MySQL client sees, the sequences the
// role holds a privilege on, as MariaDB lists a user the tables it holds
// one on.

// showList is SELECT col [, more] FROM information_schema.table WHERE
// where [AND col LIKE pattern] ORDER BY 1, its columns named names (the
// first with the pattern in parentheses, as MariaDB names it).
func showList(n *ast.ShowStmt, table string, cols, names []string, where *pg.Node) (step, error) {
	q, _ := executor.MySQLInformationSchema(table)
	s := &pg.SelectStmt{FromClause: []*pg.Node{relation(q, table)}, WhereClause: where,
		SortClause: []*pg.Node{sortBy(intConst(1), false)}}
	for _, c := range cols {
		s.TargetList = append(s.TargetList, resTarget(columnRef(c), ""))
	}
	switch {
	case n.Where != nil:
		return step{}, unsupported("SHOW ... WHERE")
	case n.Pattern != nil:
		v, ok := n.Pattern.Pattern.(ast.ValueExpr)
		pattern, isText := "", false
		if ok {
			pattern, isText = v.GetValue().(string)
		}
		if !isText || !pgText(pattern) || n.Pattern.Escape != '\\' {
			return step{}, unsupported("this SHOW ... LIKE")
		}
		like := aexpr(pg.A_Expr_Kind_AEXPR_LIKE, "~~", columnRef(cols[0]), strConst(pattern))
		if n.Pattern.Not {
			like = boolExpr(pg.BoolExprType_NOT_EXPR, like)
		}
		if s.WhereClause == nil {
			s.WhereClause = like
		} else {
			s.WhereClause = boolExpr(pg.BoolExprType_AND_EXPR, s.WhereClause, like)
		}
		names[0] = fmt.Sprintf("%s (%s)", names[0], pattern)
	}
	return step{node: selectNode(s), names: names, types: infoTypes(table, cols)}, nil
}

// showServed is SHOW ENGINES, SHOW CHARACTER SET [LIKE pattern] and
// SHOW COLLATION [LIKE pattern]: information_schema's table of what seqd
// serves (catalog's mariadbServed), its columns named as MariaDB names
// them, with LIKE too.
func showServed(n *ast.ShowStmt, table string, cols, names []string) (step, error) {
	first := names[0]
	st, err := showList(n, table, cols, names, nil)
	if err == nil {
		st.names[0] = first // showList names it with the pattern, as SHOW TABLES does
	}
	return st, err
}

// showProcesslist is SHOW [FULL] PROCESSLIST: information_schema's
// PROCESSLIST (catalog's processlistRows) as MariaDB's SHOW shows it, in
// its columns and types; Info cut to its first 100 characters but with
// FULL; the reading session's State "starting", MariaDB's SHOW filling
// no schema table.
func showProcesslist(n *ast.ShowStmt, env *stmtEnv) (step, error) {
	q, _ := executor.MySQLInformationSchema("processlist")
	self := aexpr(pg.A_Expr_Kind_AEXPR_OP, "=", columnRef("id"), numConst(strconv.FormatUint(uint64(env.thread), 10)))
	info, infoType := columnRef("info"), colType{typ: querypb.Type_TEXT, length: 3 << 24, decimals: decString, sized: true, known: true}
	if !n.Full {
		info = funcCall("substring", []*pg.Node{info, intConst(1), intConst(100)})
		infoType = textExpr(100, false)
	}
	s := &pg.SelectStmt{FromClause: []*pg.Node{relation(q, "processlist")}, SortClause: []*pg.Node{sortBy(intConst(1), false)}}
	for _, x := range []*pg.Node{columnRef("id"), columnRef("user"), columnRef("host"), columnRef("db"), columnRef("command"),
		columnRef("time"), caseWhen(self, strConst("starting"), columnRef("state")), info, columnRef("progress")} {
		s.TargetList = append(s.TargetList, resTarget(x, ""))
	}
	progress := colType{typ: querypb.Type_FLOAT64, length: 7, decimals: 3, notNull: true, known: true}
	types := []colType{{typ: querypb.Type_INT64, length: 11, notNull: true, known: true}, textExpr(128, true), textExpr(64, true),
		textExpr(64, false), textExpr(16, true), {typ: querypb.Type_INT32, length: 7, notNull: true, known: true},
		textExpr(30, false), infoType, progress}
	return step{node: selectNode(s), names: []string{"Id", "User", "Host", "db", "Command", "Time", "State", "Info", "Progress"},
		types: types}, nil
}

// showGrants is SHOW GRANTS [FOR user | FOR CURRENT_USER]: the role's
// grants as MariaDB lists an account's (catalog.MariaDBGrantLines),
// under "Grants for u@%", a role being an account of any host ('%' in
// its errors too); MariaDB's 1044 (as for the mysql schema's tables it
// reads) for another role's, there or not, to a role that is no
// superuser, and 1141 for a role that is not there. USING roles, which
// MySQL's grammar has and MariaDB's has not, is MariaDB's 1064 near it.
func showGrants(n *ast.ShowStmt, env *stmtEnv) (step, error) {
	if len(n.Roles) > 0 {
		if at := usingIn(n.Text(), !env.noBackslash); at >= 0 {
			return step{}, &stmtNearError{at: at}
		}
		return step{}, unsupported("SHOW GRANTS ... USING")
	}
	return step{answer: func(c *conn) (*answer, error) {
		role := c.c.User
		if n.User != nil && !n.User.CurrentUser {
			role = n.User.Username
		}
		sess, err := c.session()
		if err != nil {
			return nil, err
		}
		var lines []string
		var found, seen bool
		err = c.guarded(sess, func(ctx context.Context) (err error) {
			lines, found, seen, err = sess.MariaDBGrants(ctx, role)
			return err
		})
		switch {
		case err != nil:
			return nil, err
		case !seen: // the privilege is checked first, as MariaDB checks it
			return nil, mysql.NewSQLError(1044, "42000", "Access denied for user '%s'@'%%' to database 'mysql'", c.c.User)
		case !found:
			return nil, mysql.NewSQLError(1141, "42000", "There is no such grant defined for user '%s' on host '%%'", role)
		}
		a := &answer{cols: []string{boundName("Grants for " + role + "@%")}, types: []colType{textExpr(1024, true)}}
		for _, l := range lines {
			a.rows = append(a.rows, []any{l})
		}
		return a, nil
	}}, nil
}

// showPluginsSoname is SHOW PLUGINS SONAME ['lib' | LIKE 'pattern' |
// WHERE cond], which rename marked (m): information_schema.ALL_PLUGINS
// as SHOW PLUGINS shows PLUGINS, in the order loaded. With a library's
// name (compared as MariaDB compares it, whole) or a pattern, the
// plugins of the libraries in plugin_dir it names: none, seqd's plugins
// all being built in (Library NULL), which MariaDB lists for neither.
// WHERE reads the SHOW's columns (Name, Status, Type, Library, License).
func showPluginsSoname(n *ast.ShowStmt, m soname, env *stmtEnv) (step, error) {
	if m.refused >= 0 { // from the SHOW, the statement's first word
		return step{}, &stmtNearError{at: nextToken(n.Text(), quotedSpansIn(n.Text(), !env.noBackslash), 0) + m.refused}
	}
	cols := []string{"plugin_name", "plugin_status", "plugin_type", "plugin_library", "plugin_license"}
	names := []string{"Name", "Status", "Type", "Library", "License"}
	var where *pg.Node
	switch {
	case m.form == sonameWhere && n.Where != nil:
		return shownQuery("ALL_PLUGINS", nil, cols, names, n.Where, nil, env)
	case (m.form == sonameLibrary || m.form == sonameLike) && n.Pattern != nil && n.Pattern.Pattern != nil:
		v, ok := n.Pattern.Pattern.(ast.ValueExpr)
		name, isText := "", false
		if ok {
			name, isText = v.GetValue().(string)
		}
		switch {
		case !isText: // "lib" where ANSI_QUOTES makes it a name
			return step{}, &nearError{at: n.Pattern.Pattern.OriginTextPosition()}
		case !pgText(name):
			return step{}, unsupported("a library's name or pattern that is not valid UTF-8 or holds NUL")
		}
		kind, op := pg.A_Expr_Kind_AEXPR_OP, "="
		if m.form == sonameLike {
			kind, op = pg.A_Expr_Kind_AEXPR_LIKE, "~~"
		}
		where = aexpr(kind, op, columnRef("plugin_library"), strConst(name))
	case m.form != sonameAll || n.Pattern != nil || n.Where != nil:
		return step{}, unsupported("this SHOW PLUGINS SONAME")
	}
	q, _ := executor.MySQLInformationSchema("all_plugins")
	s := &pg.SelectStmt{FromClause: []*pg.Node{relation(q, "all_plugins")}, WhereClause: where}
	for _, c := range cols {
		s.TargetList = append(s.TargetList, resTarget(columnRef(c), ""))
	}
	return step{node: selectNode(s), names: names, types: infoTypes("all_plugins", cols)}, nil
}

// usingWord is the keyword USING.
var usingWord = regexp.MustCompile(`(?i)\bUSING\b`)

// usingIn is where the keyword USING first stands in text, a statement's
// (with backslash escapes in its strings or not), outside strings,
// quoted names and comments but those MariaDB reads (/*! */, /*M! */);
// -1 for nowhere.
func usingIn(text string, backslash bool) int {
	quoted := quotedSpansIn(text, backslash)
	for _, m := range usingWord.FindAllStringIndex(text, -1) {
		k, found := slices.BinarySearchFunc(quoted, m[0], func(sp [2]int, at int) int {
			switch {
			case at < sp[0]:
				return 1
			case at >= sp[1]:
				return -1
			}
			return 0
		})
		if !found || strings.HasPrefix(text[quoted[k][0]:], "/*!") || strings.HasPrefix(text[quoted[k][0]:], "/*M!") {
			return m[0]
		}
	}
	return -1
}

// stmtNearError is MariaDB's 1064 near byte at of the statement's own
// text, which translateBound words from where the statement begins.
type stmtNearError struct{ at int }

func (e *stmtNearError) Error() string {
	return "a syntax error at byte " + strconv.Itoa(e.at) + " of the statement"
}

// clauseRefused is MariaDB's 1064 near the LIKE or WHERE of a SHOW its
// grammar reads neither of (SHOW PLUGINS), where TiDB's reads both;
// what unsupported words as what where the clause cannot be placed.
func clauseRefused(n *ast.ShowStmt, what string) error {
	switch {
	case n.Pattern != nil && n.Pattern.Pattern != nil && n.Pattern.Pattern.OriginTextPosition() > 0:
		return &nearError{at: n.Pattern.Pattern.OriginTextPosition(), before: "LIKE"}
	case n.Where != nil && n.Where.OriginTextPosition() > 0:
		return &nearError{at: n.Where.OriginTextPosition(), before: "WHERE"}
	}
	return unsupported(what)
}

// showDatabases is SHOW DATABASES [LIKE pattern].
func showDatabases(n *ast.ShowStmt) (step, error) {
	return showList(n, "schemata", []string{"schema_name"}, []string{"Database"}, nil)
}

// shownDatabase is the database a SHOW reads: the one it names (FROM
// db), else the connection's; 1046 for none.
func shownDatabase(n *ast.ShowStmt, db string) (string, error) {
	if n.DBName != "" {
		db = n.DBName
	}
	if db == "" {
		return "", mysql.NewSQLError(1046, "3D000", "No database selected")
	}
	if !pgText(db) {
		return "", unsupported("a name that is not valid UTF-8 or holds NUL")
	}
	return db, nil
}

// showTables is SHOW [FULL] TABLES [FROM db] [LIKE pattern]: the
// connection's database's, unless it names one.
func showTables(n *ast.ShowStmt, db string) (step, error) {
	db, err := shownDatabase(n, db)
	if err != nil {
		return step{}, err
	}
	cols, names := []string{"table_name"}, []string{"Tables_in_" + db}
	if n.Full {
		cols, names = append(cols, "table_type"), append(names, "Table_type")
	}
	st, err := showList(n, "tables", cols, names, aexpr(pg.A_Expr_Kind_AEXPR_OP, "=", columnRef("table_schema"), strConst(db)))
	st.check = databaseThere(db)
	return st, err
}

// databaseThere is a step's check that database db is there: MariaDB's
// 1049 where it is not, as SHOW TABLES and SHOW TABLE STATUS give for a
// database they name, or the connection's, that is not there.
func databaseThere(db string) func(ctx context.Context, cn *conn, sess *executor.Session) error {
	return func(ctx context.Context, cn *conn, sess *executor.Session) error {
		ok, err := sess.SchemaExists(ctx, db)
		if err == nil && !ok {
			err = mysql.NewSQLError(1049, "42000", "Unknown database '%s'", db)
		}
		return err
	}
}

// showCreateDatabase is SHOW CREATE DATABASE [IF NOT EXISTS] db, as
// MariaDB words it, with the character set and collation
// information_schema.SCHEMATA shows (mariadb-dump --databases writes it
// into its dump); a database that is not there is 1049.
func showCreateDatabase(n *ast.ShowStmt) (step, error) {
	db := n.DBName
	if !pgText(db) {
		return step{}, unsupported("a name that is not valid UTF-8 or holds NUL")
	}
	q, _ := executor.MySQLInformationSchema("schemata")
	cols := []string{"default_character_set_name", "default_collation_name"}
	s := &pg.SelectStmt{FromClause: []*pg.Node{relation(q, "schemata")},
		WhereClause: aexpr(pg.A_Expr_Kind_AEXPR_OP, "=", columnRef("schema_name"), strConst(db))}
	for _, c := range cols {
		s.TargetList = append(s.TargetList, resTarget(columnRef(c), ""))
	}
	node := selectNode(s)
	exists := ""
	if n.IfNotExists {
		exists = "/*!32312 IF NOT EXISTS*/ "
	}
	exec := func(ctx context.Context, cn *conn, sess *executor.Session) (*sqltypes.Result, error) {
		res, err := cn.atomically(ctx, sess, &step{}, func() (*sqltypes.Result, error) { return cn.execStmt(ctx, sess, statement(node, ""), nil) })
		if err != nil {
			return nil, err
		}
		if len(res.Rows) == 0 {
			return nil, mysql.NewSQLError(1049, "42000", "Unknown database '%s'", db)
		}
		text := fmt.Sprintf("CREATE DATABASE %s%s /*!40100 DEFAULT CHARACTER SET %s COLLATE %s */", exists, cn.modes.quote(db),
			res.Rows[0][0].ToString(), res.Rows[0][1].ToString())
		a := &answer{cols: []string{"Database", "Create Database"}, rows: [][]any{{db, text}}, types: []colType{textExpr(64, true), textExpr(1024, true)}}
		return a.result(), nil
	}
	return step{exec: exec, acts: true}, nil
}

// quoteName is name quoted as MariaDB's SHOW CREATE quotes it.
func quoteName(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// A sequence shown as MariaDB shows one of its tables: SHOW CREATE
// SEQUENCE and SHOW CREATE TABLE, DESCRIBE (SHOW COLUMNS, SHOW FIELDS),
// each of the sequence's definition as the session gives it
// (executor.MariaDBDefinition). As MariaDB, they show it to a user
// holding some privilege on it (1142 otherwise: SHOW for SHOW CREATE,
// SELECT for DESCRIBE, MariaDB's words), a missing one 1146.

// shownTable is the table a SHOW names, in database db.
func shownTable(t *ast.TableName, db string) tableRef {
	d := t.Schema.O
	if d == "" {
		d = db
	}
	return tableRef{t.Schema.O, t.Name.O, d}
}

// shownDefinition is t's definition for a SHOW whose privilege error
// names command.
func (cn *conn) shownDefinition(t tableRef, command string) (executor.MariaDBDefinition, error) {
	sess, err := cn.session()
	if err != nil {
		return executor.MariaDBDefinition{}, err
	}
	d, err := cn.definition(sess, t)
	switch {
	case missingTable(err):
		return d, noSuchTable(tableName(t.db, t.name))
	case frontend.KindOf(err) == sqlerr.InsufficientPrivilege, err == nil && d.Privileges == 0:
		return d, cn.denied(command, t)
	}
	return d, err
}

// showCreate is SHOW CREATE SEQUENCE (asTable false) or SHOW CREATE
// TABLE of a sequence, in MariaDB's words: CREATE SEQUENCE with its
// options, or CREATE [TEMPORARY] TABLE with the sequence's eight columns
// and SEQUENCE=1; the comment last.
func (cn *conn) showCreate(t tableRef, asTable bool) (*answer, error) {
	d, err := cn.shownDefinition(t, "SHOW")
	if err != nil {
		return nil, err
	}
	// sql_mode: ANSI_QUOTES quotes names with ", NO_TABLE_OPTIONS
	// leaves out the options after the definition (the engine,
	// SEQUENCE=1, the comment), MYSQL323 and MYSQL40 name the engine
	// TYPE, as MariaDB's SHOW CREATE does.
	m := cn.modes
	engine := " ENGINE=InnoDB"
	if m&(modeMySQL323|modeMySQL40) != 0 {
		engine = " TYPE=InnoDB"
	}
	var text string
	if asTable {
		create := "CREATE TABLE "
		if d.Temporary {
			create = "CREATE TEMPORARY TABLE "
		}
		columns := sequenceTableColumns
		if m&modeANSIQuotes != 0 {
			columns = strings.ReplaceAll(columns, "`", `"`)
		}
		text = create + m.quote(t.name) + " (\n" + columns + ")"
		engine += " SEQUENCE=1"
	} else {
		cache := "cache " + strconv.FormatInt(d.Cache, 10)
		if d.Cache == 0 {
			cache = "nocache"
		}
		cycle := "nocycle"
		if d.Cycle {
			cycle = "cycle"
		}
		text = fmt.Sprintf("CREATE SEQUENCE %s start with %d minvalue %d maxvalue %d increment by %d %s %s",
			m.quote(t.name), d.Start, d.Min, d.Max, d.Increment, cache, cycle)
	}
	if m&modeNoTableOptions == 0 {
		text += engine
		if d.Comment != "" {
			text += " COMMENT='" + strings.ReplaceAll(d.Comment, "'", "''") + "'"
		}
	}
	return &answer{cols: []string{"Table", "Create Table"}, rows: [][]any{{t.name, text}}, types: []colType{textExpr(64, true), textExpr(1024, true)}}, nil
}

// sequenceTableColumns are a sequence's columns as MariaDB 10.11's SHOW
// CREATE TABLE lists them, with its comments.
const sequenceTableColumns = "  `next_not_cached_value` bigint(21) NOT NULL,\n" +
	"  `minimum_value` bigint(21) NOT NULL,\n" +
	"  `maximum_value` bigint(21) NOT NULL,\n" +
	"  `start_value` bigint(21) NOT NULL COMMENT 'start value when sequences is created or value if RESTART is used',\n" +
	"  `increment` bigint(21) NOT NULL COMMENT 'increment value',\n" +
	"  `cache_size` bigint(21) unsigned NOT NULL,\n" +
	"  `cycle_option` tinyint(1) unsigned NOT NULL COMMENT '0 if no cycles are allowed, 1 if the sequence should begin a new cycle when maximum_value is passed',\n" +
	"  `cycle_count` bigint(21) NOT NULL COMMENT 'How many cycles have been done'\n"

// showColumns is DESCRIBE s [col], SHOW [FULL] COLUMNS FROM s [FROM db]
// [LIKE pattern | WHERE cond] and SHOW FIELDS: a sequence's eight
// columns, each NOT NULL, without key, default or extra, as MariaDB
// shows them; FULL adds their collation (NULL: numbers have none), the
// user's privileges on them (columnPrivileges) and their comments.
// LIKE filters Field, as MariaDB's does (DESCRIBE's col is such a
// pattern), WHERE reads the result's own columns.
func showColumns(n *ast.ShowStmt, db string, env *stmtEnv) (step, error) {
	if n.DBName != "" {
		n.Table.Schema = ast.NewCIStr(n.DBName)
	}
	t := shownTable(n.Table, db)
	cond := n.Where
	switch {
	case n.Pattern != nil:
		cond = &ast.PatternLikeOrIlikeExpr{Expr: columnNamed("Field"), Pattern: n.Pattern.Pattern, Not: n.Pattern.Not,
			Escape: n.Pattern.Escape, IsLike: true}
	case n.Column != nil:
		cond = &ast.PatternLikeOrIlikeExpr{Expr: columnNamed("Field"), Pattern: ast.NewValueExpr(n.Column.Name.O, "", ""),
			Escape: '\\', IsLike: true}
	}
	names, types := []string{"Field", "Type", "Null", "Key", "Default", "Extra"},
		[]colType{varchar(64, true), longtext(true), varchar(3, true), varchar(3, true), longtext(false), varchar(80, true)}
	if n.Full {
		names = []string{"Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"}
		types = []colType{varchar(64, true), longtext(true), varchar(64, false), varchar(3, true), varchar(3, true), longtext(false),
			varchar(80, true), varchar(80, true), varchar(1024, true)}
	}
	rows := func(c *conn, d executor.MariaDBDefinition) [][]any {
		privileges := catalog.MariaDBColumnPrivileges(d.Privileges, c.superuser() || d.Owner == c.c.User)
		var out [][]any
		for i, col := range catalog.MariaDBSequenceColumns {
			if n.Full {
				out = append(out, []any{col.Name, catalog.MariaDBSequenceColumnTypes[i], nil, "NO", "", nil, "", privileges, catalog.MariaDBSequenceColumnComments[i]})
			} else {
				out = append(out, []any{col.Name, catalog.MariaDBSequenceColumnTypes[i], "NO", "", nil, ""})
			}
		}
		return out
	}
	if cond == nil {
		return step{answer: func(c *conn) (*answer, error) {
			d, err := c.shownDefinition(t, "SELECT")
			if err != nil {
				return nil, err
			}
			return &answer{cols: names, types: types, rows: rows(c, d)}, nil
		}}, nil
	}
	// A condition is read as a client's WHERE over a derived table of
	// the rows, built once the user may see them; a ? marker would be a
	// parameter of that statement, not of this one.
	var found markerFinder
	cond.Accept(&found)
	if len(found.markers) > 0 {
		return step{}, unsupported("a parameter in SHOW COLUMNS' LIKE or WHERE")
	}
	e := *env
	exec := func(ctx context.Context, cn *conn, sess *executor.Session) (*sqltypes.Result, error) {
		d, err := cn.shownDefinition(t, "SELECT")
		if err != nil {
			return nil, err
		}
		s, err := builtQuery(rowsWhere(names, rows(cn, d), cond), &e)
		if err != nil {
			return nil, err
		}
		return cn.atomically(ctx, sess, &step{}, func() (*sqltypes.Result, error) {
			st := statement(s.node, "")
			p, err := sess.Prepare(st, nil) // not cached: built afresh each time
			if err != nil {
				sess.Abort()
				return nil, st.Locate(err)
			}
			return cn.runPrepared(ctx, sess, p, &step{names: names, types: types}, nil)
		})
	}
	return step{exec: exec, acts: true, clears: true}, nil
}

// columnNamed is a reference to the column name.
func columnNamed(name string) *ast.ColumnNameExpr {
	return &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(name)}}
}

// rowsWhere is SELECT * FROM (SELECT row1 UNION ALL SELECT row2 ...) AS
// shown WHERE cond: rows (strings and NULLs) as a derived table whose
// columns are named names, read by a client's condition.
func rowsWhere(names []string, rows [][]any, cond ast.ExprNode) *ast.SelectStmt {
	all := ast.UnionAll
	selects := make([]ast.Node, len(rows))
	for i, r := range rows {
		fields := make([]*ast.SelectField, len(r))
		for j, v := range r {
			fields[j] = &ast.SelectField{Expr: ast.NewValueExpr(v, "", "")}
			if i == 0 {
				fields[j].AsName = ast.NewCIStr(names[j])
			}
		}
		sel := &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true}, Fields: &ast.FieldList{Fields: fields}}
		if i > 0 {
			sel.AfterSetOperator = &all
		}
		selects[i] = sel
	}
	union := &ast.SetOprStmt{SelectList: &ast.SetOprSelectList{Selects: selects}}
	return &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true},
		Fields: &ast.FieldList{Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}},
		From:   &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{Source: union, AsName: ast.NewCIStr("shown")}}},
		Where:  cond}
}

// showTableStatus is SHOW TABLE STATUS [FROM db] [LIKE pattern | WHERE
// cond]:
// information_schema.TABLES' columns named as MariaDB names them here,
// for the sequences the role sees (its sizes 0 and its times NULL, as
// information_schema's).
func showTableStatus(n *ast.ShowStmt, db string, env *stmtEnv) (step, error) {
	db, err := shownDatabase(n, db)
	if err != nil {
		return step{}, err
	}
	cols := []string{"table_name", "engine", "version", "row_format", "table_rows", "avg_row_length", "data_length", "max_data_length",
		"index_length", "data_free", "auto_increment", "create_time", "update_time", "check_time", "table_collation", "checksum",
		"create_options", "table_comment", "max_index_length", "temporary"}
	names := []string{"Name", "Engine", "Version", "Row_format", "Rows", "Avg_row_length", "Data_length", "Max_data_length",
		"Index_length", "Data_free", "Auto_increment", "Create_time", "Update_time", "Check_time", "Collation", "Checksum",
		"Create_options", "Comment", "Max_index_length", "Temporary"}
	if n.Where != nil {
		// The condition reads the statement's own columns (Name, Engine,
		// Comment, ...), as MariaDB's does.
		filter := &ast.BinaryOperationExpr{Op: opcode.EQ, L: columnNamed("table_schema"), R: ast.NewValueExpr(db, "", "")}
		s, err := shownQuery("TABLES", filter, cols, names, n.Where, names[:1], env)
		s.check = databaseThere(db)
		return s, err
	}
	s, err := showList(n, "tables", cols, names, aexpr(pg.A_Expr_Kind_AEXPR_OP, "=", columnRef("table_schema"), strConst(db)))
	if err == nil && n.Pattern != nil {
		s.names[0] = "Name" // MariaDB names it so with LIKE too
	}
	s.check = databaseThere(db)
	return s, err
}
