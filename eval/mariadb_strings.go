package eval

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

// MariaDB's string functions that PostgreSQL's of the same name answer
// otherwise (a negative position, a count of no characters, a pad past
// max_allowed_packet), and its FLOOR, CEIL and ROUND of each kind of
// number, as sql/item_strfunc.cc and item_func.cc compute them. Positions
// and counts are characters, the strings being UTF-8 text.
//
//	seqd_mariadb_int(x)        Item::val_int: an integer as it is; a
//	                           decimal rounded half away from zero, out
//	                           of BIGINT's range its bound (Overflow); a
//	                           double rounded half to even, its bound
//	                           past the range (no warning); a string's
//	                           integer prefix (Truncated), from 2^63 its
//	                           negative complement, past 64 bits -1
//	seqd_mariadb_left(s, n)    s's first n characters, '' for n < 1
//	seqd_mariadb_right(s, n)   s's last n characters, '' for n < 1
//	seqd_mariadb_substr(s, pos [, len])
//	                           from pos (from the end where negative,
//	                           '' for 0), len characters ('' for len < 1)
//	seqd_mariadb_pad(s, n, pad, left, max)
//	                           s padded with pad to n characters (cut to
//	                           n where longer), on the left where left;
//	                           NULL for n < 0, for an empty pad that is
//	                           needed, and past max bytes of 4 a
//	                           character (PacketOverflow); counted
//	                           against the statement's memory with its
//	                           row's other values
//	seqd_mariadb_reverse(s)    s's characters in reverse order
//	seqd_mariadb_trim(s, r, how)
//	                           s without r repeated at its start (how 1),
//	                           its end (2) or both (0)
//	seqd_mariadb_floor(x), seqd_mariadb_ceil(x)
//	                           an integer as it is, a decimal's or a
//	                           double's integral value below or above
//	seqd_mariadb_round(x, d)   x rounded to d digits past the point (d < 0:
//	                           before it): an integer's or a decimal's half
//	                           away from zero (a numeric), a double's as
//	                           MariaDB's my_double_round (half to even of
//	                           x * 10^d)

func init() {
	Define("seqd_mariadb_int", TInt8, true, valInt, nil)
	Define("seqd_mariadb_left", TText, true, func(_ *Env, a []Datum) (Datum, error) {
		s, n := a[0].S, a[1].I
		if n < 1 {
			return Text(""), nil
		}
		return Text(s[:charsOffset(s, n)]), nil
	}, TText, TInt8)
	Define("seqd_mariadb_right", TText, true, func(_ *Env, a []Datum) (Datum, error) {
		s, n := a[0].S, a[1].I
		if n < 1 {
			return Text(""), nil
		}
		chars := int64(utf8.RuneCountInString(s))
		if n >= chars {
			return a[0], nil
		}
		return Text(s[charsOffset(s, chars-n):]), nil
	}, TText, TInt8)
	Define("seqd_mariadb_substr", TText, true, substrMariaDB, TText, TInt8)
	Define("seqd_mariadb_substr", TText, true, substrMariaDB, TText, TInt8, TInt8)
	Define("seqd_mariadb_pad", TText, true, padMariaDB, TText, TInt8, TText, TBool, TInt8)
	Define("seqd_mariadb_reverse", TText, true, func(_ *Env, a []Datum) (Datum, error) {
		r := []rune(a[0].S)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return Text(string(r)), nil
	}, TText)
	Define("seqd_mariadb_trim", TText, true, func(_ *Env, a []Datum) (Datum, error) {
		s, r, how := a[0].S, a[1].S, a[2].I
		if r == "" {
			return a[0], nil
		}
		if how != 2 {
			for strings.HasPrefix(s, r) {
				s = s[len(r):]
			}
		}
		if how != 1 {
			for strings.HasSuffix(s, r) {
				s = s[:len(s)-len(r)]
			}
		}
		return Text(s), nil
	}, TText, TText, TInt4)
	for _, t := range []*Type{TFloat8, TInt2, TInt4, TInt8, tNumeric} {
		Define("seqd_mariadb_floor", t, true, func(_ *Env, a []Datum) (Datum, error) { return integral(a[0], false), nil }, t)
		Define("seqd_mariadb_ceil", t, true, func(_ *Env, a []Datum) (Datum, error) { return integral(a[0], true), nil }, t)
	}
	Define("seqd_mariadb_round", TFloat8, true, func(_ *Env, a []Datum) (Datum, error) {
		return Float(doubleRound(a[0].F, a[1].I)), nil
	}, TFloat8, TInt8)
	for _, t := range []*Type{TInt2, TInt4, TInt8, tNumeric} {
		Define("seqd_mariadb_round", tNumeric, true, func(_ *Env, a []Datum) (Datum, error) {
			x := a[0]
			if x.Kind == KInt {
				if a[1].I >= 0 {
					return Numeric(new(apd.Decimal).SetInt64(x.I), 0), nil
				}
				x = Numeric(new(apd.Decimal).SetInt64(x.I), 0)
			}
			return numericRound(x, min(a[1].I, decimalMaxScale), false), nil
		}, t, TInt8)
	}
}

