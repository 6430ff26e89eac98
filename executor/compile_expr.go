package executor

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sql"
)

// compiler turns one statement's parse tree into a plan, inferring the
// types of its parameters on the way, as PostgreSQL's parse analysis does.
type compiler struct {
	s      *Session
	query  string
	params []*Type // nil: not yet known
	// aggs collects the aggregate calls of the select list being compiled
	// under GROUP BY; nil when aggregates are not allowed.
	aggs *[]*aggCall
}

// maxParams is the most parameters a statement may have.
const maxParams = 65535

func (c *compiler) setParam(n int, t *Type) {
	for len(c.params) < n {
		c.params = append(c.params, nil)
	}
	if c.params[n-1] == nil {
		c.params[n-1] = t
	}
}

// paramTypes are the final parameter types: text where nothing decided.
func (c *compiler) paramTypes() []*Type {
	out := make([]*Type, len(c.params))
	for i, t := range c.params {
		if t == nil {
			t = tText
		}
		out[i] = t
	}
	return out
}

func (c *compiler) errAt(loc int32, k sql.Kind, format string, args ...any) *sql.Error {
	return sql.Errorf(k, format, args...).At(c.query, loc)
}

// column is a FROM item's column.
type relCol struct {
	name string
	t    *Type
}

// scope is what column references can name: the FROM items, each with
// its alias and columns, laid side by side in the row.
type scope struct {
	items []scopeItem
	width int
}

type scopeItem struct {
	alias    string
	schema   string // for schema.table.column references
	cols     []relCol
	offset   int
	tableOID uint32
}

func (sc *scope) add(alias, schema string, cols []relCol, tableOID uint32) {
	sc.items = append(sc.items, scopeItem{alias: alias, schema: schema, cols: cols, offset: sc.width, tableOID: tableOID})
	sc.width += len(cols)
}

