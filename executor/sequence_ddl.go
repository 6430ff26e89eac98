// CREATE, ALTER and DROP SEQUENCE: options (PostgreSQL's, seqd's shapes,
// MariaDB's spellings) compiled to a spec, and the statements run on the
// sequence's engine or the block's transaction.

package executor

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/sqlerr"
)

// MariaDBIncrementZero is the option the MySQL front end adds to
// INCREMENT 1 for MariaDB's INCREMENT BY 0 (seqmath.Spec.IncrementZero):
// no PostgreSQL statement has it, PostgreSQL's grammar naming its
// sequence options itself.
const MariaDBIncrementZero = "seqd_mariadb_increment_zero"

// MariaDBCacheOne is the option the MySQL front end adds to CACHE 1 for
// MariaDB's CACHE 1, which MariaDB tells apart from NOCACHE
// (seqmath.Spec.CacheOne); PostgreSQL's CACHE 1 has no such option.
const MariaDBCacheOne = "seqd_mariadb_cache_one"

func intOption(d *pg.DefElem, q string) (*int64, error) {
	var text string
	switch {
	case d.Arg.GetInteger() != nil:
		v := int64(d.Arg.GetInteger().Ival)
		return &v, nil
	case d.Arg.GetFloat() != nil:
		text = d.Arg.GetFloat().Fval
	default:
		return nil, sqlerr.Errorf(sqlerr.SyntaxError, "%s requires a numeric value", d.Defname).At(q, d.Location)
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value \"%s\" is out of range for type bigint", text)
	}
	return &v, nil
}

