// numeric: PostgreSQL's arbitrary-precision decimal, with its display
// scale (the digits after the point it prints: 1.50 stays 1.50).

package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/seqd/seqd/sqlerr"
)

// A numeric value is a Datum of kind KNumeric holding numeric_out's text
// in S: plain digits with exactly its display scale after the point
// ("1.50", "-3", "0.000"), or NaN, Infinity, -Infinity. Its arithmetic
// reads the text into an apd.Decimal and writes the result back. (A
// numeric column the catalog fills with a Float is read as its double.)

// exact is the context of the operations that are exact (+, -, *, the
// conversions): precision 0 rounds nothing. Conditions are checked by
// the callers, not trapped.
var exact = apd.Context{MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent}

// Numeric makes a numeric datum of a decimal (whose exponent need not be
// -dscale) at display scale dscale, rounding half away from zero.
func Numeric(d *apd.Decimal, dscale int32) Datum {
	if d.Form != apd.Finite {
		switch {
		case d.Form == apd.Infinite && d.Negative:
			return Datum{Kind: KNumeric, S: "-Infinity"}
		case d.Form == apd.Infinite:
			return Datum{Kind: KNumeric, S: "Infinity"}
		}
		return Datum{Kind: KNumeric, S: "NaN"}
	}
	if d.Exponent != -dscale {
		var q apd.Decimal
		c := exact
		c.Rounding = apd.RoundHalfUp
		c.Precision = uint32(max(int64(d.NumDigits())+int64(d.Exponent)+int64(dscale)+2, 1))
		if _, err := c.Quantize(&q, d, -dscale); err == nil {
			d = &q
		}
	}
	if d.IsZero() {
		d.Negative = false
	}
	return Datum{Kind: KNumeric, S: d.Text('f')}
}

// numericIn is numeric_in: surrounding spaces, a sign, digits with a
// point, an exponent; NaN and the infinities.
func numericIn(text string) (Datum, error) {
	in := strings.TrimSpace(text)
	switch strings.ToLower(in) {
	case "nan":
		return Datum{Kind: KNumeric, S: "NaN"}, nil
	case "infinity", "+infinity", "inf", "+inf":
		return Datum{Kind: KNumeric, S: "Infinity"}, nil
	case "-infinity", "-inf":
		return Datum{Kind: KNumeric, S: "-Infinity"}, nil
	}
	d, _, err := exact.NewFromString(in)
	if err != nil || d.Form != apd.Finite || strings.ContainsAny(in, "_xX") {
		return Null, sqlerr.Errorf(sqlerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \"%s\"", text)
	}
	return Numeric(d, max(-d.Exponent, 0)), nil
}

// decimal reads a numeric, integer or double datum as a decimal, and
// its display scale.
func decimal(d Datum) (*apd.Decimal, int32) {
	var x apd.Decimal
	switch d.Kind {
	case KInt, KBool:
		x.SetInt64(d.I)
		return &x, 0
	case KFloat:
		return decimal(floatNumeric(d.F, 15))
	}
	switch d.S {
	case "NaN":
		x.Form = apd.NaN
		return &x, 0
	case "Infinity", "-Infinity":
		x.Form, x.Negative = apd.Infinite, d.S[0] == '-'
		return &x, 0
	}
	if _, _, err := x.SetString(d.S); err != nil {
		x.Form = apd.NaN
	}
	return &x, max(-x.Exponent, 0)
}

// floatNumeric is float8_numeric (digits 15) and float4_numeric (6): the
// double's digits, as %.*g prints them, read as numeric.
func floatNumeric(f float64, digits int) Datum {
	switch {
	case math.IsNaN(f):
		return Datum{Kind: KNumeric, S: "NaN"}
	case math.IsInf(f, 1):
		return Datum{Kind: KNumeric, S: "Infinity"}
	case math.IsInf(f, -1):
		return Datum{Kind: KNumeric, S: "-Infinity"}
	}
	d, err := numericIn(strconv.FormatFloat(f, 'g', digits, 64))
	if err != nil {
		return Datum{Kind: KNumeric, S: "NaN"}
	}
	return d
}

