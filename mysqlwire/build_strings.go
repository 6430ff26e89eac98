package mysqlwire

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/seqd/seqd/sqlerr"
)

// MariaDB's functions of a string and a count (LEFT, RIGHT, SUBSTRING,
// LPAD, RPAD), of a string alone (REVERSE, LTRIM, RTRIM, TRIM of a
// string to take off) and of a number to an integral one or to d digits
// (FLOOR, CEIL, ROUND), built as eval's seqd_mariadb_* functions, which
// compute them as MariaDB 10.11's Item_func_* do: a number where a
// string is taken is its text (stringArgs), a count is read as MariaDB's
// val_int reads it (countArg).

// countArg builds *arg, a function's count or position, as MariaDB's
// Item::val_int reads it (eval's seqd_mariadb_int): an integer as it is,
// a truth its 1 or 0, an unsigned literal past BIGINT's range as BIGINT's
// largest (MariaDB takes it as the huge count it is), anything else read
// as an integer (a decimal rounded, with 1916 past BIGINT's range; a
// string's integer prefix, with 1292). A constant count that may warn is
// read once more as the statement starts, as MariaDB reads it as it
// types the result (typedOnce).
func (b *builder) countArg(arg *ast.ExprNode) (*pg.Node, error) { return b.count(arg, true) }

// count is countArg, a constant count read once more as the statement
// starts where typed (MariaDB reads LOCATE's start only with the rows).
func (b *builder) count(arg *ast.ExprNode, typed bool) (*pg.Node, error) {
	b.readAsNumber(arg) // 0x41 its number, x'41' its string
	x := *arg
	if v, ok := unparen(x).(*driver.ValueExpr); ok && v.Kind() == driver.KindUint64 {
		if v.GetUint64() > math.MaxInt64 {
			return typeCast(numConst(strconv.FormatInt(math.MaxInt64, 10)), typeName("int8")), nil
		}
	}
	n, err := b.expr(x)
	if err != nil {
		return nil, err
	}
	if nullLiteral(x) || truthValue(x) {
		return typeCast(truthNumber(x, n), typeName("int8")), nil
	}
	if t, ok := exprType(x, b.scope()); ok && t.kind() == kindInt {
		return typeCast(n, typeName("int8")), nil
	}
	if doubleLiteral(x) {
		n = typeCast(n, typeName("float8")) // not the numeric it is built as
	}
	n = funcCall("seqd_mariadb_int", []*pg.Node{n})
	if typed && (typedOnce(x) || decimalLiteral(x) && !doubleLiteral(x)) {
		n = funcCall("seqd_mariadb_typed", []*pg.Node{n})
	}
	return n, nil
}

// decimalLiteral reports whether x is a DECIMAL written as one, which
// MariaDB's val_int reads with a warning past BIGINT's range.
func decimalLiteral(x ast.ExprNode) bool {
	x = unparen(x)
	if u, ok := x.(*ast.UnaryOperationExpr); ok {
		x = unparen(u.V)
	}
	v, ok := x.(*driver.ValueExpr)
	return ok && v.Kind() == driver.KindMysqlDecimal
}

// bytesCounted refuses a function that counts characters of x, where
// MariaDB counts a binary string's bytes: seqd's strings are UTF-8
// text, and a part of one that is not is what seqd does not send. A
// binary literal of ASCII alone, whose bytes are its characters, and
// NULL are taken.
func (b *builder) bytesCounted(fn string, x ast.ExprNode) error {
	if nullLiteral(x) || !b.binaryString(x) {
		return nil
	}
	if v, ok := unparen(x).(*driver.ValueExpr); ok {
		ascii := true
		for _, c := range v.GetBytes() {
			ascii = ascii && c < 0x80
		}
		if ascii {
			return nil
		}
	}
	return unsupported(fn + "() of a binary string, whose bytes MariaDB counts")
}

// stringAndCounts builds a string function's first argument (a number's
// text) and the counts after it.
func (b *builder) stringAndCounts(x *ast.FuncCallExpr) ([]*pg.Node, error) {
	if err := b.bytesCounted(x.FnName.O, x.Args[0]); err != nil {
		return nil, err
	}
	s, err := b.stringArgs(x.Args[:1])
	if err != nil {
		return nil, err
	}
	out := []*pg.Node{typeCast(s[0], typeName("text"))}
	for i := range x.Args[1:] {
		n, err := b.countArg(&x.Args[1+i])
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// leftRight is LEFT(str, n) and RIGHT(str, n): of another number of
// arguments MariaDB's grammar's 1064 (callGrammar).
func (b *builder) leftRight(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) != 2 {
		return nil, &callGrammarError{call: x, args: 2}
	}
	args, err := b.stringAndCounts(x)
	if err != nil {
		return nil, err
	}
	return funcCall("seqd_mariadb_"+x.FnName.L, args), nil
}

// substring is SUBSTRING(str, pos [, len]), SUBSTRING(str FROM pos [FOR
// len]), SUBSTR and MID.
func (b *builder) substring(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) != 2 && len(x.Args) != 3 {
		return nil, wrongArgCount(x.FnName.O)
	}
	args, err := b.stringAndCounts(x)
	if err != nil {
		return nil, err
	}
	return funcCall("seqd_mariadb_substr", args), nil
}

