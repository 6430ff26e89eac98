package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
)

// initialWindow is the first prefetch of a sequence with CACHE > 1, before
// its rate is known.
const initialWindow = 16

// seq is one sequence in memory. id never changes; carved is atomic (the
// nextval path takes from it without mu); every other field, key
// included (a rename or a transaction's commit moves it, holding mu), is
// guarded by mu (Engine's invariant 11: no two held at once, taken after
// catMu). It is kept small: a million of them must fit in 256 MiB.
type seq struct {
	// The fields holding pointers come first: the collector scans an
	// object only up to its last pointer, 64 of these 160 bytes.
	key  string
	opts *seqmath.Options // interned (internOptions): never written through
	// changed is closed when a write completes; made on demand.
	changed chan struct{}
	err     *Error                // sticky: storage failure or engine closed
	carved  atomic.Pointer[carve] // values nextval takes without mu (carve.go); nil: none
	// rare holds what few sequences ever have (values burned, a refused
	// extension); nil until one does.
	rare *seqRare
	// lockedBy is the transaction holding the sequence's lock (txn.go):
	// everyone else's nextval, setval and DDL wait for it to end.
	lockedBy *Txn

	mu  sync.Mutex
	id  uint64
	cur seqmath.State // position of the last value handed out
	rev storage.Rev   // revision of the stored record
	// remaining counts the values after cur up to the durable mark, the
	// state the store resumes from (cur advanced by remaining): durable,
	// not yet handed out.
	remaining  int64
	window     int64  // prefetch size, adapted to the rate within CACHE-1
	demand     int64  // values wanted by callers blocked on this sequence
	granted    int64  // size of the last range handed out, ending at cur; 0: none may be released
	epoch      uint64 // NOORDER: times the position was set (record.epoch)
	logBlock   int64  // values left in the cache of PostgreSQL's session that log_cnt counts for (logcnt.go)
	lastRefill int32  // engine clock in ticks (see tick) at the last prefetch
	writing    bool   // a write of this sequence's record is in flight
	gone       bool   // dropped
	unlogged   bool   // UNLOGGED: reset to its start after a crash
	logCnt     uint8  // PostgreSQL's log_cnt (logcnt.go)
}

// internOptions returns the one shared copy of o: most sequences have
// the same options, and a million sequences keep a pointer each instead
// of 64 bytes each. Copies no sequence refers to any more are collected.
// The value must never be changed through the pointer.
func internOptions(o seqmath.Options) *seqmath.Options {
	optionsMu.Lock()
	defer optionsMu.Unlock()
	if w, ok := optionsTable[o]; ok {
		if p := w.Value(); p != nil {
			return p
		}
	}
	p := new(seqmath.Options)
	*p = o
	optionsTable[o] = weak.Make(p)
	runtime.AddCleanup(p, forgetOptions, o)
	return p
}

// forgetOptions drops o's entry once its copy is collected (unless a new
// copy took its place).
func forgetOptions(o seqmath.Options) {
	optionsMu.Lock()
	defer optionsMu.Unlock()
	if w, ok := optionsTable[o]; ok && w.Value() == nil {
		delete(optionsTable, o)
	}
}

var (
	optionsMu    sync.Mutex // Engine's invariant 18: a leaf of the lock order
	optionsTable = map[seqmath.Options]weak.Pointer[seqmath.Options]{}
)

// seqRare is what a sequence seldom has: kept apart, so that a million
// sequences' records stay small.
type seqRare struct {
	burned Burned // values skipped since Open (Engine.Burned)
	// refused is why the last extension of the mark was refused before
	// anything was written (storage.Refused): the callers that waited
	// for it fail with it; the next newcomer tries again.
	refused *Error
	// ranged counts the callers waiting for more than one value (a range
	// or a bulk reservation): the writer's linger, which counts callers
	// by the values they wait for, holds no commit for them.
	ranged int
}

// rareLocked returns s.rare, made if it was nil.
func (s *seq) rareLocked() *seqRare {
	if s.rare == nil {
		s.rare = &seqRare{}
	}
	return s.rare
}

