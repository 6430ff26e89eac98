package engine

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/timeid"
)

// TestTimeIDsLives takes PD's timestamps and UUIDv7's ids through lives
// ended by crashes that lose a random part of the unsynced writes, on a
// clock that steps back within and past MaxBehind (also across
// restarts): every id is above every id before it, a whole batch is n
// consecutive ids in one millisecond, and only a clock more than
// MaxBehind behind the ids (after a crash: behind the mark) is refused.
func TestTimeIDsLives(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	wall := newWall()
	fs := vfs.NewCrashableMem()
	e := openWall(t, fs, wall, 0)
	last := map[TimeGen]int64{}
	// mattered counts lives that began on a clock behind the ids before
	// them: only the durable mark kept their ids above.
	refused, mattered := 0, 0
	// The clock reads true time (moving on 0-20 ms an op) plus a step
	// back that comes and goes.
	var offset time.Duration
	step := func(d time.Duration) { wall.add(d - offset); offset = d }
	for life := range 30 {
		for range 300 {
			wall.add(time.Duration(rng.Int64N(int64(20 * time.Millisecond))))
			switch rng.IntN(16) {
			case 0:
				step(-time.Duration(rng.Int64N(int64(14 * time.Second))))
			case 1, 2:
				step(0)
			}
			g := []TimeGen{TSO, UUIDv7}[rng.IntN(2)]
			l, _ := g.layout()
			n := 1 + rng.Int64N(l.MaxCounter()/4)
			before := l.Units(wall.now())
			first, count, err := e.TimeIDs(ctx, g, n, true)
			if err != nil {
				if !errors.Is(err, timeid.ErrClockBehind) {
					t.Fatalf("life %d: %s: %v", life, g, err)
				}
				refused++
				continue
			}
			if count != n || first>>l.CounterBits != (first+n-1)>>l.CounterBits || first <= last[g] {
				t.Fatalf("life %d: %s: %d ids from %d (unit %d to %d), after %d", life, g, count, first, first>>l.CounterBits, (first+n-1)>>l.CounterBits, last[g])
			}
			if first>>l.CounterBits < before {
				t.Fatalf("life %d: %s: id of unit %d behind the clock's %d", life, g, first>>l.CounterBits, before)
			}
			last[g] = first + n - 1
		}
		clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(uint64(life), 9))})
		e.Close()
		fs = clone
		if rng.IntN(2) == 0 {
			step(-time.Duration(rng.Int64N(int64(8 * time.Second))))
		}
		if l := timeid.TSO; l.Units(wall.now()) < last[TSO]>>l.CounterBits {
			mattered++
		}
		e = openWall(t, fs, wall, 0)
	}
	e.Close()
	if refused == 0 || refused > 30*300/2 || mattered < 5 {
		t.Fatalf("%d refused, %d lives began behind the ids: the steps back did not test the bound or the mark", refused, mattered)
	}
	if _, _, err := e.TimeIDs(ctx, TSO, 1, true); err == nil {
		t.Fatal("TimeIDs after Close succeeded")
	}
}

// TestTimeIDsBatchLimits: a whole batch holds at most a unit's counters.
func TestTimeIDsBatchLimits(t *testing.T) {
	wall := newWall()
	e := openWall(t, vfs.NewCrashableMem(), wall, 0)
	defer e.Close()
	for _, n := range []int64{0, 1<<18 + 1} {
		if _, _, err := e.TimeIDs(ctx, TSO, n, true); err == nil {
			t.Errorf("a batch of %d accepted", n)
		}
	}
	if _, _, err := e.TimeIDs(ctx, "nope", 1, true); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown generator: %v", err)
	}
	first, count, err := e.TimeIDs(ctx, TSO, 1<<18, true)
	if err != nil || count != 1<<18 || first&(1<<18-1) != 0 {
		t.Fatalf("a whole millisecond: %d from %d, %v", count, first, err)
	}
}
