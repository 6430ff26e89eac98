package executor

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
)

// The built-in functions, aggregates, operators, casts, languages and
// collations seqd has, as pg_proc, pg_aggregate, pg_operator, pg_cast,
// pg_language and pg_collation list them: PostgreSQL 15's rows
// (catalog.BuiltinRows, by scripts/gen-pgcatalog), those of them the
// evaluator accepts. A function or operator is listed when a call of it
// with NULLs of its argument types compiles, a cast when the evaluator
// makes it in the same context; the types' input and output functions
// are listed as pg_type names them. What is computed once, the first
// time a session asks.

var (
	builtinOnce sync.Once
	builtin     builtinCatalog
)

// builtinCatalog are the rows kept, as text, and the functions by OID.
type builtinCatalog struct {
	rows  map[string][][]string
	procs map[uint32]procRow
	named map[string][]uint32 // function OIDs by name
}

// procRow is what regproc, regprocedure and pg_get_function_* show of a
// function: its input argument types, and all its arguments with their
// modes and names where it has them.
type procRow struct {
	name     string
	args     []uint32
	allArgs  []uint32
	modes    []string
	names    []string
	ret      uint32
	retset   bool
	variadic bool
}

// pg_proc's columns by position (PostgreSQL 15's order).
const (
	procOID, procName, procLang, procVariadic, procRetset, procRettype, procArgtypes = 0, 1, 4, 7, 13, 18, 19
	procAllArgtypes, procArgmodes, procArgnames                                      = 20, 21, 22
)

// typeFunctionOIDs are the OIDs of the built-in types' own functions
// (input, output ...) by name, which pg_type names.
var typeFunctionOIDs = sync.OnceValue(func() map[string]uint32 {
	io := map[string]bool{}
	for _, n := range eval.TypeIOFunctions() {
		io[n] = true
	}
	out := map[string]uint32{}
	for _, r := range catalog.BuiltinRows["pg_proc"] {
		if io[r[procName]] {
			out[r[procName]] = atou(r[procOID])
		}
	}
	return out
})

func (s *Session) builtinCatalog() *builtinCatalog {
	builtinOnce.Do(func() { builtin = makeBuiltinCatalog(s) })
	return &builtin
}

func makeBuiltinCatalog(s *Session) builtinCatalog {
	b := builtinCatalog{rows: map[string][][]string{}, procs: map[uint32]procRow{}, named: map[string][]uint32{}}
	io := typeFunctionOIDs()
	compiles := func(q string) bool {
		stmts, err := pgsql.Parse(q)
		if err != nil || len(stmts) != 1 || stmts[0].Node.GetSelectStmt() == nil {
			return false
		}
		c := &eval.Compiler{Session: (*evalView)(s), SQL: q}
		_, err = c.Select(stmts[0].Node.GetSelectStmt())
		return err == nil
	}
	langs := map[string]bool{}
	for _, r := range catalog.BuiltinRows["pg_proc"] {
		args := oidList(r[procArgtypes])
		if _, ok := io[r[procName]]; !ok {
			call, ok := sampleCall(r[procName], args, r[procVariadic] != "0")
			if !ok || !compiles("select "+call) && !compiles("select * from "+call) {
				continue
			}
		}
		oid := atou(r[procOID])
		p := procRow{name: r[procName], args: args, ret: atou(r[procRettype]), retset: r[procRetset] == "t", variadic: r[procVariadic] != "0",
			modes: arrayItems(r[procArgmodes]), names: arrayItems(r[procArgnames])}
		for _, a := range arrayItems(r[procAllArgtypes]) {
			p.allArgs = append(p.allArgs, atou(a))
		}
		b.procs[oid] = p
		b.named[r[procName]] = append(b.named[r[procName]], oid)
		b.rows["pg_proc"] = append(b.rows["pg_proc"], r)
		langs[r[procLang]] = true
	}
	for _, r := range catalog.BuiltinRows["pg_aggregate"] {
		if _, ok := b.procs[atou(r[0])]; ok {
			b.rows["pg_aggregate"] = append(b.rows["pg_aggregate"], r)
		}
	}
	for _, r := range catalog.BuiltinRows["pg_operator"] {
		l, rt := eval.TypeByOID(atou(r[7])), eval.TypeByOID(atou(r[8]))
		var q string
		switch {
		case rt == nil:
			continue
		case r[7] == "0":
			q = fmt.Sprintf("select %s NULL::%s", r[1], rt.SQLName())
		case l != nil:
			q = fmt.Sprintf("select NULL::%s %s NULL::%s", l.SQLName(), r[1], rt.SQLName())
		default:
			continue
		}
		if compiles(q) {
			b.rows["pg_operator"] = append(b.rows["pg_operator"], r)
		}
	}
	for _, r := range catalog.BuiltinRows["pg_cast"] {
		from, to := eval.TypeByOID(atou(r[1])), eval.TypeByOID(atou(r[2]))
		if from != nil && to != nil && eval.Castable(from, to) && (r[4] == "i") == eval.ImplicitCast(from, to) {
			b.rows["pg_cast"] = append(b.rows["pg_cast"], r)
		}
	}
	for _, r := range catalog.BuiltinRows["pg_language"] {
		if langs[r[0]] {
			b.rows["pg_language"] = append(b.rows["pg_language"], r)
		}
	}
	b.rows["pg_collation"] = catalog.BuiltinRows["pg_collation"]
	return b
}

