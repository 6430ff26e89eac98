package eval

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// fromItem compiles one FROM item, adding its columns to sc.
func (c *Compiler) fromItem(sc *Scope, n *pg.Node) (source, error) {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		if x := c.findCTE(rv.Relname); x != nil && rv.Schemaname == "" {
			alias, cs := rv.Relname, x.cols
			if rv.Alias != nil {
				alias = rv.Alias.Aliasname
				cs = renamed(cs, rv.Alias.Colnames)
			}
			sc.add(alias, "", cs, 0)
			return &cteSource{x: x}, nil
		}
		rel, err := c.relation(rv)
		if err != nil {
			return nil, err
		}
		alias := rv.Relname
		cs := rel.Cols
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
			cs = renamed(cs, rv.Alias.Colnames)
		}
		src := &relSource{rel: rel}
		sc.rels = append(sc.rels, relAt{src: src, offset: sc.width})
		sc.add(alias, rel.Schema, cs, rel.OID)
		return src, nil
	case n.GetRangeFunction() != nil:
		return c.rangeFunction(sc, n.GetRangeFunction())
	case n.GetJoinExpr() != nil:
		j := n.GetJoinExpr()
		if j.IsNatural {
			return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd does not support NATURAL joins; write USING or ON")
		}
		first := len(sc.items)
		l, err := c.fromItem(sc, j.Larg)
		if err != nil {
			return nil, err
		}
		mid := len(sc.items)
		r, err := c.fromItem(sc, j.Rarg)
		if err != nil {
			return nil, err
		}
		js := &joinSource{l: l, r: r, kind: j.Jointype, total: func() int { return sc.width }, offset: sc.width - l.width() - r.width()}
		if j.Quals != nil {
			if js.on, err = c.boolArg(sc, j.Quals); err != nil {
				return nil, err
			}
			c.lookupJoin(sc, js, j.Quals)
		}
		if len(j.UsingClause) > 0 {
			if js.on, err = c.using(sc, j, sc.items[first:mid], sc.items[mid:]); err != nil {
				return nil, err
			}
		}
		return js, nil
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		if rs.Lateral {
			return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd does not support LATERAL")
		}
		// The enclosing queries' columns are its outer references (a
		// subquery in FROM of a correlated subquery may read the row
		// that one is evaluated for); the FROM clause's other items are
		// not, without LATERAL.
		sub := &Compiler{Session: c.Session, SQL: c.SQL, params: c.params, ctes: c.ctes, outer: c.outer}
		q, err := sub.Select(rs.Subquery.GetSelectStmt())
		c.params = sub.params
		if err != nil {
			return nil, err
		}
		var cs []RelColumn
		for _, col := range q.Columns {
			cs = append(cs, RelColumn{col.Name, col.Type})
		}
		alias := ""
		if rs.Alias != nil {
			alias = rs.Alias.Aliasname
			cs = renamed(cs, rs.Alias.Colnames)
		}
		sc.add(alias, "", cs, 0)
		return &subquerySource{q: q, w: len(cs)}, nil
	}
	return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd does not support this FROM item (%s)", NodeName(n))
}

// using compiles JOIN ... USING (a, b): the columns of each side by
// those names, equal (the join's condition), and each merged into one:
// an unqualified name finds the left side's (the right's in a RIGHT
// join), as PostgreSQL's merged column is in inner and outer joins of
// that side. A FULL join's merged column is the two sides' COALESCE,
// which seqd does not make.
func (c *Compiler) using(sc *Scope, j *pg.JoinExpr, left, right []scopeItem) (Expr, error) {
	if j.Jointype == pg.JoinType_JOIN_FULL {
		return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd does not support FULL JOIN ... USING; write ON")
	}
	find := func(items []scopeItem, name, side string) (*colExpr, error) {
		var found *colExpr
		for _, it := range items {
			for i, rc := range it.cols {
				if rc.Name != name || sc.merged[it.offset+i] {
					continue
				}
				if found != nil {
					return nil, c.ErrAt(-1, sqlerr.AmbiguousColumn, "common column name \"%s\" appears more than once in %s table", name, side)
				}
				found = &colExpr{t: rc.Type, idx: it.offset + i}
			}
		}
		if found == nil {
			return nil, c.ErrAt(-1, sqlerr.UndefinedColumn, "column \"%s\" specified in USING clause does not exist in %s table", name, side)
		}
		return found, nil
	}
	and := &boolExpr{op: '&'}
	for _, name := range NodeStrings(j.UsingClause) {
		l, err := find(left, name, "left")
		if err != nil {
			return nil, err
		}
		r, err := find(right, name, "right")
		if err != nil {
			return nil, err
		}
		eq, err := c.binaryExprs("=", l, r, nil, nil, -1)
		if err != nil {
			return nil, err
		}
		and.args = append(and.args, eq)
		if sc.merged == nil {
			sc.merged = map[int]bool{}
		}
		if j.Jointype == pg.JoinType_JOIN_RIGHT {
			sc.merged[l.idx] = true
		} else {
			sc.merged[r.idx] = true
		}
	}
	return and, nil
}

