package mysqlwire

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	tmysql "github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/seqd/seqd/eval"
)

// An expression as MariaDB's Item::print writes it in an error's words
// (1690 "BIGINT value is out of range in '...'"): a column as
// `db`.`table`.`column`, a user variable as @`name`, a function's call
// in lower case with its arguments joined by commas, an operator with a
// space each side, parentheses where precedence needs them (not where
// they were written), a number as written. Only for the error's text:
// nothing printed here reaches the executor.

// Precedences as MariaDB's printer compares them (item.h's enum
// precedence), of the items printed here.
const (
	addPrecedence     = 11
	mulPrecedence     = 12
	negPrecedence     = 15
	defaultPrecedence = 17
)

// maxPrinted bounds what mariadbPrint writes, and maxPrintedNodes the
// nodes it reads: MariaDB's error message holds at most 512 bytes
// (MYSQL_ERRMSG_SIZE), and each operation of a long chain (1 + 1 + ... +
// 1) is printed, which unbounded would cost the square of its length.
const (
	maxPrinted      = 256
	maxPrintedNodes = 64
)

// printer writes expressions for mariadbPrint.
type printer struct {
	b  *builder
	sb strings.Builder
	ok bool
}

// mariadbPrint is x as MariaDB prints it; false where x holds what is
// not printed here, or past maxPrinted bytes.
func (b *builder) mariadbPrint(x ast.ExprNode) (string, bool) {
	n := &nodeCounter{max: maxPrintedNodes}
	if x.Accept(n); n.count > n.max {
		return "", false
	}
	p := &printer{b: b, ok: true}
	p.expr(x, 0)
	if p.sb.Len() > maxPrinted { // a long string literal, written whole
		return "", false
	}
	return p.sb.String(), p.ok
}

// nodeCounter counts the nodes of a tree up to past max, where it stops.
type nodeCounter struct{ count, max int }

func (v *nodeCounter) Enter(n ast.Node) (ast.Node, bool) {
	v.count++
	return n, v.count > v.max
}

func (v *nodeCounter) Leave(n ast.Node) (ast.Node, bool) { return n, v.count <= v.max }

// precedence is x's as MariaDB's printer reads it.
func precedence(x ast.ExprNode) int {
	switch x := unparen(x).(type) {
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.Plus, opcode.Minus:
			return addPrecedence
		case opcode.Mul, opcode.Div, opcode.IntDiv, opcode.Mod:
			return mulPrecedence
		}
		return 0
	case *ast.UnaryOperationExpr:
		return negPrecedence
	}
	return defaultPrecedence
}

// expr writes x, in parentheses where its precedence is below parent's.
func (p *printer) expr(x ast.ExprNode, parent int) {
	if p.sb.Len() > maxPrinted {
		p.ok = false
	}
	if !p.ok {
		return
	}
	x = unparen(x)
	if precedence(x) < parent {
		p.sb.WriteByte('(')
		defer p.sb.WriteByte(')')
	}
	switch x := x.(type) {
	case *ast.BinaryOperationExpr:
		op, ok := map[opcode.Op]string{opcode.Plus: "+", opcode.Minus: "-", opcode.Mul: "*", opcode.Div: "/",
			opcode.IntDiv: "DIV", opcode.Mod: "MOD"}[x.Op]
		if !ok {
			p.ok = false
			return
		}
		prec := precedence(x)
		p.expr(x.L, prec)
		p.sb.WriteByte(' ')
		p.sb.WriteString(op)
		p.sb.WriteByte(' ')
		p.expr(x.R, prec+1)
	case *ast.UnaryOperationExpr:
		if x.Op != opcode.Minus {
			p.ok = false
			return
		}
		p.sb.WriteByte('-')
		p.expr(x.V, negPrecedence)
	case *ast.ColumnNameExpr:
		p.column(x.Name)
	case *ast.VariableExpr:
		if x.IsSystem {
			p.ok = false
			return
		}
		p.sb.WriteString("@" + quoteName(x.Name))
	case *driver.ValueExpr:
		p.value(x)
	case *ast.FuncCastExpr:
		to := ""
		switch {
		case x.Tp.GetType() == tmysql.TypeLonglong && tmysql.HasUnsignedFlag(x.Tp.GetFlag()):
			to = "unsigned"
		case x.Tp.GetType() == tmysql.TypeLonglong:
			to = "signed"
		}
		if to == "" || x.FunctionType != ast.CastFunction {
			p.ok = false
			return
		}
		p.sb.WriteString("cast(")
		p.expr(x.Expr, 0)
		p.sb.WriteString(" as " + to + ")")
	case *ast.FuncCallExpr:
		p.sb.WriteString(x.FnName.L + "(")
		for i, a := range x.Args {
			if i > 0 {
				p.sb.WriteByte(',')
			}
			p.expr(a, 0)
		}
		p.sb.WriteByte(')')
	default:
		p.ok = false
	}
}

// column writes name as `db`.`table`.`column`, the table as the FROM
// clause names it and the column as its table does (`table`.`column`
// for a derived table's).
func (p *printer) column(name *ast.ColumnName) {
	for _, src := range p.b.sources {
		if name.Table.O != "" && !strings.EqualFold(src.name, name.Table.O) {
			continue
		}
		for _, col := range src.cols {
			if strings.EqualFold(col, name.Name.O) {
				if src.db != "" {
					p.sb.WriteString(quoteName(src.db) + ".")
				}
				p.sb.WriteString(quoteName(src.name) + "." + quoteName(col))
				return
			}
		}
	}
	p.ok = false // an outer query's, or none
}

// value writes a literal as MariaDB prints it: a number as written (its
// value's text, for an integer or a decimal; a DOUBLE's as the
// statement writes it, builder.floatForms), a
// string in quotes, TRUE and FALSE as 1 and 0, NULL; a parameter's value
// bound as such (a DOUBLE's as MariaDB writes its value); a user
// variable as its name.
func (p *printer) value(v *driver.ValueExpr) {
	if v.Type.GetFlag()&userVarFlag != 0 {
		p.sb.WriteString(v.Text()) // @`name`, as userVarReader writes it
		p.ok = p.ok && v.Text() != ""
		return
	}
	switch v.Kind() {
	case driver.KindInt64:
		p.sb.WriteString(strconv.FormatInt(v.GetInt64(), 10))
	case driver.KindUint64:
		p.sb.WriteString(strconv.FormatUint(v.GetUint64(), 10))
	case driver.KindMysqlDecimal:
		p.sb.WriteString(v.GetMysqlDecimal().String())
	case driver.KindFloat64:
		if v.Type.GetFlag()&boundFlag == 0 { // a DOUBLE literal, printed as written
			text := p.b.floatForms[v.GetFloat64()]
			p.sb.WriteString(text)
			p.ok = p.ok && text != ""
			return
		}
		p.sb.Write(eval.AppendMariaDBDouble(nil, v.GetFloat64())) // a parameter's DOUBLE, as MariaDB writes its value
	case driver.KindNull:
		p.sb.WriteString("NULL")
	case driver.KindString:
		p.sb.WriteString("'" + strings.ReplaceAll(strings.ReplaceAll(v.GetString(), `\`, `\\`), "'", `\'`) + "'")
	default:
		p.ok = false
	}
}
