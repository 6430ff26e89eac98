package engine

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/embedded"
)

// gatedStore holds every commit until the test opens the gate, so that
// callers pile up behind a commit the way they do behind a slow fsync.
type gatedStore struct {
	storage.Store
	gate    chan struct{}
	entered chan struct{} // receives once per commit that reaches the gate
}

func (g *gatedStore) Commit(ctx context.Context, tok storage.Token, ops []storage.Op) (storage.Rev, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.gate
	return g.Store.Commit(ctx, tok, ops)
}

// TestGroupCommit: NO CACHE values are durable before they are returned,
// yet 64 callers blocked on one sequence share one record write, and
// writes of 64 sequences share one commit.
func TestGroupCommit(t *testing.T) {
	st, err := embedded.Open("db", embedded.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	g := &gatedStore{Store: st, gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	close(g.gate)
	e, err := Open(ctx, Config{Store: g})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	one := mustName(t, "one")
	e.Create(ctx, one, seqmath.Spec{}, false)
	var many []Name
	for i := range 64 {
		n := mustName(t, fmt.Sprintf("m%d", i))
		many = append(many, n)
		e.Create(ctx, n, seqmath.Spec{}, false)
	}
	g.gate = make(chan struct{})
	// Block the writer on a first commit, then queue everything behind it.
	// The writer must be inside that commit before anything else queues,
	// or it would take the blocker and the rest as one batch.
	select {
	case <-g.entered:
	default:
	}
	blocker := mustName(t, "blocker")
	go e.Create(ctx, blocker, seqmath.Spec{}, false)
	<-g.entered

	before := e.Stats()
	var mu sync.Mutex
	got := map[int64]bool{}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, v, err := e.Nextval(ctx, one)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			got[v] = true
			mu.Unlock()
		}()
		go func() {
			defer wg.Done()
			if _, _, err := e.Nextval(ctx, many[i]); err != nil {
				t.Error(err)
			}
		}()
	}
	s, _ := e.lookup(one)
	waitFor(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.demand == 64
	})
	for _, n := range many {
		m, _ := e.lookup(n)
		waitFor(t, func() bool { m.mu.Lock(); defer m.mu.Unlock(); return m.demand == 1 })
	}
	close(g.gate)
	wg.Wait()
	st2 := e.Stats()
	commits, records := st2.Commits-before.Commits, st2.Records-before.Records
	// The blocker's commit, then one commit with 65 records (one per
	// sequence), the one for "one" covering 64 values.
	if commits != 2 || records != 66 {
		t.Fatalf("%d commits with %d records, want 2 with 66", commits, records)
	}
	for v := int64(1); v <= 64; v++ {
		if !got[v] {
			t.Fatalf("values of one: %v", got)
		}
	}
	if info, _ := e.Info(one); info.Window != 0 {
		t.Fatalf("NO CACHE sequence prefetched %d values", info.Window)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 100000 {
		if cond() {
			return
		}
		runtime.Gosched()
	}
	t.Fatal("condition never held")
}
