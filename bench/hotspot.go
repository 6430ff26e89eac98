package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seqd/seqd/client"
	"github.com/seqd/seqd/seqmath"
)

// The hotspot workload is the TiDB Cloud article's experiment with the key
// shape as the variable: a) a model of a range-partitioned store fed the
// keys of each shape, b) inserts into the databases we run with each
// shape as the primary key.

// keyShape is one way of making primary keys from a counter 1, 2, 3, ...
type keyShape struct {
	Name  string
	shape seqmath.Shape
	// ddl is the CREATE SEQUENCE clause that gives seqd this shape.
	ddl string
}

var keyShapes = []keyShape{
	{"monotonic", seqmath.Shape{}, ""},
	{"sharded S=4", seqmath.Shape{Kind: seqmath.Sharded, ShardBits: 4, RangeBits: 64}, "SHARD_BITS 4"},
	{"bit-reversed", seqmath.Shape{Kind: seqmath.BitReversed}, "BIT_REVERSED_POSITIVE"},
}

// ModelConfig is the range-partitioned store of the model. Zero fields
// take the defaults documented on them.
type ModelConfig struct {
	Nodes     int // storage nodes; 0 means 12 (the TiDB article's TiKV nodes)
	SplitKeys int // a region splits in two at its middle key when it holds this many; 0 means 10000
	Writes    int // keys written; 0 means 2,000,000
	// Window is how many writes make one step of the shares over time:
	// much less than SplitKeys/2, the writes between two splits of a
	// region taking appends, so that a window sees the store as it is
	// between splits (in TiKV, 96 MiB regions of small rows split every
	// few tens of seconds under such load). 0 means 1000.
	Window int
	// NodeWrites is one node's write capacity (writes/s); 0 means 25,000,
	// the ceiling the TiDB article measured for one table whose inserts
	// all land on one node.
	NodeWrites float64
	PreSplit   int // regions of the pre-split variants; 0 means 16 (PRE_SPLIT_REGIONS=4)
}

func (c ModelConfig) withDefaults() ModelConfig {
	if c.Nodes <= 0 {
		c.Nodes = 12
	}
	if c.SplitKeys <= 1 {
		c.SplitKeys = 10000
	}
	if c.Writes <= 0 {
		c.Writes = 2_000_000
	}
	if c.Window <= 0 {
		c.Window = 1000
	}
	if c.NodeWrites <= 0 {
		c.NodeWrites = 25000
	}
	if c.PreSplit <= 0 {
		c.PreSplit = 16
	}
	return c
}

// ModelResult is what the model says of one key shape.
type ModelResult struct {
	Shape   string `json:"shape"`
	Regions int    `json:"regions"` // at the end
	// NodeShare is each node's share of all writes.
	NodeShare []float64 `json:"node_share"`
	// Hottest is, per window, the share of that window's writes the
	// busiest node took.
	Hottest []float64 `json:"hottest_per_window"`
	// NodeShareOverTime is each node's share of a window's writes, for
	// every ShareEvery-th window: how the hot spot moves between nodes.
	NodeShareOverTime [][]float64 `json:"node_share_over_time"`
	ShareEvery        int         `json:"share_every_windows"`
	// SteadyHottest is the mean of Hottest over the second half of the
	// run, once the initial regions have split.
	SteadyHottest float64 `json:"steady_hottest_share"`
	// EarlyHottest is its mean over the first tenth of the run, while
	// the store still has few regions: what pre-splitting changes.
	EarlyHottest float64 `json:"early_hottest_share"`
	// WriteRate is the cluster's write rate when the hottest node
	// reaches its capacity: NodeWrites / SteadyHottest.
	WriteRate float64 `json:"write_rate"`
}

// region is a key range [start, end) of the model store and the keys
// written into it.
type region struct {
	start, end uint64 // end 0: the top of the key space
	node       int
	keys       []int64
}

// RunModel feeds each key shape's keys, counters 1 to Writes, to a store
// that splits a region at its middle key when it reaches SplitKeys keys
// (as TiKV splits by size) and places the new half on the node with the
// fewest regions (PD's region balance). A write goes to the node of its
// key's region. Deterministic: the same config gives the same figures.
func RunModel(cfg ModelConfig) []ModelResult {
	cfg = cfg.withDefaults()
	type variant struct {
		name     string
		shape    seqmath.Shape
		preSplit bool
	}
	mono, sharded, reversed := keyShapes[0], keyShapes[1], keyShapes[2]
	variants := []variant{
		{mono.Name, mono.shape, false},
		{fmt.Sprintf("%s, %d pre-split regions", mono.Name, cfg.PreSplit), mono.shape, true},
		{sharded.Name, sharded.shape, false},
		{fmt.Sprintf("%s, %d pre-split regions", sharded.Name, cfg.PreSplit), sharded.shape, true},
		{reversed.Name, reversed.shape, false},
	}
	var out []ModelResult
	for _, v := range variants {
		out = append(out, runModel(cfg, v.name, v.shape, v.preSplit))
	}
	return out
}

