package mysqlwire

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Where MariaDB reads an expression fewer times than the evaluator would
// (eval's seqd_mariadb_once and seqd_mariadb_compare), or more (eval's
// seqd_mariadb_typed), so that it raises as many warnings as MariaDB: a
// constant WHERE once for the statement, a comparison's right side not
// after a NULL left side, a constant argument that types a function's
// result once as the statement starts and once a row.

// constantWhere is where, built as n, read once for each execution of
// its query when it is constant (constant); from: the query has a FROM
// clause (without, its one row reads it once anyway). Constant
// conditions joined by AND, OR, XOR or NOT MariaDB's optimizer reads
// several times, as many as it folds them: those are read per row.
func constantWhere(where ast.ExprNode, n *pg.Node, from bool) *pg.Node {
	if !from || !constant(where) || combined(where) {
		return n
	}
	return funcCall("seqd_mariadb_once", []*pg.Node{n})
}

// comparison is l op r, built of x and y, as MariaDB reads it: where
// y may raise a warning (warns), not read after a NULL l; two strings
// compared by the connection's collation (collated).
func (b *builder) comparison(op string, x, y ast.ExprNode, l, r *pg.Node) *pg.Node {
	if b.collated(x, y) {
		return funcCall("seqd_mariadb_ci", []*pg.Node{strConst(op), l, r})
	}
	if !warns(y) {
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, op, l, r)
	}
	return funcCall("seqd_mariadb_compare", []*pg.Node{strConst(op), l, r})
}

// typedOnce reports whether x, an argument that types its function's
// result (REPEAT's count), is read once more as the statement starts,
// before its rows: it is constant (a parameter is: MariaDB types a
// prepared statement again as it executes it with its values; a
// subquery of constants is: constantSubquery), and may
// raise a warning as it is read (a number or NULL written as one may
// not).
func typedOnce(x ast.ExprNode) bool {
	_, number := numberLiteral(x)
	return !number && !nullLiteral(x) && (constant(x) || constantSubquery(x))
}

// constantSubquery reports whether x is a subquery MariaDB finds
// constant as it types its function's result, and reads then: a SELECT
// of no table (FROM dual at most), of constant items and WHERE, without
// GROUP BY, HAVING, ORDER BY, LIMIT or a set operation.
func constantSubquery(x ast.ExprNode) bool {
	x = unparen(x)
	sub, ok := x.(*ast.SubqueryExpr)
	if !ok {
		return false
	}
	sel, ok := sub.Query.(*ast.SelectStmt)
	if !ok || sel.From != nil || sel.Fields == nil || sel.GroupBy != nil || sel.Having != nil || sel.OrderBy != nil ||
		sel.Limit != nil || sel.With != nil || sel.Distinct {
		return false
	}
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil || !constant(f.Expr) {
			return false
		}
	}
	return sel.Where == nil || constant(sel.Where)
}

// constant reports whether x reads the same throughout a statement: no
// column, no subquery, no call but of the functions whose value only
// their arguments make.
func constant(x ast.ExprNode) bool {
	v := exprFinder{found: func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ColumnNameExpr, *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.VariableExpr,
			*ast.AggregateFuncExpr, *ast.WindowFuncExpr, *ast.DefaultExpr:
			return true
		case *ast.FuncCallExpr:
			return !pureFuncs[n.FnName.L]
		}
		return false
	}}
	x.Accept(&v)
	return !v.hit
}

// combined reports whether x joins conditions by AND, OR, XOR or NOT.
func combined(x ast.ExprNode) bool {
	switch x := x.(type) {
	case *ast.ParenthesesExpr:
		return combined(x.Expr)
	case *ast.BinaryOperationExpr:
		return x.Op == opcode.LogicAnd || x.Op == opcode.LogicOr || x.Op == opcode.LogicXor
	case *ast.UnaryOperationExpr:
		return x.Op == opcode.Not || x.Op == opcode.Not2
	}
	return false
}

// pureFuncs are the functions whose value only their arguments make.
var pureFuncs = map[string]bool{"if": true, "ifnull": true, "coalesce": true, "nullif": true, "concat": true,
	"concat_ws": true, "lower": true, "upper": true, "lcase": true, "ucase": true, "abs": true, "length": true,
	"char_length": true, "floor": true, "ceil": true, "ceiling": true, "round": true, "sign": true, "left": true,
	"right": true, "substring": true, "substr": true, "mid": true, "lpad": true, "rpad": true, "reverse": true,
	"ltrim": true, "rtrim": true, "trim": true}

// warns reports whether x may raise a warning as it is read: it holds
// arithmetic (a division by 0, a string read as a number) or a CAST or
// CONVERT. A column or a string compared as it is keeps its equality
// (column = value) for the evaluator's lookups.
func warns(x ast.ExprNode) bool {
	v := exprFinder{found: func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryOperationExpr:
			return arithmetic[n.Op]
		case *ast.FuncCastExpr:
			return true
		}
		return false
	}}
	x.Accept(&v)
	return v.hit
}

