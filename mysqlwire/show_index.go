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
	var found markerFinder
	n.Where.Accept(&found)
	if len(found.markers) > 0 {
		return step{}, unsupported("a parameter in SHOW INDEX's WHERE")
	}
	// The condition is read over a row of the result's columns that no
	// row passes: read for its columns, never for a value.
	none := make([]any, len(names))
	cond := &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: ast.NewValueExpr(0, "", ""), R: n.Where}
	e := *env
	exec := func(ctx context.Context, cn *conn, sess *executor.Session) (*sqltypes.Result, error) {
		if err := check(cn); err != nil {
			return nil, err
		}
		s, err := builtQuery(rowsWhere(names, [][]any{none}, cond), &e)
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
