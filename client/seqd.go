package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seqd/seqd/seqmath"
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
	// Retry bounds how often a request that failed with ErrUnavailable
	// (the server restarting, failing over, or out of reach; a standby
	// answering 25006) is sent again. That is safe for every request of
	// this source: a reservation whose first attempt did happen is burned,
	// never handed out twice (docs/protocol.md). The zero value means 20
	// attempts, waits from 10ms doubling to 1s: about 15 seconds in all,
	// longer than a failover. Attempts 1 turns retrying off.
	Retry Retry
}

// Seqd is a Source over a seqd server: a Reserve is one seqd_reserve call
// (nextval when n is 1), a Release one seqd_release. Safe for concurrent
// use when its Querier is.
type Seqd struct {
	q Querier
	o SeqdOptions
}

// NewSeqd is a source over the seqd server q is connected to. A
// *pgxpool.Pool may be made from a multi-host connection string
// ("postgres://a:6543,b:6543,c:6543/db?target_session_attrs=read-write"):
// after a failover its new connections find the new leader, and a pooled
// connection whose server answers 25006 is closed rather than reused.
func NewSeqd(q Querier, o SeqdOptions) *Seqd {
	o.Retry = o.Retry.failover()
	return &Seqd{q: q, o: o}
}

// failover is r with the seqd sources' defaults: 20 attempts, waits from
// 10ms doubling to 1s, longer in all than a failover.
func (r Retry) failover() Retry {
	if r.Attempts == 0 {
		r.Attempts = 20
	}
	if r.Backoff == 0 {
		r.Backoff = 10 * time.Millisecond
	}
	if r.MaxBackoff == 0 {
		r.MaxBackoff = time.Second
	}
	return r
}

// row runs a one-row query, sending it again while it fails with
// ErrUnavailable. With a pool, a connection whose server answered 25006
// (a standby, or a deposed leader) is closed, so the retry takes another.
func (s *Seqd) row(ctx context.Context, op, name, q string, args []any, dest ...any) error {
	err := s.o.Retry.doWhile(ctx, func() error {
		if pool, ok := s.q.(*pgxpool.Pool); ok {
			c, err := pool.Acquire(ctx)
			if err != nil {
				return err
			}
			err = c.QueryRow(ctx, q, args...).Scan(dest...)
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "25006" {
				c.Conn().Close(ctx) // the pool drops a closed connection
			}
			c.Release()
			return err
		}
		return s.q.QueryRow(ctx, q, args...).Scan(dest...)
	}, func(err error) bool { return kindOf(err) == ErrUnavailable })
	if err != nil {
		return wrap(kindOf(err), op, name, err)
	}
	return nil
}

// Create makes the sequence unless it exists, retried while the server
// is unavailable (as during a failover).
func (s *Seqd) Create(ctx context.Context, name string, start int64) error {
	q := fmt.Sprintf("CREATE SEQUENCE IF NOT EXISTS %s START WITH %d", pgx.Identifier{name}.Sanitize(), start)
	if s.o.Cache > 1 {
		q += fmt.Sprintf(" CACHE %d", s.o.Cache)
	}
	// Retried as reservations are: CREATE ... IF NOT EXISTS is the same
	// done twice.
	err := s.o.Retry.doWhile(ctx, func() error {
		_, err := s.q.Exec(ctx, q)
		return err
	}, func(err error) bool { return kindOf(err) == ErrUnavailable })
	if err != nil {
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
		if err := s.row(ctx, "reserve", name, "SELECT nextval($1)", []any{quoted}, &v); err != nil {
			return Range{}, err
		}
		return Range{First: v, Last: v, Step: 1}, nil
	}
	var r Range
	var shape *string
	if err := s.row(ctx, "reserve", name, "SELECT first, last, increment, shape FROM seqd_reserve($1, $2)", []any{quoted, n}, &r.First, &r.Last, &r.Step, &shape); err != nil {
		return Range{}, err
	}
	if shape != nil {
		// A shaped sequence: counters, mapped here as the server would.
		sh, err := seqmath.ParseShape(*shape)
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
	// Sent again after ErrUnavailable too: a release that did happen
	// answers false the second time, and its values count as burned.
	var ok bool
	if err := s.row(ctx, "release", name, "SELECT seqd_release($1, $2, $3)", []any{pgx.Identifier{name}.Sanitize(), r.First, r.Last}, &ok); err != nil {
		return false, err
	}
	return ok, nil
}
