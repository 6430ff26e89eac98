package mysqlwire

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// builder builds TiDB's expressions and queries into PostgreSQL's parse
// tree. markers are the ? markers built, which number numbers.
type builder struct {
	markers []marker
}

// marker is a ? marker: where it stands in the statement's text, and its
// ParamRef.
type marker struct {
	offset int
	ref    *pg.ParamRef
}

// number numbers the markers $1, $2, ... in the order written (the
// parser leaves their Order 0); it returns how many there are.
func (b *builder) number() int {
	slices.SortFunc(b.markers, func(x, y marker) int { return x.offset - y.offset })
	for i, m := range b.markers {
		m.ref.Number = int32(i + 1)
	}
	return len(b.markers)
}

// binaryOps are the operators built as PostgreSQL's of the same
// spelling (MySQL's != is PostgreSQL's <>, as its scanner reads it).
var binaryOps = map[opcode.Op]string{
	opcode.GE: ">=", opcode.LE: "<=", opcode.EQ: "=", opcode.NE: "<>", opcode.LT: "<", opcode.GT: ">",
	opcode.Plus: "+", opcode.Minus: "-", opcode.Mul: "*", opcode.Div: "/", opcode.Mod: "%",
	opcode.And: "&", opcode.Or: "|", opcode.Xor: "^", opcode.LeftShift: "<<", opcode.RightShift: ">>",
}

// specialCalls are the functions TiDB's tree holds as calls that are
// MySQL syntax of their own (DATE 'x', TRIM(x FROM y), ...).
var specialCalls = map[string]bool{
	"convert": true, "adddate": true, "subdate": true, "date_add": true, "date_sub": true, "extract": true,
	"position": true, "trim": true, ast.WeightString: true, ast.DateLiteral: true, ast.TimeLiteral: true,
	ast.TimestampLiteral: true, ast.JSONMemberOf: true,
}

