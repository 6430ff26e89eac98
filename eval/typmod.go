package eval

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// withTypmod applies a cast's length to its result, as an explicit cast
// to character varying(n) and character(n) does: a longer value is cut
// to n characters, a shorter character(n) padded with spaces. (The
// evaluator has no assignment, where a value too long is an error.)
// Other types' modifiers are not kept.
func (c *Compiler) withTypmod(x Expr, tn *pg.TypeName) (Expr, error) {
	t := x.Type()
	if t.oid == OIDNumeric && len(tn.Typmods) > 0 && len(tn.ArrayBounds) == 0 {
		return c.numericTypmod(x, tn)
	}
	if t.oid != OIDVarchar && t.oid != OIDBpchar || len(tn.Typmods) == 0 || len(tn.ArrayBounds) > 0 {
		return x, nil
	}
	k := tn.Typmods[0].GetAConst()
	if len(tn.Typmods) != 1 || k == nil || k.GetIval() == nil {
		return nil, c.ErrAt(tn.Location, sqlerr.InvalidParameterValue, "invalid type modifier")
	}
	n := int(k.GetIval().Ival)
	if n < 1 {
		return nil, c.ErrAt(tn.Location, sqlerr.InvalidParameterValue, "length for type %s must be at least 1", t.name)
	}
	pad := t.oid == OIDBpchar
	fit := func(d Datum) Datum {
		if d.Kind == KNull {
			return d
		}
		return Text(fitLength(d.S, n, pad))
	}
	if k, ok := x.(*constExpr); ok {
		return &constExpr{t: t, d: fit(k.d)}, nil
	}
	return &funcExpr{t: t, strict: true, args: []Expr{x}, fn: func(_ *Env, a []Datum) (Datum, error) { return fit(a[0]), nil }}, nil
}

// fitLength cuts s to n characters, and pads it with spaces to n when
// pad.
func fitLength(s string, n int, pad bool) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	if pad && count < n {
		return s + strings.Repeat(" ", n-count)
	}
	return s
}

// unpadded is x without the trailing spaces of a character(n) value,
// as bpchar's comparisons and its casts to the other string types read
// it; other expressions as they are.
func unpadded(x Expr) Expr {
	if x.Type().oid != OIDBpchar {
		return x
	}
	if k, ok := x.(*constExpr); ok {
		if k.d.Kind == KNull {
			return x
		}
		return &constExpr{t: k.t, d: Text(strings.TrimRight(k.d.S, " "))}
	}
	return &funcExpr{t: x.Type(), strict: true, args: []Expr{x}, fn: func(_ *Env, a []Datum) (Datum, error) {
		return Text(strings.TrimRight(a[0].S, " ")), nil
	}}
}

// numericTypmod applies numeric(p, s) to a cast's result.
func (c *Compiler) numericTypmod(x Expr, tn *pg.TypeName) (Expr, error) {
	var mods []int32
	for _, m := range tn.Typmods {
		k := m.GetAConst()
		if k == nil || k.GetIval() == nil {
			return nil, c.ErrAt(tn.Location, sqlerr.InvalidParameterValue, "invalid type modifier")
		}
		mods = append(mods, k.GetIval().Ival)
	}
	if len(mods) > 2 {
		return nil, c.ErrAt(tn.Location, sqlerr.InvalidParameterValue, "invalid NUMERIC type modifier")
	}
	p, s := mods[0], int32(0)
	if len(mods) == 2 {
		s = mods[1]
	}
	if p < 1 || p > 1000 {
		return nil, c.ErrAt(tn.Location, sqlerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", p)
	}
	if s < -1000 || s > 1000 {
		return nil, c.ErrAt(tn.Location, sqlerr.InvalidParameterValue, "NUMERIC scale %d must be between -1000 and 1000", s)
	}
	if k, ok := x.(*constExpr); ok {
		if k.d.Kind == KNull {
			return x, nil
		}
		d, err := numericTypmod(k.d, p, s)
		if err != nil {
			return nil, err
		}
		return &constExpr{t: tNumeric, d: d}, nil
	}
	return &funcExpr{t: tNumeric, strict: true, args: []Expr{x}, fn: func(_ *Env, a []Datum) (Datum, error) { return numericTypmod(a[0], p, s) }}, nil
}
