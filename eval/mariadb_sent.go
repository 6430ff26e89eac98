package eval

import pg "github.com/pganalyze/pg_query_go/v6"

// A select list item MariaDB computes as it sends its row:
//
//	seqd_mariadb_sent(x)   x, a select list item, which a query that
//	                       sorts its rows or skips some (ORDER BY,
//	                       OFFSET; without GROUP BY, an aggregate or
//	                       DISTINCT) computes after sorting them, for
//	                       each row as it is read, and not for a row
//	                       LIMIT or OFFSET leaves out: MariaDB sorts by
//	                       the sort keys alone and computes the items as
//	                       it sends the rows (a NEXTVAL's values follow
//	                       the order sent; a CAST's 1264 names the row
//	                       sent). An item that is a sort key is computed
//	                       for the sort too, as MariaDB's is. Elsewhere,
//	                       x itself.
//
// PostgreSQL's executor computes the select list before it sorts; its
// statements call no seqd_mariadb_sent.

func init() {
	DefineCompiled("seqd_mariadb_sent", CompiledFunc{Column: "seqd_mariadb_sent", Compile: compileSent})
}

func compileSent(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	if len(fc.Args) != 1 {
		return nil, c.NoFunction("seqd_mariadb_sent", nil, fc.Location)
	}
	x, err := c.Expr(sc, fc.Args[0])
	if err != nil {
		return nil, err
	}
	return &sentExpr{x: x}, nil
}

// sentExpr is a select list item computed as its row is sent; the query
// takes x out of it once its select list is compiled (sentTargets).
type sentExpr struct{ x Expr }

func (s *sentExpr) Type() *Type                { return s.x.Type() }
func (s *sentExpr) Eval(e *Env) (Datum, error) { return s.x.Eval(e) }

// sentTargets takes the select list's items marked seqd_mariadb_sent out
// of their marks, and keeps which they are where the query computes
// them as its rows are sent: it sorts or skips rows (OFFSET), and
// neither groups nor removes duplicates, nor returns a set's elements.
func (q *Query) sentTargets() {
	for i, t := range q.targets {
		if s, ok := t.(*sentExpr); ok {
			q.targets[i] = s.x
			q.late = append(q.late, i)
		}
	}
	if q.sortKeys == nil && q.offset == nil || q.grouped || q.distinct || len(q.srfs) > 0 {
		q.late = nil
	}
}

// sentLate is the query's rows, in from, with the items not computed
// late, sorted by its sort keys (where it has them), each with its late
// items computed as it is read (REQUIRES: q.late).
func (q *Query) sentLate(e *Env, in Rows) (Rows, error) {
	late := make([]bool, len(q.targets))
	for _, i := range q.late {
		late[i] = true
	}
	for _, k := range q.sortKeys {
		late[k.col] = false // computed for the sort, and again as sent
	}
	var keyed Rows = &keyRows{in: in, e: e, targets: q.targets, late: late}
	if q.sortKeys != nil {
		all, err := Collect(e, keyed)
		if err != nil {
			return nil, err
		}
		q.sort(all)
		keyed = &SliceRows{Rows: all}
	}
	return &sentRows{in: keyed, e: e, targets: q.targets, late: q.late, visible: len(q.targets) - q.hidden}, nil
}

// keyRows are in's rows, each the query's items but those computed late
// (left NULL), then the row of in it was computed of.
type keyRows struct {
	in      Rows
	e       *Env
	targets []Expr
	late    []bool
}

func (k *keyRows) Next() ([]Datum, bool, error) {
	row, ok, err := k.in.Next()
	if err != nil || !ok {
		return nil, ok, err
	}
	k.e.row = row
	out := make([]Datum, len(k.targets), len(k.targets)+len(row))
	for i, t := range k.targets {
		if k.late[i] {
			continue
		}
		if out[i], err = t.Eval(k.e); err != nil {
			return nil, false, err
		}
	}
	return append(out, row...), true, nil
}

// sentRows are keyRows' rows, each with its items computed late as it
// is read, and its visible items only (not the sort keys the select
// list does not hold); a row an OFFSET skips has none computed.
type sentRows struct {
	in      Rows
	e       *Env
	targets []Expr
	late    []int
	visible int
}

// skipRow passes a row by without computing its late items.
func (s *sentRows) skipRow() (bool, error) {
	_, ok, err := s.in.Next()
	return ok, err
}

func (s *sentRows) Next() ([]Datum, bool, error) {
	row, ok, err := s.in.Next()
	if err != nil || !ok {
		return nil, ok, err
	}
	n := len(s.targets)
	s.e.row = row[n:]
	for _, i := range s.late {
		d, err := s.targets[i].Eval(s.e)
		if err != nil {
			return nil, false, err
		}
		row[i] = d
	}
	return row[:s.visible], true, nil
}