// spec turns sequence options into an seqmath.Spec, as PostgreSQL 15's
// init_params reads them, with seqd's sequence clauses (the shapes',
// ORDER, NOORDER) in the order written among them.
func (c *planner) spec(opts []*pg.Node, clauses []pgsql.SeqClause) (seqmath.Spec, error) {
	var sp seqmath.Spec
	seen := map[string]bool{}
	var sc shapeClauses
	type option struct {
		d      *pg.DefElem      // PostgreSQL's option, or
		clause *pgsql.SeqClause // seqd's clause
		loc    int32
	}
	all := make([]option, 0, len(opts)+len(clauses))
	for _, o := range opts {
		all = append(all, option{d: o.GetDefElem(), loc: o.GetDefElem().Location})
	}
	for i := range clauses {
		all = append(all, option{clause: &clauses[i], loc: clauses[i].Location})
	}
	slices.SortStableFunc(all, func(a, b option) int { return cmp.Compare(a.loc, b.loc) })
	for _, o := range all {
		if cl := o.clause; cl != nil {
			key := strings.TrimPrefix(strings.TrimPrefix(cl.Name, "no_"), "re")
			if cl.Name == "noorder" {
				key = "order"
			}
			if seen[key] {
				return sp, c.ErrAt(o.loc, sqlerr.SyntaxError, "conflicting or redundant options")
			}
			seen[key] = true
			if err := c.shapeOption(&sp, cl.Name, cl.Args, &sc); err != nil {
				return sp, err
			}
			continue
		}
		d := o.d
		key := d.Defname
		if seen[key] {
			return sp, c.ErrAt(d.Location, sqlerr.SyntaxError, "conflicting or redundant options")
		}
		seen[key] = true
		var err error
		switch d.Defname {
		case "as":
			tn := d.Arg.GetTypeName()
			names := eval.NodeStrings(tn.Names)
			if eval.LookupType(names) == nil {
				return sp, c.ErrAt(tn.Location, sqlerr.UndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
			}
			t, ok := seqmath.ParseType(names[len(names)-1])
			if !ok {
				return sp, sqlerr.Errorf(sqlerr.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
			}
			sp.Type = &t
		case "increment":
			sp.Increment, err = intOption(d, c.SQL)
		case MariaDBIncrementZero:
			sp.IncrementZero = true
		case MariaDBCacheOne:
			sp.CacheOne = true
		case "minvalue":
			if d.Arg == nil {
				sp.NoMin = true
			} else {
				sp.Min, err = intOption(d, c.SQL)
			}
		case "maxvalue":
			if d.Arg == nil {
				sp.NoMax = true
			} else {
				sp.Max, err = intOption(d, c.SQL)
			}
		case "start":
			sp.Start, err = intOption(d, c.SQL)
		case "restart":
			sp.Restart = true
			if d.Arg != nil {
				sp.RestartWith, err = intOption(d, c.SQL)
			}
		case "cache":
			sp.Cache, err = intOption(d, c.SQL)
		case "cycle":
			b := d.Arg.GetBoolean().GetBoolval()
			sp.Cycle = &b
		case "owned_by":
			// PostgreSQL's process_owned_by: NONE, or table.column, and
			// seqd has no tables, so a table named is never found.
			names := eval.NodeStrings(d.Arg.GetList().GetItems())
			switch {
			case len(names) == 1 && names[0] == "none":
			case len(names) == 1:
				return sp, sqlerr.Errorf(sqlerr.SyntaxError, "invalid OWNED BY option").WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
			default:
				return sp, sqlerr.Errorf(sqlerr.UndefinedTable, "relation \"%s\" does not exist", strings.Join(names[:len(names)-1], "."))
			}
		default:
			return sp, c.ErrAt(d.Location, sqlerr.FeatureNotSupported, "seqd does not support the sequence option %s", strings.ToUpper(d.Defname))
		}
		if err != nil {
			return sp, err
		}
	}
	if err := c.sharded(&sp, sc); err != nil {
		return sp, err
	}
	return sp, c.snowflake(&sp, sc)
}

// shapeClauses are the clauses of the shapes read together once all
// are read: SHARD_BITS and RANGE_BITS, SNOWFLAKE and its layout's.
type shapeClauses struct {
	shard, rangeBits      *int64
	snowflake             bool
	epoch, unit           *string
	nodeBits, counterBits *int64
}

// sharded makes the sharded shape of SHARD_BITS and RANGE_BITS.
func (c *planner) sharded(sp *seqmath.Spec, sc shapeClauses) error {
	if sc.rangeBits != nil && sc.shard == nil {
		return sqlerr.Errorf(sqlerr.InvalidParameterValue, "RANGE_BITS requires SHARD_BITS")
	}
	if sc.shard == nil {
		return nil
	}
	if sp.Shape != nil {
		return sqlerr.Errorf(sqlerr.SyntaxError, "conflicting or redundant options: BIT_REVERSED_POSITIVE and SHARD_BITS")
	}
	r := int64(seqmath.MaxRangeBits)
	if sc.rangeBits != nil {
		r = *sc.rangeBits
	}
	sh, err := seqmath.NewSharded(*sc.shard, r)
	if err != nil {
		return err
	}
	sp.Shape = &sh
	return nil
}

// snowflake makes the Snowflake shape of SNOWFLAKE and its layout's
// clauses, Twitter's layout where they are left out: EPOCH a
// timestamptz (in the session's TimeZone without a zone), TIME_UNIT an
// interval of whole microseconds.
func (c *planner) snowflake(sp *seqmath.Spec, sc shapeClauses) error {
	if !sc.snowflake {
		if sc.epoch != nil || sc.unit != nil || sc.nodeBits != nil || sc.counterBits != nil {
			return sqlerr.Errorf(sqlerr.InvalidParameterValue, "EPOCH, TIME_UNIT, NODE_BITS and COUNTER_BITS require SNOWFLAKE")
		}
		return nil
	}
	if sp.Shape != nil {
		other := "BIT_REVERSED_POSITIVE"
		if sp.Shape.Kind == seqmath.Sharded {
			other = "SHARD_BITS"
		}
		return sqlerr.Errorf(sqlerr.SyntaxError, "conflicting or redundant options: SNOWFLAKE and %s", other)
	}
	epoch, unit := seqmath.DefaultEpochMicros, int64(1000)
	nb, cb := int64(seqmath.DefaultNodeBits), int64(seqmath.DefaultCounterBits)
	if sc.epoch != nil {
		t, err := eval.ParseTimestamptz(*sc.epoch, c.s.location())
		if err != nil {
			return err
		}
		epoch = t.UnixMicro()
	}
	if sc.unit != nil {
		d, err := parseTimeUnit(*sc.unit)
		if err != nil {
			return err
		}
		unit = d.Microseconds()
	}
	if sc.nodeBits != nil {
		nb = *sc.nodeBits
	}
	if sc.counterBits != nil {
		cb = *sc.counterBits
	}
	sh, err := seqmath.NewSnowflake(epoch, unit, nb, cb)
	if err != nil {
		return err
	}
	sp.Shape = &sh
	return nil
}

// shapeOption reads one of the shapes' clauses into sp, or into sc for
// those read together at the end.
func (c *planner) shapeOption(sp *seqmath.Spec, clause string, args []string, sc *shapeClauses) error {
	nums := make([]int64, len(args))
	if clause != "epoch" && clause != "time_unit" {
		for i, a := range args {
			v, err := strconv.ParseInt(a, 10, 64)
			if err != nil {
				return sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value \"%s\" is out of range for type bigint", a)
			}
			nums[i] = v
		}
	}
	switch clause {
	case "bit_reversed_positive":
		sp.Shape = &seqmath.Shape{Kind: seqmath.BitReversed}
	case "shard_bits":
		sc.shard = &nums[0]
	case "range_bits":
		sc.rangeBits = &nums[0]
	case "snowflake":
		sc.snowflake = true
	case "epoch":
		sc.epoch = &args[0]
	case "time_unit":
		sc.unit = &args[0]
	case "node_bits":
		sc.nodeBits = &nums[0]
	case "counter_bits":
		sc.counterBits = &nums[0]
	case "skip_range":
		sp.Skip = &[2]int64{nums[0], nums[1]}
	case "no_skip_range":
		sp.NoSkip = true
	case "start_counter":
		sp.StartCounter = &nums[0]
	case "restart_counter":
		sp.RestartCounter = &nums[0]
	case "order", "noorder":
		order := clause == "order"
		sp.Order = &order
	}
	return nil
}

func (c *planner) createSequence(st *pg.CreateSeqStmt) (*Prepared, error) {
	q := qnameOf(st.Sequence)
	sp, err := c.spec(st.Options, c.clauses)
	if err != nil {
		return nil, err
	}
	s, temp, unlogged := c.s, st.Sequence.Relpersistence == "t", st.Sequence.Relpersistence == "u"
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable("CREATE SEQUENCE"); err != nil {
			return nil, err
		}
		var n engine.Name
		var err error
		if temp {
			n, err = s.tempCreationName(ctx, q)
		} else {
			n, err = s.creationName(q)
		}
		if err != nil {
			return nil, err // PostgreSQL gives these no position
		}
		if !temp {
			if err := s.checkSchema(n.Schema(), engine.PrivCreate); err != nil {
				return nil, err
			}
		}
		created, err := s.ddlFor(n).CreateWith(ctx, n, sp, engine.CreateOptions{IfNotExists: st.IfNotExists, Unlogged: unlogged, Owner: s.cfg.User})
		if err != nil {
			return nil, err
		}
		if !created {
			return commandResult("CREATE SEQUENCE", notice(sqlerr.DuplicateTable, "relation \"%s\" already exists, skipping", n.Rel())), nil
		}
		return commandResult("CREATE SEQUENCE"), nil
	}), nil
}