// refusedLocked is why the last extension was refused (nil: it was not).
func (s *seq) refusedLocked() *Error {
	if s.rare == nil {
		return nil
	}
	return s.rare.refused
}

func (s *seq) setRefusedLocked(err *Error) {
	if err != nil || s.rare != nil {
		s.rareLocked().refused = err
	}
}

// durableLocked is the mark the store holds: every value handed out is at
// or before it.
func (s *seq) durableLocked() seqmath.State {
	d, _ := s.opts.Advance(s.cur, s.remaining)
	return d
}

func (s *seq) name() Name { n, _ := nameFromKey(s.key); return n }

func (s *seq) usableLocked() error {
	if s.gone {
		return notFound(s.name())
	}
	if s.err != nil {
		return s.err
	}
	return nil
}

func (s *seq) infoLocked() Info {
	cur, window := s.currentLocked()
	logCnt, _ := s.logCountLocked()
	info := Info{Name: s.name(), ID: s.id, Options: *s.opts, State: cur, Window: window, LogCnt: int64(logCnt), Unlogged: s.unlogged, Epoch: s.epoch}
	if s.rare != nil {
		info.Burned = s.rare.burned
	}
	return info
}

// handedOutLocked is how many values first..last holds when it is a run
// of values the sequence handed out (on its grid, at or before its
// position); 0 for anything else, which no client was given. REQUIRES:
// s.mu held, no carve.
func (s *seq) handedOutLocked(first, last int64) int64 {
	n, ok := s.opts.Steps(seqmath.State{Last: first}, seqmath.State{Last: last, Called: true})
	if !ok {
		return 0
	}
	if _, ok := s.opts.Steps(seqmath.State{Last: last, Called: true}, s.cur); !ok {
		return 0
	}
	return n
}

