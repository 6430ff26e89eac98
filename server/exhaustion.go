package server

import (
	"log/slog"
	"sync"
	"time"

	"github.com/seqd/seqd/engine"
)

// exhaustionWatch warns of sequences that, at their current rate, reach
// their limit within the horizon: logged once a day per sequence, counted
// in seqd_sequences_near_exhaustion. No database the project compares with
// warns before a sequence runs out; users ask for exactly that.
type exhaustionWatch struct {
	horizon time.Duration
	// period is how often run checks (0: check samples every sequence).
	// A sequence is sampled only once it has reserved period/(2 horizon)
	// of its range: one that would reach its limit within the horizon
	// uses at least period/horizon of it per period, so it passes that
	// mark within a period of starting at such a rate, and is projected
	// one check later at most. A million sequences each barely used keep
	// no samples. Between checks of one engine a sequence reaches the
	// mark only with a write of its record (its durable mark moves): a
	// check looks at the sequences sampled and those a MarkWatch says
	// were written, not at every sequence.
	period time.Duration

	mu     sync.Mutex
	at     time.Time         // the previous check
	last   map[uint64]sample // by sequence ID, updated in place
	gen    uint32            // the checks made
	warned map[uint64]time.Time
	near   int // sequences within the horizon at the last check
	eng    *engine.Engine
	marks  *engine.MarkWatch // on eng, when period > 0
	// passes counts the checks that went over every sequence (for tests).
	passes int
}

// sample is how many values a sequence had used at the check numbered
// gen, and its name then.
type sample struct {
	used float64
	gen  uint32
	name engine.Name
}

// exhaustionPeriod is how often a server's watch checks.
const exhaustionPeriod = time.Minute

func newExhaustionWatch(horizon, period time.Duration) *exhaustionWatch {
	return &exhaustionWatch{horizon: horizon, period: period, last: map[uint64]sample{}, warned: map[uint64]time.Time{}}
}

// check samples eng's sequences at now and warns of those projected to
// run out within the horizon; it returns their names. What it keeps of
// each sequence is its ID, name and how much of its range it had used,
// updated in place (no new map a check), of the sequences past the mark
// (period); the samples of sequences gone or back below it are dropped.
func (w *exhaustionWatch) check(eng *engine.Engine, now time.Time) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var near []string
	elapsed := now.Sub(w.at).Seconds()
	w.gen++
	share := 0.0 // of its range a sequence must have reserved to be sampled
	if w.period > 0 && w.horizon > 0 {
		share = w.period.Seconds() / (2 * w.horizon.Seconds())
	}
	look := func(u engine.Use) {
		if u.Reserved < share*u.Total {
			return
		}
		prev, ok := w.last[u.ID]
		w.last[u.ID] = sample{used: u.Used, gen: w.gen, name: u.Name()}
		if !ok || u.Used <= prev.used || prev.gen != w.gen-1 {
			return
		}
		rate := (u.Used - prev.used) / elapsed
		seconds := (u.Total - u.Used) / rate // as a float: it may not fit a Duration
		if seconds > w.horizon.Seconds() {
			return
		}
		eta := time.Duration(seconds * float64(time.Second))
		key := u.Name().String()
		near = append(near, key)
		if t, ok := w.warned[u.ID]; !ok || now.Sub(t) >= 24*time.Hour {
			w.warned[u.ID] = now
			slog.Warn("sequence projected to reach its limit", "sequence", key, "in", eta.Round(time.Minute).String(),
				"values_left", u.Total-u.Used, "per_second", rate)
		}
	}
	if !w.lookAtWritten(eng, look) {
		w.passes++
		eng.EachUse(look)
	}
	for id, s := range w.last {
		if s.gen != w.gen {
			delete(w.last, id)
			delete(w.warned, id)
		}
	}
	w.at, w.near = now, len(near)
	return near
}

// lookAtWritten calls look with the sequences sampled and those written
// since the last check of eng, and reports whether that was all it
// needed: false at the first check of an engine, when the watch of its
// writes fell behind, when most sequences are sampled, and when every
// sequence is (period 0).
// REQUIRES: w.mu.
func (w *exhaustionWatch) lookAtWritten(eng *engine.Engine, look func(engine.Use)) bool {
	if w.period == 0 {
		return false
	}
	if eng != w.eng {
		w.stopMarks()
		w.eng, w.marks = eng, eng.WatchMarks() // before the pass: no write is missed
		return false
	}
	if 2*len(w.last) > eng.Count() {
		// Most are sampled (a store of small sequences, each used): a
		// pass reads them faster than a lookup of each by name. It sees
		// what the watch would report.
		w.marks.Drain(func(engine.Use) {}, func(engine.Name) {})
		return false
	}
	seen := map[uint64]bool{}
	if !w.marks.Drain(func(u engine.Use) {
		seen[u.ID] = true
		look(u)
	}, func(engine.Name) {}) {
		return false
	}
	for id, s := range w.last {
		if seen[id] || s.gen == w.gen {
			continue
		}
		if u, ok := eng.UseOf(s.name); ok && u.ID == id {
			look(u)
		}
	}
	return true
}

// stopMarks ends the watch of an engine's writes. REQUIRES: w.mu.
func (w *exhaustionWatch) stopMarks() {
	if w.marks != nil {
		w.marks.Stop()
	}
	w.eng, w.marks = nil, nil
}

// Near is how many sequences were within the horizon at the last check.
func (w *exhaustionWatch) Near() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.near
}

// run checks every period until stop is closed. sequences lists what to
// check; ok false (a cluster node that does not lead: the leader warns)
// checks nothing and forgets the rates seen, which a new leadership
// measures afresh.
func (w *exhaustionWatch) run(sequences func() (eng *engine.Engine, ok bool), stop <-chan struct{}) {
	t := time.NewTicker(w.period)
	defer t.Stop()
	defer func() {
		w.mu.Lock()
		w.stopMarks()
		w.mu.Unlock()
	}()
	check := func(now time.Time) {
		eng, ok := sequences()
		if !ok {
			w.mu.Lock()
			w.last, w.near = map[uint64]sample{}, 0
			w.stopMarks()
			w.mu.Unlock()
			return
		}
		w.check(eng, now)
	}
	check(time.Now())
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			check(now)
		}
	}
}
