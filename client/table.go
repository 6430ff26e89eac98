package client

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
)

// TableOptions configure a table source. The zero value means the
// defaults.
type TableOptions struct {
	// Table is the name of the sequences table, a plain identifier; ""
	// means "sequences".
	Table string
	// Retry bounds the retries of a reservation that conflicts with
	// concurrent transactions.
	Retry Retry
}

// Table is a Source over a sequences(name, next_value) table in
// PostgreSQL, MySQL, MariaDB or TiDB, the Spanner article's design: a
// reservation of n values is one short transaction that adds n to the
// row's next_value. It is also a TxSource, for Sync. Safe for concurrent
// use.
type Table struct {
	db    *sql.DB
	retry Retry
	q     tableSQL
}

// tableSQL is one dialect's statements.
type tableSQL struct {
	dialect     string
	createTable string
	createRow   string
	// reserve adds n to next_value and yields the new next_value.
	reserve func(ctx context.Context, x execer, name string, n int64) (int64, error)
	release string // parameters: new next_value, name, expected next_value
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

func tableName(o TableOptions) (string, error) {
	t := o.Table
	if t == "" {
		t = "sequences"
	}
	if !identifier.MatchString(t) {
		return "", fmt.Errorf("%w: table name %q is not a plain identifier", ErrInvalid, t)
	}
	return t, nil
}

// NewPostgresTable is a table source in PostgreSQL; db is any
// database/sql handle to it (for example with pgx's stdlib driver).
func NewPostgresTable(db *sql.DB, o TableOptions) (*Table, error) {
	t, err := tableName(o)
	if err != nil {
		return nil, err
	}
	reserve := fmt.Sprintf(`UPDATE %s SET next_value = next_value + $2 WHERE name = $1 RETURNING next_value`, t)
	return &Table{db: db, retry: o.Retry, q: tableSQL{
		dialect:     "postgres",
		createTable: fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (name text PRIMARY KEY, next_value bigint NOT NULL)`, t),
		createRow:   fmt.Sprintf(`INSERT INTO %s (name, next_value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, t),
		reserve: func(ctx context.Context, x execer, name string, n int64) (int64, error) {
			var next int64
			err := x.QueryRowContext(ctx, reserve, name, n).Scan(&next)
			return next, err
		},
		release: fmt.Sprintf(`UPDATE %s SET next_value = $1 WHERE name = $2 AND next_value = $3`, t),
	}}, nil
}

// NewMySQLTable is a table source in MySQL, MariaDB or TiDB; db is a
// database/sql handle to it (go-sql-driver/mysql). A reservation is one
// autocommitted UPDATE that hands the new next_value back through
// LAST_INSERT_ID(expr), MySQL's documented idiom for sequences.
func NewMySQLTable(db *sql.DB, o TableOptions) (*Table, error) {
	t, err := tableName(o)
	if err != nil {
		return nil, err
	}
	reserve := fmt.Sprintf("UPDATE %s SET next_value = LAST_INSERT_ID(next_value + ?) WHERE name = ?", t)
	return &Table{db: db, retry: o.Retry, q: tableSQL{
		dialect:     "mysql",
		createTable: fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (name VARCHAR(64) NOT NULL PRIMARY KEY, next_value BIGINT NOT NULL) ENGINE=InnoDB", t),
		createRow:   fmt.Sprintf("INSERT INTO %s (name, next_value) VALUES (?, ?) ON DUPLICATE KEY UPDATE name = name", t),
		reserve: func(ctx context.Context, x execer, name string, n int64) (int64, error) {
			res, err := x.ExecContext(ctx, reserve, n, name)
			if err != nil {
				return 0, err
			}
			if k, err := res.RowsAffected(); err != nil || k == 0 {
				return 0, errors.Join(sql.ErrNoRows, err)
			}
			return res.LastInsertId()
		},
		release: fmt.Sprintf("UPDATE %s SET next_value = ? WHERE name = ? AND next_value = ?", t),
	}}, nil
}

// Create makes the table if it does not exist and the sequence's row if
// it does not exist.
func (t *Table) Create(ctx context.Context, name string, start int64) error {
	if _, err := t.db.ExecContext(ctx, t.q.createTable); err != nil {
		return wrap(kindOf(err), "create table for", name, err)
	}
	if _, err := t.db.ExecContext(ctx, t.q.createRow, name, start); err != nil {
		return wrap(kindOf(err), "create", name, err)
	}
	return nil
}

// Reserve takes the next n values in a transaction of its own, retried
// (within the source's Retry bounds) when it conflicts.
func (t *Table) Reserve(ctx context.Context, name string, n int64) (Range, error) {
	if n < 1 {
		return Range{}, fmt.Errorf("%w: reserve %d values of %q", ErrInvalid, n, name)
	}
	var next int64
	err := t.retry.do(ctx, func() (err error) {
		next, err = t.q.reserve(ctx, t.db, name, n)
		return err
	})
	if err != nil {
		return Range{}, t.fail("reserve", name, err)
	}
	return Range{First: next - n, Last: next - 1, Step: 1}, nil
}

// NextInTx takes the next value inside tx: the row stays locked until tx
// ends, so values are ordered and gapless, and a rolled-back tx consumes
// none. Conflicts are returned at once (ErrConflict): the caller's
// transaction must be run again.
func (t *Table) NextInTx(ctx context.Context, tx *sql.Tx, name string) (int64, error) {
	next, err := t.q.reserve(ctx, tx, name, 1)
	if err != nil {
		return 0, t.fail("next in transaction", name, err)
	}
	return next - 1, nil
}

// Release sets next_value back to r.First if it is still r.Last+1: no
// one reserved after r.
func (t *Table) Release(ctx context.Context, name string, r Range) (bool, error) {
	if r.Step != 1 || r.Count() < 1 {
		return false, nil
	}
	var res sql.Result
	err := t.retry.do(ctx, func() (err error) {
		res, err = t.db.ExecContext(ctx, t.q.release, r.First, name, r.Last+1)
		return err
	})
	if err != nil {
		return false, t.fail("release", name, err)
	}
	k, err := res.RowsAffected()
	if err != nil {
		return false, t.fail("release", name, err)
	}
	return k == 1, nil
}

func (t *Table) fail(op, name string, err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return wrap(ErrNotFound, op, name, err)
	}
	return wrap(kindOf(err), op, name, err)
}
