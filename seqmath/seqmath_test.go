package seqmath

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func i64(v int64) *int64 { return &v }
func typ(t Type) *Type   { return &t }
func yes() *bool         { b := true; return &b }

func TestCreateDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		want Options
	}{
		{"bigint up", Spec{}, Options{Type: Bigint, Increment: 1, Min: 1, Max: math.MaxInt64, Start: 1, Cache: 1, Cycle: false}},
		{"bigint down", Spec{Increment: i64(-1)}, Options{Type: Bigint, Increment: -1, Min: math.MinInt64, Max: -1, Start: -1, Cache: 1, Cycle: false}},
		{"integer up", Spec{Type: typ(Integer)}, Options{Type: Integer, Increment: 1, Min: 1, Max: math.MaxInt32, Start: 1, Cache: 1, Cycle: false}},
		{"integer down", Spec{Type: typ(Integer), Increment: i64(-5)}, Options{Type: Integer, Increment: -5, Min: math.MinInt32, Max: -1, Start: -1, Cache: 1, Cycle: false}},
		{"smallint up", Spec{Type: typ(Smallint), Increment: i64(3), Cache: i64(20)}, Options{Type: Smallint, Increment: 3, Min: 1, Max: math.MaxInt16, Start: 1, Cache: 20, Cycle: false}},
		{"smallint down", Spec{Type: typ(Smallint), Increment: i64(-1)}, Options{Type: Smallint, Increment: -1, Min: math.MinInt16, Max: -1, Start: -1, Cache: 1, Cycle: false}},
		{"start at min", Spec{Min: i64(10)}, Options{Type: Bigint, Increment: 1, Min: 10, Max: math.MaxInt64, Start: 10, Cache: 1, Cycle: false}},
		{"start at max descending", Spec{Max: i64(100), Increment: i64(-2), Cycle: yes()}, Options{Type: Bigint, Increment: -2, Min: math.MinInt64, Max: 100, Start: 100, Cache: 1, Cycle: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, s, err := Create(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if o != tc.want {
				t.Fatalf("options = %+v, want %+v", o, tc.want)
			}
			if s != (State{Last: o.Start}) {
				t.Fatalf("state = %+v", s)
			}
		})
	}
}

func TestCreateErrors(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		msg  string
	}{
		{Spec{Increment: i64(0)}, "INCREMENT must not be zero"},
		{Spec{Type: typ(Smallint), Max: i64(40000)}, "MAXVALUE (40000) is out of range for sequence data type smallint"},
		{Spec{Type: typ(Integer), Min: i64(-3000000000)}, "MINVALUE (-3000000000) is out of range for sequence data type integer"},
		{Spec{Type: typ(Smallint), Increment: i64(-1), Max: i64(-40000)}, "MAXVALUE (-40000) is out of range for sequence data type smallint"},
		{Spec{Min: i64(10), Max: i64(10)}, "MINVALUE (10) must be less than MAXVALUE (10)"},
		{Spec{Min: i64(10), Max: i64(5)}, "MINVALUE (10) must be less than MAXVALUE (5)"},
		{Spec{Increment: i64(-1), Min: i64(0)}, "MINVALUE (0) must be less than MAXVALUE (-1)"},
		{Spec{Start: i64(0)}, "START value (0) cannot be less than MINVALUE (1)"},
		{Spec{Type: typ(Smallint), Start: i64(32768)}, "START value (32768) cannot be greater than MAXVALUE (32767)"},
		{Spec{Cache: i64(0)}, "CACHE (0) must be greater than zero"},
		{Spec{Cache: i64(-5)}, "CACHE (-5) must be greater than zero"},
		{Spec{RestartWith: i64(0)}, "RESTART value (0) cannot be less than MINVALUE (1)"},
		{Spec{Max: i64(5), RestartWith: i64(6)}, "RESTART value (6) cannot be greater than MAXVALUE (5)"},
	} {
		_, _, err := Create(tc.spec)
		if err == nil || err.Error() != tc.msg || !errors.Is(err, ErrInvalidOption) {
			t.Errorf("Create(%+v) = %v, want %q", tc.spec, err, tc.msg)
		}
	}
}