// changedLocked returns a channel closed at the next completed write.
func (s *seq) changedLocked() chan struct{} {
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

func (s *seq) broadcastLocked() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// waitLocked releases mu until the next write completes or ctx ends.
func (s *seq) waitLocked(ctx context.Context) error {
	ch := s.changedLocked()
	s.mu.Unlock()
	defer s.mu.Lock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sleepLocked releases mu for d, or until ctx ends.
func (s *seq) sleepLocked(ctx context.Context, d time.Duration) error {
	s.mu.Unlock()
	defer s.mu.Lock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitIdleLocked waits until no write of s is in flight.
func (s *seq) waitIdleLocked(ctx context.Context) error {
	for s.writing {
		if err := s.waitLocked(ctx); err != nil {
			return err
		}
	}
	return nil
}

// reserve hands out n counters from the window (whole), or up to n,
// waiting for the mark to be extended when the window holds too few. n 0
// is nextval: the counters up to the next one whose value the sequence's
// skip range does not hold (one, without a skip range), and the range
// returned is that counter's value alone, mapped while s.mu is held.
func (e *Engine) reserve(ctx context.Context, s *seq, n int64, whole bool) (seqmath.Range, error) {
	s.mu.Lock()
	if e.ranges != nil && s.opts.NoOrder {
		err := s.usableLocked()
		key, id, epoch := s.key, s.id, s.epoch
		s.mu.Unlock()
		if err != nil {
			return seqmath.Range{}, err
		}
		name, _ := nameFromKey(key)
		leads := !e.readOnly && !e.deposed.Load() && (e.leadership == nil || e.leadership())
		return e.ranges.take(ctx, name, key, id, epoch, n, whole, leads)
	}
	defer s.mu.Unlock()
	s.drainLocked()
	waits := 0
	n0, count := n == 0, n
	snowflake := s.opts.Shape.Kind == seqmath.Snowflake
	for {
		if s.lockedBy != nil {
			if waited, err := e.waitLockLocked(ctx, s, "RowExclusiveLock"); err != nil {
				return seqmath.Range{}, err
			} else if waited {
				s.drainLocked()
				continue
			}
		}
		if err := s.usableLocked(); err != nil {
			return seqmath.Range{}, err
		}
		if e.deposed.Load() {
			return seqmath.Range{}, deposedError() // invariant 7
		}
		if refused := s.refusedLocked(); refused != nil {
			if waits > 0 && !s.writing {
				// The write this caller waited for was refused.
				return seqmath.Range{}, refused
			}
			if waits == 0 {
				s.setRefusedLocked(nil) // a newcomer tries again
			}
		}
		// Recomputed on every pass: DDL or setval may have moved cur,
		// and the clock a Snowflake's lead.
		n = count
		if n0 {
			k, ok := s.opts.NextSteps(s.cur)
			if !ok {
				return seqmath.Range{}, s.opts.LimitError(s.name().Rel())
			}
			n = k
		}
		var lead int64
		if snowflake {
			var wait time.Duration
			var err error
			if lead, wait, err = e.snowflakeLeadLocked(s, n); err != nil {
				return seqmath.Range{}, err
			}
			if wait > 0 {
				if err := s.sleepLocked(ctx, wait); err != nil {
					return seqmath.Range{}, err
				}
				continue
			}
			n += lead
		}
		// A newcomer leaves alone the values that callers already
		// waiting have counted as their demand (the write in flight or
		// just done covers them), so that waiters are not starved.
		avail := s.remaining
		if waits == 0 {
			avail = max(s.remaining-s.demand, 0)
		}
		if avail > 0 {
			// enough: all n, or all the sequence has left before its
			// limit. Otherwise a whole range waits for a write that
			// covers it (its demand is counted in it). An up-to range
			// takes what is there, except that a caller that waited has
			// its demand counted in the write in flight; taking part of
			// an older window and leaving would turn that write into
			// prefetch beyond CACHE, so it waits for all of it.
			enough := avail >= n || avail >= s.opts.Left(s.cur)
			if enough || (!whole && lead == 0 && (waits == 0 || !s.writing)) {
				r, next, err := s.opts.Reserve(s.cur, min(n, avail), s.name().Rel())
				if err != nil {
					// Unreachable: a non-empty window lies before the limit.
					return seqmath.Range{}, err
				}
				if r.Count <= lead {
					// The clock's unit is past the layout's last.
					return seqmath.Range{}, s.opts.LimitError(s.name().Rel())
				}
				always := e.logsAlways(s)
				s.logCnt, s.logBlock = logAfter(s.opts, always, s.cur, r.Count, s.logCnt, s.logBlock)
				s.cur = next
				s.remaining -= r.Count
				s.granted = r.Count
				e.refillLocked(s)
				if snowflake {
					r.First, r.Count = r.First+lead, r.Count-lead // increment 1
					s.granted = r.Count
					r = e.snowflakeRange(r)
				}
				if n0 {
					v := r.Shape.Value(r.Last())
					s.carveLocked(always) // for the nextval calls to come
					return seqmath.Range{First: v, Count: 1, Increment: 1}, nil
				}
				return r, nil
			}
		}
		if !s.opts.Cycle && s.opts.Left(s.cur) == 0 {
			_, _, err := s.opts.Reserve(s.cur, 1, s.name().Rel())
			return seqmath.Range{}, err
		}
		// A Snowflake's lead is counted once, by the extension's time
		// (snowflakePlanLocked), not by every caller waiting: callers
		// each counting it would move the mark on by their number of
		// leads, hours ahead of the clock after a jump.
		want := n - lead
		s.demand += want
		if want > 1 {
			s.rareLocked().ranged++
		}
		e.refillLocked(s)
		e.w.nudgeIfWatchedLocked(s)
		err := s.waitLocked(ctx)
		s.demand -= want
		if want > 1 {
			s.rare.ranged--
		}
		waits++
		if err != nil {
			return seqmath.Range{}, err
		}
	}
}

// refillLocked starts extending the durable mark when callers are waiting
// or the window has fallen to its low watermark (half the window), unless
// a write is already in flight. The write is planned by planLocked only when
// the writer takes it, so callers that arrive while the writer is busy with
// an earlier commit join this one.
func (e *Engine) refillLocked(s *seq) {
	if s.writing || s.gone || s.err != nil || e.ranges != nil && s.opts.NoOrder {
		return // a NOORDER sequence's record keeps where its epoch starts
	}
	// A carve's untaken values are the window's too (invariant 3 counts
	// them as prefetched).
	// A Snowflake's counters before the clock's unit serve no demand.
	snowflake := s.opts.Shape.Kind == seqmath.Snowflake
	remaining := s.remaining
	if snowflake {
		remaining = e.snowflakeUsableLocked(s)
	}
	window := remaining + s.carvedLeft()
	if s.demand <= window && window > s.window/2 && (!snowflake || !e.snowflakeDueLocked(s)) {
		return
	}
	s.writing = true
	var mark seqmath.State
	var advanced int64
	e.extensions.Add(1)
	e.w.submit(&write{
		seq: s,
		prepare: func() (storage.Op, bool) {
			s.mu.Lock()
			defer s.mu.Unlock()
			mark, advanced = e.planLocked(s)
			if advanced == 0 {
				s.writing = false
				s.broadcastLocked()
				return storage.Op{}, false
			}
			known, _ := s.currentLocked()
			rec := record{id: s.id, opts: *s.opts, state: mark, unlogged: s.unlogged, known: known, hasKnown: known != mark, epoch: s.epoch}
			return storage.Op{Key: s.key, Value: rec.encode(), Expect: s.rev}, true
		},
		done: func(rev storage.Rev, err error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.writing = false
			defer s.broadcastLocked()
			e.w.expectLocked(s)
			if storage.Refused(err) {
				s.setRefusedLocked(storageError(s, err)) // the mark is as it was
				return
			}
			if err != nil {
				s.err = storageError(s, err)
				s.drainLocked() // invariants 6 and 7: nothing more handed out
				return
			}
			s.setRefusedLocked(nil)
			s.rev = rev
			s.remaining += advanced
			if s.opts.Shape.Kind != seqmath.Snowflake { // its marks follow the clock, not a rate
				e.meter.add(e.now(), advanced)
			}
			e.refillLocked(s)
		},
	})
}

// planLocked sizes an extension of the mark: what blocked callers asked for
// beyond the window, plus a prefetch sized to the rate, keeping the values
// no caller asked for at most CACHE-1. It returns the new mark and how many
// values it adds (0: nothing to write, or the limit was reached).
func (e *Engine) planLocked(s *seq) (seqmath.State, int64) {
	durable := s.durableLocked()
	if s.gone || s.err != nil {
		return durable, 0
	}
	if s.opts.Shape.Kind == seqmath.Snowflake {
		return e.snowflakePlanLocked(s)
	}
	need := max(s.demand-s.remaining, 0)
	capacity := s.opts.Cache - 1
	now := e.tick()
	switch {
	case capacity == 0:
		s.window = 0
	case s.lastRefill == 0 && s.window == 0:
		s.window = min(initialWindow, capacity)
	case now-s.lastRefill < e.refillPeriod:
		if s.window > capacity/2 {
			s.window = capacity
		} else {
			s.window = max(2*s.window, 1)
		}
	case now-s.lastRefill > 8*e.refillPeriod:
		s.window = max(s.window/2, 1)
	}
	s.window = min(s.window, capacity)
	s.lastRefill = now
	spare := max(s.remaining+s.carvedLeft()-s.demand, 0)
	prefetch := max(min(s.window, capacity-spare), 0)
	steps := need
	if steps > math.MaxInt64-prefetch {
		steps = math.MaxInt64
	} else {
		steps += prefetch
	}
	return s.opts.Advance(durable, steps)
}

func storageError(s *seq, err error) *Error {
	if errors.Is(err, storage.ErrFenced) {
		return deposedError()
	}
	return &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not persist sequence \"%s\": %v", s.name().Rel(), err)}
}
