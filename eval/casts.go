// Types meeting: implicit coercions, explicit casts (PostgreSQL's rules
// and range checks) and the common type of CASE branches and IN lists.

package eval

import (
	"math"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// settle gives an unknown-typed literal or parameter the type text, as
// PostgreSQL does where nothing else decides.
func (c *Compiler) settle(x Expr) Expr {
	if p, ok := x.(*paramExpr); ok {
		c.SetParam(p.n, TText)
	}
	if k, ok := x.(*constExpr); ok && k.t == tUnknown {
		return &constExpr{t: TText, d: k.d}
	}
	return x
}

func isUnknown(x Expr) bool {
	if p, ok := x.(*paramExpr); ok {
		return p.c.params[p.n-1] == nil
	}
	return x.Type() == tUnknown
}

// implicitOK reports whether PostgreSQL casts from to to implicitly.
func implicitOK(from, to *Type) bool {
	if from == to {
		return true
	}
	switch {
	case from.class == KInt && isPlainInt(from) && isPlainInt(to):
		lf, hf, _ := intRange(from)
		lt, ht, _ := intRange(to)
		return lt <= lf && hf <= ht
	case from.class == KInt && isPlainInt(from) && (to.class == KFloat || to.class == KNumeric):
		return true
	case from.class == KInt && isPlainInt(from) && (to.oid == OIDOid || IsReg(to)):
		return true
	case (from.oid == OIDOid || IsReg(from)) && (to.oid == OIDOid || IsReg(to)):
		return true
	case isString(from) && isString(to):
		return true
	case isString(from) && to.oid == OIDRegclass:
		return from.oid == OIDText || from.oid == OIDVarchar
	case from.oid == OIDFloat4 && to.oid == OIDFloat8, from.oid == OIDNumeric && to.class == KFloat:
		return true
	}
	return false
}

func isPlainInt(t *Type) bool { return t.oid == OIDInt2 || t.oid == OIDInt4 || t.oid == OIDInt8 }

func isString(t *Type) bool {
	return t.oid == OIDText || t.oid == OIDVarchar || t.oid == OIDName || t.oid == OIDBpchar || t.oid == OIDChar
}

// Coerce converts x to t where PostgreSQL would do so implicitly: an
// unknown literal through t's input function (at compile time, so the
// error points at the literal), a parameter by taking t as its type.
func (c *Compiler) Coerce(x Expr, t *Type, loc int32, what string) (Expr, error) {
	if x.Type() == t && !isUnknown(x) {
		return x, nil
	}
	if p, ok := x.(*paramExpr); ok && c.params[p.n-1] == nil {
		c.SetParam(p.n, t)
		return x, nil
	}
	if k, ok := x.(*constExpr); ok && k.t == tUnknown {
		if k.d.Kind == KNull {
			return &constExpr{t: t, d: Null}, nil
		}
		d, err := Input(c.Session, t, k.d.S)
		if err != nil {
			if se, ok := err.(*sqlerr.Error); ok {
				se.At(c.SQL, loc)
			}
			return nil, err
		}
		return &constExpr{t: t, d: d}, nil
	}
	if implicitOK(x.Type(), t) {
		if x.Type().oid == OIDBpchar && t.oid != OIDBpchar {
			return &castExpr{arg: x, to: t, loc: -1, q: c.SQL}, nil // without its padding
		}
		if x.Type().class == t.class && (t.class != KInt || !isPlainInt(t) || implicitOK(x.Type(), t)) && !IsReg(t) {
			return retype(x, t), nil
		}
		return &castExpr{arg: x, to: t, loc: -1, q: c.SQL}, nil
	}
	return nil, c.ErrAt(loc, sqlerr.DatatypeMismatch, "%s must be type %s, not type %s", what, t.sqlName, x.Type().sqlName)
}

// retyped gives an expression another type of the same representation.
type retyped struct {
	Expr
	t *Type
}

func (r *retyped) Type() *Type { return r.t }

func retype(x Expr, t *Type) Expr {
	if k, ok := x.(*constExpr); ok {
		return &constExpr{t: t, d: k.d}
	}
	return &retyped{Expr: x, t: t}
}

// explicitCast is CAST(x AS t) and x::t.
func (c *Compiler) explicitCast(x Expr, t *Type, loc int32) (Expr, error) {
	if isUnknown(x) {
		return c.Coerce(x, t, loc, "")
	}
	if !castable(x.Type(), t) {
		return nil, c.ErrAt(loc, sqlerr.CannotCoerce, "cannot cast type %s to %s", x.Type().sqlName, t.sqlName)
	}
	if k, ok := x.(*constExpr); ok {
		d, err := cast(c.Session, k.d, k.t, t)
		if err != nil {
			if se, ok := err.(*sqlerr.Error); ok && se.Pos == 0 {
				se.At(c.SQL, loc)
			}
			return nil, err
		}
		return &constExpr{t: t, d: d}, nil
	}
	return &castExpr{arg: x, to: t, loc: loc, q: c.SQL}, nil
}

// castable reports whether an explicit cast from to to exists.
func castable(from, to *Type) bool {
	if from == to || implicitOK(from, to) {
		return true
	}
	switch {
	case to.class == KText && !to.IsArray():
		return true // every type has an output function
	case from.class == KText && !from.IsArray():
		return true // and an input function
	case from.class == KInt && to.class == KInt, from.class == KFloat && to.class == KInt, from.class == KInt && to.class == KFloat:
		return true
	case from.class == KNumeric && isPlainInt(to), from.class == KFloat && to.class == KNumeric, from.class == KFloat && to.class == KFloat:
		return true
	case from.oid == OIDInt4 && to.oid == OIDBool, from.oid == OIDBool && to.oid == OIDInt4:
		return true
	case from.IsArray() && to.IsArray():
		return castable(from.Elem(), to.Elem())
	}
	return false
}

// cast converts a datum from one type to another, with PostgreSQL's
// range checks.
func cast(s Session, d Datum, from, to *Type) (Datum, error) {
	if d.Kind == KNull || from == to {
		return d, nil
	}
	switch {
	case to.class == KNumeric:
		return toNumeric(s, d, from)
	case from.class == KNumeric && isPlainInt(to):
		return numericInt(d, to)
	case to.oid == OIDFloat4 && d.Kind == KNumeric:
		return floatIn(to, d.S) // numeric_float4 reads numeric's text
	case to.oid == OIDFloat4 && (d.Kind == KInt || d.Kind == KFloat):
		return toFloat4(asFloat(d))
	case from.class == KNumeric && to.class == KFloat:
		return Float(numericFloat(d)), nil
	case from.oid == OIDChar && isPlainInt(to):
		// "char" to integer is its byte, signed.
		if d.S == "" {
			return Int(0), nil
		}
		return Int(int64(int8(d.S[0]))), nil
	case to.oid == OIDChar && isPlainInt(from):
		if d.I < math.MinInt8 || d.I > math.MaxInt8 {
			return Null, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "\"char\" out of range")
		}
		if d.I == 0 {
			return Text(""), nil
		}
		return Text(string([]byte{byte(d.I)})), nil
	}
	switch to.class {
	case KInt:
		var v int64
		switch d.Kind {
		case KInt, KBool:
			v = d.I
		case KFloat:
			if math.IsNaN(d.F) || d.F > math.MaxInt64 || d.F < math.MinInt64 {
				return Null, outOfRange(to)
			}
			v = int64(math.RoundToEven(d.F))
			if from.oid == OIDNumeric {
				v = int64(math.Round(d.F))
			}
		default:
			return Input(s, to, d.S)
		}
		if isPlainInt(to) || to.oid == OIDOid {
			lo, hi, _ := intRange(to)
			if to.oid == OIDOid && v < 0 && v >= math.MinInt32 {
				v += 1 << 32
			}
			if v < lo || v > hi {
				return Null, outOfRange(to)
			}
			return Int(v), nil
		}
		switch to.oid {
		case OIDRegclass:
			return s.RegclassOut(uint32(v)), nil
		case OIDRegtype:
			if t := TypeByOID(uint32(v)); t != nil {
				return Datum{Kind: KInt, I: v, S: t.sqlName}, nil
			}
		case OIDRegnsp, OIDRegrole, OIDRegproc, OIDRegprocedure:
			return s.RegOut(to.oid, uint32(v)), nil
		}
		return Int(v), nil
	case KText:
		var text string
		switch {
		case d.Kind == KBool && to.oid != OIDChar:
			text = "false"
			if d.I != 0 {
				text = "true"
			}
		default:
			text = string(AppendOutput(nil, from, d))
		}
		if to.oid == OIDTimestamptz || isDateTime(to) || to.oid == OIDBytea {
			return Input(s, to, text)
		}
		if to.oid == OIDChar && len(text) > 1 {
			text = text[:1]
		}
		if from.oid == OIDBpchar && to.oid != OIDBpchar {
			text = strings.TrimRight(text, " ") // bpchar's padding is not kept
		}
		return Text(text), nil
	case KBool:
		if d.Kind == KInt {
			return Bool(d.I != 0), nil
		}
		return Input(s, to, d.S)
	case KFloat:
		switch d.Kind {
		case KInt:
			return Float(float64(d.I)), nil
		case KFloat:
			return d, nil
		}
		return Input(s, to, d.S)
	case KArray:
		if d.Kind == KText {
			return arrayIn(s, to, d.S)
		}
		out := make([]Datum, len(d.A))
		for i, e := range d.A {
			v, err := cast(s, e, from.Elem(), to.Elem())
			if err != nil {
				return Null, err
			}
			out[i] = v
		}
		return Array(out...), nil
	}
	return d, nil
}

