package mysqlwire

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/sqlerr"
)

// query builds a query: a SELECT, or a UNION, EXCEPT or INTERSECT of
// them. names are its columns as MySQL names them (nil when they cannot
// be told: a * over a relation of unknown columns); derived: it is a
// derived table's, whose columns the tree names so, in lower case, for
// the query around it to name them.
func (b *builder) query(q ast.Node, derived bool) (*pg.Node, []string, error) {
	b.types = nil
	if b.hexForms == nil {
		forms, floats := literalForms(q.Text(), !b.env.noBackslash)
		for _, f := range forms {
			if f == hexNumber|hexString {
				return nil, nil, unsupported("a hexadecimal literal written both 0x.. and x'..' in one statement")
			}
		}
		b.hexForms, b.floatForms = forms, floats
		if err := b.hexPlaces(q); err != nil {
			return nil, nil, err
		}
	}
	switch q := q.(type) {
	case *ast.SelectStmt:
		return b.selectStmt(q, derived)
	case *ast.SetOprStmt:
		if q.With != nil {
			return nil, nil, unsupported("WITH")
		}
		n, names, err := b.setList(q.SelectList, derived)
		if err != nil {
			return nil, nil, err
		}
		types := b.types
		n, names, err = b.ordered(n, names, types, q.OrderBy, q.Limit)
		b.types = types
		if types != nil && q.OrderBy != nil { // a LIMIT alone leaves a UNION ALL's rows where they are
			b.types = storedTypes(types)
		}
		return n, names, err
	}
	return nil, nil, unsupported("this query")
}

// setList is the queries of a set operation: INTERSECT first, then UNION
// and EXCEPT from left to right, as MariaDB reads them.
func (b *builder) setList(l *ast.SetOprSelectList, derived bool) (*pg.Node, []string, error) {
	if l.With != nil {
		return nil, nil, unsupported("WITH")
	}
	type operand struct {
		op   *ast.SetOprType
		node *pg.Node
	}
	var list []operand
	var names []string
	var branches [][]colType
	var nodes []*pg.Node
	temporary := l.OrderBy != nil // MariaDB sorts the result in a temporary table (not for a LIMIT alone)
	for i, q := range l.Selects {
		var n *pg.Node
		var ns []string
		var err error
		var op *ast.SetOprType
		switch q := q.(type) {
		case *ast.SelectStmt:
			n, ns, err = b.selectStmt(q, derived && i == 0)
			op = q.AfterSetOperator
		case *ast.SetOprSelectList:
			n, ns, err = b.setList(q, derived && i == 0)
			op = q.AfterSetOperator
		default:
			return nil, nil, unsupported("this query")
		}
		if err != nil {
			return nil, nil, err
		}
		branches, nodes = append(branches, b.types), append(nodes, n)
		if i > 0 && (op == nil || *op != ast.UnionAll) {
			temporary = true // UNION, INTERSECT, EXCEPT: distinct rows, kept in a temporary table
		}
		if i == 0 {
			names = ns
		}
		if k := len(list) - 1; op != nil && (*op == ast.Intersect || *op == ast.IntersectAll) {
			list[k].node = setOperation(*op, list[k].node, n)
			continue
		}
		list = append(list, operand{op, n})
	}
	n := list[0].node
	for _, o := range list[1:] {
		n = setOperation(*o.op, n, o.node)
	}
	types := setTypes(branches)
	for i, t := range types {
		if t.kind() == kindString && slices.ContainsFunc(branches, func(ts []colType) bool { return ts[i].kind() != kindString }) {
			chars := t.length // a binary string's length is its bytes', a text's four bytes a character
			if !t.binary {
				chars /= 4
			}
			for _, n := range nodes {
				b.textColumn(n.GetSelectStmt(), i, chars)
			}
		}
	}
	for i, t := range types {
		// A column NULL in some queries takes the others' number type
		// there, as MariaDB's NULL takes any: the executor, as
		// PostgreSQL, would type a set operation of NULLs alone as text
		// (SELECT NULL UNION SELECT NULL UNION SELECT 1), which no
		// number then matches.
		name := map[valueKind]string{kindInt: "int8", kindDecimal: "numeric", kindReal: "float8"}[t.kind()]
		for j, n := range nodes {
			if name != "" && branches[j][i].kind() == kindNull {
				b.castColumn(n.GetSelectStmt(), i, name)
			}
		}
	}
	if distinctSetOp(n.GetSelectStmt()) {
		collatedColumns(n.GetSelectStmt(), types)
	}
	n, names, err := b.ordered(n, names, types, l.OrderBy, l.Limit)
	b.types = types
	if temporary {
		b.types = storedTypes(types)
	}
	return n, names, err
}

// collatedColumns marks the columns of sel, a SELECT DISTINCT or a set
// operation (its leftmost query's items, which name its columns), whose
// type (types: nil where not told) is a string, not a binary one: their
// strings are one where the connection's collation, utf8mb4_general_ci,
// finds them equal, as MariaDB's DISTINCT and UNION take them (eval's
// seqd_mariadb_ci_column: 'a' UNION 'A' is one row, the first).
func collatedColumns(sel *pg.SelectStmt, types []colType) {
	for sel != nil && sel.Larg != nil {
		sel = sel.Larg
	}
	if sel == nil || len(sel.TargetList) != len(types) {
		return // a * among the items, or types not told
	}
	for i, t := range types {
		rt := sel.TargetList[i].GetResTarget()
		if !t.known || t.kind() != kindString || t.binary || rt == nil {
			continue
		}
		if ref := rt.Val.GetColumnRef(); ref != nil && ref.Fields[len(ref.Fields)-1].GetAStar() != nil {
			return
		}
		if fc := rt.Val.GetFuncCall(); fc != nil && fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval() == "seqd_mariadb_ci_column" {
			continue
		}
		rt.Val = funcCall("seqd_mariadb_ci_column", []*pg.Node{rt.Val})
	}
}

// distinctSetOp reports whether sel is a set operation that takes rows
// once (UNION, INTERSECT, EXCEPT without ALL), or holds one.
func distinctSetOp(sel *pg.SelectStmt) bool {
	if sel == nil || sel.Larg == nil {
		return false
	}
	return !sel.All || distinctSetOp(sel.Larg) || distinctSetOp(sel.Rarg)
}

// textColumn makes column i of sel, a query or a set operation of
// queries, its value's text: a set operation's column MariaDB makes a
// string where one of its queries' is a number ('a' UNION 1), which
// PostgreSQL would read every query's as. A value MariaDB holds with
// more digits than it shows (b.held) is written with them all, cut to
// the column's length in characters, as MariaDB writes it into the
// string column of its temporary table (1/3 UNION 'a': 0.33333).
func (b *builder) textColumn(sel *pg.SelectStmt, i int, length uint32) {
	if sel.Op != pg.SetOperation_SETOP_NONE {
		b.textColumn(sel.Larg, i, length)
		b.textColumn(sel.Rarg, i, length)
		return
	}
	if t := b.column(sel, i); t != nil {
		if held, ok := b.held[t]; ok && length > 0 {
			t.Val = funcCall("substr", []*pg.Node{typeCast(held.n, typeName("text")), intConst(1), intConst(int32(min(length, 1<<20)))})
			return
		}
		if isCondition(t.Val) { // a truth: its 1 or 0
			t.Val = typeCast(t.Val, typeName("int4"))
		}
		t.Val = typeCast(t.Val, typeName("text"))
	}
}

// castColumn casts column i of sel (each query's, a set operation's) to
// the type named name.
func (b *builder) castColumn(sel *pg.SelectStmt, i int, name string) {
	if sel.Op != pg.SetOperation_SETOP_NONE {
		b.castColumn(sel.Larg, i, name)
		b.castColumn(sel.Rarg, i, name)
		return
	}
	if t := b.column(sel, i); t != nil {
		t.Val = typeCast(t.Val, typeName(name))
	}
}

