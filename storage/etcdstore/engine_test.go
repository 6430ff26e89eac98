package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
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

// TestDeriveAcrossStaged: a follower's view over etcd (a read-only engine
// that takes marks as they come and derives a new snapshot from the
// other changes a watch delivered, through ChangesAt) shows a
// transaction block too large for one etcd transaction all or nothing:
// wherever its writer stops, made or not, and once the next owner
// finished it, the derived view serves what a read of the store at the
// same revision does.
func TestDeriveAcrossStaged(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	cli := cl.Client(t)
	for _, tc := range []struct {
		step string
		at   int
	}{{"stage", 1}, {"decide", 1}, {"apply", 1}, {"apply", 2}, {"apply", 4}, {"", 0}} {
		t.Run(fmt.Sprintf("%s%d", tc.step, tc.at), func(t *testing.T) { deriveAcrossStaged(t, cli, tc.step, tc.at) })
	}
}

// stagedName is the sequence public.<f with i>.
func stagedName(t *testing.T, f string, i int) engine.Name {
	t.Helper()
	n, err := engine.NewName("public", fmt.Sprintf(f, i))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// followerView is what a follower's sessions see of the sequences.
func followerView(e *engine.Engine) string {
	var b strings.Builder
	for _, info := range e.List() {
		c, _ := e.Comment(info.Name)
		fmt.Fprintf(&b, "%s %d %+v %+v %v %q\n", info.Name.Rel(), info.ID, info.Options, info.State, info.Unlogged, c)
	}
	return b.String()
}

// commitBlock commits a transaction block of 400 creations, an ALTER, a
// DROP and a comment, stopped at step (the at-th time), failing unless
// it fails exactly when stopped.
func commitBlock(t *testing.T, ea *engine.Engine, step string) {
	t.Helper()
	ctx := context.Background()
	tx := ea.Begin()
	for i := range 400 {
		if _, err := tx.CreateWith(ctx, stagedName(t, "new_%d", i), seqmath.Spec{}, engine.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	inc := int64(7)
	if err := tx.Alter(ctx, stagedName(t, "old_%d", 1), seqmath.Spec{Increment: &inc}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Drop(ctx, stagedName(t, "old_%d", 2)); err != nil {
		t.Fatal(err)
	}
	if err := tx.SetComment(ctx, stagedName(t, "new_%d", 7), "seven"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); (err != nil) != (step != "") {
		t.Fatalf("the block's commit: %v", err)
	}
}

// deriveAcrossStaged is one case of TestDeriveAcrossStaged: a block's
// commit stopped at step, the follower's snapshot derived across it.
func deriveAcrossStaged(t *testing.T, cli *clientv3.Client, step string, at int) {
	ctx := context.Background()
	open := opener(t, cli)
	a, reader := open("a"), open("reader")
	ea, err := engine.Open(ctx, engine.Config{Store: a, MaxBatch: MaxOps})
	if err != nil {
		t.Fatal(err)
	}
	defer ea.Close()
	for i := range 10 {
		if _, err := ea.Create(ctx, stagedName(t, "old_%d", i), seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := engine.Open(ctx, engine.Config{Store: reader, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { snap.Close() }()
	after := reader.Loaded()
	for range 3 { // marks the follower takes as they come
		if _, _, err := ea.Nextval(ctx, stagedName(t, "old_%d", 0)); err != nil {
			t.Fatal(err)
		}
	}
	stopAt(a, step, at)
	commitBlock(t, ea, step)
	made := step != "stage"
	// check derives the follower's next snapshot from its last one and
	// the changes since, as keepUp does, and compares it with a read of
	// the store.
	check := func(when string, marks bool) {
		t.Helper()
		g, err := cli.Get(ctx, "/elsewhere")
		if err != nil {
			t.Fatal(err)
		}
		rev := g.Header.Revision
		var kept []storage.KV
		followed := 0
		for _, kv := range watchUpTo(t, cli, reader, after, rev) {
			if len(kept) == 0 && snap.Follow(kv) {
				followed++
				continue
			}
			kept = append(kept, kv)
		}
		if marks && followed == 0 {
			t.Fatalf("%s: the follower took no mark as it came", when)
		}
		changes, err := reader.ChangesAt(ctx, kept, after, rev)
		if err != nil {
			t.Fatal(err)
		}
		d, err := snap.Derive(ctx, engine.Config{Store: reader, ReadOnly: true}, changes)
		if err != nil {
			t.Fatal(err)
		}
		snap.Close()
		snap, after = d, rev
		f, err := engine.Open(ctx, engine.Config{Store: open("fresh"), ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		got, want := followerView(d), followerView(f)
		if got != want {
			t.Fatalf("%s: derived at %d:\n%s\nread:\n%s", when, rev, got, want)
		}
		if n := strings.Count(got, "new_"); made && n != 400 || !made && n != 0 {
			t.Fatalf("%s: %d of the block's 400 sequences (made: %v)", when, n, made)
		}
	}
	check("stopped", true)
	if step == "" {
		return
	}
	eb, err := engine.Open(ctx, engine.Config{Store: open("b"), MaxBatch: MaxOps})
	if err != nil {
		t.Fatal(err)
	}
	defer eb.Close()
	check("the next owner finished it", false)
}
