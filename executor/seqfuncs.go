package executor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/sqlerr"
	"github.com/seqd/seqd/timeid"
)

// SeqFunc describes one sequence function, once: the evaluator's
// registration, the privilege and read-only checks, the typed session
// operations (seqops.go), the catalog's pg_proc rows and the MySQL
// dialect's names all read it (SequenceFunctions). A descriptor is never
// changed after init: safe for concurrent reads.
type SeqFunc struct {
	// Name is the name SQL calls it by; Stands is the function it is
	// (an unaliased call's column): PostgreSQL's name for a MariaDB
	// spelling.
	Name, Stands string
	// MariaDB: a MariaDB spelling, with MariaDB's semantics: its
	// sequence a bare name (a column reference), LASTVAL(s) NULL until
	// the session used s, SETVAL NULL where it would move back.
	MariaDB bool
	// Sequence: the first argument names the sequence (a regclass, a
	// literal resolved when compiled, or for MariaDB a bare name);
	// lastval() takes none.
	Sequence bool
	// Args are the types of the arguments after the sequence, in order;
	// Required is how many of them a call must give.
	Args     []*eval.Type
	Required int
	// Result is the result's type; Columns, when set, the columns of the
	// row it returns (seqd_reserve, in FROM or as a select list's).
	Result  *eval.Type
	Columns []eval.RelColumn
	// Privs are the privileges on the sequence, any one of which a call
	// needs (checked before Writes, as PostgreSQL does). lastval()
	// checks them on the sequence it remembers.
	Privs engine.Privs
	// Writes says whether it changes a sequence, which a read-only
	// transaction refuses (temporary sequences aside).
	Writes Writes
	// FastPath: a call whose sequence is a literal (resolved when
	// compiled) skips the generic call's steps (Eval), and SELECT it
	// FROM generate_series(a, b) streams values from ranges (Series).
	FastPath bool
	// run carries out a call on sequence n (the zero Name for one
	// without Sequence), its arguments checked and not NULL; nil is
	// NULL.
	run func(ctx context.Context, s *Session, f *SeqFunc, n engine.Name, args []eval.Datum) ([]eval.Datum, error)
	// command names it in a read-only transaction's refusal
	// ("nextval()"), made once (init).
	command string
}

// Writes is how a sequence function changes a sequence.
type Writes uint8

const (
	// ReadsOnly: it changes nothing.
	ReadsOnly Writes = iota
	// TakesValues: it takes or gives back values (nextval, seqd_reserve,
	// seqd_release): refused in a read-only transaction but on a standby
	// for a NOORDER sequence, whose blocks are the node's (checkTakes).
	TakesValues
	// SetsPosition: it moves the sequence (setval): refused in any
	// read-only transaction (checkWritable).
	SetsPosition
)

// The descriptors' indexes in seqFuncTable, for the typed operations.
const (
	fnNextval = iota
	fnCurrval
	fnLastval
	fnSetval
	fnReserve
	fnRelease
	fnInternalState
	fnMariaNextval
	fnMariaLastval
	fnMariaSetval
	fnDecode
	fnTSO
	fnUUIDv7
)

// usage are the privileges nextval and the functions that take values
// need; reading the position needs USAGE or SELECT.
const (
	takePrivs = engine.PrivUsage | engine.PrivUpdate
	readPrivs = engine.PrivUsage | engine.PrivSelect
)

