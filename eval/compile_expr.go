package eval

import (
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// Compiler turns one statement's parse tree into a plan, inferring the
// types of its parameters on the way, as PostgreSQL's parse analysis does.
type Compiler struct {
	Session Session
	SQL     string
	params  []*Type // nil: not yet known
	// aggs collects the aggregate calls of the select list being compiled
	// under GROUP BY; nil when aggregates are not allowed.
	aggs *[]*aggCall
	// typed collects the expressions the query being compiled reads as
	// it opens (seqd_mariadb_typed); nil outside a query's clauses.
	typed *[]Expr
	// ctes are the WITH queries visible here, outermost first (with.go).
	ctes []*cte
	// outer is the scope of the query a subquery (a SubLink) stands in,
	// for its correlated column references (subquery.go).
	outer *outerScope
	// grouping records the columns of a grouped query's scope that its
	// select list, HAVING and ORDER BY read outside aggregates (inAgg
	// counts the aggregates whose arguments are being compiled).
	grouping *groupCheck
	inAgg    int
	// wholeRowTarget is the select-list item being compiled when it is
	// a bare name, which may name a FROM item's whole row.
	wholeRowTarget *pg.ColumnRef
	// aggClause names the clause being compiled where aggregates are not
	// allowed ("WHERE"), for the error; "" elsewhere.
	aggClause string
	// clause is the clause of the query being compiled that its column
	// references stand in, for the errors that name one (sqlerr.Error's
	// Column and Clause).
	clause sqlerr.Clause
	// mariadbArith is set while a * or / of mariadbOps is compiled, its
	// operands compiled before.
	mariadbArith bool
	// refs counts what the expressions compiled so far read, for an
	// aggregate's arguments (outerAggregate).
	refs refCount
}

// refCount counts a compiler's column references: local, those its own
// scope resolves; outerLevel, the nearest level out (1 the query
// around) of those an enclosing scope does, 0 for none; subLinks, the
// subqueries compiled (whose references are their compilers').
type refCount struct {
	local, outerLevel, subLinks int
}

// within compiles in clause: a column reference that names no column,
// or several, says it stands there.
func (c *Compiler) within(clause sqlerr.Clause, compile func() error) error {
	saved := c.clause
	c.clause = clause
	defer func() { c.clause = saved }()
	return compile()
}

// inClause compiles n as an expression of clause, where aggregates are
// not allowed.
func (c *Compiler) inClause(clause string, compile func() error) error {
	saved := c.aggClause
	c.aggClause = clause
	defer func() { c.aggClause = saved }()
	return compile()
}

// groupCheck is a grouped query's scope and its column references
// outside aggregates.
type groupCheck struct {
	sc   *Scope
	refs []groupRef
}

type groupRef struct {
	idx int
	loc int32
	// written is the reference as written, clause the clause it stands
	// in (sqlerr.Error's Column and Clause).
	written string
	clause  sqlerr.Clause
}

// maxParams is the most parameters a statement may have.
const maxParams = 65535

// SetParam declares parameter $n of type t, unless its type is known
// already.
func (c *Compiler) SetParam(n int, t *Type) {
	for len(c.params) < n {
		c.params = append(c.params, nil)
	}
	if c.params[n-1] == nil {
		c.params[n-1] = t
	}
}

// ParamTypes are the final parameter types: text where nothing decided.
func (c *Compiler) ParamTypes() []*Type {
	out := make([]*Type, len(c.params))
	for i, t := range c.params {
		if t == nil {
			t = TText
		}
		out[i] = t
	}
	return out
}

// ErrAt is an error of kind k at loc in the statement.
func (c *Compiler) ErrAt(loc int32, k sqlerr.Kind, format string, args ...any) *sqlerr.Error {
	return sqlerr.Errorf(k, format, args...).At(c.SQL, loc)
}

// column is a FROM item's column.
type RelColumn struct {
	Name string
	Type *Type
}

// Columns makes a relation's columns of names and types in turn:
// Columns("oid", TOid, "relname", TName).
func Columns(spec ...any) []RelColumn {
	out := make([]RelColumn, 0, len(spec)/2)
	for i := 0; i < len(spec); i += 2 {
		out = append(out, RelColumn{Name: spec[i].(string), Type: spec[i+1].(*Type)})
	}
	return out
}

// Scope is what column references can name: the FROM items, each with
// its alias and columns, laid side by side in the row.
type Scope struct {
	items []scopeItem
	width int
	rels  []relAt // the FROM clause's relations (pushdown.go)
	// merged are the columns a USING join merged into its other side's:
	// an unqualified name does not find them (from.go).
	merged map[int]bool
}

type scopeItem struct {
	alias    string
	schema   string // for schema.table.column references
	cols     []RelColumn
	offset   int
	tableOID uint32
}

func (sc *Scope) add(alias, schema string, cols []RelColumn, tableOID uint32) {
	sc.items = append(sc.items, scopeItem{alias: alias, schema: schema, cols: cols, offset: sc.width, tableOID: tableOID})
	sc.width += len(cols)
}

// NodeStrings are the strings of String nodes (a qualified name's
// parts).
func NodeStrings(nodes []*pg.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

// columnRef resolves a.b.c style references.
func (c *Compiler) columnRef(sc *Scope, ref *pg.ColumnRef) (Expr, error) {
	names := NodeStrings(ref.Fields)
	if len(names) != len(ref.Fields) {
		return nil, c.ErrAt(ref.Location, sqlerr.FeatureNotSupported, "seqd does not support * here")
	}
	col := names[len(names)-1]
	var table, schema string
	switch len(names) {
	case 2:
		table = names[0]
	case 3:
		schema, table = names[0], names[1]
	case 4:
		return nil, c.ErrAt(ref.Location, sqlerr.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(names, "."))
	}
	var found Expr
	tableSeen := table == ""
	for _, it := range sc.items {
		if table != "" && (it.alias != table || schema != "" && it.schema != schema) {
			continue
		}
		tableSeen = true
		for i, rc := range it.cols {
			if rc.Name == col && !(table == "" && sc.merged[it.offset+i]) {
				if found != nil {
					return nil, c.ErrAt(ref.Location, sqlerr.AmbiguousColumn, "column reference \"%s\" is ambiguous", col).InClause(strings.Join(names, "."), c.clause)
				}
				found = &colExpr{t: rc.Type, idx: it.offset + i}
			}
		}
	}
	if found == nil && col == "tableoid" {
		// The system column: the OID of the relation a row came from.
		for _, it := range sc.items {
			if it.tableOID == 0 || table != "" && (it.alias != table || schema != "" && it.schema != schema) {
				continue
			}
			if found != nil {
				return nil, c.ErrAt(ref.Location, sqlerr.AmbiguousColumn, "column reference \"%s\" is ambiguous", col).InClause(strings.Join(names, "."), c.clause)
			}
			found = &tableOIDExpr{oid: it.tableOID, from: it.offset, to: it.offset + len(it.cols)}
		}
	}
	if found != nil {
		c.refs.local++
		if ce, ok := found.(*colExpr); ok && c.grouping != nil && c.grouping.sc == sc && c.inAgg == 0 {
			c.grouping.refs = append(c.grouping.refs, groupRef{ce.idx, ref.Location, strings.Join(names, "."), c.clause})
		}
		return found, nil
	}
	if table == "" {
		if x, ok, err := c.wholeRow(sc, ref, col); ok || err != nil {
			return x, err
		}
	}
	if x, ok, err := c.outerRef(ref, schema, table, col); ok || err != nil {
		return x, err
	}
	written := strings.Join(names, ".")
	if !tableSeen {
		err := c.ErrAt(ref.Location, sqlerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", table).InClause(written, c.clause)
		if len(sc.items) == 0 && c.outer == nil { // a query of no tables, nor in one
			err.Alias = strings.Join(names[:len(names)-1], ".")
		}
		return nil, err
	}
	if table != "" {
		return nil, c.ErrAt(ref.Location, sqlerr.UndefinedColumn, "column %s.%s does not exist", table, col).InClause(written, c.clause)
	}
	err := c.ErrAt(ref.Location, sqlerr.UndefinedColumn, "column \"%s\" does not exist", col).InClause(written, c.clause)
	return nil, err
}

// Expr compiles an expression in sc.
func (c *Compiler) Expr(sc *Scope, n *pg.Node) (Expr, error) {
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
			return nil, c.ErrAt(p.Location, sqlerr.UndefinedParameter, "there is no parameter $%d", p.Number)
		}
		c.SetParam(int(p.Number), nil)
		return &paramExpr{c: c, n: int(p.Number)}, nil
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		t, err := c.typeName(tc.TypeName)
		if err != nil {
			return nil, err
		}
		arg, err := c.Expr(sc, tc.Arg)
		if err != nil {
			return nil, err
		}
		x, err := c.explicitCast(arg, t, tc.Location)
		if err != nil {
			return nil, err
		}
		return c.withTypmod(x, tc.TypeName)
	case n.GetFuncCall() != nil:
		return c.funcCall(sc, n.GetFuncCall())
	case n.GetAExpr() != nil:
		return c.aExpr(sc, n.GetAExpr())
	case n.GetBoolExpr() != nil:
		b := n.GetBoolExpr()
		op := map[pg.BoolExprType]byte{pg.BoolExprType_AND_EXPR: '&', pg.BoolExprType_OR_EXPR: '|', pg.BoolExprType_NOT_EXPR: '!'}[b.Boolop]
		what := map[byte]string{'&': "AND", '|': "OR", '!': "NOT"}[op]
		out := &boolExpr{op: op}
		for _, a := range b.Args {
			x, err := c.boolArg(sc, a, what)
			if err != nil {
				return nil, err
			}
			out.args = append(out.args, x)
		}
		return out, nil
	case n.GetNullTest() != nil:
		t := n.GetNullTest()
		x, err := c.Expr(sc, t.Arg)
		if err != nil {
			return nil, err
		}
		return &nullTest{arg: c.settle(x), not: t.Nulltesttype == pg.NullTestType_IS_NOT_NULL}, nil
	case n.GetBooleanTest() != nil:
		return c.booleanTest(sc, n.GetBooleanTest())
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
		return c.Expr(sc, n.GetCollateClause().Arg)
	case n.GetAArrayExpr() != nil:
		return c.arrayExpr(sc, n.GetAArrayExpr())
	case n.GetAIndirection() != nil:
		return c.subscript(sc, n.GetAIndirection())
	case n.GetSubLink() != nil:
		return c.subLink(sc, n.GetSubLink())
	case n.GetRowExpr() != nil:
		return nil, c.ErrAt(n.GetRowExpr().Location, sqlerr.FeatureNotSupported, "seqd does not support row constructors")
	}
	return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support this expression (%s)", NodeName(n))
}

// booleanTest compiles x IS [NOT] TRUE, FALSE, UNKNOWN.
func (c *Compiler) booleanTest(sc *Scope, t *pg.BooleanTest) (Expr, error) {
	what := map[pg.BoolTestType]string{pg.BoolTestType_IS_TRUE: "IS TRUE", pg.BoolTestType_IS_NOT_TRUE: "IS NOT TRUE",
		pg.BoolTestType_IS_FALSE: "IS FALSE", pg.BoolTestType_IS_NOT_FALSE: "IS NOT FALSE",
		pg.BoolTestType_IS_UNKNOWN: "IS UNKNOWN", pg.BoolTestType_IS_NOT_UNKNOWN: "IS NOT UNKNOWN"}[t.Booltesttype]
	x, err := c.boolArg(sc, t.Arg, what)
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
}

// arrayExpr compiles ARRAY[...].
func (c *Compiler) arrayExpr(sc *Scope, a *pg.A_ArrayExpr) (Expr, error) {
	args, t, err := c.unify(sc, a.Elements, "ARRAY")
	if err != nil {
		return nil, err
	}
	if t == tUnknown {
		t = TText
	}
	at := TypeByOID(t.array)
	if at == nil {
		return nil, c.ErrAt(a.Location, sqlerr.UndefinedObject, "could not find array type for data type %s", t.sqlName)
	}
	return &arrayExpr{t: at, elems: args}, nil
}

// subscript compiles a[i].
func (c *Compiler) subscript(sc *Scope, ind *pg.A_Indirection) (Expr, error) {
	arr, err := c.Expr(sc, ind.Arg)
	if err != nil {
		return nil, err
	}
	if arr.Type().oid == OIDName && len(ind.Indirection) == 1 && ind.Indirection[0].GetAIndices() != nil && !ind.Indirection[0].GetAIndices().IsSlice {
		// A name is a fixed array of "char" indexed from 0 (pg_dump's
		// typname[0] = '_').
		idx, err := c.Expr(sc, ind.Indirection[0].GetAIndices().Uidx)
		if err != nil {
			return nil, err
		}
		if idx, err = c.Coerce(idx, TInt4, -1, "array subscript"); err != nil {
			return nil, err
		}
		return &funcExpr{t: TChar, args: []Expr{arr, idx}, strict: true, fn: func(_ *Env, a []Datum) (Datum, error) {
			if a[1].I < 0 || a[1].I >= int64(len(a[0].S)) {
				return Null, nil
			}
			return Text(a[0].S[a[1].I : a[1].I+1]), nil
		}}, nil
	}
	if len(ind.Indirection) != 1 || ind.Indirection[0].GetAIndices() == nil || ind.Indirection[0].GetAIndices().IsSlice || arr.Type().Elem() == nil {
		return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd supports only a single array subscript")
	}
	idx, err := c.Expr(sc, ind.Indirection[0].GetAIndices().Uidx)
	if err != nil {
		return nil, err
	}
	if idx, err = c.Coerce(idx, TInt4, -1, "array subscript"); err != nil {
		return nil, err
	}
	return &subscriptExpr{t: arr.Type().Elem(), arr: arr, idx: idx}, nil
}

// NodeName names a parse node's kind for messages.
func NodeName(n *pg.Node) string {
	name := fmt.Sprintf("%T", n.GetNode())
	name = strings.TrimPrefix(name, "*pg_query.Node_")
	return name
}

// boolArg compiles n, which must be boolean: the argument of what
// ("WHERE", "NOT"), as PostgreSQL's messages name it.
func (c *Compiler) boolArg(sc *Scope, n *pg.Node, what string) (Expr, error) {
	x, err := c.Expr(sc, n)
	if err != nil {
		return nil, err
	}
	return c.Coerce(x, TBool, Location(n), "argument of "+what)
}

// constant compiles a literal: an integer is int4 if it fits, else int8,
// else numeric; a string is of unknown type until its context decides.
func (c *Compiler) constant(k *pg.A_Const) (Expr, error) {
	if k.Isnull {
		return &constExpr{t: tUnknown, d: Null}, nil
	}
	switch v := k.Val.(type) {
	case *pg.A_Const_Ival:
		return &constExpr{t: TInt4, d: Int(int64(v.Ival.Ival))}, nil
	case *pg.A_Const_Fval:
		if i, err := strconv.ParseInt(v.Fval.Fval, 10, 64); err == nil {
			if i == int64(int32(i)) {
				return &constExpr{t: TInt4, d: Int(i)}, nil // -2147483648, negated by the parser
			}
			return &constExpr{t: TInt8, d: Int(i)}, nil
		}
		d, err := numericIn(v.Fval.Fval)
		if err != nil {
			return nil, Position(err, c.SQL, k.Location)
		}
		return &constExpr{t: tNumeric, d: d}, nil
	case *pg.A_Const_Boolval:
		return &constExpr{t: TBool, d: Bool(v.Boolval.Boolval)}, nil
	case *pg.A_Const_Sval:
		return &constExpr{t: tUnknown, d: Text(v.Sval.Sval)}, nil
	case *pg.A_Const_Bsval:
		return nil, c.ErrAt(k.Location, sqlerr.FeatureNotSupported, "seqd does not support bit-string literals")
	}
	return &constExpr{t: tUnknown, d: Null}, nil
}

// TypeName resolves a TypeName node, as a cast's type is resolved.
func (c *Compiler) TypeName(tn *pg.TypeName) (*Type, error) { return c.typeName(tn) }

// typeName resolves a TypeName node.
func (c *Compiler) typeName(tn *pg.TypeName) (*Type, error) {
	names := NodeStrings(tn.Names)
	t := LookupType(names)
	if t == nil {
		return nil, c.ErrAt(tn.Location, sqlerr.UndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
	}
	if len(tn.ArrayBounds) > 0 {
		if at := TypeByOID(t.array); at != nil {
			t = at
		}
	}
	return t, nil
}

// Location is the location of a parse node, -1 if it has none.
func Location(n *pg.Node) int32 {
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

func (c *Compiler) caseExpr(sc *Scope, ce *pg.CaseExpr) (Expr, error) {
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
		if out.arg, err = c.Expr(sc, ce.Arg); err != nil {
			return nil, err
		}
	}
	for i, w := range ce.Args {
		cw := w.GetCaseWhen()
		var cond Expr
		if out.arg != nil {
			x, err := c.Expr(sc, cw.Expr)
			if err != nil {
				return nil, err
			}
			xs, _, err := c.unifyExprs([]Expr{out.arg, x}, []*pg.Node{ce.Arg, cw.Expr}, "CASE/WHEN")
			if err != nil {
				return nil, err
			}
			out.arg, cond = xs[0], xs[1]
		} else if cond, err = c.boolArg(sc, cw.Expr, "CASE/WHEN"); err != nil {
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

func (c *Compiler) sqlValueFunction(f *pg.SQLValueFunction) (Expr, error) {
	switch f.Op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_USER, pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return &constExpr{t: TName, d: Text(c.Session.CurrentUser())}, nil
	case pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return &constExpr{t: TName, d: Text(c.Session.SessionUser())}, nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return &constExpr{t: TName, d: Text(c.Session.Database())}, nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return &funcExpr{t: TName, fn: func(e *Env, _ []Datum) (Datum, error) { return e.Session.CurrentSchema(), nil }}, nil
	}
	return nil, c.ErrAt(f.Location, sqlerr.FeatureNotSupported, "seqd does not support date and time functions")
}

// Position gives err, when it is a *sqlerr.Error without a position yet,
// the position loc in query.
func Position(err error, query string, loc int32) error {
	if se, ok := err.(*sqlerr.Error); ok && se.Pos == 0 {
		se.At(query, loc)
	}
	return err
}