// pad is LPAD(str, len [, padstr]) and RPAD: padstr a space where it is
// not given; NULL past max_allowed_packet with MariaDB's 1301.
func (b *builder) pad(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) != 2 && len(x.Args) != 3 {
		return nil, wrongArgCount(x.FnName.O)
	}
	args, err := b.stringAndCounts(&ast.FuncCallExpr{FnName: x.FnName, Args: x.Args[:2]})
	if err != nil {
		return nil, err
	}
	padding := strConst(" ")
	if len(x.Args) == 3 {
		if err := b.bytesCounted(x.FnName.O, x.Args[2]); err != nil {
			return nil, err
		}
		p, err := b.stringArgs(x.Args[2:])
		if err != nil {
			return nil, err
		}
		padding = typeCast(p[0], typeName("text"))
	}
	left := "false"
	if x.FnName.L == "lpad" {
		left = "true"
	}
	return funcCall("seqd_mariadb_pad", append(args, padding, typeCast(strConst(left), typeName("bool")),
		numConst(strconv.Itoa(maxAllowedPacket)))), nil
}

// oneString is REVERSE(str), LTRIM(str) and RTRIM(str): LTRIM and RTRIM
// take off spaces alone, as MariaDB's.
func (b *builder) oneString(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) != 1 {
		return nil, wrongArgCount(x.FnName.O)
	}
	if x.FnName.L == "reverse" {
		if err := b.bytesCounted(x.FnName.O, x.Args[0]); err != nil {
			return nil, err
		}
	}
	args, err := b.stringArgs(x.Args)
	if err != nil {
		return nil, err
	}
	s := typeCast(args[0], typeName("text"))
	switch x.FnName.L {
	case "ltrim":
		return trimCall(s, strConst(" "), 1), nil
	case "rtrim":
		return trimCall(s, strConst(" "), 2), nil
	}
	return funcCall("seqd_mariadb_reverse", []*pg.Node{s}), nil
}

// trimCall is eval's seqd_mariadb_trim of s, r taken off its start (how
// 1), its end (2) or both (0).
func trimCall(s, r *pg.Node, how int32) *pg.Node {
	return funcCall("seqd_mariadb_trim", []*pg.Node{s, typeCast(r, typeName("text")), intConst(how)})
}

// integral is FLOOR(x), CEIL(x) and CEILING(x): of an integer, itself;
// of a decimal and of a double, the integral value below or above; of a
// string, its DOUBLE's as far as it is a number (1292 for the rest).
func (b *builder) integral(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) != 1 {
		return nil, wrongArgCount(x.FnName.O)
	}
	b.readAsNumber(&x.Args[0])
	n, err := b.numberArg(x.Args[0])
	if err != nil {
		return nil, err
	}
	name := "seqd_mariadb_ceil"
	if x.FnName.L == "floor" {
		name = "seqd_mariadb_floor"
	}
	return funcCall(name, []*pg.Node{n}), nil
}

// abs is ABS(x): of a number, its absolute value; of a string, its
// DOUBLE's as far as it is a number (1292 for the rest), as for FLOOR.
func (b *builder) abs(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) != 1 {
		return nil, wrongArgCount(x.FnName.O)
	}
	if holdsMarker(x) {
		return nil, errBuiltWithValues
	}
	b.calls = append(b.calls, calledFunc{"abs", x.FnName.O})
	b.readAsNumber(&x.Args[0])
	n, err := b.numberArg(x.Args[0])
	if err != nil {
		return nil, err
	}
	if t, ok := exprType(x, b.scope()); ok && t.kind() == kindInt {
		// An integer's: -9223372036854775808's is MariaDB's 1690.
		kind, text := "i", ""
		if t.unsignedType() {
			kind = "u"
		}
		if s, ok := b.mariadbPrint(x); ok {
			text = s
		}
		return funcCall("seqd_mariadb_arith", []*pg.Node{strConst("abs"), n, strConst(kind), strConst(text)}), nil
	}
	return funcCall("abs", []*pg.Node{n}), nil
}

