package engine

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage/memstore"
)

// TestAdvanceMeter: the peak is the most added within any RateWindow,
// however the additions fall across seconds.
func TestAdvanceMeter(t *testing.T) {
	var m advanceMeter
	at := func(d time.Duration, n int64) { m.add(int64(d), n) }
	at(0, 100)
	at(5*time.Second, 100)
	at(9900*time.Millisecond, 100)
	if m.peak != 300 {
		t.Fatalf("three additions within 10 s: peak %d, want 300", m.peak)
	}
	at(12*time.Second, 50) // the first has left the window: 250
	if m.peak != 300 {
		t.Fatalf("after the window moved: peak %d, want 300", m.peak)
	}
	at(15*time.Second, 120) // 100 (9.9 s) + 50 + 120 = 270; the one at 5 s has left
	at(16*time.Second, 40)  // 310
	if m.peak != 310 {
		t.Fatalf("a later, busier window: peak %d, want 310", m.peak)
	}
	at(90*time.Second, 1000)
	if m.peak != 1000 {
		t.Fatalf("after a long pause: peak %d, want 1000", m.peak)
	}
}

// TestRateCountsRefills: the engine's rate counts what its marks advanced
// to hand values out.
func TestRateCountsRefills(t *testing.T) {
	var now atomic.Int64 // read by the engine's writer goroutine
	e, err := Open(ctx, Config{Store: memstore.New(), Now: func() time.Duration { return time.Duration(now.Load()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	n := mustName(t, "r")
	c := int64(1)
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: &c}, false); err != nil {
		t.Fatal(err)
	}
	for range 40 {
		next(t, e, n)
	}
	now.Store(int64(3 * time.Second))
	r := e.Rate()
	if r.Peak != 40 || r.Observed != 3*time.Second {
		t.Fatalf("after 40 values of a CACHE 1 sequence: %+v", r)
	}
}
