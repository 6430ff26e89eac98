package eval

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// funcDef is one built-in function signature. A nil argument type takes
// any type; ret nil means the first argument's type.
type funcDef struct {
	args     []*Type
	variadic bool // the last argument type repeats
	ret      *Type
	strict   bool
	fn       func(e *Env, args []Datum) (Datum, error)
}

var builtins = map[string][]funcDef{}

// Define registers a built-in function signature: fn computes it, strict
// functions return NULL for a NULL argument without being called.
func Define(name string, ret *Type, strict bool, fn func(e *Env, args []Datum) (Datum, error), args ...*Type) {
	builtins[name] = append(builtins[name], funcDef{args: args, ret: ret, strict: strict, fn: fn})
}

// Constant is a function body returning d.
func Constant(d Datum) func(*Env, []Datum) (Datum, error) {
	return func(*Env, []Datum) (Datum, error) { return d, nil }
}

func textFn(f func(string) string) func(*Env, []Datum) (Datum, error) {
	return func(_ *Env, a []Datum) (Datum, error) { return Text(f(a[0].S)), nil }
}

// The catalog's information functions.
func init() {
	Define("pg_type_is_visible", TBool, true, func(e *Env, a []Datum) (Datum, error) { return Bool(TypeByOID(uint32(a[0].I)) != nil), nil }, TOid)
	Define("format_type", TText, false, formatType, TOid, TInt4)
	Define("col_description", TText, true, func(e *Env, a []Datum) (Datum, error) { return Null, nil }, TOid, TInt4)
	Define("shobj_description", TText, true, func(e *Env, a []Datum) (Datum, error) { return Null, nil }, TOid, TName)
	Define("pg_advisory_unlock_all", tVoid, true, Constant(Text("")))
	Define("pg_encoding_to_char", TName, true, func(_ *Env, a []Datum) (Datum, error) {
		if a[0].I == 6 {
			return Text("UTF8"), nil
		}
		return Text(""), nil
	}, TInt4)
}

// The text functions.
func init() {
	Define("quote_ident", TText, true, textFn(pgsql.QuoteIdent), TText)
	Define("quote_literal", TText, true, textFn(quoteLiteral), TText)
	Define("pg_size_pretty", TText, true, func(_ *Env, a []Datum) (Datum, error) { return Text(sizePretty(a[0].I)), nil }, TInt8)
	Define("lower", TText, true, textFn(strings.ToLower), TText)
	Define("upper", TText, true, textFn(strings.ToUpper), TText)
	// btrim(text) and trim take off spaces only, not other white space.
	Define("btrim", TText, true, textFn(func(s string) string { return strings.Trim(s, " ") }), TText)
	Define("length", TInt4, true, func(_ *Env, a []Datum) (Datum, error) { return Int(int64(len([]rune(a[0].S)))), nil }, TText)
	Define("octet_length", TInt4, true, func(_ *Env, a []Datum) (Datum, error) { return Int(int64(len(a[0].S))), nil }, TText)
	Define("bit_length", TInt4, true, func(_ *Env, a []Datum) (Datum, error) { return Int(8 * int64(len(a[0].S))), nil }, TText)
	Define("char_length", TInt4, true, func(_ *Env, a []Datum) (Datum, error) { return Int(int64(len([]rune(a[0].S)))), nil }, TText)
	Define("replace", TText, true, func(e *Env, a []Datum) (Datum, error) {
		s, from, to := a[0].S, a[1].S, a[2].S
		if from == "" {
			return a[0], nil // an empty pattern matches nowhere, as PostgreSQL's
		}
		// A result many times its input (each of a million 'b's made a
		// megabyte) is counted against the statement's memory before it
		// is made, with the other values of its row, as REPEAT's and
		// LPAD's are (chargeMade).
		if len(to) > len(from) {
			grown := int64(strings.Count(s, from)) * int64(len(to)-len(from))
			if err := e.chargeMade(int64(len(s)) + grown); err != nil {
				return Null, err
			}
		}
		return Text(strings.ReplaceAll(s, from, to)), nil
	}, TText, TText, TText)
	Define("strpos", TInt4, true, func(_ *Env, a []Datum) (Datum, error) {
		i := strings.Index(a[0].S, a[1].S)
		if i < 0 {
			return Int(0), nil
		}
		return Int(int64(len([]rune(a[0].S[:i])) + 1)), nil
	}, TText, TText)
	Define("substring", TText, true, substr, TText, TInt4)
	Define("substring", TText, true, substr, TText, TInt4, TInt4)
	Define("substr", TText, true, substr, TText, TInt4)
	Define("substr", TText, true, substr, TText, TInt4, TInt4)
	Define("left", TText, true, func(_ *Env, a []Datum) (Datum, error) {
		r := []rune(a[0].S)
		n := int(a[1].I)
		if n < 0 {
			n = max(len(r)+n, 0)
		}
		return Text(string(r[:min(n, len(r))])), nil
	}, TText, TInt4)
	// concat is compiled (Compiler.concat): its arguments' types print them.
	builtins["concat"] = []funcDef{{args: []*Type{nil}, variadic: true, ret: TText}}
}