// seqFuncTable is every sequence function, as PostgreSQL 15's (seqd_reserve
// and seqd_release as nextval; get_internal_sequence_state is Spanner's:
// the counter behind the last value handed out).
var seqFuncTable = [...]SeqFunc{
	fnNextval: {Name: "nextval", Stands: "nextval", Sequence: true, Result: eval.TInt8, Privs: takePrivs, Writes: TakesValues,
		FastPath: true, run: runNextval},
	fnCurrval:       {Name: "currval", Stands: "currval", Sequence: true, Result: eval.TInt8, Privs: readPrivs, run: runCurrval},
	fnLastval:       {Name: "lastval", Stands: "lastval", Result: eval.TInt8, Privs: readPrivs, run: runLastval},
	fnSetval:        {Name: "setval", Stands: "setval", Sequence: true, Args: []*eval.Type{eval.TInt8, eval.TBool}, Required: 1, Result: eval.TInt8, Privs: engine.PrivUpdate, Writes: SetsPosition, run: runSetval},
	fnReserve:       {Name: "seqd_reserve", Stands: "seqd_reserve", Sequence: true, Args: []*eval.Type{eval.TInt8}, Required: 1, Result: eval.TInt8, Columns: reserveColumns, Privs: takePrivs, Writes: TakesValues, run: runReserve},
	fnRelease:       {Name: "seqd_release", Stands: "seqd_release", Sequence: true, Args: []*eval.Type{eval.TInt8, eval.TInt8}, Required: 2, Result: eval.TBool, Privs: takePrivs, Writes: TakesValues, run: runRelease},
	fnInternalState: {Name: "get_internal_sequence_state", Stands: "get_internal_sequence_state", Sequence: true, Result: eval.TInt8, Privs: readPrivs, run: runInternalState},
	// MariaDB's SETVAL(s, n, is_used, round): integers; round is ignored.
	fnMariaNextval: {Name: "seqd_mariadb_nextval", Stands: "nextval", MariaDB: true, Sequence: true, Result: eval.TInt8, Privs: takePrivs, Writes: TakesValues, run: runNextval},
	fnMariaLastval: {Name: "seqd_mariadb_lastval", Stands: "lastval", MariaDB: true, Sequence: true, Result: eval.TInt8, Privs: readPrivs, run: runCurrval},
	fnMariaSetval: {Name: "seqd_mariadb_setval", Stands: "setval", MariaDB: true, Sequence: true, Args: []*eval.Type{eval.TInt8, eval.TInt8, eval.TInt8}, Required: 1,
		Result: eval.TInt8, Privs: engine.PrivUpdate, Writes: SetsPosition, run: runSetval},
	// seqd_decode(s, id): a SNOWFLAKE sequence's id split into its parts.
	// seqd_tso([count]): PD's timestamps, count of them consecutive in
	// one millisecond (the first returned); seqd_uuidv7(): RFC 9562's
	// UUIDv7, as text. Anyone may call them, in any transaction; the
	// owner serves them (a follower answers 25006, as for nextval).
	fnTSO:    {Name: "seqd_tso", Stands: "seqd_tso", Args: []*eval.Type{eval.TInt8}, Result: eval.TInt8, run: runTSO},
	fnUUIDv7: {Name: "seqd_uuidv7", Stands: "seqd_uuidv7", Result: eval.TText, run: runUUIDv7},
	fnDecode: {Name: "seqd_decode", Stands: "seqd_decode", Sequence: true, Args: []*eval.Type{eval.TInt8}, Required: 1, Result: eval.TTimestamp, Columns: decodeColumns, Privs: readPrivs, run: runDecode},
}

// SequenceFunctions are the sequence functions' descriptors, in a fixed
// order: what the catalog lists in pg_proc and the MySQL dialect
// spells. The caller must not change them.
func SequenceFunctions() []*SeqFunc {
	out := make([]*SeqFunc, len(seqFuncTable))
	for i := range seqFuncTable {
		out[i] = &seqFuncTable[i]
	}
	return out
}

// MariaDBSpelling is the function a MariaDB call of name (nextval,
// lastval, setval, in any case) is compiled to: seqd_mariadb_nextval
// and the like; false for a name that is no MariaDB sequence function.
func MariaDBSpelling(name string) (string, bool) {
	for i := range seqFuncTable {
		if f := &seqFuncTable[i]; f.MariaDB && strings.EqualFold(f.Stands, name) {
			return f.Name, true
		}
	}
	return "", false
}

// ArgTypes are the types of a call's arguments as pg_proc lists them:
// regclass for the sequence, then Args.
func (f *SeqFunc) ArgTypes() []*eval.Type {
	if !f.Sequence {
		return f.Args
	}
	return append([]*eval.Type{eval.TRegclass}, f.Args...)
}

// minArgs and maxArgs bound a call's arguments, the sequence counted.
func (f *SeqFunc) minArgs() int { return f.seqArgs() + f.Required }
func (f *SeqFunc) maxArgs() int { return f.seqArgs() + len(f.Args) }

