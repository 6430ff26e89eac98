package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/seqd/seqd/seqmath"
)

// Range is Count() consecutive values of a sequence: First, First+Step, ...,
// Last. Step is the sequence's increment (negative for a descending one).
//
// A range of a shaped sequence (bit-reversed or sharded) is one of
// counters, Step 1, and Shape maps each counter to its value with the
// server's own function; Value says which counters give values.
type Range struct {
	First, Last, Step int64
	Shape             seqmath.Shape
}

// Value is the value of the counter (or value) c of r; ok is false when
// r's skip range passes over it.
func (r Range) Value(c int64) (v int64, ok bool) {
	if !r.Shape.Shaped() {
		return c, true
	}
	v = r.Shape.Value(c)
	return v, !r.Shape.Skipped(v)
}

// Count is how many values r holds.
func (r Range) Count() int64 {
	switch {
	case r.Step > 0:
		return int64((uint64(r.Last)-uint64(r.First))/uint64(r.Step)) + 1
	case r.Step < 0: // descending: the span and the step are negated, exactly
		return int64((uint64(r.First)-uint64(r.Last))/-uint64(r.Step)) + 1
	}
	return 0
}

// At is r's i-th value, 0 <= i < r.Count().
func (r Range) At(i int64) int64 { return r.First + i*r.Step }

// tail is the part of r from its i-th value on; ok is false when nothing
// is left.
func (r Range) tail(i int64) (Range, bool) {
	if i >= r.Count() {
		return Range{}, false
	}
	return Range{First: r.At(i), Last: r.Last, Step: r.Step, Shape: r.Shape}, true
}

// A Source hands out ranges of named sequences. Implementations are safe
// for concurrent use.
type Source interface {
	// Create makes the sequence name, starting at start, unless it
	// exists (then it is left as it is). Table sources also create their
	// table.
	Create(ctx context.Context, name string, start int64) error
	// Reserve takes the next n values of name; fewer (at least one)
	// only where the sequence reaches its limit.
	Reserve(ctx context.Context, name string, n int64) (Range, error)
	// Release gives r back if it is still the sequence's unused tail:
	// nothing was reserved after it. It reports whether it did; when it
	// did not, the values stay unused forever (burned), never reissued.
	Release(ctx context.Context, name string, r Range) (bool, error)
}

// Errors, classified with errors.Is. Each is wrapped together with the
// driver's own error, which errors.As still reaches.
var (
	// ErrNotFound: the sequence (or the sequences table) does not exist.
	ErrNotFound = errors.New("seqd: sequence not found")
	// ErrLimitReached: the sequence has no value left (its MAXVALUE or
	// MINVALUE, or the 64-bit range of a table's next_value).
	ErrLimitReached = errors.New("seqd: sequence limit reached")
	// ErrConflict: the database kept refusing the update because of
	// concurrent transactions (serialization failure, deadlock, lock wait
	// timeout). Inside the caller's transaction (Sync) it is returned at
	// once: roll back and run the transaction again (RunTx does).
	ErrConflict = errors.New("seqd: conflicting concurrent update")
	// ErrUnsupported: the source cannot do what was asked, such as a
	// range from a native sequence whose INCREMENT is not the range size.
	ErrUnsupported = errors.New("seqd: not supported by this source")
	// ErrClosed: the generator was closed.
	ErrClosed = errors.New("seqd: generator closed")
	// ErrInvalid: a bad argument, such as a table name that is not a
	// plain identifier or a range size below 1.
	ErrInvalid = errors.New("seqd: invalid argument")
	// ErrAuth: authentication failed, or the role lacks a privilege.
	ErrAuth = errors.New("seqd: not authorized")
	// ErrUnavailable: the server could not serve the request now (shut
	// down, starting, overloaded, a standby or a deposed owner, its store
	// failed, the connection was lost). Sending the request again, on
	// another host where the error says so, is safe: a reservation whose
	// outcome was unknown is burned, never handed out twice
	// (docs/protocol.md).
	ErrUnavailable = errors.New("seqd: unavailable")
)

// wrap classifies a driver error: kind (one of the sentinels above, or nil
// for a plain failure) and cause are both reachable with errors.Is/As.
func wrap(kind error, op, name string, cause error) error {
	if kind == nil {
		return fmt.Errorf("seqd: %s %q: %w", op, name, cause)
	}
	if cause == nil {
		return fmt.Errorf("%w: %s %q", kind, op, name)
	}
	return fmt.Errorf("%w: %s %q: %w", kind, op, name, cause)
}
