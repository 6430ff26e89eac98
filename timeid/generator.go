package timeid

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Mark makes a Gen's time mark durable: in seqd, a record of the store
// written as a sequence's mark is (and, in a cluster, fenced by the
// writer's lease). Save returns once unit is durable, or an error;
// it bounds its own time.
type Mark interface {
	Save(ctx context.Context, unit int64) error
}

// Generator is a Gen driven by a clock and a Mark, safe for concurrent
// use. No save is made while its lock is held: callers that need a save
// in flight wait for it without the lock, and others take ids meanwhile.
type Generator struct {
	clock func() time.Time
	mark  Mark
	ctx   context.Context // the saves'; Close cancels it
	stop  context.CancelFunc

	valid func() error // Guard's

	mu     sync.Mutex
	g      *Gen
	saving chan struct{} // closed when the save in flight ends; nil: none
	failed error         // the last save's error, until a save succeeds
}

// NewGenerator returns a Generator for cfg over clock and mark, whose
// durable mark is durable (NewGen).
func NewGenerator(cfg Config, clock func() time.Time, mark Mark, durable int64) (*Generator, error) {
	g, err := NewGen(cfg, durable)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Generator{clock: clock, mark: mark, g: g, ctx: ctx, stop: stop}, nil
}

// maxRateWait is the longest Take waits for the clock when ids ran
// ahead of it by more than MaxBehind: long enough for ids taken faster
// than the layout holds, short enough that a clock stepped back past
// the bound is refused at once, not waited out.
const maxRateWait = 20 * time.Millisecond

// ErrClosed: Take after Close.
var ErrClosed = errors.New("timeid: generator closed")

// Take hands out up to n ids (at least one): First .. First+Count-1. It
// waits for a save of the mark when the ids need one, until ctx ends.
func (x *Generator) Take(ctx context.Context, n int64) (first, count int64, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for {
		if x.ctx.Err() != nil {
			return 0, 0, ErrClosed
		}
		if x.valid != nil {
			if err := x.valid(); err != nil {
				return 0, 0, err
			}
		}
		now := x.g.l.Units(x.clock())
		t, err := x.g.Take(now, n)
		if errors.Is(err, ErrClockBehind) {
			// Ahead of the clock by a little more than allowed: a rate
			// above the layout's (counters a unit times units a second)
			// for MaxBehind. Wait for the clock, as Snowflake's
			// generators do at every unit they use up; a clock stepped
			// back further is refused at once.
			if over := x.g.Behind(now) + x.g.l.Unit - time.Duration(x.g.maxBehind)*x.g.l.Unit; over <= maxRateWait {
				x.mu.Unlock()
				timer := time.NewTimer(over)
				select {
				case <-timer.C:
				case <-ctx.Done():
				}
				timer.Stop()
				x.mu.Lock()
				if ctx.Err() != nil {
					return 0, 0, ctx.Err()
				}
				continue
			}
		}
		if err != nil {
			return 0, 0, err
		}
		if t.Save {
			x.startSave(t.Mark)
		}
		if t.Count > 0 {
			return t.First, t.Count, nil
		}
		if x.saving == nil {
			// Unreachable: a mark not yet durable is being saved.
			return 0, 0, errors.New("timeid: no save of the mark under way")
		}
		ch := x.saving
		x.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			x.mu.Lock()
			return 0, 0, ctx.Err()
		}
		x.mu.Lock()
		if x.failed != nil && x.saving == nil {
			// The save this call waited for failed: say so, rather
			// than ask again at once (the next call does).
			return 0, 0, fmt.Errorf("timeid: saving the time mark: %w", x.failed)
		}
	}
}

// startSave saves mark in the background. REQUIRES: x.mu held.
func (x *Generator) startSave(mark int64) {
	prev := x.saving
	done := make(chan struct{})
	x.saving = done
	go func() {
		if prev != nil {
			<-prev // saves land in order: a later mark is never overtaken
		}
		err := x.mark.Save(x.ctx, mark)
		x.mu.Lock()
		defer x.mu.Unlock()
		if err != nil {
			x.g.Failed(mark)
			x.failed = err
		} else {
			x.g.Saved(mark)
			x.failed = nil
		}
		if x.saving == done {
			x.saving = nil
		}
		close(done)
	}()
}

// Guard makes every Take ask valid first, and fail with its error: a
// node that lost its node id stops issuing (cluster.NodeID.Valid).
// REQUIRES: called before the first Take.
func (x *Generator) Guard(valid func() error) { x.valid = valid }

// Behind is how far the ids run ahead of the clock now (Gen.Behind).
func (x *Generator) Behind() time.Duration {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.g.Behind(x.g.l.Units(x.clock()))
}

// Close stops the saves; Take fails after it.
func (x *Generator) Close() { x.stop() }
