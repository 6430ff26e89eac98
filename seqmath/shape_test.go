package seqmath

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// naiveValue computes a shape's value from its definition, bit by bit:
// bit-reversed positive moves counter bit i to bit 62-i (Spanner's
// definition: reverse the 64 bits, shift right by one); sharded S R puts
// counter bit i < S at bit R-2-i (the shard, reversed) and bit i >= S at
// bit i-S (the increasing part).
func naiveValue(sh Shape, c int64) int64 {
	var v int64
	for i := 0; i < 63; i++ {
		if c&(1<<i) == 0 {
			continue
		}
		switch sh.Kind {
		case BitReversed:
			v |= 1 << (62 - i)
		case Sharded:
			s, w := int(sh.ShardBits), int(sh.RangeBits)-1
			if i < s {
				v |= 1 << (w - 1 - i)
			} else {
				v |= 1 << (i - s)
			}
		}
	}
	return v
}

// TestBitReversedVectors: the first three are Spanner's documented values
// for counters 1, 2, 3; the rest follow from the definition (bit i of the
// counter becomes bit 62-i) and were worked out by hand: 4 = 2^2 -> 2^60,
// 5 -> 2^62+2^60, 1000 (bits 3,5-9) -> 2^59+2^57+...+2^53, 2^62 -> 2^0, 2^63-1 -> itself, 0x5555... -> 0x2aaa... .
func TestBitReversedVectors(t *testing.T) {
	sh := Shape{Kind: BitReversed}
	for _, v := range []struct{ c, want int64 }{
		{1, 4611686018427387904},
		{2, 2305843009213693952},
		{3, 6917529027641081856},
		{4, 1152921504606846976},
		{5, 5764607523034234880},
		{8, 1 << 59},
		{1000, 855683929200394240}, // 1000 = bits 3,5,6,7,8,9 -> 59,57,56,55,54,53
		{1 << 62, 1},
		{1<<62 | 1<<61, 3},
		{math.MaxInt64, math.MaxInt64},
		{0x5555555555555555, 0x5555555555555555},
		{0x2aaaaaaaaaaaaaaa, 0x2aaaaaaaaaaaaaaa},
	} {
		if got := sh.Value(v.c); got != v.want {
			t.Errorf("Value(%d) = %d, want %d", v.c, got, v.want)
		}
		if got := naiveValue(sh, v.c); got != v.want {
			t.Errorf("naiveValue(%d) = %d, want %d: the table is wrong", v.c, got, v.want)
		}
		if c, ok := sh.Counter(v.want); !ok || c != v.c {
			t.Errorf("Counter(%d) = %d, %v, want %d", v.want, c, ok, v.c)
		}
	}
}

// TestShardedVectors: sharded 4 64 (TiDB's AUTO_RANDOM(4, 64) layout):
// counter c is shard reverse4(c mod 16) in bits 62..59, then c/16.
func TestShardedVectors(t *testing.T) {
	sh := Shape{Kind: Sharded, ShardBits: 4, RangeBits: 64}
	for _, v := range []struct{ c, want int64 }{
		{1, 8 << 59},       // shard reverse(0001) = 1000, position 0
		{2, 4 << 59},       // shard 0100
		{3, 12 << 59},      // shard 1100
		{16, 1},            // shard 0, position 1
		{17, 8<<59 | 1},    // shard 1000, position 1
		{15, 15 << 59},     // shard 1111
		{31, 15<<59 | 1},   // shard 1111, position 1
		{1 << 62, 1 << 58}, // position 2^58: the increasing part's top bit
	} {
		if got := sh.Value(v.c); got != v.want {
			t.Errorf("Value(%d) = %d, want %d", v.c, got, v.want)
		}
		if c, ok := sh.Counter(v.want); !ok || c != v.c {
			t.Errorf("Counter(%d) = %d, %v, want %d", v.want, c, ok, v.c)
		}
	}
	narrow := Shape{Kind: Sharded, ShardBits: 5, RangeBits: 32}
	if got, want := narrow.Value(1), int64(1)<<30; got != want {
		t.Errorf("sharded 5 32: Value(1) = %d, want %d", got, want)
	}
	if got, want := narrow.MaxCounter(), int64(1)<<31-1; got != want {
		t.Errorf("sharded 5 32: MaxCounter = %d, want %d", got, want)
	}
	if _, ok := narrow.Counter(1 << 31); ok {
		t.Error("sharded 5 32: Counter(2^31) exists; no value has bit 31")
	}
}

func shapesUnderTest() []Shape {
	out := []Shape{{Kind: BitReversed}}
	for _, sr := range [][2]uint8{{1, 64}, {4, 64}, {15, 64}, {5, 32}, {15, 32}, {7, 48}} {
		out = append(out, Shape{Kind: Sharded, ShardBits: sr[0], RangeBits: sr[1]})
	}
	return out
}

