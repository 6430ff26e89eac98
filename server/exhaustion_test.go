package server

import (
	"context"
	"fmt"
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
	if near := w.check(eng.EachUse, t0); len(near) != 0 {
		t.Fatalf("a first check projects nothing: %v", near)
	}
	for _, n := range []engine.Name{small, big} {
		if _, err := eng.Setval(ctx, n, 3276, true); err != nil {
			t.Fatal(err)
		}
	}
	near := w.check(eng.EachUse, t0.Add(time.Hour))
	if len(near) != 1 || near[0] != small.String() || w.Near() != 1 {
		t.Fatalf("near exhaustion: %v", near)
	}
	// Logged once a day: the same sequence an hour later is still near,
	// not logged again (the log is not captured; the warned time is).
	first := w.warned[smallID(t, eng)]
	if _, err := eng.Setval(ctx, small, 6552, true); err != nil {
		t.Fatal(err)
	}
	w.check(eng.EachUse, t0.Add(2*time.Hour))
	id := smallID(t, eng)
	if w.warned[id] != first {
		t.Fatal("warned twice within a day")
	}
	// A sequence dropped leaves no sample behind.
	if err := eng.Drop(ctx, small); err != nil {
		t.Fatal(err)
	}
	w.check(eng.EachUse, t0.Add(3*time.Hour))
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
	w.check(eng.EachUse, t0)
	if _, err := eng.Setval(ctx, small, 3276, true); err != nil {
		t.Fatal(err)
	}
	if w.check(eng.EachUse, t0.Add(time.Hour)); w.Near() != 1 {
		t.Fatal("not near while leading")
	}
	w.period = time.Hour
	stop := make(chan struct{})
	done := make(chan struct{})
	calls := make(chan struct{}, 1)
	go func() {
		w.run(func() (func(func(engine.Use)), bool) {
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
		near = w.check(eng.EachUse, t0.Add(time.Duration(i)*time.Minute))
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
