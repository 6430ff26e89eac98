package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"weak"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage/memstore"
)

// TestNearestSet: the selection kept between scrapes is, after every
// round of random changes, what a pass over every sequence selects (the
// same shares: names may differ between equal ones); it passes over all
// of them only when it must: not while sequences only move up.
func TestNearestSet(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 11))
	const k = 20
	typ := seqmath.Smallint
	var names []engine.Name
	made := 0
	create := func() {
		name, _ := engine.NewName("public", fmt.Sprintf("n%d", made))
		made++
		if _, err := eng.Create(ctx, name, seqmath.Spec{Type: &typ}, false); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	for range 200 {
		create()
	}
	// want is the k largest shares a pass finds.
	want := func() []float64 {
		var all []float64
		eng.EachUse(func(u engine.Use) { all = append(all, u.Reserved/u.Total) })
		slices.Sort(all)
		slices.Reverse(all)
		return all[:min(k, len(all))]
	}
	n := nearestSet{max: k}
	defer n.stop()
	check := func(round int) {
		t.Helper()
		deadline := time.Now().Add(time.Second)
		for {
			var got []float64
			for _, m := range n.update(eng) {
				got = append(got, m.share)
			}
			slices.Sort(got)
			slices.Reverse(got)
			w := want()
			if slices.Equal(got, w) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: selected %v, a pass selects %v", round, got, w)
			}
			// A write is noted just after its sequence applies it.
			time.Sleep(5 * time.Millisecond)
		}
	}
	check(0)
	// Sequences only moving up: no pass after the first.
	for round := range 100 {
		name := names[rng.IntN(len(names))]
		if rng.IntN(2) == 0 {
			eng.Nextval(ctx, name)
		} else if info, err := eng.Info(name); err == nil {
			eng.Setval(ctx, name, min(info.State.Last+int64(rng.IntN(3000)), 32767), true)
		}
		check(round)
	}
	if n.passes != 1 {
		t.Errorf("%d passes over every sequence while they only moved up, want 1", n.passes)
	}
	// Anything: down, dropped, renamed, made.
	for round := range 300 {
		i := rng.IntN(len(names))
		name := names[i]
		switch op := rng.IntN(10); {
		case op < 4:
			eng.Setval(ctx, name, int64(rng.IntN(32767)+1), true)
		case op < 6:
			eng.Nextval(ctx, name)
		case op < 7:
			if err := eng.Drop(ctx, name); err != nil {
				t.Fatal(err)
			}
			names = append(names[:i], names[i+1:]...)
		case op < 8:
			to, _ := engine.NewName("public", fmt.Sprintf("r%d", round))
			if err := eng.Rename(ctx, name, to); err != nil {
				t.Fatal(err)
			}
			names[i] = to
		case op < 9:
			eng.Alter(ctx, name, seqmath.Spec{Restart: true})
		default:
			create()
		}
		check(100 + round)
	}
	t.Logf("%d passes over every sequence in 400 rounds", n.passes)
}

// TestNearestSetFloor: a sequence outside the selection that moves up,
// not enough to enter it, still counts when a member falls below it.
func TestNearestSetFloor(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	typ := seqmath.Smallint
	set := func(rel string, v int64) {
		t.Helper()
		name, _ := engine.NewName("public", rel)
		if _, err := eng.Setval(ctx, name, v, true); err != nil {
			t.Fatal(err)
		}
	}
	for rel, v := range map[string]int64{"a": 16000, "b": 13000, "c": 3000} {
		name, _ := engine.NewName("public", rel)
		if _, err := eng.Create(ctx, name, seqmath.Spec{Type: &typ}, false); err != nil {
			t.Fatal(err)
		}
		set(rel, v)
	}
	n := nearestSet{max: 2}
	defer n.stop()
	selected := func() []string {
		var got []string
		deadline := time.Now().Add(time.Second)
		for {
			got = got[:0]
			for _, m := range n.update(eng) {
				got = append(got, m.use.Name().Rel())
			}
			slices.Sort(got)
			if len(got) == 2 && got[1] != "b" || time.Now().After(deadline) {
				return got
			}
			time.Sleep(5 * time.Millisecond) // until c's write and b's are seen
		}
	}
	n.update(eng)
	set("c", 10000) // below b: stays out
	n.update(eng)
	set("b", 6000) // below c now
	if got := selected(); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("selected %v, want [a c]", got)
	}
}

// TestNearestSetLetsGo: a selection kept after its engine was replaced
// (a follower's new snapshot) and never updated again (its scraper gone)
// does not keep the engine in memory.
func TestNearestSetLetsGo(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Config{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	name, _ := engine.NewName("public", "a")
	if _, err := eng.Create(ctx, name, seqmath.Spec{}, false); err != nil {
		t.Fatal(err)
	}
	n := nearestSet{max: 10}
	if len(n.update(eng)) != 1 {
		t.Fatal("the selection misses the one sequence")
	}
	gone := weak.Make(eng)
	eng.Close()
	eng = nil
	for i := 0; i < 10 && gone.Value() != nil; i++ {
		runtime.GC()
	}
	if gone.Value() != nil {
		t.Fatal("the selection keeps its engine in memory")
	}
	n.stop()
}
