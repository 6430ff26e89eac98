package mysqlwire

import (
	"strings"

	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/internal/vitess/mysql"
)

// What mariadb-dump asks with --routines, --events and --master-data,
// answered as MariaDB 10.11 answers for a server that has no stored
// routines, no events and no binary log:
//
//   - SHOW {FUNCTION | PROCEDURE | PACKAGE [BODY]} STATUS [LIKE | WHERE]
//     are information_schema.ROUTINES' rows of that type, SHOW EVENTS
//     [FROM db] [LIKE | WHERE] information_schema.EVENTS' of the
//     database, their columns named as MariaDB names them here: empty
//     (catalog's mysql_empty.go).
//   - SHOW MASTER STATUS, with binary logging off, is an empty set, to
//     a user with MariaDB's BINLOG MONITOR privilege (a superuser here;
//     1227 otherwise); mariadb-dump --master-data then stops with
//     "Binlogging on server not active", as it does on MariaDB.
//   - With --single-transaction, --master-data reads SHOW STATUS LIKE
//     'binlog_snapshot_%' instead, MariaDB's Binlog_snapshot_file '' and
//     Binlog_snapshot_position 0 without a binary log, then calls
//     BINLOG_GTID_POS('', 0), which is 1381: mariadb-dump stops there,
//     as on MariaDB. SHOW STATUS answers these two variables only (1235
//     for a pattern that may match others).

// routineStatus is SHOW FUNCTION STATUS (kind FUNCTION) or SHOW
// PROCEDURE STATUS (PROCEDURE; rename spells SHOW PACKAGE [BODY] STATUS
// so too).
func routineStatus(n *ast.ShowStmt, kind string, env *stmtEnv) (step, error) {
	cols := []string{"routine_schema", "routine_name", "routine_type", "definer", "last_altered", "created", "security_type",
		"routine_comment", "character_set_client", "collation_connection", "database_collation"}
	names := []string{"Db", "Name", "Type", "Definer", "Modified", "Created", "Security_type", "Comment", "character_set_client",
		"collation_connection", "Database Collation"}
	filter := &ast.BinaryOperationExpr{Op: opcode.EQ, L: columnNamed("routine_type"), R: ast.NewValueExpr(kind, "", "")}
	return shownQuery("ROUTINES", filter, cols, names, showCondition(n, "Name"), []string{"Db", "Name"}, env)
}

// showEvents is SHOW EVENTS [FROM db] [LIKE pattern | WHERE cond]: the
// connection's database's, unless it names one (1046 for none).
func showEvents(n *ast.ShowStmt, env *stmtEnv) (step, error) {
	db := env.db
	db, err := shownDatabase(n, db)
	if err != nil {
		return step{}, err
	}
	cols := []string{"event_schema", "event_name", "definer", "time_zone", "event_type", "execute_at", "interval_value", "interval_field",
		"starts", "ends", "status", "originator", "character_set_client", "collation_connection", "database_collation"}
	names := []string{"Db", "Name", "Definer", "Time zone", "Type", "Execute at", "Interval value", "Interval field", "Starts", "Ends",
		"Status", "Originator", "character_set_client", "collation_connection", "Database Collation"}
	filter := &ast.BinaryOperationExpr{Op: opcode.EQ, L: columnNamed("event_schema"), R: ast.NewValueExpr(db, "", "")}
	return shownQuery("EVENTS", filter, cols, names, showCondition(n, "Name"), []string{"Db", "Name"}, env)
}

// showCondition is a SHOW's WHERE condition, or its LIKE pattern as a
// condition on the column named; nil for neither.
func showCondition(n *ast.ShowStmt, named string) ast.ExprNode {
	if n.Pattern != nil {
		return &ast.PatternLikeOrIlikeExpr{Expr: columnNamed(named), Pattern: n.Pattern.Pattern, Not: n.Pattern.Not,
			Escape: n.Pattern.Escape, IsLike: true}
	}
	return n.Where
}

