package mysqlwire

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
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
// reads it; a DOUBLE written as one is one; a truth its 1 or 0. x is
// built: a subquery's types are told.
func (b *builder) numberOperand(x ast.ExprNode, n *pg.Node) *pg.Node {
	if userVarString(x) {
		return typeCast(funcCall("seqd_mariadb_quiet", []*pg.Node{n}), typeName("float8"))
	}
	if isString(x) {
		return typeCast(funcCall("seqd_mariadb_double", []*pg.Node{n}), typeName("float8"))
	}
	if doubleLiteral(x) {
		return typeCast(n, typeName("float8")) // not the numeric it is built as
	}
	if truthValue(x) {
		return truthNumber(x, n)
	}
	if mayBeString(x) && !b.numberValue(x) || operandKind(x) == otherKind && !isValue(x) && b.stringValue(x) { // a DOUBLE if the evaluator finds it a string
		return funcCall("seqd_mariadb_number", []*pg.Node{n})
	}
	return n
}

// decimalOperand is n, built of x, where MariaDB reads x as a DECIMAL
// (a bit operator's operand): a string as far as it is a number, with
// 1292 (a user variable's without it, 1918 where no number begins it);
// a truth its 1 or 0; a DOUBLE literal a double; a number as it is.
func (b *builder) decimalOperand(x ast.ExprNode, n *pg.Node) *pg.Node {
	switch y := unparen(x).(type) { // a bit operator's value is a number: no type to tell
	case *ast.BinaryOperationExpr:
		if bitOps[y.Op] {
			return n
		}
	case *ast.UnaryOperationExpr:
		if bitOps[y.Op] {
			return n
		}
	}
	asDecimal := typeCast(nullConst(), typeName("int8")) // eval's seqd_mariadb_number reads as a DECIMAL for an integer
	switch {
	case userVarString(x):
		return funcCall("seqd_mariadb_quiet", []*pg.Node{n, asDecimal})
	case isString(x), mayBeString(x) && !b.numberValue(x), operandKind(x) == otherKind && !isValue(x) && b.stringValue(x):
		return funcCall("seqd_mariadb_number", []*pg.Node{n, asDecimal})
	case doubleLiteral(x):
		return typeCast(n, typeName("float8"))
	case truthValue(x):
		return truthNumber(x, n)
	}
	return n
}

// divOperand is n, x's numberOperand, as an operand MariaDB reads
// as a DECIMAL (DIV of numbers not both integers): a string written as
// one is left a string, which eval's seqd_mariadb_arith('divd') reads
// with its digits, not a DOUBLE's ('123456789012345678' DIV 1).
func divOperand(x ast.ExprNode, n *pg.Node) *pg.Node {
	if !isString(x) || userVarString(x) {
		return n
	}
	if f := n.GetTypeCast().GetArg().GetFuncCall(); f != nil && len(f.Args) == 1 && f.Funcname[len(f.Funcname)-1].GetString_().GetSval() == "seqd_mariadb_double" {
		return typeCast(f.Args[0], typeName("text"))
	}
	return n
}

// userVarString reports whether x is a user variable's string value
// (uservars.go), which MariaDB reads as a number without the 1292 a
// string written as one gets (SET @b = '12x'; SELECT @b + 1 is 13, no
// warning), as a DECIMAL with 1918 where no number begins it: eval's
// seqd_mariadb_quiet (numberRead).
func userVarString(x ast.ExprNode) bool {
	v, ok := x.(*driver.ValueExpr)
	return ok && v.Kind() == driver.KindString && v.Type.GetFlag()&userVarFlag != 0
}

// numberRead is eval's function that reads x, a string, as a number
// compared with another, as MariaDB reads it: seqd_mariadb_number, or
// seqd_mariadb_quiet for a user variable's value.
func numberRead(x ast.ExprNode) string {
	if userVarString(x) {
		return "seqd_mariadb_quiet"
	}
	return "seqd_mariadb_number"
}

// unparen is x without the parentheses around it.
func unparen(x ast.ExprNode) ast.ExprNode {
	for {
		p, ok := x.(*ast.ParenthesesExpr)
		if !ok {
			return x
		}
		x = p.Expr
	}
}

// nullLiteral reports whether x is NULL written as one (in parentheses
// too).
func nullLiteral(x ast.ExprNode) bool {
	x = unparen(x)
	v, ok := x.(*driver.ValueExpr)
	return ok && v.Kind() == driver.KindNull
}

