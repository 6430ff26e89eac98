package engine

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seqd/seqd/seqmath"
)

// TestRenameLockOrder: Rename takes catMu without holding the sequence's
// mu (the lock order, Engine's comment), so that it cannot deadlock with
// a pass over the catalog that takes each sequence's mu under catMu's
// read lock (Ranges.Observe, copyInto). Rename held s.mu from lookupIdle
// while it waited for catMu: a pass holding the read lock then waited
// for s.mu, and neither went on.
func TestRenameLockOrder(t *testing.T) {
	e, err := OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if _, err := e.Create(ctx, mustName(t, fmt.Sprintf("s%03d", i)), seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
	}
	a, b := mustName(t, "s100"), mustName(t, "renamed")
	r := NewRanges(nil, time.Minute, nil)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				r.Observe(r.Now(), e)
			}
		}
	}()
	done := make(chan error, 1)
	go func() {
		for range 300 {
			if err := e.Rename(ctx, a, b); err != nil {
				done <- err
				return
			}
			if err := e.Rename(ctx, b, a); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		e.Close()
	case <-time.After(30 * time.Second):
		// Not closed: Close would wait for the locks too.
		t.Fatal("Rename and a pass over the catalog deadlocked")
	}
}

// TestRenameRefusedKeepsWindow: a rename refused (the name is taken)
// leaves the sequence as it was, its window of values included, and
// serving.
func TestRenameRefusedKeepsWindow(t *testing.T) {
	e, err := OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a, b := mustName(t, "a"), mustName(t, "b")
	for _, n := range []Name{a, b} {
		if _, err := e.Create(ctx, n, seqmath.Spec{Cache: i64(100)}, false); err != nil {
			t.Fatal(err)
		}
	}
	next(t, e, a)
	next(t, e, a)
	commits := e.Stats().Commits
	if err := e.Rename(ctx, a, b); !errors.Is(err, ErrExists) {
		t.Fatalf("rename onto an existing name: %v", err)
	}
	if got := e.Stats().Commits; got != commits {
		t.Fatalf("a refused rename wrote: %d commits, was %d", got, commits)
	}
	if v := next(t, e, a); v != 3 {
		t.Fatalf("nextval after a refused rename: %d, want 3", v)
	}
	if err := e.Rename(ctx, a, mustName(t, "c")); err != nil {
		t.Fatal(err)
	}
	if v := next(t, e, mustName(t, "c")); v != 4 {
		t.Fatalf("nextval after the rename: %d, want 4", v)
	}
}
