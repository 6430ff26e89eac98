package eval

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// MariaDB's conversions of a number out of its type's range, which it
// clamps with a warning where PostgreSQL's types refuse the value:
//
//	seqd_mariadb_decimal_cast(x, p, s, column)
//	    CAST(x AS DECIMAL(p,s)): a string read as far as it is a number
//	    (Truncated); past 81 integer digits, MariaDB's widest decimal,
//	    DECIMAL(65)'s bound (Overflow, before a string's Truncated);
//	    rounded to s digits half away from zero, out of DECIMAL(p,s)'s
//	    range its nearest bound (OutOfRange, naming column)

// maxDecimalDigits is how many integer digits MariaDB's decimal holds
// before a conversion overflows (nine 9-digit words).
const maxDecimalDigits = 81

func init() {
	Define("seqd_mariadb_decimal_cast", tNumeric, true, castDecimal, nil, TInt4, TInt4, TText)
}

// castDecimal is seqd_mariadb_decimal_cast.
func castDecimal(e *Env, a []Datum) (Datum, error) {
	p, s, column := int32(a[1].I), int32(a[2].I), a[3].S
	var x *apd.Decimal
	switch d := a[0]; d.Kind {
	case KText:
		prefix, kind := NumberPrefix(d.S, false)
		x = new(apd.Decimal)
		if _, _, err := x.SetString(readSignificant(prefix)); err != nil {
			x.SetInt64(0)
		}
		if overflowed := clampDecimal(e, x); overflowed && kind == 0 {
			kind = Truncated
		}
		if kind != 0 {
			e.Warn(Warning{Kind: kind, Type: "DECIMAL", Value: d.S})
		}
	case KFloat:
		x, _ = decimal(Datum{Kind: KNumeric, S: strconv.FormatFloat(d.F, 'g', -1, 64)})
		clampDecimal(e, x)
	default:
		x, _ = decimal(d)
	}
	if x.Form != apd.Finite {
		return Null, outOfRange(tNumeric)
	}
	v := Numeric(x, s)
	r, _ := decimal(v)
	bound := new(apd.Decimal).SetFinite(1, p-s)
	if _, err := exact.Sub(bound, bound, apd.New(1, -s)); err != nil {
		return Null, err
	}
	if r.CmpTotal(bound) <= 0 && r.CmpTotal(new(apd.Decimal).Neg(bound)) >= 0 {
		return v, nil
	}
	e.Warn(Warning{Kind: OutOfRange, Value: column})
	bound.Negative = r.Negative
	return Numeric(bound, s), nil
}

// clampDecimal takes x past MariaDB's widest decimal to DECIMAL(65)'s
// bound with MariaDB's 1916, reporting whether it did.
func clampDecimal(e *Env, x *apd.Decimal) bool {
	if x.Form != apd.Finite || x.IsZero() || int64(x.NumDigits())+int64(x.Exponent) <= maxDecimalDigits {
		return false
	}
	neg := x.Negative
	x.SetFinite(1, 65)
	_, _ = exact.Sub(x, x, apd.New(1, 0))
	x.Negative = neg
	e.Warn(Warning{Kind: Overflow, Type: "DECIMAL"})
	return true
}

// readSignificant is significant; tests compare it with reading all.
var readSignificant = significant

// significantDigits is how many of a number's significant digits, as
// written in a string, a DECIMAL cast reads: enough for its integer
// digits past which it overflows (maxDecimalDigits), its 38 past the point
// and the one that rounds them.
const significantDigits = maxDecimalDigits + decimalMaxScale + 2

// significant is prefix (NumberPrefix's, not an integer's) with its
// digits past the first significantDigits dropped, its exponent moved so
// that its value is the same to those digits: apd reads decimal digits
// into a big.Int, in time quadratic in their number, and CAST(REPEAT('9',
// 1000000) AS DECIMAL) took 7 s (16 MB of them, half an hour).
func significant(prefix string) string {
	sign, rest := "", prefix
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		sign, rest = rest[:1], rest[1:]
	}
	mantissa, exp := rest, "0"
	if i := strings.IndexAny(rest, "eE"); i >= 0 {
		mantissa, exp = rest[:i], rest[i+1:]
	}
	whole, frac, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if len(digits) <= significantDigits {
		return prefix
	}
	e, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return "x" // an exponent past int64's range: apd refuses it, read as 0
	}
	switch magnitude := int64(len(digits)) - int64(len(frac)) + e; { // the value is 0.digits × 10^magnitude
	case magnitude > maxDecimalDigits:
		return sign + "1e" + strconv.Itoa(maxDecimalDigits) // past the digits a DECIMAL holds: overflows
	case magnitude < -decimalMaxScale-2:
		return sign + "1e-" + strconv.Itoa(decimalMaxScale+3) // below what 38 digits round up
	}
	dropped := int64(len(digits) - significantDigits)
	return sign + digits[:significantDigits] + "e" + strconv.FormatInt(e+dropped-int64(len(frac)), 10)
}

// doubleBound is a string's number past DOUBLE's range as MariaDB
// reads it, its bound; ok false within the range.
func doubleBound(prefix string) (string, bool) {
	f, err := strconv.ParseFloat(prefix, 64)
	if err == nil || !math.IsInf(f, 0) {
		return "", false
	}
	return strconv.FormatFloat(math.Copysign(math.MaxFloat64, f), 'g', -1, 64), true
}

// MariaDB's decimal quotient as it holds it, before it is shown at its
// type's scale (which a string column of a UNION does not do: MariaDB
// writes this value into it):
//
//	seqd_mariadb_quotient(x, y, f)
//	    x / y truncated to f digits past the point, shown with all f
//	    (MariaDB's division keeps whole 9-digit words of fraction: the
//	    MySQL front end computes f from the operands' digits)

func init() {
	Define("seqd_mariadb_quotient", tNumeric, true, func(_ *Env, a []Datum) (Datum, error) {
		x, _ := decimal(a[0])
		y, _ := decimal(a[1])
		f := int32(a[2].I)
		if x.Form != apd.Finite || y.Form != apd.Finite || y.IsZero() || f < 0 || f > 1000 {
			return Null, nil
		}
		msd := int64(x.NumDigits()) + int64(x.Exponent) - int64(y.NumDigits()) - int64(y.Exponent) + 1
		c := exact
		c.Rounding = apd.RoundDown
		c.Precision = uint32(max(msd+int64(f)+2, 1))
		var q, t apd.Decimal
		if _, err := c.Quo(&q, x, y); err != nil {
			return Null, nil
		}
		c.Precision = uint32(max(int64(q.NumDigits())+int64(q.Exponent)+int64(f)+1, 1))
		if _, err := c.Quantize(&t, &q, -f); err != nil {
			return Null, nil
		}
		return Numeric(&t, f), nil
	}, tNumeric, tNumeric, TInt4)
}
