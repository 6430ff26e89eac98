package mysqlwire

import (
	"context"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/seqd/seqd/sqlerr"
)

// User variables (@name), a connection's own, as MariaDB keeps them:
//
//  1. SET @v = expr computes expr once, as SELECT expr would (SET @n =
//     NEXT VALUE FOR s takes one value), and keeps its value with the
//     kind of its result: an integer (signed or not), a DECIMAL, a
//     DOUBLE, a string (binary or not) or NULL. The values of one SET
//     are all computed before any is set, as MariaDB computes them (SET
//     @a = 1, @b = @a reads @a as it was before the statement).
//  2. A statement that reads @v is built with each @v written in as a
//     literal of its value and kind (userVarReader), marked userVarFlag
//     so that its type is MariaDB's for a user variable; it is built
//     again each time it runs (step.reads), so that it reads the values
//     as they are then: a kept translation, the later statements of a
//     multi-statement query, and a prepared statement's executions. A
//     variable never set is NULL.
//  3. Names are compared without regard to case (@V is @v).
//  4. The values' bytes (names and values) are bounded per connection by
//     Config.MaxUserVariableMemory: a SET that would hold more fails
//     with 1041 and sets none of its variables (fitUserVars).
//  5. COM_RESET_CONNECTION forgets them all.
//  6. A variable set to NULL keeps its kind; one set to NULL first takes
//     the kind of the expression (NULL written as one: a binary
//     string's), as MariaDB keeps it.

// DefaultMaxUserVariableMemory is Config.MaxUserVariableMemory's
// default: a connection's user variables hold at most 16 MiB, as its
// prepared statements do.
const DefaultMaxUserVariableMemory = 16 << 20

// userValue is a user variable's value: its text (a number's digits)
// and its kind.
type userValue struct {
	kind   userKind
	null   bool
	text   string
	binary bool // a string of bytes, not characters
}

type userKind uint8

// A NULL is a binary string's, where nothing gave it a type (SET @v =
// NULL; a variable never set), as MariaDB types it.
const (
	userString userKind = iota
	userInt
	userUint
	userDecimal
	userReal
)

// userVarFlag marks a literal that stands for a user variable's value
// (userVarReader): a bit TiDB's column flags leave free (as boundFlag).
const userVarFlag uint = 1 << 28

// size is what v holds under name, as Config.MaxUserVariableMemory
// counts it.
func (v userValue) size(name string) int64 { return int64(len(name)+len(v.text)) + 16 }

// literal is v written as a literal, marked userVarFlag, its type
// (TiDB's, which literalType reads) the kind's where it is NULL too.
func (v userValue) literal() ast.ExprNode {
	var x ast.ExprNode
	switch {
	case v.null:
	case v.kind == userInt:
		n, _ := strconv.ParseInt(v.text, 10, 64)
		x = ast.NewValueExpr(n, "", "")
	case v.kind == userUint:
		n, _ := strconv.ParseUint(v.text, 10, 64)
		x = ast.NewValueExpr(n, "", "")
	case v.kind == userDecimal:
		d := new(driver.MyDecimal)
		if err := d.FromString([]byte(v.text)); err == nil {
			x = ast.NewValueExpr(d, "", "")
		}
	case v.kind == userReal:
		if f, err := strconv.ParseFloat(v.text, 64); err == nil {
			x = ast.NewValueExpr(f, "", "")
		}
	case v.binary:
		x = ast.NewValueExpr(v.text, "binary", "binary")
	default:
		x = ast.NewValueExpr(v.text, "utf8mb4", "utf8mb4_general_ci")
	}
	if x == nil {
		x = ast.NewValueExpr(nil, "", "")
	}
	t := &x.(*driver.ValueExpr).Type
	t.AddFlag(userVarFlag)
	switch v.kind {
	case userInt:
		t.SetType(mysql.TypeLonglong)
	case userUint:
		t.SetType(mysql.TypeLonglong)
		t.AddFlag(mysql.UnsignedFlag)
	case userDecimal:
		t.SetType(mysql.TypeNewDecimal)
	case userReal:
		t.SetType(mysql.TypeDouble)
	default:
		t.SetType(mysql.TypeLongBlob)
		if v.binary {
			t.SetCharset("binary")
		}
	}
	return x
}

