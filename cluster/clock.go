package cluster

import "time"

// Clock is what a lease's time is counted on: the time since an origin
// of its own, which must go on counting while the machine is suspended
// (a VM paused, or suspended for live migration). The monotonic clock
// Go's time package reads stops then, so a leader resumed after its
// lease expired at etcd, and a successor was elected, would take itself
// for the leader until its own count ran out, and hand out values below
// the successor's (an order violation; fencing keeps values unique).
// Safe for concurrent use.
type Clock interface {
	Now() time.Duration
}

// SystemClock is the clock leases count on by default: CLOCK_BOOTTIME on
// Linux, which counts suspended time; elsewhere, the larger of the
// monotonic and the wall clock's time since the clock was made (the wall
// clock counts suspended time; stepped back, the monotonic one still
// counts on).
var SystemClock Clock = newSystemClock()
