package mysqlwire

import (
	"cmp"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Numbers as MySQL reads them where the tree would read them otherwise:
// a divisor of 0 (NULL, with MariaDB's 1365), a string in arithmetic (a
// DOUBLE read as far as it is a number, with 1292), a DOUBLE's division
// (a DOUBLE, not rounded to a decimal's digits).

// arithmetic are the operators whose operands are numbers.
var arithmetic = map[opcode.Op]bool{opcode.Plus: true, opcode.Minus: true, opcode.Mul: true, opcode.Div: true, opcode.IntDiv: true,
	opcode.Mod: true}

// numberOperand is n, built of x, as an operand of arithmetic: a string
// written as one is read as a DOUBLE as far as it is a number (eval's
// seqd_mariadb_double, with MariaDB's 1292 for the rest), as MariaDB
// reads it; a DOUBLE written as one is one.
func numberOperand(x ast.ExprNode, n *pg.Node) *pg.Node {
	if isString(x) {
		return typeCast(funcCall("seqd_mariadb_double", []*pg.Node{n}), typeName("float8"))
	}
	if doubleLiteral(x) {
		return typeCast(n, typeName("float8")) // not the numeric it is built as
	}
	return n
}

// isString reports whether x is a string written as one.
func isString(x ast.ExprNode) bool {
	v, ok := x.(*driver.ValueExpr)
	return ok && v.Kind() == driver.KindString
}

// isDouble reports whether x's arithmetic is MySQL's DOUBLE: a DOUBLE
// written as one (1e3), a string read as a number, a CAST AS DOUBLE or
// FLOAT, and arithmetic of one (but DIV, a BIGINT).
func isDouble(x ast.ExprNode) bool {
	switch n := x.(type) {
	case *driver.ValueExpr:
		k := n.Kind()
		return k == driver.KindFloat64 || k == driver.KindFloat32 || k == driver.KindString
	case *ast.ParenthesesExpr:
		return isDouble(n.Expr)
	case *ast.UnaryOperationExpr:
		return (n.Op == opcode.Minus || n.Op == opcode.Plus) && isDouble(n.V)
	case *ast.FuncCastExpr:
		t := n.Tp.GetType()
		return t == mysql.TypeDouble || t == mysql.TypeFloat
	case *ast.BinaryOperationExpr:
		return arithmetic[n.Op] && n.Op != opcode.IntDiv && (isDouble(n.L) || isDouble(n.R))
	}
	return false
}

// divisor is n, built of x, as a divisor: NULL where it is 0, which
// raises MariaDB's warning 1365 (eval's seqd_mariadb_divisor), read only
// when the dividend is not NULL (the operator is strict), as MariaDB
// reads it. A number written other than 0 is itself.
func divisor(x ast.ExprNode, n *pg.Node) *pg.Node {
	if sign, ok := numberLiteral(x); ok && sign != 0 {
		return n
	}
	return funcCall("seqd_mariadb_divisor", []*pg.Node{n})
}

// numberLiteral is the sign of x when x is a number written as one (not
// a string, NULL or TRUE): ok false for anything else.
func numberLiteral(x ast.ExprNode) (sign int, ok bool) {
	v, isValue := x.(*driver.ValueExpr)
	if !isValue {
		return 0, false
	}
	switch v.Kind() {
	case driver.KindInt64:
		if v.Type.GetFlag()&mysql.IsBooleanFlag != 0 {
			return 0, false
		}
		return cmp.Compare(v.GetInt64(), 0), true
	case driver.KindUint64:
		return cmp.Compare(v.GetUint64(), 0), true
	case driver.KindFloat32, driver.KindFloat64:
		return cmp.Compare(v.GetFloat64(), 0), true
	case driver.KindMysqlDecimal:
		switch d := v.GetMysqlDecimal().String(); {
		case strings.Trim(d, "-0.") == "":
			return 0, true
		case strings.HasPrefix(d, "-"):
			return -1, true
		}
		return 1, true
	}
	return 0, false
}

// doubleLiteral reports whether x is a DOUBLE written as one (1e30,
// -2.5e0), which the builder makes a numeric.
func doubleLiteral(x ast.ExprNode) bool {
	switch n := x.(type) {
	case *driver.ValueExpr:
		return n.Kind() == driver.KindFloat64 || n.Kind() == driver.KindFloat32
	case *ast.UnaryOperationExpr:
		return (n.Op == opcode.Minus || n.Op == opcode.Plus) && doubleLiteral(n.V)
	case *ast.ParenthesesExpr:
		return doubleLiteral(n.Expr)
	}
	return false
}