// setOperation is l op r.
func setOperation(op ast.SetOprType, l, r *pg.Node) *pg.Node {
	kind := map[ast.SetOprType]pg.SetOperation{ast.Union: pg.SetOperation_SETOP_UNION, ast.UnionAll: pg.SetOperation_SETOP_UNION,
		ast.Except: pg.SetOperation_SETOP_EXCEPT, ast.ExceptAll: pg.SetOperation_SETOP_EXCEPT,
		ast.Intersect: pg.SetOperation_SETOP_INTERSECT, ast.IntersectAll: pg.SetOperation_SETOP_INTERSECT}[op]
	all := op == ast.UnionAll || op == ast.ExceptAll || op == ast.IntersectAll
	return selectNode(&pg.SelectStmt{Op: kind, All: all, Larg: l.GetSelectStmt(), Rarg: r.GetSelectStmt()})
}

// ordered is n with a set operation's ORDER BY and LIMIT, if it has them.
func (b *builder) ordered(n *pg.Node, names []string, types []colType, order *ast.OrderByClause, limit *ast.Limit) (*pg.Node, []string, error) {
	if order == nil && limit == nil {
		return n, names, nil
	}
	s := n.GetSelectStmt()
	if len(s.SortClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil {
		return nil, nil, unsupported("ORDER BY or LIMIT on a parenthesized query that has them")
	}
	var err error
	if order != nil {
		if s.SortClause, err = b.orderBy(order.Items, names, types, false); err != nil {
			return nil, nil, err
		}
	}
	return n, names, b.limit(s, limit)
}

// selectStmt builds a SELECT. Options that change how MySQL runs it,
// not what it answers (SQL_NO_CACHE, HIGH_PRIORITY, STRAIGHT_JOIN, hints
// ...), are left out.
func (b *builder) selectStmt(s *ast.SelectStmt, derived bool) (*pg.Node, []string, error) {
	switch {
	case s.Kind != ast.SelectStmtKindSelect || s.Fields == nil:
		return nil, nil, unsupported("VALUES and TABLE statements")
	case s.With != nil:
		return nil, nil, unsupported("WITH")
	case len(s.WindowSpecs) > 0:
		return nil, nil, unsupported("window functions")
	case s.SelectIntoOpt != nil:
		return nil, nil, unsupported("SELECT ... INTO")
	case s.LockInfo != nil && s.LockInfo.LockType != ast.SelectLockNone:
		return nil, nil, unsupported("SELECT ... FOR UPDATE and LOCK IN SHARE MODE")
	case s.SelectStmtOpts != nil && s.SelectStmtOpts.CalcFoundRows:
		return nil, nil, unsupported("SQL_CALC_FOUND_ROWS")
	case s.Having != nil && s.GroupBy == nil && !aggregates(s):
		filtered, err := havingAlone(s)
		if err != nil {
			return nil, nil, err
		}
		if b.filtered == nil {
			b.filtered = map[ast.ResultSetNode]bool{}
		}
		b.filtered[filtered.From.TableRefs.Left.(*ast.TableSource).Source] = true
		return b.selectStmt(filtered, derived)
	}
	out := &pg.SelectStmt{}
	if s.Distinct {
		out.DistinctClause = []*pg.Node{{}}
	}
	var sources []source
	if s.From != nil {
		from, srcs, err := b.tableRefs(s.From.TableRefs)
		if err != nil {
			return nil, nil, err
		}
		out.FromClause, sources = []*pg.Node{from}, srcs
	}
	b.manyRows = slices.ContainsFunc(sources, func(s source) bool { return s.manyRows })
	outer, outers := b.sources, b.outerSources
	b.sources, b.outerSources = sources, append([][]source{outer}, outers...)
	defer func() { b.sources, b.outerSources = outer, outers }()
	if s.GroupBy != nil {
		if err := b.ambiguousBy(s.GroupBy.Items, s.Fields.Fields, "GROUP BY"); err != nil {
			return nil, nil, err
		}
	}
	if s.OrderBy != nil {
		if err := b.ambiguousBy(s.OrderBy.Items, s.Fields.Fields, "ORDER BY"); err != nil {
			return nil, nil, err
		}
	}
	if s.Having != nil && (s.GroupBy != nil || aggregates(s)) {
		// HAVING's names, in its aggregates too, as GROUP BY's.
		v := &columnRefs{}
		s.Having.Expr.Accept(v)
		if err := b.ambiguousBy(v.items, s.Fields.Fields, "HAVING"); err != nil {
			return nil, nil, err
		}
	}
	if s.GroupBy != nil || aggregates(s) {
		if b.env.fullGroupBy {
			if err := b.fullGroupBy(s); err != nil {
				return nil, nil, err
			}
		}
		if err := b.anyOfGroupInExprs(s); err != nil {
			return nil, nil, err
		}
	}
	names, types, err := b.fields(out, s.Fields.Fields, sources, derived)
	if err != nil {
		return nil, nil, err
	}
	b.forgetStored(s, out, sources)
	if err := b.clauses(out, s, names, types); err != nil {
		return nil, nil, err
	}
	if (s.OrderBy != nil || s.Limit != nil && s.Limit.Offset != nil) && s.GroupBy == nil && !s.Distinct {
		sentAfterSort(out, s.Fields.Fields)
	}
	if s.Distinct {
		collatedColumns(out, types)
	}
	b.types = groupedTypes(s, sources, types)
	return selectNode(out), names, nil
}

// forgetStored drops the held values (b.held) of the items of s, built
// into out, that MariaDB writes into a table before a UNION's string
// column takes them, and so holds with its type's digits: where it
// groups or makes distinct rows (groupedTypes), each item but a constant
// one and AVG, computed from its table's sum and count (SUM(x/3) and
// x/3 with GROUP BY x are 0.3333, 1/3 and AVG(x) 0.333333333 and
// 1.000000000); where it aggregates without GROUP BY, each item of no
// aggregate (1/3 beside SUM(1) is 0.3333), but beside COUNT alone over a
// sequence, which MariaDB answers without reading its row.
func (b *builder) forgetStored(s *ast.SelectStmt, out *pg.SelectStmt, sources []source) {
	if len(b.held) == 0 || len(out.TargetList) != len(s.Fields.Fields) {
		return
	}
	many := slices.ContainsFunc(sources, func(s source) bool { return s.manyRows })
	grouped := (s.GroupBy != nil || s.Distinct) && many
	aggregated := false
	for _, f := range s.Fields.Fields {
		v := aggFinder{found: func(a *ast.AggregateFuncExpr) bool {
			return !strings.EqualFold(a.F, ast.AggFuncCount) || s.From == nil || many
		}}
		if f.Expr != nil {
			f.Expr.Accept(&v)
		}
		aggregated = aggregated || v.hit
	}
	aggregated = aggregated && s.GroupBy == nil
	for i, f := range s.Fields.Fields {
		t := out.TargetList[i].GetResTarget()
		if _, ok := b.held[t]; !ok || f.Expr == nil {
			continue
		}
		if grouped && !constantItem(f.Expr) && !isAvg(f.Expr) || aggregated && !ast.HasAggFlag(f.Expr) {
			// As its column of the table holds it: at its type's scale.
			ty, ok := exprType(f.Expr, b.scope())
			if !ok || ty.kind() != kindDecimal {
				delete(b.held, t)
				continue
			}
			b.held[t] = heldItem{funcCall("round", []*pg.Node{typeCast(t.Val, typeName("numeric")), intConst(int32(ty.decimals))}), int(ty.decimals)}
		}
	}
}

// aggFinder visits an expression, not the subqueries in it, until found
// holds for an aggregate.
type aggFinder struct {
	found func(*ast.AggregateFuncExpr) bool
	hit   bool
}

func (v *aggFinder) Enter(n ast.Node) (ast.Node, bool) {
	if a, ok := n.(*ast.AggregateFuncExpr); ok {
		v.hit = v.hit || v.found(a)
	}
	_, sub := n.(*ast.SubqueryExpr)
	return n, v.hit || sub
}

func (v *aggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// sentAfterSort marks the items of a select list that sorts or skips
// rows (ORDER BY, OFFSET) that are not a column or a literal to be
// computed after the sort, for each row as it is sent (eval's
// seqd_mariadb_sent), as MariaDB computes them: a NEXTVAL's values
// follow the order sent and are not taken for rows LIMIT or OFFSET
// leaves out, a CAST's 1264 names the row sent.
func sentAfterSort(out *pg.SelectStmt, fields []*ast.SelectField) {
	for i, f := range fields {
		if f.WildCard != nil || readsAlike(f.Expr) || i >= len(out.TargetList) {
			continue
		}
		if t := out.TargetList[i].GetResTarget(); t != nil {
			t.Val = funcCall("seqd_mariadb_sent", []*pg.Node{t.Val})
		}
	}
}

// clauses builds a SELECT's WHERE, GROUP BY, HAVING, ORDER BY and LIMIT.
func (b *builder) clauses(out *pg.SelectStmt, s *ast.SelectStmt, names []string, types []colType) error {
	var err error
	if s.Where != nil {
		if out.WhereClause, err = b.cond(s.Where); err != nil {
			return err
		}
		out.WhereClause = constantWhere(s.Where, out.WhereClause, s.From != nil)
	}
	if s.GroupBy != nil {
		if s.GroupBy.Rollup {
			return unsupported("WITH ROLLUP")
		}
		for _, it := range s.GroupBy.Items {
			if it.Desc {
				return unsupported("GROUP BY ... DESC")
			}
			x, err := b.byItem(it)
			if err != nil {
				return err
			}
			if b.orderedString(it.Expr, names, types, true) { // strings grouped by the collation, as MariaDB's
				x = funcCall("seqd_mariadb_ci_column", []*pg.Node{x})
			}
			out.GroupClause = append(out.GroupClause, x)
		}
		b.anyOfGroup(out, s)
	}
	if s.Having != nil {
		if out.HavingClause, err = b.cond(s.Having.Expr); err != nil {
			return err
		}
	}
	switch {
	case s.OrderBy != nil:
		if out.SortClause, err = b.orderBy(s.OrderBy.Items, names, types, true); err != nil {
			return err
		}
	case s.GroupBy != nil: // MariaDB's GROUP BY sorts its groups by its items, as ORDER BY them would
		if out.SortClause, err = b.orderBy(s.GroupBy.Items, names, types, true); err != nil {
			return err
		}
	}
	return b.limit(out, s.Limit)
}

// anyOfGroup makes each column of s's select list that is neither
// grouped nor aggregated (MariaDB, ONLY_FULL_GROUP_BY being off, gives
// any value of its group: mariadb-dump's read of information_schema.FILES
// groups by all but EXTRA) its group's least, one of its group's values;
// MariaDB's is the first row's, the same where the column depends on the
// grouped ones. Its type stays the column's.
func (b *builder) anyOfGroup(out *pg.SelectStmt, s *ast.SelectStmt) {
	for i, f := range s.Fields.Fields {
		c, ok := f.Expr.(*ast.ColumnNameExpr)
		if !ok || i >= len(out.TargetList) || !fromSources(c.Name, b.sources) || groupedBy(c, f, i, s.GroupBy.Items) {
			continue // an outer query's column is a constant here
		}
		if t := out.TargetList[i].GetResTarget(); t != nil {
			if _, held := b.held[t]; !held {
				t.Val = funcCall("min", []*pg.Node{t.Val})
			}
		}
	}
}

// anyOfGroupInExprs is anyOfGroup for a column read in an expression of
// s's select list (cycle_option = 0, IF(cycle_option, ...), start_value
// IN (1, 2)), outside an aggregate or a subquery: the column is read as
// MIN of it, its group's least. Without it PostgreSQL refused the
// statement in its words (1105 'column "s.cycle_option" must appear in
// the GROUP BY clause ...'), where MariaDB answers it. The item's name
// is its text, as written.
//
// So are the columns HAVING and ORDER BY read, and, where the select list,
// HAVING or ORDER BY aggregates without GROUP BY (the whole as one group:
// SELECT increment, COUNT(*) FROM s), every column. HAVING may read
// such a column only where the select list holds it by itself, as
// MariaDB's 1054 says otherwise.
func (b *builder) anyOfGroupInExprs(s *ast.SelectStmt) error {
	var items []*ast.ByItem
	if s.GroupBy != nil {
		items = s.GroupBy.Items
	}
	var err error
	rewrite := func(x ast.ExprNode, f *ast.SelectField, i int, having bool) ast.ExprNode {
		if _, bare := x.(*ast.ColumnNameExpr); bare && s.GroupBy != nil && f != nil {
			return x // anyOfGroup's, once built
		}
		if c, bare := x.(*ast.ColumnNameExpr); bare && f == nil && aliased(s.Fields.Fields, c) {
			return x // ORDER BY or HAVING an alias of the select list
		}
		v := &ungroupedColumns{b: b, items: items, f: f, i: i}
		if f == nil {
			v.f = &ast.SelectField{}
		}
		if having {
			v.selected = s.Fields.Fields
		}
		n, _ := x.Accept(v)
		if v.err != nil && err == nil {
			err = v.err
		}
		ast.SetFlag(n.(ast.ExprNode))
		return n.(ast.ExprNode)
	}
	for i, f := range s.Fields.Fields {
		if f.Expr != nil {
			f.Expr = rewrite(f.Expr, f, i, false)
		}
	}
	if s.Having != nil {
		n, _ := s.Having.Expr.Accept(&havingAliases{fields: s.Fields.Fields})
		s.Having.Expr = rewrite(n.(ast.ExprNode), nil, -1, true)
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			if _, position := it.Expr.(*ast.PositionExpr); !position {
				it.Expr = rewrite(it.Expr, nil, -1, false)
			}
		}
	}
	return err
}

// havingAliases replaces each alias of the select list HAVING reads
// (SELECT COUNT(*) AS c ... HAVING c > 1, as MariaDB reads it) with its
// item, where the item may be read again: it takes no sequence's value,
// nor reads a subquery or a variable (PostgreSQL's side refused such a
// HAVING in its words: 1054 'column "c" does not exist').
type havingAliases struct{ fields []*ast.SelectField }

func (v *havingAliases) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.AggregateFuncExpr:
		return n, true
	}
	return n, false
}

