package eval

import (
	"errors"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// source yields the rows of a FROM item, each of its own width.
type source interface {
	width() int
	open(e *Env) (Rows, error)
}

// Query is a compiled SELECT.
type Query struct {
	s       Session
	from    source // nil: one empty row
	where   Expr
	targets []Expr
	Columns []Column
	hidden  int // sort columns appended to targets, not returned
	// srfs are the targets that are set-returning functions of arrays
	// (unnest, generate_subscripts): each row is made once per element of
	// the longest (srf.go).
	srfs     []int
	groupBy  []Expr
	groupCI  []bool // a GROUP BY item's strings one where utf8mb4_general_ci finds them equal (seqd_mariadb_ci_column)
	aggs     []*aggCall
	grouped  bool
	having   Expr
	sortKeys []sortKey
	distinct bool
	limit    Expr
	offset   Expr
	// typed are read once as the query opens, before its rows
	// (seqd_mariadb_typed).
	typed []Expr
	// late are the targets computed as the sorted rows are read
	// (seqd_mariadb_sent).
	late []int
	// bulk is set for a SeriesExpr over generate_series(a, b) (SELECT
	// nextval('s') FROM generate_series(a, b)): its values come at once.
	bulk *bulkPlan
	// width is the FROM row's width.
	width int
	// setop, for UNION, INTERSECT or EXCEPT, gives the rows (setop.go),
	// or values, for a VALUES list (values.go); sortKeys, limit and
	// offset then apply to them.
	setop  *setOp
	values *valuesList
	// ctes are the common table expressions the query declares (with.go);
	// recursion, for a recursive one's query, gives its rows.
	ctes      []*cte
	recursion *recursion
}

type sortKey struct {
	col        int
	desc       bool
	nullsFirst bool
	ci         bool // two strings ordered by utf8mb4_general_ci (seqd_mariadb_ci)
}

type bulkPlan struct {
	x        SeriesExpr
	from, to Expr
}

// Select compiles a SELECT.
func (c *Compiler) Select(st *pg.SelectStmt) (*Query, error) {
	if st.WithClause != nil {
		return c.with(st)
	}
	return c.selectBody(st)
}

// selectBody compiles a SELECT without its WITH clause.
func (c *Compiler) selectBody(st *pg.SelectStmt) (*Query, error) {
	if st.IntoClause != nil {
		return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd does not support SELECT INTO: it serves sequences only")
	}
	if len(st.LockingClause) > 0 {
		return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd does not support FOR UPDATE/SHARE: its relations are read-only")
	}
	if st.Op != pg.SetOperation_SETOP_NONE {
		return c.setOperation(st)
	}
	if len(st.ValuesLists) > 0 {
		return c.values(st)
	}
	q := &Query{s: c.Session}
	savedTyped := c.typed
	c.typed = &q.typed
	defer func() { c.typed = savedTyped }()
	sc := &Scope{}
	for _, n := range st.FromClause {
		src, err := c.fromItem(sc, n)
		if err != nil {
			return nil, err
		}
		if q.from == nil {
			q.from = src
		} else {
			q.from = &joinSource{l: q.from, r: src, kind: pg.JoinType_JOIN_INNER, total: func() int { return sc.width }}
		}
	}
	q.width = sc.width
	var err error
	if st.WhereClause != nil {
		err = c.within(sqlerr.ClauseWhere, func() error {
			return c.inClause("WHERE", func() (err error) { q.where, err = c.boolArg(sc, st.WhereClause, "WHERE"); return err })
		})
		if err != nil {
			return nil, err
		}
		c.pushDown(sc, st.WhereClause)
	}
	q.grouped = len(st.GroupClause) > 0 || st.HavingClause != nil
	for _, g := range st.GroupClause {
		var x Expr
		g, ci := uncollatedColumn(g)
		err := c.within(sqlerr.ClauseGroupBy, func() error {
			return c.inClause("GROUP BY", func() (err error) { x, err = c.groupKey(sc, st.TargetList, g); return err })
		})
		if err != nil {
			return nil, err
		}
		q.groupBy, q.groupCI = append(q.groupBy, c.settle(x)), append(q.groupCI, ci)
	}
	savedGrouping := c.grouping
	c.grouping = &groupCheck{sc: sc}
	defer func() { c.grouping = savedGrouping }()
	var aggs []*aggCall
	c.aggs = &aggs
	for _, t := range st.TargetList {
		if err := c.within(sqlerr.ClauseSelectList, func() error { return c.target(sc, q, t.GetResTarget()) }); err != nil {
			return nil, err
		}
	}
	if st.HavingClause != nil {
		err := c.within(sqlerr.ClauseHaving, func() (err error) { q.having, err = c.boolArg(sc, st.HavingClause, "HAVING"); return err })
		if err != nil {
			return nil, err
		}
	}
	visible := len(q.targets)
	for _, sb := range st.SortClause {
		var k sortKey
		err := c.within(sqlerr.ClauseOrderBy, func() (err error) { k, err = c.sortKey(sc, q, sb.GetSortBy(), visible); return err })
		if err != nil {
			return nil, err
		}
		q.sortKeys = append(q.sortKeys, k)
	}
	c.aggs = nil
	q.aggs = aggs
	q.grouped = q.grouped || len(aggs) > 0
	if err := c.checkGrouped(q, sc); err != nil {
		return nil, err
	}
	q.hidden = len(q.targets) - visible
	if len(q.srfs) > 0 && q.grouped {
		return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd does not support set-returning functions in the select list of a grouped query")
	}
	if len(st.DistinctClause) > 0 {
		if st.DistinctClause[0] != nil && st.DistinctClause[0].GetNode() != nil {
			return nil, c.ErrAt(-1, sqlerr.FeatureNotSupported, "seqd does not support DISTINCT ON")
		}
		q.distinct = true
	}
	if err := c.limits(q, st); err != nil {
		return nil, err
	}
	q.sentTargets()
	q.planBulk()
	return q, nil
}

// checkGrouped refuses, as PostgreSQL does (42803), a grouped query
// whose select list, HAVING or ORDER BY reads a column outside an
// aggregate that it does not group by (its value would be an arbitrary
// row's). Where a GROUP BY item is an expression rather than a column,
// a column inside an equal expression is grouped too; seqd does not
// compare expressions, and checks only queries grouped by columns alone.
func (c *Compiler) checkGrouped(q *Query, sc *Scope) error {
	if !q.grouped || c.grouping == nil {
		return nil
	}
	grouped := map[int]bool{}
	for _, g := range q.groupBy {
		ce, ok := g.(*colExpr)
		if !ok {
			return nil
		}
		grouped[ce.idx] = true
	}
	for _, r := range c.grouping.refs {
		if grouped[r.idx] {
			continue
		}
		name := ""
		for _, it := range sc.items {
			if r.idx >= it.offset && r.idx < it.offset+len(it.cols) {
				name = it.cols[r.idx-it.offset].Name
				if it.alias != "" {
					name = it.alias + "." + name
				}
			}
		}
		return c.ErrAt(r.loc, sqlerr.GroupingError, "column \"%s\" must appear in the GROUP BY clause or be used in an aggregate function", name).
			InClause(r.written, r.clause)
	}
	return nil
}

// groupKey compiles a GROUP BY item as PostgreSQL reads it: a bare
// integer is the select list's item at that position, a bare name an
// input column or else an output column's name, anything else an
// expression over the input.
func (c *Compiler) groupKey(sc *Scope, targets []*pg.Node, g *pg.Node) (Expr, error) {
	item := func(rt *pg.ResTarget, loc int32) (Expr, error) {
		if ref := rt.Val.GetColumnRef(); ref != nil && ref.Fields[len(ref.Fields)-1].GetAStar() != nil {
			return nil, c.ErrAt(loc, sqlerr.FeatureNotSupported, "seqd does not support GROUP BY a position that is *")
		}
		return c.Expr(sc, rt.Val)
	}
	if a := g.GetAConst(); a != nil && a.GetIval() != nil {
		pos := int(a.GetIval().Ival)
		if pos < 1 || pos > len(targets) {
			return nil, c.ErrAt(a.Location, sqlerr.InvalidColumnReference, "GROUP BY position %d is not in select list", pos).InClause(strconv.Itoa(pos), sqlerr.ClauseGroupBy)
		}
		return item(targets[pos-1].GetResTarget(), a.Location)
	}
	x, err := c.Expr(sc, g)
	var se *sqlerr.Error
	if ref := g.GetColumnRef(); ref != nil && len(ref.Fields) == 1 && ref.Fields[0].GetString_() != nil &&
		errors.As(err, &se) && se.Kind == sqlerr.UndefinedColumn {
		for _, t := range targets {
			if rt := t.GetResTarget(); rt.Name == ref.Fields[0].GetString_().Sval {
				x, err := item(rt, ref.Location)
				if errors.As(err, &se) && se.Kind == sqlerr.GroupingError && se.Column == "" {
					se.InClause(rt.Name, sqlerr.ClauseGroupBy) // grouping by an aggregate's name
				}
				return x, err
			}
		}
	}
	return x, err
}

// limits compiles st's LIMIT and OFFSET into q.
func (c *Compiler) limits(q *Query, st *pg.SelectStmt) error {
	var err error
	if st.LimitCount != nil {
		if q.limit, err = c.limitExpr(&Scope{}, st.LimitCount); err != nil {
			return err
		}
	}
	if st.LimitOffset != nil {
		if q.offset, err = c.limitExpr(&Scope{}, st.LimitOffset); err != nil {
			return err
		}
	}
	return nil
}

// resultOrder compiles the ORDER BY, LIMIT and OFFSET of a set operation
// or VALUES list (what), which order by result columns only.
func (c *Compiler) resultOrder(q *Query, st *pg.SelectStmt, what string) error {
	for _, n := range st.SortClause {
		k, err := c.setOpSortKey(q, n.GetSortBy(), what)
		if err != nil {
			return err
		}
		q.sortKeys = append(q.sortKeys, k)
	}
	return c.limits(q, st)
}

func (c *Compiler) limitExpr(sc *Scope, n *pg.Node) (Expr, error) {
	x, err := c.Expr(&Scope{}, n)
	if err != nil {
		return nil, err
	}
	return c.Coerce(x, TInt8, Location(n), "argument of LIMIT")
}

// target compiles one select-list item.
func (c *Compiler) target(sc *Scope, q *Query, rt *pg.ResTarget) error {
	val, ci := uncollatedColumn(rt.Val)
	if ref := val.GetColumnRef(); ref != nil {
		if last := ref.Fields[len(ref.Fields)-1]; last.GetAStar() != nil {
			return c.star(sc, q, ref)
		}
	}
	x, ok, err := c.srfTarget(sc, q, val)
	if !ok && err == nil {
		c.wholeRowTarget = val.GetColumnRef()
		x, err = c.Expr(sc, val)
		c.wholeRowTarget = nil
	}
	if err != nil {
		return err
	}
	// SELECT seqd_reserve('s', n): its values are as many columns.
	if rx, ok := x.(RowExpr); ok && val.GetFuncCall() != nil {
		row := &rowTarget{x: rx}
		for i, rc := range rx.Columns() {
			q.targets = append(q.targets, &rowTargetCol{r: row, i: i})
			q.Columns = append(q.Columns, Column{Name: rc.Name, Type: rc.Type})
		}
		return nil
	}
	x = c.settle(x)
	name := rt.Name
	if name == "" {
		name = columnName(val)
	}
	col := Column{Name: name, Type: x.Type(), ci: ci}
	if ce, ok := x.(*colExpr); ok {
		col.TableOID, col.AttNum = sc.origin(ce.idx)
	}
	q.targets = append(q.targets, x)
	q.Columns = append(q.Columns, col)
	return nil
}

// origin is the relation OID and attribute number of a scope column.
func (sc *Scope) origin(idx int) (uint32, int16) {
	for _, it := range sc.items {
		if idx >= it.offset && idx < it.offset+len(it.cols) && it.tableOID != 0 {
			return it.tableOID, int16(idx - it.offset + 1)
		}
	}
	return 0, 0
}

// rowTarget evaluates a RowExpr in the select list once per row for its
// columns.
type rowTarget struct {
	x   RowExpr
	row []Datum
}

type rowTargetCol struct {
	r *rowTarget
	i int
}

func (r *rowTargetCol) Type() *Type { return r.r.x.Columns()[r.i].Type }
func (r *rowTargetCol) Eval(e *Env) (Datum, error) {
	if r.i == 0 {
		row, err := r.r.x.EvalRow(e)
		if err != nil {
			return Null, err
		}
		r.r.row = row
	}
	if r.r.row == nil {
		return Null, nil
	}
	return r.r.row[r.i], nil
}

func (c *Compiler) star(sc *Scope, q *Query, ref *pg.ColumnRef) error {
	names := NodeStrings(ref.Fields)
	if len(sc.items) == 0 {
		return c.ErrAt(ref.Location, sqlerr.SyntaxError, "SELECT * with no tables specified is not valid")
	}
	if len(names) == 0 && len(sc.merged) > 0 {
		// PostgreSQL lists a USING join's merged columns once, first.
		return c.ErrAt(ref.Location, sqlerr.FeatureNotSupported, "seqd does not support * over a USING join; name the columns")
	}
	found := false
	for _, it := range sc.items {
		if len(names) > 0 && it.alias != names[len(names)-1] {
			continue
		}
		found = true
		for i, rc := range it.cols {
			q.targets = append(q.targets, &colExpr{t: rc.Type, idx: it.offset + i})
			col := Column{Name: rc.Name, Type: rc.Type}
			if it.tableOID != 0 {
				col.TableOID, col.AttNum = it.tableOID, int16(i+1)
			}
			q.Columns = append(q.Columns, col)
		}
	}
	if !found {
		err := c.ErrAt(ref.Location, sqlerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", names[len(names)-1])
		err.Table = strings.Join(names, ".")
		return err
	}
	return nil
}

// columnName is the name PostgreSQL gives an unaliased select-list item.
func columnName(n *pg.Node) string {
	switch {
	case n.GetColumnRef() != nil:
		names := NodeStrings(n.GetColumnRef().Fields)
		if len(names) > 0 {
			return names[len(names)-1]
		}
	case n.GetFuncCall() != nil:
		names := NodeStrings(n.GetFuncCall().Funcname)
		name := names[len(names)-1]
		if f, ok := compiledFuncs[name]; ok {
			return f.Column
		}
		return name
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		if tc.Arg.GetTypeCast() == nil && tc.Arg.GetAConst() == nil {
			if name := columnName(tc.Arg); name != "?column?" {
				return name
			}
		}
		names := NodeStrings(tc.TypeName.Names)
		if t := LookupType(names); t != nil && len(tc.TypeName.ArrayBounds) == 0 {
			return t.name
		}
		return names[len(names)-1]
	case n.GetCaseExpr() != nil:
		return "case"
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg.A_Expr_Kind_AEXPR_NULLIF:
		return "nullif"
	case n.GetCoalesceExpr() != nil:
		return "coalesce"
	case n.GetMinMaxExpr() != nil:
		if n.GetMinMaxExpr().Op == pg.MinMaxOp_IS_LEAST {
			return "least"
		}
		return "greatest"
	case n.GetSqlvalueFunction() != nil:
		return strings.ToLower(strings.TrimPrefix(n.GetSqlvalueFunction().Op.String(), "SVFOP_"))
	case n.GetAArrayExpr() != nil:
		return "array"
	case n.GetSubLink() != nil:
		switch n.GetSubLink().SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			return "exists"
		case pg.SubLinkType_ARRAY_SUBLINK:
			return "array"
		}
		if sel := n.GetSubLink().Subselect.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
			rt := sel.TargetList[0].GetResTarget()
			if rt.Name != "" {
				return rt.Name
			}
			return columnName(rt.Val)
		}
	case n.GetAIndirection() != nil:
		return columnName(n.GetAIndirection().Arg)
	case n.GetCollateClause() != nil:
		return columnName(n.GetCollateClause().Arg)
	}
	return "?column?"
}

