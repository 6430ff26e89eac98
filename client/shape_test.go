package client_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/seqd/seqd/client"
	"github.com/seqd/seqd/seqmath"
)

// TestShapedBatch: a batch of a shaped sequence maps the counters of each
// range locally, with the server's function and skip range, so that it
// hands out exactly the values nextval would, in the same order; closing
// gives the unused counters back.
func TestShapedBatch(t *testing.T) {
	ctx := context.Background()
	pool := seqdPool(t)
	// The skip range holds counters 1, 2, 3, 5 and 6's values.
	cases := []struct{ clause, shape string }{
		{"bit_reversed_positive skip range 2305843009213693952 6917529027641081856", "bit_reversed_positive skip 2305843009213693952 6917529027641081856"},
		{"shard_bits 4 range_bits 48", "sharded 4 48"},
	}
	src := client.NewSeqd(pool, client.SeqdOptions{})
	for _, c := range cases {
		for _, async := range []bool{false, true} {
			name := freshName()
			if _, err := pool.Exec(ctx, fmt.Sprintf("create sequence %s %s", name, c.clause)); err != nil {
				t.Fatal(err)
			}
			sh, err := seqmath.ParseShape(c.shape)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for counter := int64(1); len(want) < 250; counter++ {
				if v := sh.Value(counter); !sh.Skipped(v) {
					want = append(want, v)
				}
			}
			g := client.NewBatch(src, name, client.BatchOptions{Size: 32})
			if async {
				g = client.NewAsyncBatch(src, name, client.BatchOptions{Size: 32, LowWatermark: 8})
			}
			for i := range 100 {
				v, err := g.Next(ctx)
				if err != nil || v != want[i] {
					t.Fatalf("%s (async %v): value %d = %d, %v; want %d", c.shape, async, i, v, err, want[i])
				}
			}
			if err := g.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if st := g.Stats(); st.Released == 0 {
				t.Fatalf("%s (async %v): closing gave nothing back: %+v", c.shape, async, st)
			}
			if async {
				continue // it may have burned the rest of its current range
			}
			// What the batch gave back comes next, from nextval itself.
			var v int64
			if err := pool.QueryRow(ctx, "select nextval($1)", name).Scan(&v); err != nil || v != want[100] {
				t.Fatalf("%s: nextval after the batch = %d, %v; want %d", c.shape, v, err, want[100])
			}
		}
	}
}

// TestDescendingBatch: a batch of a descending sequence hands out every
// value of each range (its count was once computed as 1 for a negative
// step, found by the protocol vectors), and closing gives the tail back.
func TestDescendingBatch(t *testing.T) {
	ctx := context.Background()
	pool := seqdPool(t)
	name := freshName()
	if _, err := pool.Exec(ctx, "create sequence "+name+" increment by -2"); err != nil {
		t.Fatal(err)
	}
	g := client.NewBatch(client.NewSeqd(pool, client.SeqdOptions{}), name, client.BatchOptions{Size: 10})
	for want := int64(-1); want >= -49; want -= 2 {
		if v, err := g.Next(ctx); err != nil || v != want {
			t.Fatalf("Next = %d, %v; want %d", v, err, want)
		}
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := g.Stats(); st.Issued != 25 || st.Released != 5 || st.Burned != 0 {
		t.Fatalf("stats %+v, want 25 issued, 5 released", st)
	}
	var v int64
	if err := pool.QueryRow(ctx, "select nextval($1)", name).Scan(&v); err != nil || v != -51 {
		t.Fatalf("nextval after close = %d, %v; want -51", v, err)
	}
}
