package pgwire

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestDescribeOracle prepares statements on PostgreSQL 15 and on seqd and
// compares what Describe reports: the parameter types PostgreSQL infers
// (tokio-postgres and pgjdbc bind by them) and the result columns.
func TestDescribeOracle(t *testing.T) {
	ctx := context.Background()
	pg, sd := connectBoth(t)
	setup := []string{"drop sequence if exists public.d_s", "create sequence public.d_s"}
	for _, q := range setup {
		if _, err := pg.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
		if _, err := sd.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer pg.Exec(ctx, "drop sequence if exists public.d_s")
	describe := func(c *pgx.Conn, q string) string {
		d, err := c.PgConn().Prepare(ctx, "", q, nil)
		if err != nil {
			if pe, ok := err.(*pgconn.PgError); ok {
				return "ERROR " + pe.Code + " " + pe.Message
			}
			return "ERROR " + err.Error()
		}
		out := fmt.Sprint("params ", d.ParamOIDs, " cols")
		for _, f := range d.Fields {
			out += fmt.Sprintf(" %s:%d:%d", f.Name, f.DataTypeOID, f.DataTypeSize)
		}
		return out
	}
	for _, q := range []string{
		"select nextval($1)",
		"select nextval('d_s')",
		"select setval($1, $2)",
		"select setval($1, $2, $3)",
		"select currval($1)",
		"select nextval('d_s') from generate_series(1, $1)",
		"select x from generate_series($1::bigint, 10) x",
		"select $1",
		"select $1::int + 1",
		"select $1 + 1",
		"select $1 = 'a'",
		"select relname from pg_class where relname = $1",
		"select oid, typname from pg_type where oid = $1",
		"select last_value, log_cnt, is_called from d_s",
		"select * from pg_sequences where sequencename = $1",
		"select count(*) from pg_class",
		"select current_schema(), current_user, version(), pg_backend_pid() > 0",
	} {
		want, got := describe(pg, q), describe(sd, q)
		if want != got {
			t.Errorf("%s\n postgres: %s\n     seqd: %s", q, want, got)
		}
	}
}
