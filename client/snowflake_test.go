package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/seqd/seqd/client"
	"github.com/seqd/seqd/timeid"
)

// TestSnowflakeBatch: a batch of a SNOWFLAKE sequence generates its ids
// locally from the ranges it reserves, as the server would: increasing
// across ranges, each of Twitter's layout with the server's node part,
// its time within a few seconds of the clock (a range borrows the units
// it spans), and above what nextval handed out before it.
func TestSnowflakeBatch(t *testing.T) {
	ctx := context.Background()
	pool := seqdPool(t)
	name := freshName()
	if _, err := pool.Exec(ctx, "create sequence "+name+" snowflake"); err != nil {
		t.Fatal(err)
	}
	var last int64
	if err := pool.QueryRow(ctx, "select nextval($1)", name).Scan(&last); err != nil {
		t.Fatal(err)
	}
	src := client.NewSeqd(pool, client.SeqdOptions{})
	for _, async := range []bool{false, true} {
		g := client.NewBatch(src, name, client.BatchOptions{Size: 10_000})
		if async {
			g = client.NewAsyncBatch(src, name, client.BatchOptions{Size: 10_000})
		}
		for range 50_000 {
			v, err := g.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			at, node, _ := timeid.Twitter.Decode(v)
			if v <= last || node != 0 || time.Since(at) > time.Minute || time.Until(at) > timeid.DefaultMaxBehind+time.Second {
				t.Fatalf("async %v: id %d (time %v, node %d) after %d", async, v, at, node, last)
			}
			last = v
		}
		g.Close(ctx)
	}
}

// BenchmarkSnowflakeBatch is local generation of SNOWFLAKE ids: an
// AsyncBatch of 1<<20 counters a range, mapped to ids in the client.
// Twitter's layout holds 4,096 ids a millisecond (4.1M/s): past that
// the server makes reservations wait for the clock, as Snowflake's
// generators do; 18 counter bits hold 262M/s.
func BenchmarkSnowflakeBatch(b *testing.B) {
	for _, c := range []struct{ name, clause string }{
		{"twitter", "snowflake"},
		{"counter-bits-18", "snowflake node_bits 4 counter_bits 18"},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			pool := seqdPool(b)
			name := freshName()
			if _, err := pool.Exec(ctx, "create sequence "+name+" "+c.clause); err != nil {
				b.Fatal(err)
			}
			g := client.NewAsyncBatch(client.NewSeqd(pool, client.SeqdOptions{}), name, client.BatchOptions{Size: 1 << 20})
			defer g.Close(ctx)
			for b.Loop() {
				if _, err := g.Next(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
