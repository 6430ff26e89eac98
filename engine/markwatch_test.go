package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/memstore"
)

// marksOf is every usable sequence's Use, by name.
func marksOf(e *Engine) map[string]Use {
	m := map[string]Use{}
	e.EachUse(func(u Use) { m[u.Name().String()] = u })
	return m
}

// drainAll drains w until every sequence whose durable mark or range
// differs between before and now has been reported with its use now,
// and every one gone from before reported gone, or fails the test after
// a second (a write is noted just after its sequence applies it, so a
// drain right after quiesce may come a moment early).
func drainAll(t *testing.T, w *MarkWatch, before, now map[string]Use) {
	t.Helper()
	used, gone := map[string]Use{}, map[string]bool{}
	deadline := time.Now().Add(time.Second)
	for {
		if !w.Drain(func(u Use) { used[u.Name().String()] = u }, func(n Name) { gone[n.String()] = true }) {
			t.Fatal("the watch fell behind")
		}
		var missing []string
		for name, u := range now {
			b, ok := before[name]
			if ok && b.Reserved == u.Reserved && b.Total == u.Total {
				continue
			}
			if r, ok := used[name]; !ok || r.Reserved != u.Reserved || r.Total != u.Total || r.ID != u.ID {
				missing = append(missing, fmt.Sprintf("%s moved to %v of %v, reported %v", name, u.Reserved, u.Total, used[name]))
			}
		}
		for name := range before {
			if _, ok := now[name]; !ok && !gone[name] {
				missing = append(missing, name+" went, not reported")
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not reported: %v", missing)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestMarkWatch: a sequence's durable mark moves only with a write of
// its record, and the watch reports every one written: random nextval,
// reserve, release, setval, alter, drop, create and rename over
// sequences of several caches (windows that move the position without
// moving the mark), each round checked against a pass over them all.
func TestMarkWatch(t *testing.T) {
	e, err := Open(ctx, Config{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rng := rand.New(rand.NewPCG(7, 29))
	var names []Name
	made := 0
	create := func() {
		n := mustName(t, fmt.Sprintf("m%d", made))
		made++
		spec := seqmath.Spec{Cache: i64([]int64{1, 10, 100}[rng.IntN(3)])}
		if rng.IntN(4) == 0 {
			spec.Increment = i64(-3)
		}
		if rng.IntN(4) == 0 {
			spec.Max, spec.Cycle = i64(500), new(bool)
			*spec.Cycle = rng.IntN(2) == 0
		}
		if _, err := e.Create(ctx, n, spec, false); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	for range 12 {
		create()
	}
	w := e.WatchMarks()
	defer w.Stop()
	before := marksOf(e)
	for round := range 300 {
		i := rng.IntN(len(names))
		n := names[i]
		switch op := rng.IntN(22); {
		case op < 10:
			for range rng.IntN(40) + 1 {
				e.Nextval(ctx, n) // may reach the limit
			}
		case op < 12:
			if _, r, err := e.Reserve(ctx, n, int64(rng.IntN(30)+1)); err == nil && rng.IntN(2) == 0 {
				e.Release(n, r.First, r.Last())
			}
		case op < 14:
			e.Setval(ctx, n, int64(rng.IntN(400)+1), rng.IntN(2) == 0) // may be out of range
		case op < 16:
			spec := seqmath.Spec{Restart: rng.IntN(2) == 0}
			if rng.IntN(2) == 0 {
				spec.Cache = i64(int64(rng.IntN(50) + 1))
			}
			e.Alter(ctx, n, spec)
		case op < 17:
			if err := e.Drop(ctx, n); err != nil {
				t.Fatal(err)
			}
			names = append(names[:i], names[i+1:]...)
			create()
		case op < 18:
			to := mustName(t, fmt.Sprintf("r%d", round))
			if err := e.Rename(ctx, n, to); err != nil {
				t.Fatal(err)
			}
			names[i] = to
		case op < 20:
			// A transaction: applied in memory after its write returns.
			txn := e.Begin()
			txn.Setval(ctx, n, int64(rng.IntN(400)+1), true)
			m := names[rng.IntN(len(names))]
			txn.Alter(ctx, m, seqmath.Spec{Restart: true})
			to := mustName(t, fmt.Sprintf("t%d", round))
			renamed := m != n && txn.Rename(ctx, m, to) == nil
			if err := txn.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if renamed {
				names[slices.Index(names, m)] = to
			}
		default:
			create()
		}
		quiesce(e)
		now := marksOf(e)
		drainAll(t, w, before, now)
		before = now
	}
}

// TestMarkWatchApplied: a write noted before its sequence applies it
// (a transaction's commit applies after its write returns) is reported
// at every drain until the sequence has.
func TestMarkWatchApplied(t *testing.T) {
	e, err := Open(ctx, Config{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	n := mustName(t, "a")
	if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	w := e.WatchMarks()
	defer w.Stop()
	s := e.seqs.get(n.key)
	s.mu.Lock()
	rev := s.rev
	s.mu.Unlock()
	e.noteWritten([]storage.Op{{Key: n.key}}, rev+1) // as if committed, not yet applied
	for i := range 3 {
		reported := 0
		w.Drain(func(Use) { reported++ }, func(Name) {})
		if reported != 1 {
			t.Fatalf("drain %d reported %d, want the pending write once", i, reported)
		}
	}
	next(t, e, n) // a write at a later revision: applied
	quiesce(e)
	for range 2 {
		w.Drain(func(Use) {}, func(Name) {})
	}
	reported := 0
	w.Drain(func(Use) { reported++ }, func(Name) {})
	if reported != 0 {
		t.Errorf("reported %d once the write was applied", reported)
	}
}

// TestMarkWatchLimits: a watch that keeps fewer keys than were written
// says it fell behind, once; a stopped watch is told nothing; a
// read-only engine's watch reports the marks Follow takes.
func TestMarkWatchLimits(t *testing.T) {
	st := memstore.New()
	e, err := Open(ctx, Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var names []Name
	for i := range 5 {
		names = append(names, mustName(t, fmt.Sprintf("l%d", i)))
		if _, err := e.Create(ctx, names[i], seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
	}
	w, stopped := e.WatchMarks(), e.WatchMarks()
	w.limit = 3
	stopped.Stop()
	for _, n := range names {
		next(t, e, n)
	}
	quiesce(e)
	nothing := func(Use) {}
	if w.Drain(nothing, func(Name) {}) {
		t.Error("a watch keeping 3 keys of 5 written did not say it fell behind")
	}
	if !w.Drain(nothing, func(Name) {}) {
		t.Error("the watch still fell behind with nothing written since")
	}
	reported := 0
	stopped.Drain(func(Use) { reported++ }, func(Name) { reported++ })
	if reported != 0 {
		t.Errorf("a stopped watch reported %d", reported)
	}
	w.Stop()

	revs := map[string]storage.Rev{}
	st.Load(ctx, func(kv storage.KV) error { revs[kv.Key] = kv.Rev; return nil })
	snap, err := Open(ctx, Config{Store: st, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	sw := snap.WatchMarks()
	defer sw.Stop()
	before := marksOf(snap)
	for range 3 {
		next(t, e, names[1])
	}
	quiesce(e)
	st.Load(ctx, func(kv storage.KV) error {
		if kv.Rev != revs[kv.Key] && !snap.Follow(kv) {
			t.Errorf("the snapshot did not take %s", kv.Key)
		}
		return nil
	})
	now := marksOf(snap)
	if now[names[1].String()].Reserved == before[names[1].String()].Reserved {
		t.Fatal("the owner moved no mark")
	}
	drainAll(t, sw, before, now)
}
