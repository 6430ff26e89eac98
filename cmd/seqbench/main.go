// Command seqbench reruns the source articles' experiments against seqd,
// PostgreSQL, MariaDB, Redis and a no-op responder, side by side. See package
// bench; this file only binds flags.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/seqd/seqd/bench"
)

func main() {
	var (
		workload = flag.String("workload", "nextval", "spanner, nextval, insert, bulk, multi, ceiling, hotspot, cluster, cluster-idle, scale, crash or timeids")
		targets  = flag.String("targets", "seqd,postgres", "comma-separated: seqd, seqd-mysql, seqd-http, seqd-grpc, postgres, mariadb, noop, noop-mysql, noop-http, noop-grpc, each optionally -nocache (e.g. postgres-nocache); redis-always, redis-everysec (Redis 7 INCR on servers seqbench starts)")
		seqdDSN  = flag.String("seqd", "postgres://seqbench@127.0.0.1:6543/seqbench?sslmode=disable", "seqd address (pgx connection string)")
		pgDSN    = flag.String("postgres", os.Getenv("SEQD_TEST_PG_DSN"), "PostgreSQL address (pgx connection string)")
		myDSN    = flag.String("mariadb", os.Getenv("SEQD_TEST_MARIADB_DSN"), "MariaDB address (go-sql-driver/mysql DSN)")
		seqdMy   = flag.String("seqd-mysql", "seqbench@tcp(127.0.0.1:3306)/public", "seqd's MySQL protocol address (go-sql-driver/mysql DSN; seqd -mysql-listen)")
		seqdHTTP = flag.String("seqd-http", "http://127.0.0.1:8080", "seqd's HTTP API base URL (seqd -api-listen); its sequences are made through -seqd")
		seqdGRPC = flag.String("seqd-grpc", "127.0.0.1:9090", "seqd's gRPC service address (seqd -grpc-listen); its sequences are made through -seqd")
		noopDSN  = flag.String("noop", "", "no-op responder address (cmd/pgnoop); ceiling starts one in-process if empty")
		noopHTTP = flag.String("noop-http", "", "no-op HTTP API base URL (cmd/pgnoop -http); ceiling starts one in-process if empty and seqd-http is a target")
		noopGRPC = flag.String("noop-grpc", "", "no-op gRPC service address (cmd/pgnoop -grpc); ceiling starts one in-process if empty and seqd-grpc is a target")
		noopMy   = flag.String("noop-mysql", "", "no-op MySQL responder address (go-sql-driver/mysql DSN; cmd/pgnoop -mysql); ceiling starts one in-process if empty and seqd-mysql is a target")
		prepared = flag.Bool("mysql-prepared", false, "nextval, ceiling: MySQL targets use server-side prepared statements (default: text, parameters interpolated)")
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
		insTime   = flag.Duration("insert-time", 0, "insert: insert for this long at each point instead of -rows (fixed time)")
		bulkSize  = flag.Int("bulk-size", 100000, "bulk: values per call")
		sequences = flag.Int("sequences", 8, "multi: K sequences")
		pipeline  = flag.Int("pipeline", 1, "nextval, ceiling: statements per round trip (pgx batches; seqd-grpc: requests in flight on its Ranges stream)")
		streamRng = flag.Int64("stream-range", 1, "seqd-grpc with -pipeline: values per Ranges request")
		streamBat = flag.Bool("stream-batch", false, "seqd-grpc with -pipeline: the pipeline's values in one Ranges request (as PD's TSO client batches its callers)")

		hotRows    = flag.Int("hot-rows", 100000, "hotspot: rows inserted per point")
		nodes      = flag.Int("nodes", 12, "hotspot model: storage nodes (the TiDB article's TiKV cluster had 12)")
		splitKeys  = flag.Int("split-keys", 10000, "hotspot model: keys at which a region splits")
		writes     = flag.Int("writes", 2_000_000, "hotspot model: keys written per key shape")
		nodeWrites = flag.Float64("node-writes", 25000, "hotspot model: one node's write capacity (writes/s)")

		seqdBin   = flag.String("seqd-binary", "", "cluster: the seqd binary the nodes run (go build -o /tmp/seqd ./cmd/seqd)")
		failovers = flag.Int("failovers", 10, "cluster: leader kills measured")
		idleSeqs  = flag.Int("idle-sequences", 10000, "cluster-idle: sequences in the store while the cluster's idle CPU is measured (for -duration)")
		idleProf  = flag.String("idle-cpuprofile", "", "cluster-idle: write a CPU profile of the etcd members (this process) over the idle stretch to this file")
		idleWait  = flag.Duration("idle-settle", 2*time.Minute, "cluster-idle: the most to wait, before the idle stretch, for every node to collect the garbage of the followers' listing of the sequences (then an eighth of it more); 0: none")
		idleDDL   = flag.Duration("idle-ddl", 0, "cluster-idle: after the idle stretch, one of this long with a CREATE SEQUENCE every 2 s through the leader, measured the same way (0: none)")
		scaleN    = flag.Int("scale-sequences", 100000, "scale: sequences in seqd's store")
		scalePG   = flag.Int("scale-postgres-sequences", 100000, "scale: sequences in PostgreSQL's (-postgres; none if it is empty)")
		scaleCl   = flag.Bool("scale-cluster", false, "scale: also a three-node cluster holding -scale-sequences (cluster-idle's measures, for -duration)")

		csvOut  = flag.String("csv", "", "write results as CSV to this file")
		jsonOut = flag.String("json", "", "write results and ratios as JSON to this file")
		pngOut  = flag.String("png", "", "write a chart to this PNG file")
		cpuPNG  = flag.String("cpu-png", "", "write a chart of server CPU per value and values/s, a bar per client count, to this PNG file")
		quiet   = flag.Bool("q", false, "no progress line")

		redisBin = flag.String("redis-server", envOr("SEQD_TEST_REDIS_SERVER", "redis-server"), "redis-server binary for the redis-* targets (scripts/test-deps.sh installs Debian's)")
		runs     = flag.Int("runs", 1, "run the workload this many times and report each point's median and each ratio's median (nextval, ceiling, bulk, multi, spanner)")
		kills    = flag.Int("kills", 5, "crash: kill -9s of each target's server, evenly spread over -duration")
	)
	flag.Parse()
	defer cleanup()
	if *workload == "timeids" {
		timeIDs(*threads, *duration, *pgDSN, *jsonOut)
		return
	}
	if *workload == "cluster-idle" {
		clusterIdle(bench.ClusterBenchConfig{Binary: *seqdBin, IdleProfile: *idleProf, IdleSettle: *idleWait, IdleDDL: *idleDDL}, *idleSeqs, *duration)
		return
	}
	if *workload == "scale" {
		scale(*seqdBin, *scaleN, *pgDSN, *scalePG, *scaleCl, *idleWait, *duration, !*quiet)
		return
	}
	if *workload == "cluster" {
		cluster(*seqdBin, *failovers, *cache, *threads, *duration, *rate, !*quiet, *csvOut, *jsonOut, *pngOut)
		return
	}
	ts, err := bench.ParseTargets(*targets, map[string]string{bench.Seqd: *seqdDSN, bench.Postgres: *pgDSN, bench.MariaDB: *myDSN, bench.SeqdMySQL: *seqdMy, bench.Noop: *noopDSN, bench.NoopMySQL: *noopMy,
		bench.SeqdHTTP: *seqdHTTP, bench.SeqdGRPC: *seqdGRPC, bench.NoopHTTP: *noopHTTP, bench.NoopGRPC: *noopGRPC}, *cache)
	check(err)
	if *workload == "crash" {
		crash(ts, *seqdBin, *redisBin, *threads, *duration, *kills, !*quiet, *jsonOut)
		return
	}
	startRedis(ts, *redisBin)
	cfg := bench.Config{Workload: *workload, Targets: ts, Duration: *duration, Rate: *rate,
		Mode: *mode, Iterations: *iterations, BatchSize: *batchSize, LowWatermark: *lowWater, TxnTime: *txn,
		Reps: *reps, RowsPerTx: *rowsPerTx, BulkSize: *bulkSize, Sequences: *sequences, Pipeline: *pipeline, StreamRange: *streamRng, StreamBatch: *streamBat, HotRows: *hotRows, Prepared: *prepared, InsertTime: *insTime}
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
	if *workload == "hotspot" {
		hotspot(ctx, cfg, bench.ModelConfig{Nodes: *nodes, SplitKeys: *splitKeys, Writes: *writes, NodeWrites: *nodeWrites}, *csvOut, *jsonOut, *pngOut)
		return
	}
	if *runs > 1 {
		repeated(ctx, cfg, *runs, *csvOut, *jsonOut, *pngOut, *cpuPNG)
		return
	}
	rs, err := bench.Run(ctx, cfg)
	check(err)
	check(bench.WriteTable(os.Stdout, rs))
	write(*csvOut, func(f *os.File) error { return bench.WriteCSV(f, rs) })
	write(*jsonOut, func(f *os.File) error { return bench.WriteJSON(f, rs) })
	write(*pngOut, func(f *os.File) error { return bench.WritePNG(f, rs, "seqbench "+*workload) })
	write(*cpuPNG, func(f *os.File) error { return bench.WriteCPUPNG(f, rs, *workload) })
}

