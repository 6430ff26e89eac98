package seqmath

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// ShapeKind says how a sequence's counter becomes the value it hands out.
type ShapeKind uint8

const (
	// Ordered sequences hand out their counter itself: PostgreSQL's.
	Ordered ShapeKind = iota
	// BitReversed is Spanner's bit-reversed positive sequence: the value
	// of counter c is c with its 63 low bits reversed (bit i becomes bit
	// 62-i), so consecutive values land far apart in the key space.
	BitReversed
	// Sharded is TiDB's AUTO_RANDOM(S, R) layout: below the sign bit of an
	// R-bit value, S shard bits, then an increasing counter of R-1-S bits.
	// Counter c is shard reverse_S(c mod 2^S) and position c >> S in it:
	// any 2^S consecutive counters fill every shard once.
	Sharded
	// Snowflake is a time-ordered id (snowflake.go): a time part, a node
	// part and a counter. The counter c is the time unit and the counter
	// of one unit side by side, (unit << CounterBits | k), and its value
	// puts the node part between them.
	Snowflake
)

// Limits of the sharded layout, TiDB's for AUTO_RANDOM.
const (
	MinShardBits = 1
	MaxShardBits = 15
	MinRangeBits = 32
	MaxRangeBits = 64
)

// Shape maps a sequence's counter, which the engine persists and advances
// as for any sequence, to the values it hands out. Every shape is a
// permutation of the bits of a W-bit counter (W is 63, or R-1 for a
// sharded shape), so it is injective, and values are positive for
// counters from 1 to 2^W-1. The zero Shape is Ordered.
type Shape struct {
	Kind      ShapeKind
	ShardBits uint8 // Sharded: S
	RangeBits uint8 // Sharded: R
	// Snowflake's layout (NewSnowflake): the node and counter parts'
	// widths (the time part has the rest of the 63 bits), the epoch in
	// microseconds after the Unix epoch, the time unit in microseconds.
	NodeBits, CounterBits uint8
	EpochMicros           int64
	UnitMicros            int64
	// Node is a Snowflake range's node part: set by the engine that
	// hands the range out, never stored, not compared by Equal.
	Node int64
	// skip: the values never handed out (the counters that map to them
	// are passed over); nil for none. Behind a pointer, never changed in
	// place, so that an ordered sequence's options stay small (a million
	// sequences in the engine's memory budget).
	skip *skipRange
}

// skipRange is an inclusive range of values.
type skipRange struct{ min, max int64 }

// WithSkip is sh with the skip range lo..hi (inclusive).
func (sh Shape) WithSkip(lo, hi int64) Shape {
	sh.skip = &skipRange{lo, hi}
	return sh
}

// WithoutSkip is sh with no skip range.
func (sh Shape) WithoutSkip() Shape {
	sh.skip = nil
	return sh
}

// Skip is the skip range; ok is false when there is none.
func (sh Shape) Skip() (lo, hi int64, ok bool) {
	if sh.skip == nil {
		return 0, 0, false
	}
	return sh.skip.min, sh.skip.max, true
}

// HasSkip reports whether a skip range is set.
func (sh Shape) HasSkip() bool { return sh.skip != nil }

// Equal reports whether two shapes are the same.
func (sh Shape) Equal(o Shape) bool {
	alo, ahi, aok := sh.Skip()
	blo, bhi, bok := o.Skip()
	return sh.Kind == o.Kind && sh.ShardBits == o.ShardBits && sh.RangeBits == o.RangeBits && aok == bok && alo == blo && ahi == bhi &&
		sh.NodeBits == o.NodeBits && sh.CounterBits == o.CounterBits && sh.EpochMicros == o.EpochMicros && sh.UnitMicros == o.UnitMicros
}

// Shaped reports whether values differ from counters.
func (sh Shape) Shaped() bool { return sh.Kind != Ordered }

// width is W, the counter's bits.
func (sh Shape) width() uint {
	switch sh.Kind {
	case Sharded:
		return uint(sh.RangeBits) - 1
	case Snowflake:
		return 63 - uint(sh.NodeBits)
	}
	return 63
}

