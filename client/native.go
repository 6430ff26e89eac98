package client

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
)

// NativeOptions configure a native-sequence source. The zero value means
// the defaults.
type NativeOptions struct {
	// Increment is the INCREMENT that Create gives new sequences; 0
	// means 1. One nextval then covers Increment values (Hibernate's
	// "pooled" scheme), so a Batch of that size costs one call per range.
	Increment int64
	// Cache is the CACHE that Create gives new sequences; 0 means the
	// database's default (1 in PostgreSQL, 1000 in MariaDB).
	Cache int64
}

// Native is a Source over the database's own sequences, PostgreSQL's
// nextval or MariaDB's NEXTVAL, for comparison with seqd. Each Reserve is
// one nextval, which covers the sequence's INCREMENT values, so n must be
// 1 or that INCREMENT; the sequence must ascend. Native sequences cannot
// take values back: Release always reports false. Safe for concurrent
// use.
type Native struct {
	db      *sql.DB
	o       NativeOptions
	dialect string
	incs    sync.Map // name -> int64, the sequence's INCREMENT
}

// NewPostgresNative is a source over PostgreSQL sequences.
func NewPostgresNative(db *sql.DB, o NativeOptions) *Native {
	return &Native{db: db, o: o, dialect: "postgres"}
}

// NewMariaDBNative is a source over MariaDB (10.3+) sequences.
func NewMariaDBNative(db *sql.DB, o NativeOptions) *Native {
	return &Native{db: db, o: o, dialect: "mysql"}
}

// quote makes name a quoted identifier of the source's dialect.
func (s *Native) quote(name string) string {
	if s.dialect == "postgres" {
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// Create makes the sequence with the source's INCREMENT and CACHE unless
// it exists.
func (s *Native) Create(ctx context.Context, name string, start int64) error {
	inc := max(s.o.Increment, 1)
	q := fmt.Sprintf("CREATE SEQUENCE IF NOT EXISTS %s INCREMENT BY %d START WITH %d", s.quote(name), inc, start)
	switch {
	case s.o.Cache > 1:
		q += fmt.Sprintf(" CACHE %d", s.o.Cache)
	case s.o.Cache == 1 && s.dialect == "mysql":
		q += " NOCACHE"
	}
	if _, err := s.db.ExecContext(ctx, q); err != nil {
		return wrap(kindOf(err), "create", name, err)
	}
	return nil
}

// increment reads (once) the INCREMENT of the sequence name.
func (s *Native) increment(ctx context.Context, name string) (int64, error) {
	if v, ok := s.incs.Load(name); ok {
		return v.(int64), nil
	}
	var inc int64
	var err error
	if s.dialect == "postgres" {
		err = s.db.QueryRowContext(ctx, `SELECT seqincrement FROM pg_sequence WHERE seqrelid = $1::regclass`, s.quote(name)).Scan(&inc)
	} else {
		err = s.db.QueryRowContext(ctx, "SELECT increment FROM "+s.quote(name)).Scan(&inc)
	}
	if err != nil {
		return 0, wrap(kindOf(err), "read increment of", name, err)
	}
	s.incs.Store(name, inc)
	return inc, nil
}

// Reserve is one nextval: the INCREMENT values from the one it returns.
func (s *Native) Reserve(ctx context.Context, name string, n int64) (Range, error) {
	inc, err := s.increment(ctx, name)
	if err != nil {
		return Range{}, err
	}
	if inc < 1 || (n != 1 && n != inc) {
		return Range{}, fmt.Errorf("%w: %d values of native sequence %q, whose INCREMENT is %d: a native sequence reserves 1 value or its INCREMENT", ErrUnsupported, n, name, inc)
	}
	var v int64
	if s.dialect == "postgres" {
		err = s.db.QueryRowContext(ctx, `SELECT nextval($1::regclass)`, s.quote(name)).Scan(&v)
	} else {
		err = s.db.QueryRowContext(ctx, "SELECT NEXTVAL("+s.quote(name)+")").Scan(&v)
	}
	if err != nil {
		return Range{}, wrap(kindOf(err), "reserve", name, err)
	}
	return Range{First: v, Last: v + inc - 1, Step: 1}, nil
}

// Release cannot give values back to a native sequence: it reports
// false.
func (s *Native) Release(context.Context, string, Range) (bool, error) { return false, nil }
