package mysqlwire

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
	"github.com/pingcap/tidb/pkg/parser/types"
	vmysql "github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/executor"
)

// The functions: the sequence functions in the spellings the executor
// gives MariaDB's meaning (seqd_mariadb_nextval, ...), the session's as
// the connection's values, MySQL's that PostgreSQL spells or means
// otherwise as PostgreSQL's that mean the same, any other as the
// function of its name.

// specialCalls are the functions TiDB's tree holds as calls that are
// MySQL syntax of their own (DATE 'x', EXTRACT(x FROM y), ...), and the
// keyword functions of dates and times, which seqd does not have.
var specialCalls = map[string]bool{
	"adddate": true, "subdate": true, "date_add": true, "date_sub": true, "extract": true, ast.WeightString: true,
	ast.DateLiteral: true, ast.TimeLiteral: true, ast.TimestampLiteral: true, ast.JSONMemberOf: true,
	"now": true, "current_timestamp": true, "localtime": true, "localtimestamp": true, "sysdate": true, "curdate": true,
	"current_date": true, "curtime": true, "current_time": true, "utc_date": true, "utc_time": true, "utc_timestamp": true,
}

// renamedFuncs are MySQL's functions built as PostgreSQL's of another
// name: LENGTH counts bytes, CHAR_LENGTH characters.
var renamedFuncs = map[string]string{"length": "octet_length", "char_length": "char_length", "character_length": "char_length",
	"lcase": "lower", "ucase": "upper", "std": "seqd_mariadb_stddev_pop", "stddev": "seqd_mariadb_stddev_pop",
	"stddev_pop": "seqd_mariadb_stddev_pop", "stddev_samp": "seqd_mariadb_stddev_samp", "variance": "seqd_mariadb_var_pop",
	"var_pop": "seqd_mariadb_var_pop", "var_samp": "seqd_mariadb_var_samp",
	"ascii": "seqd_mariadb_ascii", "ord": "seqd_mariadb_ord", "bit_length": "bit_length"}

// values builds xs as the values of a function's arguments: a truth as
// its 1 or 0, MariaDB's truths being integers (ABS(TRUE) is 1).
func (b *builder) values(xs []ast.ExprNode) ([]*pg.Node, error) {
	out, err := b.exprs(xs)
	if err != nil {
		return nil, err
	}
	for i, x := range xs {
		out[i] = truthNumber(x, out[i])
	}
	return out, nil
}

// stringArgFuncs are the functions built as PostgreSQL's of the same
// name whose arguments are all strings (stringArgs).
var stringArgFuncs = map[string]bool{"upper": true, "lower": true, "replace": true}

// stringArgs builds the arguments of a function of strings: a number
// is its text as MariaDB shows it, a truth's 1 or 0 (LENGTH(start_value),
// REPLACE(123, '2', 'x')).
func (b *builder) stringArgs(xs []ast.ExprNode) ([]*pg.Node, error) {
	out, err := b.exprs(xs)
	if err != nil {
		return nil, err
	}
	for i, x := range xs {
		if b.numberValue(x) {
			out[i] = b.numberText(x, out[i])
		}
	}
	return out, nil
}

// numberText is n, built of x, a number, as its text where MariaDB reads
// it as a string: a quotient as shown, a DOUBLE as MariaDB writes one
// (doubleText).
func (b *builder) numberText(x ast.ExprNode, n *pg.Node) *pg.Node {
	if b.doubleTyped(x) {
		return doubleText(n)
	}
	return typeCast(shownValue(x, n), typeName("text"))
}

// doubleTyped reports whether x is a DOUBLE, as the builder types it.
func (b *builder) doubleTyped(x ast.ExprNode) bool {
	t, ok := exprType(x, b.scope())
	return ok && t.typ == querypb.Type_FLOAT64
}

// doubleText is n, a DOUBLE, as MariaDB writes one (eval's
// seqd_mariadb_double_text: 1e20, not PostgreSQL's 1e+20).
func doubleText(n *pg.Node) *pg.Node {
	return funcCall("seqd_mariadb_double_text", []*pg.Node{typeCast(n, typeName("float8"))})
}

