package eval

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// A string where MariaDB wants a number, whose type the MySQL front end's
// builder cannot tell before the evaluator resolves it (a column, a
// function's result), read as MariaDB reads it:
//
//	seqd_mariadb_number(x)     an operand of arithmetic: a string read
//	                           as a DOUBLE as far as it is a number
//	                           (seqd_mariadb_double's 1292); another
//	                           type, x itself
//	seqd_mariadb_number(x, y)  x compared with y: a string compared with
//	                           an integer read as a DECIMAL, with a
//	                           decimal or a double as a DOUBLE (1292);
//	                           else x itself (y is compiled for its type
//	                           only, never evaluated)
//	seqd_mariadb_quiet(x [, y])
//	                           seqd_mariadb_number of a user variable's
//	                           value, read as MariaDB reads one: without
//	                           1292; as a DECIMAL, 1918 where no number
//	                           begins it (read as 0)
//
// A DECIMAL read past the digits MariaDB's decimal holds is DECIMAL(65)'s
// bound, with 1916 (and 1292 but where quiet).

func init() {
	DefineCompiled("seqd_mariadb_number", CompiledFunc{Column: "seqd_mariadb_number", Compile: func(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
		return compileNumber(c, sc, fc, "seqd_mariadb_number", readDecimal, readDouble)
	}})
	DefineCompiled("seqd_mariadb_quiet", CompiledFunc{Column: "seqd_mariadb_quiet", Compile: func(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
		return compileNumber(c, sc, fc, "seqd_mariadb_quiet", readDecimalQuiet, readDoubleQuiet)
	}})
}

// compileNumber compiles seqd_mariadb_number and seqd_mariadb_quiet
// (name), which read a string by decimal or double.
func compileNumber(c *Compiler, sc *Scope, fc *pg.FuncCall, name string, decimal, double func(*Env, []Datum) (Datum, error)) (Expr, error) {
	if len(fc.Args) < 1 || len(fc.Args) > 2 {
		return nil, c.NoFunction(name, nil, fc.Location)
	}
	x, err := c.Expr(sc, fc.Args[0])
	if err != nil {
		return nil, err
	}
	if !isStringTyped(x) {
		return x, nil
	}
	read := "DOUBLE"
	if len(fc.Args) == 2 {
		y, err := c.Expr(sc, fc.Args[1])
		if err != nil {
			return nil, err
		}
		switch t := y.Type(); {
		case isUnknown(y) || t.Category() != 'N':
			return x, nil // compared as strings, or as PostgreSQL compares
		case t == TInt2 || t == TInt4 || t == TInt8:
			read = "DECIMAL"
		}
	}
	x = c.settle(x)
	if read == "DECIMAL" {
		compared := func(e *Env, a []Datum) (Datum, error) {
			d, err := decimal(e, a)
			if err != nil || d.Kind != KNumeric {
				return d, err
			}
			return roundedCompared(d), nil
		}
		return &funcExpr{t: tNumeric, fn: compared, args: []Expr{x}, strict: true}, nil
	}
	return &funcExpr{t: TFloat8, fn: double, args: []Expr{x}, strict: true}, nil
}

// isStringTyped reports whether x is a string: of a string type, or a
// string literal not yet typed (not a parameter, which takes its type
// from where it stands).
func isStringTyped(x Expr) bool {
	if _, param := x.(*paramExpr); param {
		return false
	}
	return x.Type() == tUnknown || x.Type().Category() == 'S'
}

// readDecimal reads a string as a DECIMAL as far as it is a number.
func readDecimal(e *Env, a []Datum) (Datum, error) { return decimalRead(e, a[0].S, false) }

// readDecimalQuiet is readDecimal of a user variable's value
// (seqd_mariadb_quiet).
func readDecimalQuiet(e *Env, a []Datum) (Datum, error) { return decimalRead(e, a[0].S, true) }

// decimalRead reads s as a DECIMAL as far as it is a number, past the
// digits MariaDB's decimal holds DECIMAL(65)'s bound (clampDecimal's
// 1916): with 1292 for what was left out, but where quiet, where a
// string no number begins is 1918.
func decimalRead(e *Env, s string, quiet bool) (Datum, error) {
	prefix, kind := NumberPrefix(s, false)
	if quiet && !startsNumber(s) {
		e.Warn(Warning{Kind: IllegalValue, Type: "DECIMAL"})
	}
	var x apd.Decimal
	if _, _, err := x.SetString(readSignificant(prefix)); err != nil {
		if !outOfExponent(&x, prefix) {
			return Null, err // not for a prefix NumberPrefix gives
		}
	}
	if clampDecimal(e, &x) && kind == 0 {
		kind = Truncated
	}
	decimalHeld(&x)
	if kind != 0 && !quiet {
		e.Warn(Warning{Kind: kind, Type: "DECIMAL", Value: s})
	}
	return Numeric(&x, max(-x.Exponent, 0)), nil
}

