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
// context; a subquery with none is evaluated as before. An aggregate
// that reads only such references is the enclosing query's
// (outerAggregate), whose value for the row, or the group, is carried
// down with it.

// outerScope is a subquery's enclosing scope; used records that a
// reference resolved in it.
type outerScope struct {
	sc   *Scope
	up   *outerScope
	used bool
	// comp is the compiler of the query around, whose aggregates an
	// aggregate of its columns alone in the subquery is (outerAggregate).
	comp *Compiler
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
		if c.refs.outerLevel == 0 || level+1 < c.refs.outerLevel {
			c.refs.outerLevel = level + 1
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
	row  []Datum
	aggs []Datum // the group's aggregates, where the query is grouped
	up   *outerRow
}

// withOuterRow is ctx for a subquery evaluated for row, and aggs, the
// values of its group's aggregates.
func withOuterRow(ctx context.Context, row, aggs []Datum) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	up, _ := ctx.Value(outerRowKey{}).(*outerRow)
	return context.WithValue(ctx, outerRowKey{}, &outerRow{row: row, aggs: aggs, up: up})
}

// outerAggregate compiles fc, an aggregate in a subquery whose
// arguments read columns of the query around it and none of the
// subquery's (nor a subquery), as PostgreSQL and MariaDB read it: an
// aggregate of the query around, over its rows (or its group's),
// which the subquery reads as it reads that query's columns. SELECT
// (SELECT sum(x)) FROM t is one row, t's sum; it was one row of t per
// row, each x's sum over the subquery's one row. An aggregate of
// columns of several queries around is the nearest's, as PostgreSQL
// has it. ok is false where fc is the subquery's own.
func (c *Compiler) outerAggregate(name string, fc *pg.FuncCall, read refCount) (Expr, bool, error) {
	if read.local > 0 || read.subLinks > 0 || read.outerLevel == 0 {
		return nil, false, nil
	}
	o := c.outer
	for range read.outerLevel - 1 {
		if o != nil {
			o = o.up
		}
	}
	if o == nil || o.comp == nil || o.comp.aggs == nil || o.comp.inAgg > 0 {
		// Where that query takes no aggregate (its WHERE), the
		// subquery's, as MariaDB has it (PostgreSQL refuses: 42803).
		return nil, false, nil
	}
	x, err := o.comp.aggregate(o.sc, name, fc)
	if err != nil {
		return nil, true, err
	}
	ref, ok := x.(*aggRef)
	if !ok {
		return nil, true, sqlerr.Errorf(sqlerr.InternalError, "an aggregate of the query around compiled as %T", x)
	}
	for p := c.outer; ; p = p.up {
		p.used = true // every level between carries its row down
		if p == o {
			break
		}
	}
	return &outerAggExpr{t: ref.t, idx: ref.idx, level: read.outerLevel - 1}, true, nil
}

// outerAggExpr is an aggregate of a query around a subquery, level
// scopes out (outerAggregate), its value for the row the subquery is
// evaluated for.
type outerAggExpr struct {
	t          *Type
	idx, level int
}

func (x *outerAggExpr) Type() *Type { return x.t }
func (x *outerAggExpr) Eval(e *Env) (Datum, error) {
	var o *outerRow
	if e.Ctx != nil {
		o, _ = e.Ctx.Value(outerRowKey{}).(*outerRow)
	}
	for i := 0; i < x.level && o != nil; i++ {
		o = o.up
	}
	if o == nil || x.idx >= len(o.aggs) {
		return Null, noOuterRow()
	}
	return o.aggs[x.idx], nil
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