func runModel(cfg ModelConfig, name string, shape seqmath.Shape, preSplit bool) ModelResult {
	var regions []*region
	perNode := make([]int, cfg.Nodes) // regions on each node
	if preSplit {
		// Even boundaries over the positive keys, as TiDB's
		// PRE_SPLIT_REGIONS places them on the shard bits, round robin.
		step := uint64(1<<63) / uint64(cfg.PreSplit)
		for i := range cfg.PreSplit {
			r := &region{start: uint64(i) * step, end: uint64(i+1) * step, node: i % cfg.Nodes}
			if i == cfg.PreSplit-1 {
				r.end = 0
			}
			regions = append(regions, r)
			perNode[r.node]++
		}
	} else {
		regions = []*region{{node: 0}}
		perNode[0] = 1
	}
	find := func(k uint64) int {
		// The last region starting at or before k.
		i, _ := slices.BinarySearchFunc(regions, k, func(r *region, k uint64) int {
			switch {
			case r.start < k:
				return -1
			case r.start > k:
				return 1
			}
			return 0
		})
		if i == len(regions) || regions[i].start > k {
			i--
		}
		return i
	}
	total := make([]int, cfg.Nodes)
	window := make([]int, cfg.Nodes)
	per := cfg.Window
	// About 100 samples of every node's share over the run.
	shareEvery := max(cfg.Writes/per/100, 1)
	res := ModelResult{Shape: name, ShareEvery: shareEvery}
	for c := int64(1); c <= int64(cfg.Writes); c++ {
		k := shape.Value(c)
		i := find(uint64(k))
		r := regions[i]
		r.keys = append(r.keys, k)
		total[r.node]++
		window[r.node]++
		if len(r.keys) >= cfg.SplitKeys {
			slices.Sort(r.keys)
			mid := len(r.keys) / 2
			right := &region{start: uint64(r.keys[mid]), end: r.end, node: leastLoaded(perNode)}
			right.keys = slices.Clone(r.keys[mid:])
			r.keys, r.end = r.keys[:mid], right.start
			perNode[right.node]++
			regions = slices.Insert(regions, i+1, right)
		}
		if c%int64(per) == 0 {
			res.Hottest = append(res.Hottest, float64(slices.Max(window))/float64(per))
			if w := len(res.Hottest) - 1; w%shareEvery == 0 {
				shares := make([]float64, len(window))
				for n, k := range window {
					shares[n] = float64(k) / float64(per)
				}
				res.NodeShareOverTime = append(res.NodeShareOverTime, shares)
			}
			clear(window)
		}
	}
	res.Regions = len(regions)
	for _, n := range total {
		res.NodeShare = append(res.NodeShare, float64(n)/float64(cfg.Writes))
	}
	res.SteadyHottest = mean(res.Hottest[len(res.Hottest)/2:])
	res.EarlyHottest = mean(res.Hottest[:max(len(res.Hottest)/10, 1)])
	res.WriteRate = cfg.NodeWrites / res.SteadyHottest
	return res
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// leastLoaded is the node with the fewest regions (the lowest on a tie).
func leastLoaded(perNode []int) int {
	best := 0
	for i, n := range perNode {
		if n < perNode[best] {
			best = i
		}
	}
	return best
}

// runHotspot is the measurement: for each database target (PostgreSQL, a
// B-tree primary key; MariaDB, InnoDB's clustered index), each key shape
// and each thread count, cfg.HotRows rows inserted with ids from a seqd
// sequence of that shape (through the client library's AsyncBatch, so that
// seqd is not what is measured). Each point checks the table holds as many
// distinct ids as rows, and reports throughput, latency and the size of
// the primary key's index.
func runHotspot(ctx context.Context, cfg Config) ([]Result, error) {
	seqd := seqdTarget(cfg.Targets, Seqd)
	var out []Result
	for _, t := range cfg.Targets {
		if t.Kind != Postgres && t.Kind != MariaDB {
			continue
		}
		if seqd == nil {
			return nil, fmt.Errorf("hotspot: the ids come from seqd: add a seqd target")
		}
		for _, ks := range keyShapes {
			for _, threads := range cfg.Threads {
				r, err := hotspotPoint(ctx, cfg, t, *seqd, ks, threads)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func hotspotPoint(ctx context.Context, cfg Config, t, seqd Target, ks keyShape, threads int) (Result, error) {
	pool, err := pgxpool.New(ctx, seqd.DSN)
	if err != nil {
		return Result{}, err
	}
	defer pool.Close()
	name := fmt.Sprintf("hot_%d", time.Now().UnixNano())
	if _, err := pool.Exec(ctx, fmt.Sprintf("CREATE SEQUENCE %s %s CACHE 100000", name, ks.ddl)); err != nil {
		return Result{}, fmt.Errorf("hotspot: %w", err)
	}
	defer pool.Exec(context.Background(), "DROP SEQUENCE "+name)
	ids := client.NewAsyncBatch(client.NewSeqd(pool, client.SeqdOptions{}), name, client.BatchOptions{Size: 1000, LowWatermark: 500})
	defer ids.Close(ctx)

	ss, closeAll, err := sessions(ctx, t, threads)
	if err != nil {
		return Result{}, err
	}
	defer closeAll()
	spell := rowsTable[t.Kind]
	for _, q := range []string{"DROP TABLE IF EXISTS seqbench_hot",
		"CREATE TABLE seqbench_hot (" + spell.plainID + ", " + spell.pad + ")" + spell.suffix} {
		if err := ss[0].exec(ctx, q); err != nil {
			return Result{}, fmt.Errorf("%s: %s: %w", t, q, err)
		}
	}
	insert := "INSERT INTO seqbench_hot (id, pad) VALUES ($1, $2)"
	if t.Kind == MariaDB {
		insert = strings.NewReplacer("$1", "?", "$2", "?").Replace(insert)
	}
	pad := strings.Repeat("x", 48)
	l := loop{threads: threads, server: probeFor(t), total: int64(cfg.HotRows), progress: cfg.Progress,
		label: fmt.Sprintf("hotspot %s %s %d threads", t, ks.Name, threads)}
	m, err := l.run(ctx, func(ctx context.Context, w int, vs *values) error {
		id, err := ids.Next(ctx)
		if err != nil {
			return err
		}
		return ss[w].exec(ctx, insert, id, pad)
	})
	if err != nil {
		return Result{}, err
	}
	n, err := ss[0].value(ctx, "SELECT count(*) FROM seqbench_hot")
	if err != nil {
		return Result{}, err
	}
	distinct, err := ss[0].value(ctx, "SELECT count(DISTINCT id) FROM seqbench_hot")
	if err != nil {
		return Result{}, err
	}
	if n != int64(cfg.HotRows) || distinct != n {
		return Result{}, fmt.Errorf("hotspot %s %s: %d rows with %d distinct ids, want %d", t, ks.Name, n, distinct, cfg.HotRows)
	}
	// The primary key's size: PostgreSQL's B-tree index; InnoDB's
	// clustered index, which is the table (data_length, after ANALYZE).
	sizeQ := "SELECT pg_relation_size('seqbench_hot_pkey')"
	if t.Kind == MariaDB {
		if err := ss[0].exec(ctx, "ANALYZE TABLE seqbench_hot"); err != nil {
			return Result{}, err
		}
		sizeQ = "SELECT data_length FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'seqbench_hot'"
	}
	size, err := ss[0].value(ctx, sizeQ)
	if err != nil {
		return Result{}, fmt.Errorf("hotspot %s: index size: %w", t, err)
	}
	m.vals = n
	r := point("hotspot", t, ks.Name, threads, m)
	r.Size = cfg.HotRows
	r.IndexBytes = size
	return r, nil
}

// WriteModel prints the model's figures, labelled as a model.
func WriteModel(w io.Writer, cfg ModelConfig, ms []ModelResult) error {
	cfg = cfg.withDefaults()
	fmt.Fprintf(w, "MODEL (not a measurement): a range-partitioned store of %d nodes, regions split at %d keys, new regions on the node with fewest, %d writes, node capacity %.0f writes/s\n",
		cfg.Nodes, cfg.SplitKeys, cfg.Writes, cfg.NodeWrites)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "key shape\tregions\twrites per node\thottest node, first tenth\thottest node, steady\tcluster write rate\tx one node\t")
	for _, m := range ms {
		shares := make([]string, len(m.NodeShare))
		for i, s := range m.NodeShare {
			shares[i] = fmt.Sprintf("%.0f%%", 100*s)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.1f%%\t%.1f%%\t%.0f/s\t%.2fx\t\n", m.Shape, m.Regions, strings.Join(shares, " "),
			100*m.EarlyHottest, 100*m.SteadyHottest, m.WriteRate, m.WriteRate/cfg.NodeWrites)
	}
	return tw.Flush()
}

// WriteIndexSizes prints the primary key's size at each hotspot point.
func WriteIndexSizes(w io.Writer, rs []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "database\tkey shape\tthreads\trows\tprimary key MiB\tbytes per row\t")
	for _, r := range rs {
		if r.IndexBytes == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t\n", r.Target, r.Variant, r.Threads, r.Size,
			float64(r.IndexBytes)/(1<<20), float64(r.IndexBytes)/float64(max(r.Size, 1)))
	}
	return tw.Flush()
}
