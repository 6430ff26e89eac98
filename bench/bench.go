package bench

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Config is one seqbench run: a workload over targets. The zero value of
// a field means the default documented on it.
type Config struct {
	Workload string   // spanner, nextval, insert, bulk, multi, ceiling or hotspot
	Targets  []Target // the systems compared
	// Threads is the grid of client counts; nil means 1, 8, 16, 24, 64,
	// 128 (the TiDB, MariaDB and PostgreSQL articles' grids), for spanner
	// 10 and 50 (its article's), for insert 1.
	Threads  []int
	Duration time.Duration // per point of a timed workload; 0 means 10s
	// Rate, if > 0, runs timed workloads in open loop at this many
	// operations per second in all, with latencies corrected for
	// coordinated omission.
	Rate float64

	// spanner
	Mode         string        // sync, async, batch or async-batch; "" means all four
	Iterations   int           // values per point; 0 means 2000
	BatchSize    int64         // 0 means 200 (the article's)
	LowWatermark int64         // 0 means 50 (the article's)
	TxnTime      time.Duration // the simulated application transaction; 0 means 10ms, <0 none

	// insert
	Rows      []int // table sizes timed; nil means 1000, 5000, 10000
	Reps      int   // repetitions of each; 0 means 10
	RowsPerTx int   // 0 means 1 (row by row); the MariaDB article also uses 10
	// InsertTime, when positive, times the insert workload by the
	// clock: as many rows as fit in it (the TiDB article's fixed-time
	// runs), in place of the fixed counts of Rows.
	InsertTime time.Duration

	// bulk
	BulkSize int // values per call; 0 means 100000

	// multi
	Sequences int // K; 0 means 8

	// hotspot
	HotRows int // rows inserted per point; 0 means 100000

	// Pipeline, for nextval and ceiling: statements sent per round trip
	// (pgx batches, as pgbench's \startpipeline); 0 or 1 means one.
	Pipeline int
	// StreamRange, for seqd-grpc's pipeline: values per Ranges request
	// (default 1: one value per message, as a pipelined nextval).
	StreamRange int64
	// StreamBatch, for seqd-grpc's pipeline: the pipeline's values asked
	// for in one Ranges request (pipeline x StreamRange values), as PD's
	// TSO client sends its waiting callers' timestamps as one request,
	// instead of one request per value.
	StreamBatch bool
	// Prepared: the nextval workload's MySQL sessions use server-side
	// prepared statements (COM_STMT_PREPARE once, then COM_STMT_EXECUTE
	// and the binary protocol) instead of text with the parameters
	// interpolated.
	Prepared bool

	Progress io.Writer // the progress line; nil for none
}

func (c Config) withDefaults() Config {
	if c.Threads == nil {
		switch c.Workload {
		case "spanner":
			c.Threads = []int{10, 50} // the Spanner article's
		case "insert":
			c.Threads = []int{1} // the TiDB article's latency test
		case "hotspot":
			c.Threads = []int{1, 8, 64}
		default:
			c.Threads = []int{1, 8, 16, 24, 64, 128}
		}
	}
	if c.Duration <= 0 {
		c.Duration = 10 * time.Second
	}
	if c.Iterations <= 0 {
		c.Iterations = 2000
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 200
	}
	if c.LowWatermark <= 0 {
		c.LowWatermark = 50
	}
	if c.TxnTime == 0 {
		c.TxnTime = 10 * time.Millisecond
	}
	if c.Rows == nil {
		c.Rows = []int{1000, 5000, 10000}
	}
	if c.Reps <= 0 {
		c.Reps = 10
	}
	if c.RowsPerTx <= 0 {
		c.RowsPerTx = 1
	}
	if c.BulkSize <= 0 {
		c.BulkSize = 100000
	}
	if c.Sequences <= 0 {
		c.Sequences = 8
	}
	if c.HotRows <= 0 {
		c.HotRows = 100000
	}
	return c
}

