package bench

// The scale workload: a store of N sequences, as multi-tenant users keep
// (one per tenant, table or document type). On one node: creating them,
// using each once, the catalog lookups drivers and tools make by name
// (each the median of Reps runs, beside PostgreSQL holding PGN
// sequences), the server's resident memory after all that, and its
// restart to serving after a kill -9. Optionally a three-node cluster
// holding the same N: its idle CPU and a leader's kill -9 to the next
// value (RunClusterIdle).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/seqd/seqd/internal/loopback"
)

// ScaleConfig configures RunScale.
type ScaleConfig struct {
	Binary string // the seqd binary
	Dir    string // scratch: the node's store and log
	N      int    // sequences in seqd's store
	// Postgres, when set, is a PostgreSQL server to run the lookups on
	// beside seqd, holding PGN sequences (0 means 100,000) in a schema
	// of its own, dropped after.
	Postgres string
	PGN      int
	Reps     int // runs of each lookup; 0 means 5
	Block    int // CREATE SEQUENCE per transaction block; 0 means 1,000
	Progress func(string)
}

// ScaleLookup is one catalog lookup's medians.
type ScaleLookup struct {
	Name     string
	Rows     int           // the rows seqd answered
	Seqd, PG time.Duration // PG 0 when not run
	PGRows   int
}

// ScaleReport is what RunScale measured.
type ScaleReport struct {
	N, PGN   int
	Create   time.Duration // creating N, in blocks
	Use      time.Duration // nextval of each, pipelined
	Lookups  []ScaleLookup
	RSS      int64         // seqd's resident memory after the lookups, bytes
	Restart  time.Duration // kill -9 to the first nextval of the restarted node
	PGCreate time.Duration
}