func TestAlter(t *testing.T) {
	o, s, _ := Create(Spec{Type: typ(Integer)})
	s = State{Last: 5, Called: true}

	// Widening the type carries the default maximum along; explicit values stay.
	o2, s2, err := Alter(o, s, Spec{Type: typ(Bigint)})
	if err != nil || o2.Max != math.MaxInt64 || o2.Min != 1 || s2 != s {
		t.Fatalf("alter as bigint: %+v %+v %v", o2, s2, err)
	}
	o3, _, _ := Alter(o, s, Spec{Max: i64(1000)})
	o3, _, err = Alter(o3, s, Spec{Type: typ(Smallint)})
	if err != nil || o3.Max != 1000 {
		t.Fatalf("explicit max should survive retype: %+v %v", o3, err)
	}
	// Narrowing below the current value is refused with RESTART's message.
	_, _, err = Alter(o, State{Last: 40000, Called: true}, Spec{Type: typ(Smallint)})
	if err == nil || err.Error() != "RESTART value (40000) cannot be greater than MAXVALUE (32767)" {
		t.Fatalf("narrow: %v", err)
	}
	// A failed ALTER leaves everything as it was.
	o4, s4, err := Alter(o, s, Spec{Increment: i64(0)})
	if err == nil || o4 != o || s4 != s {
		t.Fatalf("failed alter changed state: %+v %+v", o4, s4)
	}
	// RESTART goes back to START (or to the value given), uncalled.
	_, s5, _ := Alter(o, s, Spec{Restart: true})
	if s5 != (State{Last: 1}) {
		t.Fatalf("restart: %+v", s5)
	}
	_, s6, _ := Alter(o, s, Spec{RestartWith: i64(42)})
	if s6 != (State{Last: 42}) {
		t.Fatalf("restart with: %+v", s6)
	}
	// NO MAXVALUE on a descending sequence resets to -1.
	od, sd, _ := Create(Spec{Increment: i64(-1), Max: i64(-10)})
	od, _, err = Alter(od, sd, Spec{NoMax: true})
	if err != nil || od.Max != -1 {
		t.Fatalf("no maxvalue: %+v %v", od, err)
	}
	// Changing the sign of the increment keeps the old bounds, as PostgreSQL does.
	oi, _, _ := Alter(o, s, Spec{Increment: i64(-1)})
	if oi.Min != 1 || oi.Max != math.MaxInt32 {
		t.Fatalf("increment sign: %+v", oi)
	}
}

// transcript runs nextval n times and returns the values, stopping at the
// first error.
func transcript(o Options, s State, n int) ([]int64, error) {
	var out []int64
	for range n {
		v, ns, err := o.Next(s, "s")
		if err != nil {
			return out, err
		}
		out = append(out, v)
		s = ns
	}
	return out, nil
}

