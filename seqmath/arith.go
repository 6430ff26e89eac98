package seqmath

import "math"

// State is a sequence's position, PostgreSQL's (last_value, is_called): when
// Called is false the next value is Last itself, otherwise Last plus the
// increment. Options' invariants keep Last within [Min, Max].
type State struct {
	Last   int64
	Called bool
}

// Range is a run of Count values First, First+Increment, ... handed out by
// one call. A range never wraps: with CYCLE, a reservation that reaches the
// limit ends there and the next one starts at the other end.
//
// A shaped sequence's range is one of counters, and Shape (taken with the
// range, so that a later ALTER of the skip range does not apply to it)
// maps them to values: Value says which counter gives which value.
type Range struct {
	First     int64
	Count     int64
	Increment int64
	Shape     Shape
}

// Value is the value of the range's i-th counter; ok is false when the
// shape's skip range passes over it. REQUIRES: 0 <= i < Count.
func (r Range) Value(i int64) (v int64, ok bool) {
	v = r.Shape.Value(r.At(i))
	return v, !r.Shape.Skipped(v)
}

// LastValue is the value of the last counter the skip range does not pass
// over; ok is false when it passes over them all.
func (r Range) LastValue() (int64, bool) {
	for i := r.Count - 1; i >= 0; i-- {
		if v, ok := r.Value(i); ok {
			return v, true
		}
	}
	return 0, false
}

// Last is the final value of the range. REQUIRES: r.Count >= 1.
func (r Range) Last() int64 { return r.At(r.Count - 1) }

// At is the i-th value of the range, counting from 0. REQUIRES: 0 <= i < Count.
func (r Range) At(i int64) int64 {
	return int64(uint64(r.First) + uint64(i)*uint64(r.Increment))
}

// magnitude is |Increment| as an unsigned number; it is exact for
// math.MinInt64 too.
func (o *Options) magnitude() uint64 {
	if o.Increment < 0 {
		return -uint64(o.Increment)
	}
	return uint64(o.Increment)
}

