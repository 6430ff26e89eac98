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
	// kept is the memory its session keeps for results that outlive
	// their statement, counted with used; nil where nothing is kept.
	kept *Kept
	// held: this statement's result is one of them (Memory.Keep), its
	// used counted in kept already.
	held bool
	// made is what the values of the row under way took as they were
	// made (chargeMade): a long string REPEAT, LPAD or REPLACE makes.
	// It counts against the limit with used until the next row begins
	// (rowDone, tick), when the row has gone on: to the client, or to
	// what keeps it, which charges it itself. A row that something
	// reads on while it looks at others (a join's outer row) goes
	// uncounted meanwhile: at most one row's, itself within the limit.
	made int64
}

// Kept is what a session keeps for the results that outlive their
// statement: an open cursor's rows (a sort's, a DISTINCT's), a portal's
// suspended with rows left. A session may have thousands, each up to
// the statement's limit; so what they keep counts against every
// statement's limit with what the statement keeps itself: a statement
// fails with 53200 when the two together pass it. Its owner (a cursor, a
// portal) keeps a result's Memory (Memory.Keep) and gives it back when
// it closes (Memory.Release). A Kept is its session's: used by one
// goroutine at a time.
type Kept struct{ used int64 }

// Used is how many bytes the results kept hold, as charged.
func (k *Kept) Used() int64 { return k.used }

// Memory is one statement execution's budget, which the Envs of its
// query share: made by the executor (NewMemory) and given to them in
// their context (WithMemory) when the result may be kept. The zero
// value is not usable.
type Memory struct{ b budget }

// NewMemory is a statement's budget of limit bytes (0: none), counted
// with kept (nil: no results kept).
func NewMemory(limit int64, kept *Kept) *Memory {
	return &Memory{b: budget{limit: limit, kept: kept}}
}

// Keep counts what the statement's result holds, now and as it goes on,
// as kept by its session until Release.
func (m *Memory) Keep() {
	if m.b.held || m.b.kept == nil {
		return
	}
	m.b.held = true
	m.b.kept.used += m.b.used
}

// Release gives back what Keep counted (a cursor closed, a portal
// dropped).
func (m *Memory) Release() {
	if !m.b.held {
		return
	}
	m.b.held = false
	m.b.kept.used -= m.b.used
}

type memoryKey struct{}

// WithMemory is ctx carrying m: the Envs of a query opened under it
// charge m.
func WithMemory(ctx context.Context, m *Memory) context.Context {
	return context.WithValue(ctx, memoryKey{}, m)
}

func ctxMemory(ctx context.Context) (*Memory, bool) {
	if ctx == nil {
		return nil, false
	}
	m, ok := ctx.Value(memoryKey{}).(*Memory)
	return m, ok
}

// budget is e's statement budget, made at its first use: the statement's
// Memory in its context if any.
func (e *Env) budget() *budget {
	if e.b == nil {
		if m, ok := ctxMemory(e.Ctx); ok {
			e.b = &m.b
		} else {
			e.b = &budget{limit: e.Session.StatementMemory(), kept: e.Session.KeptMemory()}
		}
	}
	return e.b
}

// charge accounts n more bytes kept by the statement.
func (e *Env) charge(n int64) error { return e.budget().charge(n) }

// Charge counts n more bytes as what the statement keeps (a cursor's
// text and plan, which outlive it), failing as a charge past the limit
// does.
func (m *Memory) Charge(n int64) error { return m.b.charge(n) }

// outOfMemory is the error of a statement past its limit.
func (b *budget) outOfMemory() error {
	return sqlerr.Errorf(sqlerr.OutOfMemory, "out of memory").
		WithDetail(fmt.Sprintf("The statement kept more than %s, the most one statement may hold (-max-statement-memory).", formatBytes(b.limit)))
}

// chargeMade counts n bytes a value of the row under way is about to
// take, before it is made: 53200 where, with what the statement keeps
// and what the row's other values took, they pass the limit. Unlike
// charge, it is not kept: the next row starts from nothing (rowDone),
// so a string made for each of a million rows is not counted a million
// times, and many made for one row are counted together.
func (e *Env) chargeMade(n int64) error {
	b := e.budget()
	b.made += n
	return b.check()
}

// rowDone ends the row under way: what its values took is no longer
// counted (chargeMade).
func (e *Env) rowDone() {
	if e.b != nil {
		e.b.made = 0
	}
}

// charge accounts n more bytes kept by the statement.
func (b *budget) charge(n int64) error {
	b.used += n
	if b.held {
		b.kept.used += n
	}
	return b.check()
}

// check is the error of a statement past its limit, nil within it.
func (b *budget) check() error {
	if b.limit <= 0 {
		return nil
	}
	if b.used+b.made > b.limit {
		return b.outOfMemory()
	}
	if b.kept == nil {
		return nil
	}
	total := b.kept.used + b.made // with b.used, once held
	if !b.held {
		total += b.used
	}
	if total > b.limit {
		return sqlerr.Errorf(sqlerr.OutOfMemory, "out of memory").
			WithDetail(fmt.Sprintf("The statement and the results its session keeps (open cursors, portals suspended with rows left) would hold more than %s, the most they may together (-max-statement-memory).", formatBytes(b.limit))).
			WithHint("Close the cursors and portals the session no longer reads.")
	}
	return nil
}

// tick is called once per row a loop looks at; now and then it checks
// whether the statement must stop.
func (e *Env) tick() error {
	b := e.budget()
	b.made = 0 // a new row: the values the one before made have gone on (chargeMade)
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