func strs(nodes []*pg.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

// columnRef resolves a.b.c style references.
func (c *compiler) columnRef(sc *scope, ref *pg.ColumnRef) (expr, error) {
	names := strs(ref.Fields)
	if len(names) != len(ref.Fields) {
		return nil, c.errAt(ref.Location, sql.FeatureNotSupported, "seqd does not support * here")
	}
	col := names[len(names)-1]
	var table, schema string
	switch len(names) {
	case 2:
		table = names[0]
	case 3:
		schema, table = names[0], names[1]
	case 4:
		return nil, c.errAt(ref.Location, sql.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(names, "."))
	}
	var found expr
	tableSeen := table == ""
	for _, it := range sc.items {
		if table != "" && (it.alias != table || schema != "" && it.schema != schema) {
			continue
		}
		tableSeen = true
		for i, rc := range it.cols {
			if rc.name == col {
				if found != nil {
					return nil, c.errAt(ref.Location, sql.AmbiguousColumn, "column reference \"%s\" is ambiguous", col)
				}
				found = &colExpr{t: rc.t, idx: it.offset + i}
			}
		}
	}
	if found != nil {
		return found, nil
	}
	if !tableSeen {
		return nil, c.errAt(ref.Location, sql.UndefinedTable, "missing FROM-clause entry for table \"%s\"", table)
	}
	if table != "" {
		return nil, c.errAt(ref.Location, sql.UndefinedColumn, "column %s.%s does not exist", table, col)
	}
	err := c.errAt(ref.Location, sql.UndefinedColumn, "column \"%s\" does not exist", col)
	return nil, err
}

// expr compiles an expression in sc.
func (c *compiler) expr(sc *scope, n *pg.Node) (expr, error) {
	switch {
	case n.GetAConst() != nil:
		return c.constant(n.GetAConst())
	case n.GetColumnRef() != nil:
		return c.columnRef(sc, n.GetColumnRef())
	case n.GetParamRef() != nil:
		p := n.GetParamRef()
		// The protocol's Bind carries at most 65535 values: a higher
		// parameter could never be bound.
		if p.Number < 1 || p.Number > maxParams {
			return nil, c.errAt(p.Location, sql.UndefinedParameter, "there is no parameter $%d", p.Number)
		}
		c.setParam(int(p.Number), nil)
		return &paramExpr{c: c, n: int(p.Number)}, nil
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		t, err := c.typeName(tc.TypeName)
		if err != nil {
			return nil, err
		}
		arg, err := c.expr(sc, tc.Arg)
		if err != nil {
			return nil, err
		}
		return c.explicitCast(arg, t, tc.Location)
	case n.GetFuncCall() != nil:
		return c.funcCall(sc, n.GetFuncCall())
	case n.GetAExpr() != nil:
		return c.aExpr(sc, n.GetAExpr())
	case n.GetBoolExpr() != nil:
		b := n.GetBoolExpr()
		op := map[pg.BoolExprType]byte{pg.BoolExprType_AND_EXPR: '&', pg.BoolExprType_OR_EXPR: '|', pg.BoolExprType_NOT_EXPR: '!'}[b.Boolop]
		out := &boolExpr{op: op}
		for _, a := range b.Args {
			x, err := c.boolArg(sc, a)
			if err != nil {
				return nil, err
			}
			out.args = append(out.args, x)
		}
		return out, nil
	case n.GetNullTest() != nil:
		t := n.GetNullTest()
		x, err := c.expr(sc, t.Arg)
		if err != nil {
			return nil, err
		}
		return &nullTest{arg: c.settle(x), not: t.Nulltesttype == pg.NullTestType_IS_NOT_NULL}, nil
	case n.GetBooleanTest() != nil:
		t := n.GetBooleanTest()
		x, err := c.boolArg(sc, t.Arg)
		if err != nil {
			return nil, err
		}
		bt := &boolTest{arg: x}
		switch t.Booltesttype {
		case pg.BoolTestType_IS_TRUE, pg.BoolTestType_IS_NOT_TRUE:
			bt.want, bt.not = 1, t.Booltesttype == pg.BoolTestType_IS_NOT_TRUE
		case pg.BoolTestType_IS_FALSE, pg.BoolTestType_IS_NOT_FALSE:
			bt.want, bt.not = 0, t.Booltesttype == pg.BoolTestType_IS_NOT_FALSE
		default:
			bt.want, bt.not = -1, t.Booltesttype == pg.BoolTestType_IS_NOT_UNKNOWN
		}
		return bt, nil
	case n.GetCaseExpr() != nil:
		return c.caseExpr(sc, n.GetCaseExpr())
	case n.GetCoalesceExpr() != nil:
		ce := n.GetCoalesceExpr()
		args, t, err := c.unify(sc, ce.Args, "COALESCE")
		if err != nil {
			return nil, err
		}
		return &coalesceExpr{t: t, args: args}, nil
	case n.GetMinMaxExpr() != nil:
		m := n.GetMinMaxExpr()
		name := "GREATEST"
		if m.Op == pg.MinMaxOp_IS_LEAST {
			name = "LEAST"
		}
		args, t, err := c.unify(sc, m.Args, name)
		if err != nil {
			return nil, err
		}
		return &minMaxExpr{t: t, least: m.Op == pg.MinMaxOp_IS_LEAST, args: args}, nil
	case n.GetSqlvalueFunction() != nil:
		return c.sqlValueFunction(n.GetSqlvalueFunction())
	case n.GetCollateClause() != nil:
		return c.expr(sc, n.GetCollateClause().Arg)
	case n.GetAArrayExpr() != nil:
		a := n.GetAArrayExpr()
		args, t, err := c.unify(sc, a.Elements, "ARRAY")
		if err != nil {
			return nil, err
		}
		if t == tUnknown {
			t = tText
		}
		at := typeByOID(t.array)
		if at == nil {
			return nil, c.errAt(a.Location, sql.UndefinedObject, "could not find array type for data type %s", t.sqlName)
		}
		return &arrayExpr{t: at, elems: args}, nil
	case n.GetAIndirection() != nil:
		ind := n.GetAIndirection()
		arr, err := c.expr(sc, ind.Arg)
		if err != nil {
			return nil, err
		}
		if len(ind.Indirection) != 1 || ind.Indirection[0].GetAIndices() == nil || ind.Indirection[0].GetAIndices().IsSlice || arr.typ().Elem() == nil {
			return nil, c.errAt(-1, sql.FeatureNotSupported, "seqd supports only a single array subscript")
		}
		idx, err := c.expr(sc, ind.Indirection[0].GetAIndices().Uidx)
		if err != nil {
			return nil, err
		}
		if idx, err = c.coerce(idx, tInt4, -1, "array subscript"); err != nil {
			return nil, err
		}
		return &subscriptExpr{t: arr.typ().Elem(), arr: arr, idx: idx}, nil
	case n.GetSubLink() != nil:
		return c.subLink(sc, n.GetSubLink())
	case n.GetRowExpr() != nil:
		return nil, c.errAt(n.GetRowExpr().Location, sql.FeatureNotSupported, "seqd does not support row constructors")
	}
	return nil, sql.Errorf(sql.FeatureNotSupported, "seqd does not support this expression (%s)", nodeName(n))
}

// nodeName names a parse node's kind for messages.
func nodeName(n *pg.Node) string {
	name := fmt.Sprintf("%T", n.GetNode())
	name = strings.TrimPrefix(name, "*pg_query.Node_")
	return name
}

func (c *compiler) boolArg(sc *scope, n *pg.Node) (expr, error) {
	x, err := c.expr(sc, n)
	if err != nil {
		return nil, err
	}
	return c.coerce(x, tBool, exprLoc(n), "argument of boolean expression")
}

// constant compiles a literal: an integer is int4 if it fits, else int8,
// else numeric; a string is of unknown type until its context decides.
func (c *compiler) constant(k *pg.A_Const) (expr, error) {
	if k.Isnull {
		return &constExpr{t: tUnknown, d: Null}, nil
	}
	switch v := k.Val.(type) {
	case *pg.A_Const_Ival:
		return &constExpr{t: tInt4, d: Int(int64(v.Ival.Ival))}, nil
	case *pg.A_Const_Fval:
		if i, err := strconv.ParseInt(v.Fval.Fval, 10, 64); err == nil {
			return &constExpr{t: tInt8, d: Int(i)}, nil
		}
		f, err := strconv.ParseFloat(v.Fval.Fval, 64)
		if err != nil {
			return nil, c.errAt(k.Location, sql.InvalidTextRepresentation, "invalid input syntax for type numeric: \"%s\"", v.Fval.Fval)
		}
		return &constExpr{t: tNumeric, d: Datum{Kind: KFloat, F: f, S: v.Fval.Fval}}, nil
	case *pg.A_Const_Boolval:
		return &constExpr{t: tBool, d: Bool(v.Boolval.Boolval)}, nil
	case *pg.A_Const_Sval:
		return &constExpr{t: tUnknown, d: Text(v.Sval.Sval)}, nil
	case *pg.A_Const_Bsval:
		return nil, c.errAt(k.Location, sql.FeatureNotSupported, "seqd does not support bit-string literals")
	}
	return &constExpr{t: tUnknown, d: Null}, nil
}

// typeName resolves a TypeName node.
func (c *compiler) typeName(tn *pg.TypeName) (*Type, error) {
	names := strs(tn.Names)
	t := lookupType(names)
	if t == nil {
		return nil, c.errAt(tn.Location, sql.UndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
	}
	if len(tn.ArrayBounds) > 0 {
		if at := typeByOID(t.array); at != nil {
			t = at
		}
	}
	return t, nil
}

// settle gives an unknown-typed literal or parameter the type text, as
// PostgreSQL does where nothing else decides.
func (c *compiler) settle(x expr) expr {
	if p, ok := x.(*paramExpr); ok {
		c.setParam(p.n, tText)
	}
	if k, ok := x.(*constExpr); ok && k.t == tUnknown {
		return &constExpr{t: tText, d: k.d}
	}
	return x
}

func isUnknown(x expr) bool {
	if p, ok := x.(*paramExpr); ok {
		return p.c.params[p.n-1] == nil
	}
	return x.typ() == tUnknown
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
	case from.class == KInt && isPlainInt(from) && to.class == KFloat:
		return true
	case from.class == KInt && isPlainInt(from) && (to.oid == OIDOid || to.oid == OIDRegclass || to.oid == OIDRegtype || to.oid == OIDRegproc):
		return true
	case (from.oid == OIDOid || from.oid == OIDRegclass || from.oid == OIDRegtype) && (to.oid == OIDOid || to.oid == OIDRegclass || to.oid == OIDRegtype):
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

// coerce converts x to t where PostgreSQL would do so implicitly: an
// unknown literal through t's input function (at compile time, so the
// error points at the literal), a parameter by taking t as its type.
func (c *compiler) coerce(x expr, t *Type, loc int32, what string) (expr, error) {
	if x.typ() == t && !isUnknown(x) {
		return x, nil
	}
	if p, ok := x.(*paramExpr); ok && c.params[p.n-1] == nil {
		c.setParam(p.n, t)
		return x, nil
	}
	if k, ok := x.(*constExpr); ok && k.t == tUnknown {
		if k.d.Kind == KNull {
			return &constExpr{t: t, d: Null}, nil
		}
		d, err := c.s.input(t, k.d.S)
		if err != nil {
			if se, ok := err.(*sql.Error); ok {
				se.At(c.query, loc)
			}
			return nil, err
		}
		return &constExpr{t: t, d: d}, nil
	}
	if implicitOK(x.typ(), t) {
		if x.typ().class == t.class && (t.class != KInt || !isPlainInt(t) || implicitOK(x.typ(), t)) && t.oid != OIDRegclass {
			return retype(x, t), nil
		}
		return &castExpr{arg: x, to: t, loc: -1, q: c.query}, nil
	}
	return nil, c.errAt(loc, sql.DatatypeMismatch, "%s must be type %s, not type %s", what, t.sqlName, x.typ().sqlName)
}

// retyped gives an expression another type of the same representation.
type retyped struct {
	expr
	t *Type
}

func (r *retyped) typ() *Type { return r.t }

func retype(x expr, t *Type) expr {
	if k, ok := x.(*constExpr); ok {
		return &constExpr{t: t, d: k.d}
	}
	return &retyped{expr: x, t: t}
}

// explicitCast is CAST(x AS t) and x::t.
func (c *compiler) explicitCast(x expr, t *Type, loc int32) (expr, error) {
	if isUnknown(x) {
		return c.coerce(x, t, loc, "")
	}
	if !castable(x.typ(), t) {
		return nil, c.errAt(loc, sql.CannotCoerce, "cannot cast type %s to %s", x.typ().sqlName, t.sqlName)
	}
	if k, ok := x.(*constExpr); ok {
		d, err := c.s.cast(k.d, k.t, t)
		if err != nil {
			if se, ok := err.(*sql.Error); ok && se.Pos == 0 {
				se.At(c.query, loc)
			}
			return nil, err
		}
		return &constExpr{t: t, d: d}, nil
	}
	return &castExpr{arg: x, to: t, loc: loc, q: c.query}, nil
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
	case from.oid == OIDInt4 && to.oid == OIDBool, from.oid == OIDBool && to.oid == OIDInt4:
		return true
	case from.IsArray() && to.IsArray():
		return castable(from.Elem(), to.Elem())
	}
	return false
}

// cast converts a datum from one type to another, with PostgreSQL's
// range checks.
func (s *Session) cast(d Datum, from, to *Type) (Datum, error) {
	if d.Kind == KNull || from == to {
		return d, nil
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
			return s.input(to, d.S)
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
			return s.regclassOf(uint32(v)), nil
		case OIDRegtype:
			if t := typeByOID(uint32(v)); t != nil {
				return Datum{Kind: KInt, I: v, S: t.sqlName}, nil
			}
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
		if to.oid == OIDChar && len(text) > 1 {
			text = text[:1]
		}
		return Text(text), nil
	case KBool:
		if d.Kind == KInt {
			return Bool(d.I != 0), nil
		}
		return s.input(to, d.S)
	case KFloat:
		switch d.Kind {
		case KInt:
			return Float(float64(d.I)), nil
		case KFloat:
			return d, nil
		}
		return s.input(to, d.S)
	case KArray:
		if d.Kind == KText {
			return s.arrayIn(to, d.S)
		}
		out := make([]Datum, len(d.A))
		for i, e := range d.A {
			v, err := s.cast(e, from.Elem(), to.Elem())
			if err != nil {
				return Null, err
			}
			out[i] = v
		}
		return Array(out...), nil
	}
	return d, nil
}

func outOfRange(t *Type) error {
	switch t.oid {
	case OIDInt2:
		return sql.Errorf(sql.NumericValueOutOfRange, "smallint out of range")
	case OIDInt4:
		return sql.Errorf(sql.NumericValueOutOfRange, "integer out of range")
	case OIDOid:
		return sql.Errorf(sql.NumericValueOutOfRange, "OID out of range")
	}
	return sql.Errorf(sql.NumericValueOutOfRange, "bigint out of range")
}

// exprLoc is the location of a parse node, -1 if it has none.
func exprLoc(n *pg.Node) int32 {
	switch {
	case n == nil:
		return -1
	case n.GetAConst() != nil:
		return n.GetAConst().Location
	case n.GetColumnRef() != nil:
		return n.GetColumnRef().Location
	case n.GetParamRef() != nil:
		return n.GetParamRef().Location
	case n.GetFuncCall() != nil:
		return n.GetFuncCall().Location
	case n.GetTypeCast() != nil:
		return n.GetTypeCast().Location
	case n.GetAExpr() != nil:
		return n.GetAExpr().Location
	}
	return -1
}

// unify compiles expressions that must share one type (CASE results,
// COALESCE, ARRAY[...]), resolving it as PostgreSQL's select_common_type
// does for the types seqd has.
func (c *compiler) unify(sc *scope, nodes []*pg.Node, what string) ([]expr, *Type, error) {
	args := make([]expr, len(nodes))
	for i, n := range nodes {
		x, err := c.expr(sc, n)
		if err != nil {
			return nil, nil, err
		}
		args[i] = x
	}
	xs, t, err := c.unifyExprs(args, nodes, what)
	return xs, t, err
}

func (c *compiler) unifyExprs(args []expr, nodes []*pg.Node, what string) ([]expr, *Type, error) {
	var t *Type
	for _, x := range args {
		if isUnknown(x) {
			continue
		}
		xt := x.typ()
		switch {
		case t == nil:
			t = xt
		case t == xt:
		case implicitOK(t, xt) && !implicitOK(xt, t):
			t = xt
		case implicitOK(xt, t):
		case isString(t) && isString(xt):
			t = tText
		default:
			return nil, nil, c.errAt(-1, sql.DatatypeMismatch, "%s types %s and %s cannot be matched", what, t.sqlName, xt.sqlName)
		}
	}
	if t == nil {
		t = tText
	}
	for i, x := range args {
		loc := int32(-1)
		if nodes != nil {
			loc = exprLoc(nodes[i])
		}
		y, err := c.coerce(x, t, loc, what)
		if err != nil {
			return nil, nil, err
		}
		args[i] = y
	}
	return args, t, nil
}

func (c *compiler) caseExpr(sc *scope, ce *pg.CaseExpr) (expr, error) {
	out := &caseExpr{}
	var results []*pg.Node
	for _, w := range ce.Args {
		results = append(results, w.GetCaseWhen().Result)
	}
	if ce.Defresult != nil {
		results = append(results, ce.Defresult)
	}
	rs, t, err := c.unify(sc, results, "CASE")
	if err != nil {
		return nil, err
	}
	out.t = t
	if ce.Arg != nil {
		if out.arg, err = c.expr(sc, ce.Arg); err != nil {
			return nil, err
		}
	}
	for i, w := range ce.Args {
		cw := w.GetCaseWhen()
		var cond expr
		if out.arg != nil {
			x, err := c.expr(sc, cw.Expr)
			if err != nil {
				return nil, err
			}
			xs, _, err := c.unifyExprs([]expr{out.arg, x}, []*pg.Node{ce.Arg, cw.Expr}, "CASE/WHEN")
			if err != nil {
				return nil, err
			}
			out.arg, cond = xs[0], xs[1]
		} else if cond, err = c.boolArg(sc, cw.Expr); err != nil {
			return nil, err
		}
		out.whens = append(out.whens, cond)
		out.thens = append(out.thens, rs[i])
	}
	if ce.Defresult != nil {
		out.els = rs[len(rs)-1]
	}
	return out, nil
}

func (c *compiler) sqlValueFunction(f *pg.SQLValueFunction) (expr, error) {
	switch f.Op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_USER, pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return &constExpr{t: tName, d: Text(c.s.cfg.User)}, nil
	case pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return &constExpr{t: tName, d: Text(c.s.sessionUser())}, nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return &constExpr{t: tName, d: Text(c.s.cfg.Database)}, nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return &funcExpr{t: tName, fn: func(e *env, _ []Datum) (Datum, error) { return e.s.currentSchema(), nil }}, nil
	}
	return nil, c.errAt(f.Location, sql.FeatureNotSupported, "seqd does not support date and time functions")
}

// aExpr compiles operators.
func (c *compiler) aExpr(sc *scope, a *pg.A_Expr) (expr, error) {
	names := strs(a.Name)
	op := ""
	if len(names) > 0 {
		op = names[len(names)-1]
		if len(names) == 2 && names[0] != "pg_catalog" {
			return nil, c.errAt(a.Location, sql.UndefinedFunction, "operator does not exist: %s", strings.Join(names, "."))
		}
	}
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if a.Lexpr == nil {
			return c.prefixOp(sc, op, a)
		}
		return c.binaryOp(sc, op, a.Lexpr, a.Rexpr, a.Location)
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		l, r, err := c.operands(sc, a.Lexpr, a.Rexpr)
		if err != nil {
			return nil, err
		}
		if isUnknown(r) && !isUnknown(l) {
			if r, err = c.coerce(r, typeByOID(l.typ().array), exprLoc(a.Rexpr), "ANY"); err != nil {
				return nil, err
			}
		}
		if r.typ().Elem() == nil {
			return nil, c.errAt(a.Location, sql.DatatypeMismatch, "op ANY/ALL (array) requires array on right side")
		}
		switch elem := r.typ().Elem(); {
		case isUnknown(l) || implicitOK(l.typ(), elem):
			if l, err = c.coerce(l, elem, exprLoc(a.Lexpr), "ANY"); err != nil {
				return nil, err
			}
		case !comparable(l.typ(), elem) && !(isString(l.typ()) && isString(elem)):
			return nil, c.errAt(a.Location, sql.UndefinedFunction, "operator does not exist: %s %s %s", l.typ().sqlName, op, elem.sqlName).
				WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
		}
		if !isCmpOp(op) {
			return nil, c.errAt(a.Location, sql.FeatureNotSupported, "seqd supports only comparisons with ANY/ALL")
		}
		return &anyExpr{op: op, l: l, arr: r, all: a.Kind == pg.A_Expr_Kind_AEXPR_OP_ALL}, nil
	case pg.A_Expr_Kind_AEXPR_IN:
		l, err := c.expr(sc, a.Lexpr)
		if err != nil {
			return nil, err
		}
		list := a.Rexpr.GetList().GetItems()
		xs := []expr{l}
		for _, n := range list {
			x, err := c.expr(sc, n)
			if err != nil {
				return nil, err
			}
			xs = append(xs, x)
		}
		xs, _, err = c.unifyExprs(xs, append([]*pg.Node{a.Lexpr}, list...), "IN")
		if err != nil {
			return nil, err
		}
		cmp := "="
		if op == "<>" {
			cmp = "<>"
		}
		return &anyExpr{op: cmp, l: xs[0], list: xs[1:], all: cmp == "<>"}, nil
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		l, r, err := c.operands(sc, a.Lexpr, a.Rexpr)
		if err != nil {
			return nil, err
		}
		return c.match(l, r, a.Lexpr, a.Rexpr, op, a.Location, true, a.Kind == pg.A_Expr_Kind_AEXPR_ILIKE, strings.HasPrefix(op, "!"))
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		x, err := c.binaryOp(sc, "=", a.Lexpr, a.Rexpr, a.Location)
		if err != nil {
			return nil, err
		}
		cmp := x.(*cmpExpr)
		cmp.distinct = 1
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT {
			cmp.distinct = -1
		}
		return cmp, nil
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		x, err := c.binaryOp(sc, "=", a.Lexpr, a.Rexpr, a.Location)
		if err != nil {
			return nil, err
		}
		cmp := x.(*cmpExpr)
		return &funcExpr{t: cmp.l.typ(), args: []expr{cmp.l, cmp.r}, fn: func(_ *env, args []Datum) (Datum, error) {
			if args[0].Kind != KNull && args[1].Kind != KNull && compare(args[0], args[1]) == 0 {
				return Null, nil
			}
			return args[0], nil
		}}, nil
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		bounds := a.Rexpr.GetList().GetItems()
		lo, err := c.binaryOp(sc, ">=", a.Lexpr, bounds[0], a.Location)
		if err != nil {
			return nil, err
		}
		hi, err := c.binaryOp(sc, "<=", a.Lexpr, bounds[1], a.Location)
		if err != nil {
			return nil, err
		}
		var x expr = &boolExpr{op: '&', args: []expr{lo, hi}}
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			x = &boolExpr{op: '!', args: []expr{x}}
		}
		return x, nil
	}
	return nil, c.errAt(a.Location, sql.FeatureNotSupported, "seqd does not support this operator form")
}