// sampleCall is a call of function name with NULLs of its argument types,
// polymorphic ones made concrete; ok is false for arguments no call can
// pass (cstring, internal).
func sampleCall(name string, args []uint32, variadic bool) (string, bool) {
	parts := make([]string, len(args))
	for i, a := range args {
		t := eval.TypeByOID(a)
		if t == nil {
			return "", false
		}
		switch t.SQLName() {
		case "anyelement", "anynonarray", "anycompatible", "anycompatiblenonarray":
			parts[i] = "NULL::integer"
		case "anyarray", "anycompatiblearray":
			parts[i] = "NULL::integer[]"
		case `"any"`, "any":
			parts[i] = "NULL::text"
		case "cstring", "internal", "anyenum", "anyrange", "anymultirange", "anycompatiblerange", "anycompatiblemultirange", "record", "trigger", "event_trigger", "language_handler", "fdw_handler", "index_am_handler", "tsm_handler", "table_am_handler":
			return "", false
		default:
			if variadic && i == len(args)-1 && t.IsArray() {
				parts[i] = "VARIADIC NULL::" + t.SQLName()
			} else {
				parts[i] = "NULL::" + t.SQLName()
			}
		}
	}
	return pgsql.QuoteIdent(name) + "(" + strings.Join(parts, ", ") + ")", true
}

// oidList is an oidvector's text: OIDs separated by spaces.
func oidList(text string) []uint32 {
	var out []uint32
	for _, f := range strings.Fields(text) {
		out = append(out, atou(f))
	}
	return out
}

func atou(s string) uint32 {
	n, _ := strconv.ParseUint(s, 10, 32)
	return uint32(n)
}

// builtinRows are the kept rows of relation name as datums of its
// columns.
func (s *Session) builtinRows(name string, cols []eval.RelColumn) ([][]eval.Datum, error) {
	rows := s.builtinCatalog().rows[name]
	out := make([][]eval.Datum, 0, len(rows))
	for _, row := range rows {
		ds := make([]eval.Datum, len(row))
		for i, v := range row {
			if v == "\x00" {
				ds[i] = eval.Null
				continue
			}
			d, err := s.Input(cols[i].Type, v)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, cols[i].Name, err)
			}
			ds[i] = d
		}
		out = append(out, ds)
	}
	return out, nil
}

// arrayItems is a simple array literal's items ({a,b}); none for NULL.
func arrayItems(text string) []string {
	if text == "\x00" || len(text) < 2 {
		return nil
	}
	inner := text[1 : len(text)-1]
	if inner == "" {
		return nil
	}
	return strings.Split(inner, ",")
}

// functionArguments is pg_get_function_arguments (identity: without OUT
// arguments, pg_get_function_identity_arguments): "[mode] [name] type"
// for each.
func (p procRow) functionArguments(identity bool) string {
	types, modes := p.allArgs, p.modes
	if types == nil {
		types = p.args
	}
	var parts []string
	for i, t := range types {
		mode := "i"
		if i < len(modes) {
			mode = modes[i]
		}
		var b strings.Builder
		switch {
		case mode == "t", mode == "o" && identity:
			continue
		case mode == "o":
			b.WriteString("OUT ")
		case mode == "b":
			b.WriteString("INOUT ")
		case mode == "v", modes == nil && p.variadic && i == len(types)-1:
			b.WriteString("VARIADIC ")
		}
		if i < len(p.names) && p.names[i] != "" {
			b.WriteString(p.names[i] + " ")
		}
		b.WriteString(typeText(t))
		parts = append(parts, b.String())
	}
	return strings.Join(parts, ", ")
}

// functionResult is pg_get_function_result: its type, SETOF it, or a
// TABLE of its table arguments.
func (p procRow) functionResult() string {
	var cols []string
	for i, m := range p.modes {
		if m == "t" && i < len(p.allArgs) {
			name := ""
			if i < len(p.names) {
				name = p.names[i] + " "
			}
			cols = append(cols, name+typeText(p.allArgs[i]))
		}
	}
	switch {
	case cols != nil:
		return "TABLE(" + strings.Join(cols, ", ") + ")"
	case p.retset:
		return "SETOF " + typeText(p.ret)
	}
	return typeText(p.ret)
}

func typeText(oid uint32) string {
	if t := eval.TypeByOID(oid); t != nil {
		return t.SQLName()
	}
	return strconv.FormatUint(uint64(oid), 10)
}

func init() {
	proc := func(f func(p procRow) string) func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
			p, ok := sessionOf(e).builtinCatalog().procs[uint32(a[0].I)]
			if !ok {
				return eval.Null, nil
			}
			return eval.Text(f(p)), nil
		}
	}
	eval.Define("pg_get_function_arguments", eval.TText, true, proc(func(p procRow) string { return p.functionArguments(false) }), eval.TOid)
	eval.Define("pg_get_function_identity_arguments", eval.TText, true, proc(func(p procRow) string { return p.functionArguments(true) }), eval.TOid)
	eval.Define("pg_get_function_result", eval.TText, true, proc(procRow.functionResult), eval.TOid)
	eval.Define("pg_function_is_visible", eval.TBool, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		_, ok := sessionOf(e).builtinCatalog().procs[uint32(a[0].I)]
		return eval.Bool(ok), nil
	}, eval.TOid)
}
