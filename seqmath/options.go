// Package seqmath is the per-sequence arithmetic of seqd: options and their
// validation, next values, ranges, limits and CYCLE, exactly as PostgreSQL 15
// computes them. It does no I/O, reads no clock and starts no goroutine.
package seqmath

import (
	"errors"
	"fmt"
	"math"
)

// Sentinel errors. Every error this package returns is an *Error whose Kind is
// one of these, so callers classify with errors.Is and show Error() to users:
// the message is PostgreSQL's, word for word.
var (
	ErrInvalidOption = errors.New("seqd: invalid sequence option")
	ErrLimitReached  = errors.New("seqd: sequence limit reached")
	ErrOutOfBounds   = errors.New("seqd: value out of bounds for sequence")
)

// Error is a failure with PostgreSQL's message and a classifying Kind.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

func errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Type is a sequence's data type. The zero value is Bigint, the default.
type Type uint8

const (
	Bigint Type = iota
	Integer
	Smallint
)

// ParseType maps a PostgreSQL type name to a Type. ok is false for any type
// a sequence cannot have.
func ParseType(name string) (t Type, ok bool) {
	switch name {
	case "bigint", "int8":
		return Bigint, true
	case "integer", "int", "int4":
		return Integer, true
	case "smallint", "int2":
		return Smallint, true
	}
	return 0, false
}

func (t Type) String() string {
	switch t {
	case Integer:
		return "integer"
	case Smallint:
		return "smallint"
	}
	return "bigint"
}

// Min is the smallest value of the type.
func (t Type) Min() int64 {
	switch t {
	case Integer:
		return math.MinInt32
	case Smallint:
		return math.MinInt16
	}
	return math.MinInt64
}

// Max is the largest value of the type.
func (t Type) Max() int64 {
	switch t {
	case Integer:
		return math.MaxInt32
	case Smallint:
		return math.MaxInt16
	}
	return math.MaxInt64
}

// Options are a sequence's validated parameters, as pg_sequences shows them.
//
// Invariants (established by Create and Alter): Increment != 0;
// Type.Min() <= Min < Max <= Type.Max(); Min <= Start <= Max; Cache >= 1.
type Options struct {
	Increment int64
	Min       int64
	Max       int64
	Start     int64
	Cache     int64
	Type      Type
	Cycle     bool
	// NoOrder: in cluster mode every node hands out values from blocks
	// of CACHE it reserves for itself, unique across the cluster and
	// ordered per node only (Oracle RAC's NOORDER). One node serves a
	// NOORDER sequence as it serves any other. (Beside the other flags:
	// a million sequences' options are 8 MB smaller than after Shape.)
	NoOrder bool
	// IncrementZero: the sequence was written with MariaDB's INCREMENT
	// BY 0, which steps by the server's auto_increment_increment (1
	// here): Increment is 1, and MariaDB's views of the sequence show 0.
	// Set only with Increment 1; any INCREMENT given later clears it.
	IncrementZero bool
	// CacheOne: the sequence was written with MariaDB's CACHE 1, which
	// MariaDB tells apart from NOCACHE (and CACHE 0): Cache is 1 either
	// way, and MariaDB's views show cache 1 rather than nocache. Set
	// only with Cache 1; any CACHE given later clears it. PostgreSQL's
	// CACHE 1 is its default and does not set it.
	CacheOne bool
	// Shape maps the counter (everything above counts in counters) to
	// the values handed out. A shaped sequence counts 1, 2, ... up to
	// Shape.MaxCounter(), is a bigint and does not cycle.
	Shape Shape
}

// Spec is the set of options one CREATE or ALTER SEQUENCE names. A nil
// pointer (or false flag) means the option was not given.
type Spec struct {
	Type        *Type
	Increment   *int64
	Min         *int64
	NoMin       bool // NO MINVALUE
	Max         *int64
	NoMax       bool // NO MAXVALUE
	Start       *int64
	Restart     bool   // RESTART
	RestartWith *int64 // RESTART WITH n (implies Restart)
	Cache       *int64
	Cycle       *bool
	// IncrementZero, with Increment 1: MariaDB's INCREMENT BY 0
	// (Options.IncrementZero).
	IncrementZero bool
	// CacheOne, with Cache 1: MariaDB's CACHE 1 (Options.CacheOne).
	CacheOne bool

	// Shapes (CREATE only): BIT_REVERSED_POSITIVE or SHARD_BITS.
	Shape *Shape
	// SKIP RANGE min max, NO SKIP RANGE.
	Skip   *[2]int64
	NoSkip bool
	// START COUNTER [WITH] n (CREATE), RESTART COUNTER [WITH] n (ALTER).
	StartCounter   *int64
	RestartCounter *int64

	// ORDER (true) or NOORDER (false).
	Order *bool
}

