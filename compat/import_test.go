package compat

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/migrate"
)

// TestImportFromPostgres: sequences of every option in PostgreSQL 15,
// used by several sessions with caches of their own, imported into seqd:
// every next value seqd hands out is beyond every value PostgreSQL
// returned, options and all.
func TestImportFromPostgres(t *testing.T) {
	ctx := context.Background()
	pg, sd, cfg, _, _ := connectBoth(t, "seqd_import")
	for _, q := range []string{
		"create sequence i_plain",
		"create sequence i_cached cache 20",
		"create sequence i_desc increment by -5 minvalue -100000 maxvalue -1",
		"create sequence i_cycle as smallint minvalue 1 maxvalue 1000 cycle cache 7",
		"create sequence i_never start with 500",
	} {
		if _, err := pg.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	// Four sessions take values; each caches its own block, so the
	// sessions' values interleave and the largest is not the last taken.
	seen := map[string]int64{} // the furthest value returned per sequence, in its direction
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				for _, s := range []string{"i_plain", "i_cached", "i_desc", "i_cycle"} {
					if s == "i_cycle" && i > 30 {
						continue // stay below the wrap, so "beyond" has a meaning
					}
					var v int64
					if err := c.QueryRow(ctx, "select nextval($1)", s).Scan(&v); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if cur, ok := seen[s]; !ok || s == "i_desc" && v < cur || s != "i_desc" && v > cur {
						seen[s] = v
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	rep, err := migrate.Import(ctx, pg, sd, migrate.DumpOptions{})
	if err != nil {
		t.Fatalf("import: %v\n%s", err, rep.SQL)
	}
	if rep.Sequences != 5 {
		t.Fatalf("imported %d sequences", rep.Sequences)
	}
	for s, furthest := range seen {
		var v int64
		if err := sd.QueryRow(ctx, "select nextval($1)", s).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if s == "i_desc" && v >= furthest || s != "i_desc" && v <= furthest {
			t.Errorf("%s: seqd's next value %d is not beyond PostgreSQL's furthest %d", s, v, furthest)
		}
	}
	var v int64
	if err := sd.QueryRow(ctx, "select nextval('i_never')").Scan(&v); err != nil || v != 500 {
		t.Errorf("i_never, never used in PostgreSQL: %d %v, want 500", v, err)
	}
	var typ string
	var lo, hi, incr, cache int64
	var cycle bool
	if err := sd.QueryRow(ctx, "select data_type::text, min_value, max_value, increment_by, cycle, cache_size from pg_sequences where sequencename = 'i_cycle'").Scan(&typ, &lo, &hi, &incr, &cycle, &cache); err != nil {
		t.Fatal(err)
	}
	if typ != "smallint" || lo != 1 || hi != 1000 || incr != 1 || !cycle || cache != 7 {
		t.Errorf("i_cycle's options in seqd: %s %d %d %d %v %d", typ, lo, hi, incr, cycle, cache)
	}
	// A second import fails whole: the sequences exist.
	if _, err := migrate.Import(ctx, pg, sd, migrate.DumpOptions{}); err == nil {
		t.Fatal("importing the same sequences again succeeded")
	}
}
