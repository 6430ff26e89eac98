package eval

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

// MariaDB's meaning of the expressions whose evaluation raises a
// condition that does not stop the statement (a division by zero is
// NULL, a CAST that cannot read all of a string reads what it can): the
// functions the MySQL front end's trees call in their place, which tell
// the session what they raised as a Warning. The session keeps them
// for its front end (Warner), which words them in its protocol's
// terms; PostgreSQL's statements call none of them.
//
//	seqd_mariadb_divisor(x)    x, or NULL when x is 0 (DivisionByZero):
//	                           the divisor of /, DIV and MOD
//	seqd_mariadb_double(s)     of a string, its longest prefix a number
//	                           reads (Truncated, or TruncatedSpaces when
//	                           only spaces follow it; "0" for none), past
//	                           DOUBLE's range its bound (Truncated); of
//	                           another type, the value itself
//	seqd_mariadb_double_text(f) a double's text as MariaDB writes it
//	                           (AppendMariaDBDouble: 1e20, not 1e+20)
//	seqd_mariadb_decimal_cast  CAST AS DECIMAL(p,s) (mariadb_decimal.go)
//	seqd_mariadb_signed(x)     CAST AS SIGNED: a string's integer prefix,
//	                           past 64 bits its bound (Truncated), from
//	                           2^63 its negative complement
//	                           (SignedComplement); a number rounded, out
//	                           of range its nearest bound (Overflow,
//	                           DoubleOverflow)
//	seqd_mariadb_unsigned(x)   CAST AS UNSIGNED: a string's integer
//	                           prefix, as above; a negative integer's
//	                           complement (NegativeUnsigned, not after a
//	                           bound); a number rounded, as above
//	seqd_mariadb_chars(s, n)   s's first n characters (Truncated)
//	seqd_mariadb_repeat(s, n, max)
//	                           s n times, '' for n < 1; NULL past max
//	                           bytes, MariaDB's max_allowed_packet
//	                           (PacketOverflow); charged to the
//	                           statement's memory

// Warning is a condition an expression raised.
type Warning struct {
	Kind WarningKind
	// Type and Value are a truncation's: the type read, as MariaDB
	// names it (INTEGER, DECIMAL, DOUBLE, CHAR(n)), and the value as it
	// was. An OutOfRange's Value is the column it names.
	Type, Value string
}

// WarningKind is what a Warning says.
type WarningKind uint8

const (
	// DivisionByZero: a division, DIV or MOD by zero was NULL.
	DivisionByZero WarningKind = iota + 1
	// Truncated: a conversion read part of its value.
	Truncated
	// TruncatedSpaces: a conversion left out the spaces that end its
	// value, and nothing else.
	TruncatedSpaces
	// NegativeUnsigned: CAST AS UNSIGNED took a negative number to its
	// complement.
	NegativeUnsigned
	// SignedComplement: CAST AS SIGNED took a number past 2^63 - 1 to
	// its negative complement.
	SignedComplement
	// Overflow: a decimal was out of the range of Type (INT, UNSIGNED
	// INT): its nearest bound was taken. DoubleOverflow: a double was
	// (SIGNED BIGINT, UNSIGNED BIGINT).
	Overflow
	DoubleOverflow
	// OutOfRange: a CAST to DECIMAL(p,s) took a number out of its range
	// to its nearest bound.
	OutOfRange
	// PacketOverflow: a string function's result (Type names it) would
	// pass Value bytes, max_allowed_packet: it was NULL.
	PacketOverflow
	// IllegalValue: a user variable's value no number begins was read
	// as a number of Type (DECIMAL): it was 0.
	IllegalValue
)

// Warner is what a session that keeps expressions' warnings offers the
// evaluator; a session without it drops them.
type Warner interface {
	Warn(Warning)
}

// Warn reports w to the session the evaluation runs for.
func (e *Env) Warn(w Warning) {
	if s, ok := e.Session.(Warner); ok {
		s.Warn(w)
	}
}

