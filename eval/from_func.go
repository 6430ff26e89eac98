// Functions in FROM: a function's one row, unnest, generate_series.

package eval

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// rangeFunction compiles a function in FROM.
func (c *Compiler) rangeFunction(sc *Scope, rf *pg.RangeFunction) (source, error) {
	if rf.Ordinality || rf.IsRowsfrom || len(rf.Functions) != 1 || rf.Lateral {
		return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd supports one function in FROM, without ORDINALITY, ROWS FROM or LATERAL")
	}
	items := rf.Functions[0].GetList().GetItems()
	fc := items[0].GetFuncCall()
	if fc == nil {
		return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd supports only function calls in FROM")
	}
	name, err := c.funcName(fc)
	if err != nil {
		return nil, err
	}
	alias := name
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	var colnames []*pg.Node
	if rf.Alias != nil {
		colnames = rf.Alias.Colnames
	}
	inner := &Scope{}
	switch name {
	case "generate_series":
		src, err := c.series(inner, fc)
		if err != nil {
			return nil, err
		}
		sc.add(alias, "", renamed([]RelColumn{{alias, src.t}}, colnames), 0)
		return src, nil
	case "unnest":
		if len(fc.Args) != 1 {
			return nil, c.ErrAt(fc.Location, sqlerr.FeatureNotSupported, "seqd supports unnest of one array")
		}
		arr, err := c.Expr(inner, fc.Args[0])
		if err != nil {
			return nil, err
		}
		if arr.Type().Elem() == nil {
			return nil, c.NoFunction("unnest", []Expr{arr}, fc.Location)
		}
		sc.add(alias, "", renamed([]RelColumn{{alias, arr.Type().Elem()}}, colnames), 0)
		return &unnestSource{arr: arr}, nil
	case "pg_options_to_table":
		// An options array ("name=value" items) as (option_name,
		// option_value) rows.
		if len(fc.Args) != 1 {
			return nil, c.NoFunction(name, nil, fc.Location)
		}
		arr, err := c.Expr(inner, fc.Args[0])
		if err != nil {
			return nil, err
		}
		if arr, err = c.Coerce(arr, TTextArr, Location(fc.Args[0]), "argument"); err != nil {
			return nil, err
		}
		sc.add(alias, "", renamed([]RelColumn{{"option_name", TText}, {"option_value", TText}}, colnames), 0)
		return &unnestSource{arr: arr, options: true}, nil
	}
	var x Expr
	if f, ok := compiledFuncs[name]; ok && f.SetReturning {
		x, err = f.Compile(c, inner, fc)
	} else {
		x, err = c.funcCall(inner, fc)
	}
	if err != nil {
		return nil, err
	}
	if rx, ok := x.(RowExpr); ok {
		cs := rx.Columns()
		sc.add(alias, "", renamed(cs, colnames), 0)
		return &funcRowSource{w: len(cs), row: rx.EvalRow}, nil
	}
	x = c.settle(x)
	colName := alias
	if rf.Alias == nil {
		colName = columnName(items[0])
	}
	sc.add(alias, "", renamed([]RelColumn{{colName, x.Type()}}, colnames), 0)
	return &funcRowSource{w: 1, row: func(e *Env) ([]Datum, error) {
		d, err := x.Eval(e)
		return []Datum{d}, err
	}}, nil
}

// funcRowSource is a function returning one row (nil: NULLs).
type funcRowSource struct {
	w   int
	row func(e *Env) ([]Datum, error)
}

func (f *funcRowSource) width() int { return f.w }
func (f *funcRowSource) open(e *Env) (Rows, error) {
	return &lazyRow{e: e, f: f}, nil
}

// lazyRow calls the function when its row is read, not when the query
// opens: a statement's values are taken as its rows are sent.
type lazyRow struct {
	e    *Env
	f    *funcRowSource
	done bool
}

func (l *lazyRow) Next() ([]Datum, bool, error) {
	if l.done {
		return nil, false, nil
	}
	l.done = true
	row, err := l.f.row(l.e)
	if err != nil {
		return nil, false, err
	}
	if row == nil {
		row = make([]Datum, l.f.w)
	}
	return row, true, nil
}

// unnestSource is unnest(array), or with options pg_options_to_table's
// name and value of each "name=value" item.
type unnestSource struct {
	arr     Expr
	options bool
}

func (u *unnestSource) width() int {
	if u.options {
		return 2
	}
	return 1
}

func (u *unnestSource) open(e *Env) (Rows, error) {
	d, err := u.arr.Eval(e)
	if err != nil {
		return nil, err
	}
	rows := make([][]Datum, 0, len(d.A))
	for _, x := range d.A {
		switch {
		case !u.options:
			rows = append(rows, []Datum{x})
		case x.Kind != KNull:
			name, value, ok := strings.Cut(x.S, "=")
			v := Text(value)
			if !ok {
				v = Null
			}
			rows = append(rows, []Datum{Text(name), v})
		}
	}
	return &SliceRows{Rows: rows}, nil
}

// seriesSource is generate_series(from, to [, step]) over int4 or int8.
type seriesSource struct {
	t              *Type
	from, to, step Expr
}

