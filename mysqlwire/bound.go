package mysqlwire

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/pingcap/tidb/pkg/parser/ast"
	tmysql "github.com/pingcap/tidb/pkg/parser/mysql"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/sqlerr"
)

// A prepared statement's ? markers are typed when it is prepared, by
// where they stand (SETVAL(s, ?): bigint; beside a string: text);
// MariaDB types a parameter by the value bound at each execution
// (`? = '7z'` bound to 7 compares numbers, 1 with a 1292). Where the two
// differ, the statement is built again at the execution with the values
// bound written in place of its markers, as if sent as text (whose
// answers the oracle corpus checks against MariaDB, text and prepared):
//
//  1. a marker prepared as a string (text) and bound to a number, or
//     prepared as a number and bound to a string, or prepared as an
//     integer and bound to a number that is not one (a DOUBLE, a
//     DECIMAL, an unsigned past BIGINT's range) (misread);
//  2. a statement that could not be typed when prepared (FIELD(?, ...)):
//     it is prepared with its markers read as empty strings, for its
//     columns, and built again at every execution (prepared.bound).
//
//  3. a statement whose result columns MariaDB types by the values bound
//     (`SELECT ?, ? + 1`, `IFNULL(cache_size, ?)`): built again at every
//     execution, so that each execution's columns are typed as MariaDB
//     types them (columnsFollowValues).
//
// A marker bound to a value of the kind it was prepared for, or to NULL,
// a date or a time, runs the plan prepared where its columns do not
// depend on it: SETVAL(s, ?) bound to an integer costs no build, nor
// does a statement with no result columns or whose markers stand only
// in its conditions.

// Kinds of a bound value, by the MySQL type the client sent with it.
const (
	boundOther  = iota // NULL, a date, a time, a bit value, JSON
	boundNumber        // an integer, a DECIMAL, a FLOAT or a DOUBLE
	boundString        // a string, a BLOB, an ENUM or a SET
)

// boundKind is the kind of a value the client bound as t.
func boundKind(t querypb.Type) int {
	switch t {
	case sqltypes.Int8, sqltypes.Uint8, sqltypes.Int16, sqltypes.Uint16, sqltypes.Int24, sqltypes.Uint24,
		sqltypes.Int32, sqltypes.Uint32, sqltypes.Int64, sqltypes.Uint64, sqltypes.Year,
		sqltypes.Float32, sqltypes.Float64, sqltypes.Decimal:
		return boundNumber
	case sqltypes.Text, sqltypes.Blob, sqltypes.VarChar, sqltypes.Char, sqltypes.VarBinary, sqltypes.Binary,
		sqltypes.Enum, sqltypes.Set:
		return boundString
	}
	return boundOther
}

// executionModes are the sql_mode's modes MariaDB reads as it executes a
// prepared statement, not as it prepared it: a statement prepared before
// SET sql_mode = 'ONLY_FULL_GROUP_BY' is refused by it when executed
// after.
const executionModes = tmysql.ModeOnlyFullGroupBy | tmysql.ModeNoUnsignedSubtraction

// modesMoved reports whether the connection's executionModes are no
// longer those ps was prepared under: it is built again.
func (ps *prepared) modesMoved(cn *conn) bool { return (cn.reading^ps.reading)&executionModes != 0 }

// misread reports whether one of ps's parameters, bound as pd binds
// them, was prepared as another kind than the value bound (rule 1).
func (ps *prepared) misread(pd *mysql.PrepareData) bool {
	for i, t := range ps.params {
		if i >= len(pd.ParamsType) || t == nil {
			return false
		}
		bt := querypb.Type(pd.ParamsType[i])
		switch k := boundKind(bt); {
		case k == boundNumber && t.Category() == 'S', k == boundString && t.Category() == 'N',
			k == boundNumber && notInteger(bt, pd.BindVars["v"+strconv.Itoa(i+1)]) && integerType(t):
			if bv := pd.BindVars["v"+strconv.Itoa(i+1)]; bv != nil && bv.Type != querypb.Type_NULL_TYPE {
				return true
			}
		}
	}
	return false
}

// notInteger reports whether a number bound as t is not a BIGINT's:
// a FLOAT, a DOUBLE or a DECIMAL (WHERE increment = ? bound to 1.5,
// which MariaDB compares as a number with a fraction, and PostgreSQL's
// side refused with 1105 'invalid input syntax for type bigint'), or
// an unsigned integer past BIGINT's range.
// A value of these types that is a BIGINT's (2000 bound as a DOUBLE, as
// Node's mysql2 binds every number) is read as the prepared plan reads
// it: SETVAL(s, ?) takes it.
func notInteger(t querypb.Type, bv *querypb.BindVariable) bool {
	switch t {
	case sqltypes.Float32, sqltypes.Float64, sqltypes.Decimal, sqltypes.Uint64:
		if bv != nil {
			_, err := strconv.ParseInt(string(bv.Value), 10, 64)
			return err != nil
		}
	}
	return false
}

