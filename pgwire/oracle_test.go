package pgwire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/internal/testenv"
)

// startSeqd serves an engine on an in-memory store on a loopback port.
func startSeqd(t testing.TB) string {
	t.Helper()
	dsn, _ := startServer(t)
	return dsn
}

// startServer is startSeqd that also returns the server.
func startServer(t testing.TB) (string, *Server) {
	t.Helper()
	return startServerWith(t, Config{})
}

// startServerWith is startServer with cfg's limits (its engine is made
// here, and MaxBulkRows defaults to 1M).
func startServerWith(t testing.TB, cfg Config) (string, *Server) {
	t.Helper()
	cfg.Engine = testenv.MemEngine(t)
	if cfg.MaxBulkRows == 0 {
		cfg.MaxBulkRows = 1_000_000
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(cfg)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) }) // before eng closes
	return fmt.Sprintf("postgres://u@%s/db?sslmode=disable", ln.Addr()), srv
}

// outcome is what one statement produced, in comparable form.
type outcome struct {
	cols  []string // name:oid
	rows  [][]string
	state string // SQLSTATE of an error, "" on success
	msg   string
}

func (o outcome) String() string {
	if o.state != "" {
		return fmt.Sprintf("ERROR %s %s", o.state, o.msg)
	}
	return fmt.Sprintf("%v %v", o.cols, o.rows)
}

func run(ctx context.Context, c *pgx.Conn, q string) outcome {
	var out outcome
	rows, err := c.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err == nil {
		for _, f := range rows.FieldDescriptions() {
			out.cols = append(out.cols, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
		}
		for rows.Next() {
			var row []string
			for _, v := range rows.RawValues() {
				if v == nil {
					row = append(row, "NULL")
				} else {
					row = append(row, string(v))
				}
			}
			out.rows = append(out.rows, row)
		}
		rows.Close()
		err = rows.Err()
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		out.state, out.msg = pe.Code, pe.Message
		out.rows = nil
	} else if err != nil {
		out.state, out.msg = "client", err.Error()
	}
	return out
}

func corpus(t *testing.T) []string {
	f, err := os.Open("testdata/oracle.sql")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "--") {
			out = append(out, line)
		}
	}
	return out
}

// connectBoth connects to the test PostgreSQL 15 and to a new seqd; both
// close when the test ends.
func connectBoth(t *testing.T) (pg, sd *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	pg, err := pgx.Connect(ctx, testenv.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close(ctx) })
	sd, err = pgx.Connect(ctx, startSeqd(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sd.Close(ctx) })
	return pg, sd
}

// TestOracle runs the corpus against PostgreSQL 15 and seqd.
func TestOracle(t *testing.T) {
	ctx := context.Background()
	pg, sd := connectBoth(t)
	for _, q := range []string{"drop schema if exists oracle cascade", "create schema oracle", "set search_path = oracle"} {
		if _, err := pg.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for i, q := range corpus(t) {
		want, got := run(ctx, pg, q), run(ctx, sd, q)
		if want.String() != got.String() {
			t.Errorf("line %d: %s\n postgres: %s\n     seqd: %s", i+1, q, want, got)
		}
	}
}
