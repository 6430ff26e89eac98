package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/sqlerr"
)

// seqFunc describes a sequence function: its PostgreSQL name, arity, and
// whether it is a MariaDB spelling (first argument a bare name).
type seqFunc struct {
	name             string
	minArgs, maxArgs int
	maria            bool
}

var seqFuncs = map[string]seqFunc{
	"nextval":      {"nextval", 1, 1, false},
	"currval":      {"currval", 1, 1, false},
	"lastval":      {"lastval", 0, 0, false},
	"setval":       {"setval", 2, 3, false},
	"seqd_reserve": {"seqd_reserve", 2, 2, false},
	"seqd_release": {"seqd_release", 3, 3, false},
	// Spanner's: the counter behind the last value handed out.
	"get_internal_sequence_state": {"get_internal_sequence_state", 1, 1, false},
	"seqd_mariadb_nextval":        {"nextval", 1, 1, true},
	"seqd_mariadb_lastval":        {"lastval", 1, 1, true},
	"seqd_mariadb_setval":         {"setval", 2, 4, true},
}

// seqExpr calls a sequence function. The sequence is named either at
// compile time (a literal, resolved then, as PostgreSQL resolves
// nextval('s') at parse) or by an expression evaluated per call.
type seqExpr struct {
	f       seqFunc
	name    engine.Name
	hasName bool
	seqArg  eval.Expr // when !hasName
	args    []eval.Expr
}

func (x *seqExpr) Type() *eval.Type {
	if x.f.name == "seqd_release" {
		return eval.TBool
	}
	return eval.TInt8
}

func init() {
	for name, f := range seqFuncs {
		eval.DefineCompiled(name, eval.CompiledFunc{Column: f.name, Compile: f.compile})
	}
	eval.DefineCompiled("pg_sequence_parameters", eval.CompiledFunc{Column: "pg_sequence_parameters", SetReturning: true, Compile: compileSequenceParameters})
}

// compilingFor is the session a Compiler compiles for: every Compiler the
// executor makes carries its session's evalView.
func compilingFor(c *eval.Compiler) *Session { return (*Session)(c.Session.(*evalView)) }

// compile compiles a call of a sequence function.
func (f seqFunc) compile(c *eval.Compiler, sc *eval.Scope, fc *pg.FuncCall) (eval.Expr, error) {
	if len(fc.Args) < f.minArgs || len(fc.Args) > f.maxArgs {
		args := make([]eval.Expr, 0, len(fc.Args))
		for _, a := range fc.Args {
			x, err := c.Expr(sc, a)
			if err != nil {
				return nil, err
			}
			args = append(args, x)
		}
		return nil, c.NoFunction(f.name, args, fc.Location)
	}
	x := &seqExpr{f: f}
	if len(fc.Args) > 0 {
		a := fc.Args[0]
		switch {
		case f.maria && a.GetColumnRef() != nil:
			names := eval.NodeStrings(a.GetColumnRef().Fields)
			q := pgsql.QName{Rel: names[len(names)-1]}
			if len(names) >= 2 {
				q.Schema = names[len(names)-2]
			}
			n, err := compilingFor(c).lookupSequence(q)
			if err != nil {
				return nil, eval.Position(err, c.SQL, eval.Location(a))
			}
			x.name, x.hasName = n, true
		case a.GetAConst() != nil && a.GetAConst().GetSval() != nil:
			n, err := compilingFor(c).sequenceByText(a.GetAConst().GetSval().Sval)
			if err != nil {
				return nil, eval.Position(err, c.SQL, eval.Location(a))
			}
			x.name, x.hasName = n, true
		default:
			arg, err := c.Expr(sc, a)
			if err != nil {
				return nil, err
			}
			reg, err := c.Coerce(arg, eval.TRegclass, eval.Location(a), "argument")
			if err != nil {
				return nil, c.NoFunction(f.name, []eval.Expr{arg}, fc.Location)
			}
			x.seqArg = reg
		}
	}
	want := []*eval.Type{eval.TInt8, eval.TBool, eval.TBool}
	if f.name == "seqd_release" {
		want = []*eval.Type{eval.TInt8, eval.TInt8}
	}
	for i, a := range fc.Args[min(1, len(fc.Args)):] {
		arg, err := c.Expr(sc, a)
		if err != nil {
			return nil, err
		}
		t := want[min(i, len(want)-1)]
		if f.maria && i >= 1 {
			t = eval.TInt8 // MariaDB's SETVAL(s, n, is_used, round): integers; round is ignored
		}
		if arg, err = c.Coerce(arg, t, eval.Location(a), "argument"); err != nil {
			return nil, err
		}
		x.args = append(x.args, arg)
	}
	if f.name == "seqd_reserve" {
		return &reserveExpr{x}, nil
	}
	return x, nil
}