func (c *Compiler) series(sc *Scope, fc *pg.FuncCall) (*seriesSource, error) {
	if len(fc.Args) < 2 || len(fc.Args) > 3 {
		return nil, c.ErrAt(fc.Location, sqlerr.UndefinedFunction, "function generate_series with %d arguments does not exist", len(fc.Args)).
			WithHint("seqd's generate_series takes integers: generate_series(start, stop [, step]).")
	}
	args := make([]Expr, len(fc.Args))
	t := TInt4
	for i, a := range fc.Args {
		x, err := c.Expr(sc, a)
		if err != nil {
			return nil, err
		}
		args[i] = x
		if !isUnknown(x) && !implicitOK(x.Type(), TInt4) {
			t = TInt8
		}
	}
	for i, a := range args {
		x, err := c.Coerce(a, t, Location(fc.Args[i]), "argument")
		if err != nil {
			return nil, c.NoFunction("generate_series", args, fc.Location)
		}
		args[i] = x
	}
	src := &seriesSource{t: t, from: args[0], to: args[1]}
	if len(args) == 3 {
		src.step = args[2]
	}
	return src, nil
}

func (g *seriesSource) width() int { return 1 }

// seriesCount is how many values generate_series yields, bounded by the
// session's bulk limit.
func seriesCount(e *Env, fromX, toX, stepX Expr) (int64, error) {
	from, err := fromX.Eval(e)
	if err != nil {
		return 0, err
	}
	to, err := toX.Eval(e)
	if err != nil {
		return 0, err
	}
	step := Int(1)
	if stepX != nil {
		if step, err = stepX.Eval(e); err != nil {
			return 0, err
		}
	}
	if from.Kind == KNull || to.Kind == KNull || step.Kind == KNull {
		return 0, nil
	}
	if step.I == 0 {
		return 0, sqlerr.Errorf(sqlerr.InvalidParameterValue, "step size cannot equal zero")
	}
	var span uint64
	switch {
	case step.I > 0 && to.I >= from.I:
		span = (uint64(to.I) - uint64(from.I)) / uint64(step.I)
	case step.I < 0 && to.I <= from.I:
		span = (uint64(from.I) - uint64(to.I)) / uint64(-step.I)
	default:
		return 0, nil
	}
	if span >= uint64(e.Session.MaxRows()) {
		return 0, sqlerr.Errorf(sqlerr.ProgramLimitExceeded, "generate_series of more than %d rows is not supported (limit set by -max-bulk-rows)", e.Session.MaxRows())
	}
	return int64(span) + 1, nil
}

func (g *seriesSource) open(e *Env) (Rows, error) {
	count, err := seriesCount(e, g.from, g.to, g.step)
	if err != nil || count == 0 {
		return &SliceRows{}, err
	}
	from, _ := g.from.Eval(e)
	step := int64(1)
	if g.step != nil {
		d, _ := g.step.Eval(e)
		step = d.I
	}
	return &seriesRows{next: from.I, step: step, left: count}, nil
}

type seriesRows struct {
	next, step, left int64
	row              [1]Datum
}

func (r *seriesRows) Next() ([]Datum, bool, error) {
	if r.left == 0 {
		return nil, false, nil
	}
	r.row[0] = Int(r.next)
	r.left--
	r.next += r.step
	return r.row[:], true, nil
}

// subLink compiles EXISTS, IN, ARRAY and scalar subqueries, correlated
// or not (subquery.go).
func (c *Compiler) subLink(sc *Scope, sl *pg.SubLink) (Expr, error) {
	c.refs.subLinks++
	outer := &outerScope{sc: sc, up: c.outer, comp: c}
	sub := &Compiler{Session: c.Session, SQL: c.SQL, params: c.params, ctes: c.ctes, outer: outer}
	q, err := sub.Select(sl.Subselect.GetSelectStmt())
	c.params = sub.params
	if err != nil {
		return nil, err
	}
	x := &subqueryExpr{plan: q, correlated: outer.used}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		x.t, x.exists = TBool, true
		return x, nil
	case pg.SubLinkType_EXPR_SUBLINK, pg.SubLinkType_ARRAY_SUBLINK:
		if len(q.Columns) != 1 {
			err := c.ErrAt(sl.Location, sqlerr.SyntaxError, "subquery must return only one column")
			err.ColumnsWanted = 1
			return nil, err
		}
		x.t = q.Columns[0].Type
		if sl.SubLinkType == pg.SubLinkType_ARRAY_SUBLINK {
			if x.t = TypeByOID(x.t.array); x.t == nil {
				return nil, c.ErrAt(sl.Location, sqlerr.UndefinedObject, "could not find array type for data type %s", q.Columns[0].Type.SQLName())
			}
			x.array = true
		}
		return x, nil
	case pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK:
		if len(q.Columns) != 1 { // PostgreSQL's words for a row of one value
			more := "many"
			if len(q.Columns) < 1 {
				more = "few"
			}
			err := c.ErrAt(sl.Location, sqlerr.SyntaxError, "subquery has too %s columns", more)
			err.ColumnsWanted = 1
			return nil, err
		}
		x.op, x.all = "=", sl.SubLinkType == pg.SubLinkType_ALL_SUBLINK
		if n := len(sl.OperName); n > 0 {
			x.op = sl.OperName[n-1].GetString_().GetSval()
		}
		if !slices.Contains([]string{"=", "<>", "<", "<=", ">", ">="}, x.op) {
			return nil, c.ErrAt(sl.Location, sqlerr.FeatureNotSupported, "seqd does not support %s ANY or ALL of a subquery", x.op)
		}
		in, err := c.Expr(sc, sl.Testexpr)
		if err != nil {
			return nil, err
		}
		x.in = in
		if isUnknown(in) || !isNumber(in.Type()) || !isNumber(q.Columns[0].Type) { // numbers of two types compare as they are (compare)
			if x.in, err = c.Coerce(in, q.Columns[0].Type, Location(sl.Testexpr), "IN"); err != nil {
				return nil, err
			}
		}
		x.t = TBool
		return x, nil
	}
	return nil, c.ErrAt(sl.Location, sqlerr.FeatureNotSupported, "seqd does not support this kind of subquery")
}
