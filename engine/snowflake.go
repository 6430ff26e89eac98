package engine

import (
	"fmt"
	"math"
	"time"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/timeid"
)

// A Snowflake sequence (seqmath.Snowflake) is a sequence like any other
// to the engine, whose counter is (time unit << counter bits | counter of
// the unit): the durable mark, group commit, fencing and the crash
// guarantees are the ordinary ones, and three things follow the clock.
//
//  1. nextval and Reserve first move the counter up to the clock's time
//     unit (snowflakeLeadLocked): the counters passed over are never
//     handed out. A clock behind the counter (stepped back, or ids
//     borrowed ahead above the counter's capacity) moves nothing: ids go
//     on increasing, up to MaxBehind ahead of the clock, then are refused
//     (timeid.ErrClockBehind) rather than repeated.
//  2. The mark is extended by time, not by rate: to the end of the time
//     unit a Window ahead of the clock, once the clock is within half a
//     Window of it (PD saves its timestamps ahead in the same way). So no
//     id's time is above the mark, and a restart, whatever the clock
//     then reads, starts above every id handed out before (invariant 1).
//  3. Every mark ends a time unit, so the next owner (a restart, a new
//     leader with another node id) starts on a unit of its own: ids keep
//     their order even when their node parts differ.
//
// Their values carry the engine's node id (Config.NodeID, its low
// NODE_BITS bits: snowflakeRange) between the time and the counter.

// A call waits for the clock when the ids ran just past MaxBehind ahead
// of it: a rate above the layout's (its counters a unit, times its units
// a second) for MaxBehind, which is then held to the layout's rate, as
// Snowflake's generators wait at every unit they use up. Just past is
// maxRateWait, and the time a reservation of many ids spans (a batch of
// 1<<20 of Twitter's layout spans 256 ms), up to maxSpanWait. A clock
// stepped back further is refused at once (timeid.Generator waits in
// the same way).
const (
	maxRateWait = 20 * time.Millisecond
	maxSpanWait = time.Second
)

// snowflakeLeadLocked is how many counters the next n values of
// Snowflake sequence s pass over to reach the clock's time unit (0:
// none), or how long to wait for the clock (wait > 0), or the refusal:
// the clock has passed the layout's last unit (the limit's error), or the
// last of the n ids would run more than MaxBehind ahead of the clock (a
// reservation is checked by its last id, not its first: granted, a long
// one put the sequence as far ahead, and every call after it was refused
// for as long). REQUIRES: s.mu held.
func (e *Engine) snowflakeLeadLocked(s *seq, n int64) (lead int64, wait time.Duration, err error) {
	sh := s.opts.Shape
	l := sh.Layout()
	now := l.Units(e.wall())
	if end := sh.UnitOf(s.opts.Max); now > end {
		// No id of the layout has a time at or after the clock's.
		return 0, 0, &Error{Kind: seqmath.ErrLimitReached, Msg: fmt.Sprintf("nextval: SNOWFLAKE sequence \"%s\" has no id left: the time of its layout's last (%s) has passed (this server's clock reads %s); a sequence of a later EPOCH or a longer TIME_UNIT is needed",
			s.name().Rel(), l.Time(end).UTC().Format(time.RFC3339Nano), e.wall().UTC().Format(time.RFC3339Nano))}
	}
	next, start, ok := snowflakeStart(s, now)
	if !ok {
		return 0, 0, nil // the limit's error follows
	}
	last := lastCounter(s, start, n)
	// In units, not durations: a clock before the epoch (EPOCH in the
	// future) puts the ids thousands of years ahead, past what a
	// time.Duration holds.
	behind := sh.UnitOf(last) - now
	if limit := max(int64(timeid.DefaultMaxBehind/l.Unit), 1); behind > limit {
		e.noteBehind(unitsDuration(sh.UnitOf(start)-now, l.Unit))
		span := min(unitsDuration(n>>sh.CounterBits, l.Unit), maxSpanWait)
		if over := unitsDuration(behind-limit, l.Unit); over <= maxRateWait+span {
			return 0, over, nil
		}
		what := "the ids of"
		if n > 1 {
			what = fmt.Sprintf("%d ids of", n)
		}
		return 0, 0, &Error{Kind: timeid.ErrClockBehind, Msg: fmt.Sprintf("nextval: %s SNOWFLAKE sequence \"%s\" would reach %s, %s ahead of this server's clock (%s); more than %v would risk repeating them after a restart: they resume once the clock catches up",
			what, s.name().Rel(), l.Time(sh.UnitOf(last)).UTC().Format(time.RFC3339Nano), aheadText(behind, l.Unit), l.Time(now).UTC().Format(time.RFC3339Nano), timeid.DefaultMaxBehind)}
	}
	e.noteBehind(unitsDuration(max(sh.UnitOf(start)-now, 0), l.Unit))
	return start - next, 0, nil
}