// call is a function's call.
func (b *builder) call(x *ast.FuncCallExpr) (*pg.Node, error) {
	name := x.FnName.L
	if x.Schema.O != "" || x.Tp == ast.FuncCallExprTypeGeneric {
		// A stored function: seqd has none.
		schema := x.Schema.O
		if schema == "" {
			schema = b.env.db
		}
		return nil, noSuchFunction(schema, x.FnName.O)
	}
	if f, ok, err := b.sequenceCall(x); ok || err != nil {
		return f, err
	}
	if n, ok := b.sessionCall(x); ok {
		return n, nil
	}
	if noArgFuncs[name] && len(x.Args) > 0 {
		return nil, wrongArgCount(x.FnName.O)
	}
	if specialCalls[name] {
		return nil, unsupported(x.FnName.O + "()")
	}
	if name == "binlog_gtid_pos" { // mariadb-dump --master-data --single-transaction (show_status.go)
		return nil, noBinaryLog()
	}
	switch name {
	case "if", "ifnull", "coalesce", "nullif", "greatest", "least":
		return b.conditional(x)
	case "concat":
		return b.concat(x.Args)
	case "concat_ws":
		return b.concatWS(x)
	case "elt":
		return b.elt(x)
	case "field":
		return b.field(x)
	case "trim":
		return b.trim(x)
	case "left", "right":
		return b.leftRight(x)
	case "substring", "substr", "mid":
		return b.substring(x)
	case "lpad", "rpad":
		return b.pad(x)
	case "reverse", "ltrim", "rtrim":
		return b.oneString(x)
	case "floor", "ceil", "ceiling":
		return b.integral(x)
	case "abs":
		return b.abs(x)
	case "round":
		return b.round(x)
	case "repeat":
		return b.repeat(x)
	case "hex":
		return b.hex(x)
	case "upper", "lower", "ucase", "lcase":
		// MariaDB's case conversions leave a binary string as it is.
		if len(x.Args) == 1 {
			if t, ok := exprType(x.Args[0], b.scope()); ok && t.binary {
				return b.expr(x.Args[0])
			}
		}
	case "convert": // CONVERT(x USING charset): text is text in every UTF-8
		if len(x.Args) != 2 {
			return nil, unsupported("this CONVERT()")
		}
		if cs := strings.ToLower(valueText(x.Args[1])); cs == "utf8" || cs == "utf8mb3" || cs == "utf8mb4" {
			return b.expr(x.Args[0])
		}
		return nil, unsupported("CONVERT(... USING " + valueText(x.Args[1]) + ")")
	case "locate", "position", "instr":
		return b.locate(x)
	case "substring_index":
		return b.substringIndex(x)
	case "find_in_set", "strcmp":
		if len(x.Args) != 2 {
			return nil, wrongArgCount(x.FnName.O)
		}
		args, err := b.stringArgs(x.Args)
		if err != nil {
			return nil, err
		}
		if b.bytesCompared(x.Args...) {
			return funcCall("seqd_mariadb_"+name+"_bytes", args), nil
		}
		return funcCall("seqd_mariadb_"+name, args), nil
	case "char_length", "character_length":
		if len(x.Args) == 1 && b.binaryString(x.Args[0]) { // a binary string's characters are its bytes
			b.calls = append(b.calls, calledFunc{"octet_length", x.FnName.O})
			args, err := b.stringArgs(x.Args)
			return funcCall("octet_length", args), err
		}
	case "space":
		if len(x.Args) != 1 {
			return nil, wrongArgCount(x.FnName.O)
		}
		n, err := b.countArg(&x.Args[0])
		if err != nil {
			return nil, err
		}
		return funcCall("seqd_mariadb_space", []*pg.Node{n, numConst(strconv.Itoa(maxAllowedPacket))}), nil
	case "isnull": // of one argument, x IS NULL (isnullCalls)
		return nil, wrongArgCount(x.FnName.O)
	}
	if to, ok := renamedFuncs[name]; ok {
		b.calls = append(b.calls, calledFunc{to, x.FnName.O})
		args, err := b.stringArgs(x.Args)
		return funcCall(to, args), err
	}
	pgName, ok := funcName(x.FnName.O)
	if !ok {
		return nil, unsupported(x.FnName.O + "()")
	}
	named := x.FnName.O
	if n, ok := parserNames[name]; ok {
		named = n
	}
	b.calls = append(b.calls, calledFunc{pgName, named})
	build := b.values
	if stringArgFuncs[name] {
		build = b.stringArgs
	}
	args, err := build(x.Args)
	if err != nil {
		return nil, err
	}
	return funcCall(pgName, args), nil
}

// sequenceCall is a call of a sequence function: a spelling renamed
// before parsing (a plain call, its sequence a column: rename), or
// NEXTVAL(s), NEXT VALUE FOR s, LASTVAL(s), SETVAL(s, ...), their
// sequence a table's name; as the spelling the executor gives MariaDB's
// meaning. The sequence's name keeps its case.
func (b *builder) sequenceCall(x *ast.FuncCallExpr) (*pg.Node, bool, error) {
	if len(x.Args) == 0 {
		return nil, false, nil
	}
	var to string
	var seq *pg.Node
	if kind, ok := strings.CutPrefix(x.FnName.L, renamedPrefix); ok {
		kind, _, _ = strings.Cut(kind, "_")
		c, col := x.Args[0].(*ast.ColumnNameExpr)
		if to, ok = renamedSpelling(kind); !ok || !col {
			return nil, false, nil
		}
		seq = columnRef(c.Name.Schema.O, c.Name.Table.O, c.Name.Name.O)
		b.seqs = append(b.seqs, nameOf(&ast.TableName{Schema: c.Name.Table, Name: c.Name.Name}, b.env.db))
	} else {
		t, named := x.Args[0].(*ast.TableNameExpr)
		if to, ok = executor.MariaDBSpelling(x.FnName.L); !ok || !named {
			return nil, false, nil
		}
		seq = columnRef(t.Name.Schema.O, t.Name.Name.O)
		b.seqs = append(b.seqs, nameOf(t.Name, b.env.db))
	}
	if strings.EqualFold(to, setvalSpelling) && len(x.Args) > 1 {
		if lit := notIntegerLiteral(x.Args[1]); lit != nil {
			return nil, false, &nearError{at: lit.OriginTextPosition()}
		}
	}
	args, err := b.exprs(x.Args[1:])
	if err != nil {
		return nil, false, err
	}
	return funcCall(to, append([]*pg.Node{seq}, args...)), true, nil
}

// setvalSpelling is SETVAL's spelling for the executor.
var setvalSpelling, _ = executor.MariaDBSpelling("setval")

// notIntegerLiteral is x's literal, signed or not, where it is one
// MariaDB's grammar refuses for SETVAL's value, which it reads as an
// integer literal (1.5, 1e3, 0x10, b'1': 1064 near it); nil for another
// x, which seqd takes as an expression, as TiDB does.
func notIntegerLiteral(x ast.ExprNode) *driver.ValueExpr {
	for {
		u, ok := x.(*ast.UnaryOperationExpr)
		if !ok || u.Op != opcode.Minus && u.Op != opcode.Plus {
			break
		}
		x = u.V
	}
	v, ok := x.(*driver.ValueExpr)
	if !ok {
		return nil
	}
	switch v.Kind() {
	case driver.KindMysqlDecimal, driver.KindFloat64, driver.KindFloat32, driver.KindBinaryLiteral, driver.KindMysqlBit:
		return v
	}
	return nil
}