// reserveExpr is seqd_reserve: a row of four columns (reserveColumns).
type reserveExpr struct{ *seqExpr }

func (r *reserveExpr) Columns() []eval.RelColumn                 { return reserveColumns }
func (r *reserveExpr) EvalRow(e *eval.Env) ([]eval.Datum, error) { return r.call(e) }

func (x *seqExpr) CanSeries() bool { return x.f.name == "nextval" && x.hasName }

// Series is SELECT nextval('s') FROM generate_series(a, b): the checks
// nextval makes, then values streamed from ranges.
func (x *seqExpr) Series(e *eval.Env, count func() (int64, error)) (eval.Rows, error) {
	s := sessionOf(e)
	if err := s.checkPrivilege(x.name, engine.PrivUsage|engine.PrivUpdate); err != nil {
		return nil, err
	}
	if !s.isTemp(x.name) {
		if err := s.checkTakes(x.name, "nextval()"); err != nil {
			return nil, err
		}
	}
	n, err := count()
	if err != nil {
		return nil, err
	}
	return &bulkNextval{s: s, ctx: e.Ctx, name: x.name, left: n}, nil
}

func (x *seqExpr) Eval(e *eval.Env) (eval.Datum, error) {
	if x.f.name == "nextval" && x.hasName {
		// The hot path: nextval('s'), resolved when compiled.
		s := sessionOf(e)
		temp := s.tempEng != nil && s.isTemp(x.name)
		// Privilege first, then read-only, as PostgreSQL checks them.
		if err := s.checkPrivilege(x.name, engine.PrivUsage|engine.PrivUpdate); err != nil {
			return eval.Null, err
		}
		if !temp {
			if err := s.checkTakes(x.name, "nextval()"); err != nil {
				return eval.Null, err
			}
		}
		var id uint64
		var v int64
		var err error
		if temp || s.txn != nil {
			id, v, err = s.engFor(x.name).Nextval(e.Ctx, x.name)
		} else {
			id, v, err = s.eng.Nextval(e.Ctx, x.name) // no interface call on the hot path
		}
		if err != nil {
			return eval.Null, err
		}
		s.seqs.Nextval(s.memoryID(x.name, id), v)
		s.lastName = x.name
		return eval.Int(v), nil
	}
	row, err := x.call(e)
	if err != nil || row == nil {
		return eval.Null, err
	}
	return row[0], nil
}

// call evaluates the function; seqd_reserve returns three values, the
// others one; nil means NULL.
func (x *seqExpr) call(e *eval.Env) ([]eval.Datum, error) {
	s := sessionOf(e)
	if x.f.name == "lastval" && !x.f.maria {
		return s.lastval()
	}
	n := x.name
	if !x.hasName {
		d, err := x.seqArg.Eval(e)
		if err != nil || d.Kind == eval.KNull {
			return nil, err
		}
		if n, err = s.sequenceByOID(uint32(d.I)); err != nil {
			return nil, err
		}
	}
	var args [3]eval.Datum
	for i, a := range x.args {
		d, err := a.Eval(e)
		if err != nil {
			return nil, err
		}
		if d.Kind == eval.KNull {
			return nil, nil
		}
		args[i] = d
	}
	ctx := e.Ctx
	eng := s.engFor(n)
	if want := funcPrivileges[x.f.name]; want != 0 {
		if err := s.checkPrivilege(n, want); err != nil {
			return nil, err
		}
	}
	switch x.f.name {
	case "nextval", "setval", "seqd_reserve", "seqd_release":
		if s.isTemp(n) {
			break // temporary sequences change in read-only transactions too
		}
		command := x.f.name + "()"
		if x.f.name != "setval" { // a NOORDER sequence's blocks are the node's
			if err := s.checkTakes(n, command); err != nil {
				return nil, err
			}
		} else if err := s.checkWritable(command); err != nil {
			return nil, err
		}
	}
	return x.run(ctx, s, eng, n, args)
}