func TestNextTranscripts(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		n    int
		want []int64
		err  string
	}{
		{"default", Spec{}, 3, []int64{1, 2, 3}, ""},
		{"by 5 from 10", Spec{Increment: i64(5), Start: i64(10)}, 3, []int64{10, 15, 20}, ""},
		{"max reached", Spec{Max: i64(3)}, 5, []int64{1, 2, 3}, `nextval: reached maximum value of sequence "s" (3)`},
		{"min reached", Spec{Increment: i64(-1), Min: i64(-2)}, 5, []int64{-1, -2}, `nextval: reached minimum value of sequence "s" (-2)`},
		{"cycle up", Spec{Min: i64(1), Max: i64(3), Cycle: yes()}, 7, []int64{1, 2, 3, 1, 2, 3, 1}, ""},
		{"cycle up uneven", Spec{Increment: i64(2), Min: i64(1), Max: i64(6), Cycle: yes()}, 5, []int64{1, 3, 5, 1, 3}, ""},
		{"cycle down", Spec{Increment: i64(-2), Min: i64(-5), Max: i64(0), Cycle: yes()}, 7, []int64{0, -2, -4, 0, -2, -4, 0}, ""},
		{"cycle down from start", Spec{Increment: i64(-3), Min: i64(1), Max: i64(10), Start: i64(5), Cycle: yes()}, 5, []int64{5, 2, 10, 7, 4}, ""},
		{"smallint limit", Spec{Type: typ(Smallint), Start: i64(32766)}, 3, []int64{32766, 32767}, `nextval: reached maximum value of sequence "s" (32767)`},
		{"integer limit down", Spec{Type: typ(Integer), Increment: i64(-1), Start: i64(math.MinInt32 + 1)}, 3, []int64{math.MinInt32 + 1, math.MinInt32}, `nextval: reached minimum value of sequence "s" (-2147483648)`},
		{"bigint limit", Spec{Start: i64(math.MaxInt64 - 1)}, 3, []int64{math.MaxInt64 - 1, math.MaxInt64}, `nextval: reached maximum value of sequence "s" (9223372036854775807)`},
		{"bigint huge step", Spec{Increment: i64(math.MaxInt64), Min: i64(math.MinInt64), Start: i64(-1)}, 3, []int64{-1, math.MaxInt64 - 1}, `nextval: reached maximum value of sequence "s" (9223372036854775807)`},
		{"bigint min step", Spec{Increment: i64(math.MinInt64), Max: i64(math.MaxInt64), Start: i64(math.MaxInt64)}, 3, []int64{math.MaxInt64, -1}, `nextval: reached minimum value of sequence "s" (-9223372036854775808)`},
		{"bigint cycle at bounds", Spec{Min: i64(math.MinInt64), Start: i64(math.MaxInt64), Cycle: yes()}, 3, []int64{math.MaxInt64, math.MinInt64, math.MinInt64 + 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, s, err := Create(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := transcript(o, s, tc.n)
			if !equal(got, tc.want) {
				t.Fatalf("values %v, want %v", got, tc.want)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err || !errors.Is(err, ErrLimitReached)) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSetval(t *testing.T) {
	o, _, _ := Create(Spec{Max: i64(100)})
	s, err := o.Setval(50, true, "s")
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := o.Next(s, "s"); v != 51 {
		t.Fatalf("after setval(50, true) got %d", v)
	}
	s, _ = o.Setval(50, false, "s")
	if v, _, _ := o.Next(s, "s"); v != 50 {
		t.Fatalf("after setval(50, false) got %d", v)
	}
	s, _ = o.Setval(100, true, "s")
	if _, _, err := o.Next(s, "s"); !errors.Is(err, ErrLimitReached) {
		t.Fatalf("after setval(max) err %v", err)
	}
	_, err = o.Setval(0, true, "s")
	if err == nil || err.Error() != `setval: value 0 is out of bounds for sequence "s" (1..100)` || !errors.Is(err, ErrOutOfBounds) {
		t.Fatalf("setval out of bounds: %v", err)
	}
}

func TestReserve(t *testing.T) {
	o, s, _ := Create(Spec{Increment: i64(10), Max: i64(55)})
	r, s, err := o.Reserve(s, 3, "s")
	if err != nil || r != (Range{First: 1, Count: 3, Increment: 10}) || r.Last() != 21 {
		t.Fatalf("first range %+v %v", r, err)
	}
	// Stops at the limit with fewer values than asked.
	r, s, err = o.Reserve(s, 100, "s")
	if err != nil || r != (Range{First: 31, Count: 3, Increment: 10}) {
		t.Fatalf("short range %+v %v", r, err)
	}
	if _, _, err = o.Reserve(s, 1, "s"); !errors.Is(err, ErrLimitReached) {
		t.Fatalf("exhausted: %v", err)
	}
	// With CYCLE the next range starts at the other end.
	o.Cycle = true
	r, _, err = o.Reserve(s, 100, "s")
	if err != nil || r != (Range{First: 1, Count: 6, Increment: 10}) {
		t.Fatalf("cycled range %+v %v", r, err)
	}
	// A full bigint span saturates instead of overflowing.
	ob, sb, _ := Create(Spec{Min: i64(math.MinInt64)})
	r, _, err = ob.Reserve(sb, math.MaxInt64, "s")
	if err != nil || r.First != math.MinInt64 || r.Count != math.MaxInt64 {
		t.Fatalf("saturated range %+v %v", r, err)
	}
}

// randomOptions draws options that include the type bounds, huge
// increments and both directions.
func randomOptions(r *rand.Rand) Options {
	for {
		var spec Spec
		spec.Type = typ(Type(r.IntN(3)))
		incs := []int64{1, -1, 2, -3, 7, 1000, -1000, math.MaxInt64, math.MinInt64, 1 << 40}
		inc := incs[r.IntN(len(incs))]
		spec.Increment = &inc
		if r.IntN(2) == 0 {
			spec.Cycle = yes()
		}
		if r.IntN(2) == 0 {
			lo := []int64{math.MinInt64, math.MinInt32, -100, 0, 1, 50}[r.IntN(6)]
			spec.Min = &lo
		}
		if r.IntN(2) == 0 {
			hi := []int64{math.MaxInt64, math.MaxInt32, 100, 60, 2}[r.IntN(5)]
			spec.Max = &hi
		}
		o, _, err := Create(spec)
		if err == nil {
			return o
		}
	}
}

// TestAdvanceMatchesNext checks that jumping k values at once (the engine's
// mark extension) lands exactly where k single nextvals land, and that a
// reservation hands out exactly the values nextval would.
func TestAdvanceMatchesNext(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		o := randomOptions(r)
		s := State{Last: o.Start}
		if r.IntN(2) == 0 {
			// Start near a limit to exercise wrapping and saturation.
			edge := o.Max
			if o.Increment < 0 {
				edge = o.Min
			}
			s = State{Last: edge, Called: r.IntN(2) == 0}
		}
		k := int64(r.IntN(20))
		adv, n := o.Advance(s, k)
		cur := s
		var steps int64
		for range k {
			_, ns, err := o.Next(cur, "s")
			if err != nil {
				break
			}
			cur, steps = ns, steps+1
		}
		if steps != n || (n > 0 && adv != cur) || (n == 0 && adv != s) {
			t.Fatalf("%+v from %+v: Advance(%d) = %+v,%d; Next x%d = %+v", o, s, k, adv, n, steps, cur)
		}
		if k == 0 {
			continue
		}
		rg, rs, err := o.Reserve(s, k, "s")
		if err != nil {
			continue
		}
		want, _ := transcript(o, s, int(rg.Count))
		for i, v := range want {
			if rg.At(int64(i)) != v {
				t.Fatalf("%+v: range %+v value %d = %d, want %d", o, rg, i, rg.At(int64(i)), v)
			}
		}
		if adv, n := o.Advance(s, rg.Count); !o.Cycle && (n != rg.Count || adv != rs) {
			t.Fatalf("%+v: reserve state %+v differs from Advance %+v,%d", o, rs, adv, n)
		}
	}
}

func TestRelease(t *testing.T) {
	o, s0, err := Create(Spec{Increment: i64(-5), Start: i64(100), Max: i64(100)})
	if err != nil {
		t.Fatal(err)
	}
	r, s, _ := o.Reserve(s0, 4, "s") // 100, 95, 90, 85
	cases := []struct {
		first, last, granted int64
		ok                   bool
		k                    int64
	}{
		{90, 85, 4, true, 2},
		{100, 85, 4, true, 4},
		{85, 85, 4, true, 1},
		{105, 85, 4, false, 0}, // before the range: issued to someone else
		{91, 85, 4, false, 0},  // off the increment's grid
		{90, 80, 4, false, 0},  // not the last value issued
		{80, 85, 4, false, 0},  // wrong direction
		{90, 85, 0, false, 0},  // nothing releasable
		{95, 85, 2, false, 0},  // more than was granted
	}
	for _, c := range cases {
		ns, k, ok := o.Release(s, c.granted, c.first, c.last)
		if ok != c.ok || k != c.k {
			t.Errorf("Release(%d..%d, granted %d) = %d %v, want %d %v", c.first, c.last, c.granted, k, ok, c.k, c.ok)
		}
		if ok {
			if v, _, _ := o.Next(ns, "s"); v != c.first {
				t.Errorf("after releasing %d..%d nextval is %d", c.first, c.last, v)
			}
		} else if ns != s {
			t.Errorf("refused release changed the state to %+v", ns)
		}
	}
	if _, _, ok := o.Release(s0, r.Count, r.First, r.Last()); ok {
		t.Error("released from a state that issued nothing")
	}

	// Property: releasing any tail of a range issues exactly that tail again.
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		o := randomOptions(rnd)
		s := State{Last: o.Start}
		s, _ = o.Advance(s, rnd.Int64N(5))
		r, after, err := o.Reserve(s, 1+rnd.Int64N(8), "s")
		if err != nil {
			continue
		}
		i := rnd.Int64N(r.Count)
		ns, k, ok := o.Release(after, r.Count, r.At(i), r.Last())
		if !ok || k != r.Count-i {
			t.Fatalf("%+v: release of %d..%d from %+v refused (%v) or counted %d", o, r.At(i), r.Last(), r, ok, k)
		}
		again, end, err := o.Reserve(ns, k, "s")
		if err != nil || again.First != r.At(i) || again.Count != k || end != after {
			t.Fatalf("%+v: after release got %+v ending %+v, want %d values from %d ending %+v", o, again, end, k, r.At(i), after)
		}
	}
}

// TestSteps: Steps inverts Advance where no wrap is involved.
func TestSteps(t *testing.T) {
	for _, spec := range []Spec{{}, {Increment: i64(-3)}, {Increment: i64(7), Min: i64(-100), Start: i64(-20)}} {
		o, s, err := Create(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, from := range []int64{0, 1, 5} {
			a, _ := o.Advance(s, from)
			for _, k := range []int64{0, 1, 2, 100} {
				b, got := o.Advance(a, k)
				if n, ok := o.Steps(a, b); !ok || n != got {
					t.Errorf("%+v: Steps(%+v, %+v) = %d, %v; want %d", spec, a, b, n, ok, got)
				}
				if k > 0 {
					if _, ok := o.Steps(b, a); ok {
						t.Errorf("%+v: Steps backwards from %+v to %+v ok", spec, b, a)
					}
				}
			}
		}
	}
}
