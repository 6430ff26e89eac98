package mysqlwire

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
	vmysql "github.com/seqd/seqd/internal/vitess/mysql"
)

// builder builds TiDB's expressions and queries into PostgreSQL's parse
// tree, for a connection whose session functions env answers. markers
// are the ? markers built, which number numbers; tables the sequences
// its FROM clauses read, which an error names as MariaDB does
// (step.tableErr); seqs the sequences its calls take values of, which
// an error names as MariaDB does (runOut).
type builder struct {
	env     *stmtEnv
	markers []marker
	tables  []fromTable
	seqs    []seqName
	// calls are the functions its calls name that the executor looks
	// up, which an error names as MariaDB does (step.callErr).
	calls []calledFunc
	// columns are the column references it built whose names were
	// written otherwise than in lower case, by the name built, for the
	// errors that name them as written (step.columnErr).
	columns map[string]string
	// item is the select list item being built, whose column a CAST
	// standing for it names in its warnings (nil elsewhere).
	item *ast.SelectField
	// types are the result columns' types of the query built last
	// (nil where not told: build_select.go).
	types []colType
	// manyRows: the FROM clause of the SELECT built last reads a
	// relation of rows (source.manyRows).
	manyRows bool
	// sources are the relations the FROM clause of the SELECT being
	// built reads, which its expressions' types are told over.
	sources []source
	// outerSources are those of the queries around it, the nearest
	// first, whose columns its subqueries may read.
	outerSources [][]source
	// held are the select list items whose value MariaDB holds with
	// more digits than it shows (a quotient's: heldDecimal), which a
	// UNION's string column takes (textColumn), or a subquery holding
	// it passes on (heldPassed).
	held map[*pg.ResTarget]heldItem
	// stars are the columns each * of a select list names, where known:
	// a set operation's column that must be cast (textColumn,
	// castColumn) is cast in the list they make.
	stars map[*pg.ResTarget][]*pg.Node
	// subqueryTypes are the result columns' types of the subqueries
	// with a FROM clause whose types the builder told, by the
	// statement's own tree (typeScope).
	subqueryTypes map[*ast.SelectStmt][]colType
	// filtered are the derived tables havingAlone makes, whose columns
	// are the select list's as MariaDB types it, not a table's.
	filtered map[ast.ResultSetNode]bool
	// hexForms are the forms of the statement's hexadecimal literals
	// (build_numbers.go), read from its text as its query is built.
	hexForms map[string]int
	// floatForms are its DOUBLE literals as it writes them, by their
	// values (literalForms).
	floatForms map[float64]string
}

// scope is what the expressions of the SELECT being built are typed
// over: its FROM clause's sources and the subqueries typed so far.
func (b *builder) scope() typeScope {
	return typeScope{sources: b.sources, outer: b.outerSources, subqueries: b.subqueryTypes, signedSub: b.env.signedSub, lenient: b.env.lenient, floats: b.floatForms}
}

// heldItem is a select list item's value as MariaDB holds it (n), and
// the digits past its point (heldValue).
type heldItem struct {
	n    *pg.Node
	frac int
}

// stmtEnv is what a connection's statements' session functions stand
// for, fixed for the connection (its translations are kept by database:
// conn.translate): its database ("" for none), its user as
// CURRENT_USER() shows it (user@host), its thread ID.
type stmtEnv struct {
	db, user string
	thread   uint32
	// userVars are the connection's user variables, which a statement
	// reads as they are when it is built (uservars.go).
	userVars map[string]userValue
	// noBackslash: string literals have no backslash escapes (sql_mode's
	// NO_BACKSLASH_ESCAPES), as the parser reads them.
	noBackslash bool
	// fullGroupBy: sql_mode's ONLY_FULL_GROUP_BY (build_select.go's
	// fullGroupBy); signedSub: its NO_UNSIGNED_SUBTRACTION (a subtraction
	// of an unsigned integer is signed).
	fullGroupBy, signedSub bool
	// lenient: sql_mode has neither STRICT_TRANS_TABLES nor
	// STRICT_ALL_TABLES (typeScope's).
	lenient bool
	// held: a query's first item that holds a quotient's digits past
	// those it shows (heldDecimal) gives them all, as MariaDB keeps them
	// in a user variable (SET @m = 1/3: 0.333333333).
	held bool
}

// calledFunc is a function a call names: the executor's function it is
// built as, and its name as written (ABS, Length).
type calledFunc struct{ built, named string }

// fromTable is a sequence a FROM clause reads: its schema ("" for the
// one found along the search path) and name, and its name as MariaDB's
// errors give it (db.name).
type fromTable struct{ schema, name, named string }

// marker is a ? marker: where it stands in the statement's text, and its
// ParamRef.
type marker struct {
	offset int
	ref    *pg.ParamRef
}

// number numbers the markers $1, $2, ... in the order written (the
// parser leaves their Order 0); it returns how many there are.
func (b *builder) number() int {
	slices.SortFunc(b.markers, func(x, y marker) int { return x.offset - y.offset })
	for i, m := range b.markers {
		m.ref.Number = int32(i + 1)
	}
	return len(b.markers)
}

// binaryOps are the operators built as PostgreSQL's of the same meaning
// (MySQL's != is PostgreSQL's <>, as its scanner reads it).
var binaryOps = map[opcode.Op]string{
	opcode.GE: ">=", opcode.LE: "<=", opcode.EQ: "=", opcode.NE: "<>", opcode.LT: "<", opcode.GT: ">",
	opcode.Plus: "+", opcode.Minus: "-", opcode.Mul: "*",
}

// comparisons are the comparison operators.
var comparisons = map[opcode.Op]bool{opcode.GE: true, opcode.LE: true, opcode.EQ: true, opcode.NE: true, opcode.LT: true, opcode.GT: true,
	opcode.NullEQ: true}

// bitOps are MySQL's bit operators, which work on unsigned 64-bit
// integers (~1 is 18446744073709551614): PostgreSQL's signed ones would
// answer otherwise, and ^ is its power.
var bitOps = map[opcode.Op]bool{opcode.And: true, opcode.Or: true, opcode.Xor: true, opcode.LeftShift: true, opcode.RightShift: true,
	opcode.BitNeg: true}