func (v *havingAliases) Leave(n ast.Node) (ast.Node, bool) {
	c, ok := n.(*ast.ColumnNameExpr)
	if !ok || c.Name.Table.L != "" {
		return n, true
	}
	for _, f := range v.fields {
		if f.AsName.L != "" && f.AsName.L == c.Name.Name.L && f.Expr != nil && readAgainOrAggregate(f.Expr) {
			return f.Expr, true
		}
	}
	return n, true
}

// readAgainOrAggregate is readAgain, aggregates allowed; a ? marker is
// not read again (it would be counted as a parameter more).
func readAgainOrAggregate(x ast.ExprNode) bool {
	v := exprFinder{found: func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncCallExpr:
			return !pureFuncs[n.FnName.L]
		case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.WindowFuncExpr, *ast.VariableExpr, ast.ParamMarkerExpr:
			return true
		}
		return false
	}}
	x.Accept(&v)
	return !v.hit
}

// aggregates reports whether s's select list, HAVING or ORDER BY holds
// an aggregate, outside its subqueries or in one of them of s's
// columns alone (SELECT (SELECT SUM(x)) FROM t aggregates t's rows, as
// MariaDB and the executor read it: outerAggFinder).
func aggregates(s *ast.SelectStmt) bool {
	v := aggFinder{found: func(*ast.AggregateFuncExpr) bool { return true }}
	o := outerAggFinder{from: s.From}
	for _, visit := range []ast.Visitor{&v, &o} {
		for _, f := range s.Fields.Fields {
			if f.Expr != nil {
				f.Expr.Accept(visit)
			}
		}
		if s.Having != nil {
			s.Having.Expr.Accept(visit)
		}
		if s.OrderBy != nil {
			for _, it := range s.OrderBy.Items {
				it.Expr.Accept(visit)
			}
		}
	}
	return v.hit || o.hit
}

// outerAggFinder finds an aggregate in a subquery whose arguments read
// columns of from (the query's FROM clause) and none of the subqueries'
// around it: the query's aggregate.
type outerAggFinder struct {
	from  *ast.TableRefsClause
	inner []*ast.TableRefsClause
	hit   bool
}