// comparedOperand is n, built of x, compared with other (built as o): a
// string compared with a number is read as one, a DECIMAL or a DOUBLE
// as MariaDB reads it, with 1292 (eval's seqd_mariadb_number, which
// knows both sides' types where the builder does not: a column's, a
// function's result's). A constant string compared with what is not
// constant is read once for the statement, when first compared (eval's
// seqd_mariadb_once), as MariaDB caches its value converted.
func (b *builder) comparedOperand(x, other ast.ExprNode, n, o *pg.Node) *pg.Node {
	switch kx, ko := b.typedKind(x), b.typedKind(other); {
	case kx == stringKind && (ko == numberKind || ko == unknownKind):
		n = funcCall(numberRead(x), []*pg.Node{n, o})
		if constant(x) && !constant(other) {
			n = funcCall("seqd_mariadb_once", []*pg.Node{n})
		}
		return n
	case kx == unknownKind && ko == numberKind:
		return funcCall("seqd_mariadb_number", []*pg.Node{n, o})
	}
	return n
}

// typedKind is operandKind refined by the types the builder tells
// (exprType): a column's, a subquery's, a function's result's, a
// truth's (a number); x is built, so a subquery's types are told.
func (b *builder) typedKind(x ast.ExprNode) int {
	if truthValue(x) {
		return numberKind
	}
	k := operandKind(x)
	if k == numberKind || k == stringKind || isValue(x) {
		return k
	}
	if t, ok := exprType(x, b.scope()); ok {
		switch t.kind() {
		case kindInt, kindDecimal, kindReal:
			return numberKind
		case kindString:
			return stringKind
		}
	}
	return k
}

// mayBeString reports whether x may be a string not written as one: a
// column, a function's result (CONCAT), a CAST AS CHAR.
func mayBeString(x ast.ExprNode) bool {
	k := operandKind(x)
	return k == unknownKind || k == stringKind && !isString(x)
}

// What the builder knows of an operand's type.
const (
	otherKind = iota
	numberKind
	stringKind
	unknownKind // a column, or a function of no known type
)

// numberFuncs and stringFuncs are the functions whose results are
// numbers and strings, by TiDB's lower-case names.
var (
	numberFuncs = map[string]bool{"nextval": true, "lastval": true, "setval": true, "connection_id": true, "last_insert_id": true,
		"abs": true, "length": true, "char_length": true, "floor": true, "ceil": true, "ceiling": true, "round": true, "sign": true}
	stringFuncs = map[string]bool{"concat": true, "concat_ws": true, "lower": true, "upper": true, "lcase": true, "ucase": true,
		"substring": true, "substr": true, "mid": true, "left": true, "right": true, "trim": true, "ltrim": true, "rtrim": true, "replace": true,
		"repeat": true, "reverse": true, "lpad": true, "rpad": true, "database": true, "schema": true, "user": true,
		"current_user": true, "version": true, "hex": true}
)

// operandKind is what the builder knows of x's type.
func operandKind(x ast.ExprNode) int {
	if _, ok := numberLiteral(x); ok {
		return numberKind
	}
	switch n := x.(type) {
	case *driver.ValueExpr:
		if n.Kind() == driver.KindString {
			return stringKind
		}
	case *ast.ColumnNameExpr:
		return unknownKind
	case *ast.FuncCallExpr:
		switch name := n.FnName.L; {
		case numberFuncs[name]:
			return numberKind
		case stringFuncs[name]:
			return stringKind
		}
		return unknownKind
	case *ast.FuncCastExpr:
		switch n.Tp.GetType() {
		case mysql.TypeVarString, mysql.TypeString:
			if n.FunctionType != ast.CastBinaryOperator {
				return stringKind
			}
		case mysql.TypeLonglong, mysql.TypeNewDecimal, mysql.TypeDouble, mysql.TypeFloat:
			return numberKind
		}
	case *ast.ParenthesesExpr:
		return operandKind(n.Expr)
	case *ast.UnaryOperationExpr:
		if n.Op == opcode.Minus || n.Op == opcode.Plus {
			return numberKind
		}
	case *ast.BinaryOperationExpr:
		if arithmetic[n.Op] {
			return numberKind
		}
	}
	return otherKind
}

// isValue reports whether x is a literal.
func isValue(x ast.ExprNode) bool {
	_, ok := x.(*driver.ValueExpr)
	return ok
}

// isString reports whether x is a string written as one.
func isString(x ast.ExprNode) bool {
	v, ok := x.(*driver.ValueExpr)
	return ok && v.Kind() == driver.KindString
}

// isDouble reports whether x's arithmetic is MySQL's DOUBLE: a DOUBLE
// written as one (1e3), a string read as a number (a string function's
// result too), a CAST AS DOUBLE or FLOAT, and arithmetic of one (but
// DIV, a BIGINT).
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
		return t == mysql.TypeDouble || t == mysql.TypeFloat || operandKind(n) == stringKind
	case *ast.FuncCallExpr:
		return operandKind(n) == stringKind
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

