package server

import (
	"context"
	"errors"
	"fmt"
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

// TestPgMonitorOID: pg_monitor has PostgreSQL 15's OID, 3373, in
// pg_roles and pg_authid, as regrole and as the member of a grant, the
// same row as a real PostgreSQL's; nothing else in the catalog has that
// OID.
func TestPgMonitorOID(t *testing.T) {
	ctx := context.Background()
	_, c := startHTTP(t) // -http: seqd makes pg_monitor
	pg, err := pgx.Connect(ctx, testenv.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	row := func(c *pgx.Conn, q string) string {
		rows, err := c.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		var out []any
		for rows.Next() {
			v, err := rows.Values()
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			out = append(out, v)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(out) == 1 && len(out[0].([]any)) == 1 {
			return fmt.Sprint(out[0].([]any)[0])
		}
		return fmt.Sprint(out...)
	}
	for _, q := range []string{
		`select oid, rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication,
			rolconnlimit, rolpassword, rolvaliduntil, rolbypassrls, rolconfig from pg_roles where rolname = 'pg_monitor'`,
		"select oid, rolname, rolsuper, rolcanlogin, rolpassword from pg_authid where rolname = 'pg_monitor'",
		"select 'pg_monitor'::regrole::oid::text",
		"select 3373::regrole::text",
	} {
		if got, want := row(c, q), row(pg, q); got != want {
			t.Errorf("%s:\nseqd       %s\nPostgreSQL %s", q, got, want)
		}
	}
	for _, q := range []string{"create role watcher", "grant pg_monitor to watcher"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := row(c, "select roleid::text from pg_auth_members where member = 'watcher'::regrole"); got != "3373" {
		t.Errorf("pg_auth_members.roleid of pg_monitor: %s, want 3373", got)
	}
	// No relation, type, function, schema or other role has its OID.
	got := row(c, `select (select count(*) from pg_class where oid = 3373) + (select count(*) from pg_type where oid = 3373)
		+ (select count(*) from pg_proc where oid = 3373) + (select count(*) from pg_namespace where oid = 3373)
		+ (select count(*) from pg_roles where oid = 3373 and rolname <> 'pg_monitor')`)
	if got != "0" {
		t.Errorf("%s other objects have OID 3373", got)
	}
}
