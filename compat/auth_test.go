package compat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgwire"
	"github.com/seqd/seqd/server"
)

// startSCRAM runs seqd requiring SCRAM-SHA-256, its superuser "seqd"
// created with password "su-pw".
func startSCRAM(t *testing.T) (host, port string) {
	t.Helper()
	return startWith(t, server.Config{Auth: pgwire.AuthSCRAM, Password: "su-pw"})
}

// TestSCRAM: psql, pgx, psycopg2, psycopg 3 and pgjdbc authenticate with
// SCRAM-SHA-256 against the superuser and a role made with CREATE USER;
// a wrong password and an unknown role both get 28P01 with the same
// message, and the connection ends.
func TestSCRAM(t *testing.T) {
	host, port := startSCRAM(t)
	ctx := context.Background()
	url := func(user, password string) string {
		return fmt.Sprintf("postgres://%s:%s@%s:%s/seqd?sslmode=disable", user, password, host, port)
	}
	su, err := pgx.Connect(ctx, url("seqd", "su-pw"))
	if err != nil {
		t.Fatal(err)
	}
	defer su.Close(ctx)
	for _, q := range []string{"create sequence s", "create user app password 'app-pw'", "create role nologin password 'x'", "grant usage on sequence s to app"} {
		if _, err := su.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	for _, tc := range []struct{ user, password string }{{"seqd", "wrong"}, {"nobody", "app-pw"}, {"nologin", "x"}, {"app", ""}} {
		_, err := pgx.Connect(ctx, url(tc.user, tc.password))
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "28P01" || pe.Severity != "FATAL" || pe.Message != fmt.Sprintf("password authentication failed for user \"%s\"", tc.user) {
			t.Errorf("%s/%q: %v, want FATAL 28P01", tc.user, tc.password, err)
		}
	}
	app, err := pgx.Connect(ctx, url("app", "app-pw"))
	if err != nil {
		t.Fatal(err)
	}
	var user string
	var v int64
	if err := app.QueryRow(ctx, "select current_user, nextval('s')").Scan(&user, &v); err != nil || user != "app" {
		t.Fatalf("as app: %q %d %v", user, v, err)
	}
	app.Close(ctx)

	psql := testenv.Command(t, "psql")
	cmd := exec.Command(psql, "-X", "-At", "-h", host, "-p", port, "-U", "app", "-d", "seqd", "-c", "select nextval('s')")
	cmd.Env = append(os.Environ(), "PGPASSWORD=app-pw", "PGSSLMODE=disable")
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	for _, mod := range []string{"psycopg2", "psycopg"} {
		script := fmt.Sprintf("import %s as m\nc = m.connect(host=%q, port=%s, user='app', password='app-pw', dbname='seqd')\ncur = c.cursor()\ncur.execute(\"select nextval('s')\")\nprint(cur.fetchone()[0])", mod, host, port)
		if out, err := exec.Command(testenv.Python(t), "-c", script).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", mod, err, out)
		}
	}
	runJDBC(t, fmt.Sprintf("jdbc:postgresql://%s:%s/seqd", host, port), "app", "app-pw")
}

// TestAuthDefaults: trust only on loopback unless asked for; off
// loopback SCRAM needs the superuser's password before seqd starts.
func TestAuthDefaults(t *testing.T) {
	for addr, want := range map[string]string{"127.0.0.1:6543": pgwire.AuthTrust, "localhost:1": pgwire.AuthTrust, "[::1]:5": pgwire.AuthTrust,
		"0.0.0.0:6543": pgwire.AuthSCRAM, "10.1.2.3:6543": pgwire.AuthSCRAM, ":6543": pgwire.AuthSCRAM} {
		if got := server.AuthFor(addr); got != want {
			t.Errorf("AuthFor(%q) = %s, want %s", addr, got, want)
		}
	}
	// Refused before anything listens: no password for the superuser.
	_, err := server.Start(context.Background(), server.Config{DataDir: t.TempDir(), Listen: "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "SEQD_PASSWORD") {
		t.Fatalf("non-loopback start without a password: %v", err)
	}
}

// TestConnectPrivilege: without CONNECT on the database a role is turned
// away after authentication exactly as PostgreSQL 15 turns it away (FATAL
// 42501, its message and detail); granted CONNECT, it gets in.
func TestConnectPrivilege(t *testing.T) {
	ctx := context.Background()
	pg, sd, cfg, host, port := connectBoth(t, "seqd_connect", "drop role if exists conn_user", "create role conn_user login")
	if _, err := sd.Exec(ctx, "create role conn_user login"); err != nil {
		t.Fatal(err)
	}
	pgURL := fmt.Sprintf("postgres://conn_user@%s:%d/seqd_connect?sslmode=disable", cfg.Host, cfg.Port)
	sdURL := fmt.Sprintf("postgres://conn_user@%s:%d/seqd_connect?sslmode=disable", host, port)
	connect := func(url string) string {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: %v", url, err)
			}
			return fmt.Sprintf("%s %s: %s (%s)", pe.Severity, pe.Code, pe.Message, pe.Detail)
		}
		c.Close(ctx)
		return "connected"
	}
	for _, step := range []struct{ sql, want string }{
		{"", "connected"},
		{"revoke connect on database seqd_connect from public",
			`FATAL 42501: permission denied for database "seqd_connect" (User does not have CONNECT privilege.)`},
		{"grant connect on database seqd_connect to conn_user", "connected"},
		{"revoke all on database seqd_connect from conn_user", `FATAL 42501: permission denied for database "seqd_connect" (User does not have CONNECT privilege.)`},
		{"grant all on database seqd_connect to public", "connected"},
	} {
		if step.sql != "" {
			for _, c := range []*pgx.Conn{pg, sd} {
				if _, err := c.Exec(ctx, step.sql); err != nil {
					t.Fatal(step.sql, err)
				}
			}
		}
		want, got := connect(pgURL), connect(sdURL)
		if want != step.want || got != want {
			t.Errorf("after %q: PostgreSQL %q, seqd %q, expected %q", step.sql, want, got, step.want)
		}
	}
	if _, err := pg.Exec(ctx, "revoke all on database seqd_connect from public"); err != nil {
		t.Fatal(err)
	}
}
