package eval

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// WITH (not RECURSIVE): each common table expression is a query the
// statement's FROM items name; it runs once per execution of the
// statement that declares it, however often it is named (as PostgreSQL
// materializes one named more than once, so that nextval in it is
// called once per row, not once per reference).

// cte is one common table expression: its name, query and columns, and
// the query that declares it (whose execution keeps its rows).
type cte struct {
	name  string
	q     *Query
	cols  []RelColumn
	owner *Query
	// recursive: a WITH RECURSIVE query whose recursive term reads the
	// rows of the previous step (workKey), not the CTE's own rows.
	recursive bool
}

// workKey finds, in the context of a recursive term's step, the rows of
// the step before (the working table).
type workKey struct{ x *cte }

// cteRunKey finds, in an execution's context, the rows of the CTEs the
// query declares.
type cteRunKey struct{ owner *Query }

type cteRun struct{ rows map[*cte][][]Datum }

// with compiles st's WITH clause and then st, with the CTEs visible to
// it (and to what it contains).
func (c *Compiler) with(st *pg.SelectStmt) (*Query, error) {
	w := st.WithClause
	outer := len(c.ctes)
	defer func() { c.ctes = c.ctes[:outer] }()
	var owned []*cte
	for _, n := range w.Ctes {
		ce := n.GetCommonTableExpr()
		sel := ce.Ctequery.GetSelectStmt()
		if sel == nil {
			return nil, c.ErrAt(ce.Location, sqlerr.FeatureNotSupported, "seqd does not support data-modifying statements in WITH: it serves sequences only")
		}
		for _, o := range owned {
			if o.name == ce.Ctename {
				return nil, c.ErrAt(ce.Location, sqlerr.DuplicateAlias, "WITH query name \"%s\" specified more than once", ce.Ctename)
			}
		}
		if w.Recursive && sel.Op == pg.SetOperation_SETOP_UNION {
			x, err := c.recursiveCTE(ce, sel)
			if err != nil {
				return nil, err
			}
			owned = append(owned, x)
			c.ctes = append(c.ctes, x)
			continue
		}
		sub := &Compiler{Session: c.Session, SQL: c.SQL, params: c.params, ctes: c.ctes}
		q, err := sub.Select(sel)
		c.params = sub.params
		if err != nil {
			return nil, err
		}
		cols, err := c.cteColumns(ce, q)
		if err != nil {
			return nil, err
		}
		x := &cte{name: ce.Ctename, q: q, cols: cols}
		owned = append(owned, x)
		c.ctes = append(c.ctes, x)
	}
	q, err := c.selectBody(st)
	if err != nil {
		return nil, err
	}
	for _, x := range owned {
		x.owner = q
	}
	q.ctes = owned
	return q, nil
}

// cteColumns are a CTE's columns: its query's, renamed by the CTE's
// column list, which may not name more than there are.
func (c *Compiler) cteColumns(ce *pg.CommonTableExpr, q *Query) ([]RelColumn, error) {
	var cols []RelColumn
	for _, col := range q.Columns {
		cols = append(cols, RelColumn{col.Name, col.Type})
	}
	if len(ce.Aliascolnames) > len(cols) {
		return nil, c.ErrAt(ce.Location, sqlerr.InvalidColumnReference, "WITH query \"%s\" has %d columns available but %d columns specified", ce.Ctename, len(cols), len(ce.Aliascolnames))
	}
	return renamed(cols, ce.Aliascolnames), nil
}

// findCTE is the visible CTE of that name, the innermost first.
func (c *Compiler) findCTE(name string) *cte {
	for i := len(c.ctes) - 1; i >= 0; i-- {
		if c.ctes[i].name == name {
			return c.ctes[i]
		}
	}
	return nil
}

// withCTEs gives an execution of q a place for its CTEs' rows.
func (q *Query) withCTEs(ctx context.Context) context.Context {
	if len(q.ctes) == 0 {
		return ctx
	}
	return context.WithValue(ctx, cteRunKey{q}, &cteRun{rows: map[*cte][][]Datum{}})
}

// cteSource is a FROM item naming a CTE.
type cteSource struct{ x *cte }

func (s *cteSource) width() int { return len(s.x.cols) }