// noArgFuncs are the session's functions MariaDB's grammar reads with
// arguments, which it refuses as a call with a wrong number of them.
var noArgFuncs = map[string]bool{"database": true, "schema": true, "connection_id": true, "version": true}

// sessionCall is a session function's value: the connection's database
// (NULL for none), user, thread ID; LAST_INSERT_ID() is 0, there being
// no AUTO_INCREMENT.
func (b *builder) sessionCall(x *ast.FuncCallExpr) (*pg.Node, bool) {
	if len(x.Args) > 0 {
		return nil, false
	}
	switch x.FnName.L {
	case "database", "schema":
		if b.env.db == "" {
			return nullConst(), true
		}
		return strConst(b.env.db), true
	case "user", "current_user", "session_user", "system_user":
		return strConst(b.env.user), true
	case "connection_id":
		return numConst(strconv.FormatUint(uint64(b.env.thread), 10)), true
	case "last_insert_id":
		return intConst(0), true
	case "version":
		return strConst(Version), true
	}
	return nil, false
}

// conditional is IF, IFNULL, COALESCE, NULLIF, GREATEST and LEAST.
func (b *builder) conditional(x *ast.FuncCallExpr) (*pg.Node, error) {
	name := x.FnName.L
	want := map[string]int{"if": 3, "ifnull": 2, "nullif": 2}[name]
	if want > 0 && len(x.Args) != want || len(x.Args) < 2 && name != "coalesce" || len(x.Args) == 0 {
		return nil, wrongArgCount(x.FnName.O)
	}
	if name == "if" {
		c, err := b.cond(x.Args[0])
		if err != nil {
			return nil, err
		}
		xs, err := b.branchValues(x.Args[1:])
		if err != nil {
			return nil, err
		}
		return caseWhen(c, xs[0], xs[1]), nil
	}
	if name == "ifnull" || name == "coalesce" {
		args, err := b.branchValues(x.Args)
		if err != nil {
			return nil, err
		}
		return coalesce(args...), nil
	}
	args, err := b.values(x.Args)
	if err != nil {
		return nil, err
	}
	switch name {
	case "nullif":
		if b.collated(x.Args[0], x.Args[1]) {
			return funcCall("seqd_mariadb_ci", []*pg.Node{nullIf(args[0], args[1])}), nil
		}
		// As MariaDB compares them: a string with a number read as one
		// (comparedOperand), x returned as it is.
		l, r := b.comparedOperand(x.Args[0], x.Args[1], args[0], args[1]), b.comparedOperand(x.Args[1], x.Args[0], args[1], args[0])
		quotient := (divides(x.Args[0]) || divides(x.Args[1])) && !inexact(x.Args[0]) && !inexact(x.Args[1])
		if (quotient || warns(x.Args[0])) && readAgain(x.Args[0]) {
			// As MariaDB reads it: a quotient compared at the digits it
			// shows (NULLIF(1/3, 0.3333) is NULL), its value kept; x read
			// again to be returned, with its warnings (NULLIF(1/0, 1):
			// two 1365).
			if quotient {
				var err error
				if l, r, err = b.shownPair(x.Args[0], x.Args[1]); err != nil {
					return nil, err
				}
			}
			return caseWhen(aexpr(pg.A_Expr_Kind_AEXPR_OP, "=", l, r), nullConst(), args[0]), nil
		}
		if l != args[0] || takesValue(x.Args[0]) {
			// x read again to be returned where it is not equal, as
			// MariaDB reads it: a NEXTVAL there takes a second value
			// (NULLIF(NEXTVAL(s), 0) on a new sequence: 2).
			return caseWhen(aexpr(pg.A_Expr_Kind_AEXPR_OP, "=", l, r), nullConst(), args[0]), nil
		}
		return nullIf(l, r), nil
	}
	// MySQL's GREATEST and LEAST are NULL when an argument is; PostgreSQL's
	// skip NULLs. The arguments are read twice: only those a second read
	// cannot change (no call, no subquery) are taken.
	op := pg.MinMaxOp_IS_GREATEST
	if name == "least" {
		op = pg.MinMaxOp_IS_LEAST
	}
	var anyNull []*pg.Node
	for _, a := range args {
		if !readTwice(a) {
			return nil, unsupported(x.FnName.O + "() of a function's call or a subquery")
		}
		anyNull = append(anyNull, &pg.Node{Node: &pg.Node_NullTest{NullTest: &pg.NullTest{Arg: a, Nulltesttype: pg.NullTestType_IS_NULL, Location: noLoc}}})
	}
	if t, ok := exprType(x, b.scope()); ok && t.kind() == kindReal && slices.ContainsFunc(x.Args, b.stringValue) {
		// A string among numbers: compared and returned as a DOUBLE, read
		// as far as it is a number (1292) where the arguments are
		// compared, not where they are tested for NULL (the same).
		compared := slices.Clone(args)
		for i, a := range x.Args {
			if b.stringValue(a) {
				compared[i] = typeCast(funcCall(numberRead(a), []*pg.Node{args[i]}), typeName("float8"))
			}
		}
		args = compared
	}
	mm := &pg.Node{Node: &pg.Node_MinMaxExpr{MinMaxExpr: &pg.MinMaxExpr{Op: op, Args: args, Location: noLoc}}}
	if b.stringsCollated(x.Args) {
		mm = funcCall("seqd_mariadb_ci", []*pg.Node{mm})
	}
	return caseWhen(boolExpr(pg.BoolExprType_OR_EXPR, anyNull...), nullConst(), mm), nil
}

