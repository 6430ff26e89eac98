// Operators: comparisons, LIKE and regular expressions, arithmetic with
// PostgreSQL's overflow errors, and prefix operators.

package eval

import (
	"errors"
	"math"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// mariadbOps qualifies the MySQL front end's * and / (OPERATOR(
// seqd_mariadb.*)): as PostgreSQL's, but a DOUBLE's product or quotient
// too small to hold is 0, as MariaDB computes it, not PostgreSQL's
// underflow error.
const mariadbOps = "seqd_mariadb"

// aExpr compiles operators.
func (c *Compiler) aExpr(sc *Scope, a *pg.A_Expr) (Expr, error) {
	names := NodeStrings(a.Name)
	op := ""
	mariadb := false
	if len(names) > 0 {
		op = names[len(names)-1]
		mariadb = len(names) == 2 && names[0] == mariadbOps && (op == "*" || op == "/") && a.Kind == pg.A_Expr_Kind_AEXPR_OP && a.Lexpr != nil
		if len(names) == 2 && names[0] != "pg_catalog" && !mariadb {
			return nil, c.ErrAt(a.Location, sqlerr.UndefinedFunction, "operator does not exist: %s", strings.Join(names, "."))
		}
	}
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if a.Lexpr == nil {
			return c.prefixOp(sc, op, a)
		}
		if mariadb {
			l, r, err := c.operands(sc, a.Lexpr, a.Rexpr)
			if err != nil {
				return nil, err
			}
			c.mariadbArith = true
			defer func() { c.mariadbArith = false }()
			return c.binaryExprs(op, l, r, a.Lexpr, a.Rexpr, a.Location)
		}
		return c.binaryOp(sc, op, a.Lexpr, a.Rexpr, a.Location)
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		return c.anyAll(sc, op, a)
	case pg.A_Expr_Kind_AEXPR_IN:
		return c.in(sc, op, a)
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		l, r, err := c.operands(sc, a.Lexpr, a.Rexpr)
		if err != nil {
			return nil, err
		}
		return c.match(l, r, a.Lexpr, a.Rexpr, op, a.Location, true, a.Kind == pg.A_Expr_Kind_AEXPR_ILIKE, strings.HasPrefix(op, "!"))
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		x, err := c.binaryOp(sc, "=", a.Lexpr, a.Rexpr, a.Location)
		if err != nil {
			return nil, err
		}
		cmp := x.(*cmpExpr)
		cmp.distinct = 1
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT {
			cmp.distinct = -1
		}
		return cmp, nil
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		x, err := c.binaryOp(sc, "=", a.Lexpr, a.Rexpr, a.Location)
		if err != nil {
			return nil, err
		}
		cmp := x.(*cmpExpr)
		return &funcExpr{t: cmp.l.Type(), args: []Expr{cmp.l, cmp.r}, fn: func(_ *Env, args []Datum) (Datum, error) {
			if args[0].Kind != KNull && args[1].Kind != KNull && compare(args[0], args[1]) == 0 {
				return Null, nil
			}
			return args[0], nil
		}}, nil
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		bounds := a.Rexpr.GetList().GetItems()
		lo, err := c.binaryOp(sc, ">=", a.Lexpr, bounds[0], a.Location)
		if err != nil {
			return nil, err
		}
		hi, err := c.binaryOp(sc, "<=", a.Lexpr, bounds[1], a.Location)
		if err != nil {
			return nil, err
		}
		var x Expr = &boolExpr{op: '&', args: []Expr{lo, hi}}
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			x = &boolExpr{op: '!', args: []Expr{x}}
		}
		return x, nil
	}
	return nil, c.ErrAt(a.Location, sqlerr.FeatureNotSupported, "seqd does not support this operator form")
}

