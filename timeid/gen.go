package timeid

import (
	"errors"
	"fmt"
	"time"
)

// Config is a Gen's. The zero value is Twitter's layout, node 0, and the
// default bounds.
type Config struct {
	Layout Layout
	Node   int64
	// MaxBehind is how far ids may run ahead of the clock (invariant 3):
	// the largest step back of the clock, or burst above the counter's
	// capacity, that costs no error. Default 10 s; at least one unit.
	MaxBehind time.Duration
	// Window is how far ahead of the clock the mark is saved, so that a
	// save is rarely waited for (PD saves 3 s ahead). Default 3 s; at
	// least one unit.
	Window time.Duration
}

// DefaultMaxBehind and DefaultWindow are Config's defaults.
const (
	DefaultMaxBehind = 10 * time.Second
	DefaultWindow    = 3 * time.Second
)

// Errors of Take. Each is returned wrapped, with the figures.
var (
	// ErrClockBehind: the clock reads more than MaxBehind behind the ids
	// already issued (invariant 3). Ids resume once it catches up.
	ErrClockBehind = errors.New("timeid: the clock is behind the ids already issued")
	// ErrExhausted: the clock, or the ids, passed the layout's last time
	// unit.
	ErrExhausted = errors.New("timeid: the layout's time range is used up")
)

// Gen is one node's time-ordered ids (the package comment's invariants).
// It is pure: Take is given the time, and asks for the mark to be saved;
// not safe for concurrent use (Generator is).
type Gen struct {
	l         Layout
	node      int64
	maxBehind int64 // units
	window    int64 // units

	unit    int64 // the last id's time unit
	counter int64 // and counter; MaxCounter: the unit is used up
	mark    int64 // durable: no id has a unit above it (invariant 2)
	asked   int64 // the largest mark asked for (Taken.Save)
}

// NewGen returns a Gen for cfg whose ids start above every id issued on
// the durable mark mark (a time unit; negative: no mark yet, a new
// store): invariant 1 across restarts.
func NewGen(cfg Config, mark int64) (*Gen, error) {
	l, err := cfg.Layout.WithDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Node < 0 || cfg.Node > l.MaxNode() {
		return nil, fmt.Errorf("%w: node %d is outside 0..%d (%d node bits)", ErrLayout, cfg.Node, l.MaxNode(), l.NodeBits)
	}
	units := func(d, def time.Duration) int64 {
		if d <= 0 {
			d = def
		}
		return max(int64(d/l.Unit), 1)
	}
	mark = max(mark, -1)
	return &Gen{l: l, node: cfg.Node, maxBehind: units(cfg.MaxBehind, DefaultMaxBehind), window: units(cfg.Window, DefaultWindow),
		unit: mark, counter: l.MaxCounter(), mark: mark, asked: mark}, nil
}

// Layout is the Gen's layout, its defaults filled in.
func (g *Gen) Layout() Layout { return g.l }

// Taken is what Take hands out and asks for.
type Taken struct {
	// First and Count: the ids First, First+1, ..., First+Count-1 (one
	// time unit's consecutive counters). Count 0: none yet, the mark
	// must be saved first (Save, or a save asked for earlier).
	First, Count int64
	// Save asks the caller to make Mark durable and then call Saved
	// (or Failed). Asked when the mark falls within half a window of
	// the clock, before the ids need it; Count is then usually not 0.
	Save bool
	Mark int64
}

// Take hands out up to n ids (at least one) at now, the clock's time
// unit (Layout.Units).
func (g *Gen) Take(now, n int64) (Taken, error) {
	unit, counter := g.unit, g.counter
	if now > unit {
		unit, counter = now, -1
	}
	if counter >= g.l.MaxCounter() {
		// Used up (or borrowed from before a restart): the next unit,
		// ahead of the clock if it has not reached it (invariant 3).
		unit, counter = unit+1, -1
	}
	if unit > g.l.MaxUnit() {
		return Taken{}, fmt.Errorf("%w: the clock or the ids reached %v, the last time the layout holds is %v", ErrExhausted,
			g.l.Time(min(unit, g.l.MaxUnit()+1)).UTC(), g.l.Time(g.l.MaxUnit()).UTC())
	}
	if behind := unit - now; behind > g.maxBehind {
		return Taken{}, fmt.Errorf("%w: the ids reached %v, the clock reads %v (%v behind, more than the %v allowed)", ErrClockBehind,
			g.l.Time(unit).UTC(), g.l.Time(now).UTC(), time.Duration(behind)*g.l.Unit, time.Duration(g.maxBehind)*g.l.Unit)
	}
	var t Taken
	if front := max(now, unit); g.asked-front < g.window/2+1 {
		t.Save, t.Mark = true, min(front+g.window, g.l.MaxUnit())
		g.asked = t.Mark
	}
	if unit > g.mark {
		return t, nil // invariant 2: not before the save
	}
	k := min(max(n, 1), g.l.MaxCounter()-counter)
	g.unit, g.counter = unit, counter+k
	t.First, t.Count = g.l.Compose(unit, g.node, counter+1), k
	return t, nil
}

// Saved tells g that mark is durable.
func (g *Gen) Saved(mark int64) { g.mark = max(g.mark, mark) }

// Failed tells g that the save of mark failed: the next Take asks again.
func (g *Gen) Failed(mark int64) {
	if g.asked == mark {
		g.asked = g.mark
	}
}

// Behind is how far ids run ahead of the clock at now (0 when they do
// not): a clock that went back, or a burst above the counter's
// capacity. seqd logs and exports it.
func (g *Gen) Behind(now int64) time.Duration {
	return time.Duration(max(g.unit-now, 0)) * g.l.Unit
}

// Mark is the durable mark g knows of.
func (g *Gen) Mark() int64 { return g.mark }
