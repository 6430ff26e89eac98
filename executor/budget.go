package executor

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/seqd/seqd/sql"
)

// A statement's budget: the memory it may keep, and how it notices that it
// must stop (a CancelRequest, a statement_timeout, a client gone, a
// shutdown: all end its context).
//
// seqd cannot spill to disk as PostgreSQL's work_mem does, so the memory a
// statement keeps (rows held for a sort, DISTINCT or a join's inner side,
// groups and the values array_agg, string_agg and DISTINCT aggregates
// keep) is charged against one limit per statement, Config.MaxStatementMemory
// (-max-statement-memory, default 256 MiB); past it the statement fails
// with 53200 "out of memory" and frees everything. Aggregates that need
// only their state (count, sum, min, max, bool_and, bool_or) stream their
// input and keep nothing per row. The charge is an estimate of the Go
// memory held (estimateSize), not an exact count.
//
// Every loop that may run long without producing a row (grouping, a
// join's inner loop, a filter, collecting rows) calls tick once per row it
// looks at; every tickEvery calls it reads the context, so a statement
// stops within a few thousand rows of being told to.

// DefaultMaxStatementMemory is Config.MaxStatementMemory's default.
const DefaultMaxStatementMemory = 256 << 20

const tickEvery = 1024

// ErrStatementTimeout is the cause a front end gives a statement's
// context when statement_timeout ends it.
var ErrStatementTimeout = errors.New("canceling statement due to statement timeout")

type budget struct {
	limit int64 // bytes; 0: no limit
	used  int64
	ticks uint32
}

// budget is e's statement budget, made at its first use.
func (e *env) budget() *budget {
	if e.b == nil {
		e.b = &budget{limit: e.s.cfg.MaxStatementMemory}
	}
	return e.b
}

// charge accounts n more bytes kept by the statement.
func (e *env) charge(n int64) error {
	b := e.budget()
	b.used += n
	if b.limit > 0 && b.used > b.limit {
		return sql.Errorf(sql.OutOfMemory, "out of memory").
			WithDetail(fmt.Sprintf("The statement kept more than %s, the most one statement may hold (-max-statement-memory).", formatBytes(b.limit)))
	}
	return nil
}

// tick is called once per row a loop looks at; now and then it checks
// whether the statement must stop.
func (e *env) tick() error {
	b := e.budget()
	b.ticks++
	if b.ticks%tickEvery != 0 {
		return nil
	}
	return stopped(e.ctx)
}

// stopped is the error a statement ends with when ctx is done, nil while
// it is not.
func stopped(ctx context.Context) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	if errors.Is(context.Cause(ctx), ErrStatementTimeout) {
		return sql.Errorf(sql.QueryCanceled, "%s", ErrStatementTimeout.Error())
	}
	return ctx.Err()
}

// estimateSize is about what d keeps in memory.
func estimateSize(d Datum) int64 {
	n := int64(unsafe.Sizeof(d)) + int64(len(d.S))
	for _, a := range d.A {
		n += estimateSize(a)
	}
	return n
}

// rowSize is about what a kept row costs.
func rowSize(row []Datum) int64 {
	n := int64(24)
	for _, d := range row {
		n += estimateSize(d)
	}
	return n
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d kB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// The session's time limits, PostgreSQL's settings of the same names
// (0: none), read at every statement or message: parsed again only when
// a setting changed (pathVersion counts every change).
const (
	statementTimeout = iota
	lockTimeout
	idleInTransactionTimeout
	idleSessionTimeout
)

var timeoutSettings = [...]string{"statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout"}

type timeoutCache struct {
	valid   bool
	version uint64 // the pathVersion d was read at
	d       [len(timeoutSettings)]time.Duration
}

func (s *Session) timeout(which int) time.Duration {
	c := &s.timeouts
	if !c.valid || c.version != s.pathVersion {
		for i, name := range timeoutSettings {
			c.d[i], _ = parseDuration(s.settings.get(name), time.Millisecond)
		}
		c.valid, c.version = true, s.pathVersion
	}
	return c.d[which]
}

// StatementTimeout is the session's statement_timeout: how long one
// statement may run (0: no limit). A front end puts it on the statement's
// context with ErrStatementTimeout as the cause.
func (s *Session) StatementTimeout() time.Duration { return s.timeout(statementTimeout) }

// IdleTimeout is how long the session may wait for its client's next
// message as it stands (idle_in_transaction_session_timeout inside a
// transaction block, idle_session_timeout outside; 0: no limit), and the
// kind of error that ends it then.
func (s *Session) IdleTimeout() (time.Duration, sql.Kind) {
	if s.TxStatus() != 'I' {
		return s.timeout(idleInTransactionTimeout), sql.IdleInTransactionTimeout
	}
	return s.timeout(idleSessionTimeout), sql.IdleSessionTimeout
}

// parseDuration reads a time setting as PostgreSQL does: a number in unit,
// or a number with a unit (us, ms, s, min, h, d).
func parseDuration(v string, unit time.Duration) (time.Duration, error) {
	var n float64
	var suffix string
	if _, err := fmt.Sscanf(v, "%g%s", &n, &suffix); err != nil {
		if _, err := fmt.Sscanf(v, "%g", &n); err != nil {
			return 0, err
		}
	}
	u := unit
	switch suffix {
	case "":
	case "us":
		u = time.Microsecond
	case "ms":
		u = time.Millisecond
	case "s":
		u = time.Second
	case "min":
		u = time.Minute
	case "h":
		u = time.Hour
	case "d":
		u = 24 * time.Hour
	default:
		return 0, fmt.Errorf("invalid unit %q", suffix)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative")
	}
	return time.Duration(n * float64(u)), nil
}
