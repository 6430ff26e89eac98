package cluster

import (
	"time"

	"golang.org/x/sys/unix"
)

// bootClock reads CLOCK_BOOTTIME: monotonic, and counting the time the
// system was suspended.
type bootClock struct{}

func newSystemClock() Clock {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return newWallClock() // a kernel before 2.6.39
	}
	return bootClock{}
}

func (bootClock) Now() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		panic("cluster: CLOCK_BOOTTIME: " + err.Error()) // it answered once: it does not stop
	}
	return time.Duration(ts.Nano())
}
