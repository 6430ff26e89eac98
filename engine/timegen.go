package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/timeid"
)

// The engine's built-in time-ordered generators: seqd_tso() (PD's
// timestamps) and seqd_uuidv7()'s time and counter. Each is a
// timeid.Generator on a durable time mark kept in a catalog record of
// the store (timeMarkKey), written through the writer as every record is:
// group-committed, and in a cluster fenced by the owner's term. An owner
// starts above the mark its predecessors saved (timeid's invariant 1),
// whatever its clock reads; a read-only engine (a follower) serves none,
// as it serves no ORDER sequence.

// TimeGen names a built-in generator.
type TimeGen string

// The built-in generators.
const (
	TSO    TimeGen = "tso"    // timeid.TSO: milliseconds << 18 | logical
	UUIDv7 TimeGen = "uuidv7" // timeid.UUIDv7Layout: milliseconds << 12 | counter
)

// layout is g's layout; ok false for an unknown name.
func (g TimeGen) layout() (timeid.Layout, bool) {
	switch g {
	case TSO:
		return timeid.TSO, true
	case UUIDv7:
		return timeid.UUIDv7Layout, true
	}
	return timeid.Layout{}, false
}

// timeMarkPrefix begins the time marks' keys (catalog records).
const timeMarkPrefix = catalogPrefix + "timemark:"

// timeMark is one generator's durable mark as loaded: its time unit and
// the record's revision.
type timeMark struct {
	unit int64
	rev  storage.Rev
}

func decodeTimeMark(b []byte) (int64, error) {
	if len(b) != 9 || b[0] != schemaVersion {
		return 0, fmt.Errorf("seqd: corrupt time mark record (%d bytes)", len(b))
	}
	return int64(binary.BigEndian.Uint64(b[1:])), nil
}

// loadTimeMark reads a time mark record during Open.
func (e *Engine) loadTimeMark(kv storage.KV) error {
	unit, err := decodeTimeMark(kv.Value)
	if err != nil {
		return fmt.Errorf("%w: key %q", err, kv.Key)
	}
	e.timeMarks[strings.TrimPrefix(kv.Key, timeMarkPrefix)] = timeMark{unit: unit, rev: kv.Rev}
	return nil
}

// followTimeMark takes a time mark the owner wrote into a follower's
// engine, for a promotion to start above it.
func (e *Engine) followTimeMark(kv storage.KV) bool {
	e.followMu.Lock()
	defer e.followMu.Unlock()
	name := kv.Key[len(timeMarkPrefix):]
	if kv.Value == nil {
		delete(e.timeMarks, name)
		return true
	}
	unit, err := decodeTimeMark(kv.Value)
	if err != nil {
		return false
	}
	e.timeMarks[name] = timeMark{unit: unit, rev: kv.Rev}
	return true
}

// timeGens are the generators an owner made, on first use.
type timeGens struct {
	mu     sync.Mutex // a leaf: held to find or make a generator, never across a Take or a save
	gens   map[TimeGen]*timeid.Generator
	closed bool
	saves  sync.WaitGroup // saves in flight (storeMark.Save), waited for by Close
}

// TimeIDs hands out up to n consecutive ids of generator g (n >= 1):
// first .. first+count-1, all above every id g handed out before, on
// this owner or an earlier one. With whole, count is n (at most a time
// unit's counters: more is refused): the rest of a unit too short for
// them is passed over, as PD passes to the next millisecond.
func (e *Engine) TimeIDs(ctx context.Context, g TimeGen, n int64, whole bool) (first, count int64, err error) {
	l, ok := g.layout()
	if !ok {
		return 0, 0, &Error{Kind: ErrNotFound, Msg: fmt.Sprintf("no time-ordered generator %q", g)}
	}
	if whole && (n < 1 || n > l.MaxCounter()+1) {
		return 0, 0, &Error{Kind: timeid.ErrLayout, Msg: fmt.Sprintf("a batch of time-ordered ids holds 1 to %d, not %d", l.MaxCounter()+1, n)}
	}
	x, err := e.timeGen(g, l)
	if err != nil {
		return 0, 0, err
	}
	for {
		first, count, err = x.Take(ctx, n)
		if err != nil {
			return 0, 0, e.timeIDError(err)
		}
		if !whole || count == n {
			return first, count, nil
		}
		// The unit's counters ran out before n: its rest is passed over.
	}
}

// timeIDError is err as the engine reports it.
func (e *Engine) timeIDError(err error) error {
	switch {
	case err == timeid.ErrClosed:
		return closedError()
	case e.deposed.Load():
		return deposedError()
	}
	if _, ok := err.(*Error); ok {
		return err
	}
	return &Error{Kind: err, Err: err, Msg: err.Error()}
}

// timeGen returns generator g, made on first use over its durable mark.
func (e *Engine) timeGen(g TimeGen, l timeid.Layout) (*timeid.Generator, error) {
	if e.readOnly {
		return nil, deposedError() // a follower: the owner serves it
	}
	t := &e.times
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, closedError()
	}
	if x := t.gens[g]; x != nil {
		return x, nil
	}
	e.followMu.Lock()
	m, had := e.timeMarks[string(g)]
	e.followMu.Unlock()
	durable := int64(-1)
	if had {
		durable = m.unit
	}
	sm := &storeMark{e: e, key: timeMarkPrefix + string(g), rev: m.rev}
	x, err := timeid.NewGenerator(timeid.Config{Layout: l}, e.wall, sm, durable)
	if err != nil {
		return nil, err
	}
	x.Guard(e.timeGuard)
	if t.gens == nil {
		t.gens = map[TimeGen]*timeid.Generator{}
	}
	t.gens[g] = x
	return x, nil
}

// timeGuard stops the generators of an owner that is one no more.
func (e *Engine) timeGuard() error {
	if e.deposed.Load() || e.leadership != nil && !e.leadership() {
		return deposedError()
	}
	return nil
}

// closeTimeGens stops the generators and waits for their saves, before
// the writer stops.
func (e *Engine) closeTimeGens() {
	t := &e.times
	t.mu.Lock()
	t.closed = true
	for _, x := range t.gens {
		x.Close()
	}
	t.mu.Unlock()
	t.saves.Wait()
}

// storeMark is a generator's Mark: its record, written by the writer.
// Saves come one at a time, in order (timeid.Generator), so each expects
// the revision the one before it wrote.
type storeMark struct {
	e   *Engine
	key string
	rev storage.Rev
}

func (m *storeMark) Save(ctx context.Context, unit int64) error {
	t := &m.e.times
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return closedError()
	}
	t.saves.Add(1)
	t.mu.Unlock()
	defer t.saves.Done()
	if err := m.e.timeGuard(); err != nil {
		return err
	}
	value := binary.BigEndian.AppendUint64([]byte{schemaVersion}, uint64(unit))
	rev, err := m.e.writeCatalog(storage.Op{Key: m.key, Value: value, Expect: m.rev})
	if err != nil {
		return err
	}
	m.rev = rev
	return nil
}