// exprFinder visits an expression until found holds for a node.
type exprFinder struct {
	found func(ast.Node) bool
	hit   bool
}

func (v *exprFinder) Enter(n ast.Node) (ast.Node, bool) {
	v.hit = v.hit || v.found(n)
	return n, v.hit
}

func (v *exprFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// collated reports whether x and y, compared, are compared as MariaDB
// compares two strings by the connection's collation, utf8mb4_general_ci
// (eval's seqd_mariadb_ci: without regard to case, and to the accents of
// most letters; trailing spaces ignored): one is a string and the other
// is not a number, and neither compares by its bytes (bytewise).
func (b *builder) collated(x, y ast.ExprNode) bool {
	kx, ky := b.cmpKind(x), b.cmpKind(y)
	switch {
	case kx != "string" && ky != "string", kx != "string" && kx != "", ky != "string" && ky != "":
		return false
	}
	return !b.bytewise(x) && !b.bytewise(y)
}

// bytewise reports whether x compares by its bytes: a binary string (a
// hexadecimal or bit literal, BINARY y, a function of one), or a column
// of information_schema, whose names MariaDB looks up as they are
// written where = compares them with a constant (table_schema =
// 'TEST' finds no row) and seqd compares as they are written
// throughout.
func (b *builder) bytewise(x ast.ExprNode) bool {
	switch n := x.(type) {
	case *ast.ParenthesesExpr:
		return b.bytewise(n.Expr)
	case *driver.ValueExpr: // a binary user variable's value too (uservars.go)
		k := n.Kind()
		return k == driver.KindBinaryLiteral || k == driver.KindMysqlBit || k == driver.KindString && n.Type.GetCharset() == "binary"
	case *ast.ColumnNameExpr:
		for _, s := range b.sources {
			if s.infoSchema && (n.Name.Table.O == "" || strings.EqualFold(s.name, n.Name.Table.O)) {
				for _, c := range s.cols {
					if strings.EqualFold(c, n.Name.Name.O) {
						return true
					}
				}
			}
		}
	}
	if isBinary(x) {
		return true
	}
	t, ok := exprType(x, b.scope())
	return ok && t.binary && t.kind() == kindString
}

// stringsCollated reports whether xs, compared with each other (GREATEST,
// LEAST, CASE x WHEN), are compared as strings by the connection's
// collation (eval's seqd_mariadb_ci): each is a string the builder knows
// (cmpKind: not a binary one) or NULL, one at least a string, and none
// compares by its bytes (bytewise).
func (b *builder) stringsCollated(xs []ast.ExprNode) bool {
	strs := 0
	for _, x := range xs {
		switch {
		case nullLiteral(x):
		case b.cmpKind(x) != "string" || b.bytewise(x):
			return false
		default:
			strs++
		}
	}
	return strs > 0
}

// subqueryCollated reports whether x IN (sub) compares strings by the
// connection's collation (eval's seqd_mariadb_ci): x is a string the
// builder knows (cmpKind), not compared by its bytes, and sub's one
// column a string, not a binary one, as the builder types it
// (queryTypes).
func (b *builder) subqueryCollated(x ast.ExprNode, sub *ast.SubqueryExpr) bool {
	if b.cmpKind(x) != "string" || b.bytewise(x) {
		return false
	}
	ts, ok := b.scope().queryTypes(sub.Query)
	return ok && len(ts) == 1 && ts[0].kind() == kindString && !ts[0].binary
}

// bytesCompared reports whether MariaDB compares the strings xs by
// their bytes, aggregating their collations: a binary string's wins
// over utf8mb4_general_ci's where its coercibility is as strong or
// stronger: BINARY y or a binary column (implicit) over a literal
// (coercible), a literal (x'61', _binary'a') over another literal
// (STRCMP(x'61', 'A') is 1), not over a column or a user variable
// (implicit: FIELD(table_name, x'..') compares by the collation).
func (b *builder) bytesCompared(xs ...ast.ExprNode) bool {
	const implicit, coercible = 2, 4
	binLevel, strLevel := 99, 99
	for _, x := range xs {
		x = unparen(x)
		level := coercible
		switch v := x.(type) {
		case *ast.ColumnNameExpr, *ast.FuncCastExpr:
			level = implicit
		case *driver.ValueExpr:
			if v.Type.GetFlag()&userVarFlag != 0 {
				level = implicit
			}
		}
		switch {
		case b.binaryString(x):
			binLevel = min(binLevel, level)
		case b.cmpKind(x) == "string":
			strLevel = min(strLevel, level)
		}
	}
	return binLevel <= strLevel
}

// binaryString reports whether x is a binary string: a hexadecimal or bit
// literal, BINARY y, a function of one.
func (b *builder) binaryString(x ast.ExprNode) bool {
	x = unparen(x)
	if v, ok := x.(*driver.ValueExpr); ok && (v.Kind() == driver.KindBinaryLiteral || v.Kind() == driver.KindMysqlBit) {
		return true
	}
	if isBinary(x) {
		return true
	}
	t, ok := exprType(x, b.scope())
	return ok && t.binary && t.kind() == kindString
}