func (v *outerAggFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.SelectStmt:
		v.inner = append(v.inner, n.From)
	case *ast.TableSource:
		return n, true
	case *ast.AggregateFuncExpr:
		if len(v.inner) > 0 && v.from != nil {
			outer, inner := false, false
			var cols columnFinder
			cols.match = func(c *ast.ColumnNameExpr) bool {
				if slices.ContainsFunc(v.inner, func(f *ast.TableRefsClause) bool { return f != nil && fromHas(f, c.Name) }) {
					inner = true
				} else if fromHas(v.from, c.Name) {
					outer = true
				}
				return false
			}
			n.Accept(&cols)
			v.hit = v.hit || outer && !inner
		}
		return n, true
	}
	return n, v.hit
}

func (v *outerAggFinder) Leave(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.SelectStmt); ok {
		v.inner = v.inner[:len(v.inner)-1]
	}
	return n, true
}

// aliased reports whether c names an alias of fields.
func aliased(fields []*ast.SelectField, c *ast.ColumnNameExpr) bool {
	for _, f := range fields {
		if c.Name.Table.L == "" && f.AsName.L != "" && f.AsName.L == c.Name.Name.L {
			return true
		}
	}
	return false
}

// fullGroupBy checks s's select list and ORDER BY as MariaDB checks them
// under ONLY_FULL_GROUP_BY: a column of the FROM clause that no GROUP BY
// item names, read outside an aggregate (in a subquery too, which reads
// it as a correlated reference), is 1055 in the select list (ORDER BY
// may read it), and where s aggregates without GROUP BY, 1140 in either.
func (b *builder) fullGroupBy(s *ast.SelectStmt) error {
	var items []*ast.ByItem
	if s.GroupBy != nil {
		items = s.GroupBy.Items
	}
	mixing := func() error {
		return mysql.NewSQLError(1140, "42000", "Mixing of GROUP columns (MIN(),MAX(),COUNT(),...) with no GROUP columns is illegal if there is no GROUP BY clause")
	}
	// A column is grouped by a GROUP BY item that names it, not by one
	// of an expression, which groups an item written as it is (x + 1
	// GROUP BY x + 1), as MariaDB reads them.
	var named []*ast.ByItem
	exprs := map[string]bool{}
	for _, it := range items {
		switch it.Expr.(type) {
		case *ast.ColumnNameExpr, *ast.PositionExpr:
			named = append(named, it)
		default:
			if t := exprKey(it.Expr); t != "" {
				exprs[t] = true
			}
		}
	}
	for i, f := range s.Fields.Fields {
		var c *ast.ColumnName
		switch {
		case f.WildCard != nil:
			c = b.ungroupedStar(f, i, named)
		case !exprs[exprKey(f.Expr)]:
			v := &ungroupedFinder{b: b, items: named, f: f, i: i}
			f.Expr.Accept(v)
			c = v.found
		}
		switch {
		case c == nil:
		case s.GroupBy == nil:
			return mixing()
		default:
			return b.notGrouped(c)
		}
	}
	if s.GroupBy == nil && s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			if c, bare := it.Expr.(*ast.ColumnNameExpr); bare && aliased(s.Fields.Fields, c) {
				continue
			}
			v := &ungroupedFinder{b: b, f: &ast.SelectField{}, i: -1}
			it.Expr.Accept(v)
			if v.found != nil {
				return mixing()
			}
		}
	}
	return nil
}

// exprKey is x's shape, as MariaDB tells a GROUP BY expression from
// another: its nodes in order, each with what it holds (an operator, a
// name in any case, a literal's value); "" where a node is not of those
// told here, which matches no GROUP BY item.
func exprKey(x ast.ExprNode) string {
	v := &keyWriter{}
	x.Accept(v)
	if v.unknown {
		return ""
	}
	return v.b.String()
}

// keyWriter writes exprKey.
type keyWriter struct {
	b       strings.Builder
	unknown bool
}

func (v *keyWriter) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.ColumnNameExpr:
		fmt.Fprintf(&v.b, "(col %s", n.Name.Name.L)
		return n, true // its ColumnName, written
	case *driver.ValueExpr:
		fmt.Fprintf(&v.b, "(val %d %v", n.Kind(), n.GetValue())
	case *ast.BinaryOperationExpr:
		fmt.Fprintf(&v.b, "(op %s", n.Op)
	case *ast.UnaryOperationExpr:
		fmt.Fprintf(&v.b, "(unary %s", n.Op)
	case *ast.ParenthesesExpr:
		v.b.WriteString("(")
	case *ast.FuncCallExpr:
		fmt.Fprintf(&v.b, "(call %s", n.FnName.L)
	case *ast.FuncCastExpr:
		fmt.Fprintf(&v.b, "(cast %s %d", n.Tp, n.FunctionType)
	case *ast.AggregateFuncExpr:
		fmt.Fprintf(&v.b, "(agg %s %v", n.F, n.Distinct)
	case *ast.VariableExpr:
		fmt.Fprintf(&v.b, "(var %s %v %v", strings.ToLower(n.Name), n.IsSystem, n.IsGlobal)
	case *ast.IsNullExpr:
		fmt.Fprintf(&v.b, "(isnull %v", n.Not)
	default:
		v.unknown = true
		return n, true
	}
	return n, false
}

func (v *keyWriter) Leave(n ast.Node) (ast.Node, bool) {
	v.b.WriteString(")")
	return n, true
}

// havingAlone is s, a SELECT with HAVING but neither GROUP BY nor an
// aggregate, as MariaDB reads it: HAVING filters the rows the select
// list makes, reading them by the names it gives them (SELECT x + 1 AS
// n FROM t HAVING n > 2). It is s without HAVING, ORDER BY and LIMIT as
// a derived table, whose columns a SELECT of them reads, HAVING its
// WHERE, with s's ORDER BY (a column it reads the select list does not
// name taken into the derived table) and LIMIT. As with GROUP BY, a HAVING reading
// a column the select list does not name is MariaDB's 1054, and one two
// of its columns name 1052; a select list of * is refused.
func havingAlone(s *ast.SelectStmt) (*ast.SelectStmt, error) {
	inner := *s
	inner.Having, inner.OrderBy, inner.Limit = nil, nil, nil
	inner.Fields = &ast.FieldList{}
	v := &havingNames{names: map[string]int{}, tables: fromNames(s.From)}
	names := make([]string, len(s.Fields.Fields))
	// A name is read as MariaDB's find_item_in_list reads it: the items in
	// order, two columns of it ambiguous, the first item of it that is not
	// a column the end of the search (SELECT 1 x, 2 x ... HAVING x reads
	// 1; SELECT a x, 2 x, 2; SELECT a x, b x, 1052).
	taken := map[string]bool{}
	for i, f := range s.Fields.Fields {
		if f.WildCard != nil {
			return nil, unsupported("HAVING without GROUP BY or an aggregate over *")
		}
		names[i] = fieldName(f)
		key := strings.ToLower(names[i])
		_, isColumn := f.Expr.(*ast.ColumnNameExpr)
		j, ok := v.names[key]
		switch {
		case taken[key] || ok && j < 0: // the search ended before f
		case !isColumn:
			v.names[key], taken[key] = i, true
		case ok && !sameField(s.Fields.Fields[j], f):
			v.names[key] = -1 // two columns' name
		case !ok:
			v.names[key] = i
		}
	}
	dup := len(v.names) < len(names)
	outer := make([]*ast.SelectField, len(names))
	for i, f := range s.Fields.Fields {
		in := *f
		col := names[i]
		if dup { // the derived table's columns named apart, the result's as the select list names them
			col = "seqd_having_" + strconv.Itoa(i+1)
			in.AsName = ast.NewCIStr(col)
		}
		inner.Fields.Fields = append(inner.Fields.Fields, &in)
		outer[i] = &ast.SelectField{Expr: &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(col)}}}
		if dup {
			outer[i].AsName = ast.NewCIStr(names[i])
		}
	}
	v.cols = func(i int) string { return inner.Fields.Fields[i].AsName.O }
	if !dup {
		v.cols = func(i int) string { return names[i] }
	}
	order := s.OrderBy
	if order != nil {
		// ORDER BY a name of the select list: the derived table's column;
		// a column of the FROM clause it does not name: a column of the
		// derived table the result does not show.
		order = &ast.OrderByClause{Items: slices.Clone(order.Items)}
		for i, it := range order.Items {
			c, ok := it.Expr.(*ast.ColumnNameExpr)
			if !ok || c.Name.Table.L != "" && !v.tables[c.Name.Table.L] {
				continue
			}
			col := ""
			if j, named := v.names[c.Name.Name.L]; named && j >= 0 {
				col = v.cols(j)
			} else if !named && fromHas(s.From, c.Name) {
				col = "seqd_order_" + strconv.Itoa(i+1)
				inner.Fields.Fields = append(inner.Fields.Fields, &ast.SelectField{Expr: c, AsName: ast.NewCIStr(col)})
			}
			if col != "" {
				order.Items[i] = &ast.ByItem{Expr: columnNamed(col), Desc: it.Desc, NullOrder: it.NullOrder}
			}
		}
	}
	s.Having.Expr.Accept(v)
	switch {
	case v.unknown != nil:
		return nil, sqlerr.Errorf(sqlerr.UndefinedColumn, "Unknown column '%s' in 'HAVING'", v.unknown.OrigColName())
	case v.ambiguous != nil:
		return nil, mysql.NewSQLError(1052, "23000", "Column '%s' in HAVING is ambiguous", v.ambiguous.OrigColName())
	}
	for _, i := range v.read {
		if callsNextval(s.Fields.Fields[i].Expr) {
			// MariaDB computes the item again for each reference HAVING
			// makes, and again for the row: a value more each time.
			return nil, unsupported("HAVING without GROUP BY or an aggregate reading an item that takes a sequence's value")
		}
	}
	const alias = "seqd_having"
	return &ast.SelectStmt{
		SelectStmtOpts: s.SelectStmtOpts,
		Kind:           ast.SelectStmtKindSelect,
		Fields:         &ast.FieldList{Fields: outer},
		From:           &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{Source: &inner, AsName: ast.NewCIStr(alias)}}},
		Where:          s.Having.Expr,
		OrderBy:        order,
		Limit:          s.Limit,
	}, nil
}