// userVarType is the type MariaDB gives a user variable read, x its
// literal: a BIGINT, a DECIMAL of 38 decimals, a DOUBLE, a LONGBLOB
// (binary, or in the connection's character set), nullable.
func userVarType(x *driver.ValueExpr) colType {
	switch x.Type.GetType() {
	case mysql.TypeLonglong:
		return intType(21, x.Type.GetFlag()&mysql.UnsignedFlag != 0, false)
	case mysql.TypeNewDecimal: // shown as set where it stands by itself (SELECT @c: 1.50)
		t := decimalType(decimalMaxPrec, decimalMaxScale, false, false)
		t.asWritten = x.Type.GetFlag()&bareFlag != 0
		return t
	case mysql.TypeDouble:
		return doubleType(notFixedDec, false)
	}
	return stringType(1<<32-1, x.Type.GetCharset() == "binary", false)
}

// resultValue is the value of res's first column in its first row, of
// the kind its type says (NULL too: SET @v = UPPER(NULL) is a string's).
func resultValue(res *sqltypes.Result) userValue {
	if res == nil || len(res.Fields) == 0 {
		return userValue{null: true}
	}
	f := res.Fields[0]
	var v userValue
	switch {
	case f.Type == querypb.Type_NULL_TYPE:
	case sqltypes.IsUnsigned(f.Type) || sqltypes.IsSigned(f.Type) && f.Flags&uint32(querypb.MySqlFlag_UNSIGNED_FLAG) != 0:
		v.kind = userUint
	case sqltypes.IsSigned(f.Type):
		v.kind = userInt
	case f.Type == querypb.Type_DECIMAL:
		v.kind = userDecimal
	case sqltypes.IsFloat(f.Type):
		v.kind = userReal
	default:
		v.binary = f.Charset == 63
	}
	if len(res.Rows) == 0 || len(res.Rows[0]) == 0 || res.Rows[0][0].IsNull() {
		// keepUserVar keeps the kind of a variable already set.
		v.null, v.binary = true, v.binary || f.Type == querypb.Type_NULL_TYPE
		return v
	}
	v.text = res.Rows[0][0].ToString()
	return v
}

// userVarReader writes each user variable a statement reads as a
// literal of its value (rule 2); reads reports whether it read one.
type userVarReader struct {
	vars  map[string]userValue
	reads bool
	bare  *ast.VariableExpr // the select list's item by itself, entered last
}

func (r *userVarReader) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.SelectField); ok && f.AsName.O == "" {
		if v, ok := f.Expr.(*ast.VariableExpr); ok && !v.IsSystem && v.Value == nil {
			f.AsName = ast.NewCIStr(f.Text()) // named @v, as MariaDB names it, not by its value
			r.bare = v
		}
	}
	return n, false
}

func (r *userVarReader) Leave(n ast.Node) (ast.Node, bool) {
	if v, ok := n.(*ast.VariableExpr); ok && !v.IsSystem && v.Value == nil {
		r.reads = true
		val, set := r.vars[strings.ToLower(v.Name)]
		if !set {
			val = userValue{null: true, binary: true}
		}
		x := val.literal()
		x.SetText(nil, "@"+quoteName(v.Name)) // as MariaDB prints it (mariadbPrint)
		if v == r.bare {
			x.(*driver.ValueExpr).Type.AddFlag(bareFlag)
		}
		return x, true
	}
	return n, true
}

// readsUserVars writes the user variables st reads as literals of vars'
// values; it reports whether st reads one. A SET's values are read as
// it is carried out (setUserVar), not here.
func readsUserVars(st ast.StmtNode, vars map[string]userValue) bool {
	if _, ok := st.(*ast.SetStmt); ok {
		return false
	}
	r := &userVarReader{vars: vars}
	st.Accept(r)
	return r.reads
}