// MaxCounter is the largest counter of a shaped sequence, 2^W-1.
func (sh Shape) MaxCounter() int64 { return int64(1)<<sh.width() - 1 }

// pos is where counter bit i lands in the value.
func (sh Shape) pos(i uint) uint {
	w := sh.width()
	if sh.Kind == Sharded {
		s := uint(sh.ShardBits)
		if i >= s {
			return i - s
		}
	}
	return w - 1 - i // BitReversed, and a sharded shape's shard bits
}

// Value is the value counter c stands for. REQUIRES: 0 <= c <= MaxCounter.
func (sh Shape) Value(c int64) int64 {
	switch sh.Kind {
	case BitReversed:
		return int64(bits.Reverse64(uint64(c)) >> 1)
	case Sharded:
		s, k := uint(sh.ShardBits), sh.width()-uint(sh.ShardBits)
		shard := bits.Reverse64(uint64(c)) >> (64 - s)
		return int64(shard<<k | uint64(c)>>s)
	case Snowflake:
		cb := uint(sh.CounterBits)
		return c>>cb<<(cb+uint(sh.NodeBits)) | sh.Node<<cb | c&(1<<cb-1)
	}
	return c
}

// Counter is the counter whose value is v; ok is false when no counter of
// the shape maps to v.
func (sh Shape) Counter(v int64) (c int64, ok bool) {
	switch sh.Kind {
	case BitReversed:
		if v < 0 {
			return 0, false
		}
		return int64(bits.Reverse64(uint64(v) << 1)), true
	case Sharded:
		if v < 0 || v > sh.MaxCounter() {
			return 0, false
		}
		s, k := uint(sh.ShardBits), sh.width()-uint(sh.ShardBits)
		shard := uint64(v) >> k
		low := bits.Reverse64(shard) >> (64 - s)
		return int64((uint64(v)&(1<<k-1))<<s | low), true
	case Snowflake:
		// Whatever its node part: any node's id is a position.
		if v < 0 {
			return 0, false
		}
		cb := uint(sh.CounterBits)
		return v>>(cb+uint(sh.NodeBits))<<cb | v&(1<<cb-1), true
	}
	return v, true
}

// Skipped reports whether the skip range holds v.
func (sh Shape) Skipped(v int64) bool { return sh.skip != nil && v >= sh.skip.min && v <= sh.skip.max }

// NextCounter is the smallest counter from c on (c >= 1) whose value is
// not skipped; ok is false when every counter from c to MaxCounter is.
//
// Counters above c form at most W blocks of consecutive counters, in
// increasing order: c itself, then for each 0 bit j of c, c's bits above j
// with bit j set and the bits below it free. Within a block, the free
// counter bits are free value bits, so the smallest and largest values
// the block can reach are known at once, and a value outside the skip
// range exists exactly when the smallest is below it or the largest above
// it; choosing the free bits from the highest down, 0 whenever that still
// leaves such a value, finds the smallest counter. O(W^2).
func (sh Shape) NextCounter(c int64) (int64, bool) {
	maxc := sh.MaxCounter()
	if c > maxc {
		return 0, false
	}
	if !sh.Skipped(sh.Value(c)) {
		return c, true
	}
	for j := uint(0); j < sh.width(); j++ {
		if c&(1<<j) != 0 {
			continue
		}
		base := c>>(j+1)<<(j+1) | 1<<j
		if n, ok := sh.firstInBlock(base, j); ok {
			return n, true
		}
	}
	return 0, false
}

// firstInBlock is the smallest counter base|x, x < 2^free, whose value is
// not skipped.
func (sh Shape) firstInBlock(base int64, free uint) (int64, bool) {
	fixed := uint64(sh.Value(base)) // free bits of base are 0
	var mask uint64
	for i := uint(0); i < free; i++ {
		mask |= 1 << sh.pos(i)
	}
	possible := func(fixed, mask uint64) bool {
		return int64(fixed) < sh.skip.min || int64(fixed|mask) > sh.skip.max
	}
	if !possible(fixed, mask) {
		return 0, false
	}
	for i := free; i > 0; i-- {
		b := uint64(1) << sh.pos(i-1)
		mask &^= b
		if !possible(fixed, mask) {
			fixed |= b
			base |= 1 << (i - 1)
		}
	}
	return base, true
}

