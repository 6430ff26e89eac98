package eval

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

// sumState is sum's and avg's running sum, by the argument's type:
// smallint and integer in a bigint (whose overflow is an error, as
// PostgreSQL's int8 sum), bigint in 128 bits (PostgreSQL sums it in
// numeric: it cannot overflow), real and double in a double, numeric
// exactly, at the largest display scale fed. A finite real or double
// sum that overflows is an error, as PostgreSQL's float4pl, float8pl and
// float8_accum make it.
type sumState struct {
	i    int64
	wide int64 // bigint: the sum is i (as unsigned) plus wide times 2**64
	f    float64
	// sxx is avg's of a real or double: PostgreSQL's float8_accum's sum
	// of squared differences, kept for its overflow check alone.
	sxx    float64
	dec    apd.Decimal
	dscale int32
}

// addSum feeds d (not NULL) to sum or avg.
func (st *aggState) addSum(d Datum) error {
	s := &st.sum
	switch t := st.a.arg.Type(); {
	case t == tFloat4 && st.a.name == "sum":
		sum := float64(float32(s.f + d.F)) // real's sum is real's arithmetic (avg's is double's)
		if math.IsInf(sum, 0) && !math.IsInf(s.f, 0) && !math.IsInf(d.F, 0) {
			return errFloatOverflow()
		}
		s.f = sum
	case t.class == KFloat && st.a.name == "sum":
		sum := s.f + d.F
		if math.IsInf(sum, 0) && !math.IsInf(s.f, 0) && !math.IsInf(d.F, 0) {
			return errFloatOverflow()
		}
		s.f = sum
	case t.class == KFloat:
		return s.accum(d.F, st.n)
	case t == TInt8:
		lo, carry := bits.Add64(uint64(s.i), uint64(d.I), 0)
		s.wide += d.I>>63 + int64(carry) // d's sign extended, and the carry
		s.i = int64(lo)
	case t.class == KInt:
		sum, err := intArith(TInt8, "+", s.i, d.I)
		if err != nil {
			return err
		}
		s.i = sum.I
	default:
		x, scale := decimal(d)
		if _, err := exact.Add(&s.dec, &s.dec, x); err != nil {
			return err
		}
		s.dscale = max(s.dscale, scale)
	}
	return nil
}

// accum feeds x to avg of a real or double, the n-th value fed, as
// PostgreSQL's float8_accum: an error where finite values make the sum,
// or the sum of squared differences, infinite.
func (s *sumState) accum(x float64, n int64) error {
	before := s.f
	s.f += x
	if n == 1 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			s.sxx = math.NaN()
		}
		return nil
	}
	tmp := x*float64(n) - s.f
	s.sxx += tmp * tmp / (float64(n) * float64(n-1))
	if math.IsInf(s.f, 0) || math.IsInf(s.sxx, 0) {
		if !math.IsInf(before, 0) && !math.IsInf(x, 0) {
			return errFloatOverflow()
		}
		s.sxx = math.NaN()
	}
	return nil
}

// sumResult is sum's or avg's value (st.n > 0).
func (st *aggState) sumResult() (Datum, error) {
	s := &st.sum
	var sum Datum
	switch t := st.a.arg.Type(); {
	case t.class == KFloat:
		if st.a.name == "avg" {
			return Float(s.f / float64(st.n)), nil
		}
		return Float(s.f), nil
	case t == TInt8:
		v := new(big.Int).Lsh(big.NewInt(s.wide), 64)
		v.Add(v, new(big.Int).SetUint64(uint64(s.i)))
		sum = Datum{Kind: KNumeric, S: v.String()}
	case t.class == KInt && st.a.name == "sum":
		return Int(s.i), nil
	case t.class == KInt:
		sum = Int(s.i)
	default:
		sum = Numeric(&s.dec, s.dscale)
	}
	if st.a.name == "avg" {
		return numericArith("/", sum, Int(st.n))
	}
	return sum, nil
}