// decimalMaxScale is the most digits MariaDB's DECIMAL keeps past the
// point.
const decimalMaxScale = 38

// valInt is MariaDB's Item::val_int of x (seqd_mariadb_int).
func valInt(e *Env, a []Datum) (Datum, error) {
	d := a[0]
	switch d.Kind {
	case KText:
		v, _ := stringInteger(e, d.S)
		if v.Cmp(two63) >= 0 {
			v.Sub(v, two64)
		}
		return Int(v.Int64()), nil
	case KFloat:
		f := math.RoundToEven(d.F)
		switch {
		case math.IsNaN(f):
			return Int(0), nil
		case f >= math.MaxInt64:
			return Int(math.MaxInt64), nil
		case f <= math.MinInt64:
			return Int(math.MinInt64), nil
		}
		return Int(int64(f)), nil
	case KNumeric:
		v, err := roundedInteger(d)
		if err != nil {
			return Null, err
		}
		if bound, out := outside(v, minI64, maxI64); out {
			e.Warn(Warning{Kind: Overflow, Type: "INT", Value: d.S})
			v = bound
		}
		return Int(v.Int64()), nil
	}
	return Int(d.I), nil
}

// charsOffset is the byte offset of s's character n (0-based), len(s)
// where s has no more.
func charsOffset(s string, n int64) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// substrMariaDB is SUBSTRING(s, pos [, len]) as Item_func_substr.
func substrMariaDB(_ *Env, a []Datum) (Datum, error) {
	s, pos := a[0].S, a[1].I
	n := int64(math.MaxInt32)
	if len(a) == 3 {
		if n = a[2].I; n < 1 {
			return Text(""), nil
		}
	}
	if pos < math.MinInt32 || pos > math.MaxInt32 || pos == 0 {
		return Text(""), nil
	}
	chars := int64(utf8.RuneCountInString(s))
	start := pos - 1
	if pos < 0 {
		start = chars + pos
	}
	if start < 0 || start >= chars {
		return Text(""), nil
	}
	from := charsOffset(s, start)
	rest := s[from:]
	return Text(rest[:charsOffset(rest, n)]), nil
}

// padMariaDB is LPAD and RPAD as Item_func_lpad and Item_func_rpad.
func padMariaDB(e *Env, a []Datum) (Datum, error) {
	s, n, pad, left, limit := a[0].S, a[1].I, a[2].S, a[3].I != 0, a[4].I
	if n < 0 {
		return Null, nil
	}
	n = min(n, math.MaxInt32)
	chars := int64(utf8.RuneCountInString(s))
	if n <= chars {
		return Text(s[:charsOffset(s, n)]), nil
	}
	if n > limit/4 { // MariaDB's bound: 4 bytes (utf8mb4) a character
		name := "rpad"
		if left {
			name = "lpad"
		}
		e.Warn(Warning{Kind: PacketOverflow, Type: name, Value: strconv.FormatInt(limit, 10)})
		return Null, nil
	}
	if pad == "" {
		return Null, nil
	}
	padChars := int64(utf8.RuneCountInString(pad))
	need := n - chars
	full := need / padChars
	bytes := int64(len(s)) + full*int64(len(pad)) + int64(charsOffset(pad, need%padChars))
	if err := e.chargeMade(bytes); err != nil {
		return Null, err
	}
	var b strings.Builder
	b.Grow(int(bytes))
	if !left {
		b.WriteString(s)
	}
	for range full {
		b.WriteString(pad)
	}
	b.WriteString(pad[:charsOffset(pad, need%padChars)])
	if left {
		b.WriteString(s)
	}
	return Text(b.String()), nil
}

// integral is x's integral value below it (FLOOR) or above it (CEIL).
func integral(d Datum, up bool) Datum {
	switch d.Kind {
	case KFloat:
		if up {
			return Float(math.Ceil(d.F))
		}
		return Float(math.Floor(d.F))
	case KNumeric:
		x, _ := decimal(d)
		if x.Form != apd.Finite {
			return d
		}
		c := exact
		c.Rounding = apd.RoundFloor
		if up {
			c.Rounding = apd.RoundCeiling
		}
		c.Precision = uint32(max(int64(x.NumDigits())+int64(x.Exponent)+2, 1))
		var r apd.Decimal
		if _, err := c.Quantize(&r, x, 0); err != nil {
			return d
		}
		return Numeric(&r, 0)
	}
	return d
}

// doubleRound is MariaDB's my_double_round(x, d) (not truncating).
func doubleRound(x float64, d int64) float64 {
	d = min(max(d, -400), 400) // past 10^±308 alike; -d of BIGINT's least is itself
	abs := d
	if d < 0 {
		abs = -d
	}
	tmp := math.Pow(10, float64(abs))
	if abs <= 308 {
		tmp, _ = new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(abs), nil)).Float64()
	}
	switch {
	case d < 0 && math.IsInf(tmp, 0):
		return 0
	case d >= 0 && math.IsInf(x*tmp, 0):
		return x
	case d < 0:
		return math.RoundToEven(x/tmp) * tmp
	}
	return math.RoundToEven(x*tmp) / tmp
}
