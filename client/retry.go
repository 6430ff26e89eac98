package client

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/sqlerr"
)

// kindOf maps a database error to one of the package's sentinels, or nil.
// PostgreSQL errors are recognized by SQLSTATE (any driver whose errors
// have an SQLState method: pgx, lib/pq), MySQL and MariaDB errors by
// their error number.
func kindOf(err error) error {
	if err == nil {
		return nil
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		// docs/protocol.md's table; testdata/protocol.json's vectors.
		// What is worth sending again is sqlerr's one table's to say.
		code := pg.SQLState()
		switch kind := sqlerr.KindOfCode(code); {
		case kind == sqlerr.UndefinedTable: // no such sequence
			return ErrNotFound
		case kind == sqlerr.SequenceLimitExceeded, kind == sqlerr.NumericValueOutOfRange:
			return ErrLimitReached
		case kind == sqlerr.SerializationFailure, kind == sqlerr.DeadlockDetected:
			return ErrConflict
		case kind == sqlerr.InvalidParameterValue, kind == sqlerr.SyntaxError:
			return ErrInvalid
		case kind == sqlerr.InvalidPassword, kind == sqlerr.InsufficientPrivilege:
			return ErrAuth
		case sqlerr.Retryable(kind):
			// read_only_sql_transaction (a standby or deposed owner),
			// io_error, shutdowns, too many connections, disk full,
			// cancelled
			return ErrUnavailable
		}
		if len(code) == 5 && code[:2] == "08" { // connection exceptions
			return ErrUnavailable
		}
		return nil
	}
	// No SQLSTATE: the connection could not be made or was lost.
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return ErrUnavailable
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		switch my.Number {
		case 1146: // ER_NO_SUCH_TABLE
			return ErrNotFound
		case 4084, 1690: // ER_SEQUENCE_RUN_OUT, ER_DATA_OUT_OF_RANGE
			return ErrLimitReached
		case 1213, 1205: // ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT
			return ErrConflict
		}
	}
	return nil
}

// Retry bounds how often an operation that conflicts with concurrent
// transactions is tried again. The zero value means the defaults.
type Retry struct {
	// Attempts is how many times to try in all; 0 means 10.
	Attempts int
	// Backoff is the first wait between attempts, doubled each time up to
	// MaxBackoff, each wait drawn at random from [wait/2, wait]; 0 means
	// 1ms.
	Backoff time.Duration
	// MaxBackoff caps the wait; 0 means 100ms.
	MaxBackoff time.Duration
}

// do runs op until it succeeds, fails with an error that is not a
// conflict, the attempts run out or ctx ends.
func (r Retry) do(ctx context.Context, op func() error) error {
	return r.doWhile(ctx, op, func(err error) bool { return kindOf(err) == ErrConflict })
}

// doWhile runs op until it succeeds, fails with an error again does not
// accept, the attempts run out or ctx ends.
func (r Retry) doWhile(ctx context.Context, op func() error, again func(error) bool) error {
	attempts, wait, most := r.Attempts, r.Backoff, r.MaxBackoff
	if attempts <= 0 {
		attempts = 10
	}
	if wait <= 0 {
		wait = time.Millisecond
	}
	if most <= 0 {
		most = 100 * time.Millisecond
	}
	for i := 1; ; i++ {
		err := op()
		if err == nil || i >= attempts || !again(err) {
			return err
		}
		t := time.NewTimer(wait/2 + rand.N(wait/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, most)
	}
}

// RunTx runs fn in a transaction of db and commits it, running it again
// from the start (up to retry's bounds) when the database reports a
// conflict with a concurrent transaction, the way Spanner's client runs a
// read-write transaction. fn's other errors roll back and are returned.
// Use it around Sync.Next under contention.
func RunTx(ctx context.Context, db *sql.DB, opts *sql.TxOptions, retry Retry, fn func(*sql.Tx) error) error {
	err := retry.do(ctx, func() error {
		tx, err := db.BeginTx(ctx, opts)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	})
	if kindOf(err) == ErrConflict && !errors.Is(err, ErrConflict) {
		return errors.Join(ErrConflict, err)
	}
	return err
}
