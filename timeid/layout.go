// Package timeid is the core of seqd's time-ordered ids: Snowflake-style
// layouts (a time part, a node part and a counter in one bigint), PD's
// timestamps and UUIDv7, all issued by one state machine, Gen, that never
// issues an id twice whatever the clock does.
//
// Gen is pure, as the engine's allocator is: it owns no clock, goroutine
// or file. Its caller gives it the time, and makes durable the time mark
// Gen asks for before Gen issues an id whose time part is above it (PD
// saves its timestamp window ahead in the same way). Generator is the
// concurrent wrapper over a Clock and a Mark.
//
// Gen's invariants (tests cite them by number):
//
//  1. Every id Gen issues is above every id it issued before, and above
//     every id any Gen issued before it on the same durable mark (a
//     restart): ids are made of (time unit, counter), compared in that
//     order, and a new Gen starts above the mark.
//  2. No id's time unit is above the durable mark when it is issued.
//  3. When the clock reads behind the last id's time unit (it went back,
//     or ids ran ahead by borrowing units), ids keep increasing on the
//     last unit's counter and then on the units after it; Gen refuses
//     (ErrClockBehind) rather than run more than MaxBehind ahead of the
//     clock.
//  4. When the clock jumps ahead, ids follow it once the mark is saved
//     above the new time; the layout's last unit bounds the jump
//     (ErrExhausted).
package timeid

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"
)

// Layout is how an id's bits are used, from the top: a sign bit always
// 0, TimeBits of time units since Epoch, NodeBits of node id, CounterBits
// of counter. The zero value is Twitter's Snowflake layout on seqd's
// epoch; each field's zero means its default.
type Layout struct {
	// Epoch is the time of time unit 0. Default: Twitter's Snowflake
	// epoch, 2010-11-04 01:42:54.657 UTC (1288834974657 ms after the Unix
	// epoch), so that Twitter's decoders read seqd's default ids.
	Epoch time.Time
	// Unit is the length of a time unit, at least a microsecond.
	// Default: a millisecond.
	Unit time.Duration
	// TimeBits, NodeBits and CounterBits: defaults 41, 10 and 12 (a
	// field left 0 takes its default only when all three are 0). Their
	// sum is at most 63; CounterBits is at least 1.
	TimeBits, NodeBits, CounterBits int
}

// TwitterEpoch is the default Epoch.
var TwitterEpoch = time.UnixMilli(1288834974657).UTC()

// The layouts of the libraries teams use, as Layouts: the widths of
// their parts (Sonyflake places its machine id below its counter;
// here the node part is always above the counter, so Sonyflake's ids
// and these order alike but do not have the same bits).
var (
	Twitter   = Layout{Epoch: TwitterEpoch, Unit: time.Millisecond, TimeBits: 41, NodeBits: 10, CounterBits: 12}
	Sonyflake = Layout{Epoch: time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC), Unit: 10 * time.Millisecond, TimeBits: 39, NodeBits: 16, CounterBits: 8}
	// UIDGenerator's epoch is uid-generator's default, whose 28 bits
	// of seconds ended on 2024-11-20: a generator needs a later Epoch.
	UIDGenerator = Layout{Epoch: time.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC), Unit: time.Second, TimeBits: 28, NodeBits: 22, CounterBits: 13}
	// TSO is PD's timestamp: milliseconds since the Unix epoch above 18
	// bits of logical counter.
	TSO = Layout{Epoch: time.Unix(0, 0).UTC(), Unit: time.Millisecond, TimeBits: 45, CounterBits: 18}
)

// ErrLayout: a layout that cannot be used.
var ErrLayout = errors.New("timeid: invalid layout")