// anyAll compiles x op ANY (array) and x op ALL (array).
func (c *Compiler) anyAll(sc *Scope, op string, a *pg.A_Expr) (Expr, error) {
	l, r, err := c.operands(sc, a.Lexpr, a.Rexpr)
	if err != nil {
		return nil, err
	}
	if isUnknown(r) && !isUnknown(l) {
		if r, err = c.Coerce(r, TypeByOID(l.Type().array), Location(a.Rexpr), "ANY"); err != nil {
			return nil, err
		}
	}
	if r.Type().Elem() == nil {
		return nil, c.ErrAt(a.Location, sqlerr.DatatypeMismatch, "op ANY/ALL (array) requires array on right side")
	}
	switch elem := r.Type().Elem(); {
	case isUnknown(l) || implicitOK(l.Type(), elem):
		if l, err = c.Coerce(l, elem, Location(a.Lexpr), "ANY"); err != nil {
			return nil, err
		}
	case !comparable(l.Type(), elem) && !(isString(l.Type()) && isString(elem)):
		return nil, c.ErrAt(a.Location, sqlerr.UndefinedFunction, "operator does not exist: %s %s %s", l.Type().sqlName, op, elem.sqlName).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	all := a.Kind == pg.A_Expr_Kind_AEXPR_OP_ALL
	if like, fold, not, ok := matchOp(op); ok {
		// x ~ ANY (patterns), x LIKE ALL (patterns): each element a
		// pattern, as PostgreSQL's text operators take them.
		if l, err = c.textOperand(l, a.Lexpr); err == nil && !isString(r.Type().Elem()) {
			err = errNotText
		}
		if err != nil {
			return nil, c.ErrAt(a.Location, sqlerr.UndefinedFunction, "operator does not exist: %s %s %s", l.Type().sqlName, op, r.Type().Elem().sqlName).
				WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
		}
		return &anyExpr{op: op, l: l, arr: r, all: all, match: &matchExpr{like: like, fold: fold, not: not}}, nil
	}
	if !isCmpOp(op) {
		return nil, c.ErrAt(a.Location, sqlerr.FeatureNotSupported, "seqd supports comparisons and pattern matches with ANY/ALL, not %s", op)
	}
	return &anyExpr{op: op, l: l, arr: r, all: all}, nil
}

// in compiles x [NOT] IN (list).
func (c *Compiler) in(sc *Scope, op string, a *pg.A_Expr) (Expr, error) {
	l, err := c.Expr(sc, a.Lexpr)
	if err != nil {
		return nil, err
	}
	list := a.Rexpr.GetList().GetItems()
	xs := []Expr{l}
	for _, n := range list {
		x, err := c.Expr(sc, n)
		if err != nil {
			return nil, err
		}
		xs = append(xs, x)
	}
	xs, _, err = c.unifyExprs(xs, append([]*pg.Node{a.Lexpr}, list...), "IN")
	if err != nil {
		return nil, err
	}
	for i, x := range xs {
		xs[i] = unpadded(x)
	}
	cmp := "="
	if op == "<>" {
		cmp = "<>"
	}
	return &anyExpr{op: cmp, l: xs[0], list: xs[1:], all: cmp == "<>"}, nil
}

func isCmpOp(op string) bool {
	switch op {
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

func comparable(a, b *Type) bool {
	return a.class == b.class || a.class == KInt && b.class == KFloat || a.class == KFloat && b.class == KInt || isNumber(a) && isNumber(b)
}

// isNumber reports whether t is one of the numeric category's types seqd
// computes with: the plain integers, the doubles and numeric.
func isNumber(t *Type) bool { return isPlainInt(t) || t.class == KFloat || t.class == KNumeric }

func (c *Compiler) prefixOp(sc *Scope, op string, a *pg.A_Expr) (Expr, error) {
	x, err := c.Expr(sc, a.Rexpr)
	if err != nil {
		return nil, err
	}
	switch op {
	case "-":
		if isUnknown(x) {
			// Every numeric type has a prefix -: a literal picks none.
			return nil, c.ErrAt(a.Location, sqlerr.AmbiguousFunction, "operator is not unique: - unknown").
				WithHint("Could not choose a best candidate operator. You might need to add an explicit type cast.")
		}
		t := x.Type()
		if t.class != KInt && t.class != KFloat && t.class != KNumeric {
			return nil, c.ErrAt(a.Location, sqlerr.UndefinedFunction, "operator does not exist: - %s", t.sqlName).
				WithHint("No operator matches the given name and argument type. You might need to add an explicit type cast.")
		}
		return &funcExpr{t: t, strict: true, args: []Expr{x}, fn: func(_ *Env, args []Datum) (Datum, error) {
			switch args[0].Kind {
			case KFloat:
				return Float(-args[0].F), nil
			case KNumeric:
				return numericNeg(args[0]), nil
			}
			return checkedInt(t, -args[0].I, args[0].I == math.MinInt64)
		}}, nil
	case "+":
		return x, nil
	}
	return nil, c.ErrAt(a.Location, sqlerr.UndefinedFunction, "operator does not exist: %s %s", op, x.Type().sqlName)
}

// checkedInt returns v as type t, or t's out-of-range error.
func checkedInt(t *Type, v int64, overflow bool) (Datum, error) {
	lo, hi, _ := intRange(t)
	if overflow || v < lo || v > hi {
		return Null, outOfRange(t)
	}
	return Int(v), nil
}

// match compiles the pattern operators: ~, ~*, !~, !~* and LIKE, ILIKE
// (~~, ~~*) and their negations. op names the operator in errors.
func (c *Compiler) match(l, r Expr, ln, rn *pg.Node, op string, loc int32, like, fold, not bool) (Expr, error) {
	var err error
	if l, err = c.textOperand(l, ln); err == nil {
		r, err = c.textOperand(r, rn)
	}
	if err != nil {
		return nil, c.ErrAt(loc, sqlerr.UndefinedFunction, "operator does not exist: %s %s %s", l.Type().sqlName, op, r.Type().sqlName).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	m := &matchExpr{l: l, pat: r, like: like, fold: fold, not: not}
	if k, ok := r.(*constExpr); ok && k.d.Kind != KNull {
		re, err := compilePattern(k.d.S, like, fold)
		if err != nil {
			return nil, err
		}
		m.re = re
	}
	return m, nil
}

// textOperand is an operand of a text operator: a string type as it is,
// an unknown literal or parameter as text; anything else is an error
// (x is returned, for the message).
func (c *Compiler) textOperand(x Expr, n *pg.Node) (Expr, error) {
	switch {
	case isUnknown(x):
		return c.Coerce(x, TText, Location(n), "argument")
	case isString(x.Type()):
		return x, nil
	}
	return x, errNotText
}

var errNotText = errors.New("not a string type")

// operands compiles both sides of an operator.
func (c *Compiler) operands(sc *Scope, ln, rn *pg.Node) (l, r Expr, err error) {
	if l, err = c.Expr(sc, ln); err != nil {
		return nil, nil, err
	}
	r, err = c.Expr(sc, rn)
	return l, r, err
}

// binaryOp compiles l op r.
func (c *Compiler) binaryOp(sc *Scope, op string, ln, rn *pg.Node, loc int32) (Expr, error) {
	l, r, err := c.operands(sc, ln, rn)
	if err != nil {
		return nil, err
	}
	if like, fold, not, ok := matchOp(op); ok {
		return c.match(l, r, ln, rn, op, loc, like, fold, not)
	}
	return c.binaryExprs(op, l, r, ln, rn, loc)
}

// matchOp reads a pattern-matching operator: ~, ~*, !~, !~* (regular
// expressions) and ~~, ~~*, !~~, !~~* (LIKE and ILIKE, as the grammar
// spells them).
func matchOp(op string) (like, fold, not, ok bool) {
	switch op {
	case "~", "~*", "!~", "!~*":
		return false, strings.Contains(op, "*"), op[0] == '!', true
	case "~~", "!~~", "~~*", "!~~*":
		return true, strings.Contains(op, "*"), op[0] == '!', true
	}
	return false, false, false, false
}

func (c *Compiler) binaryExprs(op string, l, r Expr, ln, rn *pg.Node, loc int32) (Expr, error) {
	var err error
	if op == "||" {
		// PostgreSQL's || is text || text, text || anynonarray and
		// anynonarray || text: an unknown side is text ('x' || 2 is 'x2').
		if isUnknown(l) {
			if l, err = c.Coerce(l, TText, Location(ln), "operand"); err != nil {
				return nil, err
			}
		}
		if isUnknown(r) {
			if r, err = c.Coerce(r, TText, Location(rn), "operand"); err != nil {
				return nil, err
			}
		}
	}
	// An unknown side takes the other side's type.
	switch {
	case isUnknown(l) && isUnknown(r):
		l, r = c.settle(l), c.settle(r)
	case isUnknown(l):
		if l, err = c.Coerce(l, r.Type(), Location(ln), "operand"); err != nil {
			return nil, err
		}
	case isUnknown(r):
		if r, err = c.Coerce(r, l.Type(), Location(rn), "operand"); err != nil {
			return nil, err
		}
	}
	if op == "||" || isCmpOp(op) {
		// character(n) is compared, and concatenated, without the spaces
		// that pad it.
		l, r = unpadded(l), unpadded(r)
	}
	lt, rt := l.Type(), r.Type()
	noOp := func() error {
		return c.ErrAt(loc, sqlerr.UndefinedFunction, "operator does not exist: %s %s %s", lt.sqlName, op, rt.sqlName).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	switch op {
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		if !comparable(lt, rt) && !(isString(lt) && isString(rt)) {
			return nil, noOp()
		}
		if lt.class == KText && rt.class != KText || lt.class != KText && rt.class == KText {
			return nil, noOp()
		}
		return &cmpExpr{op: op, l: l, r: r}, nil
	case "||":
		if lt.IsArray() || rt.IsArray() {
			return arrayConcat(l, r, noOp)
		}
		if !isString(lt) && !isString(rt) {
			return nil, noOp() // integer || integer: no such operator
		}
		return &funcExpr{t: TText, strict: true, args: []Expr{l, r}, fn: func(_ *Env, a []Datum) (Datum, error) {
			return Text(string(AppendOutput(AppendOutput(nil, lt, a[0]), rt, a[1]))), nil
		}}, nil
	case "+", "-", "*", "/", "%":
		if !isNumber(lt) || !isNumber(rt) {
			return nil, noOp()
		}
		underflows := c.mariadbArith
		if lt == tFloat4 && rt == tFloat4 {
			// real with real is real: computed in double, rounded back.
			return &funcExpr{t: tFloat4, strict: true, args: []Expr{l, r}, fn: func(_ *Env, a []Datum) (Datum, error) {
				d, err := floatArith(op, a[0].F, a[1].F, underflows)
				if err != nil {
					return d, err
				}
				return toFloat4(d.F)
			}}, nil
		}
		if lt.class == KFloat || rt.class == KFloat {
			return &funcExpr{t: TFloat8, strict: true, args: []Expr{l, r}, fn: func(_ *Env, a []Datum) (Datum, error) {
				return floatArith(op, asFloat(a[0]), asFloat(a[1]), underflows)
			}}, nil
		}
		if lt.class == KNumeric || rt.class == KNumeric {
			return &funcExpr{t: tNumeric, strict: true, args: []Expr{l, r}, fn: func(_ *Env, a []Datum) (Datum, error) {
				return numericArith(op, a[0], a[1])
			}}, nil
		}
		t := lt
		if _, hi, _ := intRange(rt); func() bool { _, h, _ := intRange(lt); return hi > h }() {
			t = rt
		}
		return &funcExpr{t: t, strict: true, args: []Expr{l, r}, fn: func(_ *Env, a []Datum) (Datum, error) {
			return intArith(t, op, a[0].I, a[1].I)
		}}, nil
	}
	return nil, noOp()
}

func intArith(t *Type, op string, x, y int64) (Datum, error) {
	switch op {
	case "+":
		s := x + y
		return checkedInt(t, s, (x > 0 && y > 0 && s < 0) || (x < 0 && y < 0 && s >= 0))
	case "-":
		s := x - y
		return checkedInt(t, s, (x >= 0 && y < 0 && s < 0) || (x < 0 && y > 0 && s >= 0))
	case "*":
		if x == 0 || y == 0 {
			return Int(0), nil
		}
		p := x * y
		return checkedInt(t, p, p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64))
	case "/", "%":
		if y == 0 {
			return Null, sqlerr.Errorf(sqlerr.DivisionByZero, "division by zero")
		}
		if y == -1 {
			if op == "%" {
				return Int(0), nil
			}
			return checkedInt(t, -x, x == math.MinInt64)
		}
		if op == "/" {
			return Int(x / y), nil
		}
		return Int(x % y), nil
	}
	return Null, nil
}

// floatArith is x op y of doubles, as PostgreSQL's float8 operators
// compute it: an error where finite operands make an infinite result
// (overflow) or nonzero ones make 0 (underflow: * and /), but where
// underflows (MariaDB's arithmetic) 0 is the result.
func floatArith(op string, x, y float64, underflows bool) (Datum, error) {
	var r float64
	switch op {
	case "+":
		r = x + y
	case "-":
		r = x - y
	case "*":
		r = x * y
		if r == 0 && x != 0 && y != 0 && !underflows {
			return Null, errFloatUnderflow()
		}
	case "/":
		if y == 0 {
			return Null, sqlerr.Errorf(sqlerr.DivisionByZero, "division by zero")
		}
		r = x / y
		if r == 0 && x != 0 && !math.IsInf(y, 0) && !underflows {
			return Null, errFloatUnderflow()
		}
	}
	if op != "%" {
		if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
			return Null, errFloatOverflow()
		}
		return Float(r), nil
	}
	if y == 0 {
		return Null, sqlerr.Errorf(sqlerr.DivisionByZero, "division by zero")
	}
	return Float(math.Mod(x, y)), nil
}

// errFloatOverflow and errFloatUnderflow are PostgreSQL's
// float_overflow_error and float_underflow_error.
func errFloatOverflow() error {
	return sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value out of range: overflow")
}

func errFloatUnderflow() error {
	return sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value out of range: underflow")
}

// arrayConcat is || with an array on either side: array_cat of two arrays
// of one type, array_append and array_prepend of an element of its
// element type. A NULL array is an empty one; a NULL element is added.
func arrayConcat(l, r Expr, noOp func() error) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	var t *Type
	switch {
	case lt == rt:
		t = lt
	case lt.IsArray() && lt.Elem() == rt, rt.IsArray() && rt.Elem() == lt:
		t = lt
		if !lt.IsArray() {
			t = rt
		}
	default:
		return nil, noOp()
	}
	part := func(d Datum, typ *Type) []Datum {
		switch {
		case typ.IsArray():
			return d.A // NULL: none
		default:
			return []Datum{d}
		}
	}
	return &funcExpr{t: t, args: []Expr{l, r}, fn: func(_ *Env, a []Datum) (Datum, error) {
		if a[0].Kind == KNull && a[1].Kind == KNull && lt.IsArray() && rt.IsArray() {
			return Null, nil
		}
		out := append(append([]Datum(nil), part(a[0], lt)...), part(a[1], rt)...)
		return Array(out...), nil
	}}, nil
}