// userVarValues are the values SET n gives the user variables it sets,
// by the position of each assignment, computed before any is made, as
// MariaDB computes them (SET @a = 1, @b = @a reads @a as it was before
// the statement): each as SELECT x would compute it (rule 1), x taken
// from n's text parsed again (the tree kept with n is only read), with
// the user variables it reads written in.
func (cn *conn) userVarValues(n *ast.SetStmt) (map[int]userValue, error) {
	var vals map[int]userValue
	var fresh *ast.SetStmt
	for i, v := range n.Variables {
		if v.IsSystem || strings.EqualFold(v.Name, ast.SetNames) || strings.EqualFold(v.Name, ast.SetCharset) {
			continue
		}
		if fresh == nil && boundValues(n) {
			fresh = n // built for this execution with the values bound (bound.go): its own tree
		}
		if fresh == nil {
			stmts, err := parseSQL(cn.parser, n.Text())
			if err != nil {
				return nil, err
			}
			if len(stmts) != 1 {
				return nil, unsupported("this SET")
			}
			if fresh, _ = stmts[0].(*ast.SetStmt); fresh == nil || len(fresh.Variables) != len(n.Variables) {
				return nil, unsupported("this SET")
			}
		}
		val, err := cn.userVarValue(fresh.Variables[i].Value, n.Text())
		if err != nil {
			return nil, err
		}
		if vals == nil {
			vals = map[int]userValue{}
		}
		vals[i] = val
	}
	return vals, nil
}

// userVarValue is the value x, of the SET statement text, gives a user
// variable.
func (cn *conn) userVarValue(x ast.ExprNode, text string) (userValue, error) {
	switch x := x.(type) {
	case *ast.VariableExpr:
		if x.IsSystem { // mariadb-dump's SET @OLD_TIME_ZONE=@@TIME_ZONE
			s, ok := cn.variable(x.Name)
			if !ok {
				return userValue{}, sqlerr.Errorf(sqlerr.UndefinedObject, "Unknown system variable '%s'", x.Name)
			}
			if variableType(x.Name, s).typ == querypb.Type_VARCHAR {
				return userValue{kind: userString, text: s}, nil
			}
			return userValue{kind: userInt, text: s}, nil
		}
	case *ast.DefaultExpr:
		return userValue{}, unsupported("DEFAULT as a user variable's value")
	}
	if n, _ := x.Accept(&userVarReader{vars: cn.userVars}); n != nil {
		x = n.(ast.ExprNode)
	}
	v, _, err := cn.selectedValue(x, text, true)
	return v, err
}

// selectedValue is the value of x, of the statement text, its user
// variables written in, computed as SELECT x computes it, and the
// column that SELECT gives it; held: a quotient with all the digits
// MariaDB holds of it, as a user variable keeps it.
func (cn *conn) selectedValue(x ast.ExprNode, text string, held bool) (userValue, *querypb.Field, error) {
	sel := &ast.SelectStmt{SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true}, Kind: ast.SelectStmtKindSelect,
		Fields: &ast.FieldList{Fields: []*ast.SelectField{{Expr: x}}}}
	sel.SetText(nil, text) // the builder reads how its hexadecimal literals are written (hexForms)
	env := cn.env()
	env.held = held
	s, err := builtQuery(sel, &env)
	if err != nil {
		return userValue{}, nil, err
	}
	s.stmt, s.node, s.text = statement(s.node, text), nil, text
	res, err := cn.run(context.Background(), &s)
	if err != nil {
		return userValue{}, nil, err
	}
	var field *querypb.Field
	if len(res.Fields) > 0 {
		f := res.Fields[0]
		field = &querypb.Field{Name: f.Name, Type: f.Type, ColumnLength: f.ColumnLength, Charset: f.Charset, Decimals: f.Decimals, Flags: f.Flags}
	}
	return resultValue(res), field, nil
}

// fitUserVars checks that the user variables SET n sets to vals (by
// the position of each assignment) fit, with the others, in
// Config.MaxUserVariableMemory (rule 4).
func (cn *conn) fitUserVars(n *ast.SetStmt, vals map[int]userValue) error {
	max := cn.srv.cfg.MaxUserVariableMemory
	if max <= 0 || len(vals) == 0 {
		return nil
	}
	sizes := map[string]int64{}
	for i, v := range n.Variables {
		if val, ok := vals[i]; ok {
			name := strings.ToLower(v.Name)
			sizes[name] = val.size(name)
		}
	}
	held := cn.userVarBytes
	for name, size := range sizes {
		if old, had := cn.userVars[name]; had {
			held -= old.size(name)
		}
		held += size
	}
	if held > max {
		return tooManyUserVarBytes(max)
	}
	return nil
}

