package eval

import (
	"context"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// UNION, INTERSECT and EXCEPT, [ALL] or not, as PostgreSQL runs them: the
// two sides have as many columns, each column the common type of the
// sides' (PostgreSQL's select_common_type, as for CASE), named as the
// left side names it; ORDER BY names result columns (by name or
// position), LIMIT and OFFSET apply to the whole.

// setOp is a compiled set operation: its sides, and how each side's
// columns become the result's types.
type setOp struct {
	op           pg.SetOperation
	all          bool
	l, r         *Query
	lcast, rcast []*Type // per column, the type to cast to; nil: as it is
}

// setOpName is the operation as PostgreSQL's messages name it.
func setOpName(op pg.SetOperation) string {
	return strings.TrimPrefix(op.String(), "SETOP_")
}

// typed stands for a column of a side, for the common type's choice.
type typed struct{ t *Type }

func (x *typed) Type() *Type              { return x.t }
func (x *typed) Eval(*Env) (Datum, error) { return Null, nil }

// setOperation compiles st, a UNION, INTERSECT or EXCEPT.
func (c *Compiler) setOperation(st *pg.SelectStmt) (*Query, error) {
	name := setOpName(st.Op)
	l, err := c.Select(st.Larg)
	if err != nil {
		return nil, err
	}
	r, err := c.Select(st.Rarg)
	if err != nil {
		return nil, err
	}
	// Where the right side's columns are, for the errors' positions.
	rloc := func(i int) int32 {
		if i < len(st.Rarg.TargetList) {
			return leftmostLoc(st.Rarg.TargetList[i].GetResTarget().Val)
		}
		return -1
	}
	if len(l.Columns) != len(r.Columns) {
		err := c.ErrAt(rloc(0), sqlerr.SyntaxError, "each %s query must have the same number of columns", name)
		err.SetOperation = name
		return nil, err
	}
	so := &setOp{op: st.Op, all: st.All, l: l, r: r, lcast: make([]*Type, len(l.Columns)), rcast: make([]*Type, len(l.Columns))}
	q := &Query{s: c.Session, setop: so}
	for i := range l.Columns {
		lt, rt := l.Columns[i].Type, r.Columns[i].Type
		// A literal without a type ('x', NULL) takes the other side's,
		// as PostgreSQL resolves unknown inputs.
		lu, ru := lt, rt
		if unknownColumn(st.Larg, i) {
			lu = nil
		}
		if unknownColumn(st.Rarg, i) {
			ru = nil
		}
		t, err := commonType([]*Type{lu, ru}, name)
		if err != nil {
			if se, ok := err.(*sqlerr.Error); ok && se.Pos <= 0 {
				return nil, c.ErrAt(rloc(i), se.Kind, "%s", se.Msg)
			}
			return nil, err
		}
		if lt != t {
			so.lcast[i] = t
		}
		if rt != t {
			so.rcast[i] = t
		}
		col := l.Columns[i]
		col.Type = t
		q.Columns = append(q.Columns, col)
		q.targets = append(q.targets, &typed{t})
	}
	if err := c.resultOrder(q, st, name); err != nil {
		return nil, err
	}
	return q, nil
}

// setOpSortKey resolves an ORDER BY item of a set operation: a result
// column's name or position, nothing else (PostgreSQL's rule).
func (c *Compiler) setOpSortKey(q *Query, sb *pg.SortBy, name string) (sortKey, error) {
	k := sortOrder(sb)
	sb, k.ci = uncollatedSort(sb)
	if ref := sb.Node.GetColumnRef(); ref != nil && len(ref.Fields) == 1 && ref.Fields[0].GetString_() != nil {
		want := ref.Fields[0].GetString_().Sval
		for i, col := range q.Columns {
			if col.Name == want {
				k.col = i
				return k, nil
			}
		}
		return k, c.ErrAt(ref.Location, sqlerr.UndefinedColumn, "column \"%s\" does not exist", want).InClause(want, sqlerr.ClauseOrderBy)
	}
	if ac := sb.Node.GetAConst(); ac != nil && ac.GetIval() != nil {
		pos := int(ac.GetIval().Ival)
		if pos < 1 || pos > len(q.Columns) {
			return k, c.ErrAt(ac.Location, sqlerr.InvalidColumnReference, "ORDER BY position %d is not in select list", pos).InClause(strconv.Itoa(pos), sqlerr.ClauseOrderBy)
		}
		k.col = pos - 1
		return k, nil
	}
	err := c.ErrAt(leftmostLoc(sb.Node), sqlerr.FeatureNotSupported, "invalid UNION/INTERSECT/EXCEPT ORDER BY clause").
		WithDetail("Only result column names can be used, not expressions or functions.").
		WithHint("Add the expression/function to every SELECT, or move the %s into a FROM clause.", name)
	if ref := sb.Node.GetColumnRef(); ref != nil {
		if names := NodeStrings(ref.Fields); len(names) >= 2 && len(names) == len(ref.Fields) {
			err.Table = names[len(names)-2] // a column of one of the sides' tables
		}
	}
	return k, err
}

// rows runs both sides and combines their rows.
func (so *setOp) rows(ctx context.Context, e *Env, params []Datum) ([][]Datum, error) {
	side := func(q *Query, casts []*Type) ([][]Datum, error) { return sideRows(ctx, e, params, q, casts) }
	if so.op == pg.SetOperation_SETOP_UNION {
		return so.unionChain(e, side)
	}
	l, err := side(so.l, so.lcast)
	if err != nil {
		return nil, err
	}
	r, err := side(so.r, so.rcast)
	if err != nil {
		return nil, err
	}
	width := len(so.lcast)
	// INTERSECT and EXCEPT: by count of each row on the right (ALL keeps
	// as many as the counts allow; without ALL, each row once).
	counts := map[string]int{}
	for _, row := range r {
		counts[rowKeyOf(row, so.l.Columns, width)]++
	}
	var out [][]Datum
	for _, row := range l {
		k := rowKeyOf(row, so.l.Columns, width)
		n, seen := counts[k]
		switch so.op {
		case pg.SetOperation_SETOP_INTERSECT:
			if n > 0 {
				out = append(out, row)
				if so.all {
					counts[k]--
				} else {
					counts[k] = 0
				}
			}
		case pg.SetOperation_SETOP_EXCEPT:
			switch {
			case so.all && n > 0:
				counts[k]--
			case !so.all && seen:
			default:
				out = append(out, row)
				if !so.all {
					counts[k] = 0 // once
				}
			}
		}
	}
	return out, nil
}

// sideRows runs a side of a set operation and casts its columns to the
// operation's types (casts).
func sideRows(ctx context.Context, e *Env, params []Datum, q *Query, casts []*Type) ([][]Datum, error) {
	rs, err := q.Open(ctx, params, nil)
	if err != nil {
		return nil, err
	}
	all, err := Collect(e, rs)
	if err != nil {
		return nil, err
	}
	return all, castColumns(e, all, q.Columns, casts)
}

// unionChain runs so, a UNION, with the UNIONs its left side is made of
// (a UNION b UNION ALL c ..., parsed as ((a UNION b) UNION ALL c) ...;
// links without an ORDER BY, LIMIT or WITH of their own) as one
// operation: each side's rows are collected once and appended in order,
// and a UNION without ALL keeps each row's first occurrence, as running
// each link by itself does. Run link by link, each link copied, cast and
// looked through the rows of all the links below it: a statement of
// 4,000 UNION ALLs ran out of memory, and 30,000 held a core for
// minutes.
func (so *setOp) unionChain(e *Env, side func(*Query, []*Type) ([][]Datum, error)) ([][]Datum, error) {
	chain := []*setOp{so} // the top link first
	for l := so.l; l.chainLink(); l = l.setop.l {
		chain = append(chain, l.setop)
	}
	bottom := chain[len(chain)-1]
	out, err := side(bottom.l, bottom.lcast)
	if err != nil {
		return nil, err
	}
	width := len(so.lcast)
	// out[:checked] holds each row once, seen their keys (as keyed by
	// keyCols' collations); nil: not known.
	var seen map[string]bool
	var keyCols []Column
	checked := 0
	for i := len(chain) - 1; i >= 0; i-- {
		link := chain[i]
		if i < len(chain)-1 && slices.ContainsFunc(link.lcast, func(t *Type) bool { return t != nil }) {
			// out is the link below's, cast to this link's types: its
			// keys may change.
			if err := castColumns(e, out, link.l.Columns, link.lcast); err != nil {
				return nil, err
			}
			seen = nil
		}
		r, err := side(link.r, link.rcast)
		if err != nil {
			return nil, err
		}
		out = append(out, r...)
		if link.all {
			continue
		}
		if seen == nil || !sameCollations(keyCols, link.l.Columns, width) {
			seen, keyCols, checked = map[string]bool{}, link.l.Columns, 0
		}
		kept := out[:checked]
		for _, row := range out[checked:] {
			if k := rowKeyOf(row, keyCols, width); !seen[k] {
				seen[k] = true
				kept = append(kept, row)
			}
		}
		clear(out[len(kept):]) // what was dropped, for the collector
		out = kept
		checked = len(out)
	}
	return out, nil
}

// chainLink reports whether q is a UNION that a UNION above it may run
// with it (unionChain): one with no ORDER BY, LIMIT, OFFSET or WITH.
func (q *Query) chainLink() bool {
	return q.setop != nil && q.setop.op == pg.SetOperation_SETOP_UNION && q.sortKeys == nil &&
		q.limit == nil && q.offset == nil && len(q.ctes) == 0 && len(q.typed) == 0
}

// sameCollations reports whether a and b key rows alike (rowKeyOf): the
// same columns compared case-insensitively.
func sameCollations(a, b []Column, width int) bool {
	for i := range width {
		if (i < len(a) && a[i].ci) != (i < len(b) && b[i].ci) {
			return false
		}
	}
	return true
}

// castColumns casts, in place, each column i of rows (of type cols[i])
// to casts[i] where that is not nil.
func castColumns(e *Env, rows [][]Datum, cols []Column, casts []*Type) error {
	for _, row := range rows {
		for i, t := range casts {
			if t != nil && row[i].Kind != KNull {
				var err error
				if row[i], err = cast(e.Session, row[i], cols[i].Type, t); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// rowKey identifies a row's first width values, NULLs equal to each
// other as set operations take them.
// rowKeyOf is rowKey of a row whose columns are cols: a string of a
// column marked ci keyed by its utf8mb4_general_ci weights.
func rowKeyOf(row []Datum, cols []Column, width int) string {
	if !slices.ContainsFunc(cols[:min(width, len(cols))], func(c Column) bool { return c.ci }) {
		return rowKey(row, width)
	}
	r := slices.Clone(row[:width])
	for i := range r {
		if i < len(cols) && cols[i].ci && r[i].Kind == KText {
			r[i] = Text(generalCIKey(r[i].S))
		}
	}
	return rowKey(r, width)
}

func rowKey(row []Datum, width int) string {
	var key strings.Builder
	for _, d := range row[:width] {
		key.WriteByte(byte(d.Kind))
		if d.Kind == KNumeric {
			key.WriteString(numericKey(d)) // 1.5 and 1.50 are one value
		} else {
			key.Write(AppendOutput(nil, nil, d))
		}
		key.WriteByte(0)
	}
	return key.String()
}

// leftmostLoc is where an expression begins, as PostgreSQL's
// exprLocation says for a cast ('x'::text begins at 'x') or an operator
// (a + 1 at a).
func leftmostLoc(n *pg.Node) int32 {
	if n == nil {
		return -1
	}
	loc := Location(n)
	var inner *pg.Node
	switch {
	case n.GetTypeCast() != nil:
		inner = n.GetTypeCast().Arg
	case n.GetAExpr() != nil:
		inner = n.GetAExpr().Lexpr
	}
	if l := leftmostLoc(inner); l >= 0 && (loc < 0 || l < loc) {
		return l
	}
	return loc
}

// unknownColumn reports whether column i of a plain SELECT is a literal
// without a type: a string or NULL, not cast.
func unknownColumn(sel *pg.SelectStmt, i int) bool {
	if sel.Op != pg.SetOperation_SETOP_NONE || i >= len(sel.TargetList) {
		return false
	}
	k := sel.TargetList[i].GetResTarget().Val.GetAConst()
	return k != nil && (k.Isnull || k.GetSval() != nil)
}