func init() {
	// Of each number type, integer first: a parameter or a literal of
	// no type yet is typed as NULLIF(x, 0) would type it.
	for _, t := range []*Type{TInt4, TInt8, TInt2, tNumeric, TFloat8, tFloat4} {
		Define("seqd_mariadb_divisor", nil, true, func(e *Env, a []Datum) (Datum, error) {
			if isZero(a[0]) {
				e.Warn(Warning{Kind: DivisionByZero})
				return Null, nil
			}
			return a[0], nil
		}, t)
	}
	Define("seqd_mariadb_double", nil, true, func(e *Env, a []Datum) (Datum, error) {
		if a[0].Kind != KText {
			return a[0], nil
		}
		prefix, kind := NumberPrefix(a[0].S, false)
		if bound, out := doubleBound(prefix); out {
			prefix, kind = bound, Truncated
		}
		if kind != 0 {
			e.Warn(Warning{Kind: kind, Type: "DOUBLE", Value: a[0].S})
		}
		return Text(prefix), nil
	}, nil)
	Define("seqd_mariadb_double_text", TText, true, func(e *Env, a []Datum) (Datum, error) {
		return Text(string(AppendMariaDBDouble(nil, a[0].F))), nil
	}, TFloat8)
	Define("seqd_mariadb_signed", TInt8, true, castSigned, nil)
	Define("seqd_mariadb_unsigned", tNumeric, true, castUnsigned, nil)
	Define("seqd_mariadb_chars", TText, true, func(e *Env, a []Datum) (Datum, error) {
		s, n := a[0].S, int(a[1].I)
		if n < 0 || utf8.RuneCountInString(s) <= n {
			return a[0], nil
		}
		e.Warn(Warning{Kind: Truncated, Type: "CHAR(" + strconv.Itoa(n) + ")", Value: s})
		i := 0
		for range n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		return Text(s[:i]), nil
	}, TText, TInt4)
	Define("seqd_mariadb_repeat", TText, true, func(e *Env, a []Datum) (Datum, error) {
		s, n, limit := a[0].S, a[1].I, a[2].I
		if n < 1 || s == "" {
			return Text(""), nil
		}
		if limit <= 0 || n > limit/int64(len(s)) {
			e.Warn(Warning{Kind: PacketOverflow, Type: "repeat", Value: strconv.FormatInt(limit, 10)})
			return Null, nil
		}
		// A result many times its input: it is counted against the
		// statement's memory (53200 past it) before it is made, with
		// the other values of its row (chargeMade), so that neither a
		// limit given from PostgreSQL's side nor many calls in one row
		// can take more.
		if err := e.chargeMade(int64(len(s)) * n); err != nil {
			return Null, err
		}
		return Text(strings.Repeat(s, int(n))), nil
	}, TText, TInt8, TInt8)
}

// The bounds of MariaDB's integers: BIGINT's and BIGINT UNSIGNED's.
var (
	two64  = new(big.Int).Lsh(big.NewInt(1), 64)
	two63  = new(big.Int).Lsh(big.NewInt(1), 63)
	maxU64 = new(big.Int).Sub(two64, big.NewInt(1))
	maxI64 = big.NewInt(math.MaxInt64)
	minI64 = big.NewInt(math.MinInt64)
)

// stringInteger is MariaDB's reading of s as an integer: its prefix
// (NumberPrefix), past BIGINT UNSIGNED's largest and BIGINT's smallest
// the bound (clamped, Truncated).
//
// A prefix of more digits than BIGINT UNSIGNED has (leading zeros aside)
// is past the bounds without being read: reading a decimal string into a
// big.Int takes time quadratic in its length, minutes for the 16 MB a
// statement may carry (LEFT('a', REPEAT('9', 4000000)) took 42 s).
func stringInteger(e *Env, s string) (v *big.Int, clamped bool) {
	prefix, kind := NumberPrefix(s, true)
	if digits := strings.TrimLeft(strings.TrimLeft(prefix, "+-"), "0"); len(digits) > len("18446744073709551615") {
		prefix = prefix[:len(prefix)-len(digits)] + "1" + strings.Repeat("0", len("18446744073709551615")) // past either bound
	}
	v, _ = new(big.Int).SetString(prefix, 10)
	switch {
	case v.Cmp(maxU64) > 0:
		v, kind, clamped = new(big.Int).Set(maxU64), Truncated, true
	case v.Cmp(minI64) < 0:
		v, kind, clamped = new(big.Int).Set(minI64), Truncated, true
	}
	if kind != 0 {
		e.Warn(Warning{Kind: kind, Type: "INTEGER", Value: s})
	}
	return v, clamped
}

// castSigned is CAST(x AS SIGNED).
func castSigned(e *Env, a []Datum) (Datum, error) {
	d := a[0]
	switch d.Kind {
	case KText:
		v, clamped := stringInteger(e, d.S)
		if v.Cmp(two63) >= 0 {
			v.Sub(v, two64)
			if !clamped {
				e.Warn(Warning{Kind: SignedComplement})
			}
		}
		return Int(v.Int64()), nil
	case KInt, KBool:
		return Int(d.I), nil
	}
	v, err := roundedInteger(d)
	if err != nil {
		return Null, err
	}
	if bound, out := outside(v, minI64, maxI64); out {
		e.Warn(overflow(d, "SIGNED BIGINT", "INT"))
		v = bound
	}
	return Int(v.Int64()), nil
}

// castUnsigned is CAST(x AS UNSIGNED), a numeric of 0 to 2^64 - 1.
func castUnsigned(e *Env, a []Datum) (Datum, error) {
	d := a[0]
	var v *big.Int
	switch d.Kind {
	case KText:
		var clamped bool
		if v, clamped = stringInteger(e, d.S); v.Sign() < 0 && !clamped {
			e.Warn(Warning{Kind: NegativeUnsigned})
		}
	case KInt, KBool:
		if v = big.NewInt(d.I); v.Sign() < 0 {
			e.Warn(Warning{Kind: NegativeUnsigned})
		}
	default:
		var err error
		if v, err = roundedInteger(d); err != nil {
			return Null, err
		}
		if bound, out := outside(v, new(big.Int), maxU64); out {
			e.Warn(overflow(d, "UNSIGNED BIGINT", "UNSIGNED INT"))
			v = bound
		}
	}
	if v.Sign() < 0 {
		v.Add(v, two64)
	}
	return numericIn(v.String())
}