// bitFuncs are eval's functions of the bit operators.
var bitFuncs = map[opcode.Op]string{opcode.And: "seqd_mariadb_bit_and", opcode.Or: "seqd_mariadb_bit_or", opcode.Xor: "seqd_mariadb_bit_xor",
	opcode.LeftShift: "seqd_mariadb_bit_shl", opcode.RightShift: "seqd_mariadb_bit_shr", opcode.BitNeg: "seqd_mariadb_bit_not"}

// bits is a bit operator of l and r (r nil: ~l) as MariaDB computes it
// (eval's seqd_mariadb_bit_*): of unsigned 64-bit integers, each operand
// read as a number (a string as a DECIMAL, with 1292).
func (b *builder) bits(op opcode.Op, l, r ast.ExprNode) (*pg.Node, error) {
	args := make([]*pg.Node, 0, 2)
	for _, x := range []*ast.ExprNode{&l, &r} {
		if *x == nil {
			continue
		}
		b.readAsNumber(x)
		n, err := b.expr(*x)
		if err != nil {
			return nil, err
		}
		args = append(args, b.decimalOperand(*x, n))
	}
	return funcCall(bitFuncs[op], args), nil
}

// exprs builds a list of expressions.
func (b *builder) exprs(xs []ast.ExprNode) ([]*pg.Node, error) {
	out := make([]*pg.Node, len(xs))
	for i, x := range xs {
		n, err := b.expr(x)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// expr builds an expression.
func (b *builder) expr(x ast.ExprNode) (*pg.Node, error) {
	switch x := x.(type) {
	case ast.ParamMarkerExpr:
		m, ok := x.(*driver.ParamMarkerExpr)
		if !ok {
			return nil, unsupported("this ? marker")
		}
		ref := &pg.ParamRef{Location: noLoc}
		b.markers = append(b.markers, marker{m.Offset, ref})
		return &pg.Node{Node: &pg.Node_ParamRef{ParamRef: ref}}, nil
	case *driver.ValueExpr:
		return value(x)
	case *ast.ColumnNameExpr:
		c := x.Name
		if !pgText(c.Schema.O + c.Table.O + c.Name.O) {
			return nil, unsupported("a name that is not valid UTF-8 or holds NUL")
		}
		if c.Name.O != c.Name.L {
			b.written(c)
		}
		return columnRef(c.Schema.O, c.Table.O, c.Name.L), nil
	case *ast.TableNameExpr:
		return columnRef(x.Name.Schema.O, x.Name.Name.O), nil
	case *ast.ParenthesesExpr:
		return b.expr(x.Expr)
	case *ast.BinaryOperationExpr:
		return b.binary(x)
	case *ast.UnaryOperationExpr:
		return b.unary(x)
	case *ast.FuncCallExpr:
		return b.call(x)
	case *ast.FuncCastExpr:
		return b.cast(x)
	case *ast.AggregateFuncExpr:
		return b.aggregate(x)
	case *ast.IsNullExpr:
		arg, err := b.expr(x.Expr)
		if err != nil {
			return nil, err
		}
		t := pg.NullTestType_IS_NULL
		if x.Not {
			t = pg.NullTestType_IS_NOT_NULL
		}
		return &pg.Node{Node: &pg.Node_NullTest{NullTest: &pg.NullTest{Arg: arg, Nulltesttype: t, Location: noLoc}}}, nil
	case *ast.IsTruthExpr:
		arg, err := b.cond(x.Expr)
		if err != nil {
			return nil, err
		}
		t := map[[2]bool]pg.BoolTestType{{true, false}: pg.BoolTestType_IS_TRUE, {true, true}: pg.BoolTestType_IS_NOT_TRUE,
			{false, false}: pg.BoolTestType_IS_FALSE, {false, true}: pg.BoolTestType_IS_NOT_FALSE}[[2]bool{x.True != 0, x.Not}]
		return &pg.Node{Node: &pg.Node_BooleanTest{BooleanTest: &pg.BooleanTest{Arg: arg, Booltesttype: t, Location: noLoc}}}, nil
	case *ast.BetweenExpr:
		xs, err := b.shownList([]ast.ExprNode{x.Expr, x.Left, x.Right})
		if err != nil {
			return nil, err
		}
		// MariaDB reads BETWEEN's operand once (eval's
		// seqd_mariadb_between), PostgreSQL's against each bound: where
		// a string is read as a number, or a second read would show
		// (a call, a warning), it is MariaDB's.
		if nullLiteral(x.Expr) { // MariaDB's NULL BETWEEN ... reads neither bound
			return typeCast(nullConst(), typeName("bool")), nil
		}
		operand, bounds, read := b.comparedAll(x.Expr, []ast.ExprNode{x.Left, x.Right}, xs[0], xs[1:])
		if read || b.betweenOnce(x) || b.betweenStrings(x) {
			n := funcCall("seqd_mariadb_between", append([]*pg.Node{operand}, bounds...))
			if x.Not {
				n = boolExpr(pg.BoolExprType_NOT_EXPR, n)
			}
			return n, nil
		}
		kind, op := pg.A_Expr_Kind_AEXPR_BETWEEN, "BETWEEN"
		if x.Not {
			kind, op = pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, "NOT BETWEEN"
		}
		return aexpr(kind, op, xs[0], listNode(xs[1:])), nil
	case *ast.PatternInExpr:
		return b.in(x)
	case *ast.PatternLikeOrIlikeExpr:
		return b.like(x)
	case *ast.CaseExpr:
		return b.caseExpr(x)
	case *ast.SubqueryExpr:
		return b.sublink(pg.SubLinkType_EXPR_SUBLINK, x, false)
	case *ast.ExistsSubqueryExpr:
		sub, ok := x.Sel.(*ast.SubqueryExpr)
		if !ok {
			return nil, unsupported("EXISTS of this")
		}
		return b.sublink(pg.SubLinkType_EXISTS_SUBLINK, sub, x.Not)
	case *ast.CompareSubqueryExpr:
		return b.compareSubquery(x)
	case *ast.VariableExpr:
		return nil, unsupported("variables in an expression")
	case *ast.PatternRegexpExpr:
		return nil, unsupported("REGEXP")
	case *ast.RowExpr:
		return nil, unsupported("row constructors")
	case *ast.WindowFuncExpr:
		return nil, unsupported("window functions")
	case *ast.DefaultExpr:
		return nil, unsupported("DEFAULT in an expression")
	}
	return nil, unsupported(fmt.Sprintf("this expression (%s)", strings.TrimPrefix(fmt.Sprintf("%T", x), "*ast.")))
}

// cond builds x where a condition stands: as it is when it is one (a
// comparison, AND, NOT, IS ..., IN, ...), else x::boolean, as MySQL
// takes a number for a truth value (0 false, any other true).
func (b *builder) cond(x ast.ExprNode) (*pg.Node, error) {
	n, err := b.expr(x)
	if err != nil || isCondition(n) {
		return n, err
	}
	intLiteral := literalKind(x) == "int"
	switch {
	case b.stringValue(x) && !isValue(x) || isString(x):
		// A string is true where it is a number other than 0, read as a
		// DOUBLE with 1292 (IF(table_name, 1, 2) is 2).
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, "<>", b.numberOperand(x, n), intConst(0)), nil
	case b.numberValue(x) && !intLiteral && !truthValue(x):
		// A number of any type: true where it is not 0 (a BIGINT column,
		// a DECIMAL, which have no cast to a truth value).
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, "<>", n, intConst(0)), nil
	}
	return typeCast(n, typeName("bool")), nil
}