// The array functions, and the regclass and regtype lookups that give
// NULL for a name that finds nothing.
func init() {
	Define("array_to_string", TText, true, func(_ *Env, a []Datum) (Datum, error) {
		var parts []string
		for _, d := range a[0].A {
			if d.Kind != KNull {
				parts = append(parts, string(AppendOutput(nil, nil, d)))
			}
		}
		return Text(strings.Join(parts, a[1].S)), nil
	}, nil, TText)
	// array_remove(anyarray, anyelement): the array without the elements
	// equal to the value (NULL removes the NULLs).
	Define("array_remove", nil, false, func(_ *Env, a []Datum) (Datum, error) {
		if a[0].Kind == KNull {
			return Null, nil
		}
		out := make([]Datum, 0, len(a[0].A))
		for _, d := range a[0].A {
			if d.Kind == KNull && a[1].Kind == KNull || d.Kind != KNull && a[1].Kind != KNull && compare(d, a[1]) == 0 {
				continue
			}
			out = append(out, d)
		}
		return Array(out...), nil
	}, nil, nil)
	Define("array_length", TInt4, true, func(_ *Env, a []Datum) (Datum, error) {
		if a[1].I != 1 || len(a[0].A) == 0 {
			return Null, nil
		}
		return Int(int64(len(a[0].A))), nil
	}, nil, TInt4)
	Define("array_upper", TInt4, true, func(_ *Env, a []Datum) (Datum, error) {
		if a[1].I != 1 || len(a[0].A) == 0 {
			return Null, nil
		}
		return Int(int64(len(a[0].A))), nil
	}, nil, TInt4)
	Define("to_regclass", TRegclass, true, func(e *Env, a []Datum) (Datum, error) {
		d, err := e.Session.RegclassIn(a[0].S)
		if err != nil {
			return Null, nil
		}
		return d, nil
	}, TText)
	Define("to_regtype", TRegtype, true, func(e *Env, a []Datum) (Datum, error) {
		d, err := regtypeIn(a[0].S)
		if err != nil {
			return Null, nil
		}
		return d, nil
	}, TText)
}

// The numeric functions.
func init() {
	// abs of each numeric type is of that type; an unknown argument
	// resolves to double precision, the preferred numeric type, first.
	Define("abs", TFloat8, true, absFloat, TFloat8)
	for _, t := range []*Type{TInt2, TInt4, TInt8} {
		Define("abs", t, true, func(_ *Env, a []Datum) (Datum, error) {
			if a[0].I < 0 {
				return checkedInt(t, -a[0].I, a[0].I == math.MinInt64)
			}
			return a[0], nil
		}, t)
	}
	Define("abs", tFloat4, true, absFloat, tFloat4)
	Define("abs", tNumeric, true, func(_ *Env, a []Datum) (Datum, error) { return numericAbs(a[0]), nil }, tNumeric)
	// round and trunc: of a double to an integral double (round half to
	// even, as rint), of numeric to s digits after the point (half away
	// from zero).
	Define("round", TFloat8, true, func(_ *Env, a []Datum) (Datum, error) { return Float(math.RoundToEven(a[0].F)), nil }, TFloat8)
	Define("trunc", TFloat8, true, func(_ *Env, a []Datum) (Datum, error) { return Float(math.Trunc(a[0].F)), nil }, TFloat8)
	for _, name := range []string{"round", "trunc"} {
		down := name == "trunc"
		Define(name, tNumeric, true, func(_ *Env, a []Datum) (Datum, error) { return numericRound(a[0], 0, down), nil }, tNumeric)
		Define(name, tNumeric, true, func(_ *Env, a []Datum) (Datum, error) { return numericRound(a[0], a[1].I, down), nil }, tNumeric, TInt4)
	}
}

