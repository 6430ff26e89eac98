package compat

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/migrate"
)

// dumpSetup makes sequences of every option on a seqd and takes values.
var dumpSetup = []string{
	"create sequence d_plain",
	"create sequence d_cached cache 50",
	"create sequence d_desc increment by -3 minvalue -1000 maxvalue -1",
	"create sequence d_cycle as smallint minvalue 1 maxvalue 5 cycle",
	"create sequence d_int as integer start with 2147483640",
	"create sequence d_never start with 77",
	"create sequence d_shaped bit_reversed_positive",
	"create schema d_other",
	`create sequence d_other."Mixed Case" increment by 10`,
	"select nextval('d_plain') from generate_series(1, 12)",
	"select nextval('d_cached') from generate_series(1, 120)",
	"select nextval('d_desc') from generate_series(1, 7)",
	"select nextval('d_cycle') from generate_series(1, 7)",
	"select nextval('d_int') from generate_series(1, 7)",
	`select nextval('d_other."Mixed Case"')`,
}

// sequencesOf is pg_sequences' rows of the dump's sequences, in order.
func sequencesOf(t *testing.T, c *pgx.Conn) string {
	t.Helper()
	rows, err := c.Query(context.Background(), `select schemaname, sequencename, data_type::text, start_value, min_value, max_value,
		increment_by, cycle, cache_size, last_value from pg_sequences
		where (sequencename like 'd\_%' or sequencename = 'Mixed Case') and sequencename <> 'd_shaped' order by 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, vals...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestDump: seqd dump's SQL loads into PostgreSQL 15 and into a new seqd
// with pg_sequences identical to the source's, positions included; with
// -margin each position moves on by that many increments.
func TestDump(t *testing.T) {
	ctx := context.Background()
	pg, src, cfg, _, _ := connectBoth(t, "seqd_dump")
	for _, q := range dumpSetup {
		if _, err := src.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var sql bytes.Buffer
	rep, err := migrate.Dump(ctx, src, &sql, migrate.DumpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A shaped sequence has no PostgreSQL equivalent: named, left out.
	if rep.Sequences != 7 || len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0], "d_shaped") {
		t.Fatalf("dumped %+v", rep)
	}
	psql := testenv.Command(t, "psql")
	load := func(host string, port uint16, db string) {
		t.Helper()
		cmd := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", fmt.Sprint(port), "-U", cfg.User, "-d", db, "-f", "-")
		cmd.Stdin = bytes.NewReader(sql.Bytes())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("loading the dump into %s:%d: %v\n%s\n%s", host, port, err, out, sql.String())
		}
	}
	want := sequencesOf(t, src)
	load(cfg.Host, cfg.Port, "seqd_dump")
	if got := sequencesOf(t, pg); got != want {
		t.Errorf("PostgreSQL 15 after loading the dump:\n%s\nthe seqd it came from:\n%s", got, want)
	}
	host, port := startSeqd(t)
	var p uint16
	fmt.Sscan(port, &p)
	load(host, p, "seqd")
	dst, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s@%s:%s/seqd", cfg.User, host, port))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close(ctx)
	if got := sequencesOf(t, dst); got != want {
		t.Errorf("a new seqd after loading the dump:\n%s\nthe seqd it came from:\n%s", got, want)
	}
	// The next values agree everywhere.
	for _, c := range []*pgx.Conn{src, pg, dst} {
		var v int64
		if err := c.QueryRow(ctx, "select nextval('d_cached')").Scan(&v); err != nil || v != 121 {
			t.Errorf("nextval('d_cached') after the dump: %d %v, want 121", v, err)
		}
	}

	// -margin: every position 1000 increments on, within the limits
	// (d_desc stops at its MINVALUE, d_int at its type's limit).
	sql.Reset()
	if _, err := migrate.Dump(ctx, src, &sql, migrate.DumpOptions{Margin: 1000}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"setval('\"public\".\"d_plain\"', 1012, true)", "setval('\"public\".\"d_desc\"', -1000, true)",
		"setval('\"public\".\"d_never\"', 1076, true)", "setval('\"public\".\"d_int\"', 2147483647, true)"} {
		if !strings.Contains(sql.String(), want) {
			t.Errorf("dump with -margin 1000 lacks %s:\n%s", want, sql.String())
		}
	}
}
