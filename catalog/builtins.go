package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
)

// The built-in functions, aggregates, operators, casts, languages and
// collations seqd has, as pg_proc, pg_aggregate, pg_operator, pg_cast,
// pg_language and pg_collation list them: PostgreSQL 15's rows
// (BuiltinRows, by scripts/gen-pgcatalog), those of them the evaluator
// accepts. A function or operator is listed when a call of it with NULLs
// of its argument types compiles, a cast when the evaluator makes it in
// the same context; the types' input and output functions are listed as
// pg_type names them; the sequence functions are those their
// descriptors declare (SequenceFunction).

// SequenceFunction is what pg_proc lists of a sequence function's
// descriptor: its name, its arguments' types as pg_proc lists them
// (regclass for the sequence, then the rest), how many of them a call
// must give, and its result's type.
type SequenceFunction struct {
	Name    string
	Args    []*eval.Type
	MinArgs int
	Result  *eval.Type
}

// Builtins are the rows of the built-in relations kept, as text, and the
// functions by OID and by name. They are made once (NewBuiltins) and
// only read after: safe for concurrent use.
type Builtins struct {
	rows  map[string][][]string
	procs map[uint32]Proc
	named map[string][]uint32
}

// Proc is what regproc, regprocedure and pg_get_function_* show of a
// function: its input argument types, and all its arguments with their
// modes and names where it has them.
type Proc struct {
	Name     string
	Args     []uint32
	AllArgs  []uint32
	Modes    []string
	Names    []string
	Ret      uint32
	Retset   bool
	Variadic bool
}

// pg_proc's columns by position (PostgreSQL 15's order).
const (
	procOID, procName, procLang, procVariadic, procRetset, procRettype, procArgtypes = 0, 1, 4, 7, 13, 18, 19
	procAllArgtypes, procArgmodes, procArgnames                                      = 20, 21, 22
	procKind, procSecdef, procStrict, procVolatile, procSrc, procACL                 = 9, 10, 12, 14, 25, 29
)

// null is a NULL in BuiltinRows' text.
const null = "\x00"

// TypeFunctionOIDs are the OIDs of the built-in types' own functions
// (input, output ...) by name, which pg_type names.
var TypeFunctionOIDs = sync.OnceValue(func() map[string]uint32 {
	io := map[string]bool{}
	for _, n := range eval.TypeIOFunctions() {
		io[n] = true
	}
	out := map[string]uint32{}
	for _, r := range BuiltinRows["pg_proc"] {
		if io[r[procName]] {
			out[r[procName]] = atou(r[procOID])
		}
	}
	return out
})

// NewBuiltins keeps the rows of BuiltinRows the evaluator has: compiles
// reports whether a query (a SELECT of a call or an operator with NULL
// arguments) compiles; seqFuncs are the sequence functions' descriptors,
// of which pg_proc lists each signature PostgreSQL has (seqd's own
// functions and MariaDB's spellings have no row, as PostgreSQL's
// catalog, which clients compare with seqd's, has none).
func NewBuiltins(compiles func(query string) bool, seqFuncs []SequenceFunction) *Builtins {
	b := &Builtins{rows: map[string][][]string{}, procs: map[uint32]Proc{}, named: map[string][]uint32{}}
	io := TypeFunctionOIDs()
	bySeq := map[string][]SequenceFunction{}
	for _, f := range seqFuncs {
		bySeq[f.Name] = append(bySeq[f.Name], f)
	}
	langs := map[string]bool{}
	for _, r := range BuiltinRows["pg_proc"] {
		args := oidList(r[procArgtypes])
		if fs, ok := bySeq[r[procName]]; ok {
			if !declares(fs, args, atou(r[procRettype])) {
				continue
			}
		} else if _, ok := io[r[procName]]; !ok {
			call, ok := sampleCall(r[procName], args, r[procVariadic] != "0")
			if !ok || !compiles("select "+call) && !compiles("select * from "+call) {
				continue
			}
		}
		b.addProc(r, args)
		langs[r[procLang]] = true
	}
	for _, r := range BuiltinRows["pg_aggregate"] {
		if _, ok := b.procs[atou(r[0])]; ok {
			b.rows["pg_aggregate"] = append(b.rows["pg_aggregate"], r)
		}
	}
	for _, r := range BuiltinRows["pg_operator"] {
		if q, ok := operatorQuery(r); ok && compiles(q) {
			b.rows["pg_operator"] = append(b.rows["pg_operator"], r)
		}
	}
	for _, r := range BuiltinRows["pg_cast"] {
		from, to := eval.TypeByOID(atou(r[1])), eval.TypeByOID(atou(r[2]))
		if from != nil && to != nil && eval.Castable(from, to) && (r[4] == "i") == eval.ImplicitCast(from, to) {
			b.rows["pg_cast"] = append(b.rows["pg_cast"], r)
		}
	}
	for _, r := range BuiltinRows["pg_language"] {
		if langs[r[0]] {
			b.rows["pg_language"] = append(b.rows["pg_language"], r)
		}
	}
	b.rows["pg_collation"] = BuiltinRows["pg_collation"]
	return b
}