// integerType reports whether a marker was prepared as an integer.
func integerType(t *eval.Type) bool {
	switch t.OID() {
	case eval.OIDInt2, eval.OIDInt4, eval.OIDInt8:
		return true
	}
	return false
}

// executeBound runs ps built again with the values pd binds in place of
// its markers.
func (cn *conn) executeBound(ctx context.Context, ps *prepared, pd *mysql.PrepareData) (*sqltypes.Result, error) {
	release, err := cn.parseRoom(ctx, ps.query)
	if err != nil {
		return nil, err
	}
	defer release()
	vals := make([]ast.ExprNode, len(ps.params))
	for i := range vals {
		bv := pd.BindVars["v"+strconv.Itoa(i+1)]
		if bv == nil {
			return nil, sqlerr.Errorf(sqlerr.ProtocolViolation, "parameter %d was not sent", i+1)
		}
		t := querypb.Type_NULL_TYPE
		if i < len(pd.ParamsType) {
			t = querypb.Type(pd.ParamsType[i])
		}
		v, err := boundValue(bv, t)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	steps, err := cn.readAs(ps.reading, func(env stmtEnv) ([]step, error) {
		return translateBound(cn.parser, ps.query, env, func(i int) ast.ExprNode {
			if i < len(vals) {
				return vals[i]
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if len(steps) != 1 {
		return nil, unsupported("preparing several statements at once")
	}
	return cn.run(ctx, &steps[0])
}

// readAs is read with the connection's parser reading as mode does (a
// prepared statement's sql_mode) and env's string literals as mode
// reads them; the connection reads as it did again before the statement
// runs, which may set sql_mode itself. The modes MariaDB reads as it
// executes (executionModes) are the connection's now, as cn.env has
// them.
func (cn *conn) readAs(mode tmysql.SQLMode, read func(env stmtEnv) ([]step, error)) ([]step, error) {
	env := cn.env()
	env.noBackslash = mode&tmysql.ModeNoBackslashEscapes != 0
	if now := cn.reading; now != mode {
		cn.readWith(mode)
		defer cn.readWith(now)
	}
	return read(env)
}

// columnsFollowValues reports whether the result columns of query,
// prepared as fields, would be typed otherwise by values bound to its
// markers (rule 3): built with its markers bound to an integer, a
// string, and a longer string, some column's type, length, decimals or
// flags differ from fields. A value that cannot be bound where a marker
// stands (a string as LIMIT's count) tells nothing: an execution binding
// a value of its kind is built again anyway (rule 1).
func (cn *conn) columnsFollowValues(query string, fields []*querypb.Field) bool {
	probes := []func() ast.ExprNode{
		func() ast.ExprNode { return ast.NewValueExpr(int64(1), "", "") },
		func() ast.ExprNode { return ast.NewValueExpr("", "utf8mb4", "utf8mb4_bin") },
		func() ast.ExprNode { return ast.NewValueExpr("0123456789", "utf8mb4", "utf8mb4_bin") },
	}
	for _, probe := range probes {
		_, got, _, err := cn.prepareBound(query, func(int) ast.ExprNode {
			v := probe()
			v.(*driver.ValueExpr).Type.AddFlag(boundFlag)
			return v
		})
		if err != nil {
			continue
		}
		if !slices.EqualFunc(got, fields, sameColumn) {
			return true
		}
	}
	return false
}

// sameColumn reports whether two result columns are described alike.
func sameColumn(a, b *querypb.Field) bool {
	return a.Name == b.Name && a.Type == b.Type && a.ColumnLength == b.ColumnLength && a.Charset == b.Charset &&
		a.Decimals == b.Decimals && a.Flags == b.Flags
}

// boundValue is the literal the value bv, bound as t, is read as,
// marked boundFlag.
func boundValue(bv *querypb.BindVariable, t querypb.Type) (ast.ExprNode, error) {
	v, err := boundLiteral(bv, t)
	if err != nil {
		return nil, err
	}
	if x, ok := v.(*driver.ValueExpr); ok {
		x.Type.AddFlag(boundFlag)
	}
	return v, nil
}

// boundLiteral is boundValue's literal, unmarked.
func boundLiteral(bv *querypb.BindVariable, t querypb.Type) (v ast.ExprNode, err error) {
	if bv.Type == querypb.Type_NULL_TYPE {
		return ast.NewValueExpr(nil, "", ""), nil
	}
	s := string(bv.Value)
	bad := func() error { return sqlerr.Errorf(sqlerr.ProtocolViolation, "parameter of type %v holds %q", t, s) }
	switch t {
	case sqltypes.Int8, sqltypes.Int16, sqltypes.Int24, sqltypes.Int32, sqltypes.Int64, sqltypes.Year:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, bad()
		}
		return ast.NewValueExpr(n, "", ""), nil
	case sqltypes.Uint8, sqltypes.Uint16, sqltypes.Uint24, sqltypes.Uint32, sqltypes.Uint64:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, bad()
		}
		return ast.NewValueExpr(n, "", ""), nil
	case sqltypes.Float32, sqltypes.Float64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, bad()
		}
		return ast.NewValueExpr(f, "", ""), nil
	case sqltypes.Decimal:
		defer func() { // the parser's decimal panics past the digits it implements (parseSQL)
			if r := recover(); r != nil {
				v, err = nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd cannot read the DECIMAL parameter %q: %v", s, r)
			}
		}()
		d := new(driver.MyDecimal)
		if err := d.FromString([]byte(s)); err != nil {
			return nil, bad()
		}
		return ast.NewValueExpr(d, "", ""), nil
	}
	return ast.NewValueExpr(s, "utf8mb4", "utf8mb4_bin"), nil
}

// boundFlag marks a literal that stands for a parameter's value bound
// (boundValue), bareFlag one that is an item of the select list by
// itself: bits TiDB's column flags leave free.
const (
	boundFlag uint = 1 << 30
	bareFlag  uint = 1 << 29
)

// boundType is the type of the value bound of x, written as t, as
// MariaDB types a parameter: an integer a BIGINT, a string a CHAR;
// nullable within an expression (MariaDB types the expression when the
// statement is prepared, its parameters nullable), NOT NULL as an item
// by itself.
func boundType(x *driver.ValueExpr, t colType) colType {
	switch x.Kind() {
	case driver.KindInt64, driver.KindUint64:
		t = intType(20, x.Kind() == driver.KindUint64, false)
	case driver.KindString:
		t.typ = querypb.Type_CHAR
	}
	t.notNull = x.Type.GetFlag()&bareFlag != 0
	return t
}

// boundNotNull reports whether x is a parameter's value bound, not NULL.
func boundNotNull(x ast.ExprNode) bool {
	v, ok := x.(*driver.ValueExpr)
	return ok && v.Type.GetFlag()&boundFlag != 0 && v.Kind() != driver.KindNull
}

// bindMarkers replaces each ? marker of stmts, counted from 0 in the
// order written, by bind's value for it (where not nil), and returns how
// many markers there are.
func bindMarkers(stmts []ast.StmtNode, bind func(i int) ast.ExprNode) int {
	n := 0
	for _, st := range stmts {
		var found markerFinder
		st.Accept(&found)
		slices.SortFunc(found.markers, func(x, y *driver.ParamMarkerExpr) int { return x.Offset - y.Offset })
		at := make(map[*driver.ParamMarkerExpr]int, len(found.markers))
		for i, m := range found.markers {
			at[m] = n + i
		}
		st.Accept(&markerBinder{at: at, bind: bind})
		n += len(found.markers)
	}
	return n
}

// errBuiltWithValues refuses to build a ? marker whose operation MariaDB
// computes by the kind of the value bound (DIV and ABS: of integers
// exactly, BIGINT UNSIGNED where one is; of others through DECIMALs),
// which a plan prepared before the values are bound cannot: the
// statement is prepared by rule 2, built again at every execution with
// the values bound. It is never a client's error (prepare answers the
// one of rule 2's build where that fails too).
var errBuiltWithValues = errors.New("seqd: an operation typed by the values bound to its ? markers")

// holdsMarker reports whether x holds a ? marker not bound.
func holdsMarker(x ast.Node) bool {
	var found markerFinder
	x.Accept(&found)
	return len(found.markers) > 0
}

// markerFinder collects the ? markers of a tree.
type markerFinder struct{ markers []*driver.ParamMarkerExpr }

func (f *markerFinder) Enter(n ast.Node) (ast.Node, bool) {
	if m, ok := n.(*driver.ParamMarkerExpr); ok {
		f.markers = append(f.markers, m)
		return n, true
	}
	return n, false
}

func (f *markerFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// markerBinder replaces the markers at numbers with bind's values.
type markerBinder struct {
	at   map[*driver.ParamMarkerExpr]int
	bind func(i int) ast.ExprNode
	bare *driver.ParamMarkerExpr // the select list's item by itself, entered last
}

func (b *markerBinder) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.SelectField); ok && f.AsName.O == "" {
		if m, marker := f.Expr.(*driver.ParamMarkerExpr); marker {
			f.AsName = ast.NewCIStr(f.Text()) // named ?, as MariaDB names it, not by its value
			b.bare = m
		}
	}
	_, marker := n.(*driver.ParamMarkerExpr)
	return n, marker
}

func (b *markerBinder) Leave(n ast.Node) (ast.Node, bool) {
	if m, ok := n.(*driver.ParamMarkerExpr); ok {
		if i, ok := b.at[m]; ok {
			if v := b.bind(i); v != nil {
				if x, ok := v.(*driver.ValueExpr); ok && m == b.bare {
					x.Type.AddFlag(bareFlag)
				}
				return v, true
			}
		}
	}
	return n, true
}