// isCondition reports whether n is a truth value as it is built.
func isCondition(n *pg.Node) bool {
	switch x := n.Node.(type) {
	case *pg.Node_BoolExpr, *pg.Node_NullTest, *pg.Node_BooleanTest:
		return true
	case *pg.Node_AExpr:
		switch x.AExpr.Kind {
		case pg.A_Expr_Kind_AEXPR_OP:
			op := x.AExpr.Name[0].GetString_().GetSval()
			return op == "=" || op == "<>" || op == "<" || op == ">" || op == "<=" || op == ">="
		case pg.A_Expr_Kind_AEXPR_NULLIF:
			return false
		}
		return true // IN, BETWEEN, LIKE, IS [NOT] DISTINCT FROM
	case *pg.Node_SubLink:
		return x.SubLink.SubLinkType != pg.SubLinkType_EXPR_SUBLINK
	case *pg.Node_AConst:
		return x.AConst.GetBoolval() != nil
	case *pg.Node_FuncCall:
		name := x.FuncCall.Funcname[len(x.FuncCall.Funcname)-1].GetString_().GetSval()
		return name == "seqd_mariadb_compare" || name == "seqd_mariadb_once" && isCondition(x.FuncCall.Args[0])
	case *pg.Node_TypeCast:
		return x.TypeCast.TypeName.Names[len(x.TypeCast.TypeName.Names)-1].GetString_().GetSval() == "bool"
	}
	return false
}

// value is a literal: NULL, a number as PostgreSQL's scanner reads its
// text, a string (a hexadecimal or bit literal too: MySQL's binary
// string, when its bytes are text).
func value(v *driver.ValueExpr) (*pg.Node, error) {
	switch v.Kind() {
	case driver.KindNull:
		return nullConst(), nil
	case driver.KindInt64:
		if v.Type.GetFlag()&mysql.IsBooleanFlag != 0 {
			return boolConst(v.GetInt64() > 0), nil
		}
		return numConst(strconv.FormatInt(v.GetInt64(), 10)), nil
	case driver.KindUint64:
		return numConst(strconv.FormatUint(v.GetUint64(), 10)), nil
	case driver.KindFloat32:
		return numConst(strconv.FormatFloat(v.GetFloat64(), 'e', -1, 32)), nil
	case driver.KindFloat64:
		return numConst(strconv.FormatFloat(v.GetFloat64(), 'e', -1, 64)), nil
	case driver.KindMysqlDecimal:
		return numConst(v.GetMysqlDecimal().String()), nil
	case driver.KindString, driver.KindBytes:
		if s := v.GetString(); pgText(s) {
			return strConst(s), nil
		}
		return nil, unsupported("a string that is not valid UTF-8 or holds NUL")
	case driver.KindBinaryLiteral, driver.KindMysqlBit:
		if s := string(v.GetBinaryLiteral()); pgText(s) {
			return strConst(s), nil
		}
		return nil, unsupported("a binary string that is not valid UTF-8 or holds NUL")
	}
	return nil, unsupported("this literal")
}