// repeated runs cfg n times, printing each run's table, then the medians
// (each point's figures, each ratio); the files get the medians (the
// JSON every run's results too).
func repeated(ctx context.Context, cfg bench.Config, n int, csvOut, jsonOut, pngOut, cpuPNG string) {
	var all [][]bench.Result
	for i := range n {
		rs, err := bench.Run(ctx, cfg)
		check(err)
		fmt.Printf("run %d of %d\n", i+1, n)
		check(bench.WriteTable(os.Stdout, rs))
		fmt.Println()
		all = append(all, rs)
	}
	check(bench.WriteMedianTable(os.Stdout, all))
	med := bench.MedianResults(all)
	write(csvOut, func(f *os.File) error { return bench.WriteCSV(f, med) })
	write(jsonOut, func(f *os.File) error { return bench.WriteMedianJSON(f, all) })
	write(pngOut, func(f *os.File) error {
		return bench.WritePNG(f, med, fmt.Sprintf("seqbench %s (medians of %d runs)", cfg.Workload, n))
	})
	write(cpuPNG, func(f *os.File) error {
		return bench.WriteCPUPNG(f, med, fmt.Sprintf("%s, medians of %d runs", cfg.Workload, n))
	})
}

// startRedis starts a redis-server for each Redis target, in a temporary
// directory removed, with the servers, when seqbench ends.
func startRedis(ts []bench.Target, bin string) {
	dir, err := os.MkdirTemp("", "seqbench-redis")
	check(err)
	atExit(func() { os.RemoveAll(dir) })
	stop, err := bench.StartRedisTargets(ts, redisPath(ts, bin), dir)
	atExit(stop)
	check(err)
}

