package engine

import (
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
)

// TestCarveExactPosition: values handed out from a carve (nextval without
// the lock) leave the sequence exactly where the last one was, for Info,
// setval, ALTER, a release of the last value, and a clean close.
func TestCarveExactPosition(t *testing.T) {
	fs := vfs.NewMem()
	e := openFS(t, fs)
	n := mustName(t, "c")
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: i64(1000)}, false); err != nil {
		t.Fatal(err)
	}
	for want := int64(1); want <= 10; want++ {
		if v := next(t, e, n); v != want {
			t.Fatalf("nextval %d, want %d", v, want)
		}
	}
	if s := e.seqs.get(n.key); s.carved.Load() == nil {
		t.Fatal("no carve after ten nextval calls with CACHE 1000")
	}
	info, err := e.Info(n)
	if err != nil || info.State != (seqmath.State{Last: 10, Called: true}) {
		t.Fatalf("Info with a carve: %+v, %v", info.State, err)
	}
	// The last value handed out can be given back.
	if k, err := e.Release(n, 10, 10); err != nil || k != 1 {
		t.Fatalf("release of the last nextval: %d, %v", k, err)
	}
	if v := next(t, e, n); v != 10 {
		t.Fatalf("after the release: %d, want 10", v)
	}
	if _, err := e.Setval(ctx, n, 100, true); err != nil {
		t.Fatal(err)
	}
	if v := next(t, e, n); v != 101 {
		t.Fatalf("after setval 100: %d", v)
	}
	next(t, e, n)
	if err := e.Alter(ctx, n, seqmath.Spec{Increment: i64(10)}); err != nil {
		t.Fatal(err)
	}
	if v := next(t, e, n); v != 112 {
		t.Fatalf("after ALTER INCREMENT 10: %d, want 112", v)
	}
	next(t, e, n)
	e.Close()
	e = openFS(t, fs)
	defer e.Close()
	if v := next(t, e, n); v != 132 {
		t.Fatalf("after a clean close: %d, want 132 (nothing skipped)", v)
	}
}

// TestCarveConcurrent: goroutines taking values from carves and the locked
// path at once, with ranges, setval and releases among them: every value
// once, each goroutine's in increasing order.
func TestCarveConcurrent(t *testing.T) {
	e := openFS(t, vfs.NewMem())
	defer e.Close()
	n := mustName(t, "cc")
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: i64(500)}, false); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[int64]bool{}
	add := func(vs ...int64) {
		mu.Lock()
		defer mu.Unlock()
		for _, v := range vs {
			if seen[v] {
				t.Errorf("%d twice", v)
			}
			seen[v] = true
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev int64
			for i := range 3000 {
				switch {
				case g == 0 && i%500 == 499:
					if _, r, err := e.Reserve(ctx, n, 7); err != nil {
						t.Error(err)
					} else {
						vs := make([]int64, r.Count)
						for j := range r.Count {
							vs[j] = r.At(j)
						}
						add(vs...)
					}
				default:
					_, v, err := e.Nextval(ctx, n)
					if err != nil {
						t.Error(err)
						return
					}
					if v <= prev {
						t.Errorf("goroutine %d: %d after %d", g, v, prev)
					}
					prev = v
					add(v)
				}
			}
		}()
	}
	wg.Wait()
	info, _ := e.Info(n)
	var top int64
	for v := range seen {
		top = max(top, v)
	}
	if info.State.Last != top {
		t.Fatalf("the sequence stands at %d, the largest value handed out is %d", info.State.Last, top)
	}
}
