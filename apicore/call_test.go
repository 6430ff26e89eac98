package apicore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/internal/testenv"
)

// TestCallerGone: a call waiting for a lock ends with 57014 once its
// caller's context ends (the sweeper links it), and its session serves
// the next call with a context of its own; a caller's context that ends
// after its call did cancels nothing.
func TestCallerGone(t *testing.T) {
	eng := testenv.MemEngine(t)
	c := New(Config{Engine: eng})
	defer c.Close()
	bg := context.Background()
	q, err := c.Begin(bg, "", Client{})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.CreateSequence("public", "s", executor.SequenceOptions{}); err != nil {
		t.Fatal(err)
	}
	q.End()

	holder, err := c.Begin(bg, "", Client{})
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Begin(); err != nil {
		t.Fatal(err)
	}
	restart := int64(100)
	if err := holder.AlterSequence("public", "s", executor.SequenceOptions{Restart: &restart}); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(bg)
	waiter, err := c.Begin(ctx, "", Client{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := waiter.Next("public", "s", 1)
		done <- err
	}()
	time.Sleep(2 * sweepInterval) // past a sweep or two: linked, or about to be
	cancel()
	select {
	case err := <-done:
		if e := ErrorOf(err); e.Code != "57014" {
			t.Fatalf("the waiting call: %v (%s), want 57014", err, e.Code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting call did not end after its caller's context did")
	}
	if err := holder.Commit(); err != nil {
		t.Fatal(err)
	}
	holder.End()
	sess := waiter.sess
	waiter.End() // the pool's top

	// The same session serves the next call, under a new context.
	ctx2, cancel2 := context.WithCancel(bg)
	next, err := c.Begin(ctx2, "", Client{})
	if err != nil {
		t.Fatal(err)
	}
	if next.sess != sess {
		t.Fatalf("a new session, not the pooled one")
	}
	if v, err := next.Next("public", "s", 1); err != nil || v[0] != 100 {
		t.Fatalf("the next call: %v %v", v, err)
	}
	for range 2 { // linked as a long call would be
		sess.sweep()
	}
	next.End()
	cancel2() // after the call: cancels nothing
	last, err := c.Begin(bg, "", Client{})
	if err != nil {
		t.Fatal(err)
	}
	defer last.End()
	time.Sleep(10 * time.Millisecond) // an AfterFunc left linked would have run by now
	if v, err := last.Next("public", "s", 1); err != nil || v[0] != 101 {
		t.Fatalf("a call after an earlier caller's context ended: %v %v", v, err)
	}
	if errors.Is(last.ctx.Err(), context.Canceled) {
		t.Fatal("the call's context was cancelled")
	}
}
