package server

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/seqmath"
)

// TestExhaustionWatch: a smallint sequence using a tenth of its range an
// hour is within a 30-day horizon; a bigint one at the same rate is not;
// one that does not move is never projected.
func TestExhaustionWatch(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	small, _ := engine.NewName("public", "small")
	big, _ := engine.NewName("public", "big")
	idle, _ := engine.NewName("public", "idle")
	typ := seqmath.Smallint
	for _, n := range []engine.Name{small, big, idle} {
		spec := seqmath.Spec{}
		if n == small {
			spec.Type = &typ
		}
		if _, err := eng.Create(ctx, n, spec, false); err != nil {
			t.Fatal(err)
		}
	}
	w := newExhaustionWatch(30*24*time.Hour, 0)
	t0 := time.Unix(1_000_000, 0)
	if near := w.check(eng, t0); len(near) != 0 {
		t.Fatalf("a first check projects nothing: %v", near)
	}
	for _, n := range []engine.Name{small, big} {
		if _, err := eng.Setval(ctx, n, 3276, true); err != nil {
			t.Fatal(err)
		}
	}
	near := w.check(eng, t0.Add(time.Hour))
	if len(near) != 1 || near[0] != small.String() || w.Near() != 1 {
		t.Fatalf("near exhaustion: %v", near)
	}
	// Logged once a day: the same sequence an hour later is still near,
	// not logged again (the log is not captured; the warned time is).
	first := w.warned[smallID(t, eng)]
	if _, err := eng.Setval(ctx, small, 6552, true); err != nil {
		t.Fatal(err)
	}
	w.check(eng, t0.Add(2*time.Hour))
	id := smallID(t, eng)
	if w.warned[id] != first {
		t.Fatal("warned twice within a day")
	}
	// A sequence dropped leaves no sample behind.
	if err := eng.Drop(ctx, small); err != nil {
		t.Fatal(err)
	}
	w.check(eng, t0.Add(3*time.Hour))
	if _, ok := w.last[id]; ok || len(w.last) != 2 || w.Near() != 0 {
		t.Fatalf("after the drop: %d samples (small's kept: %v), %d near", len(w.last), ok, w.Near())
	}
	if _, ok := w.warned[id]; ok {
		t.Fatal("a dropped sequence's warning is remembered")
	}
}

// TestExhaustionWatchFollows: a cluster node that does not lead checks
// nothing (the leader warns) and forgets what it measured, so that it
// neither warns twice for the cluster nor projects from another
// leadership's samples.
func TestExhaustionWatchFollows(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	small, _ := engine.NewName("public", "small")
	typ := seqmath.Smallint
	if _, err := eng.Create(ctx, small, seqmath.Spec{Type: &typ}, false); err != nil {
		t.Fatal(err)
	}
	w := newExhaustionWatch(30*24*time.Hour, 0)
	t0 := time.Unix(1_000_000, 0)
	w.check(eng, t0)
	if _, err := eng.Setval(ctx, small, 3276, true); err != nil {
		t.Fatal(err)
	}
	if w.check(eng, t0.Add(time.Hour)); w.Near() != 1 {
		t.Fatal("not near while leading")
	}
	w.period = time.Hour
	stop := make(chan struct{})
	done := make(chan struct{})
	calls := make(chan struct{}, 1)
	go func() {
		w.run(func() (*engine.Engine, bool) {
			select {
			case calls <- struct{}{}:
			default:
			}
			return nil, false
		}, stop)
		close(done)
	}()
	<-calls
	close(stop)
	<-done
	if w.Near() != 0 || len(w.last) != 0 {
		t.Fatalf("a follower kept its leadership's figures: near %d, %d samples", w.Near(), len(w.last))
	}
}