// exprs builds a list of expressions.
func (b *builder) exprs(xs []ast.ExprNode) ([]*pg.Node, error) {
	out := make([]*pg.Node, len(xs))
	for i, x := range xs {
		n, err := b.expr(x)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// expr builds an expression.
func (b *builder) expr(x ast.ExprNode) (*pg.Node, error) {
	switch x := x.(type) {
	case ast.ParamMarkerExpr:
		m, ok := x.(*driver.ParamMarkerExpr)
		if !ok {
			return nil, notBuilt("a marker")
		}
		ref := &pg.ParamRef{Location: noLoc}
		b.markers = append(b.markers, marker{m.Offset, ref})
		return &pg.Node{Node: &pg.Node_ParamRef{ParamRef: ref}}, nil
	case *driver.ValueExpr:
		return value(x)
	case *ast.ColumnNameExpr:
		c := x.Name
		if !pgText(c.Schema.O + c.Table.O + c.Name.O) {
			return nil, notBuilt("a name PostgreSQL's text cannot hold")
		}
		return columnRef(c.Schema.O, c.Table.O, c.Name.O), nil
	case *ast.TableNameExpr:
		return columnRef(x.Name.Schema.O, x.Name.Name.O), nil
	case *ast.ParenthesesExpr:
		return b.expr(x.Expr)
	case *ast.BinaryOperationExpr:
		return b.binary(x)
	case *ast.UnaryOperationExpr:
		return b.unary(x)
	case *ast.FuncCallExpr:
		return b.call(x)
	case *ast.AggregateFuncExpr:
		return b.aggregate(x)
	case *ast.IsNullExpr:
		arg, err := b.expr(x.Expr)
		if err != nil {
			return nil, err
		}
		t := pg.NullTestType_IS_NULL
		if x.Not {
			t = pg.NullTestType_IS_NOT_NULL
		}
		return &pg.Node{Node: &pg.Node_NullTest{NullTest: &pg.NullTest{Arg: arg, Nulltesttype: t, Location: noLoc}}}, nil
	case *ast.IsTruthExpr:
		arg, err := b.expr(x.Expr)
		if err != nil {
			return nil, err
		}
		t := map[[2]bool]pg.BoolTestType{{true, false}: pg.BoolTestType_IS_TRUE, {true, true}: pg.BoolTestType_IS_NOT_TRUE,
			{false, false}: pg.BoolTestType_IS_FALSE, {false, true}: pg.BoolTestType_IS_NOT_FALSE}[[2]bool{x.True != 0, x.Not}]
		return &pg.Node{Node: &pg.Node_BooleanTest{BooleanTest: &pg.BooleanTest{Arg: arg, Booltesttype: t, Location: noLoc}}}, nil
	case *ast.BetweenExpr:
		xs, err := b.exprs([]ast.ExprNode{x.Expr, x.Left, x.Right})
		if err != nil {
			return nil, err
		}
		kind, op := pg.A_Expr_Kind_AEXPR_BETWEEN, "BETWEEN"
		if x.Not {
			kind, op = pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, "NOT BETWEEN"
		}
		return aexpr(kind, op, xs[0], listNode(xs[1:])), nil
	case *ast.PatternInExpr:
		return b.in(x)
	case *ast.PatternLikeOrIlikeExpr:
		return b.like(x)
	case *ast.CaseExpr:
		return b.caseExpr(x)
	case *ast.SubqueryExpr:
		return b.sublink(pg.SubLinkType_EXPR_SUBLINK, x, false)
	case *ast.ExistsSubqueryExpr:
		sub, ok := x.Sel.(*ast.SubqueryExpr)
		if !ok {
			return nil, notBuilt("EXISTS of this")
		}
		return b.sublink(pg.SubLinkType_EXISTS_SUBLINK, sub, x.Not)
	}
	return nil, notBuilt(fmt.Sprintf("%T", x))
}

// value is a literal as PostgreSQL's scanner reads its restored text.
func value(v *driver.ValueExpr) (*pg.Node, error) {
	switch v.Kind() {
	case driver.KindNull:
		return nullConst(), nil
	case driver.KindInt64:
		if v.Type.GetFlag()&mysql.IsBooleanFlag != 0 {
			return boolConst(v.GetInt64() > 0), nil
		}
		return numConst(strconv.FormatInt(v.GetInt64(), 10)), nil
	case driver.KindUint64:
		return numConst(strconv.FormatUint(v.GetUint64(), 10)), nil
	case driver.KindFloat32:
		return numConst(strconv.FormatFloat(v.GetFloat64(), 'e', -1, 32)), nil
	case driver.KindFloat64:
		return numConst(strconv.FormatFloat(v.GetFloat64(), 'e', -1, 64)), nil
	case driver.KindMysqlDecimal:
		return numConst(v.GetMysqlDecimal().String()), nil
	case driver.KindString, driver.KindBytes:
		if s := v.GetString(); pgText(s) {
			return strConst(s), nil
		}
	}
	return nil, notBuilt("this literal")
}

func (b *builder) binary(x *ast.BinaryOperationExpr) (*pg.Node, error) {
	l, err := b.expr(x.L)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(x.R)
	if err != nil {
		return nil, err
	}
	switch x.Op {
	case opcode.LogicAnd, opcode.LogicOr:
		// As PostgreSQL's grammar: a chain of ANDs (ORs) on the left is
		// one BoolExpr.
		op := pg.BoolExprType_AND_EXPR
		if x.Op == opcode.LogicOr {
			op = pg.BoolExprType_OR_EXPR
		}
		if be := l.GetBoolExpr(); be != nil && be.Boolop == op {
			be.Args = append(be.Args, r)
			return l, nil
		}
		return boolExpr(op, l, r), nil
	}
	op, ok := binaryOps[x.Op]
	if !ok {
		return nil, notBuilt("the operator " + x.Op.String())
	}
	return aexpr(pg.A_Expr_Kind_AEXPR_OP, op, l, r), nil
}

func (b *builder) unary(x *ast.UnaryOperationExpr) (*pg.Node, error) {
	v, err := b.expr(x.V)
	if err != nil {
		return nil, err
	}
	switch x.Op {
	case opcode.Not:
		return boolExpr(pg.BoolExprType_NOT_EXPR, v), nil
	case opcode.Plus:
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, "+", nil, v), nil
	case opcode.BitNeg:
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, "~", nil, v), nil
	case opcode.Minus:
		// As PostgreSQL's grammar: a negated number is a negative number.
		if c := v.GetAConst(); c != nil {
			switch n := c.Val.(type) {
			case *pg.A_Const_Ival:
				n.Ival.Ival = -n.Ival.Ival
				return v, nil
			case *pg.A_Const_Fval:
				if f, ok := strings.CutPrefix(n.Fval.Fval, "-"); ok {
					n.Fval.Fval = f
				} else {
					n.Fval.Fval = "-" + n.Fval.Fval
				}
				return v, nil
			}
		}
		return aexpr(pg.A_Expr_Kind_AEXPR_OP, "-", nil, v), nil
	}
	return nil, notBuilt("the operator " + x.Op.String())
}