// Restarts reports whether the spec sets the sequence's position
// (RESTART, RESTART WITH, RESTART COUNTER).
func (sp Spec) Restarts() bool {
	return sp.Restart || sp.RestartWith != nil || sp.RestartCounter != nil
}

// Create validates a CREATE SEQUENCE spec and returns the new sequence's
// options and initial state.
func Create(spec Spec) (Options, State, error) {
	return apply(Options{}, State{}, spec, true)
}

// Alter applies an ALTER SEQUENCE spec to a sequence's options and state.
// Both are returned unchanged with the error when the spec is invalid.
func Alter(o Options, s State, spec Spec) (Options, State, error) {
	no, ns, err := apply(o, s, spec, false)
	if err != nil {
		return o, s, err
	}
	return no, ns, nil
}

// apply follows PostgreSQL 15's init_params step by step, so that the order
// in which problems are reported is PostgreSQL's too.
func apply(o Options, s State, spec Spec, isInit bool) (Options, State, error) {
	if spec.Order != nil {
		o.NoOrder = !*spec.Order
	}
	if spec.Shape != nil {
		if !isInit {
			return o, s, errorf(ErrInvalidOption, "ALTER SEQUENCE cannot change the shape of a sequence")
		}
		o.Shape = spec.Shape.WithoutSkip()
		o.Shape.Node = 0
		if err := o.Shape.check(); err != nil {
			return o, s, err
		}
	}
	if o.Shape.Kind == Snowflake {
		return applySnowflake(o, s, spec, isInit)
	}
	if o.Shape.Shaped() {
		return applyShaped(o, s, spec, isInit)
	}
	switch {
	case spec.Skip != nil || spec.NoSkip:
		return o, s, errorf(ErrInvalidOption, "SKIP RANGE requires a BIT_REVERSED_POSITIVE or SHARD_BITS sequence")
	case spec.StartCounter != nil:
		return o, s, errorf(ErrInvalidOption, "START COUNTER requires a BIT_REVERSED_POSITIVE or SHARD_BITS sequence")
	case spec.RestartCounter != nil:
		return o, s, errorf(ErrInvalidOption, "RESTART COUNTER requires a BIT_REVERSED_POSITIVE or SHARD_BITS sequence")
	}
	resetMax, resetMin := false, false
	if spec.Type != nil {
		if !isInit {
			// Min/max that were the old type's bounds follow the new type.
			resetMax = o.Max == o.Type.Max()
			resetMin = o.Min == o.Type.Min()
		}
		o.Type = *spec.Type
	} else if isInit {
		o.Type = Bigint
	}

	if spec.Increment != nil {
		o.Increment = *spec.Increment
		if o.Increment == 0 {
			return o, s, errorf(ErrInvalidOption, "INCREMENT must not be zero")
		}
		o.IncrementZero = spec.IncrementZero && o.Increment == 1
	} else if isInit {
		o.Increment = 1
	}

	if spec.Cycle != nil {
		o.Cycle = *spec.Cycle
	} else if isInit {
		o.Cycle = false
	}

	if spec.Max != nil {
		o.Max = *spec.Max
	} else if isInit || spec.NoMax || resetMax {
		if o.Increment > 0 || resetMax {
			o.Max = o.Type.Max()
		} else {
			o.Max = -1
		}
	}
	if o.Max < o.Type.Min() || o.Max > o.Type.Max() {
		return o, s, errorf(ErrInvalidOption, "MAXVALUE (%d) is out of range for sequence data type %s", o.Max, o.Type)
	}

	if spec.Min != nil {
		o.Min = *spec.Min
	} else if isInit || spec.NoMin || resetMin {
		if o.Increment < 0 || resetMin {
			o.Min = o.Type.Min()
		} else {
			o.Min = 1
		}
	}
	if o.Min < o.Type.Min() || o.Min > o.Type.Max() {
		return o, s, errorf(ErrInvalidOption, "MINVALUE (%d) is out of range for sequence data type %s", o.Min, o.Type)
	}

	if o.Min >= o.Max {
		return o, s, errorf(ErrInvalidOption, "MINVALUE (%d) must be less than MAXVALUE (%d)", o.Min, o.Max)
	}

	if spec.Start != nil {
		o.Start = *spec.Start
	} else if isInit {
		if o.Increment > 0 {
			o.Start = o.Min
		} else {
			o.Start = o.Max
		}
	}
	if o.Start < o.Min {
		return o, s, errorf(ErrInvalidOption, "START value (%d) cannot be less than MINVALUE (%d)", o.Start, o.Min)
	}
	if o.Start > o.Max {
		return o, s, errorf(ErrInvalidOption, "START value (%d) cannot be greater than MAXVALUE (%d)", o.Start, o.Max)
	}

	if spec.RestartWith != nil {
		s = State{Last: *spec.RestartWith}
	} else if spec.Restart || isInit {
		s = State{Last: o.Start}
	}
	if s.Last < o.Min {
		return o, s, errorf(ErrInvalidOption, "RESTART value (%d) cannot be less than MINVALUE (%d)", s.Last, o.Min)
	}
	if s.Last > o.Max {
		return o, s, errorf(ErrInvalidOption, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", s.Last, o.Max)
	}

	return applyCache(o, s, spec, isInit)
}

// applyShaped is apply for a shaped sequence: its counter runs from 1 by 1
// and never cycles, so only the options about the counter's position, the
// skip range and CACHE may be given.
func applyShaped(o Options, s State, spec Spec, isInit bool) (Options, State, error) {
	kind := o.Shape.kindName()
	for _, c := range []struct {
		given bool
		name  string
	}{
		{spec.Type != nil && *spec.Type != Bigint, "AS " + typeName(spec.Type)},
		{spec.Increment != nil, "INCREMENT"},
		{spec.Min != nil || spec.NoMin, "MINVALUE"},
		{spec.Max != nil || spec.NoMax, "MAXVALUE"},
		{spec.Start != nil, "START WITH (use START COUNTER)"},
		{spec.RestartWith != nil, "RESTART WITH (use RESTART COUNTER WITH)"},
		{spec.Cycle != nil && *spec.Cycle, "CYCLE"},
	} {
		if c.given {
			return o, s, errorf(ErrInvalidOption, "%s cannot be used with a %s sequence", c.name, kind)
		}
	}
	maxc := o.Shape.MaxCounter()
	o.Type, o.Increment, o.Min, o.Max, o.Cycle = Bigint, 1, 1, maxc, false
	if isInit {
		o.Start = 1
		if spec.StartCounter != nil {
			o.Start = *spec.StartCounter
		}
		if o.Start < 1 || o.Start > maxc {
			return o, s, errorf(ErrInvalidOption, "START COUNTER (%d) must be between 1 and %d", o.Start, maxc)
		}
	} else if spec.StartCounter != nil {
		return o, s, errorf(ErrInvalidOption, "ALTER SEQUENCE takes RESTART COUNTER, not START COUNTER")
	}
	if spec.NoSkip {
		o.Shape = o.Shape.WithoutSkip()
	}
	if r := spec.Skip; r != nil {
		if r[0] > r[1] {
			return o, s, errorf(ErrInvalidOption, "SKIP RANGE minimum (%d) must not be greater than its maximum (%d)", r[0], r[1])
		}
		o.Shape = o.Shape.WithSkip(r[0], r[1])
	}
	switch {
	case spec.RestartCounter != nil:
		c := *spec.RestartCounter
		if c < 1 || c > maxc {
			return o, s, errorf(ErrInvalidOption, "RESTART COUNTER (%d) must be between 1 and %d", c, maxc)
		}
		s = State{Last: c}
	case spec.Restart || isInit:
		s = State{Last: o.Start}
	}
	return applyCache(o, s, spec, isInit)
}

func typeName(t *Type) string {
	if t == nil {
		return ""
	}
	return t.String()
}

// kindName is how messages name the shape: the clause that makes it.
func (sh Shape) kindName() string {
	switch sh.Kind {
	case Sharded:
		return "SHARD_BITS"
	case Snowflake:
		return "SNOWFLAKE"
	}
	return "BIT_REVERSED_POSITIVE"
}

// applyCache applies CACHE, last of init_params' steps for every shape.
func applyCache(o Options, s State, spec Spec, isInit bool) (Options, State, error) {
	if spec.Cache != nil {
		o.Cache = *spec.Cache
		if o.Cache <= 0 {
			return o, s, errorf(ErrInvalidOption, "CACHE (%d) must be greater than zero", o.Cache)
		}
		o.CacheOne = spec.CacheOne && o.Cache == 1
	} else if isInit {
		o.Cache = 1
	}
	return o, s, nil
}
