package engine

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
)

// TestDiscardWindow: the next value after DiscardWindow is the one after
// the durable mark it found (within CACHE of the last value), beyond
// every value handed out before, concurrent callers included, and stays
// so across a crash right after it; a spent, fresh or CACHE 1 sequence
// keeps its next value.
func TestDiscardWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for it := range 40 {
		fs := vfs.NewCrashableMem()
		e := openFS(t, fs)
		cache := []int64{1, 2, 17, 1000}[rng.IntN(4)]
		inc := []int64{1, -1, 7, -300}[rng.IntN(4)]
		n := mustName(t, "s")
		if _, err := e.Create(ctx, n, seqmath.Spec{Cache: &cache, Increment: &inc}, false); err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		var mu sync.Mutex
		take := func(k int) {
			var wg sync.WaitGroup
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range k {
						v := next(t, e, n)
						mu.Lock()
						if seen[v] {
							t.Errorf("iteration %d: %d handed out twice", it, v)
						}
						seen[v] = true
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
		}
		take(1 + rng.IntN(50))
		before, _ := e.Info(n)
		mark, _ := e.seqs.get(n.key).opts.Advance(before.State, before.Window)
		done := make(chan struct{})
		go func() { take(5); close(done) }() // concurrent with the discard
		if err := e.DiscardWindow(ctx, n); err != nil {
			t.Fatal(err)
		}
		<-done
		mu.Lock()
		var last int64
		for v := range seen {
			if last == 0 || (v-last)*inc > 0 {
				last = v
			}
		}
		mu.Unlock()
		clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(uint64(it), 3))})
		v := next(t, e, n)
		if (v-last)*inc <= 0 || seen[v] {
			t.Fatalf("iteration %d: last %d, after the discard %d", it, last, v)
		}
		if (v-mark.Last)*inc <= 0 {
			t.Fatalf("iteration %d: mark %d, after the discard %d", it, mark.Last, v)
		}
		if skipped := (v-last)/inc - 1; skipped > cache+20 {
			t.Fatalf("iteration %d: skipped %d values (cache %d, window %d)", it, skipped, cache, before.Window)
		}
		e.Close()
		e = openFS(t, clone)
		if w := next(t, e, n); (w-last)*inc <= 0 || seen[w] {
			t.Fatalf("iteration %d: last %d, after a crash %d", it, last, w)
		}
		e.Close()
	}
}

// TestDiscardWindowKeeps: a fresh sequence keeps its start, a spent one
// stays spent, a CACHE 1 one continues with its next value.
func TestDiscardWindowKeeps(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	n := mustName(t, "s")
	one, maxv := int64(1), int64(3)
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: &one, Max: &maxv}, false); err != nil {
		t.Fatal(err)
	}
	if err := e.DiscardWindow(ctx, n); err != nil {
		t.Fatal(err)
	}
	for want := int64(1); want <= 3; want++ {
		if v := next(t, e, n); v != want {
			t.Fatalf("got %d, want %d", v, want)
		}
		if err := e.DiscardWindow(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := e.Nextval(ctx, n); err == nil {
		t.Fatal("a spent sequence handed out a value after the discard")
	}
}

// TestDiscardWindowExact: with nothing in flight the next value is the
// mark's successor exactly.
func TestDiscardWindowExact(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	n := mustName(t, "s")
	cache := int64(1000)
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: &cache}, false); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		next(t, e, n)
	}
	quiesce(e)
	info, _ := e.Info(n)
	mark, _ := info.Options.Advance(info.State, info.Window)
	if err := e.DiscardWindow(ctx, n); err != nil {
		t.Fatal(err)
	}
	if v := next(t, e, n); v != mark.Last+1 {
		t.Fatalf("after 1..3 with the mark at %d: %d", mark.Last, v)
	}
}
