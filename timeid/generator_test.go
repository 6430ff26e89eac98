package timeid

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memMark is a Mark in memory that can be made to fail or to wait.
type memMark struct {
	mu    sync.Mutex
	saved int64
	saves int
	fail  error
	gate  chan struct{} // nil: saves return at once
}

func (m *memMark) Save(ctx context.Context, unit int64) error {
	m.mu.Lock()
	gate, fail := m.gate, m.fail
	m.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if fail != nil {
		return fail
	}
	if unit <= m.saved {
		return fmt.Errorf("mark %d saved after %d", unit, m.saved) // saves land in order
	}
	m.saved, m.saves = unit, m.saves+1
	return nil
}

func (m *memMark) get() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.saved
}

// stepClock is a clock the test sets.
type stepClock struct{ ns atomic.Int64 }

func (c *stepClock) now() time.Time { return time.Unix(0, c.ns.Load()) }

// TestGeneratorConcurrent: eight goroutines take ids while the clock
// advances and steps back; ids are distinct, increasing per goroutine,
// and none is above the mark saved when it was returned (the test reads
// the mark after each Take: a later read is never lower).
func TestGeneratorConcurrent(t *testing.T) {
	clock := &stepClock{}
	clock.ns.Store(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).UnixNano())
	mark := &memMark{}
	x, err := NewGenerator(Config{Layout: Layout{CounterBits: 4, TimeBits: 41, NodeBits: 2}, Node: 3, Window: 5 * time.Millisecond}, clock.now, mark, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	l := x.g.Layout()
	var wg sync.WaitGroup
	seen := make([][]int64, 8)
	for w := range seen {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				first, n, err := x.Take(context.Background(), 3)
				if err != nil {
					t.Error(err)
					return
				}
				if u := (first + n - 1) >> (l.NodeBits + l.CounterBits); u > mark.get() {
					t.Errorf("an id of unit %d returned above the mark %d", u, mark.get())
				}
				for k := range n {
					seen[w] = append(seen[w], first+k)
				}
			}
		}()
	}
	for i := range 500 {
		if i%50 == 49 {
			clock.ns.Add(-int64(3 * time.Millisecond))
		} else {
			clock.ns.Add(int64(100 * time.Microsecond))
		}
		time.Sleep(10 * time.Microsecond)
	}
	wg.Wait()
	all := map[int64]bool{}
	for w, ids := range seen {
		for i, id := range ids {
			if all[id] {
				t.Fatalf("id %d twice", id)
			}
			all[id] = true
			if i > 0 && id <= ids[i-1] {
				t.Fatalf("goroutine %d: %d after %d", w, id, ids[i-1])
			}
			if _, node, _ := l.Decode(id); node != 3 {
				t.Fatalf("id %d decodes to node %d", id, node)
			}
		}
	}
	mark.mu.Lock()
	saves := mark.saves
	mark.mu.Unlock()
	if saves < 2 {
		t.Fatalf("%d saves of the mark", saves)
	}
}

// TestGeneratorSaveFails: a Take that needs a save which fails returns
// the save's error, not an id; once saves succeed again, ids resume above
// every earlier one.
func TestGeneratorSaveFails(t *testing.T) {
	clock := &stepClock{}
	clock.ns.Store(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).UnixNano())
	broken := errors.New("store down")
	mark := &memMark{fail: broken}
	x, err := NewGenerator(Config{}, clock.now, mark, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, _, err := x.Take(context.Background(), 1); !errors.Is(err, broken) {
		t.Fatalf("Take with the mark unsaved: %v", err)
	}
	mark.mu.Lock()
	mark.fail, mark.gate = nil, make(chan struct{})
	gate := mark.gate
	mark.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := x.Take(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Take waiting for a save held: %v", err)
	}
	close(gate)
	first, n, err := x.Take(context.Background(), 1)
	if err != nil || n != 1 {
		t.Fatalf("after the save: %d %d %v", first, n, err)
	}
	x.Close()
	if _, _, err := x.Take(context.Background(), 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// A Generator of Twitter's layout for node 7, on a clock that reads
// noon: the first id, and what it decodes to.
func ExampleGenerator() {
	noon := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	mark := &memMark{}
	x, _ := NewGenerator(Config{Node: 7}, func() time.Time { return noon }, mark, -1)
	defer x.Close()
	id, _, _ := x.Take(context.Background(), 1)
	at, node, counter := Twitter.Decode(id)
	fmt.Println(id, at, node, counter)
	// Output: 2126647290885074944 2026-11-28 12:00:00 +0000 UTC 7 0
}
