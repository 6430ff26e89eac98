package mysqlwire

import (
	"fmt"

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
