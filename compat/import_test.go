package compat

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
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

// TestImportFromMariaDB: MariaDB 10.11's sequences (cached and not,
// descending, cycling, one never used), taken from by several
// connections, imported into seqd in the schema named as the database:
// every next value beyond every value MariaDB returned.
func TestImportFromMariaDB(t *testing.T) {
	ctx := context.Background()
	my, err := sql.Open("mysql", testenv.MariaDBDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	my.SetMaxOpenConns(4)
	for _, q := range []string{
		"drop sequence if exists im_cached, im_nocache, im_desc, im_cycle, im_never",
		"create sequence im_cached cache 1000",
		"create sequence im_nocache nocache",
		"create sequence im_desc increment by -4 minvalue -100000 maxvalue -1 start with -1",
		"create sequence im_cycle minvalue 1 maxvalue 500 cycle cache 10",
		"create sequence im_never start with 300",
	} {
		if _, err := my.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	furthest := map[string]int64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 40 {
				for _, s := range []string{"im_cached", "im_nocache", "im_desc", "im_cycle"} {
					var v int64
					if err := my.QueryRowContext(ctx, "select nextval("+s+")").Scan(&v); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if cur, ok := furthest[s]; !ok || s == "im_desc" && v < cur || s != "im_desc" && v > cur {
						furthest[s] = v
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	_, sd, _, _, _ := connectBoth(t, "seqd_import_m")
	rep, err := migrate.ImportMariaDB(ctx, my, sd, migrate.DumpOptions{})
	if err != nil {
		t.Fatalf("import: %v\n%s", err, rep.SQL)
	}
	var schema string
	if err := my.QueryRowContext(ctx, "select database()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if rep.Sequences < 5 {
		t.Fatalf("imported %d sequences", rep.Sequences)
	}
	for s, f := range furthest {
		var v int64
		if err := sd.QueryRow(ctx, "select nextval($1)", schema+"."+s).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if s == "im_desc" && v >= f || s != "im_desc" && v <= f {
			t.Errorf("%s: seqd's next value %d is not beyond MariaDB's furthest %d", s, v, f)
		}
	}
	var v int64
	if err := sd.QueryRow(ctx, "select nextval($1)", schema+".im_never").Scan(&v); err != nil || v != 300 {
		t.Errorf("im_never: %d %v, want 300", v, err)
	}
}
