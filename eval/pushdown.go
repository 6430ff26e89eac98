package eval

import (
	"strings"

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
// parameter), or with pattern set matching val, a pattern whose literal
// prefix the relation can look up by: pattern is "~" (a regular
// expression anchored with ^, psql's \d patterns) or "~~" (LIKE).
type keyFilter struct {
	col     int
	val     Expr
	pattern string
}

// pushDown gives the relations of sc the equalities of where they can
// look up by.
func (c *Compiler) pushDown(sc *Scope, where *pg.Node) {
	for _, n := range conjuncts(where) {
		e := n.GetAExpr()
		if e == nil || len(e.Name) == 0 {
			continue
		}
		op := e.Name[len(e.Name)-1].GetString_().GetSval()
		pattern := ""
		switch {
		case e.Kind == pg.A_Expr_Kind_AEXPR_OP && op == "=" && len(e.Name) == 1:
		case e.Kind == pg.A_Expr_Kind_AEXPR_OP && op == "~", e.Kind == pg.A_Expr_Kind_AEXPR_LIKE && op == "~~":
			pattern = op
		default:
			continue
		}
		col, val := e.Lexpr, e.Rexpr
		if pattern != "" {
			val = uncollated(val)
		} else if col.GetColumnRef() == nil {
			col, val = val, col
		}
		val = comparedString(val, col)
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
			if ce.idx >= r.offset && ce.idx < r.offset+r.src.width() && (pattern == "" && r.src.rel.Lookup != nil || pattern != "" && r.src.rel.LookupPrefix != nil) {
				r.src.keys = append(r.src.keys, keyFilter{col: ce.idx - r.offset, val: v, pattern: pattern})
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
		var rows [][]Datum
		var ok bool
		if k.pattern != "" {
			prefix := patternPrefix(k.pattern, v.S)
			if prefix == "" {
				continue
			}
			rows, ok, err = r.rel.LookupPrefix(k.col, prefix)
		} else {
			rows, ok, err = r.rel.Lookup(k.col, v)
		}
		if err != nil {
			return nil, false, err
		}
		if ok {
			return rows, true, nil
		}
	}
	return nil, false, nil
}

// uncollated is n without a COLLATE clause (psql writes its patterns
// COLLATE pg_catalog.default).
func uncollated(n *pg.Node) *pg.Node {
	if cc := n.GetCollateClause(); cc != nil {
		return cc.Arg
	}
	return n
}

// patternPrefix is the literal text every match of a pattern begins
// with: for a regular expression, what follows ^ (and psql's opening
// parenthesis) up to the first character with a meaning of its own, less
// one that a quantifier follows; for LIKE, what comes before the first
// wildcard or escape. "" where there is none, or where an alternation
// could match without it.
func patternPrefix(kind, p string) string {
	if kind == "~~" {
		if i := strings.IndexAny(p, "%_\\"); i >= 0 {
			return p[:i]
		}
		return p
	}
	rest, ok := strings.CutPrefix(p, "^")
	if !ok || strings.Contains(rest, "|") {
		return ""
	}
	rest = strings.TrimPrefix(rest, "(")
	i := 0
	for i < len(rest) && (rest[i] == '_' || rest[i] >= 'a' && rest[i] <= 'z' || rest[i] >= 'A' && rest[i] <= 'Z' || rest[i] >= '0' && rest[i] <= '9') {
		i++
	}
	if i < len(rest) && strings.IndexByte("*?{", rest[i]) >= 0 {
		i-- // the quantifier makes its operand optional
	}
	if i <= 0 {
		return ""
	}
	return rest[:i]
}

// comparedString is val, or the string it reads when it is MySQL's
// front end's seqd_mariadb_number(s, col) (mariadb_number.go): s where
// col is a string, else the number s reads as far as it is one, which a
// lookup by s's value in col's type finds too where s is all a number
// (and where it is not, s is no value of col's type: no lookup).
func comparedString(val, col *pg.Node) *pg.Node {
	fc := val.GetFuncCall()
	if fc == nil || len(fc.Funcname) != 1 || fc.Funcname[0].GetString_().GetSval() != "seqd_mariadb_number" ||
		len(fc.Args) != 2 || !sameColumn(fc.Args[1], col) {
		return val
	}
	return fc.Args[0]
}

// sameColumn reports whether a and b name one column alike.
func sameColumn(a, b *pg.Node) bool {
	x, y := a.GetColumnRef(), b.GetColumnRef()
	if x == nil || y == nil || len(x.Fields) != len(y.Fields) {
		return false
	}
	for i, f := range x.Fields {
		if f.GetString_() == nil || f.GetString_().GetSval() != y.Fields[i].GetString_().GetSval() {
			return false
		}
	}
	return true
}