// sameField reports whether f and g are one column of the FROM clause,
// written alike.
func sameField(f, g *ast.SelectField) bool {
	x, ok := f.Expr.(*ast.ColumnNameExpr)
	y, ok2 := g.Expr.(*ast.ColumnNameExpr)
	return ok && ok2 && x.Name.Name.L == y.Name.Name.L && x.Name.Table.L == y.Name.Table.L
}

// firstSelect is the SELECT that names a query's columns: the query's,
// or a UNION's first.
func firstSelect(n ast.Node) *ast.SelectStmt {
	for {
		switch q := n.(type) {
		case *ast.SelectStmt:
			return q
		case *ast.SetOprStmt:
			if q.SelectList == nil || len(q.SelectList.Selects) == 0 {
				return nil
			}
			n = q.SelectList.Selects[0]
		default:
			return nil
		}
	}
}

// fromHas reports whether a table the FROM clause from reads (a
// sequence, one of information_schema's, a derived table) has the
// column name, of the table it names if qualified.
func fromHas(from *ast.TableRefsClause, name *ast.ColumnName) bool {
	found := false
	var walk func(n ast.ResultSetNode)
	walk = func(n ast.ResultSetNode) {
		switch n := n.(type) {
		case *ast.Join:
			walk(n.Left)
			if n.Right != nil {
				walk(n.Right)
			}
		case *ast.TableSource:
			var cols []string
			table := n.AsName.L
			switch src := n.Source.(type) {
			case *ast.TableName:
				if table == "" {
					table = src.Name.L
				}
				cols = mariadbSequenceColumns
				if src.Schema.L == "information_schema" {
					cols = infoColumns()[src.Name.L]
				}
			case *ast.SelectStmt, *ast.SetOprStmt: // a UNION's columns are its first SELECT's
				if first := firstSelect(src); first != nil {
					for _, f := range first.Fields.Fields {
						if f.WildCard == nil {
							cols = append(cols, fieldName(f))
						}
					}
				}
			}
			if name.Table.L == "" || name.Table.L == table {
				found = found || slices.ContainsFunc(cols, func(c string) bool { return strings.EqualFold(c, name.Name.O) })
			}
		}
	}
	if from != nil {
		walk(from.TableRefs)
	}
	return found
}

// fromNames are the names, in lower case, the FROM clause from gives
// its tables: an alias, else the table's name.
func fromNames(from *ast.TableRefsClause) map[string]bool {
	out := map[string]bool{}
	var walk func(n ast.ResultSetNode)
	walk = func(n ast.ResultSetNode) {
		switch n := n.(type) {
		case *ast.Join:
			walk(n.Left)
			if n.Right != nil {
				walk(n.Right)
			}
		case *ast.TableSource:
			if n.AsName.L != "" {
				out[n.AsName.L] = true
			} else if t, ok := n.Source.(*ast.TableName); ok {
				out[t.Name.L] = true
			}
		}
	}
	if from != nil {
		walk(from.TableRefs)
	}
	return out
}

// havingNames reads HAVING's column references, out of its subqueries,
// as the select list's columns (names, by lower-case name: the item's
// index, -1 for two items' name): each is made a reference to the
// derived table's column (cols), its qualifier (a table of the FROM
// clause, tables) taken off; unknown is the first naming none of them,
// ambiguous the first naming two.
type havingNames struct {
	names              map[string]int
	tables             map[string]bool
	cols               func(i int) string
	unknown, ambiguous *ast.ColumnName
	read               []int // the items read
}

// callsNextval reports whether x takes a sequence's value (NEXTVAL, NEXT
// VALUE FOR).
func callsNextval(x ast.ExprNode) bool {
	v := exprFinder{found: func(n ast.Node) bool {
		f, ok := n.(*ast.FuncCallExpr)
		return ok && f.FnName.L == ast.NextVal
	}}
	x.Accept(&v)
	return v.hit
}

func (v *havingNames) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr: // its names are its own
		return n, true
	case *ast.ColumnNameExpr:
		i, ok := v.names[n.Name.Name.L]
		switch {
		case v.unknown != nil || v.ambiguous != nil:
		case !ok || n.Name.Table.L != "" && !v.tables[n.Name.Table.L]:
			v.unknown = n.Name
		case i < 0:
			v.ambiguous = n.Name
		default:
			n.Name = &ast.ColumnName{Name: ast.NewCIStr(v.cols(i))}
			v.read = append(v.read, i)
		}
		return n, true
	}
	return n, false
}

func (v *havingNames) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// ambiguousBy is MariaDB's 1052 for an item of GROUP BY or ORDER BY
// (clause) that is a bare name two columns of the select list take,
// by their names or aliases, that are not one column (a.x and b.x; x AS
// y and z AS y): MariaDB reads such a name in the select list first.
func (b *builder) ambiguousBy(items []*ast.ByItem, fields []*ast.SelectField, clause string) error {
	for _, it := range items {
		c, ok := it.Expr.(*ast.ColumnNameExpr)
		if !ok || c.Name.Table.L != "" {
			continue
		}
		var first *ast.ColumnName
		for _, f := range fields {
			col, isCol := f.Expr.(*ast.ColumnNameExpr)
			if !isCol {
				continue
			}
			name := col.Name.Name.L
			if f.AsName.L != "" {
				name = f.AsName.L
			}
			switch {
			case name != c.Name.Name.L:
			case first == nil:
				first = col.Name
			case b.sourceOf(first) != b.sourceOf(col.Name) || first.Name.L != col.Name.Name.L:
				return mysql.NewSQLError(1052, "23000", "Column '%s' in %s is ambiguous", c.Name.OrigColName(), clause)
			}
		}
	}
	return nil
}

// columnRefs collects an expression's column references, out of its
// subqueries, as the items of a GROUP BY would hold them.
type columnRefs struct{ items []*ast.ByItem }