func (s *cteSource) open(e *Env) (Rows, error) {
	if s.x.recursive {
		if rows, ok := e.Ctx.Value(workKey{s.x}).([][]Datum); ok {
			return &SliceRows{Rows: rows}, nil
		}
	}
	run, _ := e.Ctx.Value(cteRunKey{s.x.owner}).(*cteRun)
	if run != nil {
		if rows, ok := run.rows[s.x]; ok {
			return &SliceRows{Rows: rows}, nil
		}
	}
	rs, err := s.x.q.Open(e.Ctx, e.params, nil)
	if err != nil {
		return nil, err
	}
	rows, err := Collect(e, rs)
	if err != nil {
		return nil, err
	}
	if run != nil {
		run.rows[s.x] = rows
	}
	return &SliceRows{Rows: rows}, nil
}

// recursion is a recursive CTE's query, PostgreSQL's way: the
// non-recursive term's rows, then the recursive term run on the rows of
// the step before until it gives none (without ALL, rows seen already
// are dropped, so that a cycle ends).
type recursion struct {
	x     *cte
	l, r  *Query
	all   bool
	casts []*Type // per column, the recursive term's cast to the CTE's type
}

// recursiveCTE compiles a WITH RECURSIVE query: nonrecursive UNION [ALL]
// recursive, the recursive term seeing the CTE as its working table.
func (c *Compiler) recursiveCTE(ce *pg.CommonTableExpr, sel *pg.SelectStmt) (*cte, error) {
	if len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil {
		return nil, c.ErrAt(ce.Location, sqlerr.FeatureNotSupported, "ORDER BY/LIMIT/OFFSET in a recursive query is not implemented")
	}
	sub := &Compiler{Session: c.Session, SQL: c.SQL, params: c.params, ctes: c.ctes}
	l, err := sub.Select(sel.Larg)
	c.params = sub.params
	if err != nil {
		return nil, err
	}
	cols, err := c.cteColumns(ce, l)
	if err != nil {
		return nil, err
	}
	x := &cte{name: ce.Ctename, cols: cols, recursive: true}
	sub = &Compiler{Session: c.Session, SQL: c.SQL, params: c.params, ctes: append(c.ctes[:len(c.ctes):len(c.ctes)], x)}
	r, err := sub.Select(sel.Rarg)
	c.params = sub.params
	if err != nil {
		return nil, err
	}
	if len(r.Columns) != len(l.Columns) {
		loc := int32(-1)
		if len(sel.Rarg.TargetList) > 0 {
			loc = leftmostLoc(sel.Rarg.TargetList[0].GetResTarget().Val)
		}
		return nil, c.ErrAt(loc, sqlerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	rec := &recursion{x: x, l: l, r: r, all: sel.All, casts: make([]*Type, len(l.Columns))}
	q := &Query{s: c.Session, recursion: rec}
	for i, col := range l.Columns {
		lt, rt := col.Type, r.Columns[i].Type
		if lt != rt {
			if t, err := commonType([]*Type{lt, rt}, "UNION"); err != nil || t != lt {
				loc := int32(-1)
				if i < len(sel.Larg.TargetList) {
					loc = leftmostLoc(sel.Larg.TargetList[i].GetResTarget().Val)
				}
				return nil, c.ErrAt(loc, sqlerr.DatatypeMismatch, "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall", ce.Ctename, i+1, lt.sqlName, rt.sqlName).
					WithHint("Cast the output of the non-recursive term to the correct type.")
			}
			rec.casts[i] = lt
		}
		q.Columns = append(q.Columns, col)
		q.targets = append(q.targets, &typed{lt})
	}
	x.q = q
	return x, nil
}

// rows runs the recursion to its end.
func (rc *recursion) rows(ctx context.Context, e *Env, params []Datum) ([][]Datum, error) {
	width := len(rc.casts)
	seen := map[string]bool{}
	keep := func(rows [][]Datum) [][]Datum {
		if rc.all {
			return rows
		}
		return unseen(seen, rows, width)
	}
	run := func(q *Query, ctx context.Context) ([][]Datum, error) {
		rs, err := q.Open(ctx, params, nil)
		if err != nil {
			return nil, err
		}
		return Collect(e, rs)
	}
	work, err := run(rc.l, ctx)
	if err != nil {
		return nil, err
	}
	work = keep(work)
	all := append([][]Datum(nil), work...)
	for len(work) > 0 {
		if err := e.tick(); err != nil {
			return nil, err
		}
		next, err := run(rc.r, context.WithValue(ctx, workKey{rc.x}, work))
		if err != nil {
			return nil, err
		}
		if err := castColumns(e, next, rc.r.Columns, rc.casts); err != nil {
			return nil, err
		}
		work = keep(next)
		all = append(all, work...)
	}
	return all, nil
}
