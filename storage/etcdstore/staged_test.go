package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/storage"
)

var errCrash = errors.New("crashed")

// opener returns a function that opens a store under one fresh prefix
// as the owner it names.
func opener(t *testing.T, cli *clientv3.Client) func(owner string) *Store {
	prefix := fresh()
	return func(owner string) *Store {
		t.Helper()
		s, err := Open(Config{Client: cli, Prefix: prefix, Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// stopAt makes s's writer stop a staged commit the at-th time it
// reaches step, as its death there would ("": never).
func stopAt(s *Store, step string, at int) {
	reached := 0
	s.stop = func(got string) error {
		if got == step {
			if reached++; reached == at {
				return errCrash
			}
		}
		return nil
	}
}

// bigCommit is a commit of n records with values of about 200 bytes, so
// that its stage takes more than one chunk.
func bigCommit(n int, v string) []storage.Op {
	ops := make([]storage.Op, n)
	for i := range ops {
		ops[i] = storage.Op{Key: fmt.Sprintf("s%05d", i), Value: []byte(v + strings.Repeat(".", 200) + fmt.Sprint(i))}
	}
	return ops
}

// TestStagedCrash: a writer that stops at any step of a large commit
// leaves it all or nothing. Stopped before the decision, no reader sees
// any of it, and the next owner deletes its stage; stopped after, every
// reader sees all of it though it is half applied, as does a swap
// guarded by one of its records (without waiting for it), and the next
// owner applies the rest before anything else. The stopped writer writes nothing more.
func TestStagedCrash(t *testing.T) {
	ctx := context.Background()
	cl := etcdtest.Start(t, 1)
	cli := cl.Client(t)
	const n = 3000
	for _, tc := range []struct {
		step string
		at   int // the how-manieth time the step is reached
		made bool
	}{
		{"stage", 1, false},
		{"stage", 2, false},
		{"decide", 1, true},
		{"apply", 1, true},
		{"apply", 12, true},
		{"apply", 24, true}, // every record written, the pending key not yet deleted
	} {
		t.Run(fmt.Sprintf("%s%d", tc.step, tc.at), func(t *testing.T) {
			open := opener(t, cli)
			a, reader := open("a"), open("reader")
			tok, err := a.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Commit(ctx, tok, []storage.Op{{Key: "before", Value: []byte("1")}}); err != nil {
				t.Fatal(err)
			}
			stopAt(a, tc.step, tc.at)
			if _, err := a.Commit(ctx, tok, bigCommit(n, "v")); !errors.Is(err, errCrash) {
				t.Fatalf("the commit stopped at %s %d: %v", tc.step, tc.at, err)
			}
			want := 0
			if tc.made {
				want = n
			}
			// check: the commit's records all there or none, in order,
			// beside the one before it.
			check := func(when string) {
				t.Helper()
				got, before := 0, false
				if err := reader.Load(ctx, func(kv storage.KV) error {
					before = before || kv.Key == "before"
					if !strings.HasPrefix(kv.Key, "s") {
						return nil
					}
					if w := fmt.Sprintf("v%s%d", strings.Repeat(".", 200), got); kv.Key != fmt.Sprintf("s%05d", got) || string(kv.Value) != w {
						return fmt.Errorf("record %d is %s", got, kv.Key)
					}
					got++
					return nil
				}); err != nil {
					t.Fatalf("%s: %v", when, err)
				}
				if got != want || !before {
					t.Fatalf("%s: %d records, want %d (the one before: %v)", when, got, want, before)
				}
			}
			check("stopped")
			// A swap reads its guard through a made commit, applied or
			// not, in any chunk, and does not wait for it.
			swap := func(guard string, wait time.Duration) (storage.KV, error) {
				sctx, cancel := context.WithTimeout(ctx, wait)
				defer cancel()
				var seen storage.KV
				err := reader.Swap(sctx, guard, "\x00range:"+guard, func(g, cur storage.KV) ([]byte, error) {
					seen = g
					return []byte(fmt.Sprint(cur.Rev)), nil
				})
				return seen, err
			}
			for _, i := range []int{0, 1, n / 2, n - 1} {
				guard := fmt.Sprintf("s%05d", i)
				g, err := swap(guard, 5*time.Second)
				if err != nil {
					t.Fatalf("a swap guarded by %s while the commit is stopped: %v", guard, err)
				}
				if w := fmt.Sprintf("v%s%d", strings.Repeat(".", 200), i); tc.made != (string(g.Value) == w && g.Rev != 0) || !tc.made && g.Rev != 0 {
					t.Fatalf("a swap guarded by %s while the commit is stopped saw %q at %d (made: %v)", guard, g.Value, g.Rev, tc.made)
				}
			}
			if g, err := swap("before", 5*time.Second); err != nil || string(g.Value) != "1" {
				t.Fatalf("a swap guarded by a record the commit does not write: %q, %v", g.Value, err)
			}

			b := open("b")
			tb, err := b.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{b.pending, b.stage} {
				if r, err := cli.Get(ctx, k, clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || r.Count != 0 {
					t.Fatalf("after the next owner took over: %d keys under %s, %v", r.Count, k, err)
				}
			}
			check("taken over")
			if g, err := swap("s00001", 5*time.Second); err != nil || tc.made != (g.Rev != 0) {
				t.Fatalf("a swap after the takeover: %q at %d, %v", g.Value, g.Rev, err)
			}
			if _, err := a.Commit(ctx, tok, []storage.Op{{Key: "late", Value: []byte("1")}}); !errors.Is(err, storage.ErrFenced) {
				t.Fatalf("the stopped writer's next commit: %v", err)
			}
			// The next owner writes over what it loaded.
			revs := map[string]storage.Rev{}
			if err := b.Load(ctx, func(kv storage.KV) error { revs[kv.Key] = kv.Rev; return nil }); err != nil {
				t.Fatal(err)
			}
			next := bigCommit(n, "w")
			for i := range next {
				next[i].Expect = revs[next[i].Key]
			}
			if _, err := b.Commit(ctx, tb, next); err != nil {
				t.Fatalf("the next owner's large commit over what it loaded: %v", err)
			}
		})
	}
}

// TestStagedShared: a large commit's records that others also write (a
// NOORDER range record) are compared in its deciding transaction: one
// another writer moved fails the commit whole, its stage deleted; more
// of them than one transaction compares is refused before anything is
// written.
func TestStagedShared(t *testing.T) {
	ctx := context.Background()
	cl := etcdtest.Start(t, 1)
	cli := cl.Client(t)
	prefix := fresh()
	s, err := Open(Config{Client: cli, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, tok, []storage.Op{{Key: "guard", Value: []byte("g")}}); err != nil {
		t.Fatal(err)
	}
	var seen storage.Rev
	bump := func() {
		if err := s.Swap(ctx, "guard", "range", func(_, cur storage.KV) ([]byte, error) { seen = cur.Rev; return []byte("r"), nil }); err != nil {
			t.Fatal(err)
		}
	}
	bump()
	bump() // seen is now the range record's revision before this swap
	ops := append(bigCommit(500, "v"), storage.Op{Key: "range", Expect: seen, Shared: true})
	if _, err := s.Commit(ctx, tok, ops); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("a large commit expecting a range record another moved: %v", err)
	}
	n := 0
	if err := s.Load(ctx, func(storage.KV) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("after the conflict: %d records, %v", n, err)
	}
	if r, err := cli.Get(ctx, s.stage, clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || r.Count != 0 {
		t.Fatalf("the conflicting commit's stage: %d keys, %v", r.Count, err)
	}
	var cur storage.Rev
	if err := s.Load(ctx, func(kv storage.KV) error {
		if kv.Key == "range" {
			cur = kv.Rev
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ops[len(ops)-1].Expect = cur
	if _, err := s.Commit(ctx, tok, ops); err != nil {
		t.Fatalf("the same commit expecting the range record's revision: %v", err)
	}
	n = 0
	if err := s.Load(ctx, func(kv storage.KV) error {
		if kv.Key == "range" {
			t.Error("the range record survived its delete")
		}
		n++
		return nil
	}); err != nil || n != 501 {
		t.Fatalf("after the large commit: %d records, %v", n, err)
	}
	var many []storage.Op
	for i := range MaxOps + 1 {
		many = append(many, storage.Op{Key: fmt.Sprintf("r%d", i), Value: []byte("1"), Shared: true})
	}
	if _, err := s.Commit(ctx, tok, many); !errors.Is(err, storage.ErrTooLarge) {
		t.Fatalf("a commit of %d shared records: %v", len(many), err)
	}
}

// TestSwapAcrossApply: a swap that read its guard through a pending
// commit does not write once the commit has been applied meanwhile (the
// pending key it compares is gone): it reads again, and acts on the
// applied record.
func TestSwapAcrossApply(t *testing.T) {
	ctx := context.Background()
	cl := etcdtest.Start(t, 1)
	open := opener(t, cl.Client(t))
	a, reader := open("a"), open("reader")
	tok, err := a.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a.stop = func(step string) error {
		if step == "decide" {
			return errCrash
		}
		return nil
	}
	if _, err := a.Commit(ctx, tok, bigCommit(1000, "v")); !errors.Is(err, errCrash) {
		t.Fatalf("the commit stopped after its decision: %v", err)
	}
	var seen []storage.Rev
	err = reader.Swap(ctx, "s00500", "range", func(g, _ storage.KV) ([]byte, error) {
		seen = append(seen, g.Rev)
		if len(seen) == 1 {
			// The next owner applies the commit between this read and
			// the swap's write.
			if _, err := open("b").Acquire(ctx); err != nil {
				return nil, err
			}
		}
		return []byte("r"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] == 0 || seen[1] <= seen[0] {
		t.Fatalf("the swap read its guard at revisions %v: want the pending commit's, then the applied record's", seen)
	}
}

// TestStagedRewrite: a commit expecting the revision a staged commit
// returned, for records that commit wrote, compares each record's own
// revision: it succeeds while the record is as the staged commit left
// it, alone or in a staged commit of its own, and fails once anything
// moved or deleted it. The store keeps a revision range per staged
// commit, not an alias per record.
func TestStagedRewrite(t *testing.T) {
	ctx := context.Background()
	cl := etcdtest.Start(t, 1)
	cli := cl.Client(t)
	s := opener(t, cli)("")
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ops := bigCommit(500, "v")
	rev, err := s.Commit(ctx, tok, ops)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.aliases) != 0 || len(s.applied) != 1 {
		t.Fatalf("after a staged commit of 500 records: %d aliases, %d ranges", len(s.aliases), len(s.applied))
	}
	put := func(key string, expect storage.Rev) error {
		_, err := s.Commit(ctx, tok, []storage.Op{{Key: key, Value: []byte("w"), Expect: expect}})
		return err
	}
	if err := put("s00010", rev); err != nil {
		t.Fatalf("rewriting a record as the staged commit left it: %v", err)
	}
	if err := put("s00010", rev); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("expecting the staged commit's revision of a record written since: %v", err)
	}
	if _, err := cli.Put(ctx, s.data+"s00011", "moved"); err != nil {
		t.Fatal(err)
	}
	if err := put("s00011", rev); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("a record moved behind the store's back: %v", err)
	}
	if _, err := cli.Delete(ctx, s.data+"s00012"); err != nil {
		t.Fatal(err)
	}
	if err := put("s00012", rev); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("a record deleted behind the store's back: %v", err)
	}
	// Staged again: 300 records expecting rev (more than one read).
	again := bigCommit(320, "w")[20:]
	for i := range again {
		again[i].Expect = rev
	}
	rev2, err := s.Commit(ctx, tok, again)
	if err != nil {
		t.Fatalf("a staged commit rewriting 300 records the last left: %v", err)
	}
	n := 0
	if err := s.Load(ctx, func(kv storage.KV) error {
		if kv.Key >= "s00020" && kv.Key < "s00320" && !strings.HasPrefix(string(kv.Value), "w") {
			t.Errorf("%s not rewritten", kv.Key)
		}
		n++
		return nil
	}); err != nil || n != 499 {
		t.Fatalf("%d records, %v", n, err)
	}
	if len(s.aliases) != 0 || len(s.applied) != 2 {
		t.Fatalf("after two staged commits: %d aliases, %d ranges", len(s.aliases), len(s.applied))
	}
	if err := put("s00030", rev2); err != nil {
		t.Fatalf("rewriting a record the second staged commit left: %v", err)
	}
	if err := put("s00400", rev2); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("expecting the second commit's revision of a record it did not write: %v", err)
	}
}
