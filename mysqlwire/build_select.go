package mysqlwire

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// query builds a query: a SELECT (a subquery's, or the statement's).
func (b *builder) query(q ast.ResultSetNode) (*pg.Node, error) {
	s, ok := q.(*ast.SelectStmt)
	if !ok {
		return nil, notBuilt("this query")
	}
	return b.selectStmt(s)
}

// selectStmt builds a SELECT as its restored text reads: each field
// named by its alias, if it has one (translateSelect drops the
// statement's own, whose names the result carries).
func (b *builder) selectStmt(s *ast.SelectStmt) (*pg.Node, error) {
	o := s.SelectStmtOpts
	switch {
	case s.Kind != ast.SelectStmtKindSelect || s.Fields == nil || s.With != nil || len(s.WindowSpecs) > 0 || s.SelectIntoOpt != nil ||
		len(s.TableHints) > 0 || s.LockInfo != nil && s.LockInfo.LockType != ast.SelectLockNone:
		return nil, notBuilt("this SELECT")
	case o != nil && (o.Priority > 0 || o.SQLSmallResult || o.SQLBigResult || o.SQLBufferResult || !o.SQLCache || o.CalcFoundRows || o.StraightJoin):
		return nil, notBuilt("SELECT's options")
	}
	out := &pg.SelectStmt{}
	if s.Distinct {
		out.DistinctClause = []*pg.Node{{}}
	}
	for _, f := range s.Fields.Fields {
		t, err := b.field(f)
		if err != nil {
			return nil, err
		}
		out.TargetList = append(out.TargetList, t)
	}
	var err error
	if s.From != nil {
		from, err := b.tableRef(s.From.TableRefs)
		if err != nil {
			return nil, err
		}
		out.FromClause = []*pg.Node{from}
	}
	if s.Where != nil {
		if out.WhereClause, err = b.expr(s.Where); err != nil {
			return nil, err
		}
	}
	if s.GroupBy != nil {
		if s.GroupBy.Rollup {
			return nil, notBuilt("WITH ROLLUP")
		}
		for _, it := range s.GroupBy.Items {
			if it.Desc {
				return nil, notBuilt("GROUP BY ... DESC")
			}
			x, err := b.expr(it.Expr)
			if err != nil {
				return nil, err
			}
			out.GroupClause = append(out.GroupClause, x)
		}
	}
	if s.Having != nil {
		if out.HavingClause, err = b.expr(s.Having.Expr); err != nil {
			return nil, err
		}
	}
	if s.OrderBy != nil {
		if out.SortClause, err = b.orderBy(s.OrderBy.Items); err != nil {
			return nil, err
		}
	}
	if err := b.limit(out, s.Limit); err != nil {
		return nil, err
	}
	return selectNode(out), nil
}

// field is one item of a select list.
func (b *builder) field(f *ast.SelectField) (*pg.Node, error) {
	if w := f.WildCard; w != nil {
		star := &pg.Node{Node: &pg.Node_AStar{AStar: &pg.A_Star{}}}
		ref := columnRef(w.Schema.O, w.Table.O)
		cr := ref.GetColumnRef()
		cr.Fields = append(cr.Fields, star)
		return &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: ref, Location: noLoc}}}, nil
	}
	x, err := b.expr(f.Expr)
	if err != nil {
		return nil, err
	}
	if !pgText(f.AsName.O) {
		return nil, notBuilt("a name PostgreSQL's text cannot hold")
	}
	return &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: f.AsName.O, Val: x, Location: noLoc}}}, nil
}

func (b *builder) orderBy(items []*ast.ByItem) ([]*pg.Node, error) {
	var out []*pg.Node
	for _, it := range items {
		x, err := b.expr(it.Expr)
		if err != nil {
			return nil, err
		}
		dir := pg.SortByDir_SORTBY_DEFAULT
		if it.Desc {
			dir = pg.SortByDir_SORTBY_DESC
		}
		out = append(out, &pg.Node{Node: &pg.Node_SortBy{SortBy: &pg.SortBy{Node: x, SortbyDir: dir,
			SortbyNulls: pg.SortByNulls_SORTBY_NULLS_DEFAULT, Location: noLoc}}})
	}
	return out, nil
}

// limit is LIMIT [offset,] count and LIMIT count OFFSET offset.
func (b *builder) limit(out *pg.SelectStmt, l *ast.Limit) error {
	if l == nil {
		return nil
	}
	if l.Offset != nil {
		// PostgreSQL's grammar refuses LIMIT offset, count, which is how
		// TiDB's writes both forms out.
		return notBuilt("LIMIT with an offset")
	}
	var err error
	if out.LimitCount, err = b.expr(l.Count); err != nil {
		return err
	}
	out.LimitOption = pg.LimitOption_LIMIT_OPTION_COUNT
	return nil
}

// tableRef is a FROM clause's table: a table by its name or a derived
// table, with its alias.
func (b *builder) tableRef(j *ast.Join) (*pg.Node, error) {
	if j.Right != nil {
		return nil, notBuilt("a join")
	}
	ts, ok := j.Left.(*ast.TableSource)
	if !ok {
		return nil, notBuilt("this FROM")
	}
	switch src := ts.Source.(type) {
	case *ast.TableName:
		if len(src.IndexHints) > 0 || len(src.PartitionNames) > 0 || src.TableSample != nil || src.AsOf != nil {
			return nil, notBuilt("a table's options")
		}
		return rangeVar(src.Schema.O, src.Name.O, ts.AsName.O), nil
	case *ast.SelectStmt:
		q, err := b.selectStmt(src)
		if err != nil {
			return nil, err
		}
		var alias *pg.Alias
		if ts.AsName.O != "" {
			alias = &pg.Alias{Aliasname: ts.AsName.O}
		}
		return &pg.Node{Node: &pg.Node_RangeSubselect{RangeSubselect: &pg.RangeSubselect{Subquery: q, Alias: alias}}}, nil
	}
	return nil, notBuilt("this FROM")
}
