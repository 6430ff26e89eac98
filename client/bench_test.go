package client_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/seqd/seqd/client"
)

// BenchmarkNext measures Next per mode and source with 1 and 8
// goroutines (docs/benchmarks.md). "seqd" sequences have CACHE 32, which
// matches what PostgreSQL logs ahead of a NO CACHE sequence (so a range of
// 1000 waits for seqd's fsync); "seqd-cache" ones CACHE 10000000, so
// ranges come from memory. Batches hold 1000 values (AsyncBatch prefetches
// at 500 left); "async-batch-1m" holds 1<<20 (prefetch at half).
func BenchmarkNext(b *testing.B) {
	for _, kind := range append([]string{"seqd-cache"}, kinds...) {
		for _, mode := range []string{"sync", "async", "batch", "async-batch", "async-batch-1m"} {
			size := int64(1000)
			if mode == "async-batch-1m" {
				size = 1 << 20
			}
			table := kind == "postgres-table" || kind == "mysql-table"
			if mode == "sync" && !table {
				continue
			}
			for _, par := range []int{1, 8} {
				b.Run(fmt.Sprintf("%s/%s/%d", mode, kind, par), func(b *testing.B) {
					inc := int64(1)
					if mode != "sync" && mode != "async" {
						inc = size
					}
					var src client.Source
					switch kind {
					case "seqd":
						src = client.NewSeqd(seqdPool(b), client.SeqdOptions{Cache: 32})
					case "seqd-cache":
						src = client.NewSeqd(seqdPool(b), client.SeqdOptions{Cache: 10_000_000})
					default:
						src = source(b, kind, inc)
					}
					name := created(b, src)
					ctx := context.Background()
					var next func() (int64, error)
					switch mode {
					case "sync":
						s, db := tableSource(b, kind)
						g := client.NewSync(s, name)
						next = func() (v int64, err error) {
							err = client.RunTx(ctx, db, nil, client.Retry{}, func(tx *sql.Tx) error {
								v, err = g.Next(ctx, tx)
								return err
							})
							return v, err
						}
					case "async":
						g := client.NewAsync(src, name)
						next = func() (int64, error) { return g.Next(ctx) }
					default:
						var g client.Generator
						if mode == "batch" {
							g = client.NewBatch(src, name, client.BatchOptions{Size: size})
						} else { // async-batch, async-batch-1m
							g = client.NewAsyncBatch(src, name, client.BatchOptions{Size: size, LowWatermark: size / 2})
						}
						defer g.Close(ctx)
						next = func() (int64, error) { return g.Next(ctx) }
					}
					if par == 1 {
						for b.Loop() {
							if _, err := next(); err != nil {
								b.Fatal(err)
							}
						}
					} else {
						b.SetParallelism((par + 1) / 2) // x GOMAXPROCS (2 here) goroutines
						b.RunParallel(func(pb *testing.PB) {
							for pb.Next() {
								if _, err := next(); err != nil {
									b.Error(err)
									return
								}
							}
						})
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s")
				})
			}
		}
	}
}
