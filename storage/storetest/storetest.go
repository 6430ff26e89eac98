// Package storetest is the conformance suite every storage.Store passes.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/seqd/seqd/storage"
)

// Opener opens the same underlying storage each time it is called; the
// previous store returned by it has been closed by then.
type Opener func() (storage.Store, error)

// Run runs the conformance suite. newStorage returns an Opener for fresh,
// empty storage.
func Run(t *testing.T, newStorage func(t *testing.T) Opener) {
	t.Run("CompareAndSet", func(t *testing.T) { testCompareAndSet(t, newStorage) })
	t.Run("Fencing", func(t *testing.T) { testFencing(t, newStorage) })
	t.Run("Reopen", func(t *testing.T) { testReopen(t, newStorage) })
	t.Run("Large", func(t *testing.T) { testLarge(t, newStorage) })
}

func openStore(t *testing.T, o Opener) storage.Store {
	t.Helper()
	s, err := o()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func loadStore(t *testing.T, s storage.Store) map[string]storage.KV {
	t.Helper()
	m := map[string]storage.KV{}
	if err := s.Load(context.Background(), func(kv storage.KV) error { m[kv.Key] = kv; return nil }); err != nil {
		t.Fatal(err)
	}
	return m
}

func testCompareAndSet(t *testing.T, newStorage func(t *testing.T) Opener) {
	ctx := context.Background()
	s := openStore(t, newStorage(t))
	defer s.Close()
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := s.Commit(ctx, tok, []storage.Op{{Key: "a", Value: []byte("1")}, {Key: "b", Value: []byte("2")}})
	if err != nil {
		t.Fatal(err)
	}
	// Creating what exists, or updating at a stale revision, conflicts.
	if _, err := s.Commit(ctx, tok, []storage.Op{{Key: "a", Value: []byte("x")}}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("create existing: %v", err)
	}
	if _, err := s.Commit(ctx, tok, []storage.Op{{Key: "a", Value: []byte("x"), Expect: r1 + 1}}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("stale revision: %v", err)
	}
	// A batch with one bad op applies nothing.
	if _, err := s.Commit(ctx, tok, []storage.Op{{Key: "a", Value: []byte("3"), Expect: r1}, {Key: "c", Expect: 7}}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("partial batch: %v", err)
	}
	got := loadStore(t, s)
	if len(got) != 2 || string(got["a"].Value) != "1" || got["a"].Rev != r1 || got["b"].Rev != r1 {
		t.Fatalf("after conflicts: %v", got)
	}
	r2, err := s.Commit(ctx, tok, []storage.Op{{Key: "a", Value: []byte("3"), Expect: r1}, {Key: "b", Expect: r1}})
	if err != nil || r2 <= r1 {
		t.Fatalf("update+delete: rev %d after %d, %v", r2, r1, err)
	}
	got = loadStore(t, s)
	if len(got) != 1 || string(got["a"].Value) != "3" || got["a"].Rev != r2 {
		t.Fatalf("after update: %v", got)
	}
	// Deleting an absent record conflicts.
	if _, err := s.Commit(ctx, tok, []storage.Op{{Key: "b", Expect: r1}}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("delete absent: %v", err)
	}
}

// testLarge: commits of more records than an etcd transaction takes are
// atomic too, and a later commit may expect the revision a large one
// returned, or the one Load reads, of any of its records.
func testLarge(t *testing.T, newStorage func(t *testing.T) Opener) {
	ctx := context.Background()
	s := openStore(t, newStorage(t))
	defer s.Close()
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	puts := func(v string, expect storage.Rev) []storage.Op {
		ops := make([]storage.Op, n)
		for i := range ops {
			ops[i] = storage.Op{Key: fmt.Sprintf("k%04d", i), Value: []byte(v + fmt.Sprint(i)), Expect: expect}
		}
		return ops
	}
	// One op of a thousand conflicting (its record exists) applies none.
	if _, err := s.Commit(ctx, tok, []storage.Op{{Key: "k0500", Value: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, tok, puts("a", 0)); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("a large commit with one conflict: %v", err)
	}
	if got := loadStore(t, s); len(got) != 1 {
		t.Fatalf("after a conflicting large commit: %d records", len(got))
	}
	r0 := loadStore(t, s)["k0500"].Rev
	ops := puts("a", 0)
	ops[500].Expect = r0
	r1, err := s.Commit(ctx, tok, ops)
	if err != nil {
		t.Fatal(err)
	}
	got := loadStore(t, s)
	if len(got) != n || string(got["k0000"].Value) != "a0" || string(got["k0999"].Value) != "a999" {
		t.Fatalf("after a large commit: %d records", len(got))
	}
	// Half updated expecting the revision the commit returned, half
	// deleted expecting the one Load read, in one large commit.
	ops = puts("b", r1)
	for i := range ops {
		if i%2 == 1 {
			ops[i].Value, ops[i].Expect = nil, got[ops[i].Key].Rev
		}
	}
	r2, err := s.Commit(ctx, tok, ops)
	if err != nil || r2 <= r1 {
		t.Fatalf("a large update and delete: rev %d after %d, %v", r2, r1, err)
	}
	got = loadStore(t, s)
	if len(got) != n/2 || string(got["k0998"].Value) != "b998" || got["k0999"].Key != "" {
		t.Fatalf("after a large update and delete: %d records", len(got))
	}
	// And a small commit expecting either revision of one of them.
	if _, err := s.Commit(ctx, tok, []storage.Op{{Key: "k0000", Value: []byte("c"), Expect: r2}, {Key: "k0002", Value: []byte("c"), Expect: got["k0002"].Rev}}); err != nil {
		t.Fatalf("a small commit after a large one: %v", err)
	}
	if _, err := s.Commit(ctx, tok, []storage.Op{{Key: "k0004", Value: []byte("c"), Expect: r1}}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("expecting a revision its record no longer has: %v", err)
	}
}

func testFencing(t *testing.T, newStorage func(t *testing.T) Opener) {
	ctx := context.Background()
	o := newStorage(t)
	s := openStore(t, o)
	t1, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t2, err := s.Acquire(ctx)
	if err != nil || t2 <= t1 {
		t.Fatalf("second token %d after %d: %v", t2, t1, err)
	}
	if _, err := s.Commit(ctx, t1, []storage.Op{{Key: "a", Value: []byte("1")}}); !errors.Is(err, storage.ErrFenced) {
		t.Fatalf("old token: %v", err)
	}
	if _, err := s.Commit(ctx, t2, []storage.Op{{Key: "a", Value: []byte("1")}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := s.Commit(ctx, t2, []storage.Op{{Key: "z", Value: []byte("1")}}); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("commit after close: %v", err)
	}
	// Tokens keep growing across reopen.
	s = openStore(t, o)
	defer s.Close()
	t3, err := s.Acquire(ctx)
	if err != nil || t3 <= t2 {
		t.Fatalf("token after reopen %d, before %d: %v", t3, t2, err)
	}
	if _, err := s.Commit(ctx, t2, []storage.Op{{Key: "b", Value: []byte("1")}}); !errors.Is(err, storage.ErrFenced) {
		t.Fatalf("pre-reopen token: %v", err)
	}
}

func testReopen(t *testing.T, newStorage func(t *testing.T) Opener) {
	ctx := context.Background()
	o := newStorage(t)
	s := openStore(t, o)
	tok, _ := s.Acquire(ctx)
	var last storage.Rev
	for i := range 100 {
		r, err := s.Commit(ctx, tok, []storage.Op{{Key: fmt.Sprintf("k%03d", i), Value: []byte{byte(i)}}})
		if err != nil {
			t.Fatal(err)
		}
		if r <= last {
			t.Fatalf("revision %d not above %d", r, last)
		}
		last = r
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, o)
	defer s.Close()
	var keys []string
	err := s.Load(ctx, func(kv storage.KV) error {
		keys = append(keys, kv.Key)
		if kv.Value[0] != byte(len(keys)-1) {
			return fmt.Errorf("%s = %v", kv.Key, kv.Value)
		}
		return nil
	})
	if err != nil || len(keys) != 100 || keys[0] != "k000" || keys[99] != "k099" {
		t.Fatalf("reloaded %d keys: %v", len(keys), err)
	}
	tok, _ = s.Acquire(ctx)
	r, err := s.Commit(ctx, tok, []storage.Op{{Key: "k000", Value: []byte{1}, Expect: loadStore(t, s)["k000"].Rev}})
	if err != nil || r <= last {
		t.Fatalf("revision after reopen %d, before %d: %v", r, last, err)
	}
}

// TwoOwners opens two live handles on one fresh storage, as two servers
// of a cluster hold it. Stores that a single process can open only once
// (the embedded one) cannot run RunTwoOwners.
type TwoOwners func(t *testing.T) (a, b storage.Store)

// RunTwoOwners checks fencing between two live owners: once the second
// acquires, the first's writes fail with ErrFenced and change nothing,
// however the first retries, and the second writes on.
func RunTwoOwners(t *testing.T, open TwoOwners) {
	ctx := context.Background()
	a, b := open(t)
	defer a.Close()
	defer b.Close()
	ta, err := a.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := a.Commit(ctx, ta, []storage.Op{{Key: "mark", Value: []byte("100")}})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tb <= ta {
		t.Fatalf("the second owner's token %d is not above the first's %d", tb, ta)
	}
	// The deposed owner writes a mark back: it must not land.
	if _, err := a.Commit(ctx, ta, []storage.Op{{Key: "mark", Value: []byte("50"), Expect: r1}}); !errors.Is(err, storage.ErrFenced) {
		t.Fatalf("a deposed owner's write: %v, want ErrFenced", err)
	}
	if _, err := a.Commit(ctx, ta, []storage.Op{{Key: "other", Value: []byte("x")}}); !errors.Is(err, storage.ErrFenced) {
		t.Fatalf("a deposed owner's second write: %v, want ErrFenced", err)
	}
	r2, err := b.Commit(ctx, tb, []storage.Op{{Key: "mark", Value: []byte("200"), Expect: r1}})
	if err != nil || r2 <= r1 {
		t.Fatalf("the new owner's write: %v at %d", err, r2)
	}
	got := map[string]string{}
	if err := a.Load(ctx, func(kv storage.KV) error { got[kv.Key] = string(kv.Value); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["mark"] != "200" {
		t.Fatalf("after the fenced writes the store holds %v", got)
	}
}
