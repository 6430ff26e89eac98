package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/storetest"
)

var prefixes int

func fresh() string {
	prefixes++
	return fmt.Sprintf("/seqd-test-%d/", prefixes)
}

// TestConformance runs the shared store suite against a real etcd (one
// member, in process), each case under its own prefix.
func TestConformance(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	cli := cl.Client(t)
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		prefix := fresh()
		return func() (storage.Store, error) { return Open(Config{Client: cli, Prefix: prefix}) }
	})
}

// TestTwoOwners: two nodes, each with its own client of a three-member
// etcd; once the second acquires, the first's writes are fenced off.
func TestTwoOwners(t *testing.T) {
	cl := etcdtest.Start(t, 3)
	storetest.RunTwoOwners(t, func(t *testing.T) (storage.Store, storage.Store) {
		prefix := fresh()
		a, err := Open(Config{Client: cl.Client(t), Prefix: prefix, Owner: "a"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Open(Config{Client: cl.Client(t), Prefix: prefix, Owner: "b"})
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	})
}

// TestLimits: a commit at etcd's transaction limit lands in one
// transaction, one beyond it is staged (one more revision than a
// transaction's), and Load pages through more records than one
// response holds, in key order.
func TestLimits(t *testing.T) {
	ctx := context.Background()
	cl := etcdtest.Start(t, 1)
	cli := cl.Client(t)
	s, err := Open(Config{Client: cli, Prefix: fresh()})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ops := func(from, n int) []storage.Op {
		var out []storage.Op
		for i := range n {
			out = append(out, storage.Op{Key: fmt.Sprintf("k%05d", from+i), Value: []byte("v")})
		}
		return out
	}
	n := 0
	for n < 2500 {
		r, err := cli.Get(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		rev, err := s.Commit(ctx, tok, ops(n, MaxOps))
		if err != nil || int64(rev) != r.Header.Revision+1 {
			t.Fatalf("a commit at the limit: revision %d after %d, %v", rev, r.Header.Revision, err)
		}
		n += MaxOps
	}
	r, err := cli.Get(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	rev, err := s.Commit(ctx, tok, ops(n, MaxOps+1))
	if err != nil || int64(rev) <= r.Header.Revision+1 {
		t.Fatalf("a commit over the limit: revision %d after %d, %v", rev, r.Header.Revision, err)
	}
	n += MaxOps + 1
	// More than two pages: a first Load pages through the prefix, a
	// second reads between the cuts the first made, a third also the keys
	// made since, inside the cut ranges and past the last.
	if _, err := s.Commit(ctx, tok, ops(n, 2*loadPage)); err != nil {
		t.Fatal(err)
	}
	n += 2 * loadPage
	load := func(s *Store, want []string) []string {
		t.Helper()
		var got []string
		if err := s.Load(ctx, func(kv storage.KV) error { got = append(got, kv.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		if want != nil && !slices.Equal(got, want) {
			t.Fatalf("loaded %d records, want %d", len(got), len(want))
		}
		return got
	}
	got := load(s, nil)
	if len(got) != n || !slices.IsSorted(got) || got[0] != "k00000" || got[n-1] != fmt.Sprintf("k%05d", n-1) {
		t.Fatalf("loaded %d of %d records", len(got), n)
	}
	cuts, _ := loadCuts.Load(s.cutsKey())
	if c := cuts.([]string); len(c) != n/loadPage {
		t.Fatalf("%d cuts after reading %d records", len(c), n)
	}
	other, err := Open(Config{Client: cli, Prefix: s.data[:len(s.data)-len("data/")]})
	if err != nil {
		t.Fatal(err)
	}
	load(other, got)
	var more []storage.Op
	for _, k := range []string{"a", "k00000x", "k12345x", "k22222x", "z"} {
		more = append(more, storage.Op{Key: k, Value: []byte("v")})
	}
	if _, err := s.Commit(ctx, tok, more); err != nil {
		t.Fatal(err)
	}
	for _, op := range more {
		got = append(got, op.Key)
	}
	slices.Sort(got)
	load(other, got)
}

// TestDeadline: with etcd gone, every call fails within its deadline
// rather than hangs.
func TestDeadline(t *testing.T) {
	ctx := context.Background()
	cl := etcdtest.Start(t, 1)
	s, err := Open(Config{Client: cl.Client(t), Prefix: fresh(), Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cl.Stop(0)
	start := time.Now()
	_, err = s.Commit(ctx, tok, []storage.Op{{Key: "a", Value: []byte("1")}})
	if err == nil || errors.Is(err, storage.ErrFenced) || errors.Is(err, storage.ErrConflict) {
		t.Fatalf("commit with etcd gone: %v", err)
	}
	if _, err := s.Acquire(ctx); err == nil {
		t.Fatal("acquire with etcd gone succeeded")
	}
	if err := s.Load(ctx, func(storage.KV) error { return nil }); err == nil {
		t.Fatal("load with etcd gone succeeded")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("three calls took %v with a 500ms deadline each", d)
	}
}
