package seqmath

import (
	"strconv"
	"time"

	"github.com/seqd/seqd/timeid"
)

// Snowflake's layout limits and defaults: Twitter's layout (41 bits of
// milliseconds since Twitter's epoch, 10 node bits, 12 counter bits),
// so that Twitter's decoders read seqd's default ids.
const (
	DefaultNodeBits    = 10
	DefaultCounterBits = 12
	// MinTimeBits: a time part narrower than this would run out within
	// days at a second's unit.
	MinTimeBits = 20
	// MaxUnitMicros is the longest time unit: a day.
	MaxUnitMicros = int64(24 * time.Hour / time.Microsecond)
)

// DefaultEpochMicros is Twitter's epoch, 2010-11-04 01:42:54.657 UTC.
var DefaultEpochMicros = timeid.TwitterEpoch.UnixMicro()

// NewSnowflake is the Snowflake shape of the given layout: its time
// part has the 63 bits the node and counter parts leave, at least
// MinTimeBits; the unit is 1 µs to a day.
func NewSnowflake(epochMicros, unitMicros, nodeBits, counterBits int64) (Shape, error) {
	switch {
	case unitMicros < 1 || unitMicros > MaxUnitMicros:
		return Shape{}, errorf(ErrInvalidOption, "TIME_UNIT must be between 1 microsecond and 1 day")
	case counterBits < 1 || counterBits > 63-MinTimeBits:
		return Shape{}, errorf(ErrInvalidOption, "COUNTER_BITS (%d) must be between 1 and %d", counterBits, 63-MinTimeBits)
	case nodeBits < 0 || nodeBits+counterBits > 63-MinTimeBits:
		return Shape{}, errorf(ErrInvalidOption, "NODE_BITS (%d) and COUNTER_BITS (%d) leave %d bits of time, fewer than %d", nodeBits, counterBits, 63-nodeBits-counterBits, MinTimeBits)
	}
	return Shape{Kind: Snowflake, NodeBits: uint8(nodeBits), CounterBits: uint8(counterBits), EpochMicros: epochMicros, UnitMicros: unitMicros}, nil
}

// Layout is a Snowflake shape's layout in package timeid's terms.
func (sh Shape) Layout() timeid.Layout {
	cb, nb := int(sh.CounterBits), int(sh.NodeBits)
	return timeid.Layout{Epoch: time.UnixMicro(sh.EpochMicros).UTC(), Unit: time.Duration(sh.UnitMicros) * time.Microsecond,
		TimeBits: 63 - nb - cb, NodeBits: nb, CounterBits: cb}
}

// MaxNode is the largest node part of a Snowflake shape.
func (sh Shape) MaxNode() int64 { return 1<<sh.NodeBits - 1 }

// UnitOf is the time unit of a Snowflake counter.
func (sh Shape) UnitOf(c int64) int64 { return c >> sh.CounterBits }

// FirstOf is the first counter of time unit u, clamped to the counters
// 1..MaxCounter (a unit before the epoch is unit 0).
func (sh Shape) FirstOf(u int64) int64 {
	if u >= sh.MaxCounter()>>sh.CounterBits {
		return sh.MaxCounter()
	}
	return max(u<<sh.CounterBits, 1)
}

// LastOf is the last counter of time unit u, clamped to MaxCounter.
func (sh Shape) LastOf(u int64) int64 {
	if u >= sh.MaxCounter()>>sh.CounterBits {
		return sh.MaxCounter()
	}
	return max(u, 0)<<sh.CounterBits | (1<<sh.CounterBits - 1)
}

// parseSnowflake reads the fields String writes after "snowflake":
// epoch, unit, node bits, counter bits, "node", node.
func parseSnowflake(f []string) (Shape, []string, bool) {
	if len(f) < 6 || f[4] != "node" {
		return Shape{}, f, false
	}
	var n [6]int64
	for i, s := range f[:6] {
		if i == 4 {
			continue
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return Shape{}, f, false
		}
		n[i] = v
	}
	sh, err := NewSnowflake(n[0], n[1], n[2], n[3])
	if err != nil || n[5] < 0 || n[5] > sh.MaxNode() {
		return Shape{}, f, false
	}
	sh.Node = n[5]
	return sh, f[6:], true
}

// applySnowflake is apply for a Snowflake sequence: its values follow
// the clock (the engine moves its counter up to the clock's unit), so
// none of the options about a counter's position, step, bounds or cache
// applies; it is served in order (NOORDER's blocks would not follow the
// clock).
func applySnowflake(o Options, s State, spec Spec, isInit bool) (Options, State, error) {
	for _, c := range []struct {
		given bool
		name  string
	}{
		{spec.Type != nil && *spec.Type != Bigint, "AS " + typeName(spec.Type)},
		{spec.Increment != nil, "INCREMENT"},
		{spec.Min != nil || spec.NoMin, "MINVALUE"},
		{spec.Max != nil || spec.NoMax, "MAXVALUE"},
		{spec.Start != nil || spec.StartCounter != nil, "START"},
		{spec.Restarts(), "RESTART"},
		{spec.Cycle != nil && *spec.Cycle, "CYCLE"},
		{spec.Cache != nil, "CACHE"},
		{spec.Skip != nil || spec.NoSkip, "SKIP RANGE"},
		{spec.Order != nil && !*spec.Order, "NOORDER"},
	} {
		if c.given {
			return o, s, errorf(ErrInvalidOption, "%s cannot be used with a SNOWFLAKE sequence: its ids follow the clock (its mark is kept ahead of the clock), and setval moves it", c.name)
		}
	}
	o.Type, o.Increment, o.Min, o.Max, o.Cycle, o.Cache, o.NoOrder = Bigint, 1, 1, o.Shape.MaxCounter(), false, 1, false
	if isInit {
		o.Start, s = 1, State{Last: 1}
	}
	return o, s, nil
}
