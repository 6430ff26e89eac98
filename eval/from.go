package eval

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// fromItem compiles one FROM item, adding its columns to sc.
func (c *Compiler) fromItem(sc *Scope, n *pg.Node) (source, error) {
	before := len(sc.items)
	src, err := c.fromNode(sc, n)
	if err != nil {
		return nil, err
	}
	for _, it := range sc.items[before:] {
		for _, prev := range sc.items[:before] {
			if it.alias != "" && it.alias == prev.alias && it.schema == prev.schema {
				err := c.ErrAt(-1, sqlerr.DuplicateAlias, "table name \"%s\" specified more than once", it.alias)
				err.Alias = it.alias
				return nil, err
			}
		}
	}
	return src, nil
}

// fromNode compiles one FROM item (fromItem checks its names).
func (c *Compiler) fromNode(sc *Scope, n *pg.Node) (source, error) {
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
			err = c.within(sqlerr.ClauseOn, func() error {
				return c.inClause("JOIN conditions", func() (err error) { js.on, err = c.boolArg(sc, j.Quals, "JOIN/ON"); return err })
			})
			if err != nil {
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
					return nil, c.ErrAt(-1, sqlerr.AmbiguousColumn, "common column name \"%s\" appears more than once in %s table", name, side).InClause(name, sqlerr.ClauseFrom)
				}
				found = &colExpr{t: rc.Type, idx: it.offset + i}
			}
		}
		if found == nil {
			return nil, c.ErrAt(-1, sqlerr.UndefinedColumn, "column \"%s\" specified in USING clause does not exist in %s table", name, side).InClause(name, sqlerr.ClauseFrom)
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