// seqArgs is 1 for a function taking a sequence, else 0.
func (f *SeqFunc) seqArgs() int {
	if f.Sequence {
		return 1
	}
	return 0
}

// check makes a call's checks on sequence n: the privilege, then the
// read-only transaction's refusal (not for a temporary sequence, which
// changes in read-only transactions too), as PostgreSQL makes them.
func (f *SeqFunc) check(s *Session, n engine.Name) error {
	if f.Privs != 0 {
		if err := s.checkPrivilege(n, f.Privs); err != nil {
			return err
		}
	}
	if f.Writes == ReadsOnly || s.isTemp(n) {
		return nil
	}
	if f.Writes == TakesValues {
		return s.checkTakes(n, f.command)
	}
	return s.checkWritable(f.command)
}

func init() {
	for i := range seqFuncTable {
		f := &seqFuncTable[i]
		f.command = f.Stands + "()"
		eval.DefineCompiled(f.Name, eval.CompiledFunc{Column: f.Stands, Compile: f.compile})
	}
	eval.DefineCompiled("pg_sequence_parameters", eval.CompiledFunc{Column: "pg_sequence_parameters", SetReturning: true, Compile: compileSequenceParameters})
}

// seqExpr calls a sequence function. The sequence is named either at
// compile time (a literal, resolved then, as PostgreSQL resolves
// nextval('s') at parse) or by an expression evaluated per call.
type seqExpr struct {
	f       *SeqFunc
	name    engine.Name
	hasName bool
	seqArg  eval.Expr // when !hasName
	args    []eval.Expr
}

func (x *seqExpr) Type() *eval.Type { return x.f.Result }

// compilingFor is the session a Compiler compiles for: every Compiler the
// executor makes carries its session's evalView.
func compilingFor(c *eval.Compiler) *Session { return (*Session)(c.Session.(*evalView)) }

// compile compiles a call of a sequence function.
func (f *SeqFunc) compile(c *eval.Compiler, sc *eval.Scope, fc *pg.FuncCall) (eval.Expr, error) {
	if len(fc.Args) < f.minArgs() || len(fc.Args) > f.maxArgs() {
		args := make([]eval.Expr, 0, len(fc.Args))
		for _, a := range fc.Args {
			x, err := c.Expr(sc, a)
			if err != nil {
				return nil, err
			}
			args = append(args, x)
		}
		return nil, c.NoFunction(f.Stands, args, fc.Location)
	}
	x := &seqExpr{f: f}
	if f.Sequence {
		if err := x.compileSequence(c, sc, fc); err != nil {
			return nil, err
		}
	}
	for i, a := range fc.Args[f.seqArgs():] {
		arg, err := c.Expr(sc, a)
		if err != nil {
			return nil, err
		}
		if arg, err = c.Coerce(arg, f.Args[i], eval.Location(a), "argument"); err != nil {
			return nil, err
		}
		x.args = append(x.args, arg)
	}
	if f.Columns != nil {
		return &rowSeqExpr{x}, nil
	}
	return x, nil
}

// compileSequence compiles the call's first argument, its sequence.
func (x *seqExpr) compileSequence(c *eval.Compiler, sc *eval.Scope, fc *pg.FuncCall) error {
	a := fc.Args[0]
	switch {
	case x.f.MariaDB && a.GetColumnRef() != nil:
		names := eval.NodeStrings(a.GetColumnRef().Fields)
		q := pgsql.QName{Rel: names[len(names)-1]}
		if len(names) >= 2 {
			q.Schema = names[len(names)-2]
		}
		n, err := compilingFor(c).lookupSequence(q)
		if err != nil {
			return eval.Position(err, c.SQL, eval.Location(a))
		}
		x.name, x.hasName = n, true
	case a.GetAConst() != nil && a.GetAConst().GetSval() != nil:
		n, err := compilingFor(c).sequenceByText(a.GetAConst().GetSval().Sval)
		if err != nil {
			return eval.Position(err, c.SQL, eval.Location(a))
		}
		x.name, x.hasName = n, true
	default:
		arg, err := c.Expr(sc, a)
		if err != nil {
			return err
		}
		reg, err := c.Coerce(arg, eval.TRegclass, eval.Location(a), "argument")
		if err != nil {
			return c.NoFunction(x.f.Stands, []eval.Expr{arg}, fc.Location)
		}
		x.seqArg = reg
	}
	return nil
}