func absFloat(_ *Env, a []Datum) (Datum, error) { return Float(math.Abs(a[0].F)), nil }

// concat compiles concat(any, ...): its arguments' text forms, NULLs
// left out.
func (c *Compiler) concat(args []Expr, loc int32) (Expr, error) {
	if len(args) == 0 {
		return nil, c.NoFunction("concat", nil, loc)
	}
	types := make([]*Type, len(args))
	for i, a := range args {
		args[i] = c.settle(a)
		types[i] = args[i].Type()
	}
	return &funcExpr{t: TText, args: args, fn: func(_ *Env, a []Datum) (Datum, error) {
		var b []byte
		for i, d := range a {
			if d.Kind != KNull {
				b = AppendOutput(b, types[i], d)
			}
		}
		return Text(string(b)), nil
	}}, nil
}

func substr(_ *Env, a []Datum) (Datum, error) {
	r := []rune(a[0].S)
	start := a[1].I - 1
	end := int64(len(r))
	if len(a) == 3 {
		if a[2].I < 0 {
			return Null, sqlerr.Errorf(sqlerr.SubstringError, "negative substring length not allowed")
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
func formatType(_ *Env, a []Datum) (Datum, error) {
	if a[0].Kind == KNull {
		return Null, nil
	}
	t := TypeByOID(uint32(a[0].I))
	switch {
	case a[0].I == 0:
		return Text("-"), nil // InvalidOid
	case t == nil:
		return Text("???"), nil
	}
	name := t.sqlName
	if a[1].Kind != KNull && a[1].I >= 4 && (t.oid == OIDVarchar || t.oid == OIDBpchar) {
		name += "(" + strconv.FormatInt(a[1].I-4, 10) + ")"
	}
	return Text(name), nil
}

var aggregates = map[string]bool{"count": true, "min": true, "max": true, "sum": true, "avg": true, "bool_and": true, "bool_or": true, "array_agg": true, "string_agg": true,
	"seqd_mariadb_var_pop": true, "seqd_mariadb_var_samp": true, "seqd_mariadb_stddev_pop": true, "seqd_mariadb_stddev_samp": true,
	"seqd_mariadb_agg_bit_and": true, "seqd_mariadb_agg_bit_or": true, "seqd_mariadb_agg_bit_xor": true}

var setReturning = map[string]bool{"generate_series": true, "unnest": true, "pg_options_to_table": true}

// CompiledFunc is a function its own package compiles (the executor's
// sequence functions): the evaluator hands it the call's parse tree.
type CompiledFunc struct {
	// Column is the name an unaliased call's result column takes.
	Column string
	// SetReturning: only in FROM (its expression is a RowExpr).
	SetReturning bool
	Compile      func(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error)
}

var compiledFuncs = map[string]CompiledFunc{}

// DefineCompiled registers a compiled function, as def registers others.
func DefineCompiled(name string, f CompiledFunc) { compiledFuncs[name] = f }

// RowExpr is an expression of several columns: a function whose call
// stands for a row (seqd_reserve), in FROM or as its select list's
// columns. As an expr it is its first column.
type RowExpr interface {
	Expr
	Columns() []RelColumn
	// EvalRow evaluates the row; nil is NULL.
	EvalRow(e *Env) ([]Datum, error)
}

// SeriesExpr is an expression whose values over generate_series(a, b)
// come faster all at once (nextval('s'): ranges reserved in chunks).
type SeriesExpr interface {
	Expr
	// CanSeries reports whether this call can.
	CanSeries() bool
	// series is the rows of count() evaluations; count is called once the
	// call may run at all.
	Series(e *Env, count func() (int64, error)) (Rows, error)
}

// funcName is a call's function name, which must be unqualified or in
// pg_catalog.
func (c *Compiler) funcName(fc *pg.FuncCall) (string, error) {
	names := NodeStrings(fc.Funcname)
	name := names[len(names)-1]
	// spanner.get_internal_sequence_state is Spanner's spelling.
	spanner := len(names) == 2 && names[0] == "spanner" && name == "get_internal_sequence_state"
	if len(names) > 1 && (len(names) > 2 || names[0] != "pg_catalog") && !spanner {
		return "", c.ErrAt(fc.Location, sqlerr.UndefinedFunction, "function %s does not exist", strings.Join(names, ".")).
			WithHint("seqd's functions live in pg_catalog.")
	}
	return name, nil
}

func (c *Compiler) funcCall(sc *Scope, fc *pg.FuncCall) (Expr, error) {
	name, err := c.funcName(fc)
	if err != nil {
		return nil, err
	}
	if fc.Over != nil {
		return nil, c.ErrAt(fc.Location, sqlerr.FeatureNotSupported, "seqd does not support window functions")
	}
	if aggregates[name] {
		return c.aggregate(sc, name, fc)
	}
	// PostgreSQL's ParseFuncOrColumn, for a function that is no aggregate.
	switch {
	case fc.AggStar && !slices.ContainsFunc(builtins[name], func(d funcDef) bool { return len(d.args) == 0 }):
		return nil, c.NoFunction(name, nil, fc.Location) // f(*) looks up f()
	case fc.AggStar:
		return nil, c.ErrAt(fc.Location, sqlerr.WrongObjectType, "%s(*) specified, but %s is not an aggregate function", name, name)
	case fc.AggDistinct:
		return nil, c.ErrAt(fc.Location, sqlerr.WrongObjectType, "DISTINCT specified, but %s is not an aggregate function", name)
	case len(fc.AggOrder) > 0:
		return nil, c.ErrAt(fc.Location, sqlerr.WrongObjectType, "ORDER BY specified, but %s is not an aggregate function", name)
	case fc.AggFilter != nil:
		return nil, c.ErrAt(fc.Location, sqlerr.WrongObjectType, "FILTER specified, but %s is not an aggregate function", name)
	}
	f, compiled := compiledFuncs[name]
	if setReturning[name] || f.SetReturning {
		return nil, c.ErrAt(fc.Location, sqlerr.FeatureNotSupported, "seqd supports set-returning functions such as %s only in FROM", name)
	}
	if compiled {
		return f.Compile(c, sc, fc)
	}
	args := make([]Expr, len(fc.Args))
	for i, a := range fc.Args {
		if args[i], err = c.Expr(sc, a); err != nil {
			return nil, err
		}
	}
	if name == "concat" {
		return c.concat(args, fc.Location)
	}
	if name == "pg_typeof" && len(args) == 1 {
		t := c.settle(args[0]).Type()
		return &constExpr{t: TRegtype, d: t.Regtype()}, nil
	}
	return c.resolveCall(name, args, fc.Args, fc.Location)
}

// resolveCall picks the signature of name that args fit, with implicit
// casts, and compiles the call.
func (c *Compiler) resolveCall(name string, args []Expr, nodes []*pg.Node, loc int32) (Expr, error) {
	// A signature the known argument types match exactly is chosen before
	// one they reach by implicit casts, as PostgreSQL's func_select_candidate
	// prefers it; then the first that fits, in the order they are defined.
	defs := builtins[name]
	for i, d := range defs {
		if i > 0 && exactFit(d, args) {
			defs = append([]funcDef{d}, defs...)
			break
		}
	}
	for _, d := range defs {
		if !d.variadic && len(d.args) != len(args) || d.variadic && len(args) < len(d.args)-1 {
			continue
		}
		fit := make([]Expr, len(args))
		ok := true
		for i, a := range args {
			want := d.args[min(i, len(d.args)-1)]
			if want == nil {
				fit[i] = c.settle(a)
				continue
			}
			if !isUnknown(a) && !implicitOK(a.Type(), want) {
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
			x, err := c.Coerce(a, want, Location(nodes[i]), "argument")
			if err != nil {
				return nil, err
			}
			fit[i] = x
		}
		ret := d.ret
		if ret == nil {
			ret = fit[0].Type()
		}
		return &funcExpr{t: ret, fn: d.fn, args: fit, strict: d.strict}, nil
	}
	return nil, c.NoFunction(name, args, loc)
}

// exactFit reports whether d takes args' number, and each known type
// (there is one at least) as it is.
func exactFit(d funcDef, args []Expr) bool {
	if d.variadic || len(d.args) != len(args) {
		return false
	}
	known := false
	for i, a := range args {
		switch {
		case isUnknown(a):
		case d.args[i] != nil && a.Type() != d.args[i]:
			return false
		default:
			known = true
		}
	}
	return known
}

// NoFunction is PostgreSQL's error for a call no signature of name fits.
func (c *Compiler) NoFunction(name string, args []Expr, loc int32) error {
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = a.Type().sqlName
		if isUnknown(a) {
			types[i] = "unknown"
		}
	}
	err := c.ErrAt(loc, sqlerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(types, ", "))
	defs, known := builtins[name]
	if !known {
		err.Function = name
	} else if !slices.ContainsFunc(defs, func(d funcDef) bool { return len(d.args) == len(args) || d.variadic && len(args) >= len(d.args)-1 }) {
		err.Function, err.WrongArgCount = name, true
	}
	if known {
		return err.WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	return err.WithHint("seqd serves sequences: see the README for the functions it offers.")
}

// The catalog's decompiling functions, for what seqd never stores.
func init() {
	// The definitions of objects seqd never has (indexes, constraints,
	// triggers, rules, statistics objects, partition keys): NULL, as
	// PostgreSQL gives for an OID that names none.
	none := func(*Env, []Datum) (Datum, error) { return Null, nil }
	for _, f := range []string{"pg_get_indexdef", "pg_get_constraintdef", "pg_get_triggerdef", "pg_get_ruledef", "pg_get_statisticsobjdef", "pg_get_partkeydef"} {
		Define(f, TText, true, none, TOid)
	}
	Define("pg_get_indexdef", TText, true, none, TOid, TInt4, TBool)
	for _, f := range []string{"pg_get_constraintdef", "pg_get_triggerdef", "pg_get_ruledef"} {
		Define(f, TText, true, none, TOid, TBool)
	}
	for _, t := range []*Type{TText, TypeByOID(194)} {
		Define("pg_get_expr", TText, true, func(*Env, []Datum) (Datum, error) { return Null, nil }, t, TOid)
		Define("pg_get_expr", TText, true, func(*Env, []Datum) (Datum, error) { return Null, nil }, t, TOid, TBool)
	}
}

// FunctionNames are the names of the functions the evaluator calls: its
// own, those other packages defined, aggregates and set-returning
// functions (scripts/gen-pgcatalog takes PostgreSQL's rows of these for
// pg_proc).
func FunctionNames() []string {
	seen := map[string]bool{}
	for n := range builtins {
		seen[n] = true
	}
	for n := range compiledFuncs {
		seen[n] = true
	}
	for n := range aggregates {
		seen[n] = true
	}
	for n := range setReturning {
		seen[n] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// quoteLiteral is quote_literal: a string literal, E” when it holds a
// backslash (whose doubling it then needs), quotes doubled.
func quoteLiteral(v string) string {
	q := "'" + strings.ReplaceAll(v, "'", "''") + "'"
	if strings.Contains(v, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// sizePretty is pg_size_pretty(bigint), PostgreSQL 15's: bytes below
// 10 kB, then kB, MB, GB and TB, each kept below 20480 of its unit,
// rounded half away from zero.
func sizePretty(size int64) string {
	const limit = 10 * 1024
	const limit2 = limit*2 - 1
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	half := func(x int64) int64 {
		if x < 0 {
			return (x - 1) / 2
		}
		return (x + 1) / 2
	}
	if abs(size) < limit {
		return strconv.FormatInt(size, 10) + " bytes"
	}
	size /= 1 << 9 // one bit more, for rounding (dividing towards zero, as C)
	for _, unit := range []string{"kB", "MB", "GB"} {
		if abs(size) < limit2 {
			return strconv.FormatInt(half(size), 10) + " " + unit
		}
		size /= 1 << 10
	}
	return strconv.FormatInt(half(size), 10) + " TB"
}
