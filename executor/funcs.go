package executor

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sql"
)

// funcDef is one built-in function signature. A nil argument type takes
// any type; ret nil means the first argument's type.
type funcDef struct {
	args     []*Type
	variadic bool // the last argument type repeats
	ret      *Type
	strict   bool
	fn       func(e *env, args []Datum) (Datum, error)
}

var builtins = map[string][]funcDef{}

func def(name string, ret *Type, strict bool, fn func(e *env, args []Datum) (Datum, error), args ...*Type) {
	builtins[name] = append(builtins[name], funcDef{args: args, ret: ret, strict: strict, fn: fn})
}

func constant(d Datum) func(*env, []Datum) (Datum, error) {
	return func(*env, []Datum) (Datum, error) { return d, nil }
}

func textFn(f func(string) string) func(*env, []Datum) (Datum, error) {
	return func(_ *env, a []Datum) (Datum, error) { return Text(f(a[0].S)), nil }
}

func init() {
	def("pg_type_is_visible", tBool, true, func(e *env, a []Datum) (Datum, error) { return Bool(typeByOID(uint32(a[0].I)) != nil), nil }, tOid)
	def("format_type", tText, false, formatType, tOid, tInt4)
	def("col_description", tText, true, func(e *env, a []Datum) (Datum, error) { return Null, nil }, tOid, tInt4)
	def("shobj_description", tText, true, func(e *env, a []Datum) (Datum, error) { return Null, nil }, tOid, tName)
	def("pg_advisory_unlock_all", tVoid, true, constant(Text("")))
	def("pg_encoding_to_char", tName, true, func(_ *env, a []Datum) (Datum, error) {
		if a[0].I == 6 {
			return Text("UTF8"), nil
		}
		return Text(""), nil
	}, tInt4)
	def("pg_get_expr", tText, true, func(*env, []Datum) (Datum, error) { return Null, nil }, tText, tOid)
	def("pg_get_expr", tText, true, func(*env, []Datum) (Datum, error) { return Null, nil }, tText, tOid, tBool)
	def("quote_ident", tText, true, textFn(sql.QuoteIdent), tText)
	def("lower", tText, true, textFn(strings.ToLower), tText)
	def("upper", tText, true, textFn(strings.ToUpper), tText)
	def("btrim", tText, true, textFn(strings.TrimSpace), tText)
	def("length", tInt4, true, func(_ *env, a []Datum) (Datum, error) { return Int(int64(len([]rune(a[0].S)))), nil }, tText)
	def("octet_length", tInt4, true, func(_ *env, a []Datum) (Datum, error) { return Int(int64(len(a[0].S))), nil }, tText)
	def("char_length", tInt4, true, func(_ *env, a []Datum) (Datum, error) { return Int(int64(len([]rune(a[0].S)))), nil }, tText)
	def("replace", tText, true, func(_ *env, a []Datum) (Datum, error) { return Text(strings.ReplaceAll(a[0].S, a[1].S, a[2].S)), nil }, tText, tText, tText)
	def("strpos", tInt4, true, func(_ *env, a []Datum) (Datum, error) {
		i := strings.Index(a[0].S, a[1].S)
		if i < 0 {
			return Int(0), nil
		}
		return Int(int64(len([]rune(a[0].S[:i])) + 1)), nil
	}, tText, tText)
	def("substring", tText, true, substr, tText, tInt4)
	def("substring", tText, true, substr, tText, tInt4, tInt4)
	def("substr", tText, true, substr, tText, tInt4)
	def("substr", tText, true, substr, tText, tInt4, tInt4)
	def("left", tText, true, func(_ *env, a []Datum) (Datum, error) {
		r := []rune(a[0].S)
		n := int(a[1].I)
		if n < 0 {
			n = max(len(r)+n, 0)
		}
		return Text(string(r[:min(n, len(r))])), nil
	}, tText, tInt4)
	builtins["concat"] = []funcDef{{args: []*Type{nil}, variadic: true, ret: tText, fn: func(e *env, a []Datum) (Datum, error) {
		var b strings.Builder
		for _, d := range a {
			if d.Kind != KNull {
				b.WriteString(d.S)
			}
		}
		return Text(b.String()), nil
	}}}
	def("array_to_string", tText, true, func(_ *env, a []Datum) (Datum, error) {
		var parts []string
		for _, d := range a[0].A {
			if d.Kind != KNull {
				parts = append(parts, string(AppendOutput(nil, nil, d)))
			}
		}
		return Text(strings.Join(parts, a[1].S)), nil
	}, nil, tText)
	def("array_length", tInt4, true, func(_ *env, a []Datum) (Datum, error) {
		if a[1].I != 1 || len(a[0].A) == 0 {
			return Null, nil
		}
		return Int(int64(len(a[0].A))), nil
	}, nil, tInt4)
	def("array_upper", tInt4, true, func(_ *env, a []Datum) (Datum, error) {
		if a[1].I != 1 || len(a[0].A) == 0 {
			return Null, nil
		}
		return Int(int64(len(a[0].A))), nil
	}, nil, tInt4)
	def("to_regclass", tRegclass, true, func(e *env, a []Datum) (Datum, error) {
		d, err := e.s.RegclassIn(a[0].S)
		if err != nil {
			return Null, nil
		}
		return d, nil
	}, tText)
	def("to_regtype", tRegtype, true, func(e *env, a []Datum) (Datum, error) {
		d, err := regtypeIn(a[0].S)
		if err != nil {
			return Null, nil
		}
		return d, nil
	}, tText)
	def("abs", tInt8, true, func(_ *env, a []Datum) (Datum, error) {
		if a[0].I < 0 {
			return checkedInt(tInt8, -a[0].I, a[0].I == -1<<63)
		}
		return a[0], nil
	}, tInt8)
}

