package eval

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// A set-returning function in the select list: SELECT unnest(a) FROM ...
// (pg_dump's unnest(setconfig)) makes each row once per element of the
// array, the other columns repeated, as PostgreSQL's ProjectSet; no rows
// for an empty or NULL array. One such call per select list, as its own
// item; elsewhere set-returning functions belong in FROM.

// srfTarget compiles an unnest(array) select item; ok is false for any
// other item.
func (c *Compiler) srfTarget(sc *Scope, q *Query, n *pg.Node) (Expr, bool, error) {
	fc := n.GetFuncCall()
	if fc == nil || len(fc.Args) != 1 || fc.Over != nil || fc.AggStar || len(fc.AggOrder) > 0 {
		return nil, false, nil
	}
	if name, err := c.funcName(fc); err != nil || name != "unnest" {
		return nil, false, nil
	}
	if q.srf > 0 {
		return nil, true, c.ErrAt(fc.Location, sqlerr.FeatureNotSupported, "seqd supports one set-returning function in a select list")
	}
	arr, err := c.Expr(sc, fc.Args[0])
	if err != nil {
		return nil, true, err
	}
	arr = c.settle(arr)
	if arr.Type().Elem() == nil {
		return nil, true, c.NoFunction("unnest", []Expr{arr}, fc.Location)
	}
	q.srf = len(q.targets) + 1
	return &retyped{Expr: arr, t: arr.Type().Elem()}, true, nil
}

// srfRows makes each row of in once per element of its column col (an
// array), that column the element.
type srfRows struct {
	in   Rows
	col  int
	row  []Datum
	elem []Datum
}

func (r *srfRows) Next() ([]Datum, bool, error) {
	for len(r.elem) == 0 {
		row, ok, err := r.in.Next()
		if err != nil || !ok {
			return nil, ok, err
		}
		r.row = append(r.row[:0], row...)
		r.elem = row[r.col].A
	}
	out := append([]Datum(nil), r.row...)
	out[r.col] = r.elem[0]
	r.elem = r.elem[1:]
	return out, true, nil
}