// rowSeqExpr is a sequence function returning a row (seqd_reserve's
// four columns).
type rowSeqExpr struct{ *seqExpr }

func (r *rowSeqExpr) Columns() []eval.RelColumn                 { return r.f.Columns }
func (r *rowSeqExpr) EvalRow(e *eval.Env) ([]eval.Datum, error) { return r.call(e) }

func (x *seqExpr) CanSeries() bool { return x.f.FastPath && x.hasName }

// Series is SELECT nextval('s') FROM generate_series(a, b): the checks
// nextval makes, then values streamed from ranges.
func (x *seqExpr) Series(e *eval.Env, count func() (int64, error)) (eval.Rows, error) {
	s := sessionOf(e)
	if err := x.f.check(s, x.name); err != nil {
		return nil, err
	}
	n, err := count()
	if err != nil {
		return nil, err
	}
	return &bulkNextval{s: s, ctx: e.Ctx, name: x.name, left: n}, nil
}

func (x *seqExpr) Eval(e *eval.Env) (eval.Datum, error) {
	if x.f.FastPath && x.hasName {
		// The hot path: nextval('s'), resolved when compiled.
		s := sessionOf(e)
		if err := x.f.check(s, x.name); err != nil {
			return eval.Null, err
		}
		v, err := s.nextval(e.Ctx, x.name)
		if err != nil {
			return eval.Null, err
		}
		return eval.Int(v), nil
	}
	row, err := x.call(e)
	if err != nil || row == nil {
		return eval.Null, err
	}
	return row[0], nil
}

// call evaluates the function: its sequence, its arguments (a NULL one
// makes the call NULL, before any check), the checks, then its run.
func (x *seqExpr) call(e *eval.Env) ([]eval.Datum, error) {
	s := sessionOf(e)
	n := x.name
	if x.f.Sequence && !x.hasName {
		d, err := x.seqArg.Eval(e)
		if err != nil || d.Kind == eval.KNull {
			return nil, err
		}
		if n, err = s.sequenceByOID(uint32(d.I)); err != nil {
			return nil, err
		}
	}
	var buf [3]eval.Datum
	args := buf[:len(x.args)]
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
	if x.f.Sequence { // lastval checks the sequence it remembers
		if err := x.f.check(s, n); err != nil {
			return nil, err
		}
	}
	return x.f.run(e.Ctx, s, x.f, n, args)
}

// nextval takes sequence n's next value and remembers it (currval,
// lastval): nextval's one implementation, which the SQL functions, the
// generate_series stream and the typed operations call. The caller made
// the checks (SeqFunc.check).
func (s *Session) nextval(ctx context.Context, n engine.Name) (int64, error) {
	var id uint64
	var v int64
	var err error
	if s.txn != nil || s.isTemp(n) {
		id, v, err = s.engFor(n).Nextval(ctx, n)
	} else {
		id, v, err = s.eng.Nextval(ctx, n) // no interface call on the hot path
	}
	if err != nil {
		return 0, err
	}
	s.took(1)
	s.seqs.Nextval(s.memoryID(n, id), v)
	s.lastName = n
	return v, nil
}

func runNextval(ctx context.Context, s *Session, _ *SeqFunc, n engine.Name, _ []eval.Datum) ([]eval.Datum, error) {
	v, err := s.nextval(ctx, n)
	if err != nil {
		return nil, err
	}
	return []eval.Datum{eval.Int(v)}, nil
}

// runCurrval is currval(s), and MariaDB's LASTVAL(s): NULL until the
// session used s (PostgreSQL's fails).
func runCurrval(_ context.Context, s *Session, f *SeqFunc, n engine.Name, _ []eval.Datum) ([]eval.Datum, error) {
	info, err := s.engFor(n).Info(n)
	if err != nil {
		return nil, err
	}
	v, ok := s.seqs.Currval(s.memoryID(n, info.ID))
	if !ok && f.MariaDB {
		return nil, nil
	}
	if !ok {
		return nil, sqlerr.Errorf(sqlerr.ObjectNotInPrerequisiteState, "currval of sequence \"%s\" is not yet defined in this session", n.Rel())
	}
	return []eval.Datum{eval.Int(v)}, nil
}