func isCmpOp(op string) bool {
	switch op {
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

func comparable(a, b *Type) bool {
	return a.class == b.class || a.class == KInt && b.class == KFloat || a.class == KFloat && b.class == KInt
}

func (c *compiler) prefixOp(sc *scope, op string, a *pg.A_Expr) (expr, error) {
	x, err := c.expr(sc, a.Rexpr)
	if err != nil {
		return nil, err
	}
	switch op {
	case "-":
		if isUnknown(x) {
			if x, err = c.coerce(x, tInt4, exprLoc(a.Rexpr), "operand"); err != nil {
				return nil, err
			}
		}
		t := x.typ()
		if t.class != KInt && t.class != KFloat {
			return nil, c.errAt(a.Location, sql.UndefinedFunction, "operator does not exist: - %s", t.sqlName).
				WithHint("No operator matches the given name and argument type. You might need to add an explicit type cast.")
		}
		return &funcExpr{t: t, strict: true, args: []expr{x}, fn: func(_ *env, args []Datum) (Datum, error) {
			if args[0].Kind == KFloat {
				return Float(-args[0].F), nil
			}
			return checkedInt(t, -args[0].I, args[0].I == math.MinInt64)
		}}, nil
	case "+":
		return x, nil
	}
	return nil, c.errAt(a.Location, sql.UndefinedFunction, "operator does not exist: %s %s", op, x.typ().sqlName)
}

// checkedInt returns v as type t, or t's out-of-range error.
func checkedInt(t *Type, v int64, overflow bool) (Datum, error) {
	lo, hi, _ := intRange(t)
	if overflow || v < lo || v > hi {
		return Null, outOfRange(t)
	}
	return Int(v), nil
}

// match compiles the pattern operators: ~, ~*, !~, !~* and LIKE, ILIKE
// (~~, ~~*) and their negations. op names the operator in errors.
func (c *compiler) match(l, r expr, ln, rn *pg.Node, op string, loc int32, like, fold, not bool) (expr, error) {
	var err error
	if l, err = c.textOperand(l, ln); err == nil {
		r, err = c.textOperand(r, rn)
	}
	if err != nil {
		return nil, c.errAt(loc, sql.UndefinedFunction, "operator does not exist: %s %s %s", l.typ().sqlName, op, r.typ().sqlName).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	m := &matchExpr{l: l, pat: r, like: like, fold: fold, not: not}
	if k, ok := r.(*constExpr); ok && k.d.Kind != KNull {
		re, err := compilePattern(k.d.S, like, fold)
		if err != nil {
			return nil, err
		}
		m.re = re
	}
	return m, nil
}

// textOperand is an operand of a text operator: a string type as it is,
// an unknown literal or parameter as text; anything else is an error
// (x is returned, for the message).
func (c *compiler) textOperand(x expr, n *pg.Node) (expr, error) {
	switch {
	case isUnknown(x):
		return c.coerce(x, tText, exprLoc(n), "argument")
	case isString(x.typ()):
		return x, nil
	}
	return x, errNotText
}

var errNotText = errors.New("not a string type")

// operands compiles both sides of an operator.
func (c *compiler) operands(sc *scope, ln, rn *pg.Node) (l, r expr, err error) {
	if l, err = c.expr(sc, ln); err != nil {
		return nil, nil, err
	}
	r, err = c.expr(sc, rn)
	return l, r, err
}

// binaryOp compiles l op r.
func (c *compiler) binaryOp(sc *scope, op string, ln, rn *pg.Node, loc int32) (expr, error) {
	l, r, err := c.operands(sc, ln, rn)
	if err != nil {
		return nil, err
	}
	switch op {
	case "~", "~*", "!~", "!~*":
		return c.match(l, r, ln, rn, op, loc, false, strings.Contains(op, "*"), op[0] == '!')
	case "~~", "!~~", "~~*", "!~~*":
		return c.match(l, r, ln, rn, op, loc, true, strings.Contains(op, "*"), op[0] == '!')
	}
	return c.binaryExprs(op, l, r, ln, rn, loc)
}

func (c *compiler) binaryExprs(op string, l, r expr, ln, rn *pg.Node, loc int32) (expr, error) {
	var err error
	if op == "||" {
		// PostgreSQL's || is text || text, text || anynonarray and
		// anynonarray || text: an unknown side is text ('x' || 2 is 'x2').
		if isUnknown(l) {
			if l, err = c.coerce(l, tText, exprLoc(ln), "operand"); err != nil {
				return nil, err
			}
		}
		if isUnknown(r) {
			if r, err = c.coerce(r, tText, exprLoc(rn), "operand"); err != nil {
				return nil, err
			}
		}
	}
	// An unknown side takes the other side's type.
	switch {
	case isUnknown(l) && isUnknown(r):
		l, r = c.settle(l), c.settle(r)
	case isUnknown(l):
		if l, err = c.coerce(l, r.typ(), exprLoc(ln), "operand"); err != nil {
			return nil, err
		}
	case isUnknown(r):
		if r, err = c.coerce(r, l.typ(), exprLoc(rn), "operand"); err != nil {
			return nil, err
		}
	}
	lt, rt := l.typ(), r.typ()
	noOp := func() error {
		return c.errAt(loc, sql.UndefinedFunction, "operator does not exist: %s %s %s", lt.sqlName, op, rt.sqlName).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	switch op {
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		if !comparable(lt, rt) && !(isString(lt) && isString(rt)) {
			return nil, noOp()
		}
		if lt.class == KText && rt.class != KText || lt.class != KText && rt.class == KText {
			return nil, noOp()
		}
		return &cmpExpr{op: op, l: l, r: r}, nil
	case "||":
		if lt.IsArray() || rt.IsArray() {
			return nil, c.errAt(loc, sql.FeatureNotSupported, "seqd does not support array concatenation")
		}
		if !isString(lt) && !isString(rt) {
			return nil, noOp() // integer || integer: no such operator
		}
		return &funcExpr{t: tText, strict: true, args: []expr{l, r}, fn: func(_ *env, a []Datum) (Datum, error) {
			return Text(string(AppendOutput(AppendOutput(nil, lt, a[0]), rt, a[1]))), nil
		}}, nil
	case "+", "-", "*", "/", "%":
		if (lt.class != KInt && lt.class != KFloat) || (rt.class != KInt && rt.class != KFloat) || !isPlainInt(lt) && lt.class == KInt || !isPlainInt(rt) && rt.class == KInt {
			return nil, noOp()
		}
		if lt.class == KFloat || rt.class == KFloat {
			t := tFloat8
			if lt == tNumeric && rt.class != KFloat || rt == tNumeric && lt.class != KFloat || lt == tNumeric && rt == tNumeric {
				t = tNumeric
			}
			return &funcExpr{t: t, strict: true, args: []expr{l, r}, fn: func(_ *env, a []Datum) (Datum, error) {
				return floatArith(op, asFloat(a[0]), asFloat(a[1]))
			}}, nil
		}
		t := lt
		if _, hi, _ := intRange(rt); func() bool { _, h, _ := intRange(lt); return hi > h }() {
			t = rt
		}
		return &funcExpr{t: t, strict: true, args: []expr{l, r}, fn: func(_ *env, a []Datum) (Datum, error) {
			return intArith(t, op, a[0].I, a[1].I)
		}}, nil
	}
	return nil, noOp()
}

func intArith(t *Type, op string, x, y int64) (Datum, error) {
	switch op {
	case "+":
		s := x + y
		return checkedInt(t, s, (x > 0 && y > 0 && s < 0) || (x < 0 && y < 0 && s >= 0))
	case "-":
		s := x - y
		return checkedInt(t, s, (x >= 0 && y < 0 && s < 0) || (x < 0 && y > 0 && s >= 0))
	case "*":
		if x == 0 || y == 0 {
			return Int(0), nil
		}
		p := x * y
		return checkedInt(t, p, p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64))
	case "/", "%":
		if y == 0 {
			return Null, sql.Errorf(sql.DivisionByZero, "division by zero")
		}
		if y == -1 {
			if op == "%" {
				return Int(0), nil
			}
			return checkedInt(t, -x, x == math.MinInt64)
		}
		if op == "/" {
			return Int(x / y), nil
		}
		return Int(x % y), nil
	}
	return Null, nil
}

func floatArith(op string, x, y float64) (Datum, error) {
	switch op {
	case "+":
		return Float(x + y), nil
	case "-":
		return Float(x - y), nil
	case "*":
		return Float(x * y), nil
	case "/":
		if y == 0 {
			return Null, sql.Errorf(sql.DivisionByZero, "division by zero")
		}
		return Float(x / y), nil
	}
	if y == 0 {
		return Null, sql.Errorf(sql.DivisionByZero, "division by zero")
	}
	return Float(math.Mod(x, y)), nil
}