// comparedAll is x compared with each of xs (BETWEEN's bounds), built
// as n and ns, where strings meet numbers: MariaDB's common type of them
// all, from the left (an integer and a string make a DECIMAL, a DECIMAL
// and a string a DOUBLE), reads each string (eval's seqd_mariadb_number,
// told the type by a NULL of the type it reads against: BIGINT for
// DECIMAL, DOUBLE for DOUBLE); read reports whether one is. Where the
// builder does not know one's type (cmpKind), they are compared as
// PostgreSQL types them.
func (b *builder) comparedAll(x ast.ExprNode, xs []ast.ExprNode, n *pg.Node, ns []*pg.Node) (_ *pg.Node, _ []*pg.Node, read bool) {
	common := b.cmpKind(x)
	for _, y := range xs {
		switch k := b.cmpKind(y); {
		case common == "" || k == "":
			return n, ns, false
		case common == k:
		case common == "double" || k == "double":
			common = "double"
		case common == "string" && k == "int", common == "int" && k == "string", common == "int" && k == "decimal",
			common == "decimal" && k == "int":
			common = "decimal"
		default: // a DECIMAL and a string
			common = "double"
		}
	}
	if common == "string" || common == "int" {
		return n, ns, false
	}
	as := typeCast(nullConst(), typeName("int8")) // read against an integer: a DECIMAL
	if common == "double" {
		as = typeCast(nullConst(), typeName("float8"))
	}
	readAs := func(y ast.ExprNode, m *pg.Node) *pg.Node {
		if b.cmpKind(y) != "string" {
			return m
		}
		read = true
		return funcCall(numberRead(y), []*pg.Node{m, as})
	}
	out := make([]*pg.Node, len(ns))
	for i, y := range xs {
		out[i] = readAs(y, ns[i])
	}
	return readAs(x, n), out, read
}

// cmpKind is x's type as MariaDB compares it: "int", "decimal",
// "double" or "string"; "" where the builder does not know it or it is
// none of them (NULL, a parameter, a binary string); a truth's "int".
func (b *builder) cmpKind(x ast.ExprNode) string {
	if k := literalKind(x); k != "" {
		return k
	}
	if truthValue(x) { // built as its 1 or 0 where it is compared (shown)
		return "int"
	}
	if doubleLiteral(x) {
		return "double"
	}
	if _, ok := x.(*driver.ValueExpr); ok || isTruth(x) {
		return ""
	}
	t, ok := exprType(x, b.scope())
	switch {
	case !ok || t.binary:
		return ""
	case sqltypes.IsIntegral(t.typ):
		return "int"
	case t.typ == querypb.Type_DECIMAL:
		return "decimal"
	case sqltypes.IsFloat(t.typ):
		return "double"
	case sqltypes.IsText(t.typ):
		return "string"
	}
	return ""
}

// truthValue reports whether x is a truth value as the evaluator holds
// it, a boolean: TRUE or FALSE written as such, or a condition (isTruth).
func truthValue(x ast.ExprNode) bool {
	x = unparen(x)
	if v, ok := x.(*driver.ValueExpr); ok {
		return v.Type.GetFlag()&mysql.IsBooleanFlag != 0
	}
	return isTruth(x)
}

// truthNumber is n, built of x, as a number: a truth's 1 or 0, as
// MariaDB's truth values are integers; anything else n itself.
func truthNumber(x ast.ExprNode, n *pg.Node) *pg.Node {
	if truthValue(x) {
		return typeCast(n, typeName("int4"))
	}
	return n
}

// isTruth reports whether x is a condition MariaDB gives a number as its
// truth value (a comparison, IN, LIKE, AND, ...), which the evaluator
// holds as a boolean.
func isTruth(x ast.ExprNode) bool {
	switch x := x.(type) {
	case *ast.ParenthesesExpr:
		return isTruth(x.Expr)
	case *ast.BinaryOperationExpr:
		return !arithmetic[x.Op]
	case *ast.UnaryOperationExpr:
		return x.Op == opcode.Not || x.Op == opcode.Not2
	case *ast.PatternInExpr, *ast.BetweenExpr, *ast.PatternLikeOrIlikeExpr, *ast.IsNullExpr, *ast.IsTruthExpr,
		*ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		return true
	}
	return false
}

// literalKind is the type of x written as a literal: "int", "decimal",
// "double" or "string"; "" for another expression.
func literalKind(x ast.ExprNode) string {
	v, ok := x.(*driver.ValueExpr)
	switch {
	case !ok:
		return ""
	case v.Kind() == driver.KindString:
		return "string"
	case doubleLiteral(x):
		return "double"
	case v.Kind() == driver.KindMysqlDecimal:
		return "decimal"
	}
	if _, number := numberLiteral(x); number {
		return "int"
	}
	return ""
}

// divIncrement is @@div_precision_increment, MariaDB's default: the
// digits a quotient's scale has past its dividend's.
const divIncrement = 4