func renamed(cs []RelColumn, names []*pg.Node) []RelColumn {
	if len(names) == 0 {
		return cs
	}
	out := append([]RelColumn(nil), cs...)
	for i, n := range NodeStrings(names) {
		if i < len(out) {
			out[i].Name = n
		}
	}
	return out
}

// relation resolves a relation name: a catalog relation or a sequence.
func (c *Compiler) relation(rv *pg.RangeVar) (*Relation, error) {
	rel, err := c.Session.Relation(pgsql.QName{Catalog: rv.Catalogname, Schema: rv.Schemaname, Rel: rv.Relname})
	if err != nil {
		return nil, Position(err, c.SQL, rv.Location)
	}
	return rel, nil
}

// Qualified is schema.name, or name when schema is empty.
func Qualified(schema, name string) string {
	if schema == "" {
		return name
	}
	return schema + "." + name
}

type relSource struct {
	rel  *Relation
	keys []keyFilter // equalities of the WHERE clause it may look up by (pushdown.go)
}

func (r *relSource) width() int { return len(r.rel.Cols) }
func (r *relSource) open(e *Env) (Rows, error) {
	rows, ok, err := r.lookup(e)
	if err != nil {
		return nil, err
	}
	if !ok {
		if r.rel.Stream != nil {
			return r.rel.Stream()
		}
		if rows, err = r.rel.Rows(); err != nil {
			return nil, err
		}
	}
	return &SliceRows{Rows: rows}, nil
}

type subquerySource struct {
	q *Query
	w int
}

func (s *subquerySource) width() int { return s.w }
func (s *subquerySource) open(e *Env) (Rows, error) {
	return s.q.Open(e.Ctx, e.params, nil)
}

// joinSource joins two sources; right rows are held in memory.
type joinSource struct {
	l, r   source
	kind   pg.JoinType
	on     Expr
	by     *joinLookup // nil: the right side's rows are held
	offset int         // where the join's columns start in the FROM row
	total  func() int  // the FROM row's width, known once compiled
}

func (j *joinSource) width() int { return j.l.width() + j.r.width() }

func (j *joinSource) open(e *Env) (Rows, error) {
	lrows, err := j.l.open(e)
	if err != nil {
		return nil, err
	}
	je := &Env{Ctx: e.Ctx, Session: e.Session, params: e.params, row: make([]Datum, j.total()), b: e.budget()}
	if j.by != nil {
		// The right relation's rows that a constant of the WHERE clause
		// picks are fewer than any left row's: take those if it can.
		rows, ok, err := j.by.src.lookup(e)
		if err != nil {
			return nil, err
		}
		if !ok {
			return &joinRows{j: j, e: je, l: lrows, ri: -1, by: j.by}, nil
		}
		if err := charge(e, rows); err != nil {
			return nil, err
		}
		return &joinRows{j: j, e: je, l: lrows, right: rows, matched: make([]bool, len(rows)), ri: -1}, nil
	}
	rr, err := j.r.open(e)
	if err != nil {
		return nil, err
	}
	right, err := Collect(e, rr)
	if err != nil {
		return nil, err
	}
	return &joinRows{j: j, e: je, l: lrows, right: right, matched: make([]bool, len(right)), ri: -1}, nil
}

// charge accounts rows held for a statement.
func charge(e *Env, rows [][]Datum) error {
	for _, r := range rows {
		if err := e.charge(rowSize(r)); err != nil {
			return err
		}
	}
	return nil
}

// joinLookup is a join whose right side is a relation that can look up
// the rows whose column col equals a column of the left side's (key): an
// inner or left join reads, for each left row, those rows only, neither
// holding nor scanning the right relation whole (psql's \d joins
// pg_attribute on attrelid = pg_class.oid).
type joinLookup struct {
	src *relSource
	col int
	key Expr // a column of the left side, in the FROM row
}

// lookupJoin plans js as a joinLookup where its condition holds, among
// its AND terms, left column = right column and the right side is a
// relation that can look up by that column.
func (c *Compiler) lookupJoin(sc *Scope, js *joinSource, quals *pg.Node) {
	rs, ok := js.r.(*relSource)
	if !ok || rs.rel.Lookup == nil || js.kind != pg.JoinType_JOIN_INNER && js.kind != pg.JoinType_JOIN_LEFT {
		return
	}
	lFrom, rFrom := js.offset, js.offset+js.l.width()
	for _, n := range conjuncts(quals) {
		e := n.GetAExpr()
		if e == nil || e.Kind != pg.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 || e.Name[0].GetString_().GetSval() != "=" {
			continue
		}
		a, b := e.Lexpr.GetColumnRef(), e.Rexpr.GetColumnRef()
		if a == nil || b == nil {
			continue
		}
		x, err1 := c.columnRef(sc, a)
		y, err2 := c.columnRef(sc, b)
		if err1 != nil || err2 != nil {
			continue
		}
		xc, ok1 := x.(*colExpr)
		yc, ok2 := y.(*colExpr)
		if !ok1 || !ok2 {
			continue
		}
		if xc.idx >= rFrom {
			xc, yc = yc, xc
		}
		if xc.idx >= lFrom && xc.idx < rFrom && yc.idx >= rFrom && yc.idx < rFrom+rs.width() {
			js.by = &joinLookup{src: rs, col: yc.idx - rFrom, key: xc}
			return
		}
	}
}