// readAgain reports whether x may be read a second time as MariaDB reads
// it again (NULLIF's first argument): it calls no function but those
// whose value only their arguments make, and holds no subquery,
// aggregate or variable (a NEXTVAL there: takesValue).
func readAgain(x ast.ExprNode) bool {
	v := exprFinder{found: func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncCallExpr:
			return !pureFuncs[n.FnName.L]
		case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.AggregateFuncExpr, *ast.WindowFuncExpr, *ast.VariableExpr:
			return true
		}
		return false
	}}
	x.Accept(&v)
	return !v.hit
}

// takesValue reports whether x takes a sequence's value (NEXTVAL, NEXT
// VALUE FOR), and is otherwise as readAgain reads again: NULLIF reads
// such a first argument again to return it, taking a second value, as
// MariaDB's does (Item_func_nullif returns a copy of its first argument,
// evaluated again).
func takesValue(x ast.ExprNode) bool {
	nextval, other := false, false
	v := exprFinder{found: func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncCallExpr:
			if n.FnName.L == ast.NextVal {
				nextval = true
			} else if !pureFuncs[n.FnName.L] {
				other = true
			}
		case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.AggregateFuncExpr, *ast.WindowFuncExpr, *ast.VariableExpr:
			other = true
		}
		return false
	}}
	x.Accept(&v)
	return nextval && !other
}

// shownPair is shown of x and y.
func (b *builder) shownPair(x, y ast.ExprNode) (*pg.Node, *pg.Node, error) {
	l, err := b.shown(x)
	if err != nil {
		return nil, nil, err
	}
	r, err := b.shown(y)
	return l, r, err
}

// branchValues builds the values IF, IFNULL, COALESCE or CASE choose
// among: where a string is among numbers, their common type is a
// string (MariaDB's, aggregateResult), and each number is its text as
// MariaDB shows it (IF(0, 'a', 1/3) is '0.3333'), a truth's 1 or 0; a
// branch's type is what exprType tells of it (a column's, a function's
// result's), else what it is written as.
func (b *builder) branchValues(xs []ast.ExprNode) ([]*pg.Node, error) {
	out, err := b.exprs(xs) // first: a subquery's types are told as it is built
	if err != nil {
		return nil, err
	}
	str := slices.ContainsFunc(xs, b.stringValue)
	truths := !slices.ContainsFunc(xs, func(x ast.ExprNode) bool { return !truthValue(x) && !nullLiteral(x) })
	for i, x := range xs {
		switch {
		case str && b.numberValue(x):
			out[i] = b.numberText(x, out[i])
		case !truths:
			out[i] = truthNumber(x, out[i])
		}
	}
	return out, nil
}

// stringValue reports whether x is a string: written as one, or of a
// string type as exprType tells it.
func (b *builder) stringValue(x ast.ExprNode) bool {
	if isString(x) {
		return true
	}
	t, ok := exprType(x, b.scope())
	return ok && t.kind() == kindString
}

// numberValue reports whether x is a number (a truth too): written as
// one, or of a number type as exprType tells it.
func (b *builder) numberValue(x ast.ExprNode) bool {
	if operandKind(x) == numberKind || truthValue(x) {
		return true
	}
	t, ok := exprType(x, b.scope())
	return ok && (t.kind() == kindInt || t.kind() == kindDecimal || t.kind() == kindReal)
}

// readTwice reports whether n reads the same each time it is read,
// without a warning: it holds no subquery, and no call but of quietFuncs.
func readTwice(n *pg.Node) bool {
	switch x := n.Node.(type) {
	case *pg.Node_AConst, *pg.Node_ColumnRef, *pg.Node_ParamRef:
		return true
	case *pg.Node_AExpr:
		return (x.AExpr.Lexpr == nil || readTwice(x.AExpr.Lexpr)) && (x.AExpr.Rexpr == nil || readTwice(x.AExpr.Rexpr))
	case *pg.Node_TypeCast:
		return readTwice(x.TypeCast.Arg)
	case *pg.Node_FuncCall:
		f := x.FuncCall
		if len(f.Funcname) != 1 || !quietFuncs[f.Funcname[0].GetString_().GetSval()] || f.AggStar || f.Over != nil {
			return false
		}
		if op := f.Args[0].GetAConst().GetSval().GetSval(); f.Funcname[0].GetString_().GetSval() == "seqd_mariadb_arith" && (op == "div" || op == "divd") {
			return false // DIV warns (1365 by zero, 1916 past its range)
		}
		for _, a := range f.Args {
			if !readTwice(a) {
				return false
			}
		}
		return true
	}
	return false
}

// parserNames are the names MariaDB's errors give the functions TiDB's
// parser names otherwise (CHAR(65) is its char_func).
var parserNames = map[string]string{ast.CharFunc: "CHAR", ast.InsertFunc: "INSERT"}

// isnullCalls makes each ISNULL(x) of a statement the x IS NULL it is
// in MariaDB (one Item_func_isnull).
type isnullCalls struct{}

func (isnullCalls) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (isnullCalls) Leave(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.FuncCallExpr); ok && c.FnName.L == "isnull" && c.Schema.O == "" && len(c.Args) == 1 {
		return &ast.IsNullExpr{Expr: c.Args[0]}, true
	}
	return n, true
}

// substringIndex is SUBSTRING_INDEX(s, delim, count): eval's
// seqd_mariadb_substring_index, count read as MariaDB's val_int reads it
// (once, with the rows), a binary string's occurrences counted as
// MariaDB counts a single-byte string's.
func (b *builder) substringIndex(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) != 3 {
		return nil, wrongArgCount(x.FnName.O)
	}
	args, err := b.stringArgs(x.Args[:2])
	if err != nil {
		return nil, err
	}
	count, err := b.count(&x.Args[2], false)
	if err != nil {
		return nil, err
	}
	mb := "true"
	if t, ok := exprType(x.Args[0], b.scope()); ok && t.binary && t.kind() == kindString {
		mb = "false"
	}
	return funcCall("seqd_mariadb_substring_index", append(args, count, typeCast(strConst(mb), typeName("bool")))), nil
}

