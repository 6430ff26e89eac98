package engine

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

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

// slowStore makes every commit take d, as a slow fsync does.
type slowStore struct {
	storage.Store
	d time.Duration
}

func (s *slowStore) Commit(ctx context.Context, tok storage.Token, ops []storage.Op) (storage.Rev, error) {
	time.Sleep(s.d)
	return s.Store.Commit(ctx, tok, ops)
}

// TestLingerOneGroup: callers of a NO CACHE sequence, each calling again
// as soon as it has its value, are served by commits that carry all of
// them (the writer lingers for the callers the last commit served), not
// by commits that alternate between two halves of them; and a caller
// that does not come back holds the others at most one linger.
func TestLingerOneGroup(t *testing.T) {
	defer func(d time.Duration) { maxLinger = d }(maxLinger)
	// A linger is bounded by the last commit's length (the store's
	// 50 ms) too; a second is never reached.
	maxLinger = time.Second
	e, n := openLingering(t, 50*time.Millisecond, seqmath.Spec{})
	const callers, calls = 8, 10
	before := e.Stats()
	var mu sync.Mutex
	got := map[int64]bool{}
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for range calls {
				_, v, err := e.Nextval(ctx, n)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got[v] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	after := e.Stats()
	if len(got) != callers*calls {
		t.Fatalf("%d distinct values of %d calls", len(got), callers*calls)
	}
	commits := after.Commits - before.Commits
	lingers, expired := after.Lingers-before.Lingers, after.LingersExpired-before.LingersExpired
	t.Logf("%d values in %d commits, %d lingers (%v), %d of them expired", callers*calls, commits, lingers, after.Lingered-before.Lingered, expired)
	// One commit per round of the 8 callers, and a few more as they
	// start and finish out of step; two halves taking turns would make
	// 20.
	if commits > calls+4 {
		t.Fatalf("%d values took %d commits; one per round of callers is %d", callers*calls, commits, calls)
	}
	if lingers == 0 {
		t.Fatal("the writer never lingered")
	}
	// A linger ends as the last caller expected comes back (it nudges
	// the writer), not at its bound: only as the callers finish out of
	// step does one wait for a caller that is gone.
	if expired > 2 {
		t.Fatalf("%d of %d lingers waited out their bound", expired, lingers)
	}
	// The callers are gone: the next call's commit lingers at most once.
	if _, _, err := e.Nextval(ctx, n); err != nil {
		t.Fatal(err)
	}
}

// TestLingerNotForRanges: a caller of a range waits for its values as
// a round of nextval callers does, but its demand counts values, not
// callers: the writer holds no commit for it (each reservation would
// otherwise wait out the linger's bound for callers that do not exist).
// openLingering opens an engine over a store whose commits take d, with
// a sequence "s" of spec, closed when the test ends.
func openLingering(t *testing.T, d time.Duration, spec seqmath.Spec) (*Engine, Name) {
	t.Helper()
	st, err := embedded.Open("db", embedded.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, Config{Store: &slowStore{Store: st, d: d}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	n := mustName(t, "s")
	if _, err := e.Create(ctx, n, spec, false); err != nil {
		t.Fatal(err)
	}
	return e, n
}

func TestLingerNotForRanges(t *testing.T) {
	defer func(d time.Duration) { maxLinger = d }(maxLinger)
	maxLinger = time.Second
	cache := int64(100)
	e, n := openLingering(t, 20*time.Millisecond, seqmath.Spec{Cache: &cache})
	for i := range 6 {
		if _, _, err := e.Reserve(ctx, n, 1000); err != nil {
			t.Fatalf("reservation %d: %v", i, err)
		}
	}
	if st := e.Stats(); st.Lingers != 0 {
		t.Fatalf("%d lingers (%v) for a caller of ranges alone", st.Lingers, st.Lingered)
	}
}
