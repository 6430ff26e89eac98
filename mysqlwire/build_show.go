package mysqlwire

import (
	"context"
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/executor"
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

// showDatabases is SHOW DATABASES [LIKE pattern].
func showDatabases(n *ast.ShowStmt) (step, error) {
	return showList(n, "schemata", []string{"schema_name"}, []string{"Database"}, nil)
}

// showTables is SHOW [FULL] TABLES [FROM db] [LIKE pattern]: the
// connection's database's, unless it names one.
func showTables(n *ast.ShowStmt, db string) (step, error) {
	if n.DBName != "" {
		db = n.DBName
	}
	if db == "" {
		return step{}, mysql.NewSQLError(1046, "3D000", "No database selected")
	}
	if !pgText(db) {
		return step{}, unsupported("a name that is not valid UTF-8 or holds NUL")
	}
	cols, names := []string{"table_name"}, []string{"Tables_in_" + db}
	if n.Full {
		cols, names = append(cols, "table_type"), append(names, "Table_type")
	}
	return showList(n, "tables", cols, names, aexpr(pg.A_Expr_Kind_AEXPR_OP, "=", columnRef("table_schema"), strConst(db)))
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
		text := fmt.Sprintf("CREATE DATABASE %s%s /*!40100 DEFAULT CHARACTER SET %s COLLATE %s */", exists, quoteName(db),
			res.Rows[0][0].ToString(), res.Rows[0][1].ToString())
		a := &answer{cols: []string{"Database", "Create Database"}, rows: [][]any{{db, text}}, types: []colType{textExpr(64, true), textExpr(1024, true)}}
		return a.result(), nil
	}
	return step{exec: exec, acts: true}, nil
}

// quoteName is name quoted as MariaDB's SHOW CREATE quotes it.
func quoteName(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }
