package eval

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// Correlated subqueries: a subquery (SubLink) is compiled with the scope
// of the query it stands in as its outer scope, and a column reference
// its own FROM clause does not resolve is looked up there, then in that
// query's outer scope, and so on (PostgreSQL's rule: the nearest level
// that has the column). Such a reference reads the row the subquery is
// evaluated for, which the subquery's evaluation carries down in its
// context; a subquery with none is evaluated as before.

// outerScope is a subquery's enclosing scope; used records that a
// reference resolved in it.
type outerScope struct {
	sc   *Scope
	up   *outerScope
	used bool
}

// outerRef resolves a column reference in the enclosing scopes; ok is
// false where none has it.
func (c *Compiler) outerRef(ref *pg.ColumnRef, schema, table, col string) (Expr, bool, error) {
	level := 0
	for o := c.outer; o != nil; o, level = o.up, level+1 {
		probe := &Compiler{Session: c.Session, SQL: c.SQL}
		x, err := probe.columnRef(o.sc, ref)
		if err != nil {
			continue // not at this level (or ambiguous there: PostgreSQL reports the innermost failure)
		}
		for p := c.outer; ; p = p.up {
			p.used = true // every level between reads the outer row
			if p == o {
				break
			}
		}
		switch x := x.(type) {
		case *colExpr:
			return &outerColExpr{t: x.t, idx: x.idx, level: level}, true, nil
		case *tableOIDExpr:
			return &outerColExpr{t: TOid, tableOID: x, level: level}, true, nil
		}
	}
	return nil, false, nil
}

// outerRowKey carries the rows of the enclosing queries a correlated
// subquery is evaluated for.
type outerRowKey struct{}

type outerRow struct {
	row []Datum
	up  *outerRow
}

// withOuterRow is ctx for a subquery evaluated for row.
func withOuterRow(ctx context.Context, row []Datum) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	up, _ := ctx.Value(outerRowKey{}).(*outerRow)
	return context.WithValue(ctx, outerRowKey{}, &outerRow{row: row, up: up})
}

// outerColExpr is a column of an enclosing query's row, level scopes out.
type outerColExpr struct {
	t        *Type
	idx      int
	tableOID *tableOIDExpr // the tableoid system column instead
	level    int
}

func (x *outerColExpr) Type() *Type { return x.t }
func (x *outerColExpr) Eval(e *Env) (Datum, error) {
	if e.Ctx == nil {
		return Null, noOuterRow()
	}
	o, _ := e.Ctx.Value(outerRowKey{}).(*outerRow)
	for i := 0; i < x.level && o != nil; i++ {
		o = o.up
	}
	if o == nil {
		return Null, noOuterRow()
	}
	if x.tableOID != nil {
		return x.tableOID.Eval(&Env{row: o.row})
	}
	return o.row[x.idx], nil
}

// noOuterRow is the error of a correlated reference evaluated without
// the row it reads: never a NULL it would stand for.
func noOuterRow() error {
	return sqlerr.Errorf(sqlerr.InternalError, "a correlated column reference was evaluated without the row of the query around it")
}
