package cluster

import (
	"sync/atomic"
	"time"
)

// wallClock is the larger of the monotonic and the wall clock's time
// since it was made, never going back: where the system has no clock
// that counts suspended time, the wall clock does (it may also jump
// ahead when set, which only ends a term early).
type wallClock struct {
	origin time.Time
	wallAt int64 // origin's wall time, Unix nanoseconds
	last   atomic.Int64
}

func newWallClock() *wallClock {
	now := time.Now()
	return &wallClock{origin: now, wallAt: now.UnixNano()}
}

func (c *wallClock) Now() time.Duration {
	now := time.Now()
	d := max(int64(now.Sub(c.origin)), now.UnixNano()-c.wallAt)
	for {
		last := c.last.Load()
		if d <= last {
			return time.Duration(last)
		}
		if c.last.CompareAndSwap(last, d) {
			return time.Duration(d)
		}
	}
}
