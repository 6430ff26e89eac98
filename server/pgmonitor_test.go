package server

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/internal/testenv"
)

// TestPgMonitorReserved: the pg_monitor role seqd makes for the console
// is PostgreSQL 15's predefined role to its clients: it cannot be
// dropped, altered or renamed, with PostgreSQL's SQLSTATE, message and
// detail, compared with a real PostgreSQL's; it can be granted.
func TestPgMonitorReserved(t *testing.T) {
	ctx := context.Background()
	_, c := startHTTP(t) // -http: seqd makes pg_monitor
	pg, err := pgx.Connect(ctx, testenv.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	answer := func(c *pgx.Conn, q string) string {
		_, err := c.Exec(ctx, q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			return "no error"
		}
		return pe.Code + " " + pe.Message + " / " + pe.Detail
	}
	for _, q := range []string{
		"drop role pg_monitor",
		"drop role if exists pg_monitor",
		"alter role pg_monitor login",
		"alter role pg_monitor password 'x'",
		"alter role pg_monitor rename to mon",
	} {
		if got, want := answer(c, q), answer(pg, q); got != want {
			t.Errorf("%s:\nseqd       %s\nPostgreSQL %s", q, got, want)
		}
	}
	for _, q := range []string{"create role watcher", "grant pg_monitor to watcher", "revoke pg_monitor from watcher", "drop role watcher"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}
