package eval

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// Lookups: a relation of many rows (a catalog relation over a million
// sequences) may answer "the rows whose column c equals v" without
// making every row (Relation.Lookup). A SELECT's WHERE clause that is a
// conjunction holding column = constant (or parameter) for a column of
// one of its FROM relations asks that relation for those rows only. The
// whole WHERE clause is still applied to what comes back, so a lookup
// need only return every row that matches (it may return more), and an
// equality on a relation in an outer join may be used too: a row it
// leaves out would have failed the WHERE clause (col = v is false or
// NULL for a NULL-extended row).

// relAt is a relation of a SELECT's FROM clause and where its columns
// start in the FROM row.
type relAt struct {
	src    *relSource
	offset int
}

// keyFilter is column col of a relation equal to val (a constant or a
// parameter).
type keyFilter struct {
	col int
	val Expr
}

// pushDown gives the relations of sc the equalities of where they can
// look up by.
func (c *Compiler) pushDown(sc *Scope, where *pg.Node) {
	for _, n := range conjuncts(where) {
		e := n.GetAExpr()
		if e == nil || e.Kind != pg.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 || e.Name[0].GetString_().GetSval() != "=" {
			continue
		}
		col, val := e.Lexpr, e.Rexpr
		if col.GetColumnRef() == nil {
			col, val = val, col
		}
		ref := col.GetColumnRef()
		if ref == nil || !constant(val) {
			continue
		}
		x, err := c.columnRef(sc, ref)
		if err != nil {
			continue
		}
		ce, ok := x.(*colExpr)
		if !ok {
			continue
		}
		v, err := c.lookupValue(sc, val)
		if err != nil {
			continue
		}
		for _, r := range sc.rels {
			if ce.idx >= r.offset && ce.idx < r.offset+r.src.width() && r.src.rel.Lookup != nil {
				r.src.keys = append(r.src.keys, keyFilter{col: ce.idx - r.offset, val: v})
			}
		}
	}
}

// conjuncts are the terms of n's top-level AND (n itself if it is no
// AND).
func conjuncts(n *pg.Node) []*pg.Node {
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, a := range b.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*pg.Node{n}
}

// constant reports whether n is a literal, a parameter, or a cast of one.
func constant(n *pg.Node) bool {
	switch {
	case n.GetAConst() != nil, n.GetParamRef() != nil:
		return true
	case n.GetTypeCast() != nil:
		return constant(n.GetTypeCast().Arg)
	}
	return false
}

// lookupValue compiles the constant side of an equality on its own: a
// parameter as the statement's parameter (its type already inferred from
// the whole clause), anything else as an expression.
func (c *Compiler) lookupValue(sc *Scope, n *pg.Node) (Expr, error) {
	if p := n.GetParamRef(); p != nil && p.Number >= 1 && int(p.Number) <= len(c.params) {
		return &paramExpr{c: c, n: int(p.Number)}, nil
	}
	return c.Expr(sc, n)
}

// lookup reads the rows of r's relation that its first usable key
// filter picks, or reports that none could be used.
func (r *relSource) lookup(e *Env) ([][]Datum, bool, error) {
	for _, k := range r.keys {
		v, err := k.val.Eval(e)
		if err != nil || v.IsNull() {
			continue
		}
		rows, ok, err := r.rel.Lookup(k.col, v)
		if err != nil {
			return nil, false, err
		}
		if ok {
			return rows, true, nil
		}
	}
	return nil, false, nil
}