func (b *builder) binary(x *ast.BinaryOperationExpr) (*pg.Node, error) {
	switch {
	case bitOps[x.Op]:
		return b.bits(x.Op, x.L, x.R)
	case x.Op == opcode.LogicAnd || x.Op == opcode.LogicOr || x.Op == opcode.LogicXor:
		return b.logic(x)
	}
	switch { // a hexadecimal or bit literal read as a number (build_numbers.go)
	case arithmetic[x.Op]:
		b.readAsNumber(&x.L)
		b.readAsNumber(&x.R)
	case comparisons[x.Op] || x.Op == opcode.NullEQ:
		if hexLiteral(x.L) && !hexLiteral(x.R) && b.typedKind(x.R) == numberKind {
			b.readAsNumber(&x.L)
		}
		if hexLiteral(x.R) && !hexLiteral(x.L) && b.typedKind(x.L) == numberKind {
			b.readAsNumber(&x.R)
		}
	}
	operand := b.expr
	if comparisons[x.Op] { // MySQL compares a quotient as it shows it
		operand = b.shown
	}
	l, err := operand(x.L)
	if err != nil {
		return nil, err
	}
	r, err := operand(x.R)
	if err != nil {
		return nil, err
	}
	switch {
	case arithmetic[x.Op]:
		l, r = b.numberOperand(x.L, l), b.numberOperand(x.R, r)
	case comparisons[x.Op] || x.Op == opcode.NullEQ:
		l, r = b.comparedOperand(x.L, x.R, l, r), b.comparedOperand(x.R, x.L, r, l)
		if sub, ok := x.R.(*ast.SubqueryExpr); ok {
			l = nullCompared(sub, l)
		}
		if sub, ok := x.L.(*ast.SubqueryExpr); ok {
			r = nullCompared(sub, r)
		}
	}
	// A DOUBLE's division is a DOUBLE (numeric is the type of exact
	// division); MOD of DOUBLEs is computed exactly.
	quotient := "numeric"
	if isDouble(x.L) || isDouble(x.R) {
		quotient = "float8"
	}
	switch x.Op {
	case opcode.NullEQ:
		if b.collated(x.L, x.R) {
			return funcCall("seqd_mariadb_ci", []*pg.Node{strConst("<=>"), l, r}), nil
		}
		return aexpr(pg.A_Expr_Kind_AEXPR_NOT_DISTINCT, "=", l, r), nil
	case opcode.Div:
		// MySQL's division is exact (its value is shown to scale's
		// digits: rounded); by zero it is NULL, with MariaDB's warning
		// (divisor).
		l, r = typeCast(l, typeName(quotient)), divisor(x.R, typeCast(r, typeName(quotient)))
		if kind, text, ok := b.rangedArith(x); ok && kind == "r" && quotient == "float8" {
			return funcCall("seqd_mariadb_arith", []*pg.Node{strConst("/"), l, r, strConst(kind), strConst(text)}), nil
		}
		return arith("/", l, r), nil
	case opcode.IntDiv:
		// DIV: the quotient's integer part, a BIGINT (UNSIGNED where an
		// operand is), exact, past its range 1690; by zero NULL.
		if holdsMarker(x) {
			return nil, errBuiltWithValues
		}
		if kind, text, ok := b.rangedArith(x); ok && kind != "r" {
			op := "div" // of integers; of other numbers through DECIMALs, as MariaDB
			if lt, _ := exprType(x.L, b.scope()); lt.kind() != kindInt {
				op = "divd"
			} else if rt, _ := exprType(x.R, b.scope()); rt.kind() != kindInt {
				op = "divd"
			}
			if op == "divd" { // a string written as one is read as a DECIMAL, not a DOUBLE
				l, r = divOperand(x.L, l), divOperand(x.R, r)
			}
			return funcCall("seqd_mariadb_arith", []*pg.Node{strConst(op), l, r, strConst(kind), strConst(text)}), nil
		}
		q := arith("/", typeCast(l, typeName(quotient)), divisor(x.R, typeCast(r, typeName(quotient))))
		return typeCast(funcCall("trunc", []*pg.Node{q}), typeName("int8")), nil
	case opcode.Mod:
		if quotient == "float8" {
			l, r = typeCast(l, typeName("numeric")), typeCast(r, typeName("numeric"))
		}
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, "%", l, divisor(x.R, r)), nil
	}
	op, ok := binaryOps[x.Op]
	if !ok {
		return nil, unsupported("the operator " + x.Op.String())
	}
	if comparisons[x.Op] {
		return b.comparison(op, x.L, x.R, l, r), nil
	}
	if kind, text, ok := b.rangedArith(x); ok && arithmetic[x.Op] {
		return funcCall("seqd_mariadb_arith", []*pg.Node{strConst(op), l, r, strConst(kind), strConst(text)}), nil
	}
	return arith(op, l, r), nil
}

// rangedArith tells how x, arithmetic, is built as MariaDB computes it
// (eval's seqd_mariadb_arith): its result's kind, i for a BIGINT, u for
// a BIGINT UNSIGNED, r for a DOUBLE, and x as MariaDB prints it, which
// its error past the type's range names (1690); text is "" where x holds
// what is not printed here, its range kept all the same (COUNT(*) -
// CAST(5 AS UNSIGNED) is refused, not -4). False where the builder does
// not know x's type, or it is a DECIMAL: built as PostgreSQL's operators
// compute it.
func (b *builder) rangedArith(x *ast.BinaryOperationExpr) (kind, text string, ok bool) {
	t, ok := exprType(x, b.scope())
	switch {
	case !ok:
		return "", "", false
	case t.kind() == kindInt && t.unsignedType():
		kind = "u"
	case t.kind() == kindInt:
		kind = "i"
	case t.kind() == kindReal:
		kind = "r"
	default:
		return "", "", false
	}
	if text, ok = b.mariadbPrint(x); !ok {
		text = ""
	}
	return kind, text, true
}

// logic is AND, OR and XOR, of truth values (cond): a chain of ANDs
// (ORs) on the left is one BoolExpr, as PostgreSQL's grammar makes it;
// XOR is NULL when either side is, else whether they differ.
func (b *builder) logic(x *ast.BinaryOperationExpr) (*pg.Node, error) {
	l, err := b.cond(x.L)
	if err != nil {
		return nil, err
	}
	r, err := b.cond(x.R)
	if err != nil {
		return nil, err
	}
	if x.Op == opcode.LogicXor {
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, "<>", l, r), nil
	}
	op := pg.BoolExprType_AND_EXPR
	if x.Op == opcode.LogicOr {
		op = pg.BoolExprType_OR_EXPR
	}
	if be := l.GetBoolExpr(); be != nil && be.Boolop == op {
		be.Args = append(be.Args, r)
		return l, nil
	}
	return boolExpr(op, l, r), nil
}

// shown is x built as a value MySQL shows: a quotient, which MySQL
// computes exactly, rounded to the digits its type has (scale).
func (b *builder) shown(x ast.ExprNode) (*pg.Node, error) {
	n, err := b.expr(x)
	if err != nil {
		return nil, err
	}
	return shownValue(x, n), nil
}

// shownValue is n, built of x, as MySQL shows it (shown): a truth as
// its 1 or 0 (truthNumber).
func shownValue(x ast.ExprNode, n *pg.Node) *pg.Node {
	return truthNumber(x, rounded(x, n))
}

