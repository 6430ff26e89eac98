package eval

import (
	"errors"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// Arithmetic as MariaDB computes it where its result's type is told:
//
//	seqd_mariadb_arith(op, x, y, kind, expr)
//	    x op y (op +, -, * or /) of kind i, a BIGINT: computed exactly,
//	    past BIGINT's range 1690 (a bigint); u, a BIGINT UNSIGNED:
//	    computed exactly, below 0 or past 2^64 - 1 1690 (a numeric); r,
//	    a DOUBLE: as OPERATOR(seqd_mariadb.op), past DOUBLE's range 1690
//	    (a double precision). expr is the expression as MariaDB prints
//	    it, which the error names (sqlerr.Error's Range, Expression);
//	    "" where it is not printed, the error then not MariaDB's 1690.
//	    op div, of kind i or u: DIV of two integers, their quotient
//	    truncated toward 0, NULL where y is 0 (1365; not where either is
//	    NULL); divd, DIV of numbers not both
//	    integers, computed as MariaDB computes it through DECIMALs:
//	    past the range with 1916 before 1690, naming the quotient (1e18
//	    DIV 0.1: '10000000000000000000' to INT), an operand past a
//	    DECIMAL's 81 digits taken to DECIMAL(65)'s bound with 1916 ('' to
//	    DECIMAL: 1e300 DIV 1).
//	seqd_mariadb_arith(abs, x, kind, expr)
//	    ABS(x) of an integer, of kind i or u: -9223372036854775808's is
//	    1690.

func init() {
	DefineCompiled("seqd_mariadb_arith", CompiledFunc{Column: "seqd_mariadb_arith", Compile: compileArith})
}

// compileArith compiles seqd_mariadb_arith.
func compileArith(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	if len(fc.Args) == 4 {
		return compileArithUnary(c, sc, fc)
	}
	consts := [3]string{}
	for i, n := range []int{0, 3, 4} {
		if len(fc.Args) != 5 || fc.Args[n].GetAConst().GetSval() == nil {
			return nil, c.NoFunction("seqd_mariadb_arith", nil, fc.Location)
		}
		consts[i] = fc.Args[n].GetAConst().GetSval().GetSval()
	}
	op, kind, expr := consts[0], consts[1], consts[2]
	if op != "+" && op != "-" && op != "*" && op != "/" && (op != "div" && op != "divd" || kind == "r") {
		return nil, c.NoFunction("seqd_mariadb_arith", nil, fc.Location)
	}
	l, r, err := c.operands(sc, fc.Args[1], fc.Args[2])
	if err != nil {
		return nil, err
	}
	switch kind {
	case "r":
		// MariaDB computes a DOUBLE's operands as doubles, a number kept
		// exact (a DOUBLE literal, 1e200) too.
		if isNumber(l.Type()) && isNumber(r.Type()) {
			if l, err = c.Coerce(l, TFloat8, Location(fc.Args[1]), "argument"); err != nil {
				return nil, err
			}
			if r, err = c.Coerce(r, TFloat8, Location(fc.Args[2]), "argument"); err != nil {
				return nil, err
			}
		}
		c.mariadbArith = true
		x, err := c.binaryExprs(op, l, r, fc.Args[1], fc.Args[2], fc.Location)
		c.mariadbArith = false
		if err != nil {
			return nil, err
		}
		return &rangedExpr{x: x, rng: "DOUBLE", expr: expr}, nil
	case "i", "u":
		for i, x := range []*Expr{&l, &r} {
			if isUnknown(*x) { // a parameter or a literal not yet typed: read as a number
				if *x, err = c.Coerce(*x, tNumeric, Location(fc.Args[1+i]), "argument"); err != nil {
					return nil, err
				}
			}
			if !isNumber((*x).Type()) && (op != "divd" || !isString((*x).Type())) { // divd reads a string itself
				return nil, c.NoFunction("seqd_mariadb_arith", []Expr{l, r}, fc.Location)
			}
		}
		t, rng := TInt8, "BIGINT"
		if kind == "u" {
			t, rng = tNumeric, "BIGINT UNSIGNED"
		}
		return &mariadbIntArith{op: op, l: l, r: r, t: t, rng: rng, expr: expr}, nil
	}
	return nil, c.NoFunction("seqd_mariadb_arith", nil, fc.Location)
}

// compileArithUnary compiles seqd_mariadb_arith('abs', x, kind, expr).
func compileArithUnary(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	consts := [3]string{}
	for i, n := range []int{0, 2, 3} {
		if fc.Args[n].GetAConst().GetSval() == nil {
			return nil, c.NoFunction("seqd_mariadb_arith", nil, fc.Location)
		}
		consts[i] = fc.Args[n].GetAConst().GetSval().GetSval()
	}
	op, kind, expr := consts[0], consts[1], consts[2]
	if op != "abs" || kind != "i" && kind != "u" {
		return nil, c.NoFunction("seqd_mariadb_arith", nil, fc.Location)
	}
	x, err := c.Expr(sc, fc.Args[1])
	if err != nil {
		return nil, err
	}
	if isUnknown(x) {
		if x, err = c.Coerce(x, tNumeric, Location(fc.Args[1]), "argument"); err != nil {
			return nil, err
		}
	}
	if !isNumber(x.Type()) {
		return nil, c.NoFunction("seqd_mariadb_arith", []Expr{x}, fc.Location)
	}
	t, rng := TInt8, "BIGINT"
	if kind == "u" {
		t, rng = tNumeric, "BIGINT UNSIGNED"
	}
	return &mariadbIntArith{op: op, l: x, t: t, rng: rng, expr: expr}, nil
}

// rangedExpr is x, whose overflow is MariaDB's 1690 of rng and expr.
type rangedExpr struct {
	x         Expr
	rng, expr string
}

func (x *rangedExpr) Type() *Type { return x.x.Type() }
func (x *rangedExpr) Eval(e *Env) (Datum, error) {
	d, err := evalOperands(x.x, e)
	if se := (*sqlerr.Error)(nil); errors.As(err, &se) && se.Kind == sqlerr.NumericValueOutOfRange && se.Range == "" {
		return Null, outOfRangeOf(x.rng, x.expr)
	}
	return d, err
}

// evalOperands is x's value, where x is an operator as MariaDB computes
// it: each operand read before a NULL one makes the result NULL (NULL *
// NEXTVAL(s) takes a value; NULL + 1e308 * 10 is 1690), not PostgreSQL's
// strict call, which stops at the first NULL.
func evalOperands(x Expr, e *Env) (Datum, error) {
	f, ok := x.(*funcExpr)
	if !ok || !f.strict {
		return x.Eval(e)
	}
	args := make([]Datum, len(f.args))
	null := false
	for i, a := range f.args {
		d, err := a.Eval(e)
		if err != nil {
			return Null, err
		}
		args[i], null = d, null || d.Kind == KNull
	}
	if null {
		return Null, nil
	}
	return f.fn(e, args)
}

// mariadbIntArith is seqd_mariadb_arith of an integer kind: exact, then in the
// range of t (BIGINT's, or for numeric BIGINT UNSIGNED's).
type mariadbIntArith struct {
	op        string
	l, r      Expr // r nil: a function of one (abs)
	t         *Type
	rng, expr string
}

// quotients computes DIV's integer quotients: any of two DOUBLEs' (617
// digits at most) exactly.
var quotients = apd.Context{Precision: 700, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent}

// The bounds of BIGINT and BIGINT UNSIGNED.
var (
	bigintMin   = apd.New(-1<<63, 0)
	bigintMax   = apd.New(1<<63-1, 0)
	unsignedMax = new(apd.Decimal).SetFinite(0, 0)
)

func init() {
	if _, _, err := unsignedMax.SetString("18446744073709551615"); err != nil {
		panic(err)
	}
}

func (x *mariadbIntArith) Type() *Type { return x.t }
func (x *mariadbIntArith) Eval(e *Env) (Datum, error) {
	a, err := x.l.Eval(e) // both read before a NULL is the result, as evalOperands
	if err != nil {
		return Null, err
	}
	b := Int(0)
	if x.op == "divd" && a.Kind == KNull {
		return Null, nil // MariaDB's DECIMAL division reads y only after a value of x
	}
	if x.r != nil {
		if b, err = x.r.Eval(e); err != nil {
			return Null, err
		}
	}
	if a.Kind == KNull || b.Kind == KNull {
		return Null, nil
	}
	var p, q *apd.Decimal
	if x.op == "divd" {
		p, q = divdOperand(e, a), divdOperand(e, b)
	} else {
		p, _ = decimal(a)
		q, _ = decimal(b)
	}
	var v apd.Decimal
	switch x.op {
	case "+":
		_, err = exact.Add(&v, p, q)
	case "-":
		_, err = exact.Sub(&v, p, q)
	case "*":
		_, err = exact.Mul(&v, p, q)
	case "abs":
		v.Abs(p)
	case "div", "divd":
		if q.IsZero() {
			e.Warn(Warning{Kind: DivisionByZero})
			return Null, nil
		}
		if _, err = quotients.QuoInteger(&v, p, q); err != nil {
			return Null, outOfRangeOf(x.rng, x.expr) // more digits than any range holds
		}
		if x.op == "divd" && !x.inRange(&v) {
			typ := "INT"
			if x.t == tNumeric {
				typ = "UNSIGNED INT"
			}
			e.Warn(Warning{Kind: Overflow, Type: typ, Value: v.Text('f')})
		}
	default:
		return Null, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd_mariadb_arith of %s and an integer kind", x.op)
	}
	if err != nil {
		return Null, err
	}
	if !x.inRange(&v) {
		return Null, outOfRangeOf(x.rng, x.expr)
	}
	if x.t == tNumeric {
		return Numeric(&v, 0), nil
	}
	i, err := v.Int64()
	if err != nil {
		return Null, outOfRangeOf(x.rng, x.expr)
	}
	return Int(i), nil
}

// inRange reports whether v lies in x's type's range.
func (x *mariadbIntArith) inRange(v *apd.Decimal) bool {
	lo, hi := bigintMin, bigintMax
	if x.t == tNumeric {
		lo, hi = new(apd.Decimal), unsignedMax
	}
	return v.Form == apd.Finite && v.Cmp(lo) >= 0 && v.Cmp(hi) <= 0
}

// outOfRangeOf is MariaDB's 1690 for a result of expr past rng's range,
// in PostgreSQL's words to a front end that has not MariaDB's; where
// expr is "" (what the builder does not print as MariaDB does) the
// words alone, which no front end words as MariaDB's.
func outOfRangeOf(rng, expr string) error {
	switch {
	case expr == "" && rng == "BIGINT":
		return outOfRange(TInt8)
	case expr == "" && rng == "DOUBLE":
		return sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value out of range: overflow")
	case expr == "":
		return sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "bigint unsigned out of range")
	}
	return &sqlerr.Error{Kind: sqlerr.NumericValueOutOfRange, Msg: "value out of range: overflow", Range: rng, Expression: expr}
}