// WithDefaults returns l with its zero fields set to their defaults, or
// an error (ErrLayout) saying what is wrong with it.
func (l Layout) WithDefaults() (Layout, error) {
	if l.Epoch.IsZero() {
		l.Epoch = TwitterEpoch
	}
	if l.Unit == 0 {
		l.Unit = time.Millisecond
	}
	if l.TimeBits == 0 && l.NodeBits == 0 && l.CounterBits == 0 {
		l.TimeBits, l.NodeBits, l.CounterBits = 41, 10, 12
	}
	switch {
	case l.Unit < time.Microsecond:
		return l, fmt.Errorf("%w: the time unit %v is below a microsecond", ErrLayout, l.Unit)
	case l.TimeBits < 1 || l.NodeBits < 0 || l.CounterBits < 1:
		return l, fmt.Errorf("%w: %d time bits, %d node bits and %d counter bits (time and counter need at least one each)", ErrLayout, l.TimeBits, l.NodeBits, l.CounterBits)
	case l.TimeBits+l.NodeBits+l.CounterBits > 63:
		return l, fmt.Errorf("%w: %d time bits, %d node bits and %d counter bits make %d, above the 63 of a bigint", ErrLayout, l.TimeBits, l.NodeBits, l.CounterBits, l.TimeBits+l.NodeBits+l.CounterBits)
	}
	return l, nil
}

// MaxUnit is the last time unit the layout holds.
func (l Layout) MaxUnit() int64 { return 1<<l.TimeBits - 1 }

// MaxNode is the largest node id.
func (l Layout) MaxNode() int64 { return 1<<l.NodeBits - 1 }

// MaxCounter is the largest counter of one time unit.
func (l Layout) MaxCounter() int64 { return 1<<l.CounterBits - 1 }

// Units is the time unit t falls in (floor: a unit begins at
// Epoch + u*Unit); negative before the epoch.
func (l Layout) Units(t time.Time) int64 {
	d := t.Sub(l.Epoch)
	if d > minDuration && d < maxDuration {
		u := int64(d / l.Unit)
		if d < 0 && d%l.Unit != 0 {
			u--
		}
		return u
	}
	// Beyond time.Duration's 292 years: in nanoseconds, as big numbers.
	ns := new(big.Int).Mul(big.NewInt(t.Unix()-l.Epoch.Unix()), big.NewInt(1e9))
	ns.Add(ns, big.NewInt(int64(t.Nanosecond()-l.Epoch.Nanosecond())))
	u, _ := new(big.Int).DivMod(ns, big.NewInt(int64(l.Unit)), new(big.Int)) // Euclidean: floor for a positive divisor
	if !u.IsInt64() {
		if u.Sign() < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return u.Int64()
}

// time.Duration's range, less a margin.
const (
	maxDuration = time.Duration(math.MaxInt64 / 2)
	minDuration = -maxDuration
)

// Time is when unit u begins; past the seconds an int64 holds (a long
// unit's last ids: 2^62 days), 2^62 seconds from the epoch, billions of
// years, which no caller takes for a time it can show.
func (l Layout) Time(u int64) time.Time {
	if d := time.Duration(u) * l.Unit; u == int64(d/l.Unit) && d > minDuration && d < maxDuration {
		return l.Epoch.Add(d)
	}
	ns := new(big.Int).Mul(big.NewInt(u), big.NewInt(int64(l.Unit)))
	sec, rem := new(big.Int).DivMod(ns, big.NewInt(1e9), new(big.Int))
	if !sec.IsInt64() || sec.Int64() > 1<<62 || sec.Int64() < -1<<62 {
		sec.SetInt64(1 << 62)
		if ns.Sign() < 0 {
			sec.Neg(sec)
		}
		rem.SetInt64(0)
	}
	return time.Unix(l.Epoch.Unix()+sec.Int64(), int64(l.Epoch.Nanosecond())+rem.Int64()).In(l.Epoch.Location())
}

// Compose makes the id of (unit, node, counter). REQUIRES: each within
// its part's bounds.
func (l Layout) Compose(unit, node, counter int64) int64 {
	return unit<<(l.NodeBits+l.CounterBits) | node<<l.CounterBits | counter
}

// Decode splits an id into its time (the beginning of its unit), node
// and counter.
func (l Layout) Decode(id int64) (t time.Time, node, counter int64) {
	counter = id & l.MaxCounter()
	node = id >> l.CounterBits & l.MaxNode()
	unit := id >> (l.NodeBits + l.CounterBits) & l.MaxUnit()
	return l.Time(unit), node, counter
}
