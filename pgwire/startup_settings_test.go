package pgwire

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestStartupSettings: parameters in the startup packet are checked as
// PostgreSQL checks them there: one fixed at server start ends the
// connection with PostgreSQL's FATAL 55P02, a session parameter is taken
// in PostgreSQL's form.
func TestStartupSettings(t *testing.T) {
	dsn := startSeqd(t)
	ctx := context.Background()
	connect := func(name, value string) (*pgx.Conn, error) {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams[name] = value
		return pgx.ConnectConfig(ctx, cfg)
	}
	_, err := connect("shared_buffers", "1GB")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "55P02" || pe.Severity != "FATAL" || pe.Message != `parameter "shared_buffers" cannot be changed without restarting the server` {
		t.Fatalf("shared_buffers at startup: %v", err)
	}
	c, err := connect("work_mem", "16384")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var v string
	if err := c.QueryRow(ctx, "show work_mem").Scan(&v); err != nil || v != "16MB" {
		t.Fatalf("work_mem 16384 at startup shows %q, %v; want 16MB", v, err)
	}
}