func substr(_ *env, a []Datum) (Datum, error) {
	r := []rune(a[0].S)
	start := a[1].I - 1
	end := int64(len(r))
	if len(a) == 3 {
		if a[2].I < 0 {
			return Null, sql.Errorf(sql.SubstringError, "negative substring length not allowed")
		}
		end = min(start+a[2].I, end)
	}
	start = max(start, 0)
	if start >= end {
		return Text(""), nil
	}
	return Text(string(r[start:end])), nil
}

// formatType is format_type(oid, typmod).
func formatType(_ *env, a []Datum) (Datum, error) {
	if a[0].Kind == KNull {
		return Null, nil
	}
	t := typeByOID(uint32(a[0].I))
	if t == nil {
		return Text("???"), nil
	}
	name := t.sqlName
	if a[1].Kind != KNull && a[1].I >= 4 && (t.oid == OIDVarchar || t.oid == OIDBpchar) {
		name += "(" + strconv.FormatInt(a[1].I-4, 10) + ")"
	}
	return Text(name), nil
}

var aggregates = map[string]bool{"count": true, "min": true, "max": true, "sum": true, "bool_and": true, "bool_or": true, "array_agg": true, "string_agg": true}

var setReturning = map[string]bool{"generate_series": true, "unnest": true}

// compiledFunc is a function its own package compiles (the executor's
// sequence functions): the evaluator hands it the call's parse tree.
type compiledFunc struct {
	// column is the name an unaliased call's result column takes.
	column string
	// setReturning: only in FROM (its expression is a rowExpr).
	setReturning bool
	compile      func(c *compiler, sc *scope, fc *pg.FuncCall) (expr, error)
}

var compiledFuncs = map[string]compiledFunc{}

// defCompiled registers a compiled function, as def registers others.
func defCompiled(name string, f compiledFunc) { compiledFuncs[name] = f }

// rowExpr is an expression of several columns: a function whose call
// stands for a row (seqd_reserve), in FROM or as its select list's
// columns. As an expr it is its first column.
type rowExpr interface {
	expr
	cols() []relCol
	// evalRow evaluates the row; nil is NULL.
	evalRow(e *env) ([]Datum, error)
}