// TestExhaustionWatchMark: with a check a minute and a 30-day horizon,
// a million sequences used once keep no samples; a sequence starting at a
// rate that reaches its limit within the horizon is projected two checks
// later (one to pass the mark, one for the rate).
func TestExhaustionWatchMark(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	for i := range 1000 {
		n, _ := engine.NewName("public", fmt.Sprintf("s%d", i))
		if _, err := eng.Create(ctx, n, seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
		if _, _, err := eng.Nextval(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	typ := seqmath.Integer
	hot, _ := engine.NewName("public", "hot")
	if _, err := eng.Create(ctx, hot, seqmath.Spec{Type: &typ}, false); err != nil {
		t.Fatal(err)
	}
	w := newExhaustionWatch(30*24*time.Hour, time.Minute)
	t0 := time.Unix(1_000_000, 0)
	// int's 2^31 values in 20 days: 1,243 a second, 74,565 a minute.
	const perMinute = 74_565
	var near []string
	for i := range 3 {
		near = w.check(eng, t0.Add(time.Duration(i)*time.Minute))
		if len(w.last) > 1 {
			t.Fatalf("check %d: %d samples, want at most hot's", i, len(w.last))
		}
		if i < 2 && len(near) != 0 {
			t.Fatalf("check %d: near %v before a rate was measured", i, near)
		}
		if _, err := eng.Setval(ctx, hot, int64(i+1)*perMinute, true); err != nil {
			t.Fatal(err)
		}
	}
	if len(near) != 1 || near[0] != hot.String() {
		t.Fatalf("the third check: near %v, want hot", near)
	}
}

func smallID(t *testing.T, eng *engine.Engine) uint64 {
	t.Helper()
	n, _ := engine.NewName("public", "small")
	info, err := eng.Info(n)
	if err != nil {
		t.Fatal(err)
	}
	return info.ID
}

// TestExhaustionWatchWritten: a watch that looks only at the sequences
// sampled and those written since its last check warns and samples as
// one that passes over every sequence each check, through random
// nextval (CACHE 1 and 50: positions that move without a write), setval,
// drop, rename and create; and passes over them all only at its first
// check.
func TestExhaustionWatchWritten(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 17))
	typ := seqmath.Smallint
	var names []engine.Name
	made := 0
	create := func() {
		n, _ := engine.NewName("public", fmt.Sprintf("x%d", made))
		made++
		spec := seqmath.Spec{Cache: i64([]int64{1, 50}[rng.IntN(2)])}
		if rng.IntN(4) == 0 {
			spec.Type = &typ // sampled once used: a quarter of them
		}
		if _, err := eng.Create(ctx, n, spec, false); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	for range 200 {
		create()
	}
	// A 20-day horizon and a check a minute: a smallint sequence is
	// sampled from its first value reserved, and near at 2 a minute; a
	// bigint one never here.
	written := newExhaustionWatch(20*24*time.Hour, time.Minute)
	all := newExhaustionWatch(20*24*time.Hour, time.Minute)
	t0 := time.Unix(1_000_000, 0)
	// settle waits for the prefetches nextval and CREATE start in the
	// background, so that both watches see the same marks.
	settle := func() {
		marks := func() map[uint64]float64 {
			m := map[uint64]float64{}
			eng.EachUse(func(u engine.Use) { m[u.ID] = u.Reserved })
			return m
		}
		for prev, deadline := marks(), time.Now().Add(2*time.Second); time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			now := marks()
			if maps.Equal(prev, now) {
				return
			}
			prev = now
		}
	}
	warned := 0
	for round := range 150 {
		now := t0.Add(time.Duration(round) * time.Minute)
		settle()
		got := written.check(eng, now)
		all.stopMarks() // a new engine each time: a pass over every sequence
		want := all.check(eng, now)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: near %v, a pass over all says %v", round, got, want)
		}
		warned += len(got)
		if !maps.EqualFunc(written.last, all.last, func(a, b sample) bool { return a.used == b.used && a.name == b.name }) {
			t.Fatalf("round %d: samples %v, a pass over all keeps %v", round, written.last, all.last)
		}
		for range rng.IntN(6) + 1 {
			i := rng.IntN(len(names))
			n := names[i]
			switch op := rng.IntN(12); {
			case op < 7:
				for range rng.IntN(5) {
					eng.Nextval(ctx, n)
				}
			case op < 9:
				eng.Setval(ctx, n, int64(rng.IntN(20)+1), true)
			case op < 10:
				if err := eng.Drop(ctx, n); err != nil {
					t.Fatal(err)
				}
				names = append(names[:i], names[i+1:]...)
				create()
			case op < 11:
				to, _ := engine.NewName("public", fmt.Sprintf("y%d", made))
				made++
				if err := eng.Rename(ctx, n, to); err != nil {
					t.Fatal(err)
				}
				names[i] = to
			default:
				create()
			}
		}
	}
	if written.passes != 1 {
		t.Errorf("%d passes over every sequence, want 1 (the first check)", written.passes)
	}
	if warned == 0 {
		t.Error("no sequence was ever near its limit: the test checks nothing")
	}
}

// TestExhaustionWatchMostSampled: when most sequences are sampled (small
// ones, each used), a check passes over them all rather than look each
// up by name, and still warns of the one near its limit.
func TestExhaustionWatchMostSampled(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	typ := seqmath.Smallint
	var names []engine.Name
	for i := range 10 {
		n, _ := engine.NewName("public", fmt.Sprintf("m%d", i))
		if _, err := eng.Create(ctx, n, seqmath.Spec{Type: &typ}, false); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Setval(ctx, n, 10, true); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	w := newExhaustionWatch(20*24*time.Hour, time.Minute)
	t0 := time.Unix(1_000_000, 0)
	var near []string
	for i := range 3 {
		near = w.check(eng, t0.Add(time.Duration(i)*time.Minute))
		if _, err := eng.Setval(ctx, names[3], int64(20+10*i), true); err != nil {
			t.Fatal(err)
		}
	}
	if w.passes != 3 || len(w.last) != 10 {
		t.Errorf("%d passes in 3 checks, %d samples; want 3 and 10", w.passes, len(w.last))
	}
	if len(near) != 1 || near[0] != names[3].String() {
		t.Errorf("near %v, want %s", near, names[3])
	}
}

func i64(v int64) *int64 { return &v }