// outside reports whether v is outside [lo, hi], and the bound nearest.
func outside(v, lo, hi *big.Int) (*big.Int, bool) {
	switch {
	case v.Cmp(lo) < 0:
		return new(big.Int).Set(lo), true
	case v.Cmp(hi) > 0:
		return new(big.Int).Set(hi), true
	}
	return v, false
}

// overflow is the warning for d, a double or a decimal, out of an
// integer type's range, which MariaDB names by the kind of number
// (doubles: a Note).
func overflow(d Datum, ofDouble, ofDecimal string) Warning {
	if d.Kind == KFloat {
		return Warning{Kind: DoubleOverflow, Type: ofDouble, Value: strings.Replace(strconv.FormatFloat(d.F, 'g', -1, 64), "e+", "e", 1)}
	}
	return Warning{Kind: Overflow, Type: ofDecimal, Value: d.S}
}

// roundedInteger is a double rounded half to even, as MariaDB rounds
// it, or a numeric rounded half away from zero.
func roundedInteger(d Datum) (*big.Int, error) {
	if d.Kind == KFloat {
		if math.IsNaN(d.F) || math.IsInf(d.F, 0) {
			return nil, outOfRange(TInt8)
		}
		v, _ := big.NewFloat(math.RoundToEven(d.F)).Int(nil)
		return v, nil
	}
	x, _ := decimal(d)
	if x.Form != apd.Finite {
		return nil, outOfRange(TInt8)
	}
	var r apd.Decimal
	c := exact
	c.Rounding = apd.RoundHalfUp
	c.Precision = uint32(max(int64(x.NumDigits())+int64(x.Exponent)+2, 1))
	if _, err := c.Quantize(&r, x, 0); err != nil {
		return nil, outOfRange(TInt8)
	}
	v, ok := new(big.Int).SetString(r.Text('f'), 10)
	if !ok {
		return nil, outOfRange(TInt8)
	}
	return v, nil
}

// isZero reports whether d is a number equal to 0.
func isZero(d Datum) bool {
	switch d.Kind {
	case KInt, KBool:
		return d.I == 0
	case KFloat:
		return d.F == 0
	case KNumeric:
		x, _ := decimal(d)
		return x.IsZero()
	}
	return false
}

// NumberPrefix is the longest prefix of s that MariaDB reads as a number
// (an integer's: sign and digits; else with a fraction and an exponent
// too), leading spaces skipped, "0" when there is none, and what was
// left out: nothing (0), spaces only (TruncatedSpaces) or more
// (Truncated).
func NumberPrefix(s string, integer bool) (string, WarningKind) {
	t := strings.TrimLeft(s, " \t\n\r")
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	digits := func(from int) int {
		for from < len(t) && t[from] >= '0' && t[from] <= '9' {
			from++
		}
		return from
	}
	intEnd := digits(i)
	end, seen := intEnd, intEnd > i
	if !integer {
		if end < len(t) && t[end] == '.' {
			if f := digits(end + 1); f > end+1 || seen {
				end, seen = f, seen || f > end+1
			}
		}
		if seen && end < len(t) && (t[end] == 'e' || t[end] == 'E') {
			j := end + 1
			if j < len(t) && (t[j] == '+' || t[j] == '-') {
				j++
			}
			if k := digits(j); k > j {
				end = k
			}
		}
	}
	if !seen {
		return "0", Truncated
	}
	switch rest := t[end:]; {
	case rest == "":
		return t[:end], 0
	case strings.Trim(rest, " ") == "":
		return t[:end], TruncatedSpaces
	}
	return t[:end], Truncated
}

// AppendMariaDBDouble appends f as MariaDB writes a DOUBLE's value (my_gcvt of
// the shortest digits that read back as f): positional, but in exponent
// form, without a + or leading zeros, where the point would stand more
// than 15 places after the first digit of one without a fraction (1e15,
// 1.5e16, 1.234567890123456e15) or 15 or more zeros would follow it
// (1e-16); 0 never signed.
func AppendMariaDBDouble(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0')
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], math.Abs(f), 'e', -1, 64) // d[.ddd]e±XX
	mark := bytes.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(string(e[mark+1:]))
	digits := mark
	if digits > 1 {
		digits-- // the point
	}
	if point := exp + 1; point >= -14 && (point <= 15 || digits > point) {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	if f < 0 {
		b = append(b, '-')
	}
	b = append(b, e[:mark]...)
	b = append(b, 'e')
	if exp < 0 {
		b, exp = append(b, '-'), -exp
	}
	return strconv.AppendInt(b, int64(exp), 10)
}
