package engine

import (
	"context"
	"fmt"
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
	return moved, nil
}
