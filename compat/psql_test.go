package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
)

// psqlCommands are psql's catalog commands a user types; each must print
// on seqd what it prints on PostgreSQL 15 for the same sequences.
var psqlCommands = []string{`\ds`, `\d`, `\d s1`, `\d s2`, `\d other.s3`, `\dn`, `\l seqd_psql`, `\conninfo`, `\dt`, `\ds *.s*`,
	`\dp`, `\dp other.*`, `\dn+`, `\ds+`, `\d+ s1`, `\du seqd_psql*`, `\dg seqd_psql*`, `\df nextval`, `\dconfig datestyle`, `\l+ seqd_psql`}

// TestPsqlCatalog runs psql's catalog commands against PostgreSQL 15 and
// seqd holding the same sequences, as the same user and database, and
// compares the transcripts (ports and sizes aside).
func TestPsqlCatalog(t *testing.T) {
	psql := testenv.Command(t, "psql")
	ctx := context.Background()
	setup := []string{
		"create schema other",
		"create sequence s1",
		"create sequence s2 as integer increment 5 minvalue -10 maxvalue 1000 start 7 cache 10 cycle",
		"create sequence other.s3 increment -1",
		"drop role if exists seqd_psql_reader",
		"create role seqd_psql_reader",
		// seqd lists grantees after the owner in name order (PUBLIC
		// first); PostgreSQL in the order granted: granted so here.
		"grant select on sequence s1 to public, seqd_psql_reader",
		"grant usage, select on sequence other.s3 to seqd_psql_reader",
		"grant usage on schema other to seqd_psql_reader",
	}
	pg, sd, cfg, host, sdPort := connectBoth(t, "seqd_psql")
	for _, q := range setup {
		for _, c := range []*pgx.Conn{pg, sd} {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatal(q, err)
			}
		}
	}
	transcript := func(h string, p uint16) string {
		var b strings.Builder
		for _, c := range psqlCommands {
			cmd := exec.Command(psql, "-X", "-h", h, "-p", fmt.Sprint(p), "-U", cfg.User, "-d", "seqd_psql", "-c", c)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", c, err, out)
			}
			fmt.Fprintf(&b, "%s\n%s", c, out)
		}
		out := regexp.MustCompile(`port "\d+"`).ReplaceAllString(b.String(), `port "N"`)
		// Sizes are seqd's own (a sequence's record, not a page of 8 kB):
		// compared as present, the columns' widths aside.
		out = regexp.MustCompile(`\d+ (bytes|kB|MB|GB)`).ReplaceAllString(out, "SIZE")
		return regexp.MustCompile(`-{2,}`).ReplaceAllString(regexp.MustCompile(` {2,}`).ReplaceAllString(out, " "), "-")
	}
	want, got := transcript(cfg.Host, cfg.Port), transcript(host, sdPort)
	if want != got {
		t.Errorf("psql on seqd differs from PostgreSQL 15:\n%s", testenv.LineDiff(want, got))
	}
}

// TestPgcliMetadata: pgcli's completion metadata (its PGExecute's
// queries, run as pgcli runs them at connect) is PostgreSQL 15's for the
// same objects: the schemas, the catalog's tables and views and their
// columns, no foreign keys or user types, and each function seqd has as
// PostgreSQL lists it. Where seqd differs by design: it has fewer
// functions, its own views (seqd_*), and it describes information_schema's
// columns by their domains' base types.
func TestPgcliMetadata(t *testing.T) {
	pg, sd, cfg, host, port := connectBoth(t, "seqd_pgcli")
	for _, c := range []*pgx.Conn{pg, sd} {
		for _, q := range []string{"create schema pgc", "create sequence pgc.s1", "create sequence public.s2"} {
			step(t, c, q)
		}
	}
	read := func(host string, port uint16) map[string]json.RawMessage {
		t.Helper()
		out, err := exec.Command(testenv.Python(t), "python/pgcli_metadata.py", host, fmt.Sprint(port), cfg.User, "seqd_pgcli").Output()
		if err != nil {
			t.Fatalf("pgcli metadata from %s:%d: %v", host, port, err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	want, got := read(cfg.Host, cfg.Port), read(host, port)
	// seqd serves one database: it lists that one.
	if d := string(got["databases"]); d != `[["seqd_pgcli"]]` || !strings.Contains(string(want["databases"]), `["seqd_pgcli"]`) {
		t.Errorf("databases:\n postgres: %s\n     seqd: %s", want["databases"], d)
	}
	for _, name := range []string{"search_path", "foreignkeys", "datatypes"} {
		if string(want[name]) != string(got[name]) {
			t.Errorf("%s:\n postgres: %s\n     seqd: %s", name, want[name], got[name])
		}
	}
	rows := func(m map[string]json.RawMessage, name string, keep func(r []any) bool) []string {
		var rs [][]any
		if err := json.Unmarshal(m[name], &rs); err != nil {
			t.Fatalf("%s: %s", name, m[name])
		}
		var out []string
		for _, r := range rs {
			if keep(r) {
				b, _ := json.Marshal(r)
				out = append(out, string(b))
			}
		}
		return out
	}
	catalog := func(r []any) bool {
		schema, _ := r[0].(string)
		name, _ := r[1].(string)
		return (schema == "pg_catalog" || schema == "information_schema" || schema == "public" || schema == "pgc") && !strings.HasPrefix(name, "seqd")
	}
	pgCatalog := func(r []any) bool { return r[0] == "pg_catalog" && !strings.HasPrefix(r[1].(string), "seqd") }
	for _, c := range []struct {
		name string
		keep func([]any) bool
	}{
		{"schemata", func(r []any) bool {
			return r[0] == "pgc" || r[0] == "public" || r[0] == "pg_catalog" || r[0] == "information_schema"
		}},
		{"tables", catalog}, {"views", catalog}, {"table_columns", pgCatalog},
	} {
		w, g := rows(want, c.name, c.keep), rows(got, c.name, c.keep)
		if !slices.Equal(w, g) {
			t.Errorf("%s differ:\n%s", c.name, testenv.LineDiff(strings.Join(w, "\n"), strings.Join(g, "\n")))
		}
		if len(g) == 0 {
			t.Errorf("%s: none", c.name)
		}
	}
	// Each function seqd lists, as PostgreSQL lists it.
	all := map[string]bool{}
	for _, f := range rows(want, "functions", func([]any) bool { return true }) {
		all[f] = true
	}
	fs := rows(got, "functions", func([]any) bool { return true })
	for _, f := range fs {
		if !all[f] {
			t.Errorf("seqd lists the function %s, which PostgreSQL does not list so", f)
		}
	}
	if len(fs) < 100 {
		t.Errorf("seqd lists %d functions", len(fs))
	}
}