// tooManyUserVarBytes is the error for user variables past max bytes.
func tooManyUserVarBytes(max int64) error {
	return sqlerr.Errorf(sqlerr.OutOfMemory, "this connection's user variables would hold more than %d bytes; set some to NULL or reset the connection first", max)
}

// keepUserVar sets the user variable name (lower case) to v, within
// Config.MaxUserVariableMemory (rule 4).
func (cn *conn) keepUserVar(name string, v userValue) error {
	old, had := cn.userVars[name]
	if v.null && had { // MariaDB keeps the kind a variable has where it is set to NULL
		v.kind, v.binary = old.kind, old.binary
	}
	held := cn.userVarBytes + v.size(name)
	if had {
		held -= old.size(name)
	}
	if max := cn.srv.cfg.MaxUserVariableMemory; max > 0 && held > max {
		return tooManyUserVarBytes(max)
	}
	if cn.userVars == nil {
		cn.userVars = map[string]userValue{}
	}
	cn.userVars[name], cn.userVarBytes = v, held
	return nil
}

// setUsesTable reports whether SET n gives a user variable a value that
// uses a table (a sequence's function, a FROM clause), so that MariaDB
// clears the diagnostics before it, as before a SELECT of it.
func setUsesTable(n *ast.SetStmt) bool {
	for _, v := range n.Variables {
		if v.IsSystem || v.Value == nil {
			continue
		}
		var f sequenceCallFinder
		v.Value.Accept(&f)
		if f.found || readsTable(v.Value) {
			return true
		}
	}
	return false
}

// sequenceCallFinder finds a call of a sequence's function.
type sequenceCallFinder struct{ found bool }

func (f *sequenceCallFinder) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.FuncCallExpr); ok {
		switch name := c.FnName.L; {
		case name == ast.NextVal, name == ast.LastVal, name == ast.SetVal, strings.HasPrefix(name, renamedPrefix):
			f.found = true
		}
	}
	return n, f.found
}

func (f *sequenceCallFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// assignsUserVar reports whether st assigns a user variable within an
// expression (SELECT @v := expr).
func assignsUserVar(st ast.StmtNode) bool {
	var f assignmentFinder
	st.Accept(&f)
	return f.found
}

// assignmentFinder finds @v := expr within an expression.
type assignmentFinder struct{ found bool }

func (f *assignmentFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.SetStmt); ok {
		return n, true // SET's assignments are SET's
	}
	if v, ok := n.(*ast.VariableExpr); ok && !v.IsSystem && v.Value != nil {
		f.found = true
	}
	return n, f.found
}