// divdOperand is d as MariaDB's DIV of numbers not both integers reads
// it, a DECIMAL: a DOUBLE by its shortest text (my_gcvt's, not
// PostgreSQL's 15 digits: 12345678901234567e0 DIV 1 is
// 12345678901234568), a string as far as it is a number (1292
// Truncated incorrect DECIMAL value), each as MariaDB's decimal of 81
// digits holds it (heldAsRead).
func divdOperand(e *Env, d Datum) *apd.Decimal {
	x := new(apd.Decimal)
	switch d.Kind {
	case KFloat:
		if _, _, err := x.SetString(strconv.FormatFloat(d.F, 'e', -1, 64)); err != nil {
			x.SetInt64(0)
		}
		heldAsRead(e, x, -1)
		return x
	case KText:
		prefix, kind := NumberPrefix(d.S, false)
		if decimalOfText(e, x, prefix) && kind == 0 {
			kind = Truncated
		}
		if kind != 0 {
			e.Warn(Warning{Kind: kind, Type: "DECIMAL", Value: d.S})
		}
		return x
	}
	x, _ = decimal(d)
	clampDecimal(e, x)
	return x
}

// decimalOfText sets x to prefix, a number's text (NumberPrefix's), as
// MariaDB's string2decimal reads it, reporting whether it overflowed:
// its digits as written held (heldAsRead), then, where it has an
// exponent and did not overflow, shifted by it and held again ('<100
// nines>e-90' overflows, '0.<90 zeros>5e100' is 0).
func decimalOfText(e *Env, x *apd.Decimal, prefix string) bool {
	mantissa, exp, shifted := prefix, "", false
	if i := strings.IndexAny(prefix, "eE"); i >= 0 {
		mantissa, exp, shifted = prefix[:i], prefix[i+1:], true
	}
	if _, _, err := x.SetString(readSignificant(mantissa)); err != nil {
		x.SetInt64(0)
	}
	whole, _, _ := strings.Cut(strings.TrimLeft(mantissa, "+-"), ".")
	if heldAsRead(e, x, len(whole)) {
		return true
	}
	if !shifted || x.IsZero() || x.Form != apd.Finite {
		return false
	}
	n, err := strconv.ParseInt(exp, 10, 32)
	switch {
	case err != nil && strings.HasPrefix(exp, "-"), err == nil && n < -1000:
		x.SetInt64(0) // every digit shifted past the fraction's
		return false
	case err != nil, n > 1000:
		neg := x.Negative
		x.SetFinite(1, maxDecimalDigits+1) // past the integer digits: clamped
		x.Negative = neg
	default:
		x.Exponent += int32(n)
	}
	return heldAsRead(e, x, -1)
}