// declares reports whether one of a sequence function's descriptors
// takes args (a call may give from MinArgs to all of its Args) and
// returns ret.
func declares(fs []SequenceFunction, args []uint32, ret uint32) bool {
	for _, f := range fs {
		if len(args) < f.MinArgs || len(args) > len(f.Args) || f.Result.OID() != ret {
			continue
		}
		if slices.EqualFunc(f.Args[:len(args)], args, func(t *eval.Type, oid uint32) bool { return t.OID() == oid }) {
			return true
		}
	}
	return false
}

// addProc keeps pg_proc row r, of argument types args.
func (b *Builtins) addProc(r []string, args []uint32) {
	oid := atou(r[procOID])
	p := Proc{Name: r[procName], Args: args, Ret: atou(r[procRettype]), Retset: r[procRetset] == "t", Variadic: r[procVariadic] != "0",
		Modes: arrayItems(r[procArgmodes]), Names: arrayItems(r[procArgnames])}
	for _, a := range arrayItems(r[procAllArgtypes]) {
		p.AllArgs = append(p.AllArgs, atou(a))
	}
	b.procs[oid] = p
	b.named[r[procName]] = append(b.named[r[procName]], oid)
	b.rows["pg_proc"] = append(b.rows["pg_proc"], r)
}

// operatorQuery is a use of pg_operator row r with NULLs of its operand
// types; false for an operator of a type seqd has not.
func operatorQuery(r []string) (string, bool) {
	l, rt := eval.TypeByOID(atou(r[7])), eval.TypeByOID(atou(r[8]))
	switch {
	case rt == nil:
		return "", false
	case r[7] == "0":
		return fmt.Sprintf("select %s NULL::%s", r[1], rt.SQLName()), true
	case l != nil:
		return fmt.Sprintf("select NULL::%s %s NULL::%s", l.SQLName(), r[1], rt.SQLName()), true
	}
	return "", false
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

// Proc is the kept function of an OID.
func (b *Builtins) Proc(oid uint32) (Proc, bool) {
	p, ok := b.procs[oid]
	return p, ok
}

// Named are the OIDs of the kept functions of a name, in OID order.
func (b *Builtins) Named(name string) []uint32 { return b.named[name] }

// rowsOf are the kept rows of relation name as datums of its columns.
func (b *Builtins) rowsOf(name string, cols []eval.RelColumn) ([][]eval.Datum, error) {
	rows := b.rows[name]
	out := make([][]eval.Datum, 0, len(rows))
	for _, row := range rows {
		ds := make([]eval.Datum, len(row))
		for i, v := range row {
			d, err := b.datum(cols[i].Type, v)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, cols[i].Name, err)
			}
			ds[i] = d
		}
		out = append(out, ds)
	}
	return out, nil
}