// runLastval is PostgreSQL's lastval(): the value nextval last gave the
// session, if its sequence is still the one it came from.
func runLastval(_ context.Context, s *Session, f *SeqFunc, _ engine.Name, _ []eval.Datum) ([]eval.Datum, error) {
	id, v, ok := s.seqs.Lastval()
	if ok {
		if info, err := s.engFor(s.lastName).Info(s.lastName); err != nil || s.memoryID(s.lastName, info.ID) != id {
			ok = false
		}
	}
	if !ok {
		return nil, sqlerr.Errorf(sqlerr.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
	}
	if err := s.checkPrivilege(s.lastName, f.Privs); err != nil {
		return nil, err
	}
	return []eval.Datum{eval.Int(v)}, nil
}

// runSetval is setval(s, v[, is_called]), and MariaDB's SETVAL: NULL,
// and no change, where it would move the sequence back.
func runSetval(ctx context.Context, s *Session, f *SeqFunc, n engine.Name, args []eval.Datum) ([]eval.Datum, error) {
	v, err := s.setval(ctx, f, n, args[0].I, len(args) < 2 || args[1].I != 0)
	if err != nil || v == nil {
		return nil, err
	}
	return []eval.Datum{eval.Int(*v)}, nil
}

// setval moves n to v (called: v was handed out), as f (setval or
// MariaDB's SETVAL, which moves only ahead: nil when it does not move).
func (s *Session) setval(ctx context.Context, f *SeqFunc, n engine.Name, v int64, called bool) (*int64, error) {
	eng := s.engFor(n)
	var id uint64
	var err error
	if f.MariaDB {
		var moved bool
		if id, moved, err = mariadbSetval(ctx, eng, n, v, called); err == nil && !moved {
			return nil, nil
		}
	} else {
		id, err = eng.Setval(ctx, n, v, called)
	}
	if err != nil {
		return nil, err
	}
	if called && !f.MariaDB { // MariaDB's SETVAL leaves PREVIOUS VALUE FOR as it was
		s.seqs.Setval(s.memoryID(n, id), v)
	}
	return &v, nil
}

func runReserve(ctx context.Context, s *Session, _ *SeqFunc, n engine.Name, args []eval.Datum) ([]eval.Datum, error) {
	r, err := s.reserve(ctx, n, args[0].I)
	if err != nil {
		return nil, err
	}
	// A shaped sequence's range is one of counters; its shape, taken
	// with it, says how the caller maps them to values.
	shape := eval.Null
	if r.Shape.Shaped() {
		shape = eval.Text(r.Shape.String())
	}
	return []eval.Datum{eval.Int(r.First), eval.Int(r.Last()), eval.Int(r.Increment), shape}, nil
}

// reserve reserves count values of n as one range (seqd_reserve); currval
// is the last value the range holds.
func (s *Session) reserve(ctx context.Context, n engine.Name, count int64) (seqmath.Range, error) {
	if count < 1 || count > s.maxRows {
		return seqmath.Range{}, sqlerr.Errorf(sqlerr.InvalidParameterValue, "seqd_reserve count must be between 1 and %d, not %d", s.maxRows, count)
	}
	id, r, err := s.engFor(n).Reserve(ctx, n, count)
	if err != nil {
		return seqmath.Range{}, err
	}
	s.took(r.Count)
	if last, ok := r.LastValue(); ok {
		s.seqs.Nextval(s.memoryID(n, id), last)
		s.lastName = n
	}
	return r, nil
}

func runRelease(_ context.Context, s *Session, _ *SeqFunc, n engine.Name, args []eval.Datum) ([]eval.Datum, error) {
	k, err := s.engFor(n).Release(n, args[0].I, args[1].I)
	if err != nil {
		return nil, err
	}
	return []eval.Datum{eval.Bool(k > 0)}, nil
}

func runInternalState(_ context.Context, s *Session, _ *SeqFunc, n engine.Name, _ []eval.Datum) ([]eval.Datum, error) {
	info, err := s.engFor(n).Info(n)
	if err != nil {
		return nil, err
	}
	if !info.State.Called {
		return []eval.Datum{eval.Null}, nil
	}
	return []eval.Datum{eval.Int(info.State.Last)}, nil
}

func runTSO(ctx context.Context, s *Session, _ *SeqFunc, _ engine.Name, args []eval.Datum) ([]eval.Datum, error) {
	count := int64(1)
	if len(args) > 0 {
		count = args[0].I
	}
	if count < 1 || count > timeid.TSO.MaxCounter()+1 {
		return nil, sqlerr.Errorf(sqlerr.InvalidParameterValue, "seqd_tso count must be between 1 and %d (a millisecond's logical counter), not %d", timeid.TSO.MaxCounter()+1, count)
	}
	first, _, err := s.eng.TimeIDs(ctx, engine.TSO, count, true)
	if err != nil {
		return nil, err
	}
	return []eval.Datum{eval.Int(first)}, nil
}

func runUUIDv7(ctx context.Context, s *Session, _ *SeqFunc, _ engine.Name, _ []eval.Datum) ([]eval.Datum, error) {
	id, _, err := s.eng.TimeIDs(ctx, engine.UUIDv7, 1, true)
	if err != nil {
		return nil, err
	}
	var random [8]byte
	rand.Read(random[:]) // never fails (crypto/rand)
	u := timeid.UUIDv7(id, random)
	return []eval.Datum{eval.Text(formatUUID(u))}, nil
}

// formatUUID is u in the canonical 8-4-4-4-12 hexadecimal form.
func formatUUID(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	hex.Encode(b[9:13], u[4:6])
	hex.Encode(b[14:18], u[6:8])
	hex.Encode(b[19:23], u[8:10])
	hex.Encode(b[24:36], u[10:16])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return string(b[:])
}

// decodeColumns are seqd_decode's result columns: the beginning of the
// id's time unit, its node part and its counter.
var decodeColumns = eval.Columns("time", eval.TTimestamp, "node", eval.TInt4, "counter", eval.TInt8)

func runDecode(_ context.Context, s *Session, _ *SeqFunc, n engine.Name, args []eval.Datum) ([]eval.Datum, error) {
	info, err := s.engFor(n).Info(n)
	if err != nil {
		return nil, err
	}
	sh := info.Options.Shape
	if sh.Kind != seqmath.Snowflake {
		return nil, sqlerr.Errorf(sqlerr.InvalidParameterValue, "seqd_decode: sequence \"%s\" is not a SNOWFLAKE sequence", n.Rel())
	}
	if args[0].I < 0 {
		return nil, sqlerr.Errorf(sqlerr.InvalidParameterValue, "seqd_decode: %d is not an id of SNOWFLAKE sequence \"%s\" (ids are positive)", args[0].I, n.Rel())
	}
	t, node, counter := sh.Layout().Decode(args[0].I)
	if !eval.TimestamptzInRange(t) { // a long TIME_UNIT's last ids
		return nil, sqlerr.Errorf(sqlerr.DatetimeFieldOverflow, "timestamp out of range")
	}
	return []eval.Datum{eval.Timestamptz(t, s.location()), eval.Int(node), eval.Int(counter)}, nil
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
	v, ok, err := b.next()
	if !ok || err != nil {
		return nil, false, err
	}
	b.row[0] = eval.Int(v)
	return b.row[:], true, nil
}

// next is the stream's next value, false past its last.
func (b *bulkNextval) next() (int64, bool, error) {
	eng := b.s.engFor(b.name)
	for b.left > 0 {
		if b.i == b.r.Count {
			if b.r.Shape.HasSkip() {
				// A skip range may pass over any number of counters:
				// nextval jumps them rather than stream them.
				v, err := b.s.nextval(b.ctx, b.name)
				if err != nil {
					return 0, false, err
				}
				b.left--
				return v, true, nil
			}
			id, r, err := eng.ReserveUpTo(b.ctx, b.name, min(b.left, bulkChunk))
			if err != nil {
				return 0, false, err
			}
			b.s.took(r.Count)
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
		return v, true, nil
	}
	return 0, false, nil
}
