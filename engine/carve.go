package engine

import (
	"math"
	"sync/atomic"

	"github.com/seqd/seqd/seqmath"
)

// A carve is a short run of values cut from a sequence's window, which
// nextval hands out without the sequence's lock: one atomic decrement
// picks the next value, in order. Under many goroutines on one sequence
// the lock, handed between cores, cost several times nextval itself.
//
// Carved values count as handed out (seq.cur is past them) until the
// carve is drained: every path that reads or moves seq.cur or
// seq.remaining under seq.mu drains it first (drainLocked), which puts
// the values nobody took back into the window and sets cur to the last
// value taken. So DDL, setval, releases and a clean close see the exact
// position (invariants 4 and 5), a failed or fenced sequence hands out
// nothing more (6 and 7: the drain, and the deposed check before a
// take), and a carve never reaches beyond the durable mark (1: it is cut
// from the window). Nothing is written for a carve; a crash skips its
// untaken values, which are within the window (3).
type carve struct {
	left atomic.Int64  // values not yet taken; the next one is count-left
	r    seqmath.Range // the carved counters, with the shape that maps them (no skip range)
	base seqmath.State // the sequence's position before the carve
	// logsAlways: every fetch of the sequence logs (logAfter's always).
	logsAlways bool
}

// carveMax is the most values one carve holds.
const carveMax = 64

// take hands out the carve's next value; ok is false once it is used up.
func (c *carve) take() (int64, bool) {
	k := c.left.Add(-1)
	if k < 0 {
		return 0, false
	}
	v, _ := c.r.Value(c.r.Count - 1 - k)
	return v, true
}

// drainLocked ends s's carve, if any: the values nobody took go back to
// the window. REQUIRES: s.mu held.
func (s *seq) drainLocked() {
	c := s.carved.Swap(nil)
	if c == nil {
		return
	}
	left := max(c.left.Swap(math.MinInt64/2), 0)
	taken := c.r.Count - left
	if left > 0 {
		s.cur, _ = s.opts.Advance(c.base, taken)
		s.remaining += left
	}
	if taken > 0 {
		s.granted = 1 // the last value handed out was one nextval's
		s.logCnt, s.logBlock = logAfter(s.opts, c.logsAlways, c.base, taken, s.logCnt, s.logBlock)
	}
}

// carveLocked cuts a carve from the window for the nextval calls to come,
// when the sequence keeps a window (CACHE > 1), nobody waits for a write,
// and its shape has no skip range. always: every fetch of s logs
// (Engine.logsAlways). REQUIRES: s.mu held, no carve active.
func (s *seq) carveLocked(always bool) {
	if s.opts.Cache <= 1 || s.demand > 0 || s.lockedBy != nil || s.opts.Shape.HasSkip() || s.remaining < 2 {
		return
	}
	m := min(s.remaining/2, carveMax)
	base := s.cur
	r, next, err := s.opts.Reserve(s.cur, m, "")
	if err != nil || r.Count == 0 {
		return
	}
	c := &carve{r: r, base: base, logsAlways: always}
	c.left.Store(r.Count)
	s.cur = next
	s.remaining -= r.Count
	s.carved.Store(c)
}

// carvedLeft is how many values s's carve still holds.
func (s *seq) carvedLeft() int64 {
	if c := s.carved.Load(); c != nil {
		return max(c.left.Load(), 0)
	}
	return 0
}

// currentLocked is s's exact position and window, counting a carve's
// untaken values as not handed out. REQUIRES: s.mu held.
func (s *seq) currentLocked() (seqmath.State, int64) {
	c := s.carved.Load()
	if c == nil {
		return s.cur, s.remaining
	}
	left := max(c.left.Load(), 0)
	if left == 0 {
		return s.cur, s.remaining
	}
	cur, _ := s.opts.Advance(c.base, c.r.Count-left)
	return cur, s.remaining + left
}

// logCountLocked is s's log_cnt and the values left in the cache it
// counts for (logcnt.go), counting a carve's values taken so far as
// handed out. REQUIRES: s.mu held.
func (s *seq) logCountLocked() (uint8, int64) {
	c := s.carved.Load()
	if c == nil {
		return s.logCnt, s.logBlock
	}
	taken := c.r.Count - max(c.left.Load(), 0)
	if taken <= 0 {
		return s.logCnt, s.logBlock
	}
	return logAfter(s.opts, c.logsAlways, c.base, taken, s.logCnt, s.logBlock)
}
