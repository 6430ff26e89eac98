package frontend

import (
	"sync"
	"testing"
	"time"
)

// TestSweep: every member is visited, without the set's lock held (a
// visit may take it, to remove itself), and Sweep returns once quit is
// closed.
func TestSweep(t *testing.T) {
	var mu sync.Mutex
	set := map[int]struct{}{1: {}, 2: {}, 3: {}}
	quit := make(chan struct{})
	visited := make(chan int, 3)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Sweep(time.Millisecond, quit, &mu, set, func(k int) {
			mu.Lock()
			delete(set, k)
			mu.Unlock()
			visited <- k
		})
	}()
	seen := map[int]bool{}
	for len(seen) < 3 {
		seen[<-visited] = true
	}
	close(quit)
	<-done
	if len(set) != 0 {
		t.Fatalf("left after the sweep: %v", set)
	}
}