// missing reports a lookup that found no sequence (or no schema), which
// IF EXISTS turns into a notice.
func missing(err error) bool {
	var se *sqlerr.Error
	return errors.Is(err, engine.ErrNotFound) || errors.As(err, &se) && (se.Kind == sqlerr.UndefinedTable || se.Kind == sqlerr.UndefinedSchema)
}

func (c *planner) alterSequence(st *pg.AlterSeqStmt) (*Prepared, error) {
	q := qnameOf(st.Sequence)
	sp, err := c.spec(st.Options, c.clauses)
	if err != nil {
		return nil, err
	}
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		n, skip, err := s.alterTarget("ALTER SEQUENCE", q, st.MissingOk)
		if skip != nil || err != nil {
			return skip, err // PostgreSQL gives these no position
		}
		if err := s.ddlFor(n).Alter(ctx, n, sp); err != nil {
			return nil, err
		}
		return commandResult("ALTER SEQUENCE"), nil
	}), nil
}

// objectNames are a DROP's names.
func objectNames(objects []*pg.Node) []pgsql.QName {
	var out []pgsql.QName
	for _, o := range objects {
		var parts []string
		if l := o.GetList(); l != nil {
			parts = eval.NodeStrings(l.Items)
		} else if str := o.GetString_(); str != nil {
			parts = []string{str.Sval}
		}
		q := pgsql.QName{Rel: parts[len(parts)-1]}
		switch len(parts) {
		case 2:
			q.Schema = parts[0]
		case 3:
			q.Catalog, q.Schema = parts[0], parts[1]
		}
		out = append(out, q)
	}
	return out
}

