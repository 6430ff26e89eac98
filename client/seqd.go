package client

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/alloc"
)

// Querier is what the seqd source needs of a connection: a
// *pgxpool.Pool (safe for concurrent use, as a Source must be).
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// SeqdOptions configure a seqd source. The zero value means the defaults.
type SeqdOptions struct {
	// Cache is the CACHE that Create gives new sequences: how far ahead
	// of demand seqd may durably reserve, which bounds what a crash of
	// seqd can skip. 0 means seqd's default (NO CACHE: every range is on
	// disk before it is returned).
	Cache int64
}

// Seqd is a Source over a seqd server: a Reserve is one seqd_reserve call
// (nextval when n is 1), a Release one seqd_release. Safe for concurrent
// use when its Querier is.
type Seqd struct {
	q Querier
	o SeqdOptions
}

// NewSeqd is a source over the seqd server q is connected to.
func NewSeqd(q Querier, o SeqdOptions) *Seqd { return &Seqd{q: q, o: o} }

// Create makes the sequence unless it exists.
func (s *Seqd) Create(ctx context.Context, name string, start int64) error {
	q := fmt.Sprintf("CREATE SEQUENCE IF NOT EXISTS %s START WITH %d", pgx.Identifier{name}.Sanitize(), start)
	if s.o.Cache > 1 {
		q += fmt.Sprintf(" CACHE %d", s.o.Cache)
	}
	if _, err := s.q.Exec(ctx, q); err != nil {
		return wrap(kindOf(err), "create", name, err)
	}
	return nil
}

// Reserve takes up to n consecutive values (fewer only where the sequence
// reaches its limit; with CYCLE the next call starts again at the other
// end).
func (s *Seqd) Reserve(ctx context.Context, name string, n int64) (Range, error) {
	if n < 1 {
		return Range{}, fmt.Errorf("%w: reserve %d values of %q", ErrInvalid, n, name)
	}
	quoted := pgx.Identifier{name}.Sanitize()
	if n == 1 {
		var v int64
		if err := s.q.QueryRow(ctx, "SELECT nextval($1)", quoted).Scan(&v); err != nil {
			return Range{}, wrap(kindOf(err), "reserve", name, err)
		}
		return Range{First: v, Last: v, Step: 1}, nil
	}
	var r Range
	var shape *string
	if err := s.q.QueryRow(ctx, "SELECT first, last, increment, shape FROM seqd_reserve($1, $2)", quoted, n).Scan(&r.First, &r.Last, &r.Step, &shape); err != nil {
		return Range{}, wrap(kindOf(err), "reserve", name, err)
	}
	if shape != nil {
		// A shaped sequence: counters, mapped here as the server would.
		sh, err := alloc.ParseShape(*shape)
		if err != nil {
			return Range{}, wrap(nil, "reserve", name, err)
		}
		r.Shape = sh
	}
	return r, nil
}

// Release gives r back with seqd_release: seqd takes it only if it is the
// unused tail of the last range the sequence handed out.
func (s *Seqd) Release(ctx context.Context, name string, r Range) (bool, error) {
	var ok bool
	if err := s.q.QueryRow(ctx, "SELECT seqd_release($1, $2, $3)", pgx.Identifier{name}.Sanitize(), r.First, r.Last).Scan(&ok); err != nil {
		return false, wrap(kindOf(err), "release", name, err)
	}
	return ok, nil
}