// redisPath resolves the redis-server binary if a target needs it.
func redisPath(ts []bench.Target, bin string) string {
	for _, t := range ts {
		if t.Kind == bench.RedisAlways || t.Kind == bench.RedisEverysec {
			p, err := exec.LookPath(bin)
			if err != nil {
				check(fmt.Errorf("target %s: %w (scripts/test-deps.sh installs Redis)", t.Name, err))
			}
			return p
		}
	}
	return bin
}

// timeIDs runs the timeids workload: time-ordered id generators in this
// process (seqd's, Sonyflake, bwmarrin/snowflake), seqd's SNOWFLAKE
// sequences over the wire and PostgreSQL's sequence (-postgres, when
// set), their speed and what each does when restarted into a clock that
// went back.
func timeIDs(threads string, duration time.Duration, postgres, jsonOut string) {
	dir, err := os.MkdirTemp("", "seqbench-timeids")
	check(err)
	atExit(func() { os.RemoveAll(dir) })
	cfg := bench.TimeIDsConfig{Dir: dir, Duration: duration, Postgres: postgres}
	if threads != "" {
		cfg.Threads, err = ints(threads)
		check(err)
	}
	res, err := bench.RunTimeIDs(cfg)
	check(err)
	check(bench.WriteTimeIDs(os.Stdout, res))
	write(jsonOut, func(f *os.File) error { return json.NewEncoder(f).Encode(res) })
}

