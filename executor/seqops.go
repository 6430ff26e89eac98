// The session's typed operations: what a front end that is not SQL (the
// HTTP and gRPC APIs) asks of a session, as methods taking names and
// numbers, never SQL text. Each is what the SQL statement it stands for
// does, through the same code: the sequence functions' descriptors
// (seqfuncs.go) make the checks and carry out the call, and a typed
// operation runs as one statement (typedStatement), with the statement
// timeout, pg_stat_activity, transaction accounting and error handling
// of Execute.

package executor

import (
	"context"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/sqlerr"
)

// MaxIdentifierLength is the longest a name may be, in bytes, as
// PostgreSQL's NAMEDATALEN-1: a longer one is cut to it in SQL text, and
// so names another sequence.
const MaxIdentifierLength = pgsql.MaxIdentifierLength

// typedOp names a typed operation on a sequence: the text
// pg_stat_activity shows while it runs (typedText).
type typedOp uint8

const (
	opNextval typedOp = iota
	opNextvalN
	opReserve
	opRelease
	opSetval
	opDescribe
	numTypedOps
)

// typedText is what pg_stat_activity shows of op on the sequence quoted
// (a string literal of its qualified name): the SQL call it stands for,
// its numbers as parameters, made once per sequence, not per call.
func typedText(op typedOp, quoted string) string {
	switch op {
	case opNextvalN:
		return "select nextval(" + quoted + ") from generate_series(1, $1)"
	case opReserve:
		return "select * from seqd_reserve(" + quoted + ", $1)"
	case opRelease:
		return "select seqd_release(" + quoted + ", $1, $2)"
	case opSetval:
		return "select setval(" + quoted + ", $1, $2)"
	case opDescribe:
		return "select * from pg_sequences where seqrelid = " + quoted + "::regclass"
	}
	return "select nextval(" + quoted + ")"
}

// typedKey is a sequence as a typed operation names it: its schema and
// name, exactly (no case folding, no quoting).
type typedKey struct{ schema, rel string }

// typedSeq is a sequence a typed operation named, resolved, with the
// texts of its operations: kept (Session.typed) until a name could
// resolve differently, as a statement's plan is.
type typedSeq struct {
	epoch planEpoch
	name  engine.Name
	texts [numTypedOps]string
}

// maxTypedSeqs bounds the sequences a session keeps resolved.
const maxTypedSeqs = 64

// text is what pg_stat_activity shows of op on the sequence.
func (t *typedSeq) text(op typedOp, key typedKey) string {
	if t.texts[op] == "" {
		t.texts[op] = typedText(op, pgsql.QuoteLiteral(pgsql.QuoteIdent(key.schema)+"."+pgsql.QuoteIdent(key.rel)))
	}
	return t.texts[op]
}

// typedSequence resolves schema.rel as nextval('"schema"."rel"')
// resolves its literal (sequenceByText): the sequence must exist, a
// relation that is not one is 42809.
func (s *Session) typedSequence(key typedKey) (*typedSeq, error) {
	epoch := s.planEpoch()
	if t, ok := s.typed[key]; ok && t.epoch == epoch {
		return t, nil
	}
	n, err := s.sequenceByQName(pgsql.QName{Schema: key.schema, Rel: key.rel})
	if err != nil {
		return nil, err
	}
	if s.typed == nil || len(s.typed) >= maxTypedSeqs {
		s.typed = map[typedKey]*typedSeq{}
	}
	t := &typedSeq{epoch: epoch, name: n}
	s.typed[key] = t
	return t, nil
}

// typedStatement runs f as one statement of text, as Execute runs a
// prepared statement's: the session follows renamed roles; a failed
// block refuses it (unless txEnd: COMMIT, ROLLBACK, ROLLBACK TO); it runs
// under statement_timeout (StatementContext), with the session's wait
// state (pg_stat_activity's wait events) and lock_timeout on its
// context, shown active in pg_stat_activity, counted in the transaction
// (pg_stat_database's commits and rollbacks at Idle), in a Query's
// implicit transaction, and as a deadlock's victim. A failure aborts the
// block (Abort), as a front end does for a failed statement: the caller
// need not.
//
// What does not apply: prepared statements' execution counts (there is
// none); notices (the operations that have some return them); statement
// memory (an operation keeps no rows: the values a call takes are the
// caller's, bounded by it); settings a ROLLBACK restores are reported
// with the next SQL statement's Result, as a typed call has none.
// The caller calls Idle when it has answered, as for a statement.
func (s *Session) typedStatement(ctx context.Context, text string, txEnd bool, f func(ctx context.Context) error) error {
	if err := s.typedBegin(txEnd); err != nil {
		return err
	}
	return s.typedRun(ctx, text, f)
}

