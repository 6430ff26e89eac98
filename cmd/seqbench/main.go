// Command seqbench reruns the source articles' experiments against seqd,
// PostgreSQL, MariaDB and a no-op responder, side by side. See package
// bench; this file only binds flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/seqd/seqd/bench"
)

func main() {
	var (
		workload = flag.String("workload", "nextval", "spanner, nextval, insert, bulk, multi or ceiling")
		targets  = flag.String("targets", "seqd,postgres", "comma-separated: seqd, postgres, mariadb, noop, each optionally -nocache (e.g. postgres-nocache)")
		seqdDSN  = flag.String("seqd", "postgres://seqbench@127.0.0.1:6543/seqbench?sslmode=disable", "seqd address (pgx connection string)")
		pgDSN    = flag.String("postgres", os.Getenv("SEQD_TEST_PG_DSN"), "PostgreSQL address (pgx connection string)")
		myDSN    = flag.String("mariadb", os.Getenv("SEQD_TEST_MARIADB_DSN"), "MariaDB address (go-sql-driver/mysql DSN)")
		noopDSN  = flag.String("noop", "", "no-op responder address (cmd/pgnoop); ceiling starts one in-process if empty")
		cache    = flag.Int64("cache", 1000, "CACHE of the sequences of cached targets (-nocache targets: 1)")
		threads  = flag.String("threads", "", "client counts, e.g. 1,8,16,24,64,128 (default depends on the workload)")
		duration = flag.Duration("duration", 10*time.Second, "time per point of timed workloads")
		rate     = flag.Float64("rate", 0, "open loop: operations per second in all (latencies corrected for coordinated omission); 0 = closed loop")

		mode       = flag.String("mode", "", "spanner: sync, async, batch or async-batch (default: all four)")
		iterations = flag.Int("iterations", 2000, "spanner: values per point")
		batchSize  = flag.Int64("batch-size", 200, "spanner: batch size")
		lowWater   = flag.Int64("low-watermark", 50, "spanner: async-batch low watermark")
		txn        = flag.Duration("txn", 10*time.Millisecond, "spanner: simulated application transaction (negative: none)")

		rows      = flag.String("rows", "1000,5000,10000", "insert: rows per repetition")
		reps      = flag.Int("reps", 10, "insert: repetitions")
		rowsPerTx = flag.Int("rows-per-tx", 1, "insert: rows per transaction (1: autocommit row by row)")
		bulkSize  = flag.Int("bulk-size", 100000, "bulk: values per call")
		sequences = flag.Int("sequences", 8, "multi: K sequences")
		pipeline  = flag.Int("pipeline", 1, "nextval, ceiling: statements per round trip (pgx batches)")

		csvOut  = flag.String("csv", "", "write results as CSV to this file")
		jsonOut = flag.String("json", "", "write results and ratios as JSON to this file")
		pngOut  = flag.String("png", "", "write a chart to this PNG file")
		quiet   = flag.Bool("q", false, "no progress line")
	)
	flag.Parse()
	ts, err := bench.ParseTargets(*targets, map[string]string{bench.Seqd: *seqdDSN, bench.Postgres: *pgDSN, bench.MariaDB: *myDSN, bench.Noop: *noopDSN}, *cache)
	check(err)
	cfg := bench.Config{Workload: *workload, Targets: ts, Duration: *duration, Rate: *rate,
		Mode: *mode, Iterations: *iterations, BatchSize: *batchSize, LowWatermark: *lowWater, TxnTime: *txn,
		Reps: *reps, RowsPerTx: *rowsPerTx, BulkSize: *bulkSize, Sequences: *sequences, Pipeline: *pipeline}
	if *threads != "" {
		cfg.Threads, err = ints(*threads)
		check(err)
	}
	cfg.Rows, err = ints(*rows)
	check(err)
	if !*quiet {
		cfg.Progress = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rs, err := bench.Run(ctx, cfg)
	check(err)
	check(bench.WriteTable(os.Stdout, rs))
	write(*csvOut, func(f *os.File) error { return bench.WriteCSV(f, rs) })
	write(*jsonOut, func(f *os.File) error { return bench.WriteJSON(f, rs) })
	write(*pngOut, func(f *os.File) error { return bench.WritePNG(f, rs, "seqbench "+*workload) })
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad count %q in %q", f, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func write(path string, fn func(*os.File) error) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	check(err)
	check(fn(f))
	check(f.Close())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "seqbench:", err)
		os.Exit(1)
	}
}