// crash runs the crash workload: each target's server killed -9 and
// restarted kills times under load, the values returned twice counted.
func crash(ts []bench.Target, seqdBin, redisBin, threads string, duration time.Duration, kills int, progress bool, jsonOut string) {
	dir, err := os.MkdirTemp("", "seqbench-crash")
	check(err)
	atExit(func() { os.RemoveAll(dir) })
	cc := bench.CrashConfig{Targets: ts, SeqdBinary: seqdBin, RedisBinary: redisPath(ts, redisBin), Dir: dir, Duration: duration, Kills: kills}
	if threads != "" {
		n, err := ints(threads)
		check(err)
		if len(n) != 1 {
			check(fmt.Errorf("-workload crash takes one client count, not %q", threads))
		}
		cc.Threads = n[0]
	}
	if progress {
		cc.Progress = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rs, err := bench.RunCrash(ctx, cc)
	check(err)
	check(bench.WriteCrash(os.Stdout, rs))
	write(jsonOut, func(f *os.File) error { return bench.WriteCrashJSON(f, rs) })
}

// hotspot runs the model, then the measurement on the database targets
// (if any); the model's chart goes beside the measurement's, as
// NAME-model.png.
func hotspot(ctx context.Context, cfg bench.Config, mc bench.ModelConfig, csvOut, jsonOut, pngOut string) {
	ms := bench.RunModel(mc)
	check(bench.WriteModel(os.Stdout, mc, ms))
	var rs []bench.Result
	for _, t := range cfg.Targets {
		if t.Kind == bench.Postgres || t.Kind == bench.MariaDB {
			var err error
			rs, err = bench.Run(ctx, cfg)
			check(err)
			fmt.Println()
			check(bench.WriteTable(os.Stdout, rs))
			fmt.Println()
			check(bench.WriteIndexSizes(os.Stdout, rs))
			break
		}
	}
	write(csvOut, func(f *os.File) error { return bench.WriteCSV(f, rs) })
	write(jsonOut, func(f *os.File) error { return bench.WriteHotspotJSON(f, mc, ms, rs) })
	if pngOut != "" {
		write(strings.TrimSuffix(pngOut, ".png")+"-model.png", func(f *os.File) error { return bench.WriteModelPNG(f, mc, ms) })
		if len(rs) > 0 {
			write(pngOut, func(f *os.File) error { return bench.WritePNG(f, rs, "seqbench hotspot: inserts with each key shape") })
		}
	}
}

// cluster runs the cluster workload: a three-node cluster against one
// node, then leader kills.
func cluster(bin string, failovers int, cache int64, threads string, duration time.Duration, rate float64, progress bool, csvOut, jsonOut, pngOut string) {
	if bin == "" {
		check(fmt.Errorf("-workload cluster needs -seqd-binary (go build -o /tmp/seqd ./cmd/seqd)"))
	}
	dir, err := os.MkdirTemp("", "seqbench-cluster")
	check(err)
	defer os.RemoveAll(dir)
	cfg := bench.Config{Workload: "cluster", Duration: duration, Rate: rate, Threads: []int{1, 8, 64}}
	if threads != "" {
		cfg.Threads, err = ints(threads)
		check(err)
	}
	if progress {
		cfg.Progress = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := bench.RunClusterBench(ctx, cfg, bench.ClusterBenchConfig{Binary: bin, Dir: dir, Failovers: failovers, Cache: cache})
	check(err)
	check(bench.WriteTable(os.Stdout, rep.Results))
	fmt.Println()
	fmt.Print(rep)
	write(csvOut, func(f *os.File) error { return bench.WriteCSV(f, rep.Results) })
	write(jsonOut, func(f *os.File) error { return bench.WriteJSON(f, rep.Results) })
	write(pngOut, func(f *os.File) error {
		return bench.WritePNG(f, rep.Results, "seqbench cluster: three nodes on etcd against one")
	})
}

// clusterIdle runs the cluster-idle workload: a three-node cluster's CPU
// at rest with n sequences in its store.
func clusterIdle(cc bench.ClusterBenchConfig, n int, idle time.Duration) {
	if cc.Binary == "" {
		check(fmt.Errorf("-workload cluster-idle needs -seqd-binary (go build -o /tmp/seqd ./cmd/seqd)"))
	}
	dir, err := os.MkdirTemp("", "seqbench-cluster-idle")
	check(err)
	defer os.RemoveAll(dir)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cc.Dir = dir
	rep, err := bench.RunClusterIdle(ctx, cc, n, idle)
	check(err)
	fmt.Print(rep)
}

// scale runs the scale workload: n sequences on one node beside
// PostgreSQL holding pgn, and, with cluster, in a three-node cluster.
func scale(bin string, n int, pgDSN string, pgn int, cluster bool, settle, idle time.Duration, progress bool) {
	if bin == "" {
		check(fmt.Errorf("-workload scale needs -seqd-binary (go build -o /tmp/seqd ./cmd/seqd)"))
	}
	dir, err := os.MkdirTemp("", "seqbench-scale")
	check(err)
	defer os.RemoveAll(dir)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sc := bench.ScaleConfig{Binary: bin, Dir: dir, N: n, Postgres: pgDSN, PGN: pgn}
	if progress {
		sc.Progress = func(s string) { fmt.Fprintln(os.Stderr, s) }
	}
	rep, err := bench.RunScale(ctx, sc)
	check(err)
	fmt.Print(rep)
	if cluster {
		cdir := filepath.Join(dir, "cluster")
		check(os.Mkdir(cdir, 0o700))
		crep, err := bench.RunClusterIdle(ctx, bench.ClusterBenchConfig{Binary: bin, Dir: cdir, IdleSettle: settle}, n, idle)
		check(err)
		fmt.Print("cluster of three: ", crep)
	}
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

// cleanups run at the end, and before an exit on an error: the
// servers seqbench started must not outlive it.
var cleanups []func()

func atExit(f func()) { cleanups = append(cleanups, f) }

func cleanup() {
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	cleanups = nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func check(err error) {
	if err != nil {
		cleanup()
		fmt.Fprintln(os.Stderr, "seqbench:", err)
		os.Exit(1)
	}
}
