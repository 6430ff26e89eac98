package pgwire

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testdata/psql/*.out from seqd's output")

// pgEnv points libpq's tools (psql, pgbench) at the server dsn names.
func pgEnv(t *testing.T, dsn string) []string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "PGHOST="+u.Hostname(), "PGPORT="+u.Port(), "PGUSER=seqd", "PGDATABASE=seqd",
		"PGSSLMODE=prefer", "PGCONNECT_TIMEOUT=10")
}

// TestPsqlScripts runs each testdata/psql/*.sql through psql against seqd
// and compares psql's whole output (echoed statements, tables, errors with
// their SQLSTATEs) with the .out file beside it. -update rewrites them.
func TestPsqlScripts(t *testing.T) {
	psql := testenv.Command(t, "psql")
	scripts, _ := filepath.Glob("testdata/psql/*.sql")
	if len(scripts) == 0 {
		t.Fatal("no scripts")
	}
	for _, script := range scripts {
		t.Run(filepath.Base(script), func(t *testing.T) {
			in, err := os.ReadFile(script)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(psql, "-X", "-a", "-f", "-")
			cmd.Env = pgEnv(t, startSeqd(t))
			cmd.Stdin = bytes.NewReader(in)
			got, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("psql: %v\n%s", err, got)
			}
			golden := strings.TrimSuffix(script, ".sql") + ".out"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("psql output differs from %s:\n%s", golden, testenv.LineDiff(string(want), string(got)))
			}
		})
	}
}

var failedTx = regexp.MustCompile(`number of failed transactions: (\d+)`)

// TestPgbench runs pgbench's three query modes against one sequence: every
// transaction succeeds, and the sequence then stands exactly after the
// values pgbench consumed (none lost, none repeated).
func TestPgbench(t *testing.T) {
	pgbench := testenv.Command(t, "pgbench")
	dsn := startSeqd(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "create sequence bench cache 1000"); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "nextval.sql")
	if err := os.WriteFile(script, []byte("select nextval('bench');\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const clients, txs = 4, 250
	modes := []string{"simple", "extended", "prepared"}
	for _, mode := range modes {
		cmd := exec.Command(pgbench, "-n", "-M", mode, "-c", fmt.Sprint(clients), "-j", "2", "-t", fmt.Sprint(txs), "-f", script)
		cmd.Env = pgEnv(t, dsn)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pgbench -M %s: %v\n%s", mode, err, out)
		}
		m := failedTx.FindSubmatch(out)
		if m == nil || string(m[1]) != "0" {
			t.Fatalf("pgbench -M %s reported failures:\n%s", mode, out)
		}
		if !bytes.Contains(out, []byte(fmt.Sprintf("number of transactions actually processed: %d/%d", clients*txs, clients*txs))) {
			t.Fatalf("pgbench -M %s did not finish every transaction:\n%s", mode, out)
		}
	}
	var next int64
	if err := c.QueryRow(ctx, "select nextval('bench')").Scan(&next); err != nil {
		t.Fatal(err)
	}
	if want := int64(len(modes)*clients*txs + 1); next != want {
		t.Fatalf("after pgbench nextval = %d, want %d", next, want)
	}
}

// TestPsycopg runs a Python program on psycopg 3 (a non-Go driver, on
// libpq) against seqd: create, nextval in both of psycopg's protocols,
// setval, errors with their SQLSTATEs, transactions.
func TestPsycopg(t *testing.T) {
	python := testenv.Python(t)
	cmd := exec.Command(python, "testdata/psycopg_client.py", startSeqd(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psycopg client: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("psycopg client: ok")) {
		t.Fatalf("psycopg client did not finish:\n%s", out)
	}
}

// TestPgx exercises the extended protocol through pgx: prepared and
// described statements, binary int8 results, a pipelined batch whose
// failed statement discards the rest until Sync, row limits (portals),
// and the transaction states drivers rely on.
func TestPgx(t *testing.T) {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, startSeqd(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "create sequence p cache 10"); err != nil {
		t.Fatal(err)
	}
	// Binary results in the extended protocol (pgx asks for int8 in binary).
	var v int64
	for i := int64(1); i <= 3; i++ {
		if err := c.QueryRow(ctx, "select nextval($1)", "p").Scan(&v); err != nil || v != i {
			t.Fatalf("nextval #%d = %d, %v", i, v, err)
		}
	}
	var first, last, inc int64
	var shape *string
	if err := c.QueryRow(ctx, "select * from seqd_reserve($1, $2)", "p", 5).Scan(&first, &last, &inc, &shape); err != nil || first != 4 || last != 8 || inc != 1 || shape != nil {
		t.Fatalf("reserve = %d %d %d %v, %v", first, last, inc, shape, err)
	}
	var ok bool
	if err := c.QueryRow(ctx, "select seqd_release($1, $2, $3)", "p", 6, 8).Scan(&ok); err != nil || !ok {
		t.Fatalf("release = %v, %v", ok, err)
	}

	// A pipelined batch: the failing statement's error is reported and
	// the rest of the batch, up to Sync, is skipped; the connection works.
	b := &pgx.Batch{}
	b.Queue("select nextval($1)", "p")
	b.Queue("select nextval($1)", "nope")
	b.Queue("select nextval($1)", "p")
	br := c.SendBatch(ctx, b)
	if err := br.QueryRow().Scan(&v); err != nil || v != 6 {
		t.Fatalf("batch first = %d, %v", v, err)
	}
	err = br.QueryRow().Scan(&v)
	if code(err) != "42P01" {
		t.Fatalf("batch error = %v", err)
	}
	if err := br.QueryRow().Scan(&v); err == nil {
		t.Fatal("statement after the error in the batch ran")
	}
	br.Close()
	if err := c.QueryRow(ctx, "select nextval('p')").Scan(&v); err != nil || v != 7 {
		t.Fatalf("after batch nextval = %d, %v (the skipped statement must not have run)", v, err)
	}

	// A bulk series streamed: every value distinct and consecutive.
	rows, err := c.Query(ctx, "select nextval('p') from generate_series(1, $1)", 200000)
	if err != nil {
		t.Fatal(err)
	}
	want := int64(8)
	for rows.Next() {
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != want {
			t.Fatalf("bulk value %d, want %d", v, want)
		}
		want++
	}
	if rows.Err() != nil || want != 200008 {
		t.Fatalf("bulk ended at %d: %v", want, rows.Err())
	}

	// Transactions: a failed block must be rolled back, as in PostgreSQL.
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "select nextval('nope')"); code(err) != "42P01" {
		t.Fatalf("in tx: %v", err)
	}
	if _, err := tx.Exec(ctx, "select 1"); code(err) != "25P02" {
		t.Fatalf("in failed tx: %v", err)
	}
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("commit of failed tx: %v", err)
	}
	if c.PgConn().TxStatus() != 'I' {
		t.Fatalf("tx status %c after commit", c.PgConn().TxStatus())
	}
}

func code(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