// seriesExpr is an expression whose values over generate_series(a, b)
// come faster all at once (nextval('s'): ranges reserved in chunks).
type seriesExpr interface {
	expr
	// canSeries reports whether this call can.
	canSeries() bool
	// series is the rows of count() evaluations; count is called once the
	// call may run at all.
	series(e *env, count func() (int64, error)) (Rows, error)
}

// funcName is a call's function name, which must be unqualified or in
// pg_catalog.
func (c *compiler) funcName(fc *pg.FuncCall) (string, error) {
	names := strs(fc.Funcname)
	name := names[len(names)-1]
	// spanner.get_internal_sequence_state is Spanner's spelling.
	spanner := len(names) == 2 && names[0] == "spanner" && name == "get_internal_sequence_state"
	if len(names) > 1 && (len(names) > 2 || names[0] != "pg_catalog") && !spanner {
		return "", c.errAt(fc.Location, sql.UndefinedFunction, "function %s does not exist", strings.Join(names, ".")).
			WithHint("seqd's functions live in pg_catalog.")
	}
	return name, nil
}

func (c *compiler) funcCall(sc *scope, fc *pg.FuncCall) (expr, error) {
	name, err := c.funcName(fc)
	if err != nil {
		return nil, err
	}
	if fc.Over != nil {
		return nil, c.errAt(fc.Location, sql.FeatureNotSupported, "seqd does not support window functions")
	}
	if aggregates[name] {
		return c.aggregate(sc, name, fc)
	}
	if fc.AggStar || fc.AggDistinct || len(fc.AggOrder) > 0 || fc.AggFilter != nil {
		return nil, c.errAt(fc.Location, sql.UndefinedFunction, "%s is not an aggregate function", name)
	}
	f, compiled := compiledFuncs[name]
	if setReturning[name] || f.setReturning {
		return nil, c.errAt(fc.Location, sql.FeatureNotSupported, "seqd supports set-returning functions such as %s only in FROM", name)
	}
	if compiled {
		return f.compile(c, sc, fc)
	}
	args := make([]expr, len(fc.Args))
	for i, a := range fc.Args {
		if args[i], err = c.expr(sc, a); err != nil {
			return nil, err
		}
	}
	if name == "pg_typeof" && len(args) == 1 {
		t := c.settle(args[0]).typ()
		return &constExpr{t: tRegtype, d: Datum{Kind: KInt, I: int64(t.oid), S: t.sqlName}}, nil
	}
	return c.resolveCall(name, args, fc.Args, fc.Location)
}

// resolveCall picks the signature of name that args fit, with implicit
// casts, and compiles the call.
func (c *compiler) resolveCall(name string, args []expr, nodes []*pg.Node, loc int32) (expr, error) {
	for _, d := range builtins[name] {
		if !d.variadic && len(d.args) != len(args) || d.variadic && len(args) < len(d.args)-1 {
			continue
		}
		fit := make([]expr, len(args))
		ok := true
		for i, a := range args {
			want := d.args[min(i, len(d.args)-1)]
			if want == nil {
				fit[i] = c.settle(a)
				continue
			}
			if !isUnknown(a) && !implicitOK(a.typ(), want) {
				ok = false
				break
			}
			fit[i] = a
		}
		if !ok {
			continue
		}
		for i, a := range fit {
			want := d.args[min(i, len(d.args)-1)]
			if want == nil {
				continue
			}
			x, err := c.coerce(a, want, exprLoc(nodes[i]), "argument")
			if err != nil {
				return nil, err
			}
			fit[i] = x
		}
		ret := d.ret
		if ret == nil {
			ret = fit[0].typ()
		}
		return &funcExpr{t: ret, fn: d.fn, args: fit, strict: d.strict}, nil
	}
	return nil, c.noFunction(name, args, loc)
}

func (c *compiler) noFunction(name string, args []expr, loc int32) error {
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = a.typ().sqlName
		if isUnknown(a) {
			types[i] = "unknown"
		}
	}
	err := c.errAt(loc, sql.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(types, ", "))
	if _, known := builtins[name]; known {
		return err.WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	return err.WithHint("seqd serves sequences: see the README for the functions it offers.")
}
