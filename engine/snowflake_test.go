package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage/embedded"
	"github.com/seqd/seqd/storage/memstore"
	"github.com/seqd/seqd/timeid"
)

// fakeWall is a wall clock a test steps: it runs as real time does
// (a generator waiting for the clock to catch up waits in real time),
// from the time the test stores, plus the steps.
type fakeWall struct {
	ns    atomic.Int64
	start time.Time
}

func (c *fakeWall) now() time.Time      { return time.Unix(0, c.ns.Load()).Add(time.Since(c.start)) }
func (c *fakeWall) add(d time.Duration) { c.ns.Add(int64(d)) }

// createSnowflake creates SNOWFLAKE sequence ids, of Twitter's layout.
func createSnowflake(t *testing.T, e *Engine) (Name, seqmath.Shape) {
	t.Helper()
	n := mustName(t, "ids")
	sh, _ := seqmath.NewSnowflake(seqmath.DefaultEpochMicros, 1000, seqmath.DefaultNodeBits, seqmath.DefaultCounterBits)
	if _, err := e.Create(ctx, n, seqmath.Spec{Shape: &sh}, false); err != nil {
		t.Fatal(err)
	}
	return n, sh
}

func newWall() *fakeWall {
	c := &fakeWall{start: time.Now()}
	c.ns.Store(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func openWall(t testing.TB, fs *vfs.MemFS, wall *fakeWall, node int64) *Engine {
	t.Helper()
	st, err := embedded.Open("db", embedded.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, Config{Store: st, WallClock: wall.now, NodeID: node})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestSnowflakeLives drives a Snowflake sequence through lives on a
// clock that steps back and forth, each life ended by a crash that loses
// a random part of the unsynced writes or by a clean shutdown, each on
// another node, and checks every id: above all
// before it (across lives too), with this life's node, never behind the
// clock, at most MaxBehind ahead of it; a refusal only when the clock is
// more than MaxBehind behind the last id (after a crash: behind the mark
// the ids resume above).
func TestSnowflakeLives(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	wall := newWall()
	fs := vfs.NewCrashableMem()
	e := openWall(t, fs, wall, 1)
	n, sh := createSnowflake(t, e)
	l := sh.Layout()
	var last int64
	var offset time.Duration
	step := func(d time.Duration) { wall.add(d - offset); offset = d }
	// mattered counts lives that began on a clock behind the ids before
	// them: only the durable mark kept their ids above.
	refused, mattered, cleanly := 0, 0, 0
	// slack: after a crash ids resume above the mark, which ran up to a
	// Window (and a unit) ahead of the last id.
	slack := int64(0)
	for life := range 40 {
		node := int64(life%3 + 1)
		for range 300 {
			// True time moves on; the clock reads it plus a step back
			// (within and past MaxBehind) that comes and goes.
			wall.add(time.Duration(rng.Int64N(int64(20 * time.Millisecond))))
			switch rng.IntN(20) {
			case 0:
				step(-time.Duration(rng.Int64N(int64(15 * time.Second))))
			case 1, 2:
				step(0)
			case 3:
				wall.add(time.Duration(rng.Int64N(int64(time.Hour))))
			}
			count := int64(1)
			if rng.IntN(4) == 0 {
				count = rng.Int64N(20000) + 1 // above a unit's 4,096: borrows ahead
			}
			before := l.Units(wall.now())
			first, got, err := takeIDs(e, n, count)
			now := l.Units(wall.now())
			if err != nil {
				if !errors.Is(err, timeid.ErrClockBehind) {
					t.Fatalf("life %d: %v", life, err)
				}
				if lastUnit := last >> (l.NodeBits + l.CounterBits); lastUnit+slack-before <= int64(timeid.DefaultMaxBehind/l.Unit) {
					t.Fatalf("life %d: refused with the clock %d units behind the last id: %v", life, lastUnit-now, err)
				}
				refused++
				continue
			}
			for i := range got {
				id := first(i)
				unit, idNode := id>>(l.NodeBits+l.CounterBits), id>>l.CounterBits&l.MaxNode()
				if id <= last || idNode != node || unit < before || unit-now > int64(timeid.DefaultMaxBehind/l.Unit)+1+got>>l.CounterBits {
					t.Fatalf("life %d: id %d (unit %d, node %d) after %d, clock unit %d, node %d", life, id, unit, idNode, last, now, node)
				}
				last = id
			}
			slack = 0
		}
		if rng.IntN(3) == 0 {
			// A clean shutdown writes the exact position: the next life,
			// of another node, must still start on a unit of its own.
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			cleanly++
		} else {
			clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(uint64(life), 5))})
			e.Close()
			fs = clone
		}
		if rng.IntN(2) == 0 {
			step(-time.Duration(rng.Int64N(int64(12 * time.Second)))) // a restart into a clock that went back
		}
		if l.Units(wall.now()) < last>>(l.NodeBits+l.CounterBits) {
			mattered++
		}
		e = openWall(t, fs, wall, int64((life+1)%3+1))
		slack = int64(timeid.DefaultWindow/l.Unit) + 1
	}
	e.Close()
	if refused == 0 || mattered < 5 || cleanly < 5 {
		t.Fatalf("%d refused, %d lives began behind the ids, %d after a clean shutdown: the steps back did not test the bound or the mark", refused, mattered, cleanly)
	}
}

