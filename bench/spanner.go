package bench

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL table sources
	"github.com/seqd/seqd/client"
)

// Modes are the Spanner article's generators, as named by its tool.
var Modes = []string{"sync", "async", "batch", "async-batch"}

// runSpanner is the Spanner article's test: THREADS workers take
// ITERATIONS values in all through one generator mode, each value
// followed by a simulated application transaction (10 ms); in sync mode
// the value is taken inside that transaction, which holds the row. Over
// PostgreSQL and MariaDB the source is the article's sequences table;
// over seqd, the server (sync needs a table, so seqd skips it).
func runSpanner(ctx context.Context, cfg Config) ([]Result, error) {
	modes := Modes
	if cfg.Mode != "" {
		modes = []string{cfg.Mode}
	}
	var out []Result
	for _, mode := range modes {
		for _, threads := range cfg.Threads {
			for _, t := range cfg.Targets {
				if t.noop() || (mode == "sync" && t.Kind == Seqd) {
					continue
				}
				r, err := spannerPoint(ctx, cfg, t, mode, threads)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func spannerPoint(ctx context.Context, cfg Config, t Target, mode string, threads int) (Result, error) {
	src, db, closeSrc, err := openSource(ctx, t, threads)
	if err != nil {
		return Result{}, err
	}
	defer closeSrc()
	name := fmt.Sprintf("spanner_%s_%d_%d", mode, threads, time.Now().UnixNano())
	if err := src.Create(ctx, name, 1); err != nil {
		return Result{}, err
	}
	txn := func() {
		if cfg.TxnTime > 0 {
			time.Sleep(cfg.TxnTime)
		}
	}
	var next func(ctx context.Context) (int64, error)
	var gen client.Generator
	switch mode {
	case "sync":
		table, ok := src.(client.TxSource)
		if !ok {
			return Result{}, fmt.Errorf("%s: sync mode needs a table source", t)
		}
		g := client.NewSync(table, name)
		next = func(ctx context.Context) (v int64, err error) {
			err = client.RunTx(ctx, db, nil, client.Retry{Attempts: 100}, func(tx *sql.Tx) error {
				v, err = g.Next(ctx, tx)
				txn()
				return err
			})
			return v, err
		}
	case "async":
		gen = client.NewAsync(src, name)
	case "batch":
		gen = client.NewBatch(src, name, client.BatchOptions{Size: cfg.BatchSize})
	case "async-batch":
		gen = client.NewAsyncBatch(src, name, client.BatchOptions{Size: cfg.BatchSize, LowWatermark: cfg.LowWatermark})
	default:
		return Result{}, fmt.Errorf("unknown mode %q (want sync, async, batch or async-batch)", mode)
	}
	if gen != nil {
		defer gen.Close(ctx)
		next = func(ctx context.Context) (int64, error) {
			v, err := gen.Next(ctx)
			txn()
			return v, err
		}
	}
	l := loop{threads: threads, server: probeFor(t), total: int64(cfg.Iterations), progress: cfg.Progress,
		label: fmt.Sprintf("spanner %s %s %d threads", mode, t, threads)}
	m, err := l.run(ctx, func(ctx context.Context, w int, vs *values) error {
		v, err := next(ctx)
		if err == nil {
			vs.add(v)
		}
		return err
	})
	if err != nil {
		return Result{}, err
	}
	if m.vals != int64(cfg.Iterations) {
		return Result{}, fmt.Errorf("spanner %s %s: %d values for %d iterations", mode, t, m.vals, cfg.Iterations)
	}
	if mode == "sync" {
		if err := checkGapless(m.sets, 1); err != nil {
			return Result{}, fmt.Errorf("spanner sync %s: %w", t, err)
		}
	}
	r := point("spanner", t, mode, threads, m)
	r.Size = int(cfg.BatchSize)
	return r, nil
}

// checkGapless fails unless the sets hold exactly from, from+1, ...
// (they were checked unique before).
func checkGapless(sets []*values, from int64) error {
	lo, hi, n := int64(0), int64(0), int64(0)
	for _, s := range sets {
		for _, r := range s.runs {
			if n == 0 || r[0] < lo {
				lo = r[0]
			}
			if n == 0 || r[1] > hi {
				hi = r[1]
			}
			n += r[1] - r[0] + 1
		}
	}
	if n > 0 && (lo != from || hi-lo+1 != n) {
		return fmt.Errorf("%d values span %d..%d: not gapless from %d", n, lo, hi, from)
	}
	return nil
}

// openSource is the client-library source of a target: seqd itself, or
// the sequences table of PostgreSQL or MariaDB (with its *sql.DB, for
// Sync's transactions).
func openSource(ctx context.Context, t Target, conns int) (client.Source, *sql.DB, func(), error) {
	switch t.Kind {
	case Seqd:
		pool, err := pgxpool.New(ctx, t.DSN)
		if err != nil {
			return nil, nil, nil, err
		}
		return client.NewSeqd(pool, client.SeqdOptions{Cache: t.Cache}), nil, pool.Close, nil
	case Postgres, MariaDB:
		driver, newTable := "pgx", client.NewPostgresTable
		if t.Kind == MariaDB {
			driver, newTable = "mysql", client.NewMySQLTable
		}
		db, err := sql.Open(driver, t.DSN)
		if err != nil {
			return nil, nil, nil, err
		}
		db.SetMaxIdleConns(conns + 1)
		src, err := newTable(db, client.TableOptions{Table: "seqbench_sequences", Retry: client.Retry{Attempts: 100}})
		if err != nil {
			db.Close()
			return nil, nil, nil, err
		}
		return src, db, func() { db.Close() }, nil
	}
	return nil, nil, nil, fmt.Errorf("%s: no client-library source for %s", t, t.Kind)
}