type joinRows struct {
	j       *joinSource
	e       *Env
	l       Rows
	by      *joinLookup // set: right holds the current left row's lookup
	lrow    []Datum
	right   [][]Datum
	matched []bool
	ri      int  // next right row to try; -1: fetch a left row
	lhit    bool // the current left row matched
	tail    int  // RIGHT/FULL: unmatched right rows emitted so far
	out     []Datum
}

func (r *joinRows) Next() ([]Datum, bool, error) {
	lw, rw := r.j.l.width(), r.j.r.width()
	if r.out == nil {
		r.out = make([]Datum, lw+rw)
	}
	for {
		if r.ri < 0 {
			row, ok, err := r.l.Next()
			if err != nil {
				return nil, false, err
			}
			if !ok {
				return r.unmatchedRight(lw)
			}
			r.lrow = append(r.lrow[:0], row...)
			r.ri, r.lhit = 0, false
			if r.by != nil {
				if err := r.lookup(lw); err != nil {
					return nil, false, err
				}
			}
		}
		for r.ri < len(r.right) {
			if err := r.e.tick(); err != nil {
				return nil, false, err
			}
			rrow := r.right[r.ri]
			i := r.ri
			r.ri++
			copy(r.out, r.lrow)
			copy(r.out[lw:], rrow)
			if r.j.on != nil {
				copy(r.e.row[r.j.offset:], r.out)
				d, err := r.j.on.Eval(r.e)
				if err != nil {
					return nil, false, err
				}
				if !d.Truth() {
					continue
				}
			}
			r.lhit = true
			if r.matched != nil {
				r.matched[i] = true
			}
			return r.out, true, nil
		}
		r.ri = -1
		if !r.lhit && (r.j.kind == pg.JoinType_JOIN_LEFT || r.j.kind == pg.JoinType_JOIN_FULL) {
			copy(r.out, r.lrow)
			for k := lw; k < lw+rw; k++ {
				r.out[k] = Null
			}
			return r.out, true, nil
		}
	}
}

// lookup reads the right rows for the current left row (all of them,
// held from then on, when the relation cannot look up by that value).
func (r *joinRows) lookup(lw int) error {
	copy(r.e.row[r.j.offset:], r.lrow)
	v, err := r.by.key.Eval(r.e)
	if err != nil {
		return err
	}
	if v.IsNull() {
		r.right = nil // = NULL matches nothing
		return nil
	}
	rows, ok, err := r.by.src.rel.Lookup(r.by.col, v)
	if err != nil {
		return err
	}
	if !ok {
		rr, err := r.j.r.open(r.e)
		if err != nil {
			return err
		}
		if rows, err = Collect(r.e, rr); err != nil {
			return err
		}
		r.by = nil // the whole relation, for every left row
	}
	r.right = rows
	return nil
}

func (r *joinRows) unmatchedRight(lw int) ([]Datum, bool, error) {
	if r.j.kind != pg.JoinType_JOIN_RIGHT && r.j.kind != pg.JoinType_JOIN_FULL {
		return nil, false, nil
	}
	for r.tail < len(r.right) {
		i := r.tail
		r.tail++
		if r.matched[i] {
			continue
		}
		for k := 0; k < lw; k++ {
			r.out[k] = Null
		}
		copy(r.out[lw:], r.right[i])
		return r.out, true, nil
	}
	return nil, false, nil
}

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
	outer := &outerScope{sc: sc, up: c.outer}
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
			return nil, c.ErrAt(sl.Location, sqlerr.SyntaxError, "subquery must return only one column")
		}
		x.t = q.Columns[0].Type
		if sl.SubLinkType == pg.SubLinkType_ARRAY_SUBLINK {
			if x.t = TypeByOID(x.t.array); x.t == nil {
				return nil, c.ErrAt(sl.Location, sqlerr.UndefinedObject, "could not find array type for data type %s", q.Columns[0].Type.SQLName())
			}
			x.array = true
		}
		return x, nil
	case pg.SubLinkType_ANY_SUBLINK:
		in, err := c.Expr(sc, sl.Testexpr)
		if err != nil {
			return nil, err
		}
		if x.in, err = c.Coerce(in, q.Columns[0].Type, Location(sl.Testexpr), "IN"); err != nil {
			return nil, err
		}
		x.t = TBool
		return x, nil
	}
	return nil, c.ErrAt(sl.Location, sqlerr.FeatureNotSupported, "seqd does not support this kind of subquery")
}