// typedBegin makes the checks a statement's Prepare makes before it is
// compiled: renamed roles followed, a failed block's refusal.
func (s *Session) typedBegin(txEnd bool) error {
	s.followRenames()
	if s.tx.failed() && !txEnd {
		s.Abort()
		return errInFailedBlock()
	}
	return nil
}

// typedRun is typedStatement once the statement is compiled (its names
// resolved: a failure to resolve them is the statement's before it runs,
// as Prepare's).
func (s *Session) typedRun(ctx context.Context, text string, f func(ctx context.Context) error) error {
	ctx, cancel := s.StatementContext(ctx)
	defer cancel()
	err := f(s.statementBegin(ctx, text))
	s.statementEnd(err)
	if err != nil {
		s.Abort()
	}
	return err
}

// seqStatement is typedStatement for op on the sequence schema.rel: the
// name resolved first (its failure the statement's, before it runs), a
// query of the transaction (READ WRITE can no longer be set).
func (s *Session) seqStatement(ctx context.Context, op typedOp, schema, rel string, f func(ctx context.Context, n engine.Name) error) error {
	if err := s.typedBegin(false); err != nil {
		return err
	}
	key := typedKey{schema, rel}
	t, err := s.typedSequence(key)
	if err != nil {
		s.Abort()
		return err
	}
	s.tx.queried = true
	return s.typedRun(ctx, t.text(op, key), func(ctx context.Context) error { return f(ctx, t.name) })
}

// Nextval is nextval('"schema"."rel"'): the sequence's next value.
func (s *Session) Nextval(ctx context.Context, schema, rel string) (int64, error) {
	var v int64
	err := s.seqStatement(ctx, opNextval, schema, rel, func(ctx context.Context, n engine.Name) (err error) {
		f := &seqFuncTable[fnNextval]
		if err = f.check(s, n); err == nil {
			v, err = s.nextval(ctx, n)
		}
		return err
	})
	return v, err
}

// NextvalN is SELECT nextval('"schema"."rel"') FROM generate_series(1,
// count): count values, appended to dst. The caller bounds count (the
// values are held whole); count is at least 1.
func (s *Session) NextvalN(ctx context.Context, dst []int64, schema, rel string, count int64) ([]int64, error) {
	err := s.seqStatement(ctx, opNextvalN, schema, rel, func(ctx context.Context, n engine.Name) error {
		if err := seqFuncTable[fnNextval].check(s, n); err != nil {
			return err
		}
		b := bulkNextval{s: s, ctx: ctx, name: n, left: count}
		for {
			v, ok, err := b.next()
			if err != nil || !ok {
				return err
			}
			dst = append(dst, v)
		}
	})
	if err != nil {
		return nil, err
	}
	return dst, nil
}

// Range is a range of values seqd_reserve reserved: the values First to
// Last by Increment, or for a shaped sequence the counters First to Last
// mapped to values by Shape (the zero Shape for an ordered sequence,
// seqd_reserve's NULL).
type Range struct {
	First, Last, Increment int64
	Shape                  seqmath.Shape
}

// Reserve is seqd_reserve('"schema"."rel"', count): count values as one
// range (count from 1 to the session's MaxBulkRows, else 22023).
func (s *Session) Reserve(ctx context.Context, schema, rel string, count int64) (Range, error) {
	var rg Range
	err := s.seqStatement(ctx, opReserve, schema, rel, func(ctx context.Context, n engine.Name) error {
		if err := seqFuncTable[fnReserve].check(s, n); err != nil {
			return err
		}
		r, err := s.reserve(ctx, n, count)
		if err != nil {
			return err
		}
		rg = Range{First: r.First, Last: r.Last(), Increment: r.Increment}
		if r.Shape.Shaped() {
			rg.Shape = r.Shape
		}
		return nil
	})
	return rg, err
}

// Released is what ReleaseRange did: whether the range was given back,
// and the sequence's increment (whose direction a range runs in).
type Released struct {
	Released  bool
	Increment int64
}