// call is a function's call: the sequence functions as dialect.go
// renamed them, any other as the function of its name.
func (b *builder) call(x *ast.FuncCallExpr) (*pg.Node, error) {
	if specialCalls[x.FnName.L] || x.Schema.O != "" || x.Tp == ast.FuncCallExprTypeGeneric {
		return nil, notBuilt(x.FnName.O + "()")
	}
	name, ok := funcName(x.FnName.O)
	if !ok {
		return nil, notBuilt(x.FnName.O + "()")
	}
	args, err := b.exprs(x.Args)
	if err != nil {
		return nil, err
	}
	return funcCall(name, args), nil
}

func (b *builder) aggregate(x *ast.AggregateFuncExpr) (*pg.Node, error) {
	name, ok := funcName(x.F)
	if !ok || name == "group_concat" || x.Order != nil {
		return nil, notBuilt(x.F + "()")
	}
	args, err := b.exprs(x.Args)
	if err != nil {
		return nil, err
	}
	n := funcCall(name, args)
	n.GetFuncCall().AggDistinct = x.Distinct
	return n, nil
}

func (b *builder) in(x *ast.PatternInExpr) (*pg.Node, error) {
	l, err := b.expr(x.Expr)
	if err != nil {
		return nil, err
	}
	if x.Sel != nil {
		sub, ok := x.Sel.(*ast.SubqueryExpr)
		if !ok {
			return nil, notBuilt("IN of this")
		}
		n, err := b.sublink(pg.SubLinkType_ANY_SUBLINK, sub, x.Not)
		if err != nil {
			return nil, err
		}
		link := n.GetSubLink()
		if x.Not {
			link = n.GetBoolExpr().Args[0].GetSubLink()
		}
		link.Testexpr = l
		return n, nil
	}
	list, err := b.exprs(x.List)
	if err != nil {
		return nil, err
	}
	op := "="
	if x.Not {
		op = "<>"
	}
	return aexpr(pg.A_Expr_Kind_AEXPR_IN, op, l, listNode(list)), nil
}

func (b *builder) like(x *ast.PatternLikeOrIlikeExpr) (*pg.Node, error) {
	if x.Escape != '\\' {
		return nil, notBuilt("LIKE with ESCAPE")
	}
	l, err := b.expr(x.Expr)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(x.Pattern)
	if err != nil {
		return nil, err
	}
	kind, op := pg.A_Expr_Kind_AEXPR_LIKE, "~~"
	if !x.IsLike {
		kind, op = pg.A_Expr_Kind_AEXPR_ILIKE, "~~*"
	}
	if x.Not {
		op = "!" + op
	}
	return aexpr(kind, op, l, r), nil
}

func (b *builder) caseExpr(x *ast.CaseExpr) (*pg.Node, error) {
	c := &pg.CaseExpr{Location: noLoc}
	var err error
	if x.Value != nil {
		if c.Arg, err = b.expr(x.Value); err != nil {
			return nil, err
		}
	}
	for _, w := range x.WhenClauses {
		xs, err := b.exprs([]ast.ExprNode{w.Expr, w.Result})
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, &pg.Node{Node: &pg.Node_CaseWhen{CaseWhen: &pg.CaseWhen{Expr: xs[0], Result: xs[1], Location: noLoc}}})
	}
	if x.ElseClause != nil {
		if c.Defresult, err = b.expr(x.ElseClause); err != nil {
			return nil, err
		}
	}
	return &pg.Node{Node: &pg.Node_CaseExpr{CaseExpr: c}}, nil
}

// sublink is a subquery as an expression; not: NOT before it.
func (b *builder) sublink(kind pg.SubLinkType, sub *ast.SubqueryExpr, not bool) (*pg.Node, error) {
	q, err := b.query(sub.Query)
	if err != nil {
		return nil, err
	}
	n := &pg.Node{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{SubLinkType: kind, Subselect: q, Location: noLoc}}}
	if not {
		return boolExpr(pg.BoolExprType_NOT_EXPR, n), nil
	}
	return n, nil
}