// TestShapeProperties: every shape agrees with its definition, is
// injective (Counter inverts Value) and gives positive values below 2^W.
func TestShapeProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range shapesUnderTest() {
		maxc := sh.MaxCounter()
		for i := 0; i < 20000; i++ {
			c := 1 + rng.Int64N(maxc)
			if i < 64 {
				c = max(1, min(int64(i), maxc)) // small counters too
			}
			v := sh.Value(c)
			if v != naiveValue(sh, c) {
				t.Fatalf("%v: Value(%d) = %d, definition says %d", sh, c, v, naiveValue(sh, c))
			}
			if v <= 0 || v > maxc {
				t.Fatalf("%v: Value(%d) = %d, outside 1..%d", sh, c, v, maxc)
			}
			if back, ok := sh.Counter(v); !ok || back != c {
				t.Fatalf("%v: Counter(Value(%d)) = %d, %v", sh, c, back, ok)
			}
		}
	}
}

// TestShardedSpread: any 2^S consecutive counters cover every shard once,
// and within a shard values increase with the counter.
func TestShardedSpread(t *testing.T) {
	for _, sh := range shapesUnderTest()[1:] {
		s := uint(sh.ShardBits)
		k := uint(sh.RangeBits) - 1 - s
		for _, start := range []int64{1, 7, 1000003, 1 << 30} {
			seen := map[int64]int64{}
			for c := start; c < start+1<<s; c++ {
				v := sh.Value(c)
				shard := v >> k
				if prev, ok := seen[shard]; ok {
					t.Fatalf("%v: counters %d and %d share shard %d", sh, prev, c, shard)
				}
				seen[shard] = c
				if next := sh.Value(c + 1<<s); next>>k != shard || next <= v {
					t.Fatalf("%v: counter %d+2^S left shard %d or did not increase (%d after %d)", sh, c, shard, next, v)
				}
			}
			if len(seen) != 1<<s {
				t.Fatalf("%v: %d shards of %d", sh, len(seen), 1<<s)
			}
		}
	}
}

// TestNextCounterExhaustive checks the skip search against brute force on
// small widths (a sharded shape with S = W is a bit reversal of W bits),
// for every skip range and every starting counter.
func TestNextCounterExhaustive(t *testing.T) {
	for _, sh := range []Shape{
		{Kind: Sharded, ShardBits: 6, RangeBits: 7}, // W=6, reversal
		{Kind: Sharded, ShardBits: 2, RangeBits: 7}, // W=6
		{Kind: Sharded, ShardBits: 1, RangeBits: 6}, // W=5
	} {
		maxc := sh.MaxCounter()
		for lo := int64(-1); lo <= maxc+1; lo++ {
			for hi := lo; hi <= maxc+1; hi++ {
				sh = sh.WithSkip(lo, hi)
				for c := int64(1); c <= maxc; c++ {
					want, wantOK := int64(0), false
					for d := c; d <= maxc; d++ {
						if !sh.Skipped(sh.Value(d)) {
							want, wantOK = d, true
							break
						}
					}
					got, ok := sh.NextCounter(c)
					if got != want || ok != wantOK {
						t.Fatalf("%v: NextCounter(%d) = %d, %v; brute force %d, %v", sh, c, got, ok, want, wantOK)
					}
				}
			}
		}
	}
}

// TestNextCounterWide: on full-width shapes, the counter found is not
// skipped and every counter before it (up to a bound) is.
func TestNextCounterWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, base := range shapesUnderTest() {
		maxc := base.MaxCounter()
		for i := 0; i < 300; i++ {
			sh := base
			a, b := 1+rng.Int64N(maxc), 1+rng.Int64N(maxc)
			sh = sh.WithSkip(min(a, b), max(a, b))
			c := 1 + rng.Int64N(1<<20)
			n, ok := sh.NextCounter(c)
			if !ok {
				t.Fatalf("%v: NextCounter(%d) found nothing", sh, c)
			}
			if n < c || sh.Skipped(sh.Value(n)) {
				t.Fatalf("%v: NextCounter(%d) = %d, skipped or before", sh, c, n)
			}
			for d := c; d < n && d < c+100000; d++ {
				if !sh.Skipped(sh.Value(d)) {
					t.Fatalf("%v: NextCounter(%d) = %d, but %d is not skipped", sh, c, n, d)
				}
			}
		}
	}
	// Everything skipped: nothing left.
	sh := Shape{Kind: BitReversed}.WithSkip(1, math.MaxInt64)
	if n, ok := sh.NextCounter(1); ok {
		t.Errorf("all values skipped: NextCounter = %d", n)
	}
	// All but the largest value: the counter that maps to it.
	sh = sh.WithSkip(1, math.MaxInt64-1)
	if n, ok := sh.NextCounter(1); !ok || n != math.MaxInt64 {
		t.Errorf("all but 2^63-1 skipped: NextCounter = %d, %v", n, ok)
	}
}