// run carries out the function on sequence n, its arguments checked and
// not NULL.
func (x *seqExpr) run(ctx context.Context, s *Session, eng seqCatalog, n engine.Name, args [3]eval.Datum) ([]eval.Datum, error) {
	switch x.f.name {
	case "nextval":
		id, v, err := eng.Nextval(ctx, n)
		if err != nil {
			return nil, err
		}
		s.seqs.Nextval(s.memoryID(n, id), v)
		s.lastName = n
		return []eval.Datum{eval.Int(v)}, nil
	case "currval", "lastval":
		info, err := eng.Info(n)
		if err != nil {
			return nil, err
		}
		v, ok := s.seqs.Currval(s.memoryID(n, info.ID))
		if !ok && x.f.maria {
			return nil, nil // MariaDB: NULL until the session used s
		}
		if !ok {
			return nil, sqlerr.Errorf(sqlerr.ObjectNotInPrerequisiteState, "currval of sequence \"%s\" is not yet defined in this session", n.Rel())
		}
		return []eval.Datum{eval.Int(v)}, nil
	case "setval":
		called := true
		if len(x.args) >= 2 {
			called = args[1].I != 0
		}
		var id uint64
		var err error
		if x.f.maria {
			// MariaDB's: NULL, and no change, where it would move the
			// sequence back.
			var moved bool
			if id, moved, err = eng.SetvalAhead(ctx, n, args[0].I, called); err == nil && !moved {
				return nil, nil
			}
		} else {
			id, err = eng.Setval(ctx, n, args[0].I, called)
		}
		if err != nil {
			return nil, err
		}
		if called {
			s.seqs.Setval(s.memoryID(n, id), args[0].I)
		}
		return []eval.Datum{args[0]}, nil
	case "seqd_reserve":
		count := args[0].I
		if count < 1 || count > s.maxRows {
			return nil, sqlerr.Errorf(sqlerr.InvalidParameterValue, "seqd_reserve count must be between 1 and %d, not %d", s.maxRows, count)
		}
		id, r, err := eng.Reserve(ctx, n, count)
		if err != nil {
			return nil, err
		}
		// A shaped sequence's range is one of counters; its shape, taken
		// with it, says how the caller maps them to values, and currval
		// is the last value the range holds.
		shape := eval.Null
		if r.Shape.Shaped() {
			shape = eval.Text(r.Shape.String())
		}
		last, ok := r.LastValue()
		if ok {
			s.seqs.Nextval(s.memoryID(n, id), last)
			s.lastName = n
		}
		return []eval.Datum{eval.Int(r.First), eval.Int(r.Last()), eval.Int(r.Increment), shape}, nil
	case "get_internal_sequence_state":
		info, err := eng.Info(n)
		if err != nil {
			return nil, err
		}
		if !info.State.Called {
			return []eval.Datum{eval.Null}, nil
		}
		return []eval.Datum{eval.Int(info.State.Last)}, nil
	case "seqd_release":
		k, err := eng.Release(n, args[0].I, args[1].I)
		if err != nil {
			return nil, err
		}
		return []eval.Datum{eval.Bool(k > 0)}, nil
	}
	return nil, sqlerr.Errorf(sqlerr.UndefinedFunction, "function %s does not exist", x.f.name)
}