// toNumeric converts to numeric: an integer exactly, a double by its
// 15 significant digits (a real by 6), text by numeric_in.
func toNumeric(s Session, d Datum, from *Type) (Datum, error) {
	switch d.Kind {
	case KInt, KBool:
		return Datum{Kind: KNumeric, S: strconv.FormatInt(d.I, 10)}, nil
	case KFloat:
		if from.oid == OIDFloat4 {
			return floatNumeric(float64(float32(d.F)), 6), nil
		}
		return floatNumeric(d.F, 15), nil
	case KNumeric:
		return d, nil
	}
	return Input(s, tNumeric, d.S)
}

func outOfRange(t *Type) error {
	switch t.oid {
	case OIDInt2:
		return sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "smallint out of range")
	case OIDInt4:
		return sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "integer out of range")
	case OIDOid:
		return sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "OID out of range")
	}
	return sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "bigint out of range")
}

// unify compiles expressions that must share one type (CASE results,
// COALESCE, ARRAY[...]), resolving it as PostgreSQL's select_common_type
// does for the types seqd has.
func (c *Compiler) unify(sc *Scope, nodes []*pg.Node, what string) ([]Expr, *Type, error) {
	args := make([]Expr, len(nodes))
	for i, n := range nodes {
		x, err := c.Expr(sc, n)
		if err != nil {
			return nil, nil, err
		}
		args[i] = x
	}
	xs, t, err := c.unifyExprs(args, nodes, what)
	return xs, t, err
}