// ReleaseRange is seqd_release('"schema"."rel"', first, last): it gives
// back first..last when that was the tail of what the sequence handed
// out last (the next caller gets first again); false when anything came
// between (the values stay burned).
func (s *Session) ReleaseRange(ctx context.Context, schema, rel string, first, last int64) (Released, error) {
	var out Released
	err := s.seqStatement(ctx, opRelease, schema, rel, func(ctx context.Context, n engine.Name) error {
		f := &seqFuncTable[fnRelease]
		if err := f.check(s, n); err != nil {
			return err
		}
		row, err := f.run(ctx, s, f, n, []eval.Datum{eval.Int(first), eval.Int(last)})
		if err != nil {
			return err
		}
		out.Released = row[0].Truth()
		// The increment as pg_sequence shows it: no privilege needed.
		if info, err := s.engFor(n).Info(n); err == nil {
			out.Increment = info.Options.Increment
		}
		return nil
	})
	return out, err
}

// Setval is setval('"schema"."rel"', v, called): the sequence's position
// set, as PostgreSQL's setval.
func (s *Session) Setval(ctx context.Context, schema, rel string, v int64, called bool) (int64, error) {
	err := s.seqStatement(ctx, opSetval, schema, rel, func(ctx context.Context, n engine.Name) error {
		f := &seqFuncTable[fnSetval]
		if err := f.check(s, n); err != nil {
			return err
		}
		_, err := s.setval(ctx, f, n, v, called)
		return err
	})
	return v, err
}

// Description is a sequence's definition and position, as pg_class,
// pg_sequence and pg_sequence_last_value show them.
type Description struct {
	// Type is the SQL name of its type: smallint, integer or bigint.
	Type                              string
	Start, Min, Max, Increment, Cache int64
	Cycle                             bool
	// LastValue is pg_sequence_last_value's: valid when Called.
	LastValue int64
	Called    bool
	// Owner is its owner's name, as pg_get_userbyid(relowner) gives it.
	Owner string
}

// Describe is the sequence schema.rel's definition and position: what
//
//	select format_type(s.seqtypid, null), s.seqstart, ..., pg_sequence_last_value(c.oid),
//	pg_get_userbyid(c.relowner) from pg_class c join pg_sequence s on s.seqrelid = c.oid
//	where c.oid = '"schema"."rel"'::regclass
//
// answers: a catalog relation of that name is no sequence (42P01),
// reading the position needs USAGE or SELECT on it (42501).
func (s *Session) Describe(ctx context.Context, schema, rel string) (Description, error) {
	var d Description
	if err := s.typedBegin(false); err != nil {
		return d, err
	}
	if isBuiltinSchema(schema) && catalogRelation(schema, rel) != nil {
		// regclass finds the catalog's relation, which pg_sequence
		// does not list: no row, which the APIs answer as 42P01.
		err := sqlerr.Errorf(sqlerr.UndefinedTable, "relation \"%s.%s\" is not a sequence", schema, rel)
		s.Abort()
		return d, err
	}
	key := typedKey{schema, rel}
	t, err := s.typedSequence(key)
	if err != nil {
		s.Abort()
		return d, err
	}
	s.tx.queried = true
	err = s.typedRun(ctx, t.text(opDescribe, key), func(context.Context) error {
		d, err = s.describe(t.name)
		return err
	})
	return d, err
}

// describe is Describe of n, resolved.
func (s *Session) describe(n engine.Name) (Description, error) {
	eng := s.engFor(n)
	info, err := eng.Info(n)
	if err != nil {
		return Description{}, err
	}
	o := info.Options
	a, _ := eng.ACL(n)
	d := Description{Type: eval.TypeByName(sqlTypeName(o.Type.String())).SQLName(), Start: o.Start, Min: o.Min, Max: o.Max,
		Increment: o.Increment, Cycle: o.Cycle, Cache: o.Cache, Owner: s.roleName(s.ownerOID(s.ownerName(a)))}
	// pg_sequence_last_value: USAGE or SELECT, and a NOORDER sequence's
	// position as far as the nodes reserved it.
	if err := s.checkPrivilege(n, engine.PrivUsage|engine.PrivSelect); err != nil {
		return Description{}, err
	}
	if info, err = s.reserved(info); err != nil {
		return Description{}, err
	}
	if info.State.Called {
		d.LastValue, d.Called = info.Options.Value(info.State.Last), true
	}
	return d, nil
}
