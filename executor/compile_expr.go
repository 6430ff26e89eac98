package executor

import (
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sql"
)

// compiler turns one statement's parse tree into a plan, inferring the
// types of its parameters on the way, as PostgreSQL's parse analysis does.
type compiler struct {
	s      evalSession
	query  string
	params []*Type // nil: not yet known
	// aggs collects the aggregate calls of the select list being compiled
	// under GROUP BY; nil when aggregates are not allowed.
	aggs *[]*aggCall
	// ctes are the WITH queries visible here, outermost first (with.go).
	ctes []*cte
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
		return &constExpr{t: tName, d: Text(c.s.CurrentUser())}, nil
	case pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return &constExpr{t: tName, d: Text(c.s.SessionUser())}, nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return &constExpr{t: tName, d: Text(c.s.Database())}, nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return &funcExpr{t: tName, fn: func(e *env, _ []Datum) (Datum, error) { return e.s.CurrentSchema(), nil }}, nil
	}
	return nil, c.errAt(f.Location, sql.FeatureNotSupported, "seqd does not support date and time functions")
}

// sqlAt positions a *sql.Error that has no position yet.
func sqlAt(err error, query string, loc int32) error {
	if se, ok := err.(*sql.Error); ok && se.Pos == 0 {
		se.At(query, loc)
	}
	return err
}