// heldDecimal is x, arithmetic of exact numbers holding a division
// (+, -, *, /, MOD, DIV and - of integers and decimals written as
// literals or integer columns), as MariaDB holds its value before it
// shows it at its type's scale: a quotient truncated to whole 9-digit
// words of fraction, enough for its operands' digits and
// div_precision_increment more (eval's seqd_mariadb_quotient; 1/3 is
// 0.333333333, 1/3/7 0.047619047571428571), a product with its
// operands' digits, a sum and a remainder with the larger's. ok is false for anything else, which MariaDB holds
// as it shows it.
func (b *builder) heldDecimal(x ast.ExprNode) (n *pg.Node, frac int, ok bool, err error) {
	if isDouble(x) || !holdsQuotient(x) {
		return nil, 0, false, nil
	}
	return b.heldValue(x)
}

// holdsQuotient reports whether x holds a division's value (divides):
// its arithmetic does, or it is a scalar subquery of one item that
// does, ABS of one, or a choice (IF, IFNULL, COALESCE, CASE) among
// values one of which does and none is a DOUBLE or a string. MariaDB
// passes such a value on with all its digits.
func holdsQuotient(x ast.ExprNode) bool {
	if isDouble(x) {
		return false
	}
	switch x := x.(type) {
	case *ast.ParenthesesExpr:
		return holdsQuotient(x.Expr)
	case *ast.UnaryOperationExpr:
		return x.Op == opcode.Minus && holdsQuotient(x.V)
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.Div:
			return true
		case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Mod:
			return holdsQuotient(x.L) || holdsQuotient(x.R)
		}
	case *ast.SubqueryExpr:
		f, ok := subqueryItem(x)
		return ok && holdsQuotient(f)
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case "abs":
			return len(x.Args) == 1 && holdsQuotient(x.Args[0])
		case "greatest", "least": // the argument chosen, compared as held
			return slices.ContainsFunc(x.Args, holdsQuotient) && !slices.ContainsFunc(x.Args, inexact)
		case "nullif": // its first argument, or NULL
			return len(x.Args) == 2 && holdsQuotient(x.Args[0]) && !inexact(x.Args[1])
		}
		return heldBranches(x)
	case *ast.CaseExpr:
		return heldBranches(x)
	case *ast.AggregateFuncExpr:
		if len(x.Args) != 1 {
			return false
		}
		switch strings.ToLower(x.F) {
		case ast.AggFuncAvg: // its own quotient, of an exact number read again quietly
			return !inexact(x.Args[0]) && !nullLiteral(x.Args[0]) && quietTwice(x.Args[0])
		case ast.AggFuncSum, ast.AggFuncMax, ast.AggFuncMin:
			return holdsQuotient(x.Args[0])
		}
	}
	return false
}

// inexact reports whether x is a DOUBLE or a string, which a value held
// with its digits does not meet.
func inexact(x ast.ExprNode) bool { return isDouble(x) || operandKind(x) == stringKind }

// heldBranches reports whether x chooses among values (branches) one of
// which holds a quotient and none is a DOUBLE or a string.
func heldBranches(x ast.ExprNode) bool {
	bs := branches(x)
	return slices.ContainsFunc(bs, holdsQuotient) && !slices.ContainsFunc(bs, inexact)
}

// subqueryItem is the one item of x's SELECT, a query without a set
// operation; false for another query.
func subqueryItem(x *ast.SubqueryExpr) (ast.ExprNode, bool) {
	sel, ok := x.Query.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.Fields.Fields[0].WildCard != nil {
		return nil, false
	}
	return sel.Fields.Fields[0].Expr, true
}

// hasMarker reports whether x holds a ? marker, which heldValue does not
// build a second time (its parameter would be numbered twice).
func hasMarker(x ast.ExprNode) bool {
	v := exprFinder{found: func(n ast.Node) bool {
		_, ok := n.(ast.ParamMarkerExpr)
		return ok
	}}
	x.Accept(&v)
	return v.hit
}

