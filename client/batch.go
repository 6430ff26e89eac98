package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// BatchOptions configure Batch and AsyncBatch generators. The zero value
// means the defaults.
type BatchOptions struct {
	// Size is how many values a reservation asks for; 0 means 1000.
	Size int64
	// LowWatermark (AsyncBatch only): when fewer values than this remain
	// in the current range, the next range is reserved in the
	// background. Size it above the values handed out during one
	// reservation's round trip and Next never waits. 0 means Size/4.
	LowWatermark int64
	// Target turns on Leaf's dynamic step: a range that lasted less than
	// Target doubles the next reservation's size (up to MaxSize), one
	// that lasted more than twice Target halves it (down to MinSize).
	// 0 keeps Size fixed.
	Target time.Duration
	// MinSize and MaxSize bound the dynamic size; 0 means Size and
	// 1<<20 (or Size, if larger).
	MinSize, MaxSize int64
	// Now is the clock of the dynamic step; nil means time.Now.
	Now func() time.Time
}

// Batch is the Spanner article's batch generator, and with a low
// watermark its asynchronous batch generator: it reserves Size values at
// a time and hands them out from memory. Values are unique; across
// generators (or application instances) they are not ordered, and the
// values a generator still holds when its process dies are a gap. Close
// gives its unused values back where the source allows. Safe for
// concurrent use.
type Batch struct {
	src   Source
	name  string
	async bool
	o     BatchOptions

	// bg is the lifetime of background reservations, cancelled by Close
	// once it stops waiting for them.
	bg     context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	cur      Range // the range values come from
	curN     int64 // cur.Count()
	used     int64 // values of cur handed out
	next     Range // a range reserved ahead (AsyncBatch), if hasNext
	hasNext  bool
	fetching chan struct{} // closed when the reservation in flight ends; nil if none
	fetchErr error         // a background reservation's failure, reported by the next Next that needs it
	started  time.Time     // when the last reservation was asked for (dynamic step)
	closed   bool
	stats    Stats
}

// NewBatch is a batch generator: Next reserves a new range, in the
// caller's goroutine, when the current one is used up.
func NewBatch(src Source, name string, o BatchOptions) *Batch { return newBatch(src, name, o, false) }

// NewAsyncBatch is an asynchronous batch generator: the next range is
// reserved in the background once fewer than o.LowWatermark values
// remain, so Next does not wait when the watermark is sized right.
func NewAsyncBatch(src Source, name string, o BatchOptions) *Batch {
	return newBatch(src, name, o, true)
}

