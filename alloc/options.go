// Package alloc is the per-sequence arithmetic of seqd: options and their
// validation, next values, ranges, limits and CYCLE, exactly as PostgreSQL 15
// computes them. It does no I/O, reads no clock and starts no goroutine.
package alloc

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

	if spec.Cache != nil {
		o.Cache = *spec.Cache
		if o.Cache <= 0 {
			return o, s, errorf(ErrInvalidOption, "CACHE (%d) must be greater than zero", o.Cache)
		}
	} else if isInit {
		o.Cache = 1
	}
	return o, s, nil
}
