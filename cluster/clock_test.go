package cluster

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage/etcdstore"
)

// suspendableClock is SystemClock, moved ahead by the test as a machine
// suspended and resumed would move CLOCK_BOOTTIME: Go's timers and its
// monotonic clock do not see the jump.
type suspendableClock struct{ suspended atomic.Int64 }

func (c *suspendableClock) Now() time.Duration {
	return SystemClock.Now() + time.Duration(c.suspended.Load())
}

func (c *suspendableClock) suspend(d time.Duration) { c.suspended.Add(int64(d)) }

// TestSuspendedLeader: a leader whose machine was suspended for longer
// than its lease takes itself for the leader no longer from the moment
// it resumes, though etcd has not yet expired its lease (no real time
// passed here): its engine refuses at once (ErrDeposed, no value from its
// window), and its term ends within a poll of the clock.
func TestSuspendedLeader(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	cli := cl.Client(t)
	prefix := freshPrefix()
	ctx := context.Background()
	clock := &suspendableClock{}
	term, err := Campaign(ctx, Config{Client: cli, Prefix: prefix, Name: "a", TTL: 5 * time.Second, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Resign(ctx)
	e, err := engine.Open(ctx, engine.Config{Store: openStore(t, cli, prefix, term.Token), MaxBatch: etcdstore.MaxOps, Leadership: term.Valid})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	n, _ := engine.NewName("public", "ids")
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: ptr(int64(1000))}, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Nextval(ctx, n); err != nil {
		t.Fatal(err)
	}
	if !term.Valid() {
		t.Fatal("the term is not valid before the suspension")
	}

	clock.suspend(6 * time.Second)
	if term.Valid() {
		t.Fatal("the term is valid after a suspension longer than its lease")
	}
	if _, v, err := e.Nextval(ctx, n); !errors.Is(err, engine.ErrDeposed) {
		t.Fatalf("nextval after the suspension: %d, %v; want ErrDeposed", v, err)
	}
	select {
	case <-term.Done():
		if !errors.Is(term.Err(), ErrLeaseLost) {
			t.Fatalf("the term ended with %v, want ErrLeaseLost", term.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the term did not end after the suspension")
	}
	// etcd still holds the key: only the node's count of time ended it.
	if name, tok, err := Leader(ctx, cli, prefix); err != nil || name != "a" || tok != term.Token {
		t.Fatalf("Leader() after the suspension: %q %d %v; want etcd's lease still alive", name, tok, err)
	}
}

// TestSystemClock: the system clock counts on as Go's monotonic clock
// does while nothing is suspended, and never goes back. Each reading of
// it is taken between two of the monotonic clock, so that the check
// holds however the test is scheduled.
func TestSystemClock(t *testing.T) {
	before0 := time.Now()
	c0 := SystemClock.Now()
	after0 := time.Now()
	last := c0
	for range 1000 {
		now := SystemClock.Now()
		if now < last {
			t.Fatalf("the clock went back: %v after %v", now, last)
		}
		last = now
	}
	time.Sleep(200 * time.Millisecond)
	before1 := time.Now()
	c1 := SystemClock.Now()
	after1 := time.Now()
	const slack = 5 * time.Millisecond // the clocks' granularity and rates
	if low, high, got := before1.Sub(after0), after1.Sub(before0), c1-c0; got < low-slack || got > high+slack {
		t.Fatalf("the system clock counted %v while the monotonic clock counted between %v and %v", got, low, high)
	}
}

// TestWallClock: the clock for systems without CLOCK_BOOTTIME counts
// the wall clock's time when it runs ahead (a resume from suspension)
// and never goes back.
func TestWallClock(t *testing.T) {
	c := newWallClock()
	a := c.Now()
	c.wallAt -= int64(10 * time.Second) // as if the wall clock had run 10 s ahead
	if b := c.Now(); b-a < 10*time.Second {
		t.Fatalf("the wall clock ran 10 s ahead; the clock counted %v", b-a)
	}
	c.wallAt += int64(20 * time.Second) // and now stepped back
	if b := c.Now(); b-a < 10*time.Second {
		t.Fatalf("the clock went back with the wall clock: %v", b-a)
	}
}