func (c *planner) drop(st *pg.DropStmt) (*Prepared, error) {
	switch st.RemoveType {
	case pg.ObjectType_OBJECT_SEQUENCE:
	case pg.ObjectType_OBJECT_SCHEMA:
		return c.dropSchema(st)
	default:
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support DROP %s: it serves sequences only", strings.TrimPrefix(st.RemoveType.String(), "OBJECT_"))
	}
	names := objectNames(st.Objects)
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable("DROP SEQUENCE"); err != nil {
			return nil, err
		}
		r := commandResult("DROP SEQUENCE")
		// Every name is resolved and checked before any sequence goes: as
		// in PostgreSQL, a statement that fails drops nothing.
		var drop []engine.Name
		for _, q := range names {
			n, err := s.lookupSequence(q)
			if err == nil {
				err = s.checkOwner(n)
			}
			if st.MissingOk && missing(err) {
				// PostgreSQL names what is missing: a named schema, else
				// the sequence.
				if q.Schema != "" && !s.schemaExists(q.Schema) {
					r.Notices = append(r.Notices, notice(sqlerr.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", q.Schema))
				} else {
					r.Notices = append(r.Notices, notice(sqlerr.SuccessfulCompletion, "sequence \"%s\" does not exist, skipping", q.Rel))
				}
				continue
			}
			if missing(err) {
				return nil, sqlerr.Errorf(sqlerr.UndefinedTable, "sequence \"%s\" does not exist", q.Rel)
			}
			if err != nil {
				return nil, err
			}
			drop = append(drop, n)
		}
		for _, n := range drop {
			if err := s.dropSequence(ctx, n); err != nil && !(st.MissingOk && missing(err)) {
				return nil, err
			}
		}
		return r, nil
	}), nil
}

// dropSequence drops a sequence and forgets its OID.
func (s *Session) dropSequence(ctx context.Context, n engine.Name) error {
	eng := s.ddlFor(n)
	info, err := eng.Info(n)
	if err != nil {
		return err
	}
	if err := eng.Drop(ctx, n); err != nil {
		return err
	}
	base := s.baseFor(n)
	s.atCommit(func() { s.oids().forget(s.oidEng(base), info.ID) })
	return nil
}

// intervalUnits are the units TIME_UNIT reads, as PostgreSQL's interval
// input spells them.
var intervalUnits = map[string]time.Duration{
	"us": time.Microsecond, "usec": time.Microsecond, "usecs": time.Microsecond, "microsecond": time.Microsecond, "microseconds": time.Microsecond,
	"ms": time.Millisecond, "msec": time.Millisecond, "msecs": time.Millisecond, "millisecond": time.Millisecond, "milliseconds": time.Millisecond,
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
}

// parseTimeUnit reads TIME_UNIT's interval: a number and a unit ('1 ms',
// '10 milliseconds', '0.5s'), whole microseconds.
func parseTimeUnit(text string) (time.Duration, error) {
	in := strings.ToLower(strings.TrimSpace(text))
	split := strings.IndexFunc(in, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	bad := sqlerr.Errorf(sqlerr.InvalidDatetimeFormat, "invalid input syntax for type interval: \"%s\"", text)
	if split <= 0 {
		return 0, bad
	}
	n, err := strconv.ParseFloat(in[:split], 64)
	unit, ok := intervalUnits[strings.TrimSpace(in[split:])]
	if err != nil || !ok {
		return 0, bad
	}
	d := n * float64(unit)
	if d > float64(24*time.Hour) || d < float64(time.Microsecond) || d != float64(int64(d)/1000*1000) {
		return 0, sqlerr.Errorf(sqlerr.InvalidParameterValue, "TIME_UNIT must be whole microseconds, from 1 microsecond to 1 day, not \"%s\"", text)
	}
	return time.Duration(d), nil
}