// locate is LOCATE(sub, s [, start]), POSITION(sub IN s) and INSTR(s,
// sub): eval's seqd_mariadb_locate, sub found in s by the connection's
// collation, utf8mb4_general_ci ('B' in 'abc' is 2), or by its bytes
// where either is a binary string; start read as MariaDB's val_int
// reads a count.
func (b *builder) locate(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) < 2 || len(x.Args) > 3 || x.FnName.L == "instr" && len(x.Args) != 2 {
		return nil, wrongArgCount(x.FnName.O)
	}
	sub, s := x.Args[0], x.Args[1]
	if x.FnName.L == "instr" {
		sub, s = s, sub
	}
	args, err := b.stringArgs([]ast.ExprNode{sub, s})
	if err != nil {
		return nil, err
	}
	start := typeCast(intConst(1), typeName("int8"))
	if len(x.Args) == 3 {
		if start, err = b.count(&x.Args[2], false); err != nil {
			return nil, err
		}
	}
	ci := "true"
	for _, a := range []ast.ExprNode{sub, s} {
		if t, ok := exprType(a, b.scope()); ok && t.binary && t.kind() == kindString {
			ci = "false"
		}
	}
	return funcCall("seqd_mariadb_locate", append(args, start, typeCast(strConst(ci), typeName("bool")))), nil
}

// quietFuncs are the functions the builder calls whose value only their
// arguments make, and which raise no warning.
var quietFuncs = map[string]bool{"abs": true, "upper": true, "lower": true, "octet_length": true, "char_length": true,
	"strpos": true, "replace": true, "round": true, "btrim": true, "seqd_mariadb_round": true, "seqd_mariadb_floor": true,
	"seqd_mariadb_ceil": true, "seqd_mariadb_left": true, "seqd_mariadb_right": true, "seqd_mariadb_substr": true,
	"seqd_mariadb_reverse": true, "seqd_mariadb_trim": true, "seqd_mariadb_arith": true}

// concat is CONCAT: its arguments' text, NULL when one is NULL
// (PostgreSQL's concat skips NULLs; its || does not).
func (b *builder) concat(xs []ast.ExprNode) (*pg.Node, error) {
	if len(xs) == 0 {
		return nil, wrongArgCount("CONCAT")
	}
	args := make([]*pg.Node, len(xs))
	for i, x := range xs {
		var err error
		if args[i], err = b.shown(x); err != nil { // a truth's 1 or 0
			return nil, err
		}
	}
	for i, a := range args {
		if b.doubleTyped(xs[i]) {
			args[i] = doubleText(a)
		} else {
			args[i] = typeCast(a, typeName("text"))
		}
	}
	return concatTree(args), nil
}

// concatTree is args joined by ||, as a balanced tree: as deep as the
// logarithm of their count, where a chain as long as the call's
// arguments overflowed the evaluator's stack (a 1 MB CONCAT of 500,000
// arguments ended the server), and each byte of the result copied as
// often, where a chain copied the whole result so far at each argument.
// || is associative: NULL where any is, else the texts in order.
func concatTree(args []*pg.Node) *pg.Node {
	if len(args) == 1 {
		return args[0]
	}
	half := (len(args) + 1) / 2 // (a || b) || c, as a chain of three
	return aexpr(pg.A_Expr_Kind_AEXPR_OP, "||", concatTree(args[:half]), concatTree(args[half:]))
}

// concatWS is CONCAT_WS(sep, str, ...): the strings' text joined by
// sep's, those that are NULL left out; NULL where sep is (PostgreSQL's
// array_to_string, which is strict, of an array that holds NULLs).
func (b *builder) concatWS(x *ast.FuncCallExpr) (*pg.Node, error) {
	xs := x.Args
	if len(xs) < 2 {
		return nil, wrongArgCount(x.FnName.O)
	}
	args := make([]*pg.Node, len(xs))
	for i, a := range xs {
		n, err := b.shown(a)
		if err != nil {
			return nil, err
		}
		args[i] = typeCast(n, typeName("text")) // a truth's 1 or 0
	}
	array := &pg.Node{Node: &pg.Node_AArrayExpr{AArrayExpr: &pg.A_ArrayExpr{Elements: args[1:], Location: noLoc}}}
	return funcCall("array_to_string", []*pg.Node{array, args[0]}), nil
}

// elt is ELT(n, str, ...): the nth str's text (a number's as MariaDB
// shows it), NULL where there is none; n read as MariaDB reads an
// integer (a decimal rounded, a string's leading integer with 1292:
// eval's seqd_mariadb_signed), once.
func (b *builder) elt(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) < 2 {
		return nil, wrongArgCount(x.FnName.O)
	}
	n, err := b.expr(x.Args[0])
	if err != nil {
		return nil, err
	}
	strs, err := b.stringArgs(x.Args[1:])
	if err != nil {
		return nil, err
	}
	c := &pg.CaseExpr{Arg: funcCall("seqd_mariadb_signed", []*pg.Node{n}), Location: noLoc}
	for i, s := range strs {
		c.Args = append(c.Args, &pg.Node{Node: &pg.Node_CaseWhen{CaseWhen: &pg.CaseWhen{Expr: intConst(int32(i + 1)), Result: typeCast(s, typeName("text")), Location: noLoc}}})
	}
	return &pg.Node{Node: &pg.Node_CaseExpr{CaseExpr: c}}, nil
}