// Result is one measured point.
type Result struct {
	Workload string  `json:"workload"`
	Target   string  `json:"target"`
	Variant  string  `json:"variant,omitempty"` // e.g. the mode, "8 sequences", "identity"
	Threads  int     `json:"threads"`
	Size     int     `json:"size,omitempty"` // rows inserted (insert), values per call (bulk)
	Ops      int64   `json:"ops"`            // operations (calls, iterations, inserted rows)
	Values   int64   `json:"values"`         // sequence values received and checked
	Seconds  float64 `json:"seconds"`
	OpsPerS  float64 `json:"ops_per_s"`
	ValsPerS float64 `json:"values_per_s"`
	MeanMs   float64 `json:"mean_ms"` // insert: mean time of one repetition; others: mean latency
	P50Ms    float64 `json:"p50_ms"`
	P75Ms    float64 `json:"p75_ms"`
	P90Ms    float64 `json:"p90_ms"`
	P99Ms    float64 `json:"p99_ms"`
	MaxMs    float64 `json:"max_ms"`
	// ServerCPUUs is the server's CPU time per operation in
	// microseconds (user + system, its child processes included); 0 when
	// the server could not be measured (see cpu.go).
	ServerCPUUs float64 `json:"server_cpu_us_per_op,omitempty"`
	// ServerSysUs is the part of ServerCPUUs spent in the kernel
	// (system time: the system calls of reading requests and writing
	// answers, the network stack, waking the client).
	ServerSysUs float64 `json:"server_sys_us_per_op,omitempty"`
	// IndexBytes is the primary key's size after the point (hotspot).
	IndexBytes int64 `json:"index_bytes,omitempty"`
}

// Run runs cfg's workload over its targets, one point at a time, and
// returns every point. It fails on the first error, including any value
// received twice or a count that does not add up.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	if len(cfg.Targets) == 0 {
		return nil, fmt.Errorf("no targets")
	}
	if cfg.Workload != "nextval" && cfg.Workload != "ceiling" && cfg.Workload != "insert" {
		for _, t := range cfg.Targets {
			if t.Kind == SeqdMySQL || t.Kind == NoopMySQL {
				return nil, fmt.Errorf("target %s runs the nextval, ceiling and insert workloads only", t.Name)
			}
			if t.api() {
				return nil, fmt.Errorf("target %s runs the nextval and ceiling workloads only", t.Name)
			}
		}
	}
	for _, t := range cfg.Targets {
		if t.redis() && cfg.Workload != "nextval" && cfg.Workload != "ceiling" {
			return nil, fmt.Errorf("target %s runs the nextval and ceiling workloads only (and -workload crash)", t.Name)
		}
		if t.redis() && t.DSN == "" {
			return nil, fmt.Errorf("target %s: no server (StartRedisTargets starts one)", t.Name)
		}
	}
	if cfg.Workload == "insert" {
		for _, t := range cfg.Targets {
			if t.api() {
				return nil, fmt.Errorf("target %s runs the nextval and ceiling workloads only", t.Name)
			}
		}
	}
	switch cfg.Workload {
	case "nextval", "ceiling":
		return runNextval(ctx, cfg)
	case "spanner":
		return runSpanner(ctx, cfg)
	case "insert":
		return runInsert(ctx, cfg)
	case "bulk":
		return runBulk(ctx, cfg)
	case "multi":
		return runMulti(ctx, cfg)
	case "hotspot":
		return runHotspot(ctx, cfg)
	}
	return nil, fmt.Errorf("unknown workload %q (want spanner, nextval, insert, bulk, multi, ceiling or hotspot)", cfg.Workload)
}

// point turns a measurement into a Result.
func point(workload string, t Target, variant string, threads int, m measured) Result {
	s := m.elapsed.Seconds()
	ms := func(us int64) float64 { return float64(us) / 1000 }
	r := Result{
		Workload: workload, Target: t.Name, Variant: variant, Threads: threads,
		Ops: m.ops, Values: m.vals, Seconds: s,
		OpsPerS: float64(m.ops) / s, ValsPerS: float64(m.vals) / s,
		MeanMs: m.hist.Mean() / 1000,
		P50Ms:  ms(m.hist.ValueAtQuantile(50)), P75Ms: ms(m.hist.ValueAtQuantile(75)),
		P90Ms: ms(m.hist.ValueAtQuantile(90)), P99Ms: ms(m.hist.ValueAtQuantile(99)),
		MaxMs: ms(m.hist.Max()),
	}
	if m.cpuKnown && m.ops > 0 {
		r.ServerCPUUs = float64(m.serverCPU.Microseconds()) / float64(m.ops)
		r.ServerSysUs = float64(m.serverSys.Microseconds()) / float64(m.ops)
	}
	return r
}

// sessions opens n sessions to t, closed by the returned function.
func sessions(ctx context.Context, t Target, n int) ([]session, func(), error) {
	ss := make([]session, 0, n)
	closeAll := func() {
		for _, s := range ss {
			s.close()
		}
	}
	for w := range n {
		s, err := connect(ctx, t.session(w))
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		ss = append(ss, s)
	}
	return ss, closeAll, nil
}
