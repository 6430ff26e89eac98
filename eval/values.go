package eval

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// VALUES lists, as a statement and in FROM ((VALUES ...) v(a, b)):
// columns column1, column2, ..., each the common type of its rows'
// expressions, as PostgreSQL resolves them.

// valuesList is a compiled VALUES: its rows' expressions.
type valuesList struct {
	rows [][]Expr
}

// values compiles st, a VALUES list, into a query of its rows.
func (c *Compiler) values(st *pg.SelectStmt) (*Query, error) {
	sc := &Scope{}
	var rows [][]Expr
	var nodes [][]*pg.Node
	for i, l := range st.ValuesLists {
		items := l.GetList().GetItems()
		if i > 0 && len(items) != len(nodes[0]) {
			loc := int32(-1)
			if len(items) > 0 {
				loc = leftmostLoc(items[0])
			}
			return nil, c.ErrAt(loc, sqlerr.SyntaxError, "VALUES lists must all be the same length")
		}
		var row []Expr
		for _, n := range items {
			x, err := c.Expr(sc, n)
			if err != nil {
				return nil, err
			}
			row = append(row, x)
		}
		rows, nodes = append(rows, row), append(nodes, items)
	}
	q := &Query{s: c.Session, values: &valuesList{rows: rows}}
	for col := range nodes[0] {
		types := make([]*Type, len(rows))
		for i, row := range rows {
			if !isUnknown(row[col]) {
				types[i] = row[col].Type()
			}
			// The first row that does not fit is where the error is.
			if _, err := commonType(types[:i+1], "VALUES"); err != nil {
				return nil, c.ErrAt(leftmostLoc(nodes[i][col]), sqlerr.DatatypeMismatch, "%s", err.(*sqlerr.Error).Msg)
			}
		}
		t, _ := commonType(types, "VALUES")
		for i, row := range rows {
			x, err := c.Coerce(row[col], t, Location(nodes[i][col]), "VALUES")
			if err != nil {
				return nil, err
			}
			row[col] = x
		}
		q.Columns = append(q.Columns, Column{Name: fmt.Sprintf("column%d", col+1), Type: t})
		q.targets = append(q.targets, &typed{t})
	}
	if err := c.resultOrder(q, st, "VALUES"); err != nil {
		return nil, err
	}
	return q, nil
}

// open evaluates the rows.
func (v *valuesList) open(e *Env) ([][]Datum, error) {
	out := make([][]Datum, 0, len(v.rows))
	for _, row := range v.rows {
		if err := e.tick(); err != nil {
			return nil, err
		}
		r := make([]Datum, len(row))
		for i, x := range row {
			d, err := x.Eval(e)
			if err != nil {
				return nil, err
			}
			r[i] = d
		}
		if err := e.charge(rowSize(r)); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
