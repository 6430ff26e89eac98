package client

import (
	"context"
	"sync/atomic"
)

// A Generator hands out values of one sequence. Implementations are safe
// for concurrent use.
type Generator interface {
	// Next returns a value never returned before by any generator of
	// the same sequence.
	Next(ctx context.Context) (int64, error)
	// Close gives the values reserved but not handed out back to the
	// source where it can (see Source.Release) and counts the rest as
	// burned. Next then fails with ErrClosed.
	Close(ctx context.Context) error
	// Stats reports what the generator did so far.
	Stats() Stats
}

// Stats count a generator's values.
type Stats struct {
	Reserved int64 // values received from the source
	Issued   int64 // values Next returned
	Released int64 // unused values given back at Close
	Burned   int64 // unused values that could not be given back (known at Close)
	Fetches  int64 // reservations made
	Waits    int64 // Next calls that had to wait for a reservation
	Size     int64 // the range size the next reservation asks for
}

// Async is the Spanner article's asynchronous generator: each value is a
// short reservation of its own, outside the caller's transaction. Values
// are ordered (a Next that starts after another returned gets a larger
// value, for ascending sequences); a value taken by a transaction that
// then fails is a gap. Every Next costs a round trip. Safe for concurrent
// use.
type Async struct {
	src    Source
	name   string
	closed atomic.Bool
	issued atomic.Int64
}

// NewAsync is an asynchronous generator of the sequence name in src.
func NewAsync(src Source, name string) *Async { return &Async{src: src, name: name} }

// Next reserves one value.
func (g *Async) Next(ctx context.Context) (int64, error) {
	if g.closed.Load() {
		return 0, ErrClosed
	}
	r, err := g.src.Reserve(ctx, g.name, 1)
	if err != nil {
		return 0, err
	}
	g.issued.Add(1)
	return r.First, nil
}

// Close stops the generator; an Async holds no values, so none burn.
func (g *Async) Close(context.Context) error {
	g.closed.Store(true)
	return nil
}

// Stats: every value reserved was issued.
func (g *Async) Stats() Stats {
	n := g.issued.Load()
	return Stats{Reserved: n, Issued: n, Fetches: n, Waits: n, Size: 1}
}