// outOfExponent sets x to prefix's value (NumberPrefix's) where apd
// refuses its exponent ('1e-99999999999999999999', a point and 200000
// zeros before a digit): 0 where its digits all lie past the point's
// 81, past DECIMAL's digits where they all lie before it (clampDecimal
// then reads it as its bound); false for another.
func outOfExponent(x *apd.Decimal, prefix string) bool {
	neg := strings.HasPrefix(prefix, "-")
	mantissa, exp, _ := strings.Cut(strings.ToLower(strings.TrimLeft(prefix, "+-")), "e")
	whole, frac, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	e, err := strconv.ParseInt(exp, 10, 64)
	switch {
	case exp == "":
		e = 0
	case err != nil && strings.HasPrefix(exp, "-"):
		e = -1 << 40
	case err != nil:
		e = 1 << 40
	}
	e = max(min(e, 1<<40), -1<<40)
	switch magnitude := int64(len(digits)) - int64(len(frac)) + e; { // the value is 0.digits × 10^magnitude
	case digits == "" || magnitude < -maxDecimalDigits:
		x.SetInt64(0)
	case magnitude > maxDecimalDigits:
		x.SetFinite(1, maxDecimalDigits+1)
		x.Negative = neg
	default:
		return false
	}
	return true
}

// decimalWords is how many words of nine digits MariaDB's decimal holds
// of a string it reads (DECIMAL_BUFF_LENGTH): its integer digits' words
// first, the rest for the digits past the point.
const decimalWords = 9

// decimalHeld cuts x to the digits past its point MariaDB's decimal holds
// of a string read (decimalWords): '1e-82' and '5e-82' are 0, '1e-81' is
// not.
func decimalHeld(x *apd.Decimal) {
	intg := max(int64(x.NumDigits())+int64(x.Exponent), 0)
	frac := int64(decimalWords-(intg+8)/9) * 9
	if x.Form != apd.Finite || -int64(x.Exponent) <= frac {
		return
	}
	ctx := exact
	ctx.Rounding = apd.RoundDown
	ctx.Precision = uint32(max(int64(x.NumDigits())+int64(x.Exponent)+frac+2, 1))
	_, _ = ctx.Quantize(x, x, int32(-frac))
}

// comparedScale is the digits past its point of a string read as a
// DECIMAL and compared (=, <, <=>, IN of one value): MariaDB's comparison
// holds it rounded to NOT_FIXED_DEC's 39 ('1e-40' = 0 is true, '5e-40' = 0
// false), where IN of more values and CASE hold decimalHeld's digits.
const comparedScale = 39

// roundedCompared is d, a string's DECIMAL, rounded to comparedScale.
func roundedCompared(d Datum) Datum {
	if x, scale := decimal(d); x.Form == apd.Finite && scale > comparedScale {
		return Numeric(x, comparedScale) // rounded half up
	}
	return d
}

// startsNumber reports whether a number begins s, after its leading
// spaces: a digit, or a point and a digit, after a sign.
func startsNumber(s string) bool {
	t := strings.TrimLeft(s, " \t\n\r")
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	if t != "" && t[0] == '.' {
		t = t[1:]
	}
	return t != "" && t[0] >= '0' && t[0] <= '9'
}

// readDoubleQuiet is readDouble of a user variable's value
// (seqd_mariadb_quiet): without 1292.
func readDoubleQuiet(_ *Env, a []Datum) (Datum, error) {
	prefix, _ := NumberPrefix(a[0].S, false)
	if bound, out := doubleBound(prefix); out {
		prefix = bound
	}
	f, err := strconv.ParseFloat(prefix, 64)
	if err != nil {
		return Null, err
	}
	return Float(f), nil
}

// readDouble reads a string as a DOUBLE as far as it is a number, past
// DOUBLE's range its bound.
func readDouble(e *Env, a []Datum) (Datum, error) {
	prefix, kind := NumberPrefix(a[0].S, false)
	if bound, out := doubleBound(prefix); out {
		prefix, kind = bound, Truncated
	}
	if kind != 0 {
		e.Warn(Warning{Kind: kind, Type: "DOUBLE", Value: a[0].S})
	}
	f, err := strconv.ParseFloat(prefix, 64)
	if err != nil {
		return Null, err
	}
	return Float(f), nil
}