func TestShapeStringRoundTrip(t *testing.T) {
	for _, sh := range append(shapesUnderTest(), Shape{},
		Shape{Kind: BitReversed}.WithSkip(-5, 1000),
		Shape{Kind: Sharded, ShardBits: 4, RangeBits: 64}.WithSkip(1, 1)) {
		got, err := ParseShape(sh.String())
		if err != nil || !got.Equal(sh) {
			t.Errorf("ParseShape(%q) = %v, %v", sh.String(), got, err)
		}
	}
	for _, bad := range []string{"", "sharded 0 64", "sharded 4 65", "sharded 4", "bit_reversed_positive skip 2 1", "ordered x", "bit_reversed_positive skip 1"} {
		if _, err := ParseShape(bad); err == nil {
			t.Errorf("ParseShape(%q) accepted", bad)
		}
	}
}

func TestShapedOptions(t *testing.T) {
	br := Shape{Kind: BitReversed}
	o, s, err := Create(Spec{Shape: &br})
	if err != nil {
		t.Fatal(err)
	}
	if o.Start != 1 || o.Min != 1 || o.Max != math.MaxInt64 || o.Increment != 1 || s != (State{Last: 1}) {
		t.Fatalf("defaults: %+v %+v", o, s)
	}
	v, s, err := o.Next(s, "s")
	if err != nil || o.Value(v) != 4611686018427387904 {
		t.Fatalf("first value %d (%v)", o.Value(v), err)
	}
	// START COUNTER, SKIP RANGE, RESTART COUNTER.
	start, skip := int64(3), [2]int64{6917529027641081856, 6917529027641081856}
	o, s, err = Create(Spec{Shape: &br, StartCounter: &start, Skip: &skip})
	if err != nil {
		t.Fatal(err)
	}
	k, ok := o.NextSteps(s)
	if !ok || k != 2 {
		t.Fatalf("counter 3's value is skipped: NextSteps = %d, %v, want 2", k, ok)
	}
	r, _, _ := o.Reserve(s, k, "s")
	if got := o.Value(r.Last()); got != 1152921504606846976 {
		t.Fatalf("after the skip: %d", got)
	}
	restart := int64(10)
	o2, s2, err := Alter(o, s, Spec{RestartCounter: &restart, NoSkip: true})
	if err != nil || s2 != (State{Last: 10}) || o2.Shape.HasSkip() {
		t.Fatalf("RESTART COUNTER 10, NO SKIP RANGE: %+v %+v %v", o2, s2, err)
	}
	// setval maps the value back.
	st, err := o.Setval(2305843009213693952, false, "s")
	if err != nil || st != (State{Last: 2}) {
		t.Fatalf("setval: %+v %v", st, err)
	}
	if _, err := o.Setval(-1, true, "s"); !errors.Is(err, ErrOutOfBounds) {
		t.Fatalf("setval(-1): %v", err)
	}
	sharded := Shape{Kind: Sharded, ShardBits: 4, RangeBits: 32}
	so, _, err := Create(Spec{Shape: &sharded})
	if err != nil || so.Max != 1<<31-1 {
		t.Fatalf("sharded 4 32: %+v %v", so, err)
	}
	if _, err := so.Setval(1<<31, true, "s"); !errors.Is(err, ErrOutOfBounds) {
		t.Fatalf("setval beyond 31 bits: %v", err)
	}

	inc, two := int64(2), int64(2)
	cyc := true
	small := Smallint
	for name, spec := range map[string]Spec{
		"increment":        {Shape: &br, Increment: &inc},
		"start":            {Shape: &br, Start: &two},
		"cycle":            {Shape: &br, Cycle: &cyc},
		"type":             {Shape: &br, Type: &small},
		"start counter 0":  {Shape: &br, StartCounter: new(int64)},
		"skip reversed":    {Shape: &br, Skip: &[2]int64{5, 4}},
		"shard bits 16":    {Shape: &Shape{Kind: Sharded, ShardBits: 16, RangeBits: 64}},
		"range bits 31":    {Shape: &Shape{Kind: Sharded, ShardBits: 4, RangeBits: 31}},
		"skip on ordered":  {Skip: &skip},
		"counter, ordered": {StartCounter: &start},
	} {
		if _, _, err := Create(spec); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s: %v, want an invalid option", name, err)
		}
	}
	if _, _, err := Alter(o, s, Spec{Shape: &br}); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("ALTER to a shape: %v", err)
	}
	// Exhaustion: the last counter, then a clear error.
	last := o.Max
	eo, es, _ := Create(Spec{Shape: &br, StartCounter: &last})
	if _, es, err = eo.Next(es, "s"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := eo.Next(es, "s"); !errors.Is(err, ErrLimitReached) {
		t.Fatalf("after the last counter: %v", err)
	}
	if _, ok := eo.NextSteps(es); ok {
		t.Fatal("NextSteps after the last counter")
	}
}
