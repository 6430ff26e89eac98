// What MariaDB's ALTER SEQUENCE does to its cache, over seqd's window.

package engine

import (
	"context"
	"errors"

	"github.com/seqd/seqd/seqmath"
)

// errKept: a DiscardWindow that leaves the sequence where it is.
var errKept = errors.New("seqd: nothing to discard")

// DiscardWindow gives up the values reserved beyond the sequence's last
// one, as MariaDB's ALTER SEQUENCE gives up its cache: the next value
// becomes the one after the durable mark at the present increment
// (MariaDB's next_not_cached_value), not yet handed out, and the ALTER
// that follows keeps it (seqmath.Alter continues from the exact
// position). It only ever moves the sequence ahead: every value handed
// out is at or below the mark (invariant 1), so none is handed out
// twice; what it skips is the window, fewer than CACHE values
// (invariant 3), as a crash would. With no window the next value stays
// the same, now as a position not yet taken, so that a change of
// INCREMENT applies from the value after the last, as in MariaDB. The
// new position is written as DDL writes it (invariant 4) and is durable
// before it returns.
//
// A sequence nothing was taken of, whose next value would be past its
// bounds or the int64 range, a shaped one, or a NOORDER one served from
// ranges in cluster mode (the nodes' blocks are its window) is left as
// it is, and nothing is written.
func (e *Engine) DiscardWindow(ctx context.Context, n Name) error {
	err := e.mutate(ctx, n, false, func(s *seq) (seqmath.Options, seqmath.State, error) {
		if s.opts.Shape.Shaped() || e.ranges != nil && s.opts.NoOrder {
			return *s.opts, s.cur, errKept
		}
		st, ok := pastMark(*s.opts, s.durableLocked())
		if !ok {
			return *s.opts, s.cur, errKept
		}
		return *s.opts, st, nil
	})
	if errors.Is(err, errKept) {
		return nil
	}
	return err
}

// pastMark is the position whose next value is the one after the mark
// d at o's increment, not yet taken; false when d has taken nothing or
// that value is past o's bounds or the int64 range.
func pastMark(o seqmath.Options, d seqmath.State) (seqmath.State, bool) {
	if !d.Called {
		return d, false
	}
	next := d.Last + o.Increment
	if (next > d.Last) != (o.Increment > 0) || next < o.Min || next > o.Max {
		return d, false
	}
	return seqmath.State{Last: next}, true
}
