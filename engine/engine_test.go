package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage/embedded"
)

var ctx = context.Background()

func i64(v int64) *int64 { return &v }

func mustName(t testing.TB, rel string) Name {
	t.Helper()
	n, err := NewName("public", rel)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func openFS(t testing.TB, fs vfs.FS) *Engine {
	t.Helper()
	st, err := embedded.Open("db", embedded.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func next(t testing.TB, e *Engine, n Name) int64 {
	t.Helper()
	_, v, err := e.Nextval(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// quiesce waits until no write is in flight anywhere, so that a crash
// clone taken now reflects settled state.
func quiesce(e *Engine) {
	for {
		busy := false
		e.catMu.RLock()
		for s := range e.seqs.values() {
			s.mu.Lock()
			busy = busy || s.writing
			s.waitIdleLocked(ctx)
			s.mu.Unlock()
		}
		e.catMu.RUnlock()
		if !busy {
			return
		}
	}
}

func TestLifecycle(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	s := mustName(t, "s")
	if _, err := e.Create(ctx, s, seqmath.Spec{Cache: i64(10)}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(ctx, s, seqmath.Spec{}, false); !errors.Is(err, ErrExists) || err.Error() != `relation "s" already exists` {
		t.Fatalf("duplicate create: %v", err)
	}
	if created, err := e.Create(ctx, s, seqmath.Spec{}, true); created || err != nil {
		t.Fatalf("if not exists: %v %v", created, err)
	}
	for want := int64(1); want <= 5; want++ {
		if v := next(t, e, s); v != want {
			t.Fatalf("nextval = %d, want %d", v, want)
		}
	}
	if _, err := e.Setval(ctx, s, 100, false); err != nil {
		t.Fatal(err)
	}
	if v := next(t, e, s); v != 100 {
		t.Fatalf("after setval(100,false): %d", v)
	}
	if err := e.Alter(ctx, s, seqmath.Spec{Increment: i64(10)}); err != nil {
		t.Fatal(err)
	}
	if v := next(t, e, s); v != 110 {
		t.Fatalf("after increment 10: %d", v)
	}
	_, r, err := e.Reserve(ctx, s, 3)
	if err != nil || r.Count < 1 || r.First != 120 || r.Increment != 10 {
		t.Fatalf("reserve: %+v %v", r, err)
	}
	if _, err := e.Setval(ctx, s, -1, true); !errors.Is(err, seqmath.ErrOutOfBounds) {
		t.Fatalf("setval out of bounds: %v", err)
	}
	missing := mustName(t, "nope")
	if _, _, err := e.Nextval(ctx, missing); !errors.Is(err, ErrNotFound) || err.Error() != `relation "nope" does not exist` {
		t.Fatalf("nextval missing: %v", err)
	}
	if err := e.Drop(ctx, missing); !errors.Is(err, ErrNotFound) || err.Error() != `sequence "nope" does not exist` {
		t.Fatalf("drop missing: %v", err)
	}

	// A clean restart continues at exactly the next value.
	last := r.Last()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openFS(t, fs)
	if v := next(t, e, s); v != last+10 {
		t.Fatalf("after clean restart: %d, want %d", v, last+10)
	}
	if err := e.Drop(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Nextval(ctx, s); !errors.Is(err, ErrNotFound) {
		t.Fatalf("nextval after drop: %v", err)
	}
	info, _ := e.Info(s)
	if info.ID != 0 {
		t.Fatal("dropped sequence has info")
	}
	// Recreated, it is a new sequence with a new ID.
	if _, err := e.Create(ctx, s, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	id, v, _ := e.Nextval(ctx, s)
	if v != 1 || id == 0 {
		t.Fatalf("recreated: id %d value %d", id, v)
	}
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	if got := e.List(); len(got) != 1 || got[0].ID != id || got[0].State != (seqmath.State{Last: 1, Called: true}) {
		t.Fatalf("after restart: %+v", got)
	}
	if _, _, err := e.Nextval(ctx, s); err != nil {
		t.Fatal(err)
	}
}

func TestLimitAndCycle(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	up, down := mustName(t, "up"), mustName(t, "down")
	e.Create(ctx, up, seqmath.Spec{Type: ptr(seqmath.Smallint), Start: i64(32765), Cache: i64(100)}, false)
	for _, want := range []int64{32765, 32766, 32767} {
		if v := next(t, e, up); v != want {
			t.Fatalf("got %d want %d", v, want)
		}
	}
	if _, _, err := e.Nextval(ctx, up); !errors.Is(err, seqmath.ErrLimitReached) || err.Error() != `nextval: reached maximum value of sequence "up" (32767)` {
		t.Fatalf("limit: %v", err)
	}
	e.Create(ctx, down, seqmath.Spec{Increment: i64(-2), Min: i64(-5), Max: i64(0), Cycle: ptr(true), Cache: i64(3)}, false)
	var got []int64
	for range 7 {
		got = append(got, next(t, e, down))
	}
	want := []int64{0, -2, -4, 0, -2, -4, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cycle down: %v, want %v", got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestRelease: a client that gives back the unused tail of its range
// burns nothing, across a clean restart too; a range that is no longer the
// tail is refused.
func TestRelease(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	n := mustName(t, "r")
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: i64(1000)}, false); err != nil {
		t.Fatal(err)
	}
	_, r, err := e.Reserve(ctx, n, 10) // 1..10
	if err != nil || r.First != 1 || r.Count != 10 {
		t.Fatalf("reserve %+v %v", r, err)
	}
	if k, err := e.Release(n, 4, 10); k != 7 || err != nil {
		t.Fatalf("release 4..10: %d %v", k, err)
	}
	if k, _ := e.Release(n, 4, 10); k != 0 {
		t.Fatal("released the same range twice")
	}
	if v := next(t, e, n); v != 4 {
		t.Fatalf("after release nextval = %d, want 4", v)
	}
	if k, _ := e.Release(n, 1, 4); k != 0 {
		t.Fatal("released values issued before the last grant")
	}
	_, r, _ = e.Reserve(ctx, n, 3) // 5..7
	next(t, e, n)                  // 8: the range is no longer the tail
	if k, _ := e.Release(n, r.First, r.Last()); k != 0 {
		t.Fatal("released a range with a value issued after it")
	}
	_, r, _ = e.Reserve(ctx, n, 5) // 9..13
	if k, _ := e.Release(n, 9, 13); k != 5 {
		t.Fatal("release refused")
	}
	// Refused releases of values handed out burn them: 1..4 and 5..7;
	// 4..10 given back twice was never handed out again, so burns none.
	if info, _ := e.Info(n); info.Burned != (Burned{Release: 7}) || e.Stats().Burned != info.Burned {
		t.Fatalf("burned: %+v, engine %+v; want 7 by release", info.Burned, e.Stats().Burned)
	}
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	if v := next(t, e, n); v != 9 {
		t.Fatalf("after a clean restart nextval = %d, want 9", v)
	}
	if _, err := e.Release(mustName(t, "nope"), 1, 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("release of unknown sequence: %v", err)
	}
}

// TestReserveWhole: a range bigger than the window in memory waits for
// the mark to cover it and comes back whole; ReserveUpTo hands out the
// window at once; both stop at the limit.
func TestReserveWhole(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	n := mustName(t, "w")
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: i64(32), Max: i64(2000)}, false); err != nil {
		t.Fatal(err)
	}
	next(t, e, n) // 1; the window now holds a few values
	if info, _ := e.Info(n); info.Window < 1 || info.Window >= 1000 {
		t.Fatalf("window %d: the test needs a small non-empty one", info.Window)
	}
	_, r, err := e.Reserve(ctx, n, 1000)
	if err != nil || r.First != 2 || r.Count != 1000 {
		t.Fatalf("Reserve(1000) = %+v, %v; want 2.. with 1000 values", r, err)
	}
	_, r, err = e.ReserveUpTo(ctx, n, 1000)
	if err != nil || r.First != 1002 || r.Count < 1 || r.Count > 32 {
		t.Fatalf("ReserveUpTo(1000) = %+v, %v; want the window from 1002 (at most 32 values)", r, err)
	}
	from := r.Last() + 1
	_, r, err = e.Reserve(ctx, n, 5000)
	if err != nil || r.First != from || r.Last() != 2000 {
		t.Fatalf("Reserve(5000) near the limit = %+v, %v; want %d..2000", r, err, from)
	}
	if _, _, err := e.Reserve(ctx, n, 1); !errors.Is(err, seqmath.ErrLimitReached) {
		t.Fatalf("past the limit: %v", err)
	}
}

// TestReserveWholeConcurrent: callers that keep asking for ranges larger
// than the window all get whole ranges; none is starved into a partial
// one by the others taking the write it waited for.
func TestReserveWholeConcurrent(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	n := mustName(t, "wc")
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: i64(1000)}, false); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				_, r, err := e.Reserve(ctx, n, 5000)
				if err == nil && r.Count != 5000 {
					err = fmt.Errorf("range of %d values, want 5000", r.Count)
				}
				if err != nil {
					errs <- err
					return
				}
				if _, v, err := e.Nextval(ctx, n); err != nil || v <= r.Last() {
					errs <- fmt.Errorf("nextval %d (%v) inside the range before it", v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestLookupCacheFollowsDDL: names looked up once are served from the
// lookup cache; a drop, a re-creation and a rename are seen at once.
func TestLookupCacheFollowsDDL(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	s, tn := mustName(t, "s"), mustName(t, "t")
	if _, err := e.Create(ctx, s, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	next(t, e, s)
	if err := e.Drop(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Nextval(ctx, s); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after drop: %v", err)
	}
	if _, err := e.Create(ctx, s, seqmath.Spec{Start: i64(100)}, false); err != nil {
		t.Fatal(err)
	}
	if v := next(t, e, s); v != 100 {
		t.Fatalf("the new s: %d", v)
	}
	if err := e.Rename(ctx, s, tn); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Nextval(ctx, s); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the old name after rename: %v", err)
	}
	if v := next(t, e, tn); v != 101 {
		t.Fatalf("the new name after rename: %d", v)
	}
}

// TestSetvalAhead: MariaDB's SETVAL moves a sequence only forward (for a
// descending one, down): one that would move it back changes nothing.
func TestSetvalAhead(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	up, down := mustName(t, "up"), mustName(t, "down")
	if _, err := e.Create(ctx, up, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(ctx, down, seqmath.Spec{Increment: i64(-1)}, false); err != nil {
		t.Fatal(err)
	}
	next(t, e, up)
	next(t, e, up) // at 2: the next value is 3
	for _, tc := range []struct {
		n      Name
		v      int64
		called bool
		moved  bool
		next   int64
	}{
		{up, 1, true, false, 3},    // the next value would be 2, not 3
		{up, 3, true, true, 4},     // it stays 4
		{up, 3, false, false, 5},   // 3, not 5
		{up, 10, false, true, 10},  // forward
		{up, 10, true, true, 11},   // it stays 11
		{down, -5, true, true, -6}, // a descending sequence moves down
		{down, -3, true, false, -7},
	} {
		_, moved, err := e.SetvalAhead(ctx, tc.n, tc.v, tc.called)
		if err != nil || moved != tc.moved {
			t.Fatalf("SetvalAhead(%s, %d, %v): moved %v, %v; want %v", tc.n, tc.v, tc.called, moved, err, tc.moved)
		}
		if got := next(t, e, tc.n); got != tc.next {
			t.Fatalf("after SetvalAhead(%s, %d, %v): next %d, want %d", tc.n, tc.v, tc.called, got, tc.next)
		}
	}
	if !ahead(1, seqmath.State{Last: 5, Called: true}, 1<<63-1, true) || ahead(1, seqmath.State{Last: 1<<63 - 1, Called: true}, 5, true) {
		t.Fatal("values past the int64 range")
	}
}

// TestSeqLayout: a sequence stays 160 bytes (the allocator's size
// class that 152 bytes took as well), its pointers in the first 64 (the
// collector scans no further; a million sequences are marked every
// collection, the runtime's forced one every two minutes at rest
// included).
func TestSeqLayout(t *testing.T) {
	var s seq
	if size := unsafe.Sizeof(s); size > 160 {
		t.Errorf("a sequence is %d bytes, more than 160", size)
	}
	if off := unsafe.Offsetof(s.mu); off != 64 {
		t.Errorf("the fields without pointers start at %d, not 64", off)
	}
}

// TestSharedOptions: sequences with the same options share one copy of
// them (a million sequences keep a pointer each), and changing one
// sequence's options, in a statement or a transaction, changes no other.
func TestSharedOptions(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	a, b, c := mustName(t, "a"), mustName(t, "b"), mustName(t, "c")
	for _, n := range []Name{a, b, c} {
		if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
	}
	sa, _ := e.lookup(a)
	sb, _ := e.lookup(b)
	if sa.opts != sb.opts {
		t.Fatal("two sequences of the same options keep a copy each")
	}
	if err := e.Alter(ctx, a, seqmath.Spec{Increment: i64(5)}); err != nil {
		t.Fatal(err)
	}
	tx := e.Begin()
	if err := tx.Alter(ctx, c, seqmath.Spec{Cache: i64(7)}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[Name][2]int64{a: {5, 1}, b: {1, 1}, c: {1, 7}} {
		i, err := e.Info(n)
		if err != nil || i.Options.Increment != want[0] || i.Options.Cache != want[1] {
			t.Fatalf("%s: increment %d cache %d, want %v (%v)", n.Rel(), i.Options.Increment, i.Options.Cache, want, err)
		}
	}
	if v := next(t, e, b); v != 1 {
		t.Fatalf("b's first value %d", v)
	}
	if next(t, e, a); next(t, e, a) != 6 {
		t.Fatal("a does not count by 5")
	}
	if p := internOptions(*sb.opts); p != sb.opts {
		t.Fatal("the shared copy is not the one interned")
	}
}