// snowflakeStart is the counter Snowflake s's next id would take (next),
// and the one it takes with the clock at time unit now (start: the
// clock's unit's first, if that is later; the counters between are
// passed over); false when the sequence is at its last.
// REQUIRES: s.mu held.
func snowflakeStart(s *seq, now int64) (next, start int64, ok bool) {
	next = s.cur.Last
	if s.cur.Called {
		if next >= s.opts.Max {
			return 0, 0, false
		}
		next++
	}
	return next, max(next, s.opts.Shape.FirstOf(now)), true
}

// lastCounter is the last of n counters of s from start, at most its
// last.
func lastCounter(s *seq, start, n int64) int64 {
	if n-1 < s.opts.Max-start {
		return start + max(n-1, 0)
	}
	return s.opts.Max
}

// snowflakeUsableLocked is how many of Snowflake s's window values lie at
// or past the clock's time unit: the counters before it are passed over,
// never handed out, so they serve no caller's demand.
// REQUIRES: s.mu held.
func (e *Engine) snowflakeUsableLocked(s *seq) int64 {
	next, start, ok := snowflakeStart(s, s.opts.Shape.Layout().Units(e.wall()))
	if !ok {
		return s.remaining
	}
	return max(s.remaining-(start-next), 0)
}

// aheadText is u units of unit as a duration, or in years past what a
// time.Duration holds (292 years): an EPOCH in the far future.
func aheadText(u int64, unit time.Duration) string {
	if d := unitsDuration(u, unit); d < math.MaxInt64 {
		return d.String()
	}
	return fmt.Sprintf("about %.0f years", float64(u)*unit.Hours()/(365.2425*24))
}

// clockSaidEvery is how often at most Config.OnClockBehind hears of ids
// ahead of the clock.
const clockSaidEvery = 10 * time.Second

// noteBehind records how far Snowflake ids run ahead of the clock (for
// ClockBehind), and tells Config.OnClockBehind once that is a second or
// more, at most every clockSaidEvery.
func (e *Engine) noteBehind(d time.Duration) {
	e.snowflakeBehind.Store(int64(d))
	if d < time.Second || e.onBehind == nil {
		return
	}
	now, said := time.Now().UnixNano(), e.behindSaid.Load()
	if now-said < int64(clockSaidEvery) || !e.behindSaid.CompareAndSwap(said, now) {
		return
	}
	e.onBehind(d)
}

// unitsDuration is u units of unit, at most the longest time.Duration.
// REQUIRES: u >= 0.
func unitsDuration(u int64, unit time.Duration) time.Duration {
	if u > math.MaxInt64/int64(unit) {
		return math.MaxInt64
	}
	return time.Duration(u) * unit
}

// snowflakeDueLocked reports whether Snowflake s's mark is within half a
// Window of the clock. REQUIRES: s.mu held.
func (e *Engine) snowflakeDueLocked(s *seq) bool {
	l := s.opts.Shape.Layout()
	half := max(int64(timeid.DefaultWindow/2/l.Unit), 1)
	return s.opts.Shape.UnitOf(s.durableLocked().Last) < l.Units(e.wall())+half
}

// snowflakePlanLocked sizes an extension of Snowflake s's mark: to the
// end of the unit a Window ahead of the clock, or past the counters the
// blocked callers asked for counted from the clock's unit.
// REQUIRES: s.mu held.
func (e *Engine) snowflakePlanLocked(s *seq) (seqmath.State, int64) {
	sh := s.opts.Shape
	durable := s.durableLocked()
	l := sh.Layout()
	now := l.Units(e.wall())
	target := sh.LastOf(now + max(int64(timeid.DefaultWindow/l.Unit), 1))
	if _, start, ok := snowflakeStart(s, now); ok && s.demand > 0 {
		// The callers blocked ask for counters from the clock's unit on,
		// not from the end of the window: those before it are passed over.
		target = max(target, sh.LastOf(sh.UnitOf(lastCounter(s, start, s.demand))))
	}
	steps := target - durable.Last
	if !durable.Called {
		steps++
	}
	return s.opts.Advance(durable, max(steps, 0))
}

// snowflakeRange is r, a Snowflake sequence's range, with this node's
// id as its node part: the id's low NODE_BITS bits. One counter makes
// the ids unique and ordered whatever their node parts (each owner
// starts on a time unit of its own), so the node part says which node
// served an id, and a sequence of fewer node bits than the id needs
// serves all the same.
func (e *Engine) snowflakeRange(r seqmath.Range) seqmath.Range {
	r.Shape.Node = e.nodeID & r.Shape.MaxNode()
	return r
}

// withNode is info with this node's node part in a Snowflake shape, so
// that its position maps to the id this node handed out.
func (e *Engine) withNode(info Info) Info {
	if sh := &info.Options.Shape; sh.Kind == seqmath.Snowflake {
		sh.Node = e.nodeID & sh.MaxNode()
	}
	return info
}

// NodeID is the node part of the Snowflake ids the engine hands out
// (Config.NodeID).
func (e *Engine) NodeID() int64 { return e.nodeID }

// ClockBehind is how far the last Snowflake id handed out ran ahead of
// the clock (0: it did not): a clock stepped back, or ids borrowed
// ahead. seqd exports it.
func (e *Engine) ClockBehind() time.Duration { return time.Duration(e.snowflakeBehind.Load()) }