func (f *assignmentFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// assigningStep is the step of a SELECT, of text, that assigns user
// variables within its select list (SELECT @v := expr, @v + 1): answered
// when it runs (selectAssigning); typed renames its columns' names as
// written (rename). Only a SELECT without FROM is built, whose one row
// computes each assignment once.
func assigningStep(st ast.StmtNode, text string, typed map[string]string) (step, error) {
	sel, ok := st.(*ast.SelectStmt)
	if !ok || sel.From != nil || sel.Fields == nil || sel.Where != nil || sel.GroupBy != nil || sel.Having != nil {
		return step{}, unsupported("assigning a user variable in this statement (only in the select list of a SELECT without FROM)")
	}
	var f sequenceCallFinder
	st.Accept(&f)
	return step{answer: func(c *conn) (*answer, error) { return c.selectAssigning(text, typed) }, acts: true,
		clears: f.found || readsTable(st)}, nil
}

// selectAssigning runs the SELECT text, which assigns user variables in
// its select list, as MariaDB does, which types the statement before it
// runs it: item by item, in the order written, each assignment computed
// once as SET computes it and set, then written in as a literal of its
// value, its column typed as the expression assigned (selected alone);
// a variable read is written in as it is then, typed as it was before
// the statement (one the statement sets that was not set before: a
// string in the connection's character set), as MariaDB types it.
func (cn *conn) selectAssigning(text string, typed map[string]string) (*answer, error) {
	stmts, err := parseSQL(cn.parser, text)
	if err != nil {
		return nil, err
	}
	sel, ok := stmts[0].(*ast.SelectStmt)
	if len(stmts) != 1 || !ok {
		return nil, unsupported("assigning a user variable in this statement")
	}
	before := make(map[string]userValue, len(cn.userVars))
	for name, v := range cn.userVars {
		before[name] = v
	}
	fields := map[int]*querypb.Field{}
	for i, f := range sel.Fields.Fields {
		if f.Expr == nil {
			return nil, unsupported("assigning a user variable beside a *")
		}
		if f.AsName.O == "" {
			f.AsName = ast.NewCIStr(asTyped(f.Text(), typed)) // named as written, not by the values written in
		}
		a := &userVarAssigner{cn: cn, text: text, before: before}
		n, _ := f.Expr.Accept(a)
		if a.err != nil {
			return nil, a.err
		}
		if v, ok := f.Expr.(*ast.VariableExpr); ok && v.Value != nil && a.field != nil {
			fields[i] = a.field
		}
		f.Expr = n.(ast.ExprNode)
	}
	sel.SetText(nil, text)
	env := cn.env()
	s, err := builtQuery(sel, &env)
	if err != nil {
		return nil, err
	}
	s.stmt, s.node, s.text = statement(s.node, text), nil, text
	res, err := cn.run(context.Background(), &s)
	if err != nil {
		return nil, err
	}
	for i, f := range fields {
		if i < len(res.Fields) {
			f.Name = res.Fields[i].Name
			res.Fields[i] = f
			for _, row := range res.Rows {
				if i < len(row) && !row[i].IsNull() {
					row[i] = sqltypes.MakeTrusted(f.Type, row[i].Raw())
				}
			}
		}
	}
	return &answer{typed: res}, nil
}

// userVarAssigner writes an item's user variables in: an assignment
// computed and set (its value's literal; field its column as the
// expression assigned gives it), a variable read as it is then, typed
// as it was before the statement.
type userVarAssigner struct {
	cn     *conn
	text   string
	before map[string]userValue
	field  *querypb.Field
	err    error
}

func (a *userVarAssigner) Enter(n ast.Node) (ast.Node, bool) { return n, a.err != nil }

func (a *userVarAssigner) Leave(n ast.Node) (ast.Node, bool) {
	v, ok := n.(*ast.VariableExpr)
	if !ok || v.IsSystem || a.err != nil {
		return n, true
	}
	name := strings.ToLower(v.Name)
	if v.Value == nil {
		return a.read(name).literal(), true
	}
	x, _ := v.Value.Accept(a) // the variables it reads, as they are now
	if a.err != nil {
		return n, false
	}
	val, field, err := a.cn.selectedValue(x.(ast.ExprNode), a.text, true)
	if err == nil {
		err = a.cn.keepUserVar(name, val)
	}
	if err != nil {
		a.err = err
		return n, false
	}
	a.field = field
	lit := val.literal().(*driver.ValueExpr)
	lit.Type.SetFlag(lit.Type.GetFlag() &^ userVarFlag) // a value, not a variable
	return lit, true
}

// read is the variable name as the statement reads it: its value now,
// of its kind before the statement.
func (a *userVarAssigner) read(name string) userValue {
	val, set := a.cn.userVars[name]
	if !set {
		return userValue{null: true, binary: true}
	}
	pre, had := a.before[name]
	if !had {
		pre = userValue{kind: userString}
	}
	if pre.kind == val.kind && pre.binary == val.binary {
		return val
	}
	out := userValue{kind: pre.kind, binary: pre.binary, null: val.null, text: val.text}
	switch pre.kind {
	case userInt, userUint, userDecimal, userReal:
		if _, err := strconv.ParseFloat(val.text, 64); err != nil && !val.null {
			out.text = "0"
		} else if f, _ := strconv.ParseFloat(val.text, 64); (pre.kind == userInt || pre.kind == userUint) && !val.null {
			out.text = strconv.FormatInt(int64(f), 10)
		}
	}
	return out
}

// boundValues reports whether n holds a prepared statement's values
// bound in place of its markers (bindMarkers), which its text does not.
func boundValues(n ast.Node) bool {
	var f boundFinder
	n.Accept(&f)
	return f.found
}

// boundFinder finds a value bound in place of a marker.
type boundFinder struct{ found bool }

func (f *boundFinder) Enter(n ast.Node) (ast.Node, bool) {
	if v, ok := n.(*driver.ValueExpr); ok && v.Type.GetFlag()&boundFlag != 0 {
		f.found = true
	}
	return n, f.found
}

func (f *boundFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
