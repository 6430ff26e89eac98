package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/timeid"
)

// MovePast moves every sequence bound increments past everything it may
// have handed out by the store's account: its durable mark, and for a
// NOORDER sequence the blocks the nodes reserved (its range record, when
// of the sequence's epoch); within its limits. This is what a restore
// does to a store brought back from a backup or an etcd snapshot, before
// anything serves it: what the original handed out after the backup lies
// within bound of where the backup left it, so nothing is handed out
// twice. It returns how many sequences it moved.
func (e *Engine) MovePast(ctx context.Context, bound int64) (int, error) {
	moved := 0
	for _, info := range e.List() {
		o := info.Options
		// Opened as after a crash, a sequence resumes at its durable
		// mark: State.
		from := info.State
		if r, ok := e.rangeAt[info.ID]; ok && o.NoOrder && r.epoch == info.Epoch {
			if _, ahead := o.Steps(from, r.state); ahead {
				from = r.state
			}
		}
		if o.Shape.Kind == seqmath.Snowflake {
			// Its ids were never more than MaxBehind ahead of the clock:
			// above that, on this clock, they are new whatever bound.
			if err := e.moveSnowflakePast(ctx, info.Name, o.Shape, from); err != nil {
				return moved, err
			}
			moved++
			continue
		}
		counter := from.Last
		step := o.Increment
		room := (o.Max - counter) / step
		if step < 0 {
			room = (counter - o.Min) / -step
		}
		counter += min(bound, max(room, 0)) * step
		if _, err := e.Setval(ctx, info.Name, o.Value(counter), true); err != nil {
			return moved, fmt.Errorf("%s: %w", info.Name.String(), err)
		}
		moved++
	}
	return moved, e.moveTimeMarksPast(ctx)
}

// moveTimeMarksPast moves the built-in generators' marks (timegen.go),
// used or not (the original may have used one since the backup), to
// MaxBehind ahead of this server's clock: no id any of them handed out
// was further ahead of the clock.
func (e *Engine) moveTimeMarksPast(ctx context.Context) error {
	for _, g := range []TimeGen{TSO, UUIDv7} {
		l, _ := g.layout()
		unit := l.Units(e.wall()) + int64(timeid.DefaultMaxBehind/l.Unit)
		e.followMu.Lock()
		m, had := e.timeMarks[string(g)]
		e.followMu.Unlock()
		if had && m.unit >= unit {
			continue
		}
		value := binary.BigEndian.AppendUint64([]byte{schemaVersion}, uint64(unit))
		rev, err := e.writeCatalog(storage.Op{Key: timeMarkPrefix + string(g), Value: value, Expect: m.rev})
		if err != nil {
			return fmt.Errorf("the time mark of %s: %w", g, err)
		}
		e.followMu.Lock()
		e.timeMarks[string(g)] = timeMark{unit: unit, rev: rev}
		e.followMu.Unlock()
	}
	return nil
}

// checkpointer is a store that can write a consistent copy of itself
// while it serves (the embedded store).
type checkpointer interface {
	Checkpoint(dir string, notes ...string) error
}

// Backup writes a consistent online copy of the store into dir (which
// must not exist): every sequence's durable mark, roles, privileges,
// schemas and comments, as of now. Stores that cannot (etcd: take etcd's
// own snapshot) answer ErrUnsupported.
func (e *Engine) Backup(dir string) error {
	c, ok := e.store.(checkpointer)
	if !ok {
		return &Error{Kind: ErrUnsupported, Msg: "this store cannot be backed up by seqd: in cluster mode, take a snapshot of etcd (etcdctl snapshot save)"}
	}
	r := e.Rate()
	// The advance rate, for restore to bound how far the original may
	// move on after the backup.
	return c.Checkpoint(dir, fmt.Sprintf("rate %d per %s observed %s", r.Peak, RateWindow, r.Observed.Round(time.Second)))
}

// moveSnowflakePast moves a restored Snowflake sequence to the end of the
// time unit MaxBehind ahead of this server's clock (or leaves it where it
// is, when it is further on): above every id the original handed out
// before it stopped, if its clock agreed with this one. Its next ids are
// refused (ErrClockBehind) until the clock has moved on by a unit.
func (e *Engine) moveSnowflakePast(ctx context.Context, n Name, sh seqmath.Shape, from seqmath.State) error {
	l := sh.Layout()
	c := sh.LastOf(l.Units(e.wall()) + int64(timeid.DefaultMaxBehind/l.Unit))
	if c <= from.Last {
		return nil
	}
	sh.Node = 0
	if _, err := e.Setval(ctx, n, sh.Value(c), true); err != nil {
		return fmt.Errorf("%s: %w", n.String(), err)
	}
	return nil
}
