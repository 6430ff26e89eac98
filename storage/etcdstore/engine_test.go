package etcdstore

import (
	"context"
	"errors"
	"testing"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/seqmath"
)

// TestEngineTakeover: the engine over etcd, as two nodes of a cluster
// would run it. A second engine opening the same store takes it over: it
// serves from above the first one's durable marks (the first's unused
// window is burned), and the first, once its next write is fenced off,
// serves nothing more. No value is handed out twice, and the deposed
// engine's close writes nothing back.
func TestEngineTakeover(t *testing.T) {
	ctx := context.Background()
	cl := etcdtest.Start(t, 3)
	prefix := fresh()
	open := func() *engine.Engine {
		s, err := Open(Config{Client: cl.Client(t), Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		e, err := engine.Open(ctx, engine.Config{Store: s, MaxBatch: MaxOps})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	n, _ := engine.NewName("public", "ids")
	seen := map[int64]string{}
	take := func(who string, e *engine.Engine) error {
		_, v, err := e.Nextval(ctx, n)
		if err != nil {
			return err
		}
		if prev, ok := seen[v]; ok {
			t.Fatalf("%d handed out by %s and by %s", v, prev, who)
		}
		seen[v] = who
		return nil
	}
	e1 := open()
	cache := int64(50)
	if _, err := e1.Create(ctx, n, seqmath.Spec{Cache: &cache}, false); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		if err := take("first", e1); err != nil {
			t.Fatal(err)
		}
	}
	e2 := open()
	for range 30 {
		if err := take("second", e2); err != nil {
			t.Fatal(err)
		}
	}
	// The first serves at most what its window still holds, then stops.
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		err = take("first", e1)
	}
	if !errors.Is(err, engine.ErrDeposed) {
		t.Fatalf("the deposed engine: %v, want ErrDeposed", err)
	}
	e1.Close()
	for range 100 {
		if err := take("second", e2); err != nil {
			t.Fatal(err)
		}
	}
	e2.Close()
	// A third, after both closed, continues above everything.
	e3 := open()
	defer e3.Close()
	var top int64
	for v := range seen {
		top = max(top, v)
	}
	_, v, err := e3.Nextval(ctx, n)
	if err != nil || v <= top {
		t.Fatalf("after the takeovers: %d (%v), not above %d", v, err, top)
	}
}
