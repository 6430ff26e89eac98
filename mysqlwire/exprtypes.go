package mysqlwire

import (
	"slices"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// An expression's type, as MariaDB 10.11's Item::fix_length_and_dec and
// its type handlers' aggregation give it (sql/item_func.cc,
// item_cmpfunc.cc, sql_type.cc), from its operands' types:
//
//  1. An integer result is LONG while its length (digits and sign, as
//     MariaDB's max_length counts them) is at most 9, else LONGLONG
//     (type_handler_long_or_longlong); + and - take the longer operand's
//     integer digits and one more, * the sum of the operands' digits.
//  2. A DECIMAL result's scale is the larger operand's for + - and MOD,
//     the sum of them for *, the dividend's and div_precision_increment
//     (4) for /; an integer / an integer is a DECIMAL.
//  3. A string, NULL or DOUBLE operand makes arithmetic DOUBLE, with the
//     operands' largest decimals (4 more for /): a string's are not fixed
//     (31 on the wire). DIV is an integer, of its dividend's digits.
//  4. IF, IFNULL, COALESCE, CASE and UNION take their branches' common
//     type: a string where one is, else a DOUBLE, else a DECIMAL, else the
//     widest integer, a DECIMAL where signed and unsigned integers meet;
//     GREATEST and LEAST compare NULL as a string, so NULL or a string
//     among numbers makes them a DOUBLE.
//  5. A function of strings is nullable (strict sql_mode: a result past
//     max_allowed_packet is NULL), arithmetic and comparisons as their
//     operands are, /, DIV and MOD and aggregates but COUNT always.
//  6. Where MariaDB writes a result into a temporary table (a derived
//     table it does not merge, a set operation but a UNION ALL that
//     ORDER BY does not sort (a LIMIT alone does not make one), a
//     GROUP BY or DISTINCT over rows), the items but constant ones are
//     read from that table's columns: no BINARY_FLAG, a string's
//     decimals 0, an integer as long as its type's display width.
//  7. A string expression is a VARCHAR up to 65531 bytes, a BLOB from
//     65532, sent as a MEDIUMBLOB past 65535 and a LONGBLOB past
//     16 MiB - 1 (Type_handler::blob_type_handler); REPEAT is as long as
//     a count written as a literal makes it, or max_allowed_packet allows
//     where the count is read with the rows. A table's BLOB column (a
//     temporary table's too) and GROUP_CONCAT's are sent as BLOBs.

// Limits of MariaDB's numbers (decimal.h, my_decimal.h).
const (
	decimalMaxScale = 38
	decimalMaxPrec  = 65
	notFixedDec     = 31 // a DOUBLE's decimals when they are not fixed
	divPrecIncr     = 4  // @@div_precision_increment, MariaDB's default
	// groupConcatMaxLen is @@group_concat_max_len, MariaDB's default:
	// past 512 characters (CONVERT_IF_BIGGER_TO_BLOB) GROUP_CONCAT is a
	// BLOB.
	groupConcatMaxLen = 1 << 20
)

// What kind of value a type holds, as MariaDB's Item_result.
type valueKind int

const (
	kindNull valueKind = iota
	kindInt
	kindDecimal
	kindReal
	kindString
)

func (c colType) kind() valueKind {
	switch {
	case c.typ == querypb.Type_NULL_TYPE:
		return kindNull
	case sqltypes.IsIntegral(c.typ):
		return kindInt
	case c.typ == querypb.Type_DECIMAL:
		return kindDecimal
	case sqltypes.IsFloat(c.typ):
		return kindReal
	}
	return kindString
}

// unsignedType reports whether c is an unsigned number.
func (c colType) unsignedType() bool { return sqltypes.IsUnsigned(c.typ) }

// chars is c's length in characters (a text string's is 4 bytes each).
func (c colType) chars() int {
	if c.kind() == kindString && !c.binary {
		return int(c.length) / 4
	}
	return int(c.length)
}

// scale is MariaDB's decimal_scale(): the digits past the point.
func (c colType) scale() int {
	if c.kind() == kindInt || c.kind() == kindNull {
		return 0
	}
	if int(c.decimals) < notFixedDec {
		return int(c.decimals)
	}
	return min(c.chars(), decimalMaxScale)
}

// precision is MariaDB's decimal_precision(): the digits of a number.
func (c colType) precision() int {
	switch c.kind() {
	case kindInt:
		if c.prec > 0 {
			return int(c.prec)
		}
		p := int(c.length)
		if !c.unsignedType() {
			p--
		}
		return min(max(p, 1), decimalMaxPrec)
	case kindDecimal:
		return max(int(c.prec), 1)
	}
	return min(max(c.chars(), 1), decimalMaxPrec)
}

// intPart is MariaDB's decimal_int_part(): the digits before the point.
func (c colType) intPart() int {
	if c.kind() == kindString || c.kind() == kindNull {
		return c.precision() // decimals not specified
	}
	return max(c.precision()-c.scale(), 0)
}

// intType is an integer expression of length characters: LONG or
// LONGLONG (MariaDB's type_handler_long_or_longlong).
func intType(length int, unsigned, notNull bool) colType {
	t := colType{typ: querypb.Type_INT64, length: uint32(length), notNull: notNull}
	if length <= 9 {
		t.typ = querypb.Type_INT32
	}
	if unsigned {
		t.typ = map[querypb.Type]querypb.Type{querypb.Type_INT32: querypb.Type_UINT32, querypb.Type_INT64: querypb.Type_UINT64}[t.typ]
	}
	return t
}

// bitType is a bit operator's: a BIGINT UNSIGNED of 21 characters
// (Item_func_bit's).
func bitType(notNull bool) colType { return intType(21, true, notNull) }

// intOfPrecision is an integer expression of prec digits.
func intOfPrecision(prec int, unsigned, notNull bool) colType {
	prec = min(max(prec, 1), decimalMaxPrec)
	length := prec
	if !unsigned {
		length++
	}
	t := intType(length, unsigned, notNull)
	t.prec = uint8(prec)
	return t
}

// decimalType is a DECIMAL expression of prec digits, scale past the
// point.
func decimalType(prec, scale int, unsigned, notNull bool) colType {
	scale = min(max(scale, 0), decimalMaxScale)
	prec = min(max(prec, scale, 1), decimalMaxPrec)
	length := prec
	if scale > 0 {
		length++
	}
	if !unsigned {
		length++
	}
	return colType{typ: querypb.Type_DECIMAL, length: uint32(length), decimals: uint8(scale), prec: uint8(prec), notNull: notNull}
}

// doubleType is a DOUBLE expression with decimals digits past the point
// (notFixedDec for not fixed).
func doubleType(decimals int, notNull bool) colType {
	return colType{typ: querypb.Type_FLOAT64, length: 22, decimals: uint8(min(decimals, notFixedDec)), notNull: notNull}
}

// nullString is the type MariaDB gives a NULL it cannot type otherwise
// (a table's column of NULLs, IF's of NULLs): CHAR(0) BINARY.
var nullString = colType{typ: querypb.Type_BINARY, binary: true, known: true, null: true}

// stringType is a string expression of chars characters, binary or in
// the connection's character set, its decimals MariaDB's for a string
// function's (decString): a VARCHAR, or from 65532 bytes a BLOB (TEXT),
// sent as a MEDIUMBLOB or LONGBLOB past 65535 bytes or 16 MiB - 1
// (colType.sized).
func stringType(chars int, binary, notNull bool) colType {
	n := min(chars, 1<<32-1)
	if !binary {
		n *= 4
	}
	t := colType{typ: querypb.Type_VARCHAR, length: uint32(min(n, 1<<32-1)), decimals: decString, notNull: notNull, binary: binary}
	if n >= varcharMaxBytes {
		t.typ, t.sized = querypb.Type_TEXT, true
	}
	return t
}

// varcharMaxBytes is the length in bytes from which MariaDB 10.11 types a
// string expression as a BLOB, not a VARCHAR (REPEAT(x'61', 65531) is a
// VARCHAR, REPEAT(x'61', 65532) and REPEAT('a', 16383) BLOBs).
const varcharMaxBytes = 65532

// typeScope is what a select list's expressions are typed over: the
// relations of its FROM clause, and the result columns' types of the
// subqueries with a FROM clause the builder has built and typed over
// their own FROM clause's sources (builder.subqueryTypes), which a
// subquery's type here cannot read. The zero typeScope types an
// expression that reads no relation. Not safe for concurrent use with
// the builder that owns its subqueries.
type typeScope struct {
	sources []source
	// outer are the sources of the queries around, the nearest first:
	// a column no source has is theirs (a correlated subquery's).
	outer      [][]source
	subqueries map[*ast.SelectStmt][]colType
	// floats are the statement's DOUBLE literals as it writes them
	// (builder.floatForms), whose lengths MariaDB types DIV by.
	floats map[float64]string
	// signedSub: sql_mode's NO_UNSIGNED_SUBTRACTION (arithmeticType).
	signedSub bool
	// lenient: sql_mode is not strict, where MariaDB types a string
	// function of NOT NULL arguments NOT NULL (a strict mode makes one
	// past max_allowed_packet NULL, and so nullable; not strict, MariaDB
	// cuts it, in its types' reading, but returns NULL as in strict).
	lenient bool
}

// of is x's type; false where it is not told here.
func (e typeScope) of(x ast.ExprNode) (colType, bool) {
	switch x := x.(type) {
	case *ast.BinaryOperationExpr:
		return e.binary(x)
	case *ast.UnaryOperationExpr:
		return e.unary(x)
	case *ast.FuncCastExpr:
		return e.cast(x)
	case *ast.FuncCallExpr:
		t, ok := e.call(x)
		if name := x.FnName.L; ok && e.lenient && (stringResultFuncs[name] || name == "concat" || name == "concat_ws") {
			t.notNull = e.notNull(x.Args...)
		}
		return t, ok
	case *ast.CaseExpr:
		return e.caseExpr(x)
	case *ast.AggregateFuncExpr:
		return e.aggregate(x)
	case *ast.PatternInExpr:
		if x.Sel != nil { // NULL where the subquery may find NULL or no row
			sub, ok := x.Sel.(*ast.SubqueryExpr)
			if !ok {
				return colType{}, false
			}
			ts, ok := e.queryTypes(sub.Query)
			return truthOf(ok && len(ts) == 1 && ts[0].notNull && e.notNull(x.Expr)), true
		}
		return truthOf(e.notNull(append([]ast.ExprNode{x.Expr}, x.List...)...)), true
	case *ast.CompareSubqueryExpr:
		sub, ok := x.R.(*ast.SubqueryExpr)
		if !ok {
			return colType{}, false
		}
		ts, ok := e.queryTypes(sub.Query)
		if x.Op == opcode.EQ && !x.All { // as IN (subquery)
			return truthOf(ok && len(ts) == 1 && ts[0].notNull && e.notNull(x.L)), true
		}
		// MariaDB's ALL, and ANY of another operator, is NULL only where
		// its operand may be, or where it compares with the one item of a
		// SELECT without FROM, which it reads as that item (1 > ALL
		// (SELECT NULL)); over a table or a UNION it is NOT NULL, though
		// it is NULL where a row is (2 > ALL (SELECT 1 UNION SELECT NULL)).
		sel, single := sub.Query.(*ast.SelectStmt)
		item := single && sel.From == nil && !(ok && len(ts) == 1 && ts[0].notNull)
		return truthOf(e.notNull(x.L) && !item), true
	case *ast.BetweenExpr:
		return truthOf(e.notNull(x.Expr, x.Left, x.Right)), true
	case *ast.ExistsSubqueryExpr:
		return truthOf(true), true
	case *ast.SubqueryExpr:
		ts, ok := e.queryTypes(x.Query)
		if !ok || len(ts) != 1 || !ts[0].known {
			// Not told: a column of a query around it (SELECT (SELECT
			// a.x FROM t b) FROM u a) is typed by its executor, not as
			// NULL's type, which would send NULL.
			return colType{}, false
		}
		t := ts[0]
		t.stored = false
		if t.kind() == kindString && !t.binary && t.typ == querypb.Type_VARCHAR {
			t.decimals = decString
		}
		return t, true
	}
	return colType{}, false
}

// notNull reports whether none of xs may be NULL, as MariaDB tells
// (where a type is not told here, it may be).
func (e typeScope) notNull(xs ...ast.ExprNode) bool {
	for _, x := range xs {
		t, ok := exprTypeOf(x, e)
		if !ok || !t.notNull {
			return false
		}
	}
	return true
}

// types are the types of xs; false where one is not told.
func (e typeScope) types(xs []ast.ExprNode) ([]colType, bool) {
	out := make([]colType, len(xs))
	for i, x := range xs {
		t, ok := exprTypeOf(x, e)
		if !ok {
			return nil, false
		}
		out[i] = t
	}
	return out, true
}

// truthOf is a comparison's or logical operator's type: MariaDB's LONG(1).
func truthOf(notNull bool) colType {
	return colType{typ: querypb.Type_INT32, length: 1, prec: 1, notNull: notNull}
}

func (e typeScope) binary(x *ast.BinaryOperationExpr) (colType, bool) {
	switch x.Op {
	case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE, opcode.LogicAnd, opcode.LogicOr, opcode.LogicXor:
		return truthOf(e.notNull(x.L, x.R)), true
	case opcode.NullEQ:
		return truthOf(true), true
	case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Div, opcode.IntDiv, opcode.Mod:
	case opcode.And, opcode.Or, opcode.Xor, opcode.LeftShift, opcode.RightShift:
		return bitType(e.notNull(x.L, x.R)), true
	default:
		return colType{}, false
	}
	l, lok := exprTypeOf(x.L, e)
	r, rok := exprTypeOf(x.R, e)
	if !lok || !rok {
		return colType{}, false
	}
	if x.Op == opcode.IntDiv && l.kind() == kindReal {
		// As long as a DOUBLE dividend's characters, its fraction's
		// too: a DOUBLE's 22 (LONGLONG), a DOUBLE literal's as written.
		t := intType(min(e.doubleChars(x.L, l), 20), l.unsignedType() || r.unsignedType(), false)
		t.prec = uint8(t.length)
		return t, true
	}
	return arithmeticType(x.Op, l, r, e.signedSub), true
}

// doubleChars is the length MariaDB gives x, a DOUBLE of type t: a
// literal's that of its text (1e10's 4), a negation's one more than its
// operand's, another's t's.
func (e typeScope) doubleChars(x ast.ExprNode, t colType) int {
	for {
		p, ok := x.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		x = p.Expr
	}
	if u, ok := x.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Minus {
		// A sign more than its operand's: -'5.5' is 4 (LONG).
		if it, ok := exprTypeOf(u.V, e); ok && it.kind() == kindReal {
			return 1 + e.doubleChars(u.V, it)
		} else if ok && it.kind() == kindString {
			return 1 + it.chars()
		}
	}
	if v, ok := x.(*driver.ValueExpr); ok && v.Kind() == driver.KindFloat64 && v.Type.GetFlag()&boundFlag == 0 {
		if text := e.floats[v.GetFloat64()]; text != "" {
			return len(text)
		}
		return len(strconv.FormatFloat(v.GetFloat64(), 'g', -1, 64))
	}
	return int(t.length)
}

// arithmeticType is the type of l op r (rules 1 to 3); signedSub, an
// integer subtraction is signed (NO_UNSIGNED_SUBTRACTION).
func arithmeticType(op opcode.Op, l, r colType, signedSub bool) colType {
	notNull := l.notNull && r.notNull && op != opcode.Div && op != opcode.IntDiv && op != opcode.Mod
	if op == opcode.IntDiv { // as long as the dividend's integer digits: MariaDB counts no sign here
		t := intType(min(max(l.intPart(), 1), 20), l.unsignedType() || r.unsignedType(), false)
		t.prec = uint8(t.length)
		return t
	}
	lk, rk := l.kind(), r.kind()
	switch {
	case lk == kindString || rk == kindString || lk == kindNull || rk == kindNull || lk == kindReal || rk == kindReal:
		dec := max(realDecimals(l), realDecimals(r))
		if op == opcode.Div {
			dec += divPrecIncr
		}
		return doubleType(dec, notNull)
	case lk == kindDecimal || rk == kindDecimal || op == opcode.Div:
		unsigned := l.unsignedType() && r.unsignedType()
		switch op {
		case opcode.Plus, opcode.Minus:
			s := max(l.scale(), r.scale())
			return decimalType(max(l.intPart(), r.intPart())+1+s, s, unsigned, notNull)
		case opcode.Mul:
			return decimalType(l.precision()+r.precision(), l.scale()+r.scale(), unsigned, notNull)
		case opcode.Mod:
			s := max(l.scale(), r.scale())
			return decimalType(max(l.intPart(), r.intPart())+s, s, unsigned, notNull)
		}
		return decimalType(l.precision()+r.scale()+divPrecIncr, l.scale()+divPrecIncr, unsigned, notNull)
	}
	unsigned := (l.unsignedType() || r.unsignedType()) && !(op == opcode.Minus && signedSub)
	switch op {
	case opcode.Mul:
		return intOfPrecision(l.precision()+r.precision(), unsigned, notNull)
	case opcode.Mod:
		return intType(max(int(l.length), int(r.length)), l.unsignedType(), notNull)
	}
	return intOfPrecision(max(l.intPart(), r.intPart())+1, unsigned, notNull)
}

func (e typeScope) unary(x *ast.UnaryOperationExpr) (colType, bool) {
	if x.Op == opcode.Not || x.Op == opcode.Not2 {
		return truthOf(e.notNull(x.V)), true
	}
	if x.Op == opcode.BitNeg {
		return bitType(e.notNull(x.V)), true
	}
	if x.Op != opcode.Minus && x.Op != opcode.Plus {
		return colType{}, false
	}
	t, ok := exprTypeOf(x.V, e)
	if !ok || x.Op == opcode.Plus {
		return t, ok
	}
	switch t.kind() {
	case kindInt:
		out := intType(int(t.length)+1, false, t.notNull)
		out.prec = uint8(t.precision())
		return out, true
	case kindDecimal: // one character longer for the sign (Item_func_neg)
		out := decimalType(t.precision(), t.scale(), false, t.notNull)
		out.length = t.length + 1
		return out, true
	}
	return doubleType(realDecimals(t), t.notNull), true // a string's and NULL's too
}

// cast is CAST(x AS type) and CONVERT(x, type): the type named, SIGNED
// and UNSIGNED of the length x's value may take.
func (e typeScope) cast(x *ast.FuncCastExpr) (colType, bool) {
	if x.FunctionType == ast.CastBinaryOperator { // BINARY 'a': its bytes, nullable as MariaDB types it
		arg, ok := exprTypeOf(x.Expr, e)
		if !ok || arg.kind() != kindString && arg.kind() != kindNull {
			return colType{}, false
		}
		t := stringType(arg.chars(), true, false)
		t.decimals = 0
		return t, true
	}
	arg, ok := exprTypeOf(x.Expr, e)
	if !ok {
		return colType{}, false
	}
	tp := x.Tp
	switch tp.GetType() {
	case mysql.TypeLonglong:
		unsigned := mysql.HasUnsignedFlag(tp.GetFlag())
		var chars int
		switch arg.kind() {
		case kindString, kindNull:
			chars = min(arg.intPart(), 20)
		case kindReal:
			chars = 20
		default:
			chars = min(arg.chars(), 20)
		}
		if sign, lit := numberLiteral(x.Expr); unsigned && !arg.unsignedType() && chars > 1 && !(lit && sign >= 0 && arg.kind() == kindInt) {
			// A value that may be negative may be its complement: a
			// signed one but of one character or an integer written
			// as one not below 0.
			chars = 20
		}
		if !unsigned {
			chars = max(chars, 2)
		}
		t := intType(chars, unsigned, arg.notNull)
		if unsigned && chars <= 10 {
			t.typ = querypb.Type_UINT32
		}
		return t, true
	case mysql.TypeNewDecimal:
		p, s := tp.GetFlen(), max(tp.GetDecimal(), 0)
		if p <= 0 {
			p = 10
		}
		return decimalType(p, s, false, arg.notNull), true
	case mysql.TypeDouble:
		return doubleType(notFixedDec, false), true
	case mysql.TypeFloat:
		t := doubleType(notFixedDec, false)
		t.typ, t.length = querypb.Type_FLOAT32, 12
		return t, true
	case mysql.TypeVarString, mysql.TypeString:
		n := tp.GetFlen()
		if n < 0 {
			n = arg.chars()
		}
		t := stringType(n, false, e.lenient && arg.notNull)
		t.decimals = 0
		return t, true
	}
	return colType{}, false
}

// stringResultFuncs are MariaDB's string functions (Item_str_func) whose
// result is as long as their first argument, or their arguments
// together (concat).
var stringResultFuncs = map[string]bool{"lower": true, "upper": true, "lcase": true, "ucase": true, "trim": true, "ltrim": true,
	"rtrim": true, "reverse": true, "substring": true, "substr": true, "mid": true, "left": true, "right": true, "replace": true,
	"lpad": true, "rpad": true, "repeat": true, "hex": true, "substring_index": true}

// moreStringArgs are the arguments past the first of stringResultFuncs
// that are strings, whose character sets MariaDB aggregates with the
// first's: NULL is binary, but yields to any other.
var moreStringArgs = map[string][]int{"replace": {1, 2}, "lpad": {2}, "rpad": {2}, "trim": {1}, "substring_index": {1}}

// allNull reports whether xs[0] and the xs at more are NULL written as
// one.
func (e typeScope) allNull(xs []ast.ExprNode, more []int) bool {
	if !nullLiteral(xs[0]) {
		return false
	}
	for _, i := range more {
		if i < len(xs) && !nullLiteral(xs[i]) {
			return false
		}
	}
	return true
}

// binaryAmong reports whether one of the xs at more is a binary string
// other than NULL, which makes the result binary as MariaDB aggregates
// the arguments' character sets (RPAD('a', 3, b'1000010')).
func (e typeScope) binaryAmong(xs []ast.ExprNode, more []int) bool {
	for _, i := range more {
		if i < len(xs) && !nullLiteral(xs[i]) {
			if t, ok := exprTypeOf(xs[i], e); ok && t.binary && t.kind() == kindString {
				return true
			}
		}
	}
	return false
}

// lengthFuncs are MariaDB's functions of strings whose result is a LONG
// (Item_long_func), nullable as their arguments.
var lengthFuncs = map[string]bool{"length": true, "octet_length": true, "char_length": true, "character_length": true,
	"locate": true, "position": true, "instr": true, "ascii": true, "ord": true, "find_in_set": true, "strcmp": true}

func (e typeScope) call(x *ast.FuncCallExpr) (colType, bool) {
	name := x.FnName.L
	switch name {
	case "connection_id":
		return colType{typ: querypb.Type_UINT32, length: 10, notNull: true}, true
	case "last_insert_id":
		return colType{typ: querypb.Type_UINT64, length: 21, notNull: true}, true
	case "if":
		if len(x.Args) != 3 {
			return colType{}, false
		}
		t, ok := e.chosen(x.Args[1:], e.notNull(x.Args...))
		if ok && t.kind() == kindNull { // IF of NULL and NULL: MariaDB's CHAR(0) BINARY
			t = nullString
		}
		return t, ok
	case "ifnull", "coalesce":
		ts, ok := e.types(x.Args)
		if !ok || len(ts) == 0 {
			return colType{}, false
		}
		t, ok := aggregateResult(ts)
		if t.kind() == kindInt && t.unsignedType() && slices.ContainsFunc(ts, func(a colType) bool { return a.kind() == kindNull }) {
			// NULL aggregated as a signed integer with an unsigned one: a
			// DECIMAL (Item_func_coalesce; IF and CASE take the other's).
			t = decimalType(aggregateDecimal(ts, false).precision(), 0, false, false)
		}
		t.notNull = false
		for i, a := range ts {
			// A parameter bound to a value is NOT NULL here, as
			// MariaDB reads it (nullable within IF, CASE, NULLIF).
			t.notNull = t.notNull || a.notNull || boundNotNull(x.Args[i])
		}
		return t, ok
	case "nullif":
		if len(x.Args) != 2 {
			return colType{}, false
		}
		t, ok := exprTypeOf(x.Args[0], e)
		t.notNull, t.stored = false, false
		return t, ok
	case "greatest", "least":
		ts, ok := e.types(x.Args)
		if !ok || len(ts) == 0 {
			return colType{}, false
		}
		t := aggregateMinMax(ts)
		t.notNull = e.notNull(x.Args...)
		return t, true
	case "concat":
		ts, ok := e.types(x.Args)
		if !ok {
			return colType{}, false
		}
		// The arguments' character set: binary where one is, or where
		// all are NULL (binary, but yielding to any other).
		chars, binary, nulls := 0, false, 0
		for _, t := range ts {
			chars += t.chars()
			binary = binary || t.binary
			if t.kind() == kindNull {
				nulls++
			}
		}
		return stringType(chars, binary || nulls == len(ts), false), true
	case "concat_ws":
		ts, ok := e.types(x.Args)
		if !ok || len(ts) < 2 {
			return colType{}, false
		}
		chars, binary := ts[0].chars()*(len(ts)-2), false
		for _, t := range ts {
			binary = binary || t.binary
		}
		for _, t := range ts[1:] {
			chars += t.chars()
		}
		return stringType(chars, binary, false), true
	case "field":
		return colType{typ: querypb.Type_INT32, length: 3, notNull: true}, true
	case "elt":
		ts, ok := e.types(x.Args)
		if !ok || len(ts) < 2 {
			return colType{}, false
		}
		t, _ := aggregateResult(ts[1:]) // of NULLs alone: binary (concat)
		out := stringType(t.chars(), t.binary || t.kind() == kindNull, false)
		out.decimals = 0 // the strings' largest (Item_func_elt)
		for _, a := range ts[1:] {
			out.decimals = max(out.decimals, a.decimals)
		}
		if out.decimals >= notFixedDec {
			out.decimals = decString
		}
		return out, true
	case "convert": // CONVERT(x USING charset)
		if len(x.Args) == 2 {
			t, ok := exprTypeOf(x.Args[0], e)
			return stringType(t.chars(), false, false), ok
		}
		return colType{}, false
	case "round", "truncate":
		return e.round(x)
	case "floor", "ceil", "ceiling":
		return e.integral(x)
	case "abs":
		if len(x.Args) == 1 {
			t, ok := exprTypeOf(x.Args[0], e)
			switch t.kind() {
			case kindString: // read as a DOUBLE (a hexadecimal literal's UNSIGNED kept)
				out := doubleType(notFixedDec, e.notNull(x.Args...))
				if t.unsigned {
					out.unsigned, out.decimals = true, 0
				}
				return out, ok
			case kindNull:
				return doubleType(0, false), ok
			}
			t.stored = false
			return t, ok
		}
	}
	switch {
	case stringResultFuncs[name] && len(x.Args) > 0:
		t, ok := exprTypeOf(x.Args[0], e)
		binary := name != "hex" && (t.binary || e.allNull(x.Args, moreStringArgs[name]) || e.binaryAmong(x.Args, moreStringArgs[name]))
		if (name == "lpad" || name == "rpad") && len(x.Args) >= 2 {
			// As long as the count, whatever the string's length
			// (Item_func_pad), negative as none, past 2^31 - 1 as that.
			if countWithRows(x.Args[1]) {
				return stringType(maxAllowedPacket, binary, false), ok
			}
			if n, known := constantCount(x.Args[1]); known {
				return stringType(int(min(max(n, 0), 1<<31-1)), binary, false), ok
			}
		}
		if name == "repeat" && len(x.Args) == 2 {
			if countWithRows(x.Args[1]) {
				// A count MariaDB cannot read before the rows: as long
				// as max_allowed_packet allows, a LONGBLOB (LONGTEXT).
				return stringType(maxAllowedPacket, binary, false), ok
			}
			if n, known := constantCount(x.Args[1]); known { // as long as count times the string
				return stringType(t.chars()*int(min(max(n, 0), 1<<32)), binary, false), ok
			}
		}
		out := stringType(t.chars(), binary, false)
		if name == "hex" { // MariaDB's HEX() fixes its decimals, at 0
			out.decimals = 0
		}
		return out, ok
	case lengthFuncs[name]:
		return colType{typ: querypb.Type_INT32, length: 10, notNull: e.notNull(x.Args...)}, true
	case name == "space" && len(x.Args) == 1: // as long as its count, as REPEAT's
		if countWithRows(x.Args[0]) {
			return stringType(maxAllowedPacket, false, false), true
		}
		if n, known := constantCount(x.Args[0]); known {
			return stringType(int(min(max(n, 0), 1<<32)), false, false), true
		}
		if nullLiteral(x.Args[0]) {
			return stringType(0, false, false), true
		}
	case name == "bit_length": // a BIGINT (Item_longlong_func)
		return colType{typ: querypb.Type_INT64, length: 11, notNull: e.notNull(x.Args...)}, true
	}
	return colType{}, false
}

// countWithRows reports whether x, REPEAT's count, is one MariaDB
// cannot read as it types the result, before the rows: one of a row's
// columns, or of a subquery that is not constant (constantSubquery: one
// that reads a table).
func countWithRows(x ast.ExprNode) bool {
	if !constantItem(x) {
		return true
	}
	v := exprFinder{found: func(n ast.Node) bool {
		sub, ok := n.(*ast.SubqueryExpr)
		return ok && !constantSubquery(sub)
	}}
	x.Accept(&v)
	return v.hit
}

// constantCount is the value MariaDB reads for x, REPEAT's constant
// count, as it types the result: a literal's (countLiteral), that of +, -
// and * of integers written as such (10000 * 2), or of a subquery of
// one such item and no WHERE ((SELECT 20000)); false where it is not
// told here.
func constantCount(x ast.ExprNode) (int64, bool) {
	if n, ok := countLiteral(x); ok {
		return n, true
	}
	switch x := x.(type) {
	case *ast.ParenthesesExpr:
		return constantCount(x.Expr)
	case *ast.BinaryOperationExpr:
		return integerArithmetic(x)
	case *ast.SubqueryExpr:
		item, ok := subqueryItem(x)
		if !ok || !constantSubquery(x) || x.Query.(*ast.SelectStmt).Where != nil {
			return 0, false
		}
		return constantCount(item)
	}
	return 0, false
}

// integerArithmetic is the value of x where it is +, - or * of integers
// written as such, kept within 2^40 either side (a count past that
// makes a string past any type's length anyway).
func integerArithmetic(x ast.ExprNode) (int64, bool) {
	const bound = 1 << 40
	switch x := x.(type) {
	case *ast.ParenthesesExpr:
		return integerArithmetic(x.Expr)
	case *ast.UnaryOperationExpr:
		n, ok := integerArithmetic(x.V)
		return -n, ok && x.Op == opcode.Minus
	case *driver.ValueExpr:
		if _, number := numberLiteral(x); !number || x.Kind() != driver.KindInt64 {
			return 0, false
		}
		return min(max(x.GetInt64(), -bound), bound), true
	case *ast.BinaryOperationExpr:
		l, lok := integerArithmetic(x.L)
		r, rok := integerArithmetic(x.R)
		if !lok || !rok {
			return 0, false
		}
		var n int64
		switch x.Op {
		case opcode.Plus:
			n = l + r
		case opcode.Minus:
			n = l - r
		case opcode.Mul:
			n = l * r
		default:
			return 0, false
		}
		return min(max(n, -bound), bound), true
	}
	return 0, false
}

// countLiteral is x's value as MariaDB reads a count (val_int) where x
// is a literal (in parentheses, signed): an integer's, a decimal's
// rounded half away from zero, a string's leading integer (0 for none).
func countLiteral(x ast.ExprNode) (int64, bool) {
	for p, ok := x.(*ast.ParenthesesExpr); ok; p, ok = x.(*ast.ParenthesesExpr) {
		x = p.Expr
	}
	neg := false
	if u, ok := x.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Minus {
		x, neg = u.V, true
	}
	v, ok := x.(*driver.ValueExpr)
	if !ok {
		return 0, false
	}
	var n int64
	switch v.Kind() {
	case driver.KindInt64:
		if _, number := numberLiteral(v); !number { // TRUE and FALSE
			return 0, false
		}
		n = v.GetInt64()
	case driver.KindUint64:
		n = int64(min(v.GetUint64(), 1<<62))
	case driver.KindMysqlDecimal:
		whole, frac, _ := strings.Cut(strings.TrimPrefix(v.GetMysqlDecimal().String(), "-"), ".")
		n = leadingInt(whole)
		if frac != "" && frac[0] >= '5' {
			n++
		}
		if strings.HasPrefix(v.GetMysqlDecimal().String(), "-") {
			n = -n
		}
	case driver.KindString:
		t := strings.TrimLeft(v.GetString(), " \t\n")
		sign := int64(1)
		if t != "" && (t[0] == '-' || t[0] == '+') {
			if t[0] == '-' {
				sign = -1
			}
			t = t[1:]
		}
		n = sign * leadingInt(t)
	default:
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// leadingInt is the integer s's leading digits write, up to 2^62.
func leadingInt(s string) int64 {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = min(n*10+int64(c-'0'), 1<<62)
	}
	return n
}

// round is ROUND(x[, d]) and TRUNCATE(x, d) with d written as an
// integer: a DECIMAL's d digits past the point, a DOUBLE's, an
// integer's type where d is not positive.
func (e typeScope) round(x *ast.FuncCallExpr) (colType, bool) {
	if len(x.Args) == 0 || len(x.Args) > 2 {
		return colType{}, false
	}
	t, ok := exprTypeOf(x.Args[0], e)
	if !ok {
		return colType{}, false
	}
	d := 0
	if len(x.Args) == 2 && nullLiteral(x.Args[1]) { // NULL digits: an integer's type, else a DOUBLE's
		if t.kind() == kindInt {
			t.notNull, t.stored = false, false
			return t, true
		}
		return doubleType(notFixedDec, false), true
	}
	if len(x.Args) == 2 {
		n, known := constantCount(x.Args[1]) // read as MariaDB reads it as it types the result
		if !known && countWithRows(x.Args[1]) {
			// Digits read with the rows: a number's own decimals, an
			// integer's as a DECIMAL's, a DOUBLE's not fixed.
			notNull := e.notNull(x.Args...)
			switch t.kind() {
			case kindDecimal, kindInt:
				return decimalType(t.precision()+1, t.scale(), false, notNull), true
			case kindNull:
				return doubleType(0, false), true
			}
			if hex := t.kind() == kindString && t.unsigned; hex { // a hexadecimal literal's decimals, 0
				out := doubleType(0, notNull)
				out.unsigned = true
				return out, true
			}
			return doubleType(notFixedDec, notNull), true
		}
		if !known {
			return colType{}, false
		}
		d = int(max(min(n, 100), -100))
	}
	notNull := e.notNull(x.Args...)
	switch t.kind() {
	case kindDecimal:
		d = min(max(d, 0), decimalMaxScale)
		return decimalType(t.precision()-t.scale()+d+1, d, t.unsignedType(), notNull), true
	case kindInt:
		if d >= 0 {
			out := t
			out.notNull, out.stored = notNull, false
			return out, true
		}
		// A digit more (95 to 100), a DECIMAL past 18.
		return integralType(t.precision()+1, t.unsignedType(), notNull), true
	}
	out := doubleType(min(max(d, 0), notFixedDec), notNull)
	out.unsigned = t.kind() == kindString && t.unsigned // of a hexadecimal literal: UNSIGNED, as MariaDB's
	return out, true
}

// integral is FLOOR's and CEIL's type (Item_func_int_val): an integer's
// own; a decimal's integer digits, one more where a fraction may carry
// into them (CEIL, FLOOR of a signed one), as integralType; else a
// DOUBLE of no decimals.
func (e typeScope) integral(x *ast.FuncCallExpr) (colType, bool) {
	if len(x.Args) != 1 {
		return colType{}, false
	}
	t, ok := exprTypeOf(x.Args[0], e)
	if !ok {
		return colType{}, false
	}
	notNull := e.notNull(x.Args...)
	switch t.kind() {
	case kindInt:
		out := t
		out.notNull, out.stored = notNull, false
		return out, true
	case kindDecimal:
		p := t.intPart()
		if t.scale() > 0 && (x.FnName.L != "floor" || !t.unsignedType()) {
			p++
		}
		return integralType(max(p, 1), t.unsignedType(), notNull), true
	}
	return doubleType(0, notNull), true
}

// integralType is an integer of prec digits as FLOOR, CEIL and ROUND type
// it: a LONG to 9 digits, a LONGLONG to 18, a DECIMAL past them.
func integralType(prec int, unsigned, notNull bool) colType {
	if prec > 18 {
		t := decimalType(prec, 0, unsigned, notNull)
		t.unsigned = unsigned // of an unsigned integer: UNSIGNED
		return t
	}
	sign := 1
	if unsigned {
		sign = 0
	}
	t := intType(prec+sign, unsigned, notNull)
	if prec <= 9 {
		t.typ = querypb.Type_INT32
		if unsigned {
			t.typ = querypb.Type_UINT32
		}
	}
	return t
}

// chosen is the type IF and CASE give the values xs they choose among.
func (e typeScope) chosen(xs []ast.ExprNode, notNull bool) (colType, bool) {
	ts, ok := e.types(xs)
	if !ok {
		return colType{}, false
	}
	t, ok := aggregateResult(ts)
	t.notNull = notNull
	return t, ok
}

func (e typeScope) caseExpr(x *ast.CaseExpr) (colType, bool) {
	var values, all []ast.ExprNode
	if x.Value != nil {
		all = append(all, x.Value)
	}
	for _, w := range x.WhenClauses {
		values, all = append(values, w.Result), append(all, w.Expr, w.Result)
	}
	if x.ElseClause != nil {
		values, all = append(values, x.ElseClause), append(all, x.ElseClause)
	}
	return e.chosen(values, x.ElseClause != nil && e.notNull(all...))
}

// aggregateResult is the common type of ts (rule 4), as MariaDB's
// Type_handler_hybrid_field_type::aggregate_for_result and the
// attributes' aggregation give it; nullable where one is.
func aggregateResult(ts []colType) (colType, bool) {
	var kinds [kindString + 1]bool
	notNull, binary, others := true, false, false
	for _, t := range ts {
		kinds[t.kind()] = true
		notNull = notNull && t.notNull
		binary = binary || t.binary && t.kind() == kindString && !t.null
		others = others || t.kind() != kindNull && !t.null
	}
	binary = binary || !others // NULLs alone: the CHAR(0) BINARY of one
	switch {
	case kinds[kindString]:
		chars, fixed := 0, true
		for _, t := range ts {
			chars = max(chars, t.chars())
			fixed = fixed && (t.kind() != kindString || t.typ == querypb.Type_CHAR || t.null)
		}
		out := stringType(chars, binary, notNull)
		if fixed && out.typ == querypb.Type_VARCHAR {
			// CHARs (a parameter bound to a string) with values of
			// other kinds: a CHAR, as MariaDB's string handler
			// aggregates them; a VARCHAR among them makes a VARCHAR.
			out.typ = querypb.Type_CHAR
		}
		return out, true
	case kinds[kindReal]:
		dec, float := 0, true
		for _, t := range ts {
			dec = max(dec, int(t.decimals))
			float = float && (t.typ == querypb.Type_FLOAT32 || t.kind() == kindNull)
		}
		out := doubleType(dec, notNull)
		if float {
			out.typ = querypb.Type_FLOAT32
		}
		return out, true
	case kinds[kindDecimal]:
		return aggregateDecimal(ts, notNull), true
	case kinds[kindInt]:
		var out colType
		signed, unsigned := false, false
		for _, t := range ts {
			if t.kind() != kindInt {
				continue
			}
			signed, unsigned = signed || !t.unsignedType(), unsigned || t.unsignedType()
			if intRank(t.typ) > intRank(out.typ) {
				out.typ = t.typ
			}
			out.length = max(out.length, t.length)
		}
		if signed && unsigned { // a mixture of signed and unsigned: a DECIMAL
			return aggregateDecimal(ts, notNull), true
		}
		if unsigned {
			out.typ = unsignedOf[out.typ]
		} else {
			out.typ = signedOf[out.typ]
		}
		out.notNull = notNull
		return out, true
	}
	return colType{typ: querypb.Type_NULL_TYPE}, true
}

// aggregateDecimal is the DECIMAL that holds each of ts.
func aggregateDecimal(ts []colType, notNull bool) colType {
	intPart, scale, unsigned := 0, 0, true
	for _, t := range ts {
		if t.kind() == kindNull {
			continue
		}
		intPart, scale = max(intPart, t.intPart()), max(scale, t.scale())
		unsigned = unsigned && t.unsignedType()
	}
	return decimalType(intPart+scale, scale, unsigned, notNull)
}

// aggregateMinMax is the type GREATEST and LEAST compare and return ts
// in (Type_handler_hybrid_field_type::aggregate_for_min_max): NULL is
// compared as a string.
func aggregateMinMax(ts []colType) colType {
	var kinds [kindString + 1]bool
	for _, t := range ts {
		k := t.kind()
		if k == kindNull {
			k = kindString
		}
		kinds[k] = true
	}
	numbers := kinds[kindInt] || kinds[kindDecimal] || kinds[kindReal]
	switch {
	case kinds[kindString] && !numbers:
		t, _ := aggregateResult(ts)
		return t
	case kinds[kindString] || kinds[kindReal]:
		dec := 0
		for _, t := range ts {
			dec = max(dec, realDecimals(t))
		}
		return doubleType(dec, false)
	}
	t, _ := aggregateResult(ts)
	return t
}

// realDecimals are t's decimals where it is read as a DOUBLE: a
// string's are not fixed, a table's string column's too (its own are 0),
// but a hexadecimal literal's, its own.
func realDecimals(t colType) int {
	if t.kind() == kindString && !hexType(t) {
		return notFixedDec
	}
	return int(t.decimals)
}

// intRank orders the integer types by width.
func intRank(t querypb.Type) int {
	switch t {
	case querypb.Type_INT8, querypb.Type_UINT8:
		return 1
	case querypb.Type_INT16, querypb.Type_UINT16:
		return 2
	case querypb.Type_INT24, querypb.Type_UINT24:
		return 3
	case querypb.Type_INT32, querypb.Type_UINT32:
		return 4
	case querypb.Type_INT64, querypb.Type_UINT64:
		return 5
	}
	return 0
}

var (
	unsignedOf = map[querypb.Type]querypb.Type{querypb.Type_INT8: querypb.Type_UINT8, querypb.Type_INT16: querypb.Type_UINT16,
		querypb.Type_INT24: querypb.Type_UINT24, querypb.Type_INT32: querypb.Type_UINT32, querypb.Type_INT64: querypb.Type_UINT64,
		querypb.Type_UINT8: querypb.Type_UINT8, querypb.Type_UINT16: querypb.Type_UINT16, querypb.Type_UINT24: querypb.Type_UINT24,
		querypb.Type_UINT32: querypb.Type_UINT32, querypb.Type_UINT64: querypb.Type_UINT64}
	signedOf = map[querypb.Type]querypb.Type{querypb.Type_UINT8: querypb.Type_INT8, querypb.Type_UINT16: querypb.Type_INT16,
		querypb.Type_UINT24: querypb.Type_INT24, querypb.Type_UINT32: querypb.Type_INT32, querypb.Type_UINT64: querypb.Type_INT64,
		querypb.Type_INT8: querypb.Type_INT8, querypb.Type_INT16: querypb.Type_INT16, querypb.Type_INT24: querypb.Type_INT24,
		querypb.Type_INT32: querypb.Type_INT32, querypb.Type_INT64: querypb.Type_INT64}
)

// aggregate is an aggregate's type: COUNT's BIGINT, MAX's and MIN's
// their argument's, SUM's and AVG's a DECIMAL of an exact number (AVG's
// with div_precision_increment more digits), a DOUBLE of another,
// GROUP_CONCAT's a string (a BLOB past 512 characters); all but COUNT
// nullable.
func (e typeScope) aggregate(x *ast.AggregateFuncExpr) (colType, bool) {
	name := strings.ToLower(x.F)
	if name == ast.AggFuncCount {
		return tCount, true
	}
	if name == ast.AggFuncGroupConcat {
		ts, ok := e.types(x.Args[:max(len(x.Args)-1, 0)])
		binary := false
		for _, t := range ts {
			binary = binary || t.binary
		}
		if groupConcatMaxLen > 512 {
			t := colType{typ: querypb.Type_TEXT, length: 1<<32 - 1, binary: binary}
			if binary {
				t.typ = querypb.Type_BLOB
			}
			return t, ok
		}
		return stringType(groupConcatMaxLen, binary, false), ok
	}
	if len(x.Args) != 1 {
		return colType{}, false
	}
	t, ok := exprTypeOf(x.Args[0], e)
	if !ok {
		return colType{}, false
	}
	stored := t.stored
	t.notNull, t.stored = false, false
	if t.kind() == kindString && !hexType(t) && (name == ast.AggFuncSum || name == ast.AggFuncAvg) {
		t.decimals = notFixedDec // a string read as a DOUBLE: a table's column too
	}
	switch name {
	case ast.AggFuncMax, ast.AggFuncMin:
		// Of a table's string column (a derived table's too), a string
		// expression's decimals, not the column's, and no UNSIGNED (a
		// hexadecimal literal's); of an expression, its own.
		if stored && t.kind() == kindString && t.typ == querypb.Type_VARCHAR {
			t.decimals, t.unsigned = decString, false
		}
		return t, true
	case ast.AggFuncSum:
		switch t.kind() {
		case kindInt, kindDecimal:
			return decimalType(t.precision()+22, t.scale(), false, false), true
		}
		return doubleType(int(t.decimals), false), true
	case ast.AggFuncAvg:
		switch t.kind() {
		case kindInt, kindDecimal:
			return decimalType(t.precision()+divPrecIncr, t.scale()+divPrecIncr, false, false), true
		}
		return doubleType(int(t.decimals)+divPrecIncr, false), true
	case ast.AggFuncBitAnd, ast.AggFuncBitOr, ast.AggFuncBitXor:
		return bitType(true), true
	case ast.AggFuncVarPop, ast.AggFuncVarSamp, ast.AggFuncStddevPop, ast.AggFuncStddevSamp:
		// A DOUBLE; of an exact number, at its decimals and 4 more
		// (Item_sum_variance's).
		switch {
		case t.kind() == kindInt, t.kind() == kindDecimal:
			return doubleType(min(t.scale()+divPrecIncr, notFixedDec-1), false), true
		case t.kind() == kindNull, t.null:
			return doubleType(divPrecIncr, false), true
		}
		return doubleType(realDecimals(t)+divPrecIncr, false), true
	}
	return colType{}, false
}

// typedQuery is the builder's types of q's columns, each nullable: the
// subquery may find no row.
func (e typeScope) typedQuery(q *ast.SelectStmt) ([]colType, bool) {
	ts, ok := e.subqueries[q]
	if !ok {
		return nil, false
	}
	ts = slices.Clone(ts)
	for i := range ts {
		ts[i].notNull = false
	}
	return ts, true
}

// queryTypes are the result columns' types of a subquery that reads no
// table (a SELECT without FROM, or a set operation of them), or of a
// SELECT with FROM the builder has typed (typedQuery); false where
// they are not told here.
func (e typeScope) queryTypes(q ast.Node) ([]colType, bool) {
	switch q := q.(type) {
	case *ast.SelectStmt:
		if q.From != nil {
			return e.typedQuery(q)
		}
		if q.Fields == nil {
			return nil, false
		}
		// A row but where WHERE, HAVING or LIMIT leave none: NULL then.
		rows := q.Where == nil && q.Having == nil && q.Limit == nil
		var out []colType
		for _, f := range q.Fields.Fields {
			if f.WildCard != nil {
				return nil, false
			}
			t, ok := exprType(f.Expr, typeScope{outer: append([][]source{e.sources}, e.outer...), subqueries: e.subqueries, signedSub: e.signedSub, lenient: e.lenient, floats: e.floats})
			if !ok {
				return nil, false
			}
			t.notNull = t.notNull && rows
			out = append(out, t)
		}
		return out, true
	case *ast.SetOprStmt:
		return e.queryTypes(q.SelectList)
	case *ast.SetOprSelectList:
		var branches [][]colType
		for _, s := range q.Selects {
			ts, ok := e.queryTypes(s)
			if !ok {
				return nil, false
			}
			branches = append(branches, ts)
		}
		ts := setTypes(branches)
		for i := range ts {
			ts[i].notNull = false // a set operation's subquery may find no row
		}
		return ts, ts != nil
	}
	return nil, false
}

// setTypes are the columns' types of a set operation of queries whose
// columns' types are branches: each column the common type of the
// branches' (MariaDB's Item_type_holder), nil where one is not told.
func setTypes(branches [][]colType) []colType {
	if len(branches) == 0 {
		return nil
	}
	n := len(branches[0])
	out := make([]colType, n)
	for i := range n {
		var ts []colType
		for _, b := range branches {
			if len(b) != n || !b[i].known {
				return nil
			}
			ts = append(ts, b[i])
		}
		t, _ := aggregateResult(ts)
		if t.kind() == kindInt && t.unsignedType() && slices.ContainsFunc(ts, func(a colType) bool { return a.kind() == kindNull }) {
			// NULL joined as a signed integer with an unsigned one: a
			// DECIMAL, as for COALESCE.
			t = decimalType(aggregateDecimal(ts, false).precision(), 0, false, t.notNull)
		}
		t.known = true
		out[i] = t
	}
	return out
}

// stored is t as the column of a table MariaDB writes a result into (a
// derived table's, a set operation's or a grouping's temporary table):
// a number without BINARY_FLAG, a string of no decimals.
func stored(t colType) colType {
	t.stored, t.sized = true, false // a table's BLOB is sent as a BLOB
	switch t.kind() {
	case kindNull: // a table has no column of type NULL: a CHAR(0) BINARY
		t = nullString
		t.stored = true
	case kindString:
		if !t.binary {
			t.decimals = 0
		}
	case kindInt: // a table's integer is as long as its type's display width
		t.prec = 0
		t.length = max(t.length, displayWidth[t.typ])
	}
	return t
}

// displayWidth is the length of MariaDB's integer columns of a type.
var displayWidth = map[querypb.Type]uint32{querypb.Type_INT8: 4, querypb.Type_UINT8: 3, querypb.Type_INT16: 6,
	querypb.Type_UINT16: 5, querypb.Type_INT24: 9, querypb.Type_UINT24: 8, querypb.Type_INT32: 11, querypb.Type_UINT32: 10,
	querypb.Type_INT64: 20, querypb.Type_UINT64: 20}

// groupedTypes are the types of the select list of s, types, where
// MariaDB groups or makes its rows distinct in a temporary table (a
// GROUP BY or DISTINCT over a relation of rows, not constant rows):
// each item but a constant one is read from that table's column.
func groupedTypes(s *ast.SelectStmt, sources []source, types []colType) []colType {
	if types == nil || s.GroupBy == nil && !s.Distinct || !slices.ContainsFunc(sources, func(s source) bool { return s.manyRows }) {
		return types
	}
	out := slices.Clone(types)
	i := 0
	for _, f := range s.Fields.Fields {
		if f.WildCard != nil {
			return types // columns, stored already; where a * stands the items are not counted here
		}
		if out[i].known && !constantItem(f.Expr) && !isAvg(f.Expr) {
			out[i] = stored(out[i])
		}
		i++
	}
	return out
}

// isAvg reports whether x is AVG(y), or a variance, which MariaDB
// computes from its temporary table's sum and count (its recurrence's
// state), not reads from a column of it.
func isAvg(x ast.ExprNode) bool {
	for p, ok := x.(*ast.ParenthesesExpr); ok; p, ok = x.(*ast.ParenthesesExpr) {
		x = p.Expr
	}
	a, ok := x.(*ast.AggregateFuncExpr)
	if !ok {
		return false
	}
	switch strings.ToLower(a.F) {
	case ast.AggFuncAvg, ast.AggFuncVarPop, ast.AggFuncVarSamp, ast.AggFuncStddevPop, ast.AggFuncStddevSamp:
		return true
	}
	return false
}

// constantItem reports whether x reads no column, aggregate or sequence,
// as MariaDB's const_item.
func constantItem(x ast.ExprNode) bool {
	v := &constantVisitor{constant: true}
	x.Accept(v)
	return v.constant
}

type constantVisitor struct{ constant bool }

func (v *constantVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.ColumnNameExpr, *ast.AggregateFuncExpr, *ast.TableNameExpr:
		v.constant = false
	case *ast.FuncCallExpr:
		switch name := n.FnName.L; {
		case name == ast.NextVal, name == ast.LastVal, name == ast.SetVal, strings.HasPrefix(name, renamedPrefix):
			v.constant = false
		}
	case *ast.SubqueryExpr:
		return n, true // a subquery of its own columns
	}
	return n, !v.constant
}

func (v *constantVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// storedTypes are ts as stored (nil for nil).
func storedTypes(ts []colType) []colType {
	if ts == nil {
		return nil
	}
	out := make([]colType, len(ts))
	for i, t := range ts {
		out[i] = t
		if t.known {
			out[i] = stored(t)
		}
	}
	return out
}

// mergeable reports whether MariaDB merges the derived table q into the
// query around it (derived_merge), its columns the expressions they
// are, not a temporary table's: a SELECT of a table without grouping,
// aggregates, DISTINCT or LIMIT.
func mergeable(q ast.Node) bool {
	s, ok := q.(*ast.SelectStmt)
	if !ok || s.From == nil || s.GroupBy != nil || s.Having != nil || s.Distinct || s.Limit != nil {
		return false
	}
	for _, f := range s.Fields.Fields {
		if f.Expr != nil && ast.HasAggFlag(f.Expr) {
			return false
		}
	}
	return true
}

// hexType reports whether t is a hexadecimal literal's: a binary string,
// UNSIGNED.
func hexType(t colType) bool {
	return t.kind() == kindString && t.binary && t.unsigned
}