// field is FIELD(str, s1, ...): the position of the first si equal to
// str, 0 for none (str NULL too), compared as MariaDB's Item_func_field
// compares them: in their common type (strings by the collation,
// integers, decimals, else DOUBLEs, a string read as far as it is a
// number with 1292); str read once, each si up to the first equal (a
// simple CASE).
func (b *builder) field(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) < 2 {
		return nil, wrongArgCount(x.FnName.O)
	}
	args, err := b.exprs(x.Args)
	if err != nil {
		return nil, err
	}
	cmp := kindNull
	for i, a := range x.Args {
		k := kindString // NULL is compared as a string
		if !nullLiteral(a) {
			t, ok := exprType(a, b.scope())
			if !ok {
				return nil, unsupported("FIELD() of an expression whose type seqd does not tell")
			}
			if k = t.kind(); k == kindNull {
				k = kindString
			}
		}
		switch {
		case i == 0 || cmp == k:
			cmp = k
		case (cmp == kindInt || cmp == kindDecimal) && (k == kindInt || k == kindDecimal):
			cmp = kindDecimal
		default:
			cmp = kindReal
		}
	}
	for i, a := range x.Args {
		n := truthNumber(a, args[i])
		if cmp == kindReal {
			if b.stringValue(a) {
				n = funcCall("seqd_mariadb_number", []*pg.Node{n})
			}
			n = typeCast(n, typeName("float8"))
		}
		args[i] = n
	}
	c := &pg.CaseExpr{Arg: args[0], Defresult: intConst(0), Location: noLoc}
	for i, a := range args[1:] {
		c.Args = append(c.Args, &pg.Node{Node: &pg.Node_CaseWhen{CaseWhen: &pg.CaseWhen{Expr: a, Result: intConst(int32(i + 1)), Location: noLoc}}})
	}
	n := &pg.Node{Node: &pg.Node_CaseExpr{CaseExpr: c}}
	if cmp == kindString && !b.bytesCompared(x.Args...) {
		// By the collation where MariaDB's FIELD aggregates the
		// arguments' to it: information_schema's names with hexadecimal
		// literals too; by the bytes where a binary string wins.
		n = funcCall("seqd_mariadb_ci", []*pg.Node{n})
	}
	return n, nil
}

// maxAllowedPacket is @@max_allowed_packet, MariaDB's default: the
// longest string a function makes before it is NULL.
const maxAllowedPacket = 16 << 20

// repeat is REPEAT(str, count): str's text count times, NULL past
// max_allowed_packet with MariaDB's 1301 (eval's seqd_mariadb_repeat);
// a string count read as an integer as far as it is one, with 1292. A
// constant count MariaDB reads once more as it types the result, before
// the rows (typedOnce).
func (b *builder) repeat(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) != 2 {
		return nil, wrongArgCount("REPEAT")
	}
	s, err := b.shown(x.Args[0])
	if err != nil {
		return nil, err
	}
	n, err := b.expr(x.Args[1])
	if err != nil {
		return nil, err
	}
	_, param := x.Args[1].(*driver.ParamMarkerExpr)
	count := unparen(x.Args[1])
	_, subquery := count.(*ast.SubqueryExpr)
	if isString(x.Args[1]) || mayBeString(x.Args[1]) || param || subquery { // read as CAST AS SIGNED reads it, with its 1292
		n = funcCall("seqd_mariadb_signed", []*pg.Node{n})
	}
	if v, ok := count.(*driver.ValueExpr); ok && v.Type.GetFlag()&mysql.IsBooleanFlag != 0 || isTruth(count) {
		n = typeCast(n, typeName("int4")) // a truth counts as 1 or 0
	}
	if typedOnce(x.Args[1]) {
		n = funcCall("seqd_mariadb_typed", []*pg.Node{n})
	}
	return funcCall("seqd_mariadb_repeat", []*pg.Node{typeCast(s, typeName("text")), typeCast(n, typeName("int8")),
		numConst(strconv.Itoa(maxAllowedPacket))}), nil
}

// trim is TRIM([BOTH | LEADING | TRAILING] [remstr] FROM str): TiDB's
// arguments are str, remstr and the direction. Without remstr, spaces
// are taken off both ends; remstr is taken off as a string, as often as
// it is there (eval's seqd_mariadb_trim), not as PostgreSQL's set of
// characters.
func (b *builder) trim(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) == 0 || len(x.Args) > 3 {
		return nil, wrongArgCount(x.FnName.O)
	}
	args, err := b.stringArgs(x.Args[:min(len(x.Args), 2)])
	if err != nil {
		return nil, err
	}
	if len(x.Args) == 1 {
		return funcCall("btrim", args), nil
	}
	how := int32(0)
	if len(x.Args) == 3 {
		if d, ok := x.Args[2].(*ast.TrimDirectionExpr); ok {
			how = map[ast.TrimDirectionType]int32{ast.TrimLeading: 1, ast.TrimTrailing: 2}[d.Direction]
		}
	}
	return trimCall(typeCast(args[0], typeName("text")), args[1], how), nil
}

// valueText is a literal's text ("" for another expression).
func valueText(x ast.ExprNode) string {
	if v, ok := x.(ast.ValueExpr); ok {
		if s, ok := v.GetValue().(string); ok {
			return s
		}
	}
	return ""
}

