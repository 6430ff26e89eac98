// Package faultclock is a wall clock a test moves: the system's time plus
// an offset that a step changes at once and a slew changes gradually, as
// an NTP daemon or an operator would. seqd takes its wall clock from
// outside (server.Config.WallClock) so that the torture harness can step
// it in a running process (the faultinject build reads "clock" commands
// on standard input): Go's runtime reads the clock without libc, so a
// preloaded fake time library cannot reach it.
package faultclock

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Clock is the system's clock plus an offset. The zero value reads the
// system's time. Safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
	// A slew under way: the offset moves by total over the period from
	// start (system time), linearly; done when the period is over.
	slewStart  time.Time
	slewPeriod time.Duration
	slewTotal  time.Duration
	sys        func() time.Time // the system's clock; nil: time.Now
}

// New returns a clock over sys (nil: time.Now).
func New(sys func() time.Time) *Clock { return &Clock{sys: sys} }

func (c *Clock) system() time.Time {
	if c.sys != nil {
		return c.sys()
	}
	return time.Now()
}

// Now is the clock's time. Its monotonic reading is stripped: code that
// measures with it sees the steps, as with a real wall clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.system()
	return now.Add(c.offsetLocked(now)).Round(0)
}

// offsetLocked is the offset at system time now, a slew's progress
// counted (and folded in once it is over).
func (c *Clock) offsetLocked(now time.Time) time.Duration {
	if c.slewPeriod == 0 {
		return c.offset
	}
	elapsed := now.Sub(c.slewStart)
	if elapsed >= c.slewPeriod {
		c.offset += c.slewTotal
		c.slewPeriod, c.slewTotal = 0, 0
		return c.offset
	}
	return c.offset + time.Duration(float64(c.slewTotal)*float64(max(elapsed, 0))/float64(c.slewPeriod))
}

// Step moves the clock by d at once (negative: back). A slew under way
// goes on: the moves add up.
func (c *Clock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

// Slew moves the clock by d gradually over period; what a slew under way
// had still to move is moved over the new period too, so that the moves
// add up. REQUIRES: period > 0.
func (c *Clock) Slew(d, period time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.system()
	done := c.offsetLocked(now) - c.offset // the slew under way's progress
	left := c.slewTotal - done
	c.offset += done
	c.slewStart, c.slewPeriod, c.slewTotal = now, period, d+left
}

// Reset makes the clock the system's again.
func (c *Clock) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset, c.slewPeriod, c.slewTotal = 0, 0, 0
}

// Offset is how far the clock reads from the system's now.
func (c *Clock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offsetLocked(c.system())
}

// Command carries out one command line: "clock step D", "clock slew D
// PERIOD" or "clock reset", durations as Go writes them ("-5s", "1h").
// ok is false for a line that is not a clock command.
func (c *Clock) Command(line string) (ok bool, err error) {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "clock" {
		return false, nil
	}
	dur := func(i int) (time.Duration, error) {
		if i >= len(f) {
			return 0, fmt.Errorf("faultclock: %q: a duration is missing", line)
		}
		return time.ParseDuration(f[i])
	}
	switch {
	case len(f) == 3 && f[1] == "step":
		d, err := dur(2)
		if err != nil {
			return true, err
		}
		c.Step(d)
	case len(f) == 4 && f[1] == "slew":
		d, err1 := dur(2)
		p, err2 := dur(3)
		if err1 != nil || err2 != nil || p <= 0 {
			return true, fmt.Errorf("faultclock: %q: want clock slew D PERIOD (PERIOD > 0)", line)
		}
		c.Slew(d, p)
	case len(f) == 2 && f[1] == "reset":
		c.Reset()
	default:
		return true, fmt.Errorf("faultclock: unknown command %q (clock step D, clock slew D PERIOD, clock reset)", line)
	}
	return true, nil
}