// heldValue is heldDecimal's x and the digits past its point.
func (b *builder) heldValue(x ast.ExprNode) (*pg.Node, int, bool, error) {
	switch x := x.(type) {
	case *ast.ParenthesesExpr:
		return b.heldValue(x.Expr)
	case *ast.UnaryOperationExpr:
		if x.Op != opcode.Minus {
			return nil, 0, false, nil
		}
		v, frac, ok, err := b.heldValue(x.V)
		if !ok || err != nil {
			return nil, 0, false, err
		}
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, "-", nil, v), frac, true, nil
	case *ast.BinaryOperationExpr:
		if x.Op == opcode.IntDiv { // an integer, held as shown
			n, err := b.expr(x)
			return typeCast(n, typeName("numeric")), 0, err == nil, err
		}
		if !arithmetic[x.Op] {
			return nil, 0, false, nil
		}
		l, lf, ok, err := b.heldValue(x.L)
		if !ok || err != nil {
			return nil, 0, false, err
		}
		r, rf, ok, err := b.heldValue(x.R)
		if !ok || err != nil {
			return nil, 0, false, err
		}
		switch x.Op {
		case opcode.Div:
			frac := (lf + rf + divIncrement + 8) / 9 * 9
			return funcCall("seqd_mariadb_quotient", []*pg.Node{l, divisor(x.R, r), intConst(int32(frac))}), frac, true, nil
		case opcode.Mul:
			return aexpr(pg.A_Expr_Kind_AEXPR_OP, "*", l, r), lf + rf, true, nil
		case opcode.Mod:
			return aexpr(pg.A_Expr_Kind_AEXPR_OP, "%", l, divisor(x.R, r)), max(lf, rf), true, nil
		}
		op := "+"
		if x.Op == opcode.Minus {
			op = "-"
		}
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, op, l, r), max(lf, rf), true, nil
	case *driver.ValueExpr:
		switch x.Kind() {
		case driver.KindInt64, driver.KindUint64:
			if _, number := numberLiteral(x); !number {
				return nil, 0, false, nil
			}
		case driver.KindMysqlDecimal:
		default:
			return nil, 0, false, nil
		}
		n, err := b.expr(x)
		frac := ""
		if x.Kind() == driver.KindMysqlDecimal {
			_, frac, _ = strings.Cut(x.GetMysqlDecimal().String(), ".")
		}
		return typeCast(n, typeName("numeric")), len(frac), err == nil, err
	case *ast.ColumnNameExpr:
		if b.cmpKind(x) != "int" {
			return nil, 0, false, nil
		}
		n, err := b.expr(x)
		return typeCast(n, typeName("numeric")), 0, err == nil, err
	case *ast.SubqueryExpr, *ast.FuncCallExpr, *ast.CaseExpr:
		if hasMarker(x) || !holdsQuotient(x) {
			return nil, 0, false, nil
		}
		return b.heldPassed(x)
	case *ast.AggregateFuncExpr:
		if hasMarker(x) || !holdsQuotient(x) {
			return nil, 0, false, nil
		}
		return b.heldAggregate(x)
	}
	return nil, 0, false, nil
}

// heldAggregate is heldValue of x, SUM, MAX or MIN of a value held with
// its digits, which MariaDB adds and compares as held (SUM(1/3) is
// 0.333333333), or AVG of an exact number: the sum of its values as held
// divided by their count as MariaDB divides, truncated to whole 9-digit
// words of fraction past the sum's and div_precision_increment (AVG(1) is
// 1.000000000, AVG(1/3) 0.333333333000000000). SUM and AVG of DISTINCT
// values take them as MariaDB keeps them apart, at their type's digits
// (SUM(DISTINCT x/3) over 1 and 2 is 1.0000); MAX and MIN ignore
// DISTINCT.
func (b *builder) heldAggregate(x *ast.AggregateFuncExpr) (*pg.Node, int, bool, error) {
	name := strings.ToLower(x.F)
	distinct := x.Distinct && (name == ast.AggFuncSum || name == ast.AggFuncAvg)
	v, frac, ok, err := b.heldValue(x.Args[0])
	if distinct {
		v, err = b.shown(x.Args[0])
		v, frac, ok = typeCast(v, typeName("numeric")), scale(x.Args[0]), err == nil
	}
	if !ok || err != nil {
		return nil, 0, false, err
	}
	agg := func(name string) *pg.Node {
		n := funcCall(name, []*pg.Node{v})
		n.GetFuncCall().AggDistinct = distinct
		return n
	}
	if name == ast.AggFuncAvg {
		f := (frac + divIncrement + 8) / 9 * 9
		return funcCall("seqd_mariadb_quotient", []*pg.Node{agg("sum"), agg("count"), intConst(int32(f))}), f, true, nil
	}
	return agg(name), frac, true, nil
}