// shownItem is x built as a select list's item: shown, but a truth as
// the boolean it is, which the wire sends as 1 or 0.
func (b *builder) shownItem(x ast.ExprNode) (*pg.Node, error) {
	n, err := b.expr(x)
	if err != nil {
		return nil, err
	}
	return rounded(x, n), nil
}

// rounded is n, built of x, a quotient rounded to the digits its type
// shows.
func rounded(x ast.ExprNode, n *pg.Node) *pg.Node {
	if !divides(x) {
		return n
	}
	return funcCall("round", []*pg.Node{n, intConst(int32(scale(x)))})
}

// shownList is shown of each of xs.
func (b *builder) shownList(xs []ast.ExprNode) ([]*pg.Node, error) {
	out := make([]*pg.Node, len(xs))
	for i, x := range xs {
		n, err := b.shown(x)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// divides reports whether x's arithmetic holds a division (of exact
// numbers: a DOUBLE's value is not rounded).
func divides(x ast.ExprNode) bool {
	if isDouble(x) {
		return false
	}
	switch x := x.(type) {
	case *ast.ParenthesesExpr:
		return divides(x.Expr)
	case *ast.UnaryOperationExpr:
		return x.Op == opcode.Minus && divides(x.V)
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.Div:
			return true
		case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Mod:
			return divides(x.L) || divides(x.R)
		}
	case *ast.FuncCallExpr, *ast.CaseExpr:
		// A choice among branches takes their common type: a quotient's
		// digits for all when one divides and none is a DOUBLE or a
		// string (IF(1, 1, 1/0) is 1.0000).
		bs := branches(x)
		return slices.ContainsFunc(bs, divides) && !slices.ContainsFunc(bs, func(b ast.ExprNode) bool {
			return isDouble(b) || operandKind(b) == stringKind
		})
	}
	return false
}

// branches are the values IF, IFNULL, COALESCE, CASE, GREATEST or LEAST
// choose among, or NULLIF's first argument, which it returns (none for
// another expression).
func branches(x ast.ExprNode) []ast.ExprNode {
	switch x := x.(type) {
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case "if":
			if len(x.Args) == 3 {
				return x.Args[1:]
			}
		case "ifnull", "coalesce", "greatest", "least":
			return x.Args
		case "nullif":
			if len(x.Args) == 2 {
				return x.Args[:1]
			}
		}
	case *ast.CaseExpr:
		var out []ast.ExprNode
		for _, w := range x.WhenClauses {
			out = append(out, w.Result)
		}
		if x.ElseClause != nil {
			out = append(out, x.ElseClause)
		}
		return out
	}
	return nil
}

// scale is how many digits past the point MySQL's value of x has, as far
// as x's text tells: a decimal literal's, a DECIMAL cast's, a division's
// its dividend's and 4 more (div_precision_increment), up to 38; 0 for
// an integer, a column (seqd's are integers) or what the text does not
// tell.
func scale(x ast.ExprNode) int {
	switch x := x.(type) {
	case *driver.ValueExpr:
		if x.Kind() == driver.KindMysqlDecimal {
			if _, frac, ok := strings.Cut(x.GetMysqlDecimal().String(), "."); ok {
				return len(frac)
			}
		}
	case *ast.ParenthesesExpr:
		return scale(x.Expr)
	case *ast.UnaryOperationExpr:
		return scale(x.V)
	case *ast.FuncCastExpr:
		if x.Tp.GetType() == mysql.TypeNewDecimal {
			return max(x.Tp.GetDecimal(), 0)
		}
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.Div:
			return min(scale(x.L)+4, 38)
		case opcode.Mul:
			return min(scale(x.L)+scale(x.R), 38)
		case opcode.Plus, opcode.Minus, opcode.Mod:
			return max(scale(x.L), scale(x.R))
		}
	case *ast.FuncCallExpr, *ast.CaseExpr:
		n := 0
		for _, b := range branches(x) {
			n = max(n, scale(b))
		}
		return n
	}
	return 0
}

func (b *builder) unary(x *ast.UnaryOperationExpr) (*pg.Node, error) {
	if bitOps[x.Op] {
		return b.bits(x.Op, x.V, nil)
	}
	if x.Op == opcode.Not || x.Op == opcode.Not2 {
		v, err := b.cond(x.V)
		if err != nil {
			return nil, err
		}
		return boolExpr(pg.BoolExprType_NOT_EXPR, v), nil
	}
	if x.Op == opcode.Minus || x.Op == opcode.Plus {
		b.readAsNumber(&x.V)
	}
	v, err := b.expr(x.V)
	if err != nil {
		return nil, err
	}
	if nullLiteral(x.V) {
		return typeCast(v, typeName("float8")), nil // MariaDB's -NULL: a DOUBLE's NULL
	}
	if isString(x.V) || !isValue(x.V) && b.stringValue(x.V) {
		// A string negated is a DOUBLE, 0 for none (MariaDB shows no -0).
		v = b.numberOperand(x.V, v)
		if x.Op == opcode.Minus {
			return aexpr(pg.A_Expr_Kind_AEXPR_OP, "-", intConst(0), v), nil
		}
	} else if mayBeString(x.V) || truthValue(x.V) {
		v = b.numberOperand(x.V, v)
	}
	switch x.Op {
	case opcode.Plus:
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, "+", nil, v), nil
	case opcode.Minus:
		// As PostgreSQL's grammar: a negated number is a negative number.
		if c := v.GetAConst(); c != nil {
			switch n := c.Val.(type) {
			case *pg.A_Const_Ival:
				n.Ival.Ival = -n.Ival.Ival
				return v, nil
			case *pg.A_Const_Fval:
				if f, ok := strings.CutPrefix(n.Fval.Fval, "-"); ok {
					n.Fval.Fval = f
				} else {
					n.Fval.Fval = "-" + n.Fval.Fval
				}
				return v, nil
			}
		}
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, "-", nil, v), nil
	}
	return nil, unsupported("the operator " + x.Op.String())
}