func (r *ScaleReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seqd, %d sequences: created in %v (%.0f/s), each used once in %v; RSS %.0f MiB after the lookups; kill -9 to serving again %v\n",
		r.N, r.Create.Round(time.Millisecond), float64(r.N)/r.Create.Seconds(), r.Use.Round(time.Millisecond), float64(r.RSS)/(1<<20), r.Restart.Round(time.Millisecond))
	if r.PGN > 0 {
		fmt.Fprintf(&b, "PostgreSQL, %d sequences: created in %v\n", r.PGN, r.PGCreate.Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "%-40s %12s %6s", "lookup (median ms)", fmt.Sprintf("seqd %d", r.N), "rows")
	if r.PGN > 0 {
		fmt.Fprintf(&b, " %14s %6s %8s", fmt.Sprintf("postgres %d", r.PGN), "rows", "ratio")
	}
	b.WriteString("\n")
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64) }
	for _, l := range r.Lookups {
		fmt.Fprintf(&b, "%-40s %12s %6d", l.Name, ms(l.Seqd), l.Rows)
		if r.PGN > 0 {
			fmt.Fprintf(&b, " %14s %6d %7.2fx", ms(l.PG), l.PGRows, float64(l.Seqd)/float64(l.PG))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// scaleLookups are the lookups by name the issue measured: %[1]s is a
// sequence's name, %[2]s its schema, %[3]s a prefix of its name; seqd,
// where set, is what seqd runs instead of q.
//
// nextval is measured twice. On a sequence of PostgreSQL's default
// CACHE 1, seqd makes every value durable before it returns it (an
// fsync per call, shared by concurrent callers), where PostgreSQL logs
// 32 values ahead (SEQ_LOG_VALS) and flushes that record at the commit
// of the call that wrote it: one WAL flush per 32 calls, a crash
// skipping up to 32 values. The second row compares seqd at that same
// bound, CACHE 32 (values from memory, the mark written ahead in the
// background), with PostgreSQL's default.
var scaleLookups = []struct{ name, q, seqd string }{
	{"select nextval(name)", "select nextval('%[2]s.%[1]s')", ""},
	{"nextval, seqd CACHE 32 (PG's bound)", "select nextval('%[2]s.%[1]s')", "select nextval('%[2]s.s_cache32')"},
	{"pg_sequences where sequencename =", "select * from pg_sequences where sequencename = '%[1]s'", ""},
	{"has_sequence (SQLAlchemy 2)", `SELECT pg_catalog.pg_class.relname FROM pg_catalog.pg_class JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace WHERE pg_catalog.pg_class.relname = '%[1]s' AND pg_catalog.pg_class.relkind = ANY (ARRAY['S']) AND pg_catalog.pg_namespace.nspname = '%[2]s'`, ""},
	{"information_schema.sequences where name =", "select * from information_schema.sequences where sequence_name = '%[1]s'", ""},
	{"name::regclass", "select '%[2]s.%[1]s'::regclass::oid", ""},
	{`psql \d name`, `SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relname OPERATOR(pg_catalog.~) '^(%[1]s)$' COLLATE pg_catalog.default AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 2, 3`, ""},
	{`psql \ds prefix*`, `SELECT n.nspname as "Schema", c.relname as "Name", CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type", pg_catalog.pg_get_userbyid(c.relowner) as "Owner" FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('S','') AND n.nspname !~ '^pg_toast' AND c.relname OPERATOR(pg_catalog.~) '^(%[3]s.*)$' COLLATE pg_catalog.default AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1,2`, ""},
}

// RunScale runs the scale workload's single-node part.
func RunScale(ctx context.Context, sc ScaleConfig) (*ScaleReport, error) {
	if sc.Reps <= 0 {
		sc.Reps = 5
	}
	if sc.Block <= 0 {
		sc.Block = 1000
	}
	if sc.PGN <= 0 {
		sc.PGN = 100_000
	}
	progress := func(f string, a ...any) {
		if sc.Progress != nil {
			sc.Progress(fmt.Sprintf(f, a...))
		}
	}
	logf, err := os.Create(filepath.Join(sc.Dir, "seqd.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	pg, err := loopback.FreeAddr()
	if err != nil {
		return nil, err
	}
	h, err := loopback.FreeAddr()
	if err != nil {
		return nil, err
	}
	n := &node{args: []string{"-data", filepath.Join(sc.Dir, "store"), "-idle-timeout", "0"}, pg: pg, http: h, log: logf}
	if err := n.start(sc.Binary); err != nil {
		return nil, err
	}
	defer n.kill()
	dsn := fmt.Sprintf("postgres://seqbench@%s/seqbench?sslmode=disable", pg)
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer func() { c.Close(context.Background()) }()
	rep := &ScaleReport{N: sc.N}

	progress("creating %d sequences", sc.N)
	if rep.Create, err = createMany(ctx, c, sc.N, sc.Block); err != nil {
		return nil, err
	}
	progress("using each once")
	if rep.Use, err = useEach(ctx, dsn, sc.N); err != nil {
		return nil, err
	}

	progress("lookups")
	if _, err = c.Exec(ctx, "create sequence s_cache32 cache 32"); err != nil {
		return nil, err
	}
	if rep.Lookups, err = lookups(ctx, c, sc.N, "public", sc.Reps, true); err != nil {
		return nil, err
	}
	if rep.RSS, err = rss(n.cmd.Process.Pid); err != nil {
		return nil, err
	}
	c.Close(ctx)

	progress("kill -9 and restart")
	n.kill()
	began := time.Now()
	if err := n.start(sc.Binary); err != nil {
		return nil, err
	}
	for {
		if c, err = pgx.Connect(ctx, dsn); err == nil {
			_, err = c.Exec(ctx, fmt.Sprintf("select nextval('s_%d')", sc.N-1))
			if err == nil {
				break
			}
			c.Close(ctx)
		}
		if time.Since(began) > time.Minute {
			return nil, fmt.Errorf("not serving a minute after the restart: %w", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rep.Restart = time.Since(began)

	if sc.Postgres == "" {
		return rep, nil
	}
	rep.PGN = sc.PGN
	progress("PostgreSQL: creating %d sequences", sc.PGN)
	pc, err := pgx.Connect(ctx, sc.Postgres)
	if err != nil {
		return nil, err
	}
	defer func() {
		dropScaleSchema(context.Background(), pc)
		pc.Close(context.Background())
	}()
	if err := dropScaleSchema(ctx, pc); err != nil {
		return nil, err
	}
	for _, q := range []string{"create schema seqbench_scale", "set search_path = seqbench_scale"} {
		if _, err := pc.Exec(ctx, q); err != nil {
			return nil, err
		}
	}
	if rep.PGCreate, err = createMany(ctx, pc, sc.PGN, sc.Block); err != nil {
		return nil, err
	}
	progress("PostgreSQL: lookups")
	pl, err := lookups(ctx, pc, sc.PGN, "seqbench_scale", sc.Reps, false)
	if err != nil {
		return nil, err
	}
	for i := range rep.Lookups {
		rep.Lookups[i].PG, rep.Lookups[i].PGRows = pl[i].Seqd, pl[i].Rows
	}
	return rep, nil
}

// useEach takes one value of each of s_0 .. s_(n-1), from 32 sessions
// pipelining 1,000 statements a round trip.
func useEach(ctx context.Context, dsn string, n int) (time.Duration, error) {
	const sessions, batch = 32, 1000
	began := time.Now()
	var g errgroup.Group
	for w := range sessions {
		g.Go(func() error {
			c, err := pgx.Connect(ctx, dsn)
			if err != nil {
				return err
			}
			defer c.Close(context.Background())
			for i := w * batch; i < n; i += sessions * batch {
				var b pgx.Batch
				for j := i; j < min(i+batch, n); j++ {
					b.Queue(fmt.Sprintf("select nextval('s_%d')", j))
				}
				if err := c.SendBatch(ctx, &b).Close(); err != nil {
					return fmt.Errorf("using sequences %d..: %w", i, err)
				}
			}
			return nil
		})
	}
	err := g.Wait()
	return time.Since(began), err
}

// dropScaleSchema drops PostgreSQL's scratch schema, its sequences a
// thousand to a transaction first: one DROP SCHEMA ... CASCADE of 100,000
// takes a lock on each, more than PostgreSQL's lock table holds.
func dropScaleSchema(ctx context.Context, c *pgx.Conn) error {
	for {
		var names []string
		rows, err := c.Query(ctx, "select quote_ident(c.relname) from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'seqbench_scale' and c.relkind = 'S' limit 1000")
		if err != nil {
			return err
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				return err
			}
			names = append(names, "seqbench_scale."+n)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(names) == 0 {
			break
		}
		if _, err := c.Exec(ctx, "drop sequence "+strings.Join(names, ", ")); err != nil {
			return err
		}
	}
	_, err := c.Exec(ctx, "drop schema if exists seqbench_scale cascade")
	return err
}

// createMany creates s_0 .. s_(n-1) in blocks.
func createMany(ctx context.Context, c *pgx.Conn, n, block int) (time.Duration, error) {
	began := time.Now()
	for i := 0; i < n; i += block {
		var b strings.Builder
		b.WriteString("begin;")
		for j := i; j < min(i+block, n); j++ {
			fmt.Fprintf(&b, "create sequence s_%d;", j)
		}
		b.WriteString("commit")
		if _, err := c.Exec(ctx, b.String(), pgx.QueryExecModeSimpleProtocol); err != nil {
			return 0, fmt.Errorf("creating sequences %d..: %w", i, err)
		}
	}
	return time.Since(began), nil
}

// lookups runs each lookup reps times (after one unmeasured run) on c,
// whose store holds s_0 .. s_(n-1) in schema (seqd's: and s_cache32),
// and keeps the medians.
func lookups(ctx context.Context, c *pgx.Conn, n int, schema string, reps int, seqd bool) ([]ScaleLookup, error) {
	name := fmt.Sprintf("s_%d", n/2)
	prefix := name[:min(len(name), 6)]
	var out []ScaleLookup
	for _, l := range scaleLookups {
		q := fmt.Sprintf(l.q, name, schema, prefix)
		if seqd && l.seqd != "" {
			q = fmt.Sprintf(l.seqd, name, schema, prefix)
		}
		var times []time.Duration
		rows := 0
		for k := range reps + 1 {
			began := time.Now()
			rs, err := c.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", l.name, err)
			}
			rows = 0
			for rs.Next() {
				rows++
			}
			rs.Close()
			if err := rs.Err(); err != nil {
				return nil, fmt.Errorf("%s: %w", l.name, err)
			}
			if k > 0 {
				times = append(times, time.Since(began))
			}
		}
		if rows == 0 {
			return nil, fmt.Errorf("%s: no rows (%s)", l.name, q)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		out = append(out, ScaleLookup{Name: l.name, Rows: rows, Seqd: times[len(times)/2]})
	}
	return out, nil
}

// rss is a process's resident memory (VmRSS), in bytes.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for process %d", pid)
}
