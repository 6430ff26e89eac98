package mysqlwire

import (
	"context"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/internal/vitess/mysql"
)

// showIndex is SHOW {INDEX | INDEXES | KEYS} {FROM | IN} t [{FROM | IN}
// db] [WHERE cond], which ORMs and drivers read to reflect a table
// (Connector/J's getIndexInfo, Django's introspection): a sequence has no
// index, nor has information_schema's tables, so no rows, in MariaDB's
// columns; a table that is not there is 1146, one the user may not read
// 1142, as MariaDB's (and as SHOW COLUMNS). WHERE reads the result's
// own columns (an unknown one is 1054), of no rows.
func showIndex(n *ast.ShowStmt, db string, env *stmtEnv) (step, error) {
	if n.DBName != "" {
		n.Table.Schema = ast.NewCIStr(n.DBName)
	}
	t := shownTable(n.Table, db)
	names := []string{"Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name", "Collation", "Cardinality", "Sub_part",
		"Packed", "Null", "Index_type", "Comment", "Index_comment", "Ignored"}
	integer := func(typ querypb.Type, length uint32, notNull bool) colType {
		return colType{typ: typ, length: length, notNull: notNull, stored: true, known: true}
	}
	types := []colType{varchar(64, true), integer(querypb.Type_INT64, 1, true), varchar(64, true), integer(querypb.Type_UINT32, 2, true),
		varchar(64, true), varchar(1, false), integer(querypb.Type_INT64, 21, false), integer(querypb.Type_INT64, 3, false),
		varchar(10, false), varchar(3, true), varchar(16, true), varchar(16, false), varchar(1024, true), varchar(3, true)}
	check := func(cn *conn) error {
		if strings.EqualFold(t.db, "information_schema") {
			if _, ok := executor.MySQLInformationSchema(strings.ToLower(t.name)); !ok {
				return mysql.NewSQLError(1109, "42S02", "Unknown table '%s' in information_schema", t.name)
			}
			return nil
		}
		_, err := cn.shownDefinition(t, "SELECT")
		return err
	}
	if n.Pattern != nil {
		return step{}, clauseRefused(n, "SHOW INDEX ... LIKE") // MariaDB's grammar has none
	}
	if n.Where == nil {
		return step{answer: func(cn *conn) (*answer, error) {
			if err := check(cn); err != nil {
				return nil, err
			}
			return &answer{cols: names, types: types}, nil
		}}, nil
	}
	return rowsWhereStep(env, names, types, n.Where, func(cn *conn) ([][]any, error) { return nil, check(cn) })
}

// rowsWhereStep is a SHOW whose rows are made as it runs (rows: nil for
// none) and kept where cond, a condition over the result's own columns
// (names, typed as types), holds: the rows made a derived table cond is
// built over (rowsWhere), an unknown column 1054 as MariaDB's. With no
// rows, cond is still read, over a row of its columns that no row
// passes: for its columns, never for a value.
func rowsWhereStep(env *stmtEnv, names []string, types []colType, cond ast.ExprNode, rows func(cn *conn) ([][]any, error)) (step, error) {
	var found markerFinder
	cond.Accept(&found)
	if len(found.markers) > 0 {
		return step{}, unsupported("a parameter in SHOW's WHERE")
	}
	e := *env
	exec := func(ctx context.Context, cn *conn, sess *executor.Session) (*sqltypes.Result, error) {
		rs, err := rows(cn)
		if err != nil {
			return nil, err
		}
		where := cond
		if len(rs) == 0 {
			rs = [][]any{make([]any, len(names))}
			where = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: ast.NewValueExpr(0, "", ""), R: cond}
		}
		s, err := builtQuery(rowsWhere(names, rs, where), &e)
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