func (v *columnRefs) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr:
		return n, true
	case *ast.ColumnNameExpr:
		v.items = append(v.items, &ast.ByItem{Expr: n})
		return n, true
	}
	return n, false
}

func (v *columnRefs) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// sourceOf is the index in the FROM clause's sources of the one the
// column name reads (the first that has it, unqualified); -1 for none.
func (b *builder) sourceOf(name *ast.ColumnName) int {
	for i, src := range b.sources {
		if name.Table.O != "" && !strings.EqualFold(src.name, name.Table.O) {
			continue
		}
		if slices.ContainsFunc(src.cols, func(col string) bool { return strings.EqualFold(col, name.Name.O) }) {
			return i
		}
	}
	return -1
}

// ungroupedStar is the first column the * f (item i of a select list)
// names that none of items does; nil for none.
func (b *builder) ungroupedStar(f *ast.SelectField, i int, items []*ast.ByItem) *ast.ColumnName {
	for _, src := range b.sources {
		if f.WildCard.Table.O != "" && !strings.EqualFold(src.name, f.WildCard.Table.O) {
			continue
		}
		for _, col := range src.cols {
			c := &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: ast.NewCIStr(src.name), Name: ast.NewCIStr(col)}}
			if !groupedBy(c, f, i, items) {
				return c.Name
			}
		}
	}
	return nil
}

// notGrouped is MariaDB's 1055 for c, a column of the FROM clause, named
// as MariaDB names it: db.table.column, the table as the FROM clause
// names it and the column as its table does (table.column for a derived
// table's).
func (b *builder) notGrouped(c *ast.ColumnName) error {
	name := c.OrigColName()
	for _, src := range b.sources {
		if c.Table.O != "" && !strings.EqualFold(src.name, c.Table.O) {
			continue
		}
		if i := slices.IndexFunc(src.cols, func(col string) bool { return strings.EqualFold(col, c.Name.O) }); i >= 0 {
			name = src.name + "." + src.cols[i]
			if src.db != "" {
				name = src.db + "." + name
			}
			break
		}
	}
	return mysql.NewSQLError(1055, "42000", "'%s' isn't in GROUP BY", name)
}

// ungroupedFinder finds the first column of a select list's item f (item
// i) that is of the FROM clause and that no GROUP BY item names, outside
// aggregates and subqueries.
type ungroupedFinder struct {
	b     *builder
	items []*ast.ByItem
	f     *ast.SelectField
	i     int
	found *ast.ColumnName
	// inner are the FROM clauses of the subqueries being read, the
	// innermost last: a column one of them has is the subquery's, any
	// other the query's (a correlated reference), checked as its own.
	inner []*ast.TableRefsClause
}

func (v *ungroupedFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.AggregateFuncExpr:
		// An aggregate of the query's columns in a subquery is the
		// query's; one of a subquery's columns the subquery's, whose
		// references to the query's columns are read as any other
		// (SUM(b.x + s.y)).
		return n, len(v.inner) == 0 || !v.readsInner(n)
	case *ast.WindowFuncExpr, *ast.TableSource:
		// A derived table reads none of the query's columns; a join's
		// ON, which is not a TableSource, may.
		return n, true
	case *ast.SelectStmt:
		v.inner = append(v.inner, n.From)
	}
	return n, v.found != nil
}

func (v *ungroupedFinder) Leave(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.SelectStmt:
		v.inner = v.inner[:len(v.inner)-1]
	case *ast.ColumnNameExpr:
		if v.found == nil && !v.innerHas(n.Name) && fromSources(n.Name, v.b.sources) && !groupedBy(n, v.f, v.i, v.items) {
			v.found = n.Name
		}
	}
	return n, true
}

// readsInner reports whether x reads a column of a subquery being read.
func (v *ungroupedFinder) readsInner(x ast.Node) bool {
	var found columnFinder
	found.match = func(c *ast.ColumnNameExpr) bool { return v.innerHas(c.Name) }
	x.Accept(&found)
	return found.found
}

// columnFinder finds a column name that match accepts.
type columnFinder struct {
	match func(*ast.ColumnNameExpr) bool
	found bool
}

func (f *columnFinder) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok && f.match(c) {
		f.found = true
	}
	return n, f.found
}

func (f *columnFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// innerHas reports whether a subquery being read has the column name.
func (v *ungroupedFinder) innerHas(name *ast.ColumnName) bool {
	return slices.ContainsFunc(v.inner, func(from *ast.TableRefsClause) bool { return from != nil && fromHas(from, name) })
}

// ungroupedColumns replaces each column of a select list's item f (item
// i) that no GROUP BY item names with MIN of it, outside aggregates and
// subqueries.
type ungroupedColumns struct {
	b     *builder
	items []*ast.ByItem
	f     *ast.SelectField
	i     int
	// selected, in HAVING, is the select list: a column it does not
	// hold by itself is MariaDB's 1054 (err).
	selected []*ast.SelectField
	err      error
}

func (v *ungroupedColumns) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.AggregateFuncExpr, *ast.WindowFuncExpr, *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.ColumnNameExpr:
		return n, true
	}
	return n, false
}

func (v *ungroupedColumns) Leave(n ast.Node) (ast.Node, bool) {
	c, ok := n.(*ast.ColumnNameExpr)
	if !ok || !fromSources(c.Name, v.b.sources) || groupedBy(c, v.f, v.i, v.items) {
		return n, true
	}
	if v.selected != nil && !slices.ContainsFunc(v.selected, func(f *ast.SelectField) bool {
		x, ok := f.Expr.(*ast.ColumnNameExpr)
		return ok && x.Name.Name.L == c.Name.Name.L
	}) {
		v.err = sqlerr.Errorf(sqlerr.UndefinedColumn, "Unknown column '%s' in 'HAVING'", c.Name.OrigColName())
	}
	return &ast.AggregateFuncExpr{F: ast.AggFuncMin, Args: []ast.ExprNode{c}}, true
}

// fromSources reports whether sources (a FROM clause's) have the column
// name.
func fromSources(name *ast.ColumnName, sources []source) bool {
	for _, s := range sources {
		if name.Table.O != "" && !strings.EqualFold(s.name, name.Table.O) {
			continue
		}
		for _, c := range s.cols {
			if strings.EqualFold(c, name.Name.O) {
				return true
			}
		}
	}
	return false
}

// groupedBy reports whether the column c, item i of a select list as f,
// is one of a GROUP BY's items: by its name (its table's, where both
// name one), its alias or its position.
func groupedBy(c *ast.ColumnNameExpr, f *ast.SelectField, i int, items []*ast.ByItem) bool {
	for _, it := range items {
		switch x := it.Expr.(type) {
		case *ast.ColumnNameExpr:
			if x.Name.Name.L == c.Name.Name.L && (x.Name.Table.L == "" || c.Name.Table.L == "" || x.Name.Table.L == c.Name.Table.L) ||
				x.Name.Table.L == "" && f.AsName.L != "" && x.Name.Name.L == f.AsName.L {
				return true
			}
		case *ast.PositionExpr:
			if x.N == i+1 {
				return true
			}
		default:
			return true // an expression: what it reads is not told apart here
		}
	}
	return false
}