func (c *Compiler) unifyExprs(args []Expr, nodes []*pg.Node, what string) ([]Expr, *Type, error) {
	types := make([]*Type, len(args))
	for i, x := range args {
		if !isUnknown(x) {
			types[i] = x.Type()
		}
	}
	t, err := commonType(types, what)
	if err != nil {
		return nil, nil, err
	}
	for i, x := range args {
		loc := int32(-1)
		if nodes != nil {
			loc = Location(nodes[i])
		}
		y, err := c.Coerce(x, t, loc, what)
		if err != nil {
			return nil, nil, err
		}
		args[i] = y
	}
	return args, t, nil
}

// commonType is PostgreSQL's select_common_type: the type the inputs
// (nil for one of unknown type, a literal or parameter) all become, text
// when all are unknown.
func commonType(types []*Type, what string) (*Type, error) {
	var t *Type
	for _, xt := range types {
		switch {
		case xt == nil:
		case t == nil:
			t = xt
		case t == xt:
		case implicitOK(t, xt) && !implicitOK(xt, t):
			t = xt
		case implicitOK(xt, t):
		case isString(t) && isString(xt):
			t = TText
		default:
			return nil, sqlerr.Errorf(sqlerr.DatatypeMismatch, "%s types %s and %s cannot be matched", what, t.sqlName, xt.sqlName)
		}
	}
	if t == nil {
		t = TText
	}
	return t, nil
}

// Castable reports whether the evaluator casts from to to explicitly,
// ImplicitCast whether it does so implicitly (pg_cast's castcontext 'i').
func Castable(from, to *Type) bool     { return castable(from, to) }
func ImplicitCast(from, to *Type) bool { return implicitOK(from, to) }