// Left is how many values can be issued from s before the limit in the
// increment's direction, without wrapping, saturating at math.MaxInt64.
func (o *Options) Left(s State) int64 {
	var span uint64
	if o.Increment > 0 {
		if s.Last > o.Max {
			return 0
		}
		span = uint64(o.Max) - uint64(s.Last)
	} else {
		if s.Last < o.Min {
			return 0
		}
		span = uint64(s.Last) - uint64(o.Min)
	}
	n := span / o.magnitude()
	if !s.Called {
		n++ // Last itself comes first; n <= 2^64/1 so this may reach 2^64-1+1 only when span is 2^64-1 and |inc| is 1
		if n == 0 {
			return math.MaxInt64
		}
	}
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

// at is the value j steps after s. REQUIRES: 1 <= j <= o.Left(s).
func (o *Options) at(s State, j int64) int64 {
	if !s.Called {
		j--
	}
	return int64(uint64(s.Last) + uint64(j)*uint64(o.Increment))
}

// wrapValue is where a CYCLE sequence continues after its limit.
func (o *Options) wrapValue() int64 {
	if o.Increment > 0 {
		return o.Min
	}
	return o.Max
}

// period is the number of values in one full CYCLE, or 0 when it does not
// fit in a uint64 (then no reduction modulo the period is needed).
func (o *Options) period() uint64 {
	return (uint64(o.Max)-uint64(o.Min))/o.magnitude() + 1
}

// Advance returns the state after k more values have been issued from s
// (k >= 0), wrapping when the sequence cycles, and the number of values
// actually advanced: without CYCLE it stops at the limit.
func (o *Options) Advance(s State, k int64) (State, int64) {
	if k <= 0 {
		return s, 0
	}
	left := o.Left(s)
	if k <= left {
		return State{Last: o.at(s, k), Called: true}, k
	}
	if !o.Cycle {
		if left == 0 {
			return s, 0
		}
		return State{Last: o.at(s, left), Called: true}, left
	}
	rest := uint64(k - left - 1) // steps after landing on the wrap value
	if p := o.period(); p != 0 {
		rest %= p
	}
	v := int64(uint64(o.wrapValue()) + rest*uint64(o.Increment))
	return State{Last: v, Called: true}, k
}

// Next issues one value from s, as nextval does.
func (o *Options) Next(s State, name string) (int64, State, error) {
	r, ns, err := o.Reserve(s, 1, name)
	return r.First, ns, err
}

// Reserve issues up to n values (n >= 1) from s as one Range. Without CYCLE
// the range stops at the limit, so it may hold fewer than n values, and only
// a sequence with no value left fails, with nextval's limit error. With CYCLE
// a sequence at its limit continues from the other end.
func (o *Options) Reserve(s State, n int64, name string) (Range, State, error) {
	left := o.Left(s)
	if left == 0 {
		if !o.Cycle {
			return Range{}, s, o.LimitError(name)
		}
		s = State{Last: o.wrapValue()}
		left = o.Left(s)
	}
	count := min(n, left)
	r := Range{First: o.at(s, 1), Count: count, Increment: o.Increment, Shape: o.Shape}
	return r, State{Last: o.at(s, count), Called: true}, nil
}

// LimitError is nextval's error for a sequence with no value left.
func (o *Options) LimitError(name string) error {
	if o.Shape.Shaped() {
		return errorf(ErrLimitReached, "nextval: %s sequence \"%s\" has no values left (its counter ends at %d)", o.Shape.kindName(), name, o.Max)
	}
	if o.Increment > 0 {
		return errorf(ErrLimitReached, "nextval: reached maximum value of sequence \"%s\" (%d)", name, o.Max)
	}
	return errorf(ErrLimitReached, "nextval: reached minimum value of sequence \"%s\" (%d)", name, o.Min)
}

// Setval returns the state setval(name, v, called) leaves the sequence in.
// For a shaped sequence v is a value, which is mapped back to its counter,
// so that setval(s, v, false) makes v the next value, as in PostgreSQL
// (unless the skip range holds v).
func (o *Options) Setval(v int64, called bool, name string) (State, error) {
	if o.Shape.Shaped() {
		c, ok := o.Shape.Counter(v)
		if !ok || c < o.Min || c > o.Max {
			return State{}, errorf(ErrOutOfBounds, "setval: value %d is not a value of %s sequence \"%s\"", v, o.Shape.kindName(), name)
		}
		return State{Last: c, Called: called}, nil
	}
	if v < o.Min || v > o.Max {
		return State{}, errorf(ErrOutOfBounds, "setval: value %d is out of bounds for sequence \"%s\" (%d..%d)", v, name, o.Min, o.Max)
	}
	return State{Last: v, Called: called}, nil
}

// Release gives back the tail of the last range handed out, so that those
// values are issued again. s is the state right after that range and
// granted its size (0 when nothing may be given back). The tail first..last
// is accepted when last is s.Last and first is one of the granted values on
// the increment's grid; the state returned issues first next, and k counts
// the values given back. ok is false when first..last is not such a tail.
func (o *Options) Release(s State, granted int64, first, last int64) (ns State, k int64, ok bool) {
	if !s.Called || granted < 1 || last != s.Last {
		return s, 0, false
	}
	var span uint64
	if o.Increment > 0 {
		if first > last {
			return s, 0, false
		}
		span = uint64(last) - uint64(first)
	} else {
		if first < last {
			return s, 0, false
		}
		span = uint64(first) - uint64(last)
	}
	if span%o.magnitude() != 0 || span/o.magnitude() >= uint64(granted) {
		return s, 0, false
	}
	return State{Last: first}, int64(span/o.magnitude()) + 1, true
}

// Value is the value a counter of the sequence stands for: the counter
// itself unless the sequence is shaped.
func (o *Options) Value(counter int64) int64 { return o.Shape.Value(counter) }

// NextSteps is how many counters the next nextval from s consumes: 1,
// or more when the skip range passes over some. ok is false when none of
// the counters left gives a value; a sequence that cycles always has one.
func (o *Options) NextSteps(s State) (int64, bool) {
	if !o.Shape.HasSkip() {
		return 1, o.Left(s) > 0 || o.Cycle
	}
	c := s.Last
	if s.Called {
		if c >= o.Max {
			return 0, false
		}
		c++
	}
	n, ok := o.Shape.NextCounter(c)
	if !ok {
		return 0, false
	}
	return n - c + 1, true
}

// Steps is how many values are issued going from s to t (k with
// Advance(s, k) = t), when t is ahead of s in the increment's direction
// without wrapping; ok is false when it is not.
func (o *Options) Steps(s, t State) (int64, bool) {
	if !t.Called {
		return 0, s == t
	}
	var span uint64
	if o.Increment > 0 {
		if t.Last < s.Last {
			return 0, false
		}
		span = uint64(t.Last) - uint64(s.Last)
	} else {
		if t.Last > s.Last {
			return 0, false
		}
		span = uint64(s.Last) - uint64(t.Last)
	}
	if span%o.magnitude() != 0 {
		return 0, false
	}
	n := span / o.magnitude()
	if !s.Called {
		n++
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}