// fields builds a select list into out; names are its columns as MySQL
// names them: an alias, a column's name, else the item's text; types
// their types as MariaDB tells them (a zero colType where not told
// here).
func (b *builder) fields(out *pg.SelectStmt, fields []*ast.SelectField, sources []source, derived bool) ([]string, []colType, error) {
	names, known := make([]string, 0, len(fields)), true
	types := make([]colType, 0, len(fields))
	for _, f := range fields {
		if w := f.WildCard; w != nil {
			if len(sources) == 0 {
				return nil, nil, unsupported("* without FROM")
			}
			star := &pg.Node{Node: &pg.Node_AStar{AStar: &pg.A_Star{}}}
			ref := columnRef(w.Schema.O, w.Table.O)
			cr := ref.GetColumnRef()
			cr.Fields = append(cr.Fields, star)
			out.TargetList = append(out.TargetList, resTarget(ref, ""))
			cols, ts, ok := starColumns(w, sources)
			names, types, known = append(names, cols...), append(types, ts...), known && ok
			if refs := starRefs(w, sources); ok && refs != nil {
				if b.stars == nil {
					b.stars = map[*pg.ResTarget][]*pg.Node{}
				}
				b.stars[out.TargetList[len(out.TargetList)-1].GetResTarget()] = refs
			}
			continue
		}
		outer := b.item
		b.item = f
		x, err := b.shownItem(f.Expr)
		b.item = outer
		if err != nil {
			return nil, nil, err
		}
		name := fieldName(f)
		if !pgText(name) {
			return nil, nil, unsupported("a name that is not valid UTF-8 or holds NUL")
		}
		t, _ := exprType(f.Expr, b.scope()) // b.sources are sources here
		types = append(types, t)
		as := f.AsName.L
		if _, col := f.Expr.(*ast.ColumnNameExpr); as == "" && derived && !col {
			as = strings.ToLower(name)
		}
		out.TargetList = append(out.TargetList, resTarget(x, as))
		names = append(names, name)
		if held, frac, ok, err := b.heldDecimal(f.Expr); err != nil {
			return nil, nil, err
		} else if ok {
			if b.held == nil {
				b.held = map[*pg.ResTarget]heldItem{}
			}
			b.held[out.TargetList[len(out.TargetList)-1].GetResTarget()] = heldItem{held, frac}
		}
	}
	if !known {
		return nil, nil, nil
	}
	return names, types, nil
}

// fieldName is a select list item's column name as MariaDB gives it:
// its alias, a column's name, a string's value, else the item's text;
// at most maxNameBytes of it.
func fieldName(f *ast.SelectField) string {
	if f.AsName.O != "" {
		return boundName(f.AsName.O)
	}
	switch x := f.Expr.(type) {
	case *ast.ColumnNameExpr:
		return boundName(x.Name.Name.O)
	case *driver.ValueExpr:
		if x.Kind() == driver.KindString {
			return boundName(x.GetString())
		}
	}
	return boundName(trailingCommentsOff(f.Text()))
}

// maxNameBytes is the longest column name MariaDB gives (its
// MAX_ALIAS_NAME less one): a longer one is cut to it, at a character's
// start, without a warning.
const maxNameBytes = 255

// boundName is name as MariaDB gives it: cut to maxNameBytes, each
// character outside the Basic Multilingual Plane first made a '?', as
// MariaDB keeps names in utf8mb3, which has none (SELECT 'a😀b' is
// named a?b, and a derived table's column so read).
func boundName(name string) string {
	if strings.IndexFunc(name, func(r rune) bool { return r > 0xFFFF }) >= 0 {
		var b strings.Builder
		for i := 0; i < len(name); {
			r, n := utf8.DecodeRuneInString(name[i:])
			if r > 0xFFFF {
				b.WriteByte('?')
			} else {
				b.WriteString(name[i : i+n])
			}
			i += n
		}
		name = b.String()
	}
	if len(name) <= maxNameBytes {
		return name
	}
	end := maxNameBytes
	for end > 0 && !utf8.RuneStart(name[end]) {
		end--
	}
	return name[:end]
}

// trailingCommentsOff is an item's text without the comments and spaces
// after its last token (`2 /* c */`, `6 # x`, `6 -- x`): its name, as
// MariaDB names an item by the text from its first token to its last.
func trailingCommentsOff(text string) string {
	end := 0 // past the last token seen
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '#' || strings.HasPrefix(text[i:], "--") && (i+2 == len(text) || strings.IndexByte(" \t\r\n", text[i+2]) >= 0):
			nl := strings.IndexByte(text[i:], '\n')
			if nl < 0 {
				return text[:end]
			}
			i += nl + 1
		case strings.HasPrefix(text[i:], "/*") && !strings.HasPrefix(text[i:], "/*!"):
			close := strings.Index(text[i+2:], "*/")
			if close < 0 {
				return text[:end]
			}
			i += 2 + close + 2
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(text) && text[j] != c {
				if text[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			i = min(j+1, len(text))
			end = i
		default:
			i++
			end = i
		}
	}
	return text[:end]
}

// byItem is an item of GROUP BY or ORDER BY: a column's position in
// the select list, or an expression.
func (b *builder) byItem(it *ast.ByItem) (*pg.Node, error) {
	if p, ok := it.Expr.(*ast.PositionExpr); ok {
		if p.P != nil {
			return nil, unsupported("a ? marker for a column's position")
		}
		return intConst(int32(min(p.N, 1<<31-1))), nil
	}
	if v, ok := it.Expr.(*driver.ValueExpr); ok && v.Type.GetFlag()&userVarFlag != 0 {
		// A user variable's value, a constant to order or group by, not
		// a column's position as the integer written in would be.
		n, err := b.expr(it.Expr)
		return typeCast(n, typeName("text")), err
	}
	return b.expr(it.Expr)
}

// orderBy builds ORDER BY items of a query whose columns are named names
// and typed types (nil where not told); exprs: an item may be an
// expression of the query's FROM clause (not a set operation's). A
// string, not a binary one, is ordered by the connection's collation,
// as MariaDB orders it (eval's ORDER BY seqd_mariadb_ci(x)).
func (b *builder) orderBy(items []*ast.ByItem, names []string, types []colType, exprs bool) ([]*pg.Node, error) {
	var out []*pg.Node
	for _, it := range items {
		x, err := b.byItem(it)
		if err != nil {
			return nil, err
		}
		if b.orderedString(it.Expr, names, types, exprs) {
			x = funcCall("seqd_mariadb_ci", []*pg.Node{x})
		}
		out = append(out, sortBy(x, it.Desc))
	}
	return out, nil
}

// orderedString reports whether the ORDER BY item x is a string, not a
// binary one, as the builder types it: a position or a name of the
// query's columns, else (exprs) an expression of its FROM clause.
func (b *builder) orderedString(x ast.ExprNode, names []string, types []colType, exprs bool) bool {
	text := func(t colType) bool { return t.known && t.kind() == kindString && !t.binary }
	switch e := x.(type) {
	case *ast.PositionExpr:
		return e.P == nil && e.N >= 1 && e.N <= len(types) && text(types[e.N-1])
	case *ast.ColumnNameExpr:
		if e.Name.Table.O == "" {
			for i, n := range names {
				if strings.EqualFold(n, e.Name.Name.O) {
					return i < len(types) && text(types[i])
				}
			}
		}
	}
	if !exprs {
		return false
	}
	t, ok := exprType(x, b.scope())
	return ok && text(t)
}

// limit is LIMIT count, LIMIT offset, count and LIMIT count OFFSET
// offset.
func (b *builder) limit(out *pg.SelectStmt, l *ast.Limit) error {
	if l == nil {
		return nil
	}
	var err error
	if out.LimitCount, err = b.expr(l.Count); err != nil {
		return err
	}
	if l.Offset != nil {
		if out.LimitOffset, err = b.expr(l.Offset); err != nil {
			return err
		}
	}
	out.LimitOption = pg.LimitOption_LIMIT_OPTION_COUNT
	return nil
}

// source is a FROM clause's relation as a * over it names its columns:
// the name that qualifies them (its alias, else its table's name), and
// their names as MySQL gives them (nil when unknown), their types as
// MariaDB's (zero where unknown); nullable: an outer join may leave them
// NULL.
type source struct {
	name string
	// db is the database of the table it reads (MariaDB's 1055 names
	// it), "" for a derived table.
	db       string
	cols     []string
	types    []colType
	nullable bool
	// manyRows: MariaDB reads it as a table of rows, where a sequence
	// (and a derived table of one) is a constant row, whose grouping and
	// DISTINCT its optimizer leaves out (groupedTypes).
	manyRows bool
	// infoSchema: a table of information_schema, whose names MariaDB
	// looks up by their bytes where = compares them with a constant;
	// the builder compares its columns so (collated).
	infoSchema bool
	// merged: a side of a join USING columns (or NATURAL), whose * shows
	// them once: starRefs does not write it out.
	merged bool
}