// String is the shape as seqd_reserve reports it and ParseShape reads it:
// "ordered", "bit_reversed_positive" or "sharded S R", then
// " skip MIN MAX" when a skip range is set.
func (sh Shape) String() string {
	var s string
	switch sh.Kind {
	case BitReversed:
		s = "bit_reversed_positive"
	case Sharded:
		s = fmt.Sprintf("sharded %d %d", sh.ShardBits, sh.RangeBits)
	case Snowflake:
		s = fmt.Sprintf("snowflake %d %d %d %d node %d", sh.EpochMicros, sh.UnitMicros, sh.NodeBits, sh.CounterBits, sh.Node)
	default:
		s = "ordered"
	}
	if lo, hi, ok := sh.Skip(); ok {
		s += fmt.Sprintf(" skip %d %d", lo, hi)
	}
	return s
}

// ParseShape reads what String writes.
func ParseShape(text string) (Shape, error) {
	f := strings.Fields(text)
	bad := fmt.Errorf("seqd: invalid shape %q", text)
	var sh Shape
	if len(f) == 0 {
		return sh, bad
	}
	num := func(s string, size int) (int64, bool) {
		v, err := strconv.ParseInt(s, 10, size)
		return v, err == nil
	}
	switch f[0] {
	case "ordered":
		f = f[1:]
	case "bit_reversed_positive":
		sh.Kind, f = BitReversed, f[1:]
	case "sharded":
		if len(f) < 3 {
			return sh, bad
		}
		s, ok1 := num(f[1], 8)
		r, ok2 := num(f[2], 8)
		if !ok1 || !ok2 {
			return sh, bad
		}
		var err error
		if sh, err = NewSharded(s, r); err != nil {
			return sh, bad
		}
		f = f[3:]
	case "snowflake":
		var ok bool
		if sh, f, ok = parseSnowflake(f[1:]); !ok {
			return sh, bad
		}
	default:
		return sh, bad
	}
	if len(f) == 3 && f[0] == "skip" && sh.Kind != Snowflake {
		lo, ok1 := num(f[1], 64)
		hi, ok2 := num(f[2], 64)
		if !ok1 || !ok2 || lo > hi {
			return sh, bad
		}
		sh = sh.WithSkip(lo, hi)
		f = nil
	}
	if len(f) != 0 {
		return sh, bad
	}
	return sh, nil
}

// NewSharded is the sharded shape of s shard bits in r-bit values,
// within TiDB's limits for AUTO_RANDOM(S, R).
func NewSharded(s, r int64) (Shape, error) {
	if s < MinShardBits || s > MaxShardBits {
		return Shape{}, errorf(ErrInvalidOption, "SHARD_BITS (%d) must be between %d and %d", s, MinShardBits, MaxShardBits)
	}
	if r < MinRangeBits || r > MaxRangeBits {
		return Shape{}, errorf(ErrInvalidOption, "RANGE_BITS (%d) must be between %d and %d", r, MinRangeBits, MaxRangeBits)
	}
	return Shape{Kind: Sharded, ShardBits: uint8(s), RangeBits: uint8(r)}, nil
}

// check validates a sharded shape's bit counts (NewSharded's limits)
// and a Snowflake's layout (NewSnowflake's).
func (sh Shape) check() error {
	switch sh.Kind {
	case Sharded:
		_, err := NewSharded(int64(sh.ShardBits), int64(sh.RangeBits))
		return err
	case Snowflake:
		_, err := NewSnowflake(sh.EpochMicros, sh.UnitMicros, int64(sh.NodeBits), int64(sh.CounterBits))
		return err
	}
	return nil
}
