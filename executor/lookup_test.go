package executor

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/seqmath"

	"github.com/seqd/seqd/internal/testenv"
)

// TestCatalogLookups: a catalog query whose WHERE clause holds a
// sequence's name or OID equal to a constant, which the relation answers
// by lookup, returns what the same query returns when it must read every
// row (the same condition written so that it cannot be looked up by):
// across schemas, with a temporary sequence shadowing another, in a
// transaction block that created one, in joins (an outer one too), by a
// parameter, for a catalog relation's own row, for a name too long to be
// looked up, and for nothing.
func TestCatalogLookups(t *testing.T) {
	eng := testenv.MemEngine(t)
	s, err := NewSession(Config{Engine: eng, MaxBulkRows: 1000, User: "seqd", Database: "seqd"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"create schema x", "create schema y", "create sequence a", "create sequence x.a start 5",
		"create sequence x.b", "create temp sequence a", "select nextval('x.a')", "create sequence " + strings.Repeat("l", 63)} {
		if out := execTranscript(s, q); strings.Contains(out, "ERROR") {
			t.Fatalf("%s: %s", q, out)
		}
	}
	for _, c := range []struct{ lookup, scan string }{
		{"select oid::regclass::text, relname, relkind, relnamespace::regnamespace::text from pg_class where relname = 'a'",
			"select oid::regclass::text, relname, relkind, relnamespace::regnamespace::text from pg_class where relname || '' = 'a'"},
		{"select relname from pg_class where oid = 'x.a'::regclass", "select relname from pg_class where oid::int8 = 'x.a'::regclass::int8"},
		{"select relname from pg_class where oid = 1259", "select relname from pg_class where oid::int8 = 1259"},
		{"select relname from pg_class where relname = 'pg_class' and relkind = 'r'", "select relname from pg_class where relname || '' = 'pg_class' and relkind = 'r'"},
		{"select schemaname, sequencename, last_value, start_value from pg_sequences where sequencename = 'a' order by 1",
			"select schemaname, sequencename, last_value, start_value from pg_sequences where sequencename || '' = 'a' order by 1"},
		{"select n.nspname, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relname = 'a' and n.nspname = 'x'",
			"select n.nspname, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relname || '' = 'a' and n.nspname = 'x'"},
		{"select c.relname, s.seqstart from pg_class c left join pg_sequence s on s.seqrelid = c.oid where c.relname = 'a' order by 2",
			"select c.relname, s.seqstart from pg_class c left join pg_sequence s on s.seqrelid = c.oid where c.relname || '' = 'a' order by 2"},
		// A join reads the right relation's rows for each left row's key
		// (psql's \d joins pg_attribute on attrelid = pg_class.oid).
		{"select c.relname, a.attname, a.attnum from pg_class c join pg_attribute a on a.attrelid = c.oid where c.relname = 'a' order by 1, 3",
			"select c.relname, a.attname, a.attnum from pg_class c join pg_attribute a on a.attrelid::int8 = c.oid::int8 where c.relname = 'a' order by 1, 3"},
		{"select c.relname, count(a.attname) from pg_class c left join pg_attribute a on c.oid = a.attrelid and a.attnum > 0 where c.relname = 'a' group by 1 order by 1",
			"select c.relname, count(a.attname) from pg_class c left join pg_attribute a on c.oid::int8 = a.attrelid::int8 and a.attnum > 0 where c.relname = 'a' group by 1 order by 1"},
		{"select c.relname, count(a.attname) from pg_class c join pg_attribute a on c.oid = a.attrelid where c.relname = 'pg_am' group by 1",
			"select c.relname, count(a.attname) from pg_class c join pg_attribute a on c.oid::int8 = a.attrelid::int8 where c.relname = 'pg_am' group by 1"},
		{"select d.refobjid::regnamespace::text, c.relname from pg_depend d join pg_class c on c.oid = d.objid where d.objid = 'x.b'::regclass",
			"select d.refobjid::regnamespace::text, c.relname from pg_depend d join pg_class c on c.oid::int8 = d.objid::int8 where d.objid::int8 = 'x.b'::regclass::int8"},
		{"select s.seqstart from pg_sequence s where s.seqrelid = 'x.a'::regclass", "select s.seqstart from pg_sequence s where s.seqrelid::int8 = 'x.a'::regclass::int8"},
		{"select sequence_schema, start_value from information_schema.sequences where sequence_name = 'a' order by 1",
			"select sequence_schema, start_value from information_schema.sequences where sequence_name || '' = 'a' order by 1"},
		{"select schemaname, last_value, reserved_values from seqd_stat_sequences where sequencename = 'a' order by 1",
			"select schemaname, last_value, reserved_values from seqd_stat_sequences where sequencename || '' = 'a' order by 1"},
		{"select relname from pg_class where relname = 'nope'", "select relname from pg_class where relname || '' = 'nope'"},
		{"select relname from pg_class where relname = '" + strings.Repeat("l", 70) + "'", "select relname from pg_class where relname || '' = '" + strings.Repeat("l", 70) + "'"},
		// Patterns with a literal prefix: psql's \ds a*, LIKE.
		{"select n.nspname, c.relname from pg_class c left join pg_namespace n on n.oid = c.relnamespace where c.relkind in ('S','') and c.relname OPERATOR(pg_catalog.~) '^(a.*)$' COLLATE pg_catalog.default order by 1, 2",
			"select n.nspname, c.relname from pg_class c left join pg_namespace n on n.oid = c.relnamespace where c.relkind in ('S','') and c.relname || '' OPERATOR(pg_catalog.~) '^(a.*)$' COLLATE pg_catalog.default order by 1, 2"},
		{"select relname from pg_class where relname like 'pg_cl%' order by 1", "select relname from pg_class where relname || '' like 'pg_cl%' order by 1"},
		{"select sequencename from pg_sequences where sequencename ~ '^bx?' order by 1", "select sequencename from pg_sequences where sequencename || '' ~ '^bx?' order by 1"},
		{"select sequence_name from information_schema.sequences where sequence_name like 'll_l%' order by 1",
			"select sequence_name from information_schema.sequences where sequence_name || '' like 'll_l%' order by 1"},
		{"begin; create sequence y.a; select relnamespace::regnamespace::text from pg_class where relname = 'a' order by 1; rollback",
			"begin; create sequence y.a; select relnamespace::regnamespace::text from pg_class where relname || '' = 'a' order by 1; rollback"},
	} {
		before := s.seqRowsMade
		got := execTranscript(s, c.lookup)
		looked := s.seqRowsMade - before
		want := execTranscript(s, c.scan)
		scanned := s.seqRowsMade - before - looked
		if got != want || strings.Contains(got, "ERROR") {
			t.Errorf("%s\ngot:\n%s\nwant (%s):\n%s", c.lookup, got, c.scan, want)
		}
		// The full read makes a row of each of the 5 sequences (6 in the
		// block that creates one); the lookup only of those it names (a
		// name too long to look up is read in full).
		if long := strings.Contains(c.lookup, "lllllll"); scanned < 5 || !long && looked >= scanned || long && looked != scanned {
			t.Errorf("%s: %d rows made of sequences by the lookup, %d by the full read", c.lookup, looked, scanned)
		}
	}
	// A parameter, as the extended protocol binds it.
	stmts, err := pgsql.Parse("select schemaname from pg_sequences where sequencename = $1 order by 1")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Prepare(&stmts[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"a": {"pg_temp_1", "public", "x"}, "b": {"x"}, "nope": nil} {
		res, err := s.Execute(context.Background(), p, []eval.Datum{eval.Text(name)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			row, ok, err := res.Rows.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			got = append(got, row[0].S)
		}
		s.Release(res)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("sequencename = $1 with %q: %q, want %q", name, got, want)
		}
	}
}

// TestCatalogEmpty: a relation of PostgreSQL's catalog that describes
// what seqd has not (memory contexts, postgresql.conf, zone abbreviations
// in timestamp input, SQL conformance claims, triggers) is there, empty;
// the others have seqd's rows.
func TestCatalogEmpty(t *testing.T) {
	s, err := NewSession(Config{Engine: testenv.MemEngine(t), MaxBulkRows: 1000, User: "seqd", Database: "seqd"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pg_backend_memory_contexts", "pg_file_settings", "pg_timezone_abbrevs", "pg_trigger",
		"information_schema.sql_features", "information_schema.sql_parts", "information_schema.sql_sizing"} {
		if got := execTranscript(s, "select count(*) from "+name); !strings.HasPrefix(got, "count:bigint\n0\n") {
			t.Errorf("%s:\n%s\nwant no rows", name, got)
		}
	}
	for q, want := range map[string]string{
		"select locktype from pg_locks":     "locktype:text\nSELECT 0",
		"select spcname from pg_tablespace": "spcname:name\npg_default\npg_global",
	} {
		if got := execTranscript(s, q); !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n%s\nwant it to begin\n%s", q, got, want)
		}
	}
}

// TestSparseCatalogs: pg_description, pg_shdepend and
// information_schema.usage_privileges list only the few sequences with a
// comment, an owner other than the bootstrap superuser, or grants; read
// from the engine's records without describing the others, and from a
// transaction block's view (which lists them all) alike.
func TestSparseCatalogs(t *testing.T) {
	eng := testenv.MemEngine(t)
	s, err := NewSession(Config{Engine: eng, MaxBulkRows: 1000, User: "seqd", Database: "seqd"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"create role app", "create sequence plain", "create sequence noted", "comment on sequence noted is 'n'",
		"create sequence shared", "grant usage on sequence shared to app", "create sequence owned", "alter sequence owned owner to app",
		"create temp sequence tnoted", "comment on sequence tnoted is 't'"} {
		if out := execTranscript(s, q); strings.Contains(out, "ERROR") {
			t.Fatalf("%s: %s", q, out)
		}
	}
	queries := []string{
		"select objoid::regclass::text, description from pg_description where classoid = 'pg_class'::regclass order by 1",
		"select objid::regclass::text, deptype from pg_shdepend where classid = 'pg_class'::regclass order by 1, 2",
		"select object_name, grantee from information_schema.usage_privileges where object_type = 'SEQUENCE' order by 1, 2",
	}
	want := []string{
		"noted n\ntnoted t",
		"owned o\nshared a",
		"shared app\nshared seqd",
	}
	rows := func(q string) string {
		t.Helper()
		out := execTranscript(s, q)
		if strings.Contains(out, "ERROR") {
			t.Fatalf("%s: %s", q, out)
		}
		// The header, the rows, the command tag, the status.
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return strings.Join(lines[1:len(lines)-2], "\n")
	}
	for i, q := range queries {
		if got := rows(q); got != want[i] {
			t.Errorf("%s:\n%s\nwant:\n%s", q, got, want[i])
		}
	}
	// In a block that changed the catalog: its view.
	if out := execTranscript(s, "begin; comment on sequence plain is 'p'; grant usage on sequence plain to app"); strings.Contains(out, "ERROR") {
		t.Fatal(out)
	}
	want = []string{
		"noted n\nplain p\ntnoted t",
		"owned o\nplain a\nshared a",
		"plain app\nplain seqd\nshared app\nshared seqd",
	}
	for i, q := range queries {
		if got := rows(q); got != want[i] {
			t.Errorf("in the block, %s:\n%s\nwant:\n%s", q, got, want[i])
		}
	}
	execTranscript(s, "rollback")
}

// TestScanBatches: a full scan over more sequences than it describes at a
// time lists each once, across batches and schemas, a temporary one
// too, and in a block that made one, its view.
func TestScanBatches(t *testing.T) {
	eng := testenv.MemEngine(t)
	ctx := context.Background()
	for i := range 2*scanBatch + 500 {
		schema := []string{"public", "x"}[i%2]
		if i < 2 {
			if _, err := eng.CreateSchema(ctx, "x", "", true); err != nil {
				t.Fatal(err)
			}
		}
		n, _ := engine.NewName(schema, fmt.Sprintf("s%d", i))
		if _, err := eng.Create(ctx, n, seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
	}
	s, err := NewSession(Config{Engine: eng, MaxBulkRows: 10000, User: "seqd", Database: "seqd"})
	if err != nil {
		t.Fatal(err)
	}
	count := func(q string) string {
		t.Helper()
		out := execTranscript(s, q)
		if strings.Contains(out, "ERROR") {
			t.Fatalf("%s: %s", q, out)
		}
		return strings.Split(strings.TrimSpace(out), "\n")[1]
	}
	const q = "select count(*), count(distinct oid), count(distinct relnamespace::regnamespace::text || '.' || relname) from pg_class where relkind = 'S'"
	if got := count(q); got != "2500 2500 2500" {
		t.Fatalf("a scan of 2,500 sequences: %s", got)
	}
	if got := count("select count(*) from pg_sequences"); got != "2500" {
		t.Fatalf("pg_sequences: %s", got)
	}
	if out := execTranscript(s, "create temp sequence t; begin; create sequence y1"); strings.Contains(out, "ERROR") {
		t.Fatal(out)
	}
	if got := count(q); got != "2502 2502 2502" {
		t.Fatalf("with a temporary sequence and in a block that made one: %s", got)
	}
	execTranscript(s, "rollback")
}