func (b *builder) in(x *ast.PatternInExpr) (*pg.Node, error) {
	if x.Sel == nil {
		b.inNumbers(x) // a hexadecimal or bit literal read as a number (build_numbers.go)
	}
	l, err := b.shown(x.Expr)
	if err != nil {
		return nil, err
	}
	if x.Sel != nil {
		sub, ok := x.Sel.(*ast.SubqueryExpr)
		if !ok {
			return nil, unsupported("IN of this")
		}
		n, err := b.sublink(pg.SubLinkType_ANY_SUBLINK, sub, x.Not)
		if err != nil {
			return nil, err
		}
		link := n.GetSubLink()
		if x.Not {
			link = n.GetBoolExpr().Args[0].GetSubLink()
		}
		link.Testexpr = nullCompared(sub, b.subqueryNumbers(x.Expr, l, sub, link.Subselect))
		if b.subqueryCollated(x.Expr, sub) {
			if x.Not {
				n.GetBoolExpr().Args[0] = funcCall("seqd_mariadb_ci", []*pg.Node{n.GetBoolExpr().Args[0]})
			} else {
				n = funcCall("seqd_mariadb_ci", []*pg.Node{n})
			}
		}
		return n, nil
	}
	switch {
	case nullLiteral(x.Expr): // MariaDB's NULL IN (...) reads no item of its list
		return typeCast(nullConst(), typeName("bool")), nil
	case len(x.List) == 1: // MariaDB's x IN (y) is x = y
		op := opcode.EQ
		if x.Not {
			op = opcode.NE
		}
		return b.expr(&ast.BinaryOperationExpr{Op: op, L: x.Expr, R: x.List[0]})
	}
	list, err := b.shownList(x.List)
	if err != nil {
		return nil, err
	}
	if types, ok := b.inTypes(x); ok {
		n := funcCall("seqd_mariadb_in", append([]*pg.Node{strConst(types), l}, list...))
		if x.Not {
			n = boolExpr(pg.BoolExprType_NOT_EXPR, n)
		}
		return n, nil
	}
	op := "="
	if x.Not {
		op = "<>"
	}
	return aexpr(pg.A_Expr_Kind_AEXPR_IN, op, l, listNode(list)), nil
}

// inTypes are the types of IN's operand and list as eval's
// seqd_mariadb_in takes them (a letter each: i, d, r, s), where MariaDB
// reads the list in order up to its first match: its types are not all
// one (a string among numbers: each compared with the operand in the
// type of the pair, the string read as a number), or an item is not
// constant (a column, a call), or strings are compared (by the
// connection's collation, utf8mb4_general_ci). ok is false where the
// builder does not know a type (cmpKind: a binary string's is not), or
// all are constant numbers of one type, which MariaDB compares as
// PostgreSQL does.
func (b *builder) inTypes(x *ast.PatternInExpr) (types string, ok bool) {
	first, known := b.compareLetter(x.Expr)
	if !known {
		return "", false
	}
	out := []byte{first}
	loop := false
	for _, y := range x.List {
		if nullLiteral(y) {
			out = append(out, first) // passed by, read in no type
			continue
		}
		t, known := b.compareLetter(y)
		if !known {
			return "", false
		}
		loop = loop || t != first || !constant(y) || t == 's' || t == 'q' // strings compared by the collation
		out = append(out, t)
	}
	return string(out), loop
}

// compareLetter is x's type as eval's seqd_mariadb_in and
// seqd_mariadb_case take it: i, d, r or s (cmpKind's int, decimal,
// double, string), q for a user variable's string, which MariaDB reads
// as a number without 1292 (userVarString); false where the builder
// does not know it.
func (b *builder) compareLetter(x ast.ExprNode) (byte, bool) {
	t, known := map[string]byte{"int": 'i', "decimal": 'd', "double": 'r', "string": 's'}[b.cmpKind(x)]
	if userVarString(x) && t == 's' {
		t = 'q'
	}
	return t, known
}

// betweenOnce reports whether BETWEEN is built as MariaDB reads it
// (eval's seqd_mariadb_between), where nothing is read as a number: an
// item is not a column or a literal (a second read of the operand, or a
// bound not read after the first fails, would show), and the builder
// knows each item's type, or it is NULL.
func (b *builder) betweenOnce(x *ast.BetweenExpr) bool {
	items := []ast.ExprNode{x.Expr, x.Left, x.Right}
	alike := true
	for _, y := range items {
		if !nullLiteral(y) && b.cmpKind(y) == "" {
			return false
		}
		alike = alike && readsAlike(y)
	}
	return !alike
}

// betweenStrings reports whether BETWEEN compares strings, which
// MariaDB compares by the connection's collation, utf8mb4_general_ci
// (eval's seqd_mariadb_between): each item is a string the builder knows
// (cmpKind: not a binary one) or NULL.
func (b *builder) betweenStrings(x *ast.BetweenExpr) bool {
	for _, y := range []ast.ExprNode{x.Expr, x.Left, x.Right} {
		if !nullLiteral(y) && b.cmpKind(y) != "string" {
			return false
		}
	}
	return true
}

// readsAlike reports whether x reads the same, and raises nothing,
// each time it is read: a column or a literal.
func readsAlike(x ast.ExprNode) bool {
	switch x := x.(type) {
	case *ast.ParenthesesExpr:
		return readsAlike(x.Expr)
	case *ast.ColumnNameExpr, *driver.ValueExpr:
		return true
	}
	return false
}