// numberArg builds x where MariaDB reads it as a number: a string (written
// as one or not) as a DOUBLE as far as it is one, with 1292; NULL as a
// DOUBLE's; a truth its 1 or 0.
func (b *builder) numberArg(x ast.ExprNode) (*pg.Node, error) {
	n, err := b.expr(x)
	if err != nil {
		return nil, err
	}
	if nullLiteral(x) {
		return typeCast(n, typeName("float8")), nil
	}
	if !isString(x) && b.stringValue(x) {
		return typeCast(funcCall("seqd_mariadb_double", []*pg.Node{n}), typeName("float8")), nil
	}
	return b.numberOperand(x, n), nil
}

// round is ROUND(x [, d]): an integer's and a decimal's half away from
// zero, a double's (a string's as far as it is a number) as MariaDB's
// my_double_round; d read as val_int reads it.
func (b *builder) round(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) != 1 && len(x.Args) != 2 {
		return nil, wrongArgCount(x.FnName.O)
	}
	b.readAsNumber(&x.Args[0])
	n, err := b.numberArg(x.Args[0])
	if err != nil {
		return nil, err
	}
	d := typeCast(intConst(0), typeName("int8"))
	if len(x.Args) == 2 {
		if d, err = b.countArg(&x.Args[1]); err != nil {
			return nil, err
		}
	}
	return funcCall("seqd_mariadb_round", []*pg.Node{n, d}), nil
}

// nearError is MariaDB's 1064 near the statement's text from byte at,
// which translateBound words from the text (syntaxErrorAt): what its
// grammar refuses there and TiDB's reads.
type nearError struct {
	at int
	// before, when not empty, is the keyword before at (white space
	// between) that the error is near: MariaDB's grammar refuses the
	// clause it begins (from).
	before string
}

// from is where in q, the text the statement was parsed from, the
// error is near: at, or the keyword before it.
func (e *nearError) from(q string) int {
	at := min(max(e.at, 0), len(q))
	if e.before == "" {
		return at
	}
	i := at
	for i > 0 && strings.IndexByte(" \t\n\v\f\r", q[i-1]) >= 0 {
		i--
	}
	if i >= len(e.before) && strings.EqualFold(q[i-len(e.before):i], e.before) {
		return i - len(e.before)
	}
	return at
}

func (e *nearError) Error() string { return "a syntax error at byte " + strconv.Itoa(e.at) }

// callGrammarError is a call of a function MariaDB's grammar spells with
// args arguments (LEFT, RIGHT), of another number of them: MariaDB's
// 1064, which translateBound words from the statement's text (near).
type callGrammarError struct {
	call *ast.FuncCallExpr
	args int
}

func (e *callGrammarError) Error() string {
	return "a call of " + e.call.FnName.O + " with other than " + strconv.Itoa(e.args) + " arguments"
}

// near is where MariaDB's parser stops in q, the text the call was
// parsed from: after the comma that ends its last argument where it has
// more, else at the parenthesis that closes it.
func (e *callGrammarError) near(q string) int {
	x := e.call
	if len(x.Args) > e.args {
		i := x.Args[e.args].OriginTextPosition() - 1
		for i > 0 && q[i] != ',' {
			i--
		}
		return i + 1
	}
	from := x.OriginTextPosition()
	if len(x.Args) > 0 {
		from = x.Args[len(x.Args)-1].OriginTextPosition()
	} else if open := strings.IndexByte(q[from:], '('); open >= 0 {
		from += open + 1
	}
	return closingParen(q, from)
}

// closingParen is the offset of the parenthesis that closes the one open
// at from, in q, outside strings, quoted names and comments (len(q) for
// none).
func closingParen(q string, from int) int {
	spans := quotedSpans(q)
	depth := 0
	for i := from; i < len(q); i++ {
		if inSpan(spans, i) {
			continue
		}
		switch q[i] {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return len(q)
}

// syntaxErrorAt is MariaDB's 1064 for a statement q its parser stops in
// at offset at: the text from there (80 bytes at most, the last three
// "..." where it is cut, as MariaDB's %-.80T), and its line.
func syntaxErrorAt(q string, at int, typed map[string]string) error {
	at = min(max(at, 0), len(q))
	near := asTyped(q[at:], typed)
	if len(near) > 80 {
		cut := 77
		for cut > 0 && !utf8.RuneStart(near[cut]) {
			cut--
		}
		near = near[:cut] + "..."
	}
	line := 1 + strings.Count(q[:at], "\n")
	return sqlerr.Errorf(sqlerr.SyntaxError, "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '%s' at line %d", near, line)
}