// heldPassed is heldValue of x, a subquery or a function that passes on
// the value it is given (holdsQuotient): built again, with the value its
// item or argument holds where the built x has its value shown.
func (b *builder) heldPassed(x ast.ExprNode) (*pg.Node, int, bool, error) {
	// held is y's held value; a NULL written as one is NULL.
	held := func(y ast.ExprNode) (*pg.Node, int, bool, error) {
		if nullLiteral(y) {
			return typeCast(nullConst(), typeName("numeric")), 0, true, nil
		}
		return b.heldValue(y)
	}
	switch x := x.(type) {
	case *ast.SubqueryExpr:
		n, err := b.expr(x)
		if err != nil {
			return nil, 0, false, err
		}
		t := n.GetSubLink().GetSubselect().GetSelectStmt().GetTargetList()[0].GetResTarget()
		h, ok := b.held[t] // the item's, as the subquery's select list built it
		if !ok {
			return nil, 0, false, nil
		}
		t.Val = h.n
		return n, h.frac, true, nil
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case "greatest", "least":
			return b.heldMinMax(x, held)
		case "nullif":
			return b.heldNullIf(x)
		}
		var args []*pg.Node
		frac := 0
		for _, a := range x.Args {
			if x.FnName.L == "if" && len(args) == 0 {
				c, err := b.cond(a)
				if err != nil {
					return nil, 0, false, err
				}
				args = append(args, c)
				continue
			}
			n, f, ok, err := held(a)
			if !ok || err != nil {
				return nil, 0, false, err
			}
			args, frac = append(args, n), max(frac, f)
		}
		switch x.FnName.L {
		case "abs":
			return funcCall("abs", args), frac, true, nil
		case "if":
			return caseWhen(args[0], args[1], args[2]), frac, true, nil
		}
		return coalesce(args...), frac, true, nil // IFNULL, COALESCE
	case *ast.CaseExpr:
		n, err := b.caseExpr(x)
		if err != nil {
			return nil, 0, false, err
		}
		c := n.GetCaseExpr()
		frac := 0
		for i, w := range x.WhenClauses {
			r, f, ok, err := held(w.Result)
			if !ok || err != nil {
				return nil, 0, false, err
			}
			c.Args[i].GetCaseWhen().Result, frac = r, max(frac, f)
		}
		if x.ElseClause != nil {
			r, f, ok, err := held(x.ElseClause)
			if !ok || err != nil {
				return nil, 0, false, err
			}
			c.Defresult, frac = r, max(frac, f)
		}
		return n, frac, true, nil
	}
	return nil, 0, false, nil
}

// heldMinMax is heldPassed of GREATEST or LEAST: the argument whose held
// value is the greatest (least), the first of equal ones, as held; NULL
// where one is NULL. held is each argument's held value. The arguments
// are read twice, as the plain call reads them (conditional): the
// builder has refused the call where a second read would differ.
func (b *builder) heldMinMax(x *ast.FuncCallExpr, held func(ast.ExprNode) (*pg.Node, int, bool, error)) (*pg.Node, int, bool, error) {
	op := pg.MinMaxOp_IS_GREATEST
	if x.FnName.L == "least" {
		op = pg.MinMaxOp_IS_LEAST
	}
	var args, anyNull []*pg.Node
	frac := 0
	for _, a := range x.Args {
		n, f, ok, err := held(a)
		if !ok || err != nil {
			return nil, 0, false, err
		}
		args, frac = append(args, n), max(frac, f)
		anyNull = append(anyNull, &pg.Node{Node: &pg.Node_NullTest{NullTest: &pg.NullTest{Arg: n, Nulltesttype: pg.NullTestType_IS_NULL, Location: noLoc}}})
	}
	mm := &pg.Node{Node: &pg.Node_MinMaxExpr{MinMaxExpr: &pg.MinMaxExpr{Op: op, Args: args, Location: noLoc}}}
	return caseWhen(boolExpr(pg.BoolExprType_OR_EXPR, anyNull...), nullConst(), mm), frac, true, nil
}

// heldNullIf is heldPassed of NULLIF(x, y): NULL where x equals y as
// MariaDB compares them, at the digits each shows (NULLIF(2/3, 0.6667) is
// NULL), else x as held. x is read twice, so only where a second read
// cannot change it or raise a warning again (quietTwice).
func (b *builder) heldNullIf(x *ast.FuncCallExpr) (*pg.Node, int, bool, error) {
	if !quietTwice(x.Args[0]) {
		return nil, 0, false, nil
	}
	l, err := b.shown(x.Args[0])
	if err != nil {
		return nil, 0, false, err
	}
	r, err := b.shown(x.Args[1])
	if err != nil {
		return nil, 0, false, err
	}
	v, frac, ok, err := b.heldValue(x.Args[0])
	if !ok || err != nil {
		return nil, 0, false, err
	}
	return caseWhen(aexpr(pg.A_Expr_Kind_AEXPR_OP, "=", l, r), typeCast(nullConst(), typeName("numeric")), v), frac, true, nil
}

// quietTwice reports whether x reads the same, without a warning, each
// time it is read: numbers and columns in arithmetic whose divisors are
// numbers written other than 0, no call, cast or subquery.
func quietTwice(x ast.ExprNode) bool {
	v := exprFinder{found: func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryOperationExpr:
			switch n.Op {
			case opcode.Div, opcode.IntDiv, opcode.Mod:
				sign, ok := numberLiteral(n.R)
				return !ok || sign == 0
			}
		case *ast.FuncCallExpr, *ast.FuncCastExpr, *ast.SubqueryExpr, *ast.AggregateFuncExpr, *ast.VariableExpr:
			return true
		}
		return false
	}}
	x.Accept(&v)
	return !v.hit
}

