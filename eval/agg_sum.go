package eval

import (
	"math/big"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

// sumState is sum's and avg's running sum, by the argument's type:
// smallint and integer in a bigint (whose overflow is an error, as
// PostgreSQL's int8 sum), bigint in 128 bits (PostgreSQL sums it in
// numeric: it cannot overflow), real and double in a double, numeric
// exactly, at the largest display scale fed.
type sumState struct {
	i      int64
	wide   int64 // bigint: the sum is i (as unsigned) plus wide times 2**64
	f      float64
	dec    apd.Decimal
	dscale int32
}

// addSum feeds d (not NULL) to sum or avg.
func (st *aggState) addSum(d Datum) error {
	s := &st.sum
	switch t := st.a.arg.Type(); {
	case t == tFloat4 && st.a.name == "sum":
		s.f = float64(float32(s.f + d.F)) // real's sum is real's arithmetic (avg's is double's)
	case t.class == KFloat:
		s.f += d.F
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
