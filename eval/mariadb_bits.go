package eval

import (
	"math"

	"github.com/cockroachdb/apd/v3"
)

// MariaDB's bit operators, of unsigned 64-bit integers:
//
//	seqd_mariadb_bit_and(x, y)  x & y
//	seqd_mariadb_bit_or(x, y)   x | y
//	seqd_mariadb_bit_xor(x, y)  x ^ y
//	seqd_mariadb_bit_shl(x, y)  x << y
//	seqd_mariadb_bit_shr(x, y)  x >> y
//	seqd_mariadb_bit_not(x)     ~x
//
// Each a BIGINT UNSIGNED (numeric), its operands read as MariaDB's
// val_uint reads them: a BIGINT as its two's complement (-1 is
// 18446744073709551615), a BIGINT UNSIGNED as it is, a decimal or a
// double rounded half away from 0, a negative one held to BIGINT's range
// and a positive one to BIGINT UNSIGNED's, with 1916 (to INT, to UNSIGNED
// INT) past them (a double past a DECIMAL's digits first to DECIMAL(65)'s
// bound, with its 1916). A shift by 64 or more is 0. NULL where an
// operand is, both read before.

func init() {
	binary := map[string]func(x, y uint64) uint64{
		"and": func(x, y uint64) uint64 { return x & y },
		"or":  func(x, y uint64) uint64 { return x | y },
		"xor": func(x, y uint64) uint64 { return x ^ y },
		"shl": func(x, y uint64) uint64 {
			if y >= 64 {
				return 0
			}
			return x << y
		},
		"shr": func(x, y uint64) uint64 {
			if y >= 64 {
				return 0
			}
			return x >> y
		},
	}
	for name, op := range binary {
		Define("seqd_mariadb_bit_"+name, tNumeric, false, func(e *Env, a []Datum) (Datum, error) {
			x, xNull := bitOperand(e, a[0])
			y, yNull := bitOperand(e, a[1])
			if xNull || yNull {
				return Null, nil
			}
			return unsignedDatum(op(x, y)), nil
		}, nil, nil)
	}
	Define("seqd_mariadb_bit_not", tNumeric, false, func(e *Env, a []Datum) (Datum, error) {
		x, null := bitOperand(e, a[0])
		if null {
			return Null, nil
		}
		return unsignedDatum(^x), nil
	}, nil)
}

// bitOperand is d read as MariaDB's val_uint reads it; null where it is
// NULL.
func bitOperand(e *Env, d Datum) (uint64, bool) {
	switch d.Kind {
	case KNull:
		return 0, true
	case KInt, KBool:
		return uint64(d.I), false
	}
	x, _ := decimal(d)
	if x.Form != apd.Finite {
		return 0, false
	}
	if d.Kind == KFloat {
		clampDecimal(e, x) // as MariaDB reads a DOUBLE: through a DECIMAL, held to its bound
	}
	r := *x
	if x.Cmp(bigintMin) >= 0 && x.Cmp(unsignedMax) <= 0 {
		// Within the bounds: 20 digits, rounded half away from 0.
		ctx := apd.BaseContext.WithPrecision(40)
		ctx.Rounding = apd.RoundHalfUp
		if _, err := ctx.Quantize(&r, x, 0); err != nil {
			return 0, false
		}
	} else if _, err := apd.BaseContext.WithPrecision(400).Quantize(&r, x, 0); err != nil {
		r = *x // a double's hundreds of digits: named as they are
	}
	if r.Negative {
		if r.Cmp(bigintMin) < 0 {
			e.Warn(Warning{Kind: Overflow, Type: "INT", Value: x.Text('f')})
			return 1 << 63, false
		}
		i, _ := r.Int64()
		return uint64(i), false
	}
	if r.Cmp(unsignedMax) > 0 {
		e.Warn(Warning{Kind: Overflow, Type: "UNSIGNED INT", Value: x.Text('f')})
		return math.MaxUint64, false
	}
	if i, err := r.Int64(); err == nil {
		return uint64(i), false
	}
	var u apd.BigInt
	u.Set(&r.Coeff)
	return u.MathBigInt().Uint64(), false
}

// unsignedDatum is v, a BIGINT UNSIGNED, as a numeric.
func unsignedDatum(v uint64) Datum {
	var d apd.Decimal
	d.Coeff.SetUint64(v)
	return Numeric(&d, 0)
}