// takeIDs takes count ids, one nextval each or as one reservation.
func takeIDs(e *Engine, n Name, count int64) (func(int64) int64, int64, error) {
	if count == 1 {
		_, v, err := e.Nextval(ctx, n)
		return func(int64) int64 { return v }, 1, err
	}
	_, r, err := e.Reserve(ctx, n, count)
	return func(i int64) int64 { v, _ := r.Value(i); return v }, r.Count, err
}

// TestSnowflakeMovePast: a restore moves a Snowflake sequence above every
// id the original could have handed out (MaxBehind ahead of its clock),
// whatever the bound in values, and ids resume once the clock has moved
// on a unit.
func TestSnowflakeMovePast(t *testing.T) {
	wall := newWall()
	e := openWall(t, vfs.NewCrashableMem(), wall, 0)
	defer e.Close()
	n, sh := createSnowflake(t, e)
	next(t, e, n)
	wall.add(-9 * time.Second) // the original's ids run 9 s ahead of the clock
	last := next(t, e, n)
	if _, err := e.MovePast(ctx, 1); err != nil {
		t.Fatal(err)
	}
	info, err := e.Info(n)
	if err != nil {
		t.Fatal(err)
	}
	l := sh.Layout()
	if got, want := sh.UnitOf(info.State.Last), l.Units(wall.now())+int64(timeid.DefaultMaxBehind/l.Unit)-100; got < want {
		t.Fatalf("moved to unit %d, want at least %d (MaxBehind ahead of the clock)", got, want)
	}
	wall.add(-time.Second) // the move is MaxBehind ahead of the clock: a second back is past it
	if _, _, err := e.Nextval(ctx, n); !errors.Is(err, timeid.ErrClockBehind) {
		t.Fatalf("nextval after the move, the clock a second back: %v, want ErrClockBehind", err)
	}
	wall.add(time.Second + 2*time.Millisecond)
	if v := next(t, e, n); v <= last {
		t.Fatalf("after the move: %d, not above %d", v, last)
	}
}

// TestSnowflakeJumpMark: after the clock jumps ahead, callers waiting
// together for the mark move it a Window past the clock, not a jump per
// caller (which a crash would then turn into ids hours ahead of the
// clock, refused for hours).
func TestSnowflakeJumpMark(t *testing.T) {
	wall := newWall()
	e := openWall(t, vfs.NewCrashableMem(), wall, 0)
	defer e.Close()
	n, sh := createSnowflake(t, e)
	next(t, e, n)
	l := sh.Layout()
	for range 5 {
		wall.add(2 * time.Hour)
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() { defer wg.Done(); next(t, e, n) }()
		}
		wg.Wait()
		quiesce(e)
		info, err := e.Info(n)
		if err != nil {
			t.Fatal(err)
		}
		mark, _ := info.Options.Advance(info.State, info.Window)
		if ahead := time.Duration(sh.UnitOf(mark.Last)-l.Units(wall.now())) * l.Unit; ahead > timeid.DefaultWindow+time.Second {
			t.Fatalf("the mark is %v ahead of the clock", ahead)
		}
	}
}

// TestSnowflakeInfoNode: a sequence's description maps its position to
// the id this node handed out, node part included.
func TestSnowflakeInfoNode(t *testing.T) {
	e := openWall(t, vfs.NewCrashableMem(), newWall(), 5)
	defer e.Close()
	n, _ := createSnowflake(t, e)
	v := next(t, e, n)
	info, err := e.Info(n)
	if err != nil {
		t.Fatal(err)
	}
	listed := e.List()
	if got := info.Options.Value(info.State.Last); got != v || len(listed) != 1 || listed[0].Options.Value(listed[0].State.Last) != v {
		t.Fatalf("Info maps its position to %d, List to %d; nextval gave %d", got, listed[0].Options.Value(listed[0].State.Last), v)
	}
}

