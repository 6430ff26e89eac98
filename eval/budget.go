package eval

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/seqd/seqd/sqlerr"
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
func (e *Env) budget() *budget {
	if e.b == nil {
		e.b = &budget{limit: e.Session.StatementMemory()}
	}
	return e.b
}

// charge accounts n more bytes kept by the statement.
func (e *Env) charge(n int64) error {
	b := e.budget()
	b.used += n
	if b.limit > 0 && b.used > b.limit {
		return sqlerr.Errorf(sqlerr.OutOfMemory, "out of memory").
			WithDetail(fmt.Sprintf("The statement kept more than %s, the most one statement may hold (-max-statement-memory).", formatBytes(b.limit)))
	}
	return nil
}

// tick is called once per row a loop looks at; now and then it checks
// whether the statement must stop.
func (e *Env) tick() error {
	b := e.budget()
	b.ticks++
	if b.ticks%tickEvery != 0 {
		return nil
	}
	return stopped(e.Ctx)
}

// stopped is the error a statement ends with when ctx is done, nil while
// it is not.
func stopped(ctx context.Context) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	if errors.Is(context.Cause(ctx), ErrStatementTimeout) {
		return sqlerr.Errorf(sqlerr.QueryCanceled, "%s", ErrStatementTimeout.Error())
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