// like is LIKE as MariaDB's default collation compares (its characters'
// weights in utf8mb4_general_ci, where the builder knows both sides'
// types; else PostgreSQL's ILIKE), unless a side is a binary string.
// (information_schema's names compare so too in MariaDB.)
func (b *builder) like(x *ast.PatternLikeOrIlikeExpr) (*pg.Node, error) {
	if x.Escape != '\\' {
		return nil, unsupported("LIKE with ESCAPE")
	}
	l, err := b.expr(x.Expr)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(x.Pattern)
	if err != nil {
		return nil, err
	}
	kind, op := pg.A_Expr_Kind_AEXPR_ILIKE, "~~*"
	switch {
	case x.IsLike && b.bytesCompared(x.Expr, x.Pattern):
		// Byte by byte ('_' one byte): each side's bytes made one
		// character each (eval's seqd_mariadb_bytes).
		bytes := func(y ast.ExprNode, n *pg.Node) *pg.Node {
			if b.cmpKind(y) != "string" {
				n = b.numberText(y, n)
			}
			return funcCall("seqd_mariadb_bytes", []*pg.Node{n})
		}
		l, r = bytes(x.Expr, l), bytes(x.Pattern, r)
		kind, op = pg.A_Expr_Kind_AEXPR_LIKE, "~~"
	case x.IsLike && b.cmpKind(x.Expr) != "" && b.cmpKind(x.Pattern) != "":
		// Strings (a number as its text), each character folded to its
		// weight in the connection's collation (eval's
		// seqd_mariadb_ci_fold): alike as MariaDB's LIKE finds them
		// ('é' LIKE 'e', 'ß' LIKE 's').
		fold := func(y ast.ExprNode, n *pg.Node) *pg.Node {
			if b.cmpKind(y) != "string" {
				n = b.numberText(y, n)
			}
			return funcCall("seqd_mariadb_ci_fold", []*pg.Node{n})
		}
		l, r = fold(x.Expr, l), fold(x.Pattern, r)
		kind, op = pg.A_Expr_Kind_AEXPR_LIKE, "~~"
	}
	if x.Not {
		op = "!" + op
	}
	return aexpr(kind, op, l, r), nil
}

// isBinary reports whether x is BINARY y.
func isBinary(x ast.ExprNode) bool {
	c, ok := x.(*ast.FuncCastExpr)
	return ok && c.FunctionType == ast.CastBinaryOperator
}

func (b *builder) caseExpr(x *ast.CaseExpr) (*pg.Node, error) {
	c := &pg.CaseExpr{Location: noLoc}
	var err error
	types, mixed := b.caseTypes(x)
	if mixed {
		// A string among numbers: each WHEN compared with the value as
		// MariaDB's IN compares them (eval's seqd_mariadb_case gives the
		// number of the WHEN that matches).
		args := []*pg.Node{strConst(types)}
		for _, y := range append([]ast.ExprNode{x.Value}, whens(x)...) {
			n, err := b.shown(y)
			if err != nil {
				return nil, err
			}
			args = append(args, n)
		}
		c.Arg = funcCall("seqd_mariadb_case", args)
	} else if x.Value != nil {
		if c.Arg, err = b.expr(x.Value); err != nil {
			return nil, err
		}
		c.Arg = truthNumber(x.Value, c.Arg) // CASE TRUE WHEN 1: compared as integers
	}
	values := make([]ast.ExprNode, 0, len(x.WhenClauses)+1)
	for _, w := range x.WhenClauses {
		values = append(values, w.Result)
	}
	if x.ElseClause != nil {
		values = append(values, x.ElseClause)
	}
	results, err := b.branchValues(values)
	if err != nil {
		return nil, err
	}
	for i, w := range x.WhenClauses {
		var when *pg.Node
		switch {
		case mixed:
			when = intConst(int32(i + 1))
		case x.Value == nil:
			when, err = b.cond(w.Expr)
		default:
			if when, err = b.expr(w.Expr); err == nil {
				when = truthNumber(w.Expr, when)
			}
		}
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, &pg.Node{Node: &pg.Node_CaseWhen{CaseWhen: &pg.CaseWhen{Expr: when, Result: results[i], Location: noLoc}}})
	}
	if x.ElseClause != nil {
		c.Defresult = results[len(results)-1]
	}
	n := &pg.Node{Node: &pg.Node_CaseExpr{CaseExpr: c}}
	if x.Value != nil && !mixed {
		if b.stringsCollated(append([]ast.ExprNode{x.Value}, whens(x)...)) { // CASE x WHEN 'A': MariaDB compares strings by the collation
			n = funcCall("seqd_mariadb_ci", []*pg.Node{n})
		}
	}
	return n, nil
}

// nullCompared is l, compared with sub's column (IN, ANY, ALL, or sub's
// value), as text
// where that column is NULL written as one in each of sub's selects:
// the evaluator types such a column text, as PostgreSQL does, and
// compares no number with it, where MariaDB compares anything with it
// (1 IN (SELECT NULL) is NULL). What is compared with NULL is NULL as
// any type; l is read as before.
func nullCompared(sub *ast.SubqueryExpr, l *pg.Node) *pg.Node {
	if !nullColumn(sub.Query) {
		return l
	}
	return typeCast(l, typeName("text"))
}

// nullColumn reports whether q has one column, NULL written as one in
// each of its selects.
func nullColumn(q ast.Node) bool {
	switch q := q.(type) {
	case *ast.SelectStmt:
		return q.Fields != nil && len(q.Fields.Fields) == 1 && q.Fields.Fields[0].WildCard == nil && nullLiteral(q.Fields.Fields[0].Expr)
	case *ast.SetOprStmt:
		return nullColumn(q.SelectList)
	case *ast.SetOprSelectList:
		for _, s := range q.Selects {
			if !nullColumn(s) {
				return false
			}
		}
		return len(q.Selects) > 0
	}
	return false
}

// whens are a CASE's WHEN expressions.
func whens(x *ast.CaseExpr) []ast.ExprNode {
	out := make([]ast.ExprNode, len(x.WhenClauses))
	for i, w := range x.WhenClauses {
		out[i] = w.Expr
	}
	return out
}

// caseTypes are the types of a simple CASE's value and WHENs as eval's
// seqd_mariadb_case takes them (inTypes' letters); mixed reports
// whether a string is compared with a number there, which MariaDB reads
// as a number in the type of the pair, as its IN does. mixed is false
// where the builder does not know a type or a string is compared by its
// bytes.
func (b *builder) caseTypes(x *ast.CaseExpr) (types string, mixed bool) {
	if x.Value == nil {
		return "", false
	}
	var out []byte
	strs, numbers := false, false
	for i, y := range append([]ast.ExprNode{x.Value}, whens(x)...) {
		if i > 0 && nullLiteral(y) {
			out = append(out, out[0]) // passed by, read in no type
			continue
		}
		t, known := b.compareLetter(y)
		str := t == 's' || t == 'q'
		if !known || str && b.bytewise(y) {
			return "", false
		}
		strs, numbers = strs || str, numbers || !str
		out = append(out, t)
	}
	return string(out), strs && numbers
}

