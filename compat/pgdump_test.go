package compat

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// pgDumpSetup makes sequences of PostgreSQL's options (dumpSetup's, but
// the shaped one, which PostgreSQL's SQL cannot say), with a comment and
// grants on a sequence and a schema to a role both servers have, and a
// schema's comment.
var pgDumpSetup = append(slices.DeleteFunc(slices.Clone(dumpSetup), func(q string) bool { return strings.Contains(q, "d_shaped") }),
	"comment on sequence d_cached is 'cached, 50 at a time'",
	"grant select, usage on sequence d_plain to pgdump_reader",
	"grant usage on sequence d_other.\"Mixed Case\" to pgdump_reader, public",
	"grant usage on schema d_other to pgdump_reader",
	"comment on schema d_other is 'the other schema'")

// dumpState is what a dump must carry over: the sequences with their
// positions, comments, owners and grants, and the schemas' grants and
// comments.
func dumpState(t *testing.T, c *pgx.Conn) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(sequencesOf(t, c))
	rows, err := c.Query(context.Background(), `select n.nspname, c.relname, pg_get_userbyid(c.relowner), coalesce(c.relacl::text, ''),
		coalesce(obj_description(c.oid, 'pg_class'), '') from pg_class c join pg_namespace n on n.oid = c.relnamespace
		where c.relkind = 'S' union all select nspname, '', pg_get_userbyid(nspowner), coalesce(nspacl::text, ''),
		coalesce(obj_description(oid, 'pg_namespace'), '') from pg_namespace
		where nspname = 'd_other' order by 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a, b2, c2, d, e string
		if err := rows.Scan(&a, &b2, &c2, &d, &e); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s.%s owner %s acl %s comment %q\n", a, b2, c2, d, e)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestPgDump: PostgreSQL 15's own pg_dump, with its defaults, dumps a
// seqd database into SQL that loads into PostgreSQL 15 and into a new
// seqd with the same sequences, positions, comments, owners and grants;
// PostgreSQL's dump of what was loaded into it loads into another seqd
// the same, and is the same text as seqd's dump. The custom format too,
// through pg_restore.
func TestPgDump(t *testing.T) {
	ctx := context.Background()
	role := "do $$ begin if not exists (select from pg_roles where rolname = 'pgdump_reader') then create role pgdump_reader; end if; end $$"
	pg, src, cfg, host, port := connectBoth(t, "seqd_pgdump", role)
	if _, err := src.Exec(ctx, "create role pgdump_reader"); err != nil {
		t.Fatal(err)
	}
	for _, q := range pgDumpSetup {
		if _, err := src.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	pgDump, psql := testenv.Command(t, "pg_dump"), testenv.Command(t, "psql")
	dump := func(host string, port uint16, db string) []byte {
		t.Helper()
		out, err := exec.Command(pgDump, "-h", host, "-p", fmt.Sprint(port), "-U", cfg.User, "-d", db).Output()
		if err != nil {
			t.Fatalf("pg_dump of %s:%d: %v %s", host, port, err, err.(*exec.ExitError).Stderr)
		}
		return out
	}
	load := func(sql []byte, host string, port uint16, db string) {
		t.Helper()
		cmd := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", fmt.Sprint(port), "-U", cfg.User, "-d", db, "-f", "-")
		cmd.Stdin = bytes.NewReader(sql)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("loading the dump into %s:%d: %v\n%s\n%s", host, port, err, out, sql)
		}
	}
	newSeqd := func() (*pgx.Conn, string, uint16) {
		t.Helper()
		h, p := startSeqd(t)
		c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s@%s:%s/seqd", cfg.User, h, p))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		if _, err := c.Exec(ctx, "create role pgdump_reader"); err != nil {
			t.Fatal(err)
		}
		var port uint16
		fmt.Sscan(p, &port)
		return c, h, port
	}

	want := dumpState(t, src)
	fromSeqd := dump(host, port, "seqd_pgdump")
	load(fromSeqd, cfg.Host, cfg.Port, "seqd_pgdump")
	if got := dumpState(t, pg); got != want {
		t.Errorf("PostgreSQL 15 after loading seqd's dump:\n%s\nthe seqd it came from:\n%s", got, want)
	}
	dst, h, p := newSeqd()
	load(fromSeqd, h, p, "seqd")
	if got := dumpState(t, dst); got != want {
		t.Errorf("a new seqd after loading seqd's dump:\n%s\nthe seqd it came from:\n%s", got, want)
	}
	fromPG := dump(cfg.Host, cfg.Port, "seqd_pgdump")
	if strip(fromPG) != strip(fromSeqd) {
		t.Errorf("PostgreSQL's dump of the same sequences differs from seqd's:\n%s", testenv.LineDiff(strip(fromPG), strip(fromSeqd)))
	}
	dst2, h2, p2 := newSeqd()
	load(fromPG, h2, p2, "seqd")
	if got := dumpState(t, dst2); got != want {
		t.Errorf("a new seqd after loading PostgreSQL's dump:\n%s\nwant:\n%s", got, want)
	}

	// Custom format: pg_restore of seqd's dump into a new seqd; of
	// PostgreSQL's, holding a table too, into another: the sequences
	// restored, and pg_restore names the table seqd refused.
	pgRestore := testenv.Command(t, "pg_restore")
	restore := func(archive []byte, host string, port uint16) (string, error) {
		t.Helper()
		cmd := exec.Command(pgRestore, "-h", host, "-p", fmt.Sprint(port), "-U", cfg.User, "-d", "seqd")
		cmd.Stdin = bytes.NewReader(archive)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	custom := func(host string, port uint16, db string) []byte {
		t.Helper()
		out, err := exec.Command(pgDump, "-Fc", "-h", host, "-p", fmt.Sprint(port), "-U", cfg.User, "-d", db).Output()
		if err != nil {
			t.Fatalf("pg_dump -Fc of %s:%d: %v", host, port, err)
		}
		return out
	}
	dst3, h3, p3 := newSeqd()
	if out, err := restore(custom(host, port, "seqd_pgdump"), h3, p3); err != nil {
		t.Fatalf("pg_restore of seqd's custom-format dump: %v\n%s", err, out)
	}
	if got := dumpState(t, dst3); got != want {
		t.Errorf("a new seqd after pg_restore of seqd's custom-format dump:\n%s\nwant:\n%s", got, want)
	}
	if _, err := pg.Exec(ctx, "create table pgdump_t (id bigint default nextval('d_plain'))"); err != nil {
		t.Fatal(err)
	}
	dst4, h4, p4 := newSeqd()
	out, err := restore(custom(cfg.Host, cfg.Port, "seqd_pgdump"), h4, p4)
	if err == nil || !strings.Contains(out, "seqd does not support CREATE TABLE") || !strings.Contains(out, "pgdump_t") {
		t.Errorf("pg_restore of a dump with a table into seqd: %v, want its errors to name the table seqd refused:\n%s", err, out)
	}
	if got := dumpState(t, dst4); got != want {
		t.Errorf("a new seqd after pg_restore of PostgreSQL's custom-format dump:\n%s\nwant:\n%s", got, want)
	}
	var v int64
	for _, c := range []*pgx.Conn{src, pg, dst, dst2, dst3, dst4} {
		if err := c.QueryRow(ctx, "select nextval('d_cached')").Scan(&v); err != nil || v != 121 {
			t.Errorf("nextval('d_cached') after the dump: %d %v, want 121", v, err)
		}
	}
}

// strip is a dump without its comments, blank lines and \restrict keys
// (new with each dump).
func strip(dump []byte) string {
	var out []string
	for _, l := range strings.Split(string(dump), "\n") {
		if l == "" || strings.HasPrefix(l, "--") || strings.HasPrefix(l, `\restrict`) || strings.HasPrefix(l, `\unrestrict`) {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestPgDumpall: pg_dumpall --roles-only, as a superuser, gives seqd's
// roles with their SCRAM verifiers, memberships and settings, and loads
// into a new seqd where the roles log in with the same passwords; as
// another role it is refused (pg_authid is a superuser's), and
// --no-role-passwords gives the roles without secrets.
func TestPgDumpall(t *testing.T) {
	ctx := context.Background()
	dumpall, psql := testenv.Command(t, "pg_dumpall"), testenv.Command(t, "psql")
	start := func() (string, string) {
		return startWith(t, server.Config{Auth: "scram-sha-256", Password: "pw"})
	}
	conn := func(host, port, user, password string) (*pgx.Conn, error) {
		return pgx.Connect(ctx, fmt.Sprintf("postgres://%s:%s@%s:%s/seqd", user, password, host, port))
	}
	h, p := start()
	src, err := conn(h, p, "seqd", "pw")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(ctx)
	for _, q := range []string{"create role da_bob login password 'bob-pw'", "alter role da_bob set statement_timeout = '5s'", "create role da_group",
		"grant da_group to da_bob", "create role da_admin login createrole password 'admin-pw'"} {
		if _, err := src.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	run := func(user, password string, args ...string) (string, error) {
		cmd := exec.Command(dumpall, append([]string{"-h", h, "-p", p, "-U", user, "-l", "seqd", "--roles-only"}, args...)...)
		cmd.Env = append(cmd.Environ(), "PGPASSWORD="+password)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	roles, err := run("seqd", "pw")
	if err != nil {
		t.Fatalf("pg_dumpall --roles-only as the superuser: %v\n%s", err, roles)
	}
	for _, want := range []string{"CREATE ROLE da_bob;", "PASSWORD 'SCRAM-SHA-256$4096:", "ALTER ROLE da_bob SET statement_timeout TO '5s';", "GRANT da_group TO da_bob GRANTED BY seqd;"} {
		if !strings.Contains(roles, want) {
			t.Errorf("pg_dumpall --roles-only lacks %q:\n%s", want, roles)
		}
	}
	if out, err := run("da_admin", "admin-pw"); err == nil || !strings.Contains(out, "permission denied for table pg_authid") {
		t.Errorf("pg_dumpall --roles-only as a role that is no superuser: %v\n%s", err, out)
	}
	if out, err := run("da_admin", "admin-pw", "--no-role-passwords"); err != nil || strings.Contains(out, "SCRAM-SHA-256") || !strings.Contains(out, "CREATE ROLE da_bob;") {
		t.Errorf("pg_dumpall --roles-only --no-role-passwords: %v\n%s", err, out)
	}

	h2, p2 := start()
	cmd := exec.Command(psql, "-X", "-q", "-h", h2, "-p", p2, "-U", "seqd", "-d", "seqd", "-f", "-")
	cmd.Env = append(cmd.Environ(), "PGPASSWORD=pw")
	cmd.Stdin = strings.NewReader(roles)
	out, _ := cmd.CombinedOutput()
	// As into any server that has its own bootstrap superuser: that role
	// exists already, and nothing else fails.
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `role "seqd" already exists`) {
		t.Errorf("loading the roles into a new seqd:\n%s", out)
	}
	bob, err := conn(h2, p2, "da_bob", "bob-pw")
	if err != nil {
		t.Fatalf("da_bob's password after loading the roles: %v", err)
	}
	defer bob.Close(ctx)
	var timeout string
	var member bool
	if err := bob.QueryRow(ctx, "select current_setting('statement_timeout'), pg_has_role('da_group', 'member')").Scan(&timeout, &member); err != nil || timeout != "5s" || !member {
		t.Errorf("da_bob's setting and membership after loading: %q %v %v", timeout, member, err)
	}
	if c, err := conn(h2, p2, "da_bob", "wrong"); err == nil {
		c.Close(ctx)
		t.Error("da_bob logged in with a wrong password after loading")
	}
}