// cast is CAST(x AS type), CONVERT(x, type) and BINARY x (a string that
// compares by its bytes: seqd's strings do, but for LIKE: like).
func (b *builder) cast(x *ast.FuncCastExpr) (*pg.Node, error) {
	switch x.Tp.GetType() {
	case mysql.TypeLonglong, mysql.TypeNewDecimal, mysql.TypeDouble, mysql.TypeFloat:
		if x.FunctionType != ast.CastBinaryOperator {
			b.readAsNumber(&x.Expr) // 0x41's number, x'41''s string
		}
	}
	v, err := b.expr(x.Expr)
	if err != nil || x.FunctionType == ast.CastBinaryOperator {
		return v, err
	}
	tp := x.Tp
	// MariaDB's conversions, with its warnings (eval's seqd_mariadb_*):
	// a string is read as far as it is a number (1292 for the rest), cut
	// to CHAR(n) (1292 too); SIGNED and UNSIGNED take a number past
	// their range to its complement (1105) or its bound (1916, 1292),
	// DECIMAL(p,s) to its bound (1264, naming the item's column, 1916
	// past 81 digits). A number written as one needs no reading.
	_, literal := numberLiteral(x.Expr)
	if doubleLiteral(x.Expr) {
		v = typeCast(v, typeName("float8")) // a DOUBLE, which converts as one
	}
	double := func() *pg.Node {
		if literal {
			return v
		}
		return funcCall("seqd_mariadb_double", []*pg.Node{v})
	}
	switch tp.GetType() {
	case mysql.TypeLonglong:
		if !mysql.HasUnsignedFlag(tp.GetFlag()) {
			switch lit, _ := x.Expr.(*driver.ValueExpr); {
			case lit != nil && lit.Kind() == driver.KindUint64:
				// BIGINT UNSIGNED: past 2^63 - 1 its complement, no warning.
				return typeCast(numConst(strconv.FormatInt(int64(lit.GetUint64()), 10)), typeName("int8")), nil
			case lit != nil && lit.Kind() == driver.KindInt64 && literal:
				return typeCast(v, typeName("int8")), nil
			}
			return funcCall("seqd_mariadb_signed", []*pg.Node{v}), nil
		}
		return funcCall("seqd_mariadb_unsigned", []*pg.Node{v}), nil
	case mysql.TypeVarString, mysql.TypeString:
		if tp.GetCharset() == "binary" {
			return nil, unsupported("CAST AS BINARY")
		}
		if b.doubleTyped(x.Expr) { // a DOUBLE's text as MariaDB writes one; a quotient's as it shows it (0.3333)
			v = doubleText(v)
		} else {
			v = shownValue(x.Expr, v)
		}
		if n := tp.GetFlen(); n >= 0 {
			n = min(n, 1<<20)
			cut := funcCall("seqd_mariadb_chars", []*pg.Node{typeCast(v, typeName("text")), intConst(int32(n))})
			if n == 0 { // no varchar(0): the empty string's text
				return typeCast(cut, typeName("text")), nil
			}
			return typeCast(cut, typeName("varchar", int32(n))), nil
		}
		return typeCast(v, typeName("text")), nil
	case mysql.TypeNewDecimal:
		p, s := tp.GetFlen(), tp.GetDecimal()
		if p <= 0 {
			p = 10 // MySQL's DECIMAL is DECIMAL(10, 0)
		}
		s = max(s, 0)
		column := "(null)" // MariaDB's name for a column it cannot name
		if b.item != nil && b.item.Expr == ast.ExprNode(x) {
			column = fieldName(b.item)
		}
		args := []*pg.Node{v, intConst(int32(p)), intConst(int32(s)), strConst(column)}
		return typeCast(funcCall("seqd_mariadb_decimal_cast", args), typeName("numeric", int32(p), int32(s))), nil
	case mysql.TypeDouble:
		return typeCast(double(), typeName("float8")), nil
	case mysql.TypeFloat:
		return typeCast(double(), typeName("float4")), nil
	}
	return nil, unsupported("CAST AS " + strings.ToUpper(types.TypeStr(tp.GetType())))
}

// bitAggregate is BIT_AND, BIT_OR or BIT_XOR (name) as MariaDB computes
// them (eval's seqd_mariadb_agg_bit_*): of each value as MariaDB's
// val_int reads it (an integer as its 64 bits, a BIGINT UNSIGNED's too;
// anything else read as an integer, eval's seqd_mariadb_int: a decimal
// rounded, held to BIGINT's range with 1916, a string's integer prefix
// with 1292).
func (b *builder) bitAggregate(x *ast.AggregateFuncExpr, name string) (*pg.Node, error) {
	if len(x.Args) != 1 || x.Distinct {
		return nil, unsupported(x.F + "() of other than one argument")
	}
	b.readAsNumber(&x.Args[0])
	arg := x.Args[0]
	n, err := b.expr(arg)
	if err != nil {
		return nil, err
	}
	if t, ok := exprType(arg, b.scope()); !ok || t.kind() != kindInt || truthValue(arg) {
		if doubleLiteral(arg) || ok && t.kind() == kindReal {
			n = typeCast(n, typeName("float8")) // a DOUBLE read as one, not the numeric a literal is kept as
		}
		n = funcCall("seqd_mariadb_int", []*pg.Node{truthNumber(arg, n)})
	}
	return funcCall("seqd_mariadb_agg_"+name, []*pg.Node{n}), nil
}

// numberAggregates are the aggregates (by the name they are built as)
// whose argument MariaDB reads as a number: a string as a DOUBLE as far
// as it is one (with 1292 for the rest), NULL as a DOUBLE's.
var numberAggregates = map[string]bool{"sum": true, "avg": true, "seqd_mariadb_stddev_pop": true, "seqd_mariadb_var_pop": true,
	"seqd_mariadb_stddev_samp": true, "seqd_mariadb_var_samp": true}