// starColumns are the columns a * names, as MySQL names them, and their
// types; false when some are unknown.
func starColumns(w *ast.WildCardField, sources []source) ([]string, []colType, bool) {
	var out []string
	var types []colType
	for _, s := range sources {
		if w.Table.O != "" && s.name != w.Table.O {
			continue
		}
		if s.cols == nil {
			return nil, nil, false
		}
		out = append(out, s.cols...)
		for i := range s.cols {
			var t colType
			if i < len(s.types) {
				t = s.types[i]
				if s.nullable {
					t.notNull = false
				}
			}
			types = append(types, t)
		}
	}
	return out, types, true
}

// starRefs are the columns a * names (starColumns), each a reference
// qualified by its source; nil where a join USING columns merges some.
func starRefs(w *ast.WildCardField, sources []source) []*pg.Node {
	var out []*pg.Node
	for _, s := range sources {
		if w.Table.O != "" && s.name != w.Table.O {
			continue
		}
		if s.merged {
			return nil
		}
		for _, c := range s.cols {
			out = append(out, resTarget(columnRef(s.name, strings.ToLower(c)), ""))
		}
	}
	return out
}

// column is item i of sel's select list, a *'s columns written out where
// one comes before it (nil where a * names columns not known).
func (b *builder) column(sel *pg.SelectStmt, i int) *pg.ResTarget {
	for k := 0; k < len(sel.TargetList) && k <= i; k++ {
		rt := sel.TargetList[k].GetResTarget()
		if ref := rt.GetVal().GetColumnRef(); ref == nil || ref.Fields[len(ref.Fields)-1].GetAStar() == nil {
			continue
		}
		cols, ok := b.stars[rt]
		if !ok {
			return nil
		}
		sel.TargetList = slices.Concat(sel.TargetList[:k], cols, sel.TargetList[k+1:])
		k += len(cols) - 1
	}
	if i < len(sel.TargetList) {
		return sel.TargetList[i].GetResTarget()
	}
	return nil
}

// tableRefs is a FROM clause: a relation, or a join of them.
func (b *builder) tableRefs(j *ast.Join) (*pg.Node, []source, error) {
	l, srcs, err := b.resultSet(j.Left)
	if err != nil || j.Right == nil {
		return l, srcs, err
	}
	r, rsrcs, err := b.resultSet(j.Right)
	if err != nil {
		return nil, nil, err
	}
	join := &pg.JoinExpr{Jointype: pg.JoinType_JOIN_INNER, Larg: l, Rarg: r, IsNatural: j.NaturalJoin}
	switch j.Tp {
	case ast.LeftJoin:
		join.Jointype = pg.JoinType_JOIN_LEFT
		rsrcs = nullableSources(rsrcs)
	case ast.RightJoin:
		join.Jointype = pg.JoinType_JOIN_RIGHT
		srcs = nullableSources(srcs)
	}
	for _, c := range j.Using {
		join.UsingClause = append(join.UsingClause, strNode(c.Name.L))
	}
	if j.On != nil {
		if join.Quals, err = b.cond(j.On.Expr); err != nil {
			return nil, nil, err
		}
	}
	out := append(srcs, rsrcs...)
	if len(j.Using) > 0 || j.NaturalJoin {
		for i := range out {
			out[i].merged = true
		}
	}
	return &pg.Node{Node: &pg.Node_JoinExpr{JoinExpr: join}}, out, nil
}

func (b *builder) resultSet(n ast.ResultSetNode) (*pg.Node, []source, error) {
	switch n := n.(type) {
	case *ast.Join:
		return b.tableRefs(n)
	case *ast.TableSource:
		return b.tableSource(n)
	}
	return nil, nil, unsupported("this FROM")
}

// tableSource is a FROM clause's relation: a derived table, one of
// information_schema's tables, else a sequence as MariaDB reads one as a
// table (the database's, or a temporary one of that name).
func (b *builder) tableSource(ts *ast.TableSource) (*pg.Node, []source, error) {
	alias := ts.AsName.O
	switch src := ts.Source.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		if alias == "" {
			return nil, nil, mysql.NewSQLError(1248, "42000", "Every derived table must have its own alias")
		}
		q, names, err := b.query(src, true)
		if err != nil {
			return nil, nil, err
		}
		for i, n := range names {
			if slices.ContainsFunc(names[:i], func(m string) bool { return strings.EqualFold(m, n) }) {
				return nil, nil, mysql.NewSQLError(1060, "42S21", "Duplicate column name '%s'", n) // ER_DUP_FIELDNAME
			}
		}
		types := b.types
		if !mergeable(src) && !b.filtered[src] {
			types = storedTypes(types) // MariaDB reads a derived table's columns as a table's
		}
		_, union := src.(*ast.SetOprStmt)
		many := b.manyRows || union
		sub := &pg.RangeSubselect{Subquery: q, Alias: &pg.Alias{Aliasname: alias}}
		return &pg.Node{Node: &pg.Node_RangeSubselect{RangeSubselect: sub}}, []source{{name: alias, cols: names, types: types, manyRows: many}}, nil
	case *ast.TableName:
		if len(src.IndexHints) > 0 || len(src.PartitionNames) > 0 || src.TableSample != nil || src.AsOf != nil {
			return nil, nil, unsupported("index hints, partitions, TABLESAMPLE and AS OF")
		}
		if !pgText(src.Schema.O + src.Name.O + alias) {
			return nil, nil, unsupported("a name that is not valid UTF-8 or holds NUL")
		}
		if alias == "" {
			alias = src.Name.O
		}
		schema := src.Schema.O
		switch strings.ToLower(schema) {
		case "information_schema":
			return b.infoTable(src.Name, alias)
		case "mysql", "performance_schema", "sys":
			return nil, nil, unsupported("the tables of " + schema)
		case "":
			if strings.EqualFold(b.env.db, "information_schema") {
				return b.infoTable(src.Name, alias)
			}
		}
		named := schema
		if named == "" {
			named = b.env.db
		}
		b.tables = append(b.tables, fromTable{schema, src.Name.O, tableName(named, src.Name.O)})
		return relation(executor.MariaDBSequenceTable(schema, src.Name.O), alias), []source{{name: alias, db: named, cols: mariadbSequenceColumns, types: sequenceColumnTypes}}, nil
	}
	return nil, nil, unsupported("this FROM")
}

// infoTable is information_schema's table name: SCHEMATA, TABLES and
// SEQUENCES (catalog.MySQL); another is MariaDB's 1109.
func (b *builder) infoTable(name ast.CIStr, alias string) (*pg.Node, []source, error) {
	q, ok := executor.MySQLInformationSchema(name.L)
	if !ok {
		return nil, nil, mysql.NewSQLError(1109, "42S02", "Unknown table '%s' in information_schema", name.O)
	}
	cols := infoColumns()[name.L]
	return relation(q, alias), []source{{name: alias, db: "information_schema", cols: cols, types: infoTypes(name.L, cols), manyRows: true,
		infoSchema: !infoCollated[name.L]}}, nil
}

// infoCollated are the tables of information_schema whose columns
// MariaDB compares by the connection's collation, as any table's, having
// no lookup of schemas' and tables' names (VARIABLE_NAME = 'autocommit'
// finds AUTOCOMMIT).
var infoCollated = map[string]bool{"global_variables": true, "session_variables": true, "system_variables": true,
	"global_status": true, "session_status": true, "keywords": true, "sql_functions": true}

// nullableSources are srcs on the side of an outer join that may be
// NULL.
func nullableSources(srcs []source) []source {
	out := make([]source, len(srcs))
	for i, s := range srcs {
		s.nullable = true
		out[i] = s
	}
	return out
}

// infoColumns name the columns of information_schema's tables, by table.
var infoColumns = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	for _, v := range catalog.MySQL().Views() {
		for _, c := range v.Columns {
			out[v.Name] = append(out[v.Name], c.Name)
		}
	}
	return out
})

// mariadbSequenceColumns name the columns of MariaDB's read of a
// sequence as a table.
var mariadbSequenceColumns = func() []string {
	var out []string
	for _, c := range catalog.MariaDBSequenceColumns {
		out = append(out, c.Name)
	}
	return out
}()