// Hexadecimal and bit literals as MariaDB reads them where a number is
// read: 0x41, b'1000001' and 0b1000001 are the unsigned integer of
// their bytes (big-endian, the last 8 of more), x'41' is the string it
// is elsewhere (read as a number with 1292). TiDB's parser makes 0x41
// and x'41' one literal; the statement's text tells them apart
// (hexForms).

// Forms of a hexadecimal literal in the statement's text, by its bytes.
const (
	hexNumber = 1 << iota // 0x41
	hexString             // x'41'
)

// literalForms reads text's literals as it writes them: hex, the forms
// in which it writes each hexadecimal literal, by its bytes as
// lower-case hexadecimal digits (0X41, a column's name to MariaDB,
// TiDB's parser refuses: 1064); floats, each DOUBLE literal's text
// (1e19, 1.5E-3) by its value, which MariaDB prints as written (print.go),
// "" where two texts write one value. escapes: a backslash escapes the
// character after it in a string (not under NO_BACKSLASH_ESCAPES, where
// 'a\' ends at its second quote).
func literalForms(text string, escapes bool) (map[string]int, map[float64]string) {
	forms := map[string]int{}
	floats := map[float64]string{}
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	ident := func(c byte) bool {
		return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	hex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	key := func(digits string) string {
		if len(digits)%2 == 1 {
			digits = "0" + digits
		}
		return strings.ToLower(digits)
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if i > 0 && ident(text[i-1]) {
			continue
		}
		switch {
		case (c == 'x' || c == 'X') && i+1 < len(text) && text[i+1] == '\'':
			j := i + 2
			for j < len(text) && text[j] != '\'' {
				j++
			}
			forms[key(text[i+2:j])] |= hexString
			i = j
		case c == '0' && i+2 < len(text) && text[i+1] == 'x' && hex(text[i+2]):
			j := i + 2
			for j < len(text) && hex(text[j]) {
				j++
			}
			if j < len(text) && ident(text[j]) {
				i = j
				continue
			}
			forms[key(text[i+2:j])] |= hexNumber
			i = j - 1
		case digit(c) || c == '.' && i+1 < len(text) && digit(text[i+1]):
			j := i
			for j < len(text) && (digit(text[j]) || text[j] == '.') {
				j++
			}
			if j+1 < len(text) && (text[j] == 'e' || text[j] == 'E') {
				k := j + 1
				if text[k] == '+' || text[k] == '-' {
					k++
				}
				if k < len(text) && digit(text[k]) {
					for j = k; j < len(text) && digit(text[j]); j++ {
					}
					if v, err := strconv.ParseFloat(text[i:j], 64); err == nil && (j == len(text) || !ident(text[j])) {
						if t, seen := floats[v]; seen && t != text[i:j] {
							floats[v] = ""
						} else {
							floats[v] = text[i:j]
						}
					}
				}
			}
			i = j - 1
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for ; j < len(text) && text[j] != c; j++ {
				if text[j] == '\\' && c != '`' && escapes {
					j++
				}
			}
			i = j
		case c == '-' && strings.HasPrefix(text[i:], "-- "), c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(text[i:], "/*") && !strings.HasPrefix(text[i:], "/*!") && !strings.HasPrefix(text[i:], "/*M!"):
			if end := strings.Index(text[i+2:], "*/"); end >= 0 {
				i += end + 3
			} else {
				i = len(text)
			}
		}
	}
	return forms, floats
}

// readAsNumber replaces *x, a hexadecimal or bit literal (in
// parentheses too) where MariaDB reads a number, by what MariaDB reads:
// 0x41 and b'1000001' by the unsigned integer of their bytes, x'41' by
// the string of its bytes.
func (b *builder) readAsNumber(x *ast.ExprNode) {
	for {
		p, ok := (*x).(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		x = &p.Expr
	}
	v, ok := (*x).(*driver.ValueExpr)
	if !ok || v.Kind() != driver.KindBinaryLiteral {
		return
	}
	bytes := v.GetBytes()
	if b.hexNumber(v) {
		var n uint64
		for _, c := range bytes[max(len(bytes)-8, 0):] {
			n = n<<8 | uint64(c)
		}
		*x = ast.NewValueExpr(n, "", "")
		return
	}
	*x = ast.NewValueExpr(string(bytes), "binary", "binary") // typed as the literal (types.go)
}

// hexNumber reports whether v, a hexadecimal or bit literal, is one
// that MariaDB reads as a number where a number is read: a bit literal,
// or a hexadecimal one written 0x41 (hexForms), not x'41'.
func (b *builder) hexNumber(v *driver.ValueExpr) bool {
	if v.Type.GetFlag()&mysql.UnsignedFlag == 0 { // TiDB's bit literal
		return true
	}
	return b.hexForms[fmt.Sprintf("%x", v.GetBytes())] == hexNumber
}

// hexLiteral reports whether x is a hexadecimal or bit literal (in
// parentheses too).
func hexLiteral(x ast.ExprNode) bool {
	x = unparen(x)
	v, ok := x.(*driver.ValueExpr)
	return ok && v.Kind() == driver.KindBinaryLiteral
}

// inNumbers reads IN's hexadecimal and bit literals as numbers where
// MariaDB compares them with numbers: the operand where every item of
// the list is a number (or NULL), an item where the operand is one.
func (b *builder) inNumbers(x *ast.PatternInExpr) {
	if hexLiteral(x.Expr) {
		for _, y := range x.List {
			if !nullLiteral(y) && (hexLiteral(y) || b.typedKind(y) != numberKind) {
				return
			}
		}
		b.readAsNumber(&x.Expr)
		return
	}
	if b.typedKind(x.Expr) == numberKind {
		for i := range x.List {
			b.readAsNumber(&x.List[i])
		}
	}
}

// hexPlaces checks that each of q's hexadecimal and bit literals that
// MariaDB reads as a number where a number is read (0x41, b'1') stands
// where the builder reads it as MariaDB does: an operand of arithmetic
// or a comparison, negated, of IN, LIKE or a CAST, SUM's, AVG's, MAX's,
// MIN's or COUNT's argument, CONCAT's, CONCAT_WS's or HEX()'s, or an
// item of q's own select list. Elsewhere (a truth, GREATEST, CASE,
// BETWEEN, a subquery's item read by arithmetic) it is refused, where
// it would be read as a string.
func (b *builder) hexPlaces(q ast.Node) error {
	v := &hexPlaceVisitor{b: b, top: q}
	q.Accept(v)
	return v.err
}

// hexPlaceVisitor walks a statement for hexPlaces.
type hexPlaceVisitor struct {
	b     *builder
	top   ast.Node
	stack []ast.Node // the nodes entered and not left, q first
	err   error
}

func (v *hexPlaceVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if lit, ok := n.(*driver.ValueExpr); ok && v.err == nil && lit.Kind() == driver.KindBinaryLiteral &&
		lit.Type.GetFlag()&mysql.UnsignedFlag != 0 && v.b.hexForms[fmt.Sprintf("%x", lit.GetBytes())] == 0 {
		// Not found in the statement's text (DO's, built as a SELECT
		// of no text): 0x41 and x'41' cannot be told apart.
		v.err = unsupported("a hexadecimal literal here (DO)")
	}
	if lit, ok := n.(*driver.ValueExpr); ok && v.err == nil && lit.Kind() == driver.KindBinaryLiteral && v.b.hexNumber(lit) &&
		!v.readAsMariaDB() {
		v.err = unsupported("a hexadecimal or bit literal (0x41, b'1') in this place")
	}
	v.stack = append(v.stack, n)
	return n, false
}

func (v *hexPlaceVisitor) Leave(n ast.Node) (ast.Node, bool) {
	v.stack = v.stack[:len(v.stack)-1]
	return n, true
}

// hexReadFuncs are the functions that read a hexadecimal or bit literal
// as MariaDB reads it in each of their arguments: as a string where a
// string is taken, a number where a count or a number is (countArg,
// readAsNumber).
var hexReadFuncs = map[string]bool{"left": true, "right": true, "substring": true, "substr": true, "mid": true,
	"lpad": true, "rpad": true, "reverse": true, "ltrim": true, "rtrim": true, "floor": true, "ceil": true,
	"ceiling": true, "round": true}

// readAsMariaDB reports whether the literal being entered stands where
// the builder reads it as MariaDB does (hexPlaces).
func (v *hexPlaceVisitor) readAsMariaDB() bool {
	i := len(v.stack) - 1
	for i >= 0 {
		if _, ok := v.stack[i].(*ast.ParenthesesExpr); !ok {
			break
		}
		i--
	}
	if i < 0 {
		return false
	}
	switch p := v.stack[i].(type) {
	case *ast.BinaryOperationExpr:
		return arithmetic[p.Op] || comparisons[p.Op] || p.Op == opcode.NullEQ || bitOps[p.Op]
	case *ast.UnaryOperationExpr:
		return p.Op == opcode.Minus || p.Op == opcode.Plus || p.Op == opcode.BitNeg
	case *ast.PatternInExpr, *ast.PatternLikeOrIlikeExpr, *ast.FuncCastExpr:
		return true
	case *ast.AggregateFuncExpr:
		switch strings.ToLower(p.F) {
		case "sum", "avg", "max", "min", "count":
			return true
		}
	case *ast.FuncCallExpr:
		// Of these, a string where a string is taken, a number where a
		// count or a number is (build_strings.go).
		return p.FnName.L == "concat" || p.FnName.L == "concat_ws" || p.FnName.L == "hex" || hexReadFuncs[p.FnName.L]
	case *ast.SelectField:
		return i >= 2 && v.stack[i-2] == v.top // q's own list: q, its FieldList, the field
	}
	return false
}