// aggregate is an aggregate's call: GROUP_CONCAT as string_agg, of its
// arguments' text (concat), its separator last in TiDB's arguments; the
// arguments of numberAggregates read as numbers.
func (b *builder) aggregate(x *ast.AggregateFuncExpr) (*pg.Node, error) {
	name := strings.ToLower(x.F)
	if name == "group_concat" {
		return b.groupConcat(x)
	}
	if strings.HasPrefix(name, "bit_") {
		return b.bitAggregate(x, name)
	}
	if to, ok := renamedFuncs[name]; ok {
		name = to
		if x.Distinct && strings.HasPrefix(to, "seqd_mariadb_") {
			return nil, unsupported(x.F + "(DISTINCT ...)") // MariaDB's grammar has none
		}
	} else if pgName, ok := funcName(x.F); ok {
		name = pgName
	} else {
		return nil, unsupported(x.F + "()")
	}
	if numberAggregates[name] {
		for i := range x.Args {
			b.readAsNumber(&x.Args[i])
		}
	}
	args, err := b.exprs(x.Args)
	if err != nil {
		return nil, err
	}
	for i, a := range x.Args {
		switch {
		case name == "count":
		case numberAggregates[name] && nullLiteral(a):
			args[i] = typeCast(args[i], typeName("float8")) // MariaDB's SUM(NULL): a DOUBLE's NULL
		case numberAggregates[name] && (!isValue(a) || isString(a) || truthValue(a)):
			args[i] = b.numberOperand(a, args[i]) // a string the builder types too (SUM(table_name)), a truth
		default:
			args[i] = truthNumber(a, args[i]) // MAX(x > 1): MariaDB's truths are integers
		}
	}
	n := funcCall(name, args)
	n.GetFuncCall().AggDistinct = x.Distinct
	if (name == "min" || name == "max") && len(x.Args) == 1 && b.stringsCollated(x.Args) ||
		name == "count" && x.Distinct && len(x.Args) == 1 && b.orderedString(x.Args[0], nil, nil, true) {
		n = funcCall("seqd_mariadb_ci", []*pg.Node{n}) // MariaDB orders and tells apart strings by the collation
	}
	return n, nil
}

func (b *builder) groupConcat(x *ast.AggregateFuncExpr) (*pg.Node, error) {
	if len(x.Args) < 2 {
		return nil, unsupported("this GROUP_CONCAT()")
	}
	v, err := b.concat(x.Args[:len(x.Args)-1])
	if err != nil {
		return nil, err
	}
	sep, err := b.expr(x.Args[len(x.Args)-1])
	if err != nil {
		return nil, err
	}
	n := funcCall("string_agg", []*pg.Node{v, sep})
	f := n.GetFuncCall()
	f.AggDistinct = x.Distinct
	if x.Order != nil {
		if f.AggOrder, err = b.orderBy(x.Order.Items, nil, nil, true); err != nil {
			return nil, err
		}
	}
	if x.Distinct && !slices.ContainsFunc(x.Args[:len(x.Args)-1], b.binaryString) { // its strings told apart by the collation
		n = funcCall("seqd_mariadb_ci", []*pg.Node{n})
	}
	return n, nil
}

// noSuchFunction is MariaDB's error for a call of a function that is
// not there (ER_SP_DOES_NOT_EXIST), named in schema (the current
// database for an unqualified name, none without one).
func noSuchFunction(schema, fn string) error {
	if schema != "" {
		fn = schema + "." + fn
	}
	return vmysql.NewSQLError(1305, "42000", "FUNCTION %s does not exist", fn)
}

// wrongArgCount is MariaDB's error for a call of fn with a wrong number
// of arguments (ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT).
func wrongArgCount(fn string) error {
	return vmysql.NewSQLError(1582, "42000", "Incorrect parameter count in the call to native function '%s'", fn)
}

// hex is HEX(x) as MariaDB's, of a literal, written out as the builder
// builds it: of a string (a hexadecimal or bit literal too), its bytes'
// digits; of a number, rounded half away from zero, its 64-bit two's
// complement's; NULL's NULL. Of anything else it is refused: the
// evaluator has no function that writes bytes as digits.
func (b *builder) hex(x *ast.FuncCallExpr) (*pg.Node, error) {
	if len(x.Args) != 1 {
		return nil, wrongArgCount(x.FnName.O)
	}
	a := unparen(x.Args[0])
	negated := false
	if u, ok := a.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Minus {
		if _, number := numberLiteral(u.V); number {
			a, negated = u.V, true
		}
	}
	if v, ok := a.(*driver.ValueExpr); ok {
		if digits, ok := hexDigits(v, negated); ok {
			return strConst(digits), nil
		}
		if v.Kind() == driver.KindNull {
			return typeCast(nullConst(), typeName("text")), nil
		}
	}
	return nil, unsupported("HEX() of what is not a literal")
}

// hexDigits are HEX(v)'s, or HEX(-v)'s where negated (v a number), for
// a literal v: ok is false for NULL, for a number past BIGINT's range
// (which MariaDB clamps) and for a truth.
func hexDigits(v *driver.ValueExpr, negated bool) (string, bool) {
	switch v.Kind() {
	case driver.KindString, driver.KindBytes, driver.KindBinaryLiteral, driver.KindMysqlBit:
		return strings.ToUpper(hex.EncodeToString(v.GetBytes())), !negated
	case driver.KindInt64:
		if v.Type.GetFlag()&mysql.IsBooleanFlag != 0 {
			return "", false
		}
		n := uint64(v.GetInt64())
		if negated {
			n = -n
		}
		return fmt.Sprintf("%X", n), true
	case driver.KindUint64:
		n := v.GetUint64()
		if negated {
			if n > 1<<63 {
				return "", false
			}
			n = -n
		}
		return fmt.Sprintf("%X", n), true
	}
	text := ""
	if negated {
		text = "-"
	}
	switch v.Kind() {
	case driver.KindMysqlDecimal:
		text += v.GetMysqlDecimal().String()
	case driver.KindFloat64, driver.KindFloat32:
		text += strconv.FormatFloat(v.GetFloat64(), 'g', -1, 64)
	default:
		return "", false
	}
	f, ok := new(big.Float).SetPrec(256).SetString(text)
	if !ok {
		return "", false
	}
	half := big.NewFloat(0.5)
	if f.Sign() < 0 {
		half.Neg(half)
	}
	n, _ := f.Add(f, half).Int(nil) // toward zero, after half away from it
	if !n.IsInt64() {
		return "", false
	}
	return fmt.Sprintf("%X", uint64(n.Int64())), true
}