// TestSnowflakeEpochAhead: a clock before the epoch (EPOCH in the
// future) puts the first id thousands of years ahead of it: refused,
// not handed out (a duration's overflow once let it through).
func TestSnowflakeEpochAhead(t *testing.T) {
	e := openWall(t, vfs.NewCrashableMem(), newWall(), 0)
	defer e.Close()
	n := mustName(t, "later")
	sh, _ := seqmath.NewSnowflake(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).UnixMicro(), 1000, 10, 12)
	if _, err := e.Create(ctx, n, seqmath.Spec{Shape: &sh}, false); err != nil {
		t.Fatal(err)
	}
	if _, v, err := e.Nextval(ctx, n); !errors.Is(err, timeid.ErrClockBehind) {
		t.Fatalf("nextval = %d, %v; want ErrClockBehind", v, err)
	}
	if _, r, err := e.Reserve(ctx, n, MaxReserve); !errors.Is(err, timeid.ErrClockBehind) {
		t.Fatalf("Reserve = %+v, %v; want ErrClockBehind", r, err)
	}
}

// TestSnowflakeClockBehindSaid: ids a second or more ahead of the clock
// (here a clock stepped back 3 s) are told to OnClockBehind once, not at
// every call; within a second they are not told at all.
func TestSnowflakeClockBehindSaid(t *testing.T) {
	wall := newWall()
	st, err := embedded.Open("db", embedded.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	var said []time.Duration
	var mu sync.Mutex
	e, err := Open(ctx, Config{Store: st, WallClock: wall.now, OnClockBehind: func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		said = append(said, d)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	n, _ := createSnowflake(t, e)
	next(t, e, n)
	wall.add(-500 * time.Millisecond)
	next(t, e, n)
	wall.add(-2500 * time.Millisecond)
	for range 100 {
		next(t, e, n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(said) != 1 || said[0] < 2900*time.Millisecond || said[0] > 3100*time.Millisecond {
		t.Errorf("told %v, want once, about 3s", said)
	}
	if b := e.ClockBehind(); b < 2900*time.Millisecond {
		t.Errorf("ClockBehind %v, want about 3s", b)
	}
}

// TestSnowflakePromoteOrder: a leader of another node id that takes over
// a Snowflake sequence from a follower's snapshot starts on a time unit
// of its own, above every id the last leader handed out, whether the
// last leader closed cleanly (its record then holds the exact position,
// inside a unit) or died.
func TestSnowflakePromoteOrder(t *testing.T) {
	for _, clean := range []bool{false, true} {
		t.Run(fmt.Sprintf("clean=%v", clean), func(t *testing.T) {
			wall := newWall()
			st := memstore.New()
			lead := func() bool { return true }
			a, err := Open(ctx, Config{Store: st, Leadership: lead, WallClock: wall.now, NodeID: 1})
			if err != nil {
				t.Fatal(err)
			}
			n, _ := createSnowflake(t, a)
			quiesce(a)
			revs := storeRevs(t, st)
			snap, err := Open(ctx, Config{Store: st, ReadOnly: true, WallClock: wall.now})
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			wall.add(5 * time.Second) // past the mark Create wrote: the owner moves it
			var last int64
			for range 10 {
				last = next(t, a, n)
			}
			quiesce(a)
			if clean {
				if err := a.Close(); err != nil {
					t.Fatal(err)
				}
				st.Reopen()
			}
			followStore(t, st, snap, revs)
			p, err := Promote(ctx, Config{Store: st, Leadership: lead, WallClock: wall.now, NodeID: 0}, snap, func(context.Context) bool { return true })
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if v := next(t, p, n); v <= last {
				t.Fatalf("the last leader (node 1) handed out %d; the new one (node 0) %d", last, v)
			}
			if !clean {
				a.Close()
			}
		})
	}
}

// TestSnowflakeSetvalOwner: after setval(s, v, false) to a value inside
// the time unit the last owner handed ids out in, an owner of a lower
// node id starts on a unit of its own, above them all, as after any
// record inside a unit.
func TestSnowflakeSetvalOwner(t *testing.T) {
	wall := newWall()
	fs := vfs.NewCrashableMem()
	e := openWall(t, fs, wall, 1)
	n, _ := createSnowflake(t, e)
	var last int64
	for range 10 {
		last = next(t, e, n)
	}
	if _, err := e.Setval(ctx, n, last+5, false); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	wall.add(-time.Second) // the new owner's clock behind: only the record places it
	e = openWall(t, fs, wall, 0)
	defer e.Close()
	if v := next(t, e, n); v <= last {
		t.Fatalf("node 1 handed out %d; after setval(%d, false), node 0 %d", last, last+5, v)
	}
}