// lastval is PostgreSQL's lastval(): the value nextval last gave the
// session, if its sequence is still the one it came from.
func (s *Session) lastval() ([]eval.Datum, error) {
	id, v, ok := s.seqs.Lastval()
	if ok {
		if info, err := s.engFor(s.lastName).Info(s.lastName); err != nil || s.memoryID(s.lastName, info.ID) != id {
			ok = false
		}
	}
	if !ok {
		return nil, sqlerr.Errorf(sqlerr.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
	}
	if err := s.checkPrivilege(s.lastName, engine.PrivUsage|engine.PrivSelect); err != nil {
		return nil, err
	}
	return []eval.Datum{eval.Int(v)}, nil
}

// funcPrivileges are the privileges, any one of which a sequence function
// needs, as PostgreSQL's (seqd_reserve and seqd_release as nextval).
var funcPrivileges = map[string]engine.Privs{
	"nextval": engine.PrivUsage | engine.PrivUpdate, "seqd_reserve": engine.PrivUsage | engine.PrivUpdate,
	"seqd_release": engine.PrivUsage | engine.PrivUpdate, "setval": engine.PrivUpdate,
	"currval": engine.PrivUsage | engine.PrivSelect, "lastval": engine.PrivUsage | engine.PrivSelect,
	"get_internal_sequence_state": engine.PrivUsage | engine.PrivSelect,
}

// reserveColumns are seqd_reserve's result columns: shape is NULL for an
// ordered sequence, else the shape that maps the counters first..last to
// values (seqmath.Shape's text form).
var reserveColumns = eval.Columns("first", eval.TInt8, "last", eval.TInt8, "increment", eval.TInt8, "shape", eval.TText)

// bulkChunk is how many values one generate_series row batch reserves.
const bulkChunk = 1 << 16

// bulkNextval streams SELECT nextval('s') FROM generate_series(a, b) from
// ranges reserved bulkChunk at a time.
type bulkNextval struct {
	s    *Session
	ctx  context.Context
	name engine.Name
	id   uint64
	left int64
	r    seqmath.Range
	i    int64
	row  [1]eval.Datum
}

func (b *bulkNextval) Next() ([]eval.Datum, bool, error) {
	eng := b.s.engFor(b.name)
	for b.left > 0 {
		if b.i == b.r.Count {
			if b.r.Shape.HasSkip() {
				// A skip range may pass over any number of counters:
				// nextval jumps them rather than stream them.
				return b.nextval(eng)
			}
			id, r, err := eng.ReserveUpTo(b.ctx, b.name, min(b.left, bulkChunk))
			if err != nil {
				return nil, false, err
			}
			b.id, b.r, b.i = id, r, 0
		}
		v, ok := b.r.Value(b.i) // a shaped sequence's counters map to values
		b.i++
		if !ok {
			continue // the skip range (set since the last chunk) holds it
		}
		b.left--
		// The chunk's last counters may be skipped: then every value
		// is remembered, not only the chunk's last.
		if b.i == b.r.Count || b.left == 0 || b.r.Shape.HasSkip() {
			b.s.seqs.Nextval(b.s.memoryID(b.name, b.id), v)
			b.s.lastName = b.name
		}
		b.row[0] = eval.Int(v)
		return b.row[:], true, nil
	}
	return nil, false, nil
}

// nextval is one row of the stream from nextval.
func (b *bulkNextval) nextval(eng seqCatalog) ([]eval.Datum, bool, error) {
	id, v, err := eng.Nextval(b.ctx, b.name)
	if err != nil {
		return nil, false, err
	}
	b.left--
	b.s.seqs.Nextval(b.s.memoryID(b.name, id), v)
	b.s.lastName = b.name
	b.row[0] = eval.Int(v)
	return b.row[:], true, nil
}

// sequenceByText resolves the text form of a sequence name, which must
// exist. The last name resolved is remembered: clients repeat the same
// nextval('s'), and it stands until a name could resolve differently.
func (s *Session) sequenceByText(text string) (engine.Name, error) {
	epoch := s.planEpoch()
	if text == s.regText && epoch == s.regEpoch && text != "" {
		return s.regName, nil
	}
	q, err := pgsql.ParseQualifiedName(text)
	if err != nil {
		return engine.Name{}, err
	}
	n, err := s.lookupSequence(q)
	if err != nil {
		if rel, rerr := s.resolveRelation(q); rerr == nil && rel.kind != 'S' {
			return engine.Name{}, sqlerr.Errorf(sqlerr.DatatypeMismatch, "\"%s\" is not a sequence", q.Rel)
		}
		return engine.Name{}, err
	}
	s.regText, s.regName, s.regEpoch = text, n, epoch
	return n, nil
}

// sequenceByOID names the sequence an OID (a regclass value) stands for.
func (s *Session) sequenceByOID(oid uint32) (engine.Name, error) {
	n, id, ok := s.oids().sequence(oid)
	if info, err := s.engFor(n).Info(n); ok && (errors.Is(err, engine.ErrNotFound) || err == nil && info.ID != id) {
		ok = false // dropped, or dropped and created again
	}
	if !ok {
		if rel := catalogByOID(oid); rel != nil {
			return engine.Name{}, sqlerr.Errorf(sqlerr.DatatypeMismatch, "\"%s\" is not a sequence", rel.name)
		}
		return engine.Name{}, sqlerr.Errorf(sqlerr.UndefinedTable, "could not open relation with OID %d", oid)
	}
	return n, nil
}

// regclassIn is regclass's input function: a relation name (a sequence or
// a catalog relation) along the search path, or a numeric OID.
func (s *Session) regclassIn(text string) (eval.Datum, error) {
	if t := strings.TrimSpace(text); t != "" && t[0] >= '0' && t[0] <= '9' {
		d, err := s.Input(eval.TOid, t)
		if err != nil {
			return eval.Null, err
		}
		return s.regclassOf(uint32(d.I)), nil
	}
	q, err := pgsql.ParseQualifiedName(text)
	if err != nil {
		return eval.Null, err
	}
	rel, err := s.resolveRelation(q)
	if err != nil {
		return eval.Null, err
	}
	if rel.kind != 'S' {
		return s.regclassOf(rel.oid), nil
	}
	n, _ := engine.NewName(rel.schema, rel.name)
	return eval.Datum{Kind: eval.KInt, I: int64(rel.oid), S: s.displayRel(n)}, nil
}

// regclassOf is the regclass value of an OID, named if it is known.
func (s *Session) regclassOf(oid uint32) eval.Datum {
	if n, _, ok := s.oids().sequence(oid); ok {
		return eval.Datum{Kind: eval.KInt, I: int64(oid), S: s.displayRel(n)}
	}
	if rel := catalogByOID(oid); rel != nil {
		name := pgsql.QuoteIdent(rel.name)
		if !s.catalogVisible(rel) {
			name = pgsql.QuoteIdent(rel.schema) + "." + name
		}
		return eval.Datum{Kind: eval.KInt, I: int64(oid), S: name}
	}
	return eval.Datum{Kind: eval.KInt, I: int64(oid), S: fmt.Sprint(oid)}
}

func (s *Session) sequenceLastValue(oid uint32) (eval.Datum, error) {
	n, err := s.sequenceByOID(oid)
	if err != nil {
		return eval.Null, err
	}
	if err := s.checkPrivilege(n, engine.PrivUsage|engine.PrivSelect); err != nil {
		return eval.Null, err
	}
	info, err := s.engFor(n).Info(n)
	if err == nil {
		info, err = s.reserved(info)
	}
	if err != nil {
		return eval.Null, err
	}
	if !info.State.Called {
		return eval.Null, nil
	}
	return eval.Int(info.Options.Value(info.State.Last)), nil
}

// sequenceComment is obj_description() of a relation: its comment, NULL if
// it has none.
func (s *Session) sequenceComment(oid uint32) eval.Datum {
	n, err := s.sequenceByOID(oid)
	if err != nil {
		return eval.Null
	}
	if c, err := s.engFor(n).Comment(n); err == nil && c != "" {
		return eval.Text(c)
	}
	return eval.Null
}

// sequenceParametersColumns are pg_sequence_parameters' result columns.
var sequenceParametersColumns = eval.Columns("start_value", eval.TInt8, "minimum_value", eval.TInt8, "maximum_value", eval.TInt8, "increment", eval.TInt8,
	"cycle_option", eval.TBool, "cache_size", eval.TInt8, "data_type", eval.TOid)

// compileSequenceParameters compiles FROM pg_sequence_parameters(oid).
func compileSequenceParameters(c *eval.Compiler, sc *eval.Scope, fc *pg.FuncCall) (eval.Expr, error) {
	if len(fc.Args) != 1 {
		return nil, c.ErrAt(fc.Location, sqlerr.UndefinedFunction, "function pg_sequence_parameters does not exist")
	}
	arg, err := c.Expr(sc, fc.Args[0])
	if err != nil {
		return nil, err
	}
	if arg, err = c.Coerce(arg, eval.TOid, eval.Location(fc.Args[0]), "argument"); err != nil {
		return nil, err
	}
	return &sequenceParameters{arg: arg}, nil
}

// sequenceParameters is pg_sequence_parameters(oid): a sequence's options.
type sequenceParameters struct{ arg eval.Expr }

func (p *sequenceParameters) Type() *eval.Type          { return eval.TInt8 }
func (p *sequenceParameters) Columns() []eval.RelColumn { return sequenceParametersColumns }
func (p *sequenceParameters) Eval(e *eval.Env) (eval.Datum, error) {
	row, err := p.EvalRow(e)
	if err != nil || row == nil {
		return eval.Null, err
	}
	return row[0], nil
}

func (p *sequenceParameters) EvalRow(e *eval.Env) ([]eval.Datum, error) {
	d, err := p.arg.Eval(e)
	if err != nil || d.Kind == eval.KNull {
		return nil, err
	}
	s := sessionOf(e)
	n, err := s.sequenceByOID(uint32(d.I))
	if err != nil {
		return nil, err
	}
	// PostgreSQL 15: SELECT, UPDATE or USAGE on the sequence.
	if p, err := s.privilegesOn(n); err != nil {
		return nil, err
	} else if p&(engine.PrivSelect|engine.PrivUpdate|engine.PrivUsage) == 0 {
		return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for sequence %s", n.Rel())
	}
	info, err := s.engFor(n).Info(n)
	if err != nil {
		return nil, err
	}
	o := info.Options
	return []eval.Datum{eval.Int(o.Start), eval.Int(o.Min), eval.Int(o.Max), eval.Int(o.Increment), eval.Bool(o.Cycle), eval.Int(o.Cache),
		eval.Int(int64(eval.TypeByName(sqlTypeName(o.Type.String())).OID()))}, nil
}