// showMasterStatus is SHOW MASTER STATUS (SHOW BINLOG STATUS): no binary
// log, no rows, to a user who may ask (MariaDB's BINLOG MONITOR, a
// superuser here).
func showMasterStatus() step {
	return step{answer: func(c *conn) (*answer, error) {
		if !c.superuser() {
			return nil, mysql.NewSQLError(1227, "42000", "Access denied; you need (at least one of) the SUPER, BINLOG MONITOR privilege(s) for this operation")
		}
		return &answer{cols: []string{"File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB"},
			types: []colType{textExpr(512, true), {typ: querypb.Type_UINT64, length: 20, notNull: true, known: true}, textExpr(255, true),
				textExpr(255, true)}}, nil
	}}
}

// shownQuery is SELECT * FROM (SELECT col AS name, ... FROM
// information_schema.table WHERE filter) AS status [WHERE cond] ORDER BY
// order: a SHOW answered as information_schema's rows under the names
// MariaDB gives its columns, its WHERE reading those names, built as a
// client's query is.
func shownQuery(table string, filter ast.ExprNode, cols, names []string, cond ast.ExprNode, order []string, env *stmtEnv) (step, error) {
	fields := make([]*ast.SelectField, len(cols))
	for i, c := range cols {
		fields[i] = &ast.SelectField{Expr: columnNamed(c), AsName: ast.NewCIStr(names[i])}
	}
	inner := &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true}, Fields: &ast.FieldList{Fields: fields},
		From: &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{
			Source: &ast.TableName{Schema: ast.NewCIStr("information_schema"), Name: ast.NewCIStr(table)}}}},
		Where: filter}
	by := make([]*ast.ByItem, len(order))
	for i, o := range order {
		by[i] = &ast.ByItem{Expr: columnNamed(o)}
	}
	outer := &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true},
		Fields: &ast.FieldList{Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}},
		From:   &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{Source: inner, AsName: ast.NewCIStr("status")}}},
		Where:  cond, OrderBy: &ast.OrderByClause{Items: by}}
	return builtQuery(outer, env)
}

// noBinaryLog is MariaDB's error for what needs a binary log
// (ER_NO_BINARY_LOGGING): BINLOG_GTID_POS.
func noBinaryLog() error {
	return mysql.NewSQLError(1381, "HY000", "You are not using binary logging")
}

// binlogSnapshot is the prefix of the status variables SHOW STATUS
// answers, as MariaDB without a binary log shows them.
const binlogSnapshot = "binlog_snapshot_"

// showStatus is SHOW [SESSION | GLOBAL] STATUS LIKE pattern, for a
// pattern that matches only MariaDB's Binlog_snapshot_file and
// Binlog_snapshot_position: a literal beginning binlog_snapshot_ (case
// aside) or one of their names; the variables the pattern matches.
func showStatus(n *ast.ShowStmt) (step, error) {
	pattern, ok := "", false
	if n.Pattern != nil && !n.Pattern.Not && n.Pattern.Escape == '\\' {
		if v, isValue := n.Pattern.Pattern.(ast.ValueExpr); isValue {
			pattern, ok = v.GetValue().(string)
		}
	}
	lower := strings.ToLower(pattern)
	if !ok || n.Where != nil || !strings.HasPrefix(strings.ReplaceAll(lower, "\\_", "_"), binlogSnapshot) {
		return step{}, unsupported("this SHOW STATUS (answered: LIKE 'binlog_snapshot_%', its variables without a binary log)")
	}
	return step{answer: func(c *conn) (*answer, error) {
		a := &answer{cols: []string{"Variable_name", "Value"}, types: []colType{varchar(64, true), varchar(2048, true)}}
		for _, v := range catalog.MariaDBStatus {
			if likeFold(strings.ToLower(v[0]), lower) {
				a.rows = append(a.rows, []any{v[0], v[1]})
			}
		}
		return a, nil
	}}, nil
}

// likeFold reports whether s matches the LIKE pattern p (both in lower
// case; % any run, _ one character, \\ escaping the next).
func likeFold(s, p string) bool {
	if p == "" {
		return s == ""
	}
	switch p[0] {
	case '%':
		for i := 0; i <= len(s); i++ {
			if likeFold(s[i:], p[1:]) {
				return true
			}
		}
		return false
	case '_':
		return s != "" && likeFold(s[1:], p[1:])
	case '\\':
		if len(p) > 1 {
			p = p[1:]
		}
	}
	return s != "" && s[0] == p[0] && likeFold(s[1:], p[1:])
}