// heldAsRead makes x what MariaDB's decimal of nine 9-digit words holds
// of it, read from a text with written integer digits (-1: with an
// exponent), reporting whether its integer part overflowed
// (clampDecimal). The words of the integer digits as written (of the
// value's, where an exponent shifts them: decimal_shift) leave the rest
// to the fraction, whose further digits are cut, rounded half up where
// shifted; a shifted value none of whose digits is left there is 0, even
// where rounding would carry into the last digit kept (decimal_shift
// drops the digits before it rounds): 1e-70 DIV 1.5e-81 is 5e10,
// 1e-70 DIV 9e-82 and 1e-70 DIV '0.<79 zeros>1' divisions by 0.
func heldAsRead(e *Env, x *apd.Decimal, written int) bool {
	if clampDecimal(e, x) {
		return true
	}
	if x.Form != apd.Finite || x.IsZero() || x.Exponent >= 0 {
		return false
	}
	x.Reduce(x)
	words := func(digits int64) int64 { return (max(digits, 0) + 8) / 9 }
	intDigits := int64(x.NumDigits()) + int64(x.Exponent)
	fracDigits := -int64(x.Exponent)
	intWords := words(intDigits)
	if written >= 0 {
		intWords = words(int64(written))
	}
	if intWords+words(fracDigits) <= decimalWords {
		return false
	}
	kept := (decimalWords - intWords) * 9  // the fraction's digits held
	if written < 0 && intDigits <= -kept { // every digit is past them
		x.SetInt64(0)
		return false
	}
	ctx := apd.BaseContext.WithPrecision(uint32(max(intDigits, 0) + kept + 1))
	ctx.Rounding = apd.RoundDown
	if written < 0 {
		ctx.Rounding = apd.RoundHalfUp
	}
	_, _ = ctx.Quantize(x, x, int32(-kept))
	return false
}
