package eval

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// Set-returning functions in the select list: SELECT unnest(a),
// generate_subscripts(a, 1) FROM ... (pg_dump's unnest(setconfig),
// pgcli's foreign keys) make each row once per element of the longest of
// their arrays, the shorter ones NULL after their end and the other
// columns repeated, as PostgreSQL's ProjectSet; no rows when every array
// is empty or NULL. Each such call is its own select item; elsewhere
// set-returning functions belong in FROM.

// srfTarget compiles an unnest(array) or generate_subscripts(array, dim)
// select item as the array of its values; ok is false for any other
// item.
func (c *Compiler) srfTarget(sc *Scope, q *Query, n *pg.Node) (Expr, bool, error) {
	fc := n.GetFuncCall()
	if fc == nil || len(fc.Args) == 0 || fc.Over != nil || fc.AggStar || len(fc.AggOrder) > 0 {
		return nil, false, nil
	}
	name, err := c.funcName(fc)
	if err != nil || name != "unnest" && name != "generate_subscripts" || name == "unnest" && len(fc.Args) != 1 {
		return nil, false, nil
	}
	if name == "generate_subscripts" && len(fc.Args) != 2 {
		return nil, false, nil // f(a, dim, reverse) and others: not found as any other function is
	}
	arr, err := c.Expr(sc, fc.Args[0])
	if err != nil {
		return nil, true, err
	}
	arr = c.settle(arr)
	if arr.Type().Elem() == nil {
		return nil, true, c.NoFunction(name, []Expr{arr}, fc.Location)
	}
	q.srfs = append(q.srfs, len(q.targets))
	if name == "unnest" {
		return &retyped{Expr: arr, t: arr.Type().Elem()}, true, nil
	}
	dim, err := c.Expr(sc, fc.Args[1])
	if err == nil {
		dim, err = c.Coerce(dim, TInt4, Location(fc.Args[1]), "argument")
	}
	if err != nil {
		return nil, true, err
	}
	return &subscripts{arr: arr, dim: dim}, true, nil
}

// subscripts is generate_subscripts(arr, dim) as the array of its
// values: 1 to the array's length for dimension 1 (seqd's arrays have
// one, from 1), none for another or a NULL array.
type subscripts struct{ arr, dim Expr }

func (s *subscripts) Type() *Type { return TInt4 }

func (s *subscripts) Eval(e *Env) (Datum, error) {
	a, err := s.arr.Eval(e)
	if err != nil {
		return Null, err
	}
	d, err := s.dim.Eval(e)
	if err != nil || a.Kind == KNull || d.Kind == KNull || d.I != 1 {
		return Null, err
	}
	out := make([]Datum, len(a.A))
	for i := range out {
		out[i] = Int(int64(i + 1))
	}
	return Array(out...), nil
}

// srfRows makes each row of in once per element of the longest array of
// its columns cols, those columns the elements (NULL past an array's
// end).
type srfRows struct {
	in   Rows
	cols []int
	row  []Datum
	arrs [][]Datum
	n, i int // the longest array's length, the next element
}

func (r *srfRows) Next() ([]Datum, bool, error) {
	for r.i >= r.n {
		row, ok, err := r.in.Next()
		if err != nil || !ok {
			return nil, ok, err
		}
		r.row = append(r.row[:0], row...)
		r.arrs, r.n, r.i = r.arrs[:0], 0, 0
		for _, c := range r.cols {
			r.arrs = append(r.arrs, row[c].A)
			r.n = max(r.n, len(row[c].A))
		}
	}
	out := append([]Datum(nil), r.row...)
	for k, c := range r.cols {
		out[c] = Null
		if r.i < len(r.arrs[k]) {
			out[c] = r.arrs[k][r.i]
		}
	}
	r.i++
	return out, true, nil
}
