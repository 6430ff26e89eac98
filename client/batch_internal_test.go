package client

import (
	"context"
	"sync"
	"testing"
	"time"
)

// memSource is an in-memory Source: one counter per sequence.
type memSource struct {
	mu    sync.Mutex
	next  map[string]int64
	asked []int64 // sizes asked for, in order
}

func (m *memSource) Create(_ context.Context, name string, start int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next == nil {
		m.next = map[string]int64{}
	}
	if _, ok := m.next[name]; !ok {
		m.next[name] = start
	}
	return nil
}

func (m *memSource) Reserve(_ context.Context, name string, n int64) (Range, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.next[name]
	if !ok {
		return Range{}, wrap(ErrNotFound, "reserve", name, nil)
	}
	m.next[name] = v + n
	m.asked = append(m.asked, n)
	return Range{First: v, Last: v + n - 1, Step: 1}, nil
}

func (m *memSource) Release(_ context.Context, name string, r Range) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next[name] != r.Last+1 {
		return false, nil
	}
	m.next[name] = r.First
	return true, nil
}

// TestDynamicStep: Leaf's dynamic step. Ranges used up faster than the
// target double the size up to MaxSize; ranges that last more than twice
// the target halve it down to MinSize; in between it stays.
func TestDynamicStep(t *testing.T) {
	ctx := context.Background()
	src := &memSource{}
	src.Create(ctx, "s", 1)
	now := time.Unix(0, 0)
	g := NewBatch(src, "s", BatchOptions{Size: 10, MinSize: 5, MaxSize: 40, Target: time.Minute,
		Now: func() time.Time { return now }})
	// takeRange uses up the current range, spending d on it, and takes
	// the first value of the next one.
	takeRange := func(d time.Duration) {
		t.Helper()
		left := g.Stats().Reserved - g.Stats().Issued
		for range left {
			if _, err := g.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
		now = now.Add(d)
		if _, err := g.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := g.Next(ctx); err != nil {
		t.Fatal(err)
	}
	for _, d := range []time.Duration{
		time.Second, time.Second, time.Second, // fast: 20, 40, 40 (capped)
		90 * time.Second,                                  // within [target, 2*target]: 40
		5 * time.Minute, 5 * time.Minute, 5 * time.Minute, // slow: 20, 10, 5
		5 * time.Minute, // floor: 5
	} {
		takeRange(d)
	}
	want := []int64{10, 20, 40, 40, 40, 20, 10, 5, 5}
	if len(src.asked) != len(want) {
		t.Fatalf("asked for %v, want %v", src.asked, want)
	}
	for i := range want {
		if src.asked[i] != want[i] {
			t.Fatalf("asked for %v, want %v", src.asked, want)
		}
	}
	if g.Stats().Size != 5 {
		t.Fatalf("Stats().Size = %d, want 5", g.Stats().Size)
	}
}

// TestBackgroundFailure: an AsyncBatch whose background reservation fails
// hands out the rest of its range, then reports the failure once, then
// tries again.
func TestBackgroundFailure(t *testing.T) {
	ctx := context.Background()
	src := &memSource{}
	src.Create(ctx, "s", 1)
	g := NewAsyncBatch(src, "s", BatchOptions{Size: 4, LowWatermark: 2})
	for want := int64(1); want <= 2; want++ {
		if v, err := g.Next(ctx); err != nil || v != want {
			t.Fatalf("Next = %d, %v; want %d", v, err, want)
		}
	}
	// The third value crosses the watermark; make that reservation fail.
	src.mu.Lock()
	delete(src.next, "s")
	src.mu.Unlock()
	for want := int64(3); want <= 4; want++ {
		if v, err := g.Next(ctx); err != nil || v != want {
			t.Fatalf("Next = %d, %v; want %d", v, err, want)
		}
	}
	// Wait for the background reservation to end.
	for g.Stats().Fetches < 2 || func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.fetching != nil }() {
		time.Sleep(time.Millisecond)
	}
	if _, err := g.Next(ctx); err == nil {
		t.Fatal("the failed reservation was not reported")
	}
	src.Create(ctx, "s", 100)
	if v, err := g.Next(ctx); err != nil || v != 100 {
		t.Fatalf("after the source recovered: %d, %v; want 100", v, err)
	}
	g.Close(ctx)
	if st := g.Stats(); st.Released != 3 || st.Issued != 5 {
		t.Fatalf("stats %+v, want 5 issued and 3 released", st)
	}
}

// BenchmarkAsyncBatchNext is Next's cost when the range is in memory,
// over an in-memory source (the seqd-backed figure is in the benchmarks
// of the client_test package).
func BenchmarkAsyncBatchNext(b *testing.B) {
	ctx := context.Background()
	src := &memSource{}
	src.Create(ctx, "s", 1)
	g := NewAsyncBatch(src, "s", BatchOptions{Size: 1 << 20})
	for b.Loop() {
		if _, err := g.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