// sortOrder is an ORDER BY item's direction and NULLS placement (NULLS
// FIRST by default when descending, as PostgreSQL's).
func sortOrder(sb *pg.SortBy) sortKey {
	k := sortKey{desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC}
	k.nullsFirst = k.desc
	switch sb.SortbyNulls {
	case pg.SortByNulls_SORTBY_NULLS_FIRST:
		k.nullsFirst = true
	case pg.SortByNulls_SORTBY_NULLS_LAST:
		k.nullsFirst = false
	}
	return k
}

func (c *Compiler) sortKey(sc *Scope, q *Query, sb *pg.SortBy, visible int) (sortKey, error) {
	k := sortOrder(sb)
	sb, k.ci = uncollatedSort(sb)
	if a := sb.Node.GetAConst(); a != nil && a.GetIval() != nil {
		pos := int(a.GetIval().Ival)
		if pos < 1 || pos > visible {
			return k, c.ErrAt(a.Location, sqlerr.InvalidColumnReference, "ORDER BY position %d is not in select list", pos).InClause(strconv.Itoa(pos), sqlerr.ClauseOrderBy)
		}
		k.col = pos - 1
		return k, nil
	}
	if ref := sb.Node.GetColumnRef(); ref != nil && len(ref.Fields) == 1 {
		name := NodeStrings(ref.Fields)
		for i := 0; i < visible && len(name) == 1; i++ {
			if q.Columns[i].Name == name[0] {
				k.col = i
				return k, nil
			}
		}
	}
	x, err := c.Expr(sc, sb.Node)
	if err != nil {
		return k, err
	}
	k.col = len(q.targets)
	q.targets = append(q.targets, c.settle(x))
	return k, nil
}

// planBulk recognizes SELECT nextval('s') FROM generate_series(a, b).
func (q *Query) planBulk() {
	if len(q.targets) != 1 || q.where != nil || q.grouped || q.sortKeys != nil || q.distinct || q.limit != nil || q.offset != nil {
		return
	}
	x, ok := q.targets[0].(SeriesExpr)
	gs, ok2 := q.from.(*seriesSource)
	if !ok || !ok2 || !x.CanSeries() || gs.step != nil {
		return
	}
	q.bulk = &bulkPlan{x: x, from: gs.from, to: gs.to}
}