// numericFloat is numeric_float8.
func numericFloat(d Datum) float64 {
	switch d.Kind {
	case KInt, KBool:
		return float64(d.I)
	case KFloat:
		return d.F
	}
	f, _ := strconv.ParseFloat(d.S, 64) // NaN, Infinity parse too
	return f
}

// numericInt is numeric to an integer type: rounded half away from zero,
// in t's range.
func numericInt(d Datum, t *Type) (Datum, error) {
	x, _ := decimal(d)
	switch x.Form {
	case apd.NaN:
		return Null, sqlerr.Errorf(sqlerr.FeatureNotSupported, "cannot convert NaN to %s", t.sqlName)
	case apd.Infinite:
		return Null, sqlerr.Errorf(sqlerr.FeatureNotSupported, "cannot convert infinity to %s", t.sqlName)
	}
	var r apd.Decimal
	c := exact
	c.Rounding = apd.RoundHalfUp
	c.Precision = uint32(max(int64(x.NumDigits())+int64(x.Exponent)+2, 1))
	if _, err := c.Quantize(&r, x, 0); err != nil {
		return Null, outOfRange(t)
	}
	v, err := r.Int64()
	if err != nil {
		return Null, outOfRange(t)
	}
	return checkedInt(t, v, false)
}

// numericCompare orders numerics (and integers) by value, NaN above
// every other value and equal to itself.
func numericCompare(a, b Datum) int {
	x, _ := decimal(a)
	y, _ := decimal(b)
	switch xn, yn := x.Form == apd.NaN, y.Form == apd.NaN; {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	return x.Cmp(y)
}

// numericKey is a numeric's text without its display scale, so that 1.5
// and 1.50 group and compare as one value.
func numericKey(d Datum) string {
	if d.Kind != KNumeric {
		return d.S
	}
	x, _ := decimal(d)
	if x.Form != apd.Finite {
		return d.S
	}
	var r apd.Decimal
	r.Reduce(x)
	return r.Text('f')
}

// numericArith is +, -, *, / and % on numeric, with PostgreSQL's result
// display scales.
func numericArith(op string, a, b Datum) (Datum, error) {
	x, sx := decimal(a)
	y, sy := decimal(b)
	var r apd.Decimal
	var err error
	scale := max(sx, sy)
	switch op {
	case "+":
		_, err = exact.Add(&r, x, y)
	case "-":
		_, err = exact.Sub(&r, x, y)
	case "*":
		_, err = exact.Mul(&r, x, y)
		scale = sx + sy
	case "/", "%":
		if y.Form == apd.Finite && y.IsZero() {
			return Null, sqlerr.Errorf(sqlerr.DivisionByZero, "division by zero")
		}
		if x.Form != apd.Finite || y.Form != apd.Finite {
			return numericSpecialDiv(op, x, y), nil
		}
		if op == "%" {
			// Rem needs room for the integral quotient's digits.
			c := exact
			c.Precision = uint32(max(int64(x.NumDigits())+int64(x.Exponent)-int64(y.Exponent), 0) + int64(max(x.NumDigits(), y.NumDigits())) + 2)
			_, err = c.Rem(&r, x, y)
			break
		}
		scale = divScale(x, sx, y, sy)
		return divRound(x, y, scale), nil
	}
	if err != nil {
		return Null, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	return Numeric(&r, scale), nil
}

// numericSpecialDiv is / and % with NaN or an infinity.
func numericSpecialDiv(op string, x, y *apd.Decimal) Datum {
	var r apd.Decimal
	switch {
	case x.Form == apd.NaN || y.Form == apd.NaN || x.Form == apd.Infinite && y.Form == apd.Infinite:
		r.Form = apd.NaN
	case x.Form == apd.Infinite && op == "%":
		r.Form = apd.NaN
	case x.Form == apd.Infinite:
		r.Form, r.Negative = apd.Infinite, x.Negative != y.Negative
	case op == "%": // finite % infinity is the dividend
		r.Set(x)
		return Numeric(&r, max(-x.Exponent, 0))
	}
	return Numeric(&r, 0)
}

// divScale is PostgreSQL's select_div_scale: at least 16 significant
// digits, and no fewer after the point than either input shows.
func divScale(x *apd.Decimal, sx int32, y *apd.Decimal, sy int32) int32 {
	w1, f1 := nbaseLead(x)
	w2, f2 := nbaseLead(y)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := 16 - qweight*4
	return min(max(rscale, sx, sy, 0), 1000)
}

// nbaseLead is the weight and value of a decimal's first nonzero digit in
// base 10000, the base PostgreSQL's numeric computes in (digit groups of
// four, aligned at the point).
func nbaseLead(x *apd.Decimal) (weight, first int32) {
	if x.IsZero() {
		return 0, 0
	}
	msd := int32(x.NumDigits()) + x.Exponent - 1 // 10's power of the first digit
	weight = msd / 4
	if msd < 0 && msd%4 != 0 {
		weight--
	}
	// The group's value: the digits at 10^(4w+3) .. 10^(4w).
	var g apd.Decimal
	g.Set(x)
	g.Negative = false
	g.Exponent -= weight * 4
	var i apd.Decimal
	c := exact
	c.Rounding = apd.RoundDown
	c.Precision = uint32(max(int64(g.NumDigits())+int64(g.Exponent)+1, 1))
	if _, err := c.Quantize(&i, &g, 0); err != nil {
		return weight, 0
	}
	v, _ := i.Int64()
	return weight, int32(v)
}

// divRound is x / y rounded half away from zero to scale digits after
// the point: the quotient is truncated one digit further, which the
// rounding then reads exactly.
func divRound(x, y *apd.Decimal, scale int32) Datum {
	msd := int64(x.NumDigits()) + int64(x.Exponent) - int64(y.NumDigits()) - int64(y.Exponent) + 1
	c := exact
	c.Rounding = apd.RoundDown
	c.Precision = uint32(max(msd+int64(scale)+2, 1))
	var q apd.Decimal
	if _, err := c.Quo(&q, x, y); err != nil {
		q.Form = apd.NaN
	}
	return Numeric(&q, scale)
}

// numericNeg is prefix - and numericAbs abs, at the argument's scale.
func numericNeg(d Datum) Datum {
	x, s := decimal(d)
	if x.Form != apd.NaN {
		x.Negative = !x.Negative
	}
	return Numeric(x, s)
}

func numericAbs(d Datum) Datum {
	x, s := decimal(d)
	x.Negative = false
	return Numeric(x, s)
}

// numericRound is round(numeric, s) (trunc when down): to s digits after
// the point (before it when s < 0), displayed with max(s, 0).
func numericRound(d Datum, s int64, down bool) Datum {
	x, _ := decimal(d)
	if x.Form != apd.Finite {
		return d
	}
	s = min(max(s, -2000), 2000)
	c := exact
	c.Rounding = apd.RoundHalfUp
	if down {
		c.Rounding = apd.RoundDown
	}
	c.Precision = uint32(max(int64(x.NumDigits())+int64(x.Exponent)+s+2, 1))
	var r apd.Decimal
	if _, err := c.Quantize(&r, x, int32(-s)); err != nil {
		return d
	}
	return Numeric(&r, int32(max(s, 0)))
}

// numericTypmod applies numeric(p, s) (typmod (p << 16 | s) + 4): round
// to s digits, then refuse a value with more than p - s before the point.
func numericTypmod(d Datum, p, s int32) (Datum, error) {
	x, _ := decimal(d)
	if x.Form != apd.Finite {
		if x.Form == apd.Infinite {
			return Null, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "numeric field overflow").
				WithDetail(fmt.Sprintf("A field with precision %d, scale %d cannot hold an infinite value.", p, s))
		}
		return d, nil
	}
	r := numericRound(d, int64(s), false)
	y, _ := decimal(r)
	if !y.IsZero() && int64(y.NumDigits())+int64(y.Exponent) > int64(p-s) {
		return Null, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail(fmt.Sprintf("A field with precision %d, scale %d must round to an absolute value less than 10^%d.", p, s, p-s))
	}
	return r, nil
}