func newBatch(src Source, name string, o BatchOptions, async bool) *Batch {
	if o.Size < 1 {
		o.Size = 1000
	}
	if o.LowWatermark <= 0 {
		o.LowWatermark = o.Size / 4
	}
	if o.MinSize < 1 {
		o.MinSize = o.Size
	}
	if o.MaxSize < 1 {
		o.MaxSize = max(o.Size, 1<<20)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	b := &Batch{src: src, name: name, async: async, o: o}
	b.bg, b.cancel = context.WithCancel(context.Background())
	b.stats.Size = o.Size
	return b
}

// Next returns the next value of the current range, reserving a new range
// when it is used up.
func (b *Batch) Next(ctx context.Context) (int64, error) {
	b.mu.Lock()
	for {
		if b.closed {
			b.mu.Unlock()
			return 0, ErrClosed
		}
		if b.used < b.curN {
			v, ok := b.cur.Value(b.cur.At(b.used))
			b.used++
			if !ok {
				continue // a shaped sequence's skip range holds it
			}
			b.stats.Issued++
			if b.async && b.curN-b.used < b.o.LowWatermark && b.fetching == nil && !b.hasNext {
				b.fetchLocked(nil)
			}
			b.mu.Unlock()
			return v, nil
		}
		if b.hasNext {
			b.setCurLocked(b.next)
			b.hasNext = false
			continue
		}
		if err := b.fetchErr; err != nil {
			b.fetchErr = nil
			b.mu.Unlock()
			return 0, err
		}
		if b.fetching == nil {
			if !b.async {
				// Reserve in the caller's goroutine, under its ctx;
				// its error is the caller's.
				if err := b.fetchLocked(ctx); err != nil {
					b.mu.Unlock()
					return 0, err
				}
				continue
			}
			b.fetchLocked(nil)
		}
		b.stats.Waits++
		done := b.fetching
		b.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		b.mu.Lock()
	}
}

// fetchLocked reserves the next range. With ctx (Batch) it does so in the
// calling goroutine, releasing b.mu meanwhile; with nil (AsyncBatch) it
// starts a background reservation and returns at once. Either way other
// callers wait on b.fetching.
// REQUIRES: b.mu held, b.fetching nil.
func (b *Batch) fetchLocked(ctx context.Context) error {
	n := b.sizeLocked()
	done := make(chan struct{})
	b.fetching = done
	b.stats.Fetches++
	if ctx == nil {
		go func() {
			r, err := b.src.Reserve(b.bg, b.name, n)
			b.mu.Lock()
			b.installLocked(r, err)
			b.fetchErr = err
			close(done)
			b.mu.Unlock()
		}()
		return nil
	}
	b.mu.Unlock()
	r, err := b.src.Reserve(ctx, b.name, n)
	b.mu.Lock()
	b.installLocked(r, err)
	close(done)
	return err
}

// installLocked takes a reserved range as the next one.
// REQUIRES: b.mu held.
func (b *Batch) installLocked(r Range, err error) {
	b.fetching = nil
	if err != nil {
		return
	}
	b.stats.Reserved += r.Count()
	if b.closed {
		// Close is waiting for this reservation to give it back.
		b.next, b.hasNext = r, true
		return
	}
	if b.used >= b.curN {
		b.setCurLocked(r)
		return
	}
	b.next, b.hasNext = r, true
}

// setCurLocked makes r the range values come from.
// REQUIRES: b.mu held.
func (b *Batch) setCurLocked(r Range) { b.cur, b.curN, b.used = r, r.Count(), 0 }

// sizeLocked is the size of the reservation about to be made: Size, or
// with a Target, Leaf's dynamic step from how long the last range lasted.
// REQUIRES: b.mu held.
func (b *Batch) sizeLocked() int64 {
	if b.o.Target <= 0 {
		return b.stats.Size
	}
	now := b.o.Now()
	if !b.started.IsZero() {
		lasted := now.Sub(b.started)
		switch {
		case lasted < b.o.Target:
			b.stats.Size = min(2*b.stats.Size, b.o.MaxSize)
		case lasted > 2*b.o.Target:
			b.stats.Size = max(b.stats.Size/2, b.o.MinSize)
		}
	}
	b.started = now
	return b.stats.Size
}

// Close waits (within ctx) for a reservation in flight, then gives back
// the unused values: the range reserved ahead, which is the sequence's
// tail if no one reserved after it, else the rest of the current range.
// What cannot be given back is counted in Stats().Burned.
func (b *Batch) Close(ctx context.Context) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	done := b.fetching
	b.mu.Unlock()
	defer b.cancel()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			// The reservation's outcome is unknown: its values, if
			// any, are burned uncounted.
			return fmt.Errorf("seqd: close %q: waiting for a reservation: %w", b.name, ctx.Err())
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var unused []Range
	if t, ok := b.cur.tail(b.used); ok {
		unused = append(unused, t)
	}
	if b.hasNext {
		unused = append(unused, b.next)
	}
	b.setCurLocked(Range{})
	b.hasNext = false
	var errs []error
	// Only the last range can be the sequence's tail; release it first,
	// then try the one before (the source refuses it unless it still is).
	for i := len(unused) - 1; i >= 0; i-- {
		r := unused[i]
		ok, err := b.src.Release(ctx, b.name, r)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			b.stats.Released += r.Count()
		} else {
			b.stats.Burned += r.Count()
		}
	}
	return errors.Join(errs...)
}

// Stats reports the generator's counts.
func (b *Batch) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}
