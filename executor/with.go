package executor

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sql"
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
	q     *query
	cols  []relCol
	owner *query
}

// cteRunKey finds, in an execution's context, the rows of the CTEs the
// query declares.
type cteRunKey struct{ owner *query }

type cteRun struct{ rows map[*cte][][]Datum }

// with compiles st's WITH clause and then st, with the CTEs visible to
// it (and to what it contains).
func (c *compiler) with(st *pg.SelectStmt) (*query, error) {
	w := st.WithClause
	if w.Recursive {
		return nil, c.errAt(w.Location, sql.FeatureNotSupported, "seqd does not support WITH RECURSIVE")
	}
	outer := len(c.ctes)
	defer func() { c.ctes = c.ctes[:outer] }()
	var owned []*cte
	for _, n := range w.Ctes {
		ce := n.GetCommonTableExpr()
		sel := ce.Ctequery.GetSelectStmt()
		if sel == nil {
			return nil, c.errAt(ce.Location, sql.FeatureNotSupported, "seqd does not support data-modifying statements in WITH: it serves sequences only")
		}
		for _, o := range owned {
			if o.name == ce.Ctename {
				return nil, c.errAt(ce.Location, sql.DuplicateAlias, "WITH query name \"%s\" specified more than once", ce.Ctename)
			}
		}
		sub := &compiler{s: c.s, query: c.query, params: c.params, ctes: c.ctes}
		q, err := sub.selectStmt(sel)
		c.params = sub.params
		if err != nil {
			return nil, err
		}
		var cols []relCol
		for _, col := range q.cols {
			cols = append(cols, relCol{col.Name, col.Type})
		}
		if len(ce.Aliascolnames) > len(cols) {
			return nil, c.errAt(ce.Location, sql.InvalidColumnReference, "WITH query \"%s\" has %d columns available but %d columns specified", ce.Ctename, len(cols), len(ce.Aliascolnames))
		}
		x := &cte{name: ce.Ctename, q: q, cols: renamed(cols, ce.Aliascolnames)}
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

// findCTE is the visible CTE of that name, the innermost first.
func (c *compiler) findCTE(name string) *cte {
	for i := len(c.ctes) - 1; i >= 0; i-- {
		if c.ctes[i].name == name {
			return c.ctes[i]
		}
	}
	return nil
}

// withCTEs gives an execution of q a place for its CTEs' rows.
func (q *query) withCTEs(ctx context.Context) context.Context {
	if len(q.ctes) == 0 {
		return ctx
	}
	return context.WithValue(ctx, cteRunKey{q}, &cteRun{rows: map[*cte][][]Datum{}})
}

// cteSource is a FROM item naming a CTE.
type cteSource struct{ x *cte }

func (s *cteSource) width() int { return len(s.x.cols) }

func (s *cteSource) open(e *env) (Rows, error) {
	run, _ := e.ctx.Value(cteRunKey{s.x.owner}).(*cteRun)
	if run != nil {
		if rows, ok := run.rows[s.x]; ok {
			return &sliceRows{rows: rows}, nil
		}
	}
	rs, err := s.x.q.open(e.ctx, e.params, nil)
	if err != nil {
		return nil, err
	}
	rows, err := collect(e, rs)
	if err != nil {
		return nil, err
	}
	if run != nil {
		run.rows[s.x] = rows
	}
	return &sliceRows{rows: rows}, nil
}