// subqueryNumbers is l, built of x, compared with sub's column (built
// as q) where one is a string and the other a number, as MariaDB
// compares them: the string read as a number of the pair's type (with
// an integer as a DECIMAL, else as a DOUBLE; eval's seqd_mariadb_number,
// told the type by a NULL of it), with 1292, both sides of that type.
// sub's values are read so in q's select list.
func (b *builder) subqueryNumbers(x ast.ExprNode, l *pg.Node, sub *ast.SubqueryExpr, q *pg.Node) *pg.Node {
	ts, ok := b.scope().queryTypes(sub.Query)
	if !ok || len(ts) != 1 || ts[0].binary || nullColumn(sub.Query) {
		return l
	}
	kx := map[string]valueKind{"int": kindInt, "decimal": kindDecimal, "double": kindReal, "string": kindString}[b.cmpKind(x)]
	kc := ts[0].kind()
	number := kc
	if kc == kindString {
		number = kx
	}
	if (kx == kindString) == (kc == kindString) || number != kindInt && number != kindDecimal && number != kindReal {
		return l
	}
	as, common := "float8", "float8" // read as a DOUBLE
	if number == kindInt {
		as, common = "int8", "numeric" // read as a DECIMAL
	}
	read := func(n *pg.Node) *pg.Node {
		return typeCast(funcCall("seqd_mariadb_number", []*pg.Node{n, typeCast(nullConst(), typeName(as))}), typeName(common))
	}
	if kx == kindString {
		mapColumn(q, func(n *pg.Node) *pg.Node { return typeCast(n, typeName(common)) })
		return read(l)
	}
	mapColumn(q, read)
	return typeCast(l, typeName(common))
}

// mapColumn makes q's one column f of it in each of q's selects.
func mapColumn(q *pg.Node, f func(*pg.Node) *pg.Node) {
	sel := q.GetSelectStmt()
	if sel == nil {
		return
	}
	if sel.Op != pg.SetOperation_SETOP_NONE {
		mapColumn(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel.Larg}}, f)
		mapColumn(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel.Rarg}}, f)
		return
	}
	if len(sel.TargetList) == 1 {
		if t := sel.TargetList[0].GetResTarget(); t != nil {
			t.Val = f(t.Val)
		}
	}
}

// sublink is a subquery as an expression; not: NOT before it.
func (b *builder) sublink(kind pg.SubLinkType, sub *ast.SubqueryExpr, not bool) (*pg.Node, error) {
	q, _, err := b.query(sub.Query, false)
	if err != nil {
		return nil, err
	}
	if sel, ok := sub.Query.(*ast.SelectStmt); ok && sel.From != nil && b.types != nil {
		if b.subqueryTypes == nil {
			b.subqueryTypes = map[*ast.SelectStmt][]colType{}
		}
		b.subqueryTypes[sel] = slices.Clone(b.types)
	}
	n, known := queryColumns(q)
	if !known { // a *: as many as the builder types
		if ts, ok := b.scope().queryTypes(sub.Query); ok {
			n, known = len(ts), true
		}
	}
	if known && n != 1 && kind != pg.SubLinkType_EXISTS_SUBLINK {
		return nil, vmysql.NewSQLError(1241, "21000", "Operand should contain 1 column(s)")
	}
	link := &pg.Node{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{SubLinkType: kind, Subselect: q, Location: noLoc}}}
	if not {
		return boolExpr(pg.BoolExprType_NOT_EXPR, link), nil
	}
	return link, nil
}

// queryColumns is the number of q's columns, built; known is false
// where a * stands among them.
func queryColumns(q *pg.Node) (n int, known bool) {
	sel := q.GetSelectStmt()
	for sel != nil && sel.Op != pg.SetOperation_SETOP_NONE {
		sel = sel.Larg
	}
	if sel == nil || sel.ValuesLists != nil {
		return 0, false
	}
	for _, t := range sel.TargetList {
		if ref := t.GetResTarget().GetVal().GetColumnRef(); ref != nil {
			for _, f := range ref.Fields {
				if f.GetAStar() != nil {
					return 0, false
				}
			}
		}
	}
	return len(sel.TargetList), true
}

// compareSubquery is x op ANY|ALL (subquery): eval's ANY or ALL
// sublink, compared as MariaDB compares the pair (subqueryNumbers:
// a string and a number as numbers, with 1292; strings by the
// connection's collation).
func (b *builder) compareSubquery(x *ast.CompareSubqueryExpr) (*pg.Node, error) {
	op, ok := binaryOps[x.Op]
	sub, isSub := x.R.(*ast.SubqueryExpr)
	if !ok || !isSub || op == "+" || op == "-" || op == "*" {
		return nil, unsupported("this comparison with a subquery")
	}
	l, err := b.expr(x.L)
	if err != nil {
		return nil, err
	}
	kind := pg.SubLinkType_ALL_SUBLINK
	if !x.All {
		kind = pg.SubLinkType_ANY_SUBLINK
	}
	n, err := b.sublink(kind, sub, false)
	if err != nil {
		return nil, err
	}
	link := n.GetSubLink()
	link.Testexpr, link.OperName = nullCompared(sub, b.subqueryNumbers(x.L, l, sub, link.Subselect)), []*pg.Node{strNode(op)}
	if b.subqueryCollated(x.L, sub) {
		n = funcCall("seqd_mariadb_ci", []*pg.Node{n})
	}
	return n, nil
}

// written records c's name as written, by the name it is built as.
func (b *builder) written(c *ast.ColumnName) {
	join := func(col string) string {
		var parts []string
		for _, p := range []string{c.Schema.O, c.Table.O, col} {
			if p != "" {
				parts = append(parts, p)
			}
		}
		return strings.Join(parts, ".")
	}
	if b.columns == nil {
		b.columns = map[string]string{}
	}
	b.columns[join(c.Name.L)] = join(c.Name.O)
}
