package compat

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
)

// TestStartupSearchPath: search_path given at connection time, as a
// startup parameter or through options=-c, holds for the session, on
// seqd as on PostgreSQL 15.
func TestStartupSearchPath(t *testing.T) {
	ctx := context.Background()
	host, port := startSeqd(t)
	cfg, err := pgx.ParseConfig(testenv.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]string{
		"postgres": fmt.Sprintf("postgres://%s@%s:%d/postgres", cfg.User, cfg.Host, cfg.Port),
		"seqd":     fmt.Sprintf("postgres://%s@%s:%s/postgres", cfg.User, host, port),
	}
	for name, base := range servers {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"create schema if not exists startup_a", "create schema if not exists startup_b"} {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatal(name, q, err)
			}
		}
		c.Close(ctx)
		for param, want := range map[string]string{
			"search_path=startup_a": "startup_a",
			"options=" + url.PathEscape("-c search_path") + "%3Dstartup_b": "startup_b",
		} {
			c, err := pgx.Connect(ctx, base+"?"+param)
			if err != nil {
				t.Fatal(name, param, err)
			}
			var got string
			if err := c.QueryRow(ctx, "select current_schema()").Scan(&got); err != nil || got != want {
				t.Errorf("%s with %s: current_schema() = %q, %v; want %q", name, param, got, err, want)
			}
			c.Close(ctx)
		}
	}
}