// datum is text v (BuiltinRows') as a value of type t: a regproc or
// regprocedure shows its function's name, as the session's output of
// it; other types have no names to resolve.
func (b *Builtins) datum(t *eval.Type, v string) (eval.Datum, error) {
	if v == null {
		return eval.Null, nil
	}
	switch t.OID() {
	case eval.OIDRegproc, eval.OIDRegprocedure:
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return eval.Null, fmt.Errorf("%q is not an OID", v)
		}
		return b.RegOut(t.OID(), uint32(n)), nil
	}
	// The other types' input asks nothing of a session (only names and
	// times do), so none is passed.
	if eval.IsReg(t) || t.OID() == eval.OIDTimestamptz {
		return eval.Null, fmt.Errorf("no input of %s without a session", t.SQLName())
	}
	return eval.Input(nil, t, v)
}

// RegOut is a function's regproc (its name) or regprocedure (its name
// and argument types) value: "-" for 0, the OID's digits for one that is
// no kept function's.
func (b *Builtins) RegOut(typ, oid uint32) eval.Datum {
	d := eval.Datum{Kind: eval.KInt, I: int64(oid)}
	if oid == 0 {
		d.S = "-"
		return d
	}
	p, ok := b.procs[oid]
	switch {
	case !ok:
	case typ == eval.OIDRegproc:
		d.S = pgsql.QuoteIdent(p.Name)
	default:
		args := make([]string, len(p.Args))
		for i, a := range p.Args {
			if t := eval.TypeByOID(a); t != nil {
				args[i] = t.SQLName()
			}
		}
		d.S = pgsql.QuoteIdent(p.Name) + "(" + strings.Join(args, ",") + ")"
	}
	return d
}

// builtinRows are the rows of pg_catalog relation name, of columns
// cols, from the Source's Builtins.
func builtinRows(name string, cols []eval.RelColumn) func(Source) ([][]eval.Datum, error) {
	return func(src Source) ([][]eval.Datum, error) { return src.Builtins().rowsOf(name, cols) }
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

// arrayItems is a simple array literal's items ({a,b}); none for NULL.
func arrayItems(text string) []string {
	if text == null || len(text) < 2 {
		return nil
	}
	inner := text[1 : len(text)-1]
	if inner == "" {
		return nil
	}
	return strings.Split(inner, ",")
}

// Arguments is pg_get_function_arguments (identity: without OUT
// arguments, pg_get_function_identity_arguments): "[mode] [name] type"
// for each.
func (p Proc) Arguments(identity bool) string {
	types, modes := p.AllArgs, p.Modes
	if types == nil {
		types = p.Args
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
		case mode == "v", modes == nil && p.Variadic && i == len(types)-1:
			b.WriteString("VARIADIC ")
		}
		if i < len(p.Names) && p.Names[i] != "" {
			b.WriteString(p.Names[i] + " ")
		}
		b.WriteString(typeText(t))
		parts = append(parts, b.String())
	}
	return strings.Join(parts, ", ")
}

// Result is pg_get_function_result: its type, SETOF it, or a TABLE of
// its table arguments.
func (p Proc) Result() string {
	var cols []string
	for i, m := range p.Modes {
		if m == "t" && i < len(p.AllArgs) {
			name := ""
			if i < len(p.Names) {
				name = p.Names[i] + " "
			}
			cols = append(cols, name+typeText(p.AllArgs[i]))
		}
	}
	switch {
	case cols != nil:
		return "TABLE(" + strings.Join(cols, ", ") + ")"
	case p.Retset:
		return "SETOF " + typeText(p.Ret)
	}
	return typeText(p.Ret)
}

func typeText(oid uint32) string {
	if t := eval.TypeByOID(oid); t != nil {
		return t.SQLName()
	}
	return strconv.FormatUint(uint64(oid), 10)
}

// typeRows are pg_type's rows, their functions by OID (the types' own
// functions, which pg_proc always lists).
func typeRows(Source) ([][]eval.Datum, error) {
	rows := eval.PgTypeRows(SuperuserOID)
	oids := TypeFunctionOIDs()
	for _, row := range rows {
		for i, c := range eval.PgTypeColumns {
			if c.Type == eval.TRegproc {
				row[i].I = int64(oids[row[i].S]) // "-": 0
			}
		}
	}
	return rows, nil
}
